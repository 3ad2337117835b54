//! [`Client`]: several named servers behind one API, with tool routing.

use std::future::Future;
use std::sync::Arc;

use mcp_core::{ClientError, ServerSpec};
use mcp_host::{BuilderParts, Prepared};

use crate::driver;
use crate::handlers::{typed_handler, Handler, HandlerOutput};
use crate::http::{Connector, HttpClient};
use crate::runtime::Runtime;
use crate::server::Server;
use crate::streaming::ToolCallStream;

/// An MCP client over one or more servers. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Client {
    servers: Arc<[Server]>,
    max_concurrent_servers: usize,
}

/// Builds a [`Client`]: servers, handlers, event hook, HTTP client setup.
#[derive(Default)]
pub struct ClientBuilder {
    parts: BuilderParts<Handler>,
    connector: Option<Arc<dyn Connector>>,
}

impl std::fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.parts.fmt(f)
    }
}

impl ClientBuilder {
    mcp_host::builder_methods!();

    /// Replaces how TCP streams to HTTP servers (and proxies) are opened: custom DNS, Unix
    /// sockets, an in-process transport for tests... TLS and proxy tunnels are layered on top.
    pub fn connector(mut self, connector: Arc<dyn Connector>) -> Self {
        self.connector = Some(connector);
        self
    }

    /// Starts one engine (and its timer task) per server on the runtime. Servers start lazily, on first use
    /// (or on [`Client::connect`]).
    pub fn build<R: Runtime>(self, rt: R) -> Result<Client, ClientError> {
        let Prepared { servers, handlers, http, max_concurrent_servers } = self.parts.prepare(rt.now())?;
        let http = Arc::new(HttpClient::new(&http, self.connector).map_err(ClientError::Config)?);
        let servers: Vec<Server> = servers
            .into_iter()
            .map(|start| {
                let engine =
                    driver::start(rt.clone(), start.conn, start.dispatch, handlers.clone(), http.clone());
                Server::new(start.name, engine, start.view)
            })
            .collect();
        Ok(Client { servers: servers.into(), max_concurrent_servers })
    }
}

impl Client {
    /// A builder.
    pub fn builder() -> ClientBuilder {
        ClientBuilder::default()
    }

    /// The fan-out the client-wide methods stand on: `per_server` for every server, at most
    /// `max_concurrent_servers` futures polled at once inside the caller's future (no task is
    /// spawned), the outputs in configuration order.
    async fn fan_out<'a, T, F, Fut>(&'a self, per_server: F) -> Vec<T>
    where
        F: FnMut(&'a Server) -> Fut,
        Fut: Future<Output = T>,
    {
        mcp_host::JoinBounded::new(self.servers.iter().map(per_server), self.max_concurrent_servers).await
    }

    mcp_host::client_methods!(async await);
    mcp_host::client_task_methods!(async await);
    mcp_host::client_catalog_methods!(async await);
    mcp_host::tool_format_methods!(async await);
    mcp_host::batch_methods!(async await);
}

/// Connects to one server given as a target string (a command line for stdio) on `rt` and waits
/// until its protocol era is known. The runtime crates wrap this as their `connect`.
pub async fn connect<R: Runtime>(rt: R, target: &str) -> Result<Client, ClientError> {
    let client = Client::builder().server(ServerSpec::from_target_named(target)?).build(rt)?;
    client.connect().await.into_result()?;
    Ok(client)
}
