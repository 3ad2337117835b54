//! [`Client`]: several named servers behind one blocking API, with tool routing.

use std::sync::Arc;
use std::time::Instant;

use mcp_core::ClientError;
use mcp_host::{BuilderParts, Prepared};

use crate::driver;
use crate::handlers::{typed_handler, Handler, HandlerOutput};
use crate::http::HttpClient;
use crate::server::Server;
use crate::streaming::ToolCallStream;

/// An MCP client over one or more servers. Cheap to clone; `Send + Sync`. Dropping the last
/// clone (and every [`Server`] taken from it) shuts the servers down in the background.
#[derive(Debug, Clone)]
pub struct Client {
    servers: Arc<[Server]>,
    max_concurrent_servers: usize,
}

/// Builds a [`Client`]: servers, handlers, event hook, HTTP client setup.
#[derive(Default)]
pub struct ClientBuilder {
    parts: BuilderParts<Handler>,
}

impl std::fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.parts.fmt(f)
    }
}

impl ClientBuilder {
    mcp_host::builder_methods!();

    /// Starts one engine (and its timer thread) per server. Servers start lazily, on first use (or on
    /// [`Client::connect`]). Fails for an empty or inconsistent server list, or an unusable
    /// [`HttpClientConfig`](crate::HttpClientConfig) (a bad certificate or proxy URL).
    pub fn build(self) -> Result<Client, ClientError> {
        let Prepared { servers: starts, handlers, http, max_concurrent_servers } =
            self.parts.prepare(Instant::now())?;
        let http = HttpClient::new(&http)?;
        let mut servers = Vec::with_capacity(starts.len());
        for start in starts {
            let engine = driver::start(start.conn, start.dispatch, handlers.clone(), http.clone())
                .map_err(|e| ClientError::Config(format!("could not start a timer thread: {e}")))?;
            servers.push(Server::new(start.name, engine, start.view));
        }
        Ok(Client { servers: servers.into(), max_concurrent_servers })
    }
}

impl Client {
    /// A builder.
    pub fn builder() -> ClientBuilder {
        ClientBuilder::default()
    }

    /// The fan-out the client-wide methods stand on: `per_server` for every server on at most
    /// `max_concurrent_servers` threads at once (the calling thread is one; scoped threads
    /// help it), the outputs in configuration order.
    fn fan_out<'a, T: Send>(&'a self, per_server: impl Fn(&'a Server) -> T + Sync) -> Vec<T> {
        let per_server = &per_server;
        let jobs: Vec<_> = self.servers.iter().map(|s| move || per_server(s)).collect();
        mcp_host::run_bounded(jobs, self.max_concurrent_servers)
    }

    mcp_host::client_methods!();
    mcp_host::client_task_methods!();
    mcp_host::client_catalog_methods!();
    mcp_host::tool_format_methods!();
    mcp_host::batch_methods!();
}
