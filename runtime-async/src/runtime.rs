//! The small trait a runtime implements: spawn, sleep, clock, processes.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::time::Instant;

use futures_lite::io::{AsyncRead, AsyncWrite};
use mcpwire_core::{ExitInfo, StdioCommand};

/// A boxed, sendable future.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What an async runtime provides to the client. Implemented by `mcpwire-tokio` and `mcpwire-smol`.
pub trait Runtime: Clone + Send + Sync + std::fmt::Debug + 'static {
    /// The runtime a client built without [`AsyncOptions::runtime`](crate::AsyncOptions::runtime)
    /// runs on: the one `build` is called on, or why there is none.
    fn current() -> Result<Self, String>;
    /// Runs a future in the background.
    fn spawn(&self, future: BoxFuture<'static, ()>);
    /// Completes at `deadline`.
    fn sleep_until(&self, deadline: Instant) -> BoxFuture<'static, ()>;
    /// The runtime's monotonic clock.
    fn now(&self) -> Instant;
    /// Starts a process with piped stdin, stdout and stderr (as `mcpwire_host::std_command` sets it
    /// up: on Unix the server leads its own process group).
    fn spawn_process(&self, command: &StdioCommand) -> io::Result<ProcessParts>;
    /// Opens a TCP connection to `host:port` (a name or an IP address). The HTTP client bounds
    /// the time it may take and layers TLS and proxies on top (feature `http`).
    ///
    /// The default fails with [`io::ErrorKind::Unsupported`]: it is what a runtime crate built
    /// without its own `http` feature leaves in place when another crate of the build turns
    /// this crate's `http` on. A runtime that serves HTTP implements it.
    #[cfg(feature = "http")]
    fn connect_tcp(
        &self,
        host: &str,
        port: u16,
    ) -> BoxFuture<'static, io::Result<crate::http::TcpConnection>> {
        let _ = (host, port);
        Box::pin(std::future::ready(Err(no_http())))
    }
    /// Resolves `host` (a name) to its addresses at `port`, with the system resolver. The HTTP
    /// client resolves the host of an OAuth-related fetch itself, checks the addresses, and
    /// connects to a checked one (`mcpwire_core::Destination`; feature `http`).
    ///
    /// The default fails with [`io::ErrorKind::Unsupported`], like [`Runtime::connect_tcp`]'s.
    #[cfg(feature = "http")]
    fn resolve(&self, host: &str, port: u16) -> BoxFuture<'static, io::Result<Vec<std::net::SocketAddr>>> {
        let _ = (host, port);
        Box::pin(std::future::ready(Err(no_http())))
    }
}

/// The error of the default [`Runtime::connect_tcp`] and [`Runtime::resolve`].
#[cfg(feature = "http")]
fn no_http() -> io::Error {
    io::Error::new(
        io::ErrorKind::Unsupported,
        "this runtime opens no TCP connections: enable the `http` feature of its crate \
         (mcpwire-tokio, mcpwire-smol)",
    )
}

/// A started process, as handed to the client.
pub struct ProcessParts {
    /// Its stdin.
    pub stdin: Box<dyn AsyncWrite + Send + Unpin>,
    /// Its stdout.
    pub stdout: Box<dyn AsyncRead + Send + Unpin>,
    /// Its stderr.
    pub stderr: Box<dyn AsyncRead + Send + Unpin>,
    /// The process itself.
    pub child: Box<dyn ChildProcess>,
}

impl std::fmt::Debug for ProcessParts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProcessParts").field("pid", &self.child.id()).finish_non_exhaustive()
    }
}

/// A child process the client can wait for and kill.
pub trait ChildProcess: Send + 'static {
    /// The OS process id, while known.
    fn id(&self) -> Option<u32>;
    /// Waits for the exit.
    fn wait(&mut self) -> BoxFuture<'_, io::Result<ExitInfo>>;
    /// Kills the process (SIGKILL on Unix).
    fn kill(&mut self) -> io::Result<()>;
}
