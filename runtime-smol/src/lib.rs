//! `mcpwire-smol`: the MCP client on smol's building blocks, for smol and async-std users.
//!
//! The protocol lives in `mcpwire-core` (sans-IO) and the async API in `mcpwire-async`; this crate only
//! supplies processes (`async-process`), timers (`async-io`) and a spawner ([`SmolRuntime`]).
//! It does not need a particular executor: the client's background tasks run on a small
//! executor of their own (driven by one thread) unless you give it a spawner, so awaiting the
//! client works the same under `smol::block_on`, `async_std::task::block_on` or any other.
//!
//! Use it from programs on smol, async-std or any executor other than tokio (on tokio use
//! `mcpwire-tokio`; without an async runtime, `mcpwire-blocking`). Start at
//! the repository's `README.md` (what the client does, how to add it, a first call, how it compares
//! with rmcp) and its guide in `docs/` (one page per task: connecting, many servers, per-call options,
//! handlers, listen streams, tasks, OAuth, limits and untrusted servers, errors, the CLI); the guide's examples use `mcpwire-tokio` and run here once the crate's name is changed.
//!
//! As in every runtime crate, a client is built with [`Client::builder`] and
//! [`ClientBuilder::build`] (here given a [`SmolRuntime`]), or with [`connect`] for one server
//! given as a string; the re-exported names are the same as `mcpwire-tokio`'s.
//!
//! ```no_run
//! # fn main() -> Result<(), mcpwire_smol::ClientError> {
//! use mcpwire_smol::{Client, ServerSpec, SmolRuntime};
//!
//! futures_lite::future::block_on(async {
//!     let spec = ServerSpec::from_target("everything", "npx -y @modelcontextprotocol/server-everything")?;
//!     let client = Client::builder().server(spec).build()?;
//!     println!("{} tools", client.list_tools().await.items.len());
//!     client.close().await;
//!
//!     let client = mcpwire_smol::connect("npx -y @modelcontextprotocol/server-everything").await?;
//!     client.close().await;
//!     Ok(())
//! })
//! # }
//! ```
//!
//! # Features
//!
//! - `http` (default): Streamable HTTP, HTTP+SSE and plain HTTP (hyper, rustls, the webpki
//!   roots; `async-net`). Without it a server that is not stdio is refused by `build`.
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
use std::process::Stdio;
use std::sync::{Arc, OnceLock};
use std::time::Instant;

#[cfg(feature = "http")]
mod tcp;

use mcpwire_async::{ChildProcess, ProcessParts, Runtime};

use mcpwire_host::{exit_info, std_command};

pub use mcpwire_async::facade::*;

/// An MCP client over one or more servers, on smol (or any executor: see [`SmolRuntime`]).
pub type Client = mcpwire_async::Client<SmolRuntime>;
/// Builds a [`Client`].
pub type ClientBuilder = mcpwire_async::ClientBuilder<SmolRuntime>;
/// One server of a [`Client`].
pub type Server = mcpwire_async::Server<SmolRuntime>;
/// How a [`Client`] runs: another spawner than this crate's background executor, a custom
/// connector ([`ClientBuilder::runtime_options`]).
pub type RuntimeOptions = mcpwire_async::AsyncOptions<SmolRuntime>;

type Spawner = Arc<dyn Fn(BoxFuture<'static, ()>) + Send + Sync>;

/// async-io timers, async-process processes, and a spawner.
#[derive(Clone)]
pub struct SmolRuntime {
    spawner: Spawner,
}

impl std::fmt::Debug for SmolRuntime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SmolRuntime").finish_non_exhaustive()
    }
}

/// The shared background executor, run by one thread started on first use. The thread only
/// runs tasks: it never parks in async-io's reactor, so a caller waiting in `smol::block_on`
/// drives the reactor itself and is woken directly (async-io's own thread drives it when no
/// caller does).
fn background() -> &'static Arc<async_executor::Executor<'static>> {
    static EXECUTOR: OnceLock<Arc<async_executor::Executor<'static>>> = OnceLock::new();
    EXECUTOR.get_or_init(|| {
        let ex = Arc::new(async_executor::Executor::new());
        let runner = ex.clone();
        std::thread::Builder::new()
            .name("mcpwire-smol".into())
            .spawn(move || futures_lite::future::block_on(runner.run(futures_lite::future::pending::<()>())))
            .expect("spawn the mcpwire-smol executor thread");
        ex
    })
}

impl Default for SmolRuntime {
    fn default() -> Self {
        Self::new()
    }
}

impl SmolRuntime {
    /// Background tasks on this crate's own one-thread executor (works under any executor).
    pub fn new() -> Self {
        Self::with_spawner(|f| background().spawn(f).detach())
    }

    /// Background tasks spawned by `spawn`, e.g. `|f| { smol::spawn(f).detach(); }` or
    /// `|f| { async_std::task::spawn(f); }`.
    pub fn with_spawner<F>(spawn: F) -> Self
    where
        F: Fn(BoxFuture<'static, ()>) + Send + Sync + 'static,
    {
        Self { spawner: Arc::new(spawn) }
    }
}

struct SmolChild(async_process::Child);

impl ChildProcess for SmolChild {
    fn id(&self) -> Option<u32> {
        Some(self.0.id())
    }

    fn wait(&mut self) -> BoxFuture<'_, io::Result<ExitInfo>> {
        Box::pin(async move { self.0.status().await.map(exit_info) })
    }

    fn kill(&mut self) -> io::Result<()> {
        self.0.kill()
    }
}

impl Runtime for SmolRuntime {
    /// This crate's own background executor ([`SmolRuntime::new`]): always there.
    fn current() -> Result<Self, String> {
        Ok(Self::new())
    }

    fn spawn(&self, future: BoxFuture<'static, ()>) {
        (self.spawner)(future)
    }

    fn sleep_until(&self, deadline: Instant) -> BoxFuture<'static, ()> {
        Box::pin(async move {
            async_io::Timer::at(deadline).await;
        })
    }

    fn now(&self) -> Instant {
        Instant::now()
    }

    fn spawn_process(&self, command: &StdioCommand) -> io::Result<ProcessParts> {
        // async-process keeps its own stdio settings: the pipes must be requested again.
        let mut cmd = async_process::Command::from(std_command(command));
        cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).kill_on_drop(true);
        let mut child = cmd.spawn()?;
        let missing = || io::Error::other("a pipe of the child process is missing");
        let stdin = child.stdin.take().ok_or_else(missing)?;
        let stdout = child.stdout.take().ok_or_else(missing)?;
        let stderr = child.stderr.take().ok_or_else(missing)?;
        Ok(ProcessParts {
            stdin: Box::new(stdin),
            stdout: Box::new(stdout),
            stderr: Box::new(stderr),
            child: Box::new(SmolChild(child)),
        })
    }

    #[cfg(feature = "http")]
    fn connect_tcp(
        &self,
        host: &str,
        port: u16,
    ) -> BoxFuture<'static, io::Result<mcpwire_async::TcpConnection>> {
        let host = host.to_owned();
        Box::pin(async move {
            let stream = async_net::TcpStream::connect((host.as_str(), port)).await?;
            stream.set_nodelay(true)?;
            Ok(tcp::Tcp::connection(stream))
        })
    }

    #[cfg(feature = "http")]
    fn resolve(&self, host: &str, port: u16) -> BoxFuture<'static, io::Result<Vec<std::net::SocketAddr>>> {
        let host = host.to_owned();
        Box::pin(async move { async_net::resolve((host.as_str(), port)).await })
    }
}

/// Connects to one server given as a target string (a command line for stdio) and waits
/// until its protocol era is known.
pub async fn connect(target: &str) -> Result<Client, ClientError> {
    mcpwire_async::connect::<SmolRuntime>(target).await
}
