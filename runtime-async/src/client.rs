//! [`Client`]: several named servers behind one API, with tool routing.

use std::sync::Arc;

use mcp_core::host::prepare_servers;
use mcp_core::routing::route_tool;
use mcp_core::types::CallToolResult;
use mcp_core::{ClientError, Connection, Event, ServerInfo, ServerRequest, ServerSpec, ServerTool};
use serde_json::Value;

use crate::driver::{Driver, Shared};
use crate::handlers::{handler, EventHook, Handler, Handlers};
use crate::http::{HttpClient, HttpClientConfig};
use crate::runtime::Runtime;
use crate::server::Server;

/// An MCP client over one or more servers. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Client {
    servers: Arc<[Server]>,
}

/// Builds a [`Client`]: servers, handlers, event hook.
#[derive(Default)]
pub struct ClientBuilder {
    specs: Vec<ServerSpec>,
    handlers: Handlers,
    hook: Option<EventHook>,
    http: HttpClientConfig,
}

impl std::fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientBuilder")
            .field("specs", &self.specs)
            .field("handlers", &self.handlers)
            .field("http", &self.http)
            .finish()
    }
}

impl ClientBuilder {
    /// Adds a server.
    pub fn server(mut self, spec: ServerSpec) -> Self {
        self.specs.push(spec);
        self
    }

    /// Sets up the HTTP client every HTTP server of this client uses: extra root
    /// certificates, proxy, keep-alive, or a custom [`crate::Connector`].
    pub fn http_client(mut self, config: HttpClientConfig) -> Self {
        self.http = config;
        self
    }

    /// Installs a roots handler (declares the `roots` capability).
    pub fn roots_handler(mut self, h: Handler) -> Self {
        self.handlers.roots = Some(h);
        self
    }

    /// Installs a sampling handler (declares the `sampling` capability).
    pub fn sampling_handler(mut self, h: Handler) -> Self {
        self.handlers.sampling = Some(h);
        self
    }

    /// Installs an elicitation handler (declares form-mode `elicitation`).
    pub fn elicitation_handler(mut self, h: Handler) -> Self {
        self.handlers.elicitation = Some(h);
        self
    }

    /// Convenience: an async closure as the elicitation handler.
    pub fn on_elicitation<F, Fut>(self, f: F) -> Self
    where
        F: Fn(&str, ServerRequest) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Result<Value, String>> + Send + 'static,
    {
        self.elicitation_handler(handler(f))
    }

    /// Calls `hook` with every non-response event of every server (notifications, logs,
    /// stderr lines, warnings, connects and disconnects). It runs on the server's driver.
    pub fn on_event<F>(mut self, hook: F) -> Self
    where
        F: Fn(&str, &Event) + Send + Sync + 'static,
    {
        self.hook = Some(Arc::new(hook));
        self
    }

    /// Starts one driver per server on the runtime. Servers start lazily, on first use
    /// (or on [`Client::connect`]).
    pub fn build<R: Runtime>(self, rt: R) -> Result<Client, ClientError> {
        let specs = prepare_servers(self.specs, &self.handlers.features())?;
        let handlers = Arc::new(self.handlers);
        let http = Arc::new(HttpClient::new(&self.http).map_err(ClientError::Config)?);
        let servers: Vec<Server> = specs
            .into_iter()
            .map(|spec| {
                let mut config = spec.config;
                crate::runtime::seed_config(&mut config);
                let name: Arc<str> = spec.name.into();
                let (tx, rx) = async_channel::unbounded();
                let shared = Arc::new(Shared::default());
                let conn = Connection::new(config, rt.now());
                let driver = Driver::new(
                    rt.clone(),
                    name.clone(),
                    conn,
                    rx,
                    handlers.clone(),
                    self.hook.clone(),
                    shared.clone(),
                    http.clone(),
                );
                rt.spawn(Box::pin(driver.run()));
                Server::new(name, tx, shared)
            })
            .collect();
        Ok(Client { servers: servers.into() })
    }
}

impl Client {
    /// A builder.
    pub fn builder() -> ClientBuilder {
        ClientBuilder::default()
    }

    /// Every server, in configuration order.
    pub fn servers(&self) -> &[Server] {
        &self.servers
    }

    /// The server with this name.
    pub fn server(&self, name: &str) -> Option<&Server> {
        self.servers.iter().find(|s| s.name() == name)
    }

    fn only_or_named(&self, name: &str) -> Result<&Server, ClientError> {
        self.server(name).ok_or_else(|| mcp_core::routing::RouteError::UnknownServer(name.to_owned()).into())
    }

    /// Connects every server (era detection included); fails on the first that cannot connect.
    pub async fn connect(&self) -> Result<Vec<ServerInfo>, ClientError> {
        let mut out = Vec::with_capacity(self.servers.len());
        for s in self.servers.iter() {
            out.push(s.connect().await?);
        }
        Ok(out)
    }

    /// The tools of every server, each tagged with its server.
    pub async fn list_tools(&self) -> Result<Vec<ServerTool>, ClientError> {
        let mut out = Vec::new();
        for s in self.servers.iter() {
            for tool in s.list_tools().await? {
                out.push(ServerTool { server: s.name().to_owned(), tool });
            }
        }
        Ok(out)
    }

    /// The tool with this name and the server offering it; an error if several offer it.
    pub async fn find_tool(&self, name: &str) -> Result<Option<ServerTool>, ClientError> {
        match self.route(name, None).await {
            Ok(server) => {
                let s = self.only_or_named(&server)?;
                let tools = match s.known_tools() {
                    Some(t) => t,
                    None => s.list_tools().await?,
                };
                Ok(tools.into_iter().find(|t| t.name == name).map(|tool| ServerTool { server, tool }))
            }
            Err(ClientError::Route(mcp_core::routing::RouteError::UnknownTool(_))) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Which server owns `tool` (listing tools of servers whose list is not known).
    async fn route(&self, tool: &str, server: Option<&str>) -> Result<String, ClientError> {
        if let Some(name) = server {
            return Ok(self.only_or_named(name)?.name().to_owned());
        }
        if self.servers.len() == 1 {
            return Ok(self.servers[0].name().to_owned());
        }
        let mut catalog = Vec::with_capacity(self.servers.len());
        for s in self.servers.iter() {
            let tools = match s.known_tools() {
                Some(t) => t,
                None => s.list_tools().await?,
            };
            catalog.push((s.name().to_owned(), tools));
        }
        let entries = catalog.iter().map(|(n, t)| (n.as_str(), t.iter().map(|t| t.name.as_str())));
        Ok(route_tool(tool, None, entries)?.to_owned())
    }

    /// Calls a tool on the server that offers it.
    pub async fn call_tool(&self, name: &str, arguments: Value) -> Result<CallToolResult, ClientError> {
        let server = self.route(name, None).await?;
        self.only_or_named(&server)?.call_tool(name, arguments).await
    }

    /// Calls a tool on a named server.
    pub async fn call_tool_on(
        &self,
        server: &str,
        name: &str,
        arguments: Value,
    ) -> Result<CallToolResult, ClientError> {
        self.only_or_named(server)?.call_tool(name, arguments).await
    }

    /// Shuts every server down.
    pub async fn close(&self) {
        for s in self.servers.iter() {
            s.close().await;
        }
    }
}

/// Connects to one server given as a target string (a command line for stdio) on `rt` and waits
/// until its protocol era is known. The runtime crates wrap this as their `connect`.
pub async fn connect<R: Runtime>(rt: R, target: &str) -> Result<Client, ClientError> {
    let client = Client::builder().server(ServerSpec::from_target_named(target)?).build(rt)?;
    client.connect().await?;
    Ok(client)
}
