//! `mcpwire-tokio`: the MCP client on tokio.
//!
//! The protocol lives in `mcpwire-core` (sans-IO) and the async API in `mcpwire-async`; this crate only
//! supplies tokio's processes, timers and task spawning ([`TokioRuntime`]) and re-exports the
//! API. Use it from inside a tokio runtime.
//!
//! It is the crate most programs pick: any program on tokio that talks to MCP servers. On smol or
//! async-std use `mcpwire-smol`, without an async runtime `mcpwire-blocking` (same API). Start at
//! the repository's `README.md` (what the client does, how to add it, a first call, how it compares
//! with rmcp) and its guide in `docs/` (one page per task: connecting, many servers, per-call options,
//! handlers, listen streams, tasks, OAuth, limits and untrusted servers, errors, the CLI).
//!
//! A client is built one way: [`Client::builder`], then [`ClientBuilder::build`] with the runtime
//! its background tasks run on. [`connect`] is the shortcut for one server given as a string.
//!
//! ```no_run
//! # async fn demo() -> Result<(), mcpwire_tokio::ClientError> {
//! use mcpwire_tokio::{Client, ServerSpec, TokioRuntime};
//!
//! let spec = ServerSpec::from_target("everything", "npx -y @modelcontextprotocol/server-everything")?;
//! let client = Client::builder().server(spec).build()?;
//! let result = client.call_tool("echo", serde_json::json!({"message": "hi"})).await?;
//! println!("{}", result.text());
//! client.close().await;
//!
//! // The same for one server, in one line:
//! let client = mcpwire_tokio::connect("npx -y @modelcontextprotocol/server-everything").await?;
//! # Ok(()) }
//! ```
//!
//! Every runtime crate (`mcpwire-tokio`, `mcpwire-smol`, `mcpwire-blocking`) has the same names at its
//! root, so code moves between them by changing the crate's name: [`Client`],
//! [`ClientBuilder`], [`Server`] and [`connect`]; the request values ([`RequestBuilder`],
//! [`Pending`], [`ListenRequest`], [`BatchRequest`], [`ProgressStream`], [`RequestUpdate`],
//! [`CancelToken`]); server specs and their settings ([`ServerSpec`], [`StdioCommand`],
//! [`ProtocolMode`], [`ValidationMode`], [`HttpClientConfig`]); errors ([`ClientError`],
//! [`RequestError`], [`RpcError`]), events ([`Event`], [`Notification`], [`Warning`]); the
//! requests handlers get and their answers ([`SamplingRequest`] and [`CreateMessageResult`],
//! [`ElicitationRequest`] and [`ElicitResult`], [`HandlerError`], ...); the protocol types
//! ([`Tool`], [`CallToolResult`], [`Prompt`], [`Resource`], ..., and all of them in [`types`]);
//! the request descriptors in [`calls`], the LLM-provider conversions ([`Provider`]), OAuth
//! ([`auth`], [`oauth`]) and [`schema`] (elicitation forms; the JSON Schema validator with the
//! `schema` feature). The async crates add the
//! runtime ([`TokioRuntime`], [`RuntimeOptions`]) and the stream types of a custom
//! [`Connector`].
//!
//! # Features
//!
//! - `http` (default): Streamable HTTP, HTTP+SSE and plain HTTP (hyper, rustls, the webpki
//!   roots; tokio's `net`). Without it a server that is not stdio is refused by `build`.
//! - `ring` (default, implies `http`) / `aws-lc-rs` (implies `http`): rustls's crypto provider;
//!   aws-lc-rs wins when both are on; with neither, rustls's process default
//!   (`CryptoProvider::install_default`) is used.
//! - `native-roots` (implies `http`): trust the operating system's root certificates too
//!   (`HttpClientConfig::native_roots`).
//! - `oauth` (default, implies `http`): the OAuth 2.1 flow ([`auth`], [`oauth`]).
//! - `schema` (default): structured tool output validated against output schemas.
//! - `schema-formats` (implies `schema`): JSON Schema `format` assertions (ICU/IDNA stack).
//! - `tracing` (default): spans and events through `tracing`.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

use std::io;
use std::time::Instant;

use mcpwire_async::{ChildProcess, ProcessParts, Runtime};

use mcpwire_host::{exit_info, std_command};
use tokio_util::compat::{TokioAsyncReadCompatExt, TokioAsyncWriteCompatExt};

pub use mcpwire_async::facade::*;

/// An MCP client over one or more servers, on tokio.
pub type Client = mcpwire_async::Client<TokioRuntime>;
/// Builds a [`Client`].
pub type ClientBuilder = mcpwire_async::ClientBuilder<TokioRuntime>;
/// One server of a [`Client`].
pub type Server = mcpwire_async::Server<TokioRuntime>;
/// How a [`Client`] runs: a tokio runtime other than the current one, a custom connector
/// ([`ClientBuilder::runtime_options`]).
pub type RuntimeOptions = mcpwire_async::AsyncOptions<TokioRuntime>;

/// Tokio's processes, timers and spawner.
#[derive(Debug, Clone)]
pub struct TokioRuntime {
    handle: tokio::runtime::Handle,
}

impl TokioRuntime {
    /// The runtime this is called from. Panics outside a tokio runtime (as `tokio::spawn` does).
    pub fn current() -> Self {
        Self { handle: tokio::runtime::Handle::current() }
    }

    /// A specific runtime.
    pub fn from_handle(handle: tokio::runtime::Handle) -> Self {
        Self { handle }
    }
}

struct TokioChild(tokio::process::Child);

impl ChildProcess for TokioChild {
    fn id(&self) -> Option<u32> {
        self.0.id()
    }

    fn wait(&mut self) -> BoxFuture<'_, io::Result<ExitInfo>> {
        Box::pin(async move { self.0.wait().await.map(exit_info) })
    }

    fn kill(&mut self) -> io::Result<()> {
        self.0.start_kill()
    }
}

impl Runtime for TokioRuntime {
    fn current() -> Result<Self, String> {
        tokio::runtime::Handle::try_current().map(Self::from_handle).map_err(|_| {
            "no tokio runtime: build the client inside one, or give one with RuntimeOptions::runtime"
                .to_owned()
        })
    }

    fn spawn(&self, future: BoxFuture<'static, ()>) {
        self.handle.spawn(future);
    }

    fn sleep_until(&self, deadline: Instant) -> BoxFuture<'static, ()> {
        Box::pin(tokio::time::sleep_until(deadline.into()))
    }

    fn now(&self) -> Instant {
        tokio::time::Instant::now().into_std()
    }

    fn spawn_process(&self, command: &StdioCommand) -> io::Result<ProcessParts> {
        let _guard = self.handle.enter();
        let mut cmd = tokio::process::Command::from(std_command(command));
        cmd.kill_on_drop(true);
        let mut child = cmd.spawn()?;
        let missing = || io::Error::other("a pipe of the child process is missing");
        let stdin = child.stdin.take().ok_or_else(missing)?;
        let stdout = child.stdout.take().ok_or_else(missing)?;
        let stderr = child.stderr.take().ok_or_else(missing)?;
        Ok(ProcessParts {
            stdin: Box::new(stdin.compat_write()),
            stdout: Box::new(stdout.compat()),
            stderr: Box::new(stderr.compat()),
            child: Box::new(TokioChild(child)),
        })
    }

    #[cfg(feature = "http")]
    fn connect_tcp(
        &self,
        host: &str,
        port: u16,
    ) -> BoxFuture<'static, io::Result<mcpwire_async::TcpConnection>> {
        let (host, handle) = (host.to_owned(), self.handle.clone());
        Box::pin(async move {
            // Connecting (and resolving) happens on the client's runtime, whoever polls this.
            let opened = handle.spawn(async move {
                let stream = tokio::net::TcpStream::connect((host.as_str(), port)).await?;
                stream.set_nodelay(true)?;
                // tokio's reads trust its reactor's readiness; the pool's check asks the
                // socket, through a second handle on it (the same socket, not a new one).
                let std_stream = stream.into_std()?;
                let socket = std_stream.try_clone()?;
                Ok::<_, io::Error>((tokio::net::TcpStream::from_std(std_stream)?, socket))
            });
            let (stream, socket) = opened.await.map_err(io::Error::other)??;
            Ok(mcpwire_async::TcpConnection {
                stream: Box::new(stream.compat()),
                idle_check: Box::new(move || mcpwire_async::socket_idle(&socket)),
            })
        })
    }

    #[cfg(feature = "http")]
    fn resolve(&self, host: &str, port: u16) -> BoxFuture<'static, io::Result<Vec<std::net::SocketAddr>>> {
        let (host, handle) = (host.to_owned(), self.handle.clone());
        Box::pin(async move {
            let found = handle.spawn(async move {
                let found = tokio::net::lookup_host((host.as_str(), port)).await?;
                Ok::<_, io::Error>(found.collect())
            });
            found.await.map_err(io::Error::other)?
        })
    }
}

/// Connects to one server given as a target string (a command line for stdio) and waits
/// until its protocol era is known.
pub async fn connect(target: &str) -> Result<Client, ClientError> {
    mcpwire_async::connect::<TokioRuntime>(target).await
}
