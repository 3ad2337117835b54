//! [`Client`]: several named servers behind one API, with routing by tool, prompt and resource.

use std::future::Future;
use std::sync::Arc;

use mcpwire_core::calls::{Call, CallTool};
use mcpwire_core::catalog::{ClientList, ConnectReport, ConnectedServer, ServerFailure};
use mcpwire_core::routing::RouteError;
use mcpwire_core::types::Tool;
use mcpwire_core::{ClientError, Request, Root, ServerTool};

use crate::client_builder::ClientBuilder;
use crate::client_routing::{gather_all, route_tool_among};
use crate::family::Family;
use crate::pending_op::Pending;
use crate::request_builder::RequestBuilder;
use crate::server::{call_tool, Arguments, Server};

/// An MCP client over one or more servers. Cheap to clone; `Send + Sync`.
///
/// Requests are values that carry their options: `client.call_tool("echo", args).await?` with
/// an async client, `.send()?` with the blocking one (see [`RequestBuilder`]). Client-wide
/// operations (`connect`, `list_tools`, the prompt and resource lists, `close`) ask every
/// server, at most [`ClientBuilder::max_concurrent_servers`] at once, and report each
/// server's failure without hiding the others' answers.
pub struct Client<F: Family> {
    servers: Arc<[Server<F>]>,
    max_concurrent_servers: usize,
}

impl<F: Family> Clone for Client<F> {
    fn clone(&self) -> Self {
        Self { servers: self.servers.clone(), max_concurrent_servers: self.max_concurrent_servers }
    }
}

impl<F: Family> std::fmt::Debug for Client<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("servers", &self.servers)
            .field("max_concurrent_servers", &self.max_concurrent_servers)
            .finish()
    }
}

impl<F: Family> Client<F> {
    /// A builder: servers, handlers, event hook, HTTP client setup.
    pub fn builder() -> ClientBuilder<F> {
        ClientBuilder::default()
    }

    pub(crate) fn new(servers: Vec<Server<F>>, max_concurrent_servers: usize) -> Self {
        Self { servers: servers.into(), max_concurrent_servers }
    }

    /// Every server, in configuration order.
    pub fn servers(&self) -> &[Server<F>] {
        &self.servers
    }

    /// The server with this name.
    pub fn server(&self, name: &str) -> Option<&Server<F>> {
        self.servers.iter().find(|s| s.name() == name)
    }

    /// The server with this name, or [`RouteError::UnknownServer`].
    pub(crate) fn named(&self, name: &str) -> Result<&Server<F>, ClientError> {
        self.server(name).ok_or_else(|| RouteError::UnknownServer(name.to_owned()).into())
    }

    /// `per_server` on every server, at most `max_concurrent_servers` at once, the outputs in
    /// configuration order.
    pub(crate) async fn fan_out<'a, T, Fut>(&'a self, per_server: impl FnMut(&'a Server<F>) -> Fut) -> Vec<T>
    where
        Fut: Future<Output = T> + Send + 'a,
        T: Send + 'a,
    {
        let jobs: Vec<Fut> = self.servers.iter().map(per_server).collect();
        F::fan_out(jobs, self.max_concurrent_servers).await
    }

    /// Connects every server (era detection included). Every server is tried: the report
    /// names the servers that connected and those that could not
    /// ([`ConnectReport::into_result`] for all or nothing).
    pub fn connect(&self) -> Pending<'_, F, ConnectReport> {
        Pending::new(async move {
            let outcomes = self.fan_out(|s| async move { s.connect().start().await }).await;
            let mut report = ConnectReport::default();
            for (s, outcome) in self.servers.iter().zip(outcomes) {
                let server = s.name().to_owned();
                match outcome {
                    Ok(info) => report.connected.push(ConnectedServer { server, info }),
                    Err(error) => report.failed.push(ServerFailure { server, error }),
                }
            }
            report
        })
    }

    /// The tools of every server, each tagged with its server. A server that cannot list its
    /// tools is reported in [`ClientList::failed`] and the others' tools are still returned;
    /// a server without the `tools` capability is skipped.
    pub fn list_tools(&self) -> Pending<'_, F, ClientList<ServerTool>> {
        Pending::new(async move {
            let answers = self.fan_out(|s| async move { s.list_tools().start().await }).await;
            self.tagged_tools(answers)
        })
    }

    /// Every server's tools as [`Self::list_tools`], from each server's cached list while it
    /// is fresh (a `tools/list` to the others): what routing by tool name looks at.
    pub(crate) async fn tool_catalog(&self) -> ClientList<ServerTool> {
        let answers = self.fan_out(|s| tools_of(s)).await;
        self.tagged_tools(answers)
    }

    /// The servers' answers (in configuration order) as one tagged list.
    fn tagged_tools(&self, answers: Vec<Result<Vec<Tool>, ClientError>>) -> ClientList<ServerTool> {
        let answers = self.servers.iter().map(|s| s.name()).zip(answers);
        gather_all(answers, |server, tool| ServerTool { server, tool })
    }

    /// The tool with this name and the server offering it: `None` when no server offers it,
    /// an error if several do, or if none that answered does and a server could not list its
    /// tools (its error).
    pub fn find_tool(&self, name: &str) -> Pending<'_, F, Result<Option<ServerTool>, ClientError>> {
        let name = name.to_owned();
        Pending::new(async move {
            let catalog = self.tool_catalog().await;
            let owner = match route_tool_among(&name, &catalog) {
                Ok(owner) => owner.to_owned(),
                Err(ClientError::Route(RouteError::UnknownTool(_))) => return Ok(None),
                Err(e) => return Err(e),
            };
            Ok(catalog.items.into_iter().find(|t| t.server == owner && t.tool.name == name))
        })
    }

    /// Any request described by a [`Call`] descriptor, on the server named with
    /// [`RequestBuilder::server`] (or routed, for the kinds that have a routing rule; the only
    /// server of a single-server client).
    pub fn send<K: Call>(&self, call: K) -> RequestBuilder<'_, F, K> {
        RequestBuilder::to_client(self, Ok(call))
    }

    /// Any request, answered with the untyped [`Response`](mcpwire_core::Response) (see
    /// [`Self::send`]).
    pub fn request(&self, request: Request) -> RequestBuilder<'_, F, Request> {
        self.send(request)
    }

    /// Calls a tool on the server that offers it (or the one named with
    /// [`RequestBuilder::server`]). `arguments` ([`Arguments`]) is a JSON object (or `null`):
    /// a `Value`, a `Map`, `()`, or `&args` of any `Serialize` type; a tool failure is a result
    /// with `is_error`, not an `Err`.
    pub fn call_tool(&self, name: &str, arguments: impl Arguments) -> RequestBuilder<'_, F, CallTool> {
        RequestBuilder::to_client(self, call_tool(name, arguments))
    }

    /// Replaces the roots every server is told ([`Server::set_roots`] on each; the first
    /// error, if any, after trying them all).
    pub fn set_roots<I>(&self, roots: I) -> Result<(), ClientError>
    where
        I: IntoIterator<Item = Root>,
    {
        let roots: Vec<Root> = roots.into_iter().collect();
        let mut first = Ok(());
        for s in self.servers.iter() {
            let outcome = s.set_roots(roots.iter().cloned());
            if first.is_ok() {
                first = outcome;
            }
        }
        first
    }

    /// Shuts every server down and waits until each is closed.
    pub fn close(&self) -> Pending<'_, F, ()> {
        Pending::new(async move {
            self.fan_out(|s| async move { F::close(s.link()).await }).await;
        })
    }
}

/// A server's tools: the cached list, or a fresh `tools/list`.
async fn tools_of<F: Family>(server: &Server<F>) -> Result<Vec<Tool>, ClientError> {
    match server.known_tools() {
        Some(tools) => Ok(tools),
        None => server.list_tools().start().await,
    }
}
