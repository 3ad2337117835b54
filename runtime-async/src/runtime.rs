//! The small trait a runtime implements: spawn, sleep, clock, processes.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::time::Instant;

use futures_lite::io::{AsyncRead, AsyncWrite};
use mcp_core::{ExitInfo, StdioCommand};

/// A boxed, sendable future.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What an async runtime provides to the client. Implemented by `mcp-tokio` and `mcp-smol`.
pub trait Runtime: Clone + Send + Sync + 'static {
    /// Runs a future in the background.
    fn spawn(&self, future: BoxFuture<'static, ()>);
    /// Completes at `deadline`.
    fn sleep_until(&self, deadline: Instant) -> BoxFuture<'static, ()>;
    /// The runtime's monotonic clock.
    fn now(&self) -> Instant;
    /// Starts a process with piped stdin, stdout and stderr (see [`std_command`]).
    fn spawn_process(&self, command: &StdioCommand) -> io::Result<ProcessParts>;
    /// Opens a TCP connection to `host:port` (a name or an IP address). The HTTP client bounds
    /// the time it may take and layers TLS and proxies on top.
    fn connect_tcp(&self, host: &str, port: u16) -> BoxFuture<'static, io::Result<crate::http::BoxedStream>>;
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

/// The `std::process::Command` for a stdio server: program, args, env, cwd, all three pipes.
/// Both tokio's and async-process's `Command` convert from it.
pub fn std_command(command: &StdioCommand) -> std::process::Command {
    let mut cmd = std::process::Command::new(&command.program);
    cmd.args(&command.args)
        .envs(command.env.iter().map(|(k, v)| (k, v)))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    if let Some(dir) = &command.cwd {
        cmd.current_dir(dir);
    }
    cmd
}

/// Converts an OS exit status.
pub fn exit_info(status: std::process::ExitStatus) -> ExitInfo {
    #[cfg(unix)]
    let signal = std::os::unix::process::ExitStatusExt::signal(&status);
    #[cfg(not(unix))]
    let signal = None;
    ExitInfo { code: status.code(), signal }
}

/// Asks a process to terminate (SIGTERM). On platforms without signals this kills it.
pub fn terminate(pid: u32) -> io::Result<()> {
    #[cfg(unix)]
    {
        let pid = rustix::process::Pid::from_raw(pid as i32)
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "invalid pid"))?;
        rustix::process::kill_process(pid, rustix::process::Signal::TERM).map_err(io::Error::from)
    }
    #[cfg(not(unix))]
    {
        let _ = pid;
        Err(io::Error::new(io::ErrorKind::Unsupported, "no polite termination on this platform"))
    }
}

/// A seed from the operating system's randomness (via the standard library's hasher keys),
/// for the core's retry and reconnection jitter: the core has no randomness of its own.
pub fn os_random_seed() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(0x6d63_705f_6a69_7474);
    hasher.finish()
}

/// Seeds a configuration's jitter from the OS unless the host chose a seed (non-zero).
pub fn seed_config(config: &mut mcp_core::ConnectionConfig) {
    if config.random_seed == 0 {
        config.random_seed = os_random_seed();
    }
}
