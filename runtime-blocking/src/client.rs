//! [`Client`]: several named servers behind one blocking API, with tool routing.

use std::sync::mpsc;
use std::sync::Arc;
use std::time::Instant;

use mcp_async::EventHook;
use mcp_core::host::prepare_servers;
use mcp_core::routing::{route_tool, RouteError};
use mcp_core::types::{CallToolResult, Tool};
use mcp_core::{ClientError, Connection, Event, ServerInfo, ServerRequest, ServerSpec, ServerTool};
use serde_json::Value;

use crate::driver::{thread_name, Driver, Shared, CHANNEL_BOUND};
use crate::handlers::{handler, Handler, Handlers};
use crate::http::{HttpClient, HttpClientConfig};
use crate::server::Server;

/// An MCP client over one or more servers. Cheap to clone; `Send + Sync`. Dropping the last
/// clone (and every [`Server`] taken from it) shuts the servers down in the background.
#[derive(Debug, Clone)]
pub struct Client {
    servers: Arc<[Server]>,
}

/// Builds a [`Client`]: servers, handlers, event hook, HTTP client setup.
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

    /// Convenience: a closure as the elicitation handler. It runs on a thread of its own.
    pub fn on_elicitation<F>(self, f: F) -> Self
    where
        F: Fn(&str, ServerRequest) -> Result<Value, String> + Send + Sync + 'static,
    {
        self.elicitation_handler(handler(f))
    }

    /// Calls `hook` with every non-response event of every server (notifications, logs,
    /// stderr lines, warnings, connects and disconnects). It runs on the server's driver
    /// thread: keep it short and do not make blocking calls on the client from it.
    pub fn on_event<F>(mut self, hook: F) -> Self
    where
        F: Fn(&str, &Event) + Send + Sync + 'static,
    {
        self.hook = Some(Arc::new(hook));
        self
    }

    /// Sets up the HTTP client every HTTP server of this client shares (one keep-alive pool):
    /// extra root certificates and the proxy. The default trusts the webpki roots and takes
    /// the proxy from the environment.
    pub fn http_client(mut self, config: HttpClientConfig) -> Self {
        self.http = config;
        self
    }

    /// Starts one driver thread per server. Servers start lazily, on first use (or on
    /// [`Client::connect`]). Fails for an empty or inconsistent server list, or an unusable
    /// [`HttpClientConfig`] (a bad certificate or proxy URL).
    pub fn build(self) -> Result<Client, ClientError> {
        let specs = prepare_servers(self.specs, &self.handlers.features())?;
        let handlers = Arc::new(self.handlers);
        let http = HttpClient::new(&self.http)?;
        let mut servers = Vec::with_capacity(specs.len());
        for spec in specs {
            let mut config = spec.config;
            mcp_async::seed_config(&mut config);
            let name: Arc<str> = spec.name.into();
            let (tx, rx) = mpsc::sync_channel(CHANNEL_BOUND);
            let shared = Arc::new(Shared::default());
            let conn = Connection::new(config, Instant::now());
            let driver = Driver::new(
                name.clone(),
                conn,
                (tx.clone(), rx),
                handlers.clone(),
                self.hook.clone(),
                shared.clone(),
                http.clone(),
            );
            std::thread::Builder::new()
                .name(thread_name(&name, "driver"))
                .spawn(move || driver.run())
                .map_err(|e| ClientError::Config(format!("could not start a driver thread: {e}")))?;
            servers.push(Server::new(name, tx, shared));
        }
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

    fn named(&self, name: &str) -> Result<&Server, ClientError> {
        self.server(name).ok_or_else(|| RouteError::UnknownServer(name.to_owned()).into())
    }

    /// Connects every server (era detection included); fails on the first that cannot connect.
    pub fn connect(&self) -> Result<Vec<ServerInfo>, ClientError> {
        self.servers.iter().map(Server::connect).collect()
    }

    /// The tools of every server, each tagged with its server.
    pub fn list_tools(&self) -> Result<Vec<ServerTool>, ClientError> {
        let mut out = Vec::new();
        for s in self.servers.iter() {
            out.extend(
                s.list_tools()?.into_iter().map(|tool| ServerTool { server: s.name().to_owned(), tool }),
            );
        }
        Ok(out)
    }

    /// The tool with this name and the server offering it; an error if several offer it.
    pub fn find_tool(&self, name: &str) -> Result<Option<ServerTool>, ClientError> {
        let server = match self.route(name) {
            Ok(server) => server,
            Err(ClientError::Route(RouteError::UnknownTool(_))) => return Ok(None),
            Err(e) => return Err(e),
        };
        let tools = tools_of(server)?;
        let server = server.name().to_owned();
        Ok(tools.into_iter().find(|t| t.name == name).map(|tool| ServerTool { server, tool }))
    }

    /// Which server owns `tool`: the only server, or the one whose tool list (cached, else
    /// fetched) names it. The same rule as `mcp_async::Client`, over the core's `route_tool`.
    fn route(&self, tool: &str) -> Result<&Server, ClientError> {
        if let [only] = &self.servers[..] {
            return Ok(only);
        }
        let catalog =
            self.servers.iter().map(|s| tools_of(s).map(|t| (s, t))).collect::<Result<Vec<_>, _>>()?;
        let entries = catalog.iter().map(|(s, t)| (s.name(), t.iter().map(|t| t.name.as_str())));
        let owner = route_tool(tool, None, entries)?;
        self.named(owner)
    }

    /// Calls a tool on the server that offers it.
    pub fn call_tool(&self, name: &str, arguments: Value) -> Result<CallToolResult, ClientError> {
        self.route(name)?.call_tool(name, arguments)
    }

    /// Calls a tool on a named server.
    pub fn call_tool_on(
        &self,
        server: &str,
        name: &str,
        arguments: Value,
    ) -> Result<CallToolResult, ClientError> {
        self.named(server)?.call_tool(name, arguments)
    }

    /// Shuts every server down, blocking until each is closed.
    pub fn close(&self) {
        for s in self.servers.iter() {
            s.close();
        }
    }
}

/// A server's tools: the cached list, or a fresh `tools/list`.
fn tools_of(server: &Server) -> Result<Vec<Tool>, ClientError> {
    match server.known_tools() {
        Some(tools) => Ok(tools),
        None => server.list_tools(),
    }
}
