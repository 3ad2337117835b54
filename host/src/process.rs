//! Process helpers every runtime shares: the `std::process::Command` of a stdio server, exit
//! statuses, signalling a server's process group, the OS seed for the core's jitter, and the
//! table of live processes the core's IO is applied to.
//!
//! On Unix each stdio server leads its own process group (its pgid is its pid), so what a
//! wrapper (`npx`, `uvx`, `sh -c`, `docker run`) starts is signalled with it: terminate and
//! kill go to the whole group, and once the server itself has exited the rest of its group is
//! killed ([`kill_server_group`]), so no grandchild outlives the client. The group also keeps
//! a terminal's Ctrl-C from reaching the server directly: the client's own shutdown stops it.

use std::io;

use std::collections::BTreeMap;

use mcpwire_core::{Epoch, ExitInfo, Io, StdioCommand};
#[cfg(feature = "http")]
use mcpwire_core::{ExchangeId, HttpRequest};

/// The `std::process::Command` for a stdio server: program, args, env, cwd, all three pipes,
/// and (Unix) a process group of its own. Both tokio's and async-process's `Command` convert
/// from it.
pub fn std_command(command: &StdioCommand) -> std::process::Command {
    let mut cmd = std::process::Command::new(&command.program);
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
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

/// Terminates (`force == false`: SIGTERM) or kills (SIGKILL) a running stdio server and its
/// process group (see [`std_command`]); a server that left its group is signalled alone. On
/// platforms without signals this fails and the caller kills through its child handle.
///
/// `pid` must not have been reaped yet (it could belong to another process by now).
pub fn signal_server(pid: u32, force: bool) -> io::Result<()> {
    #[cfg(unix)]
    {
        let pid = unix_pid(pid)?;
        let signal = if force { rustix::process::Signal::KILL } else { rustix::process::Signal::TERM };
        rustix::process::kill_process_group(pid, signal)
            .or_else(|_| rustix::process::kill_process(pid, signal))
            .map_err(io::Error::from)
    }
    #[cfg(not(unix))]
    {
        let _ = (pid, force);
        Err(io::Error::new(io::ErrorKind::Unsupported, "no signals on this platform"))
    }
}

/// Kills what is left of the process group of a stdio server that has exited (its wrapper's
/// children and grandchildren), so none outlives it; nothing when the group is empty. A no-op
/// on platforms without process groups.
///
/// The group's id stays reserved while any member lives; call this before reaping the server
/// where the runtime can, and otherwise right after (the id of an empty group could only be
/// reused by a new process that made itself a group leader in between).
pub fn kill_server_group(pid: u32) {
    #[cfg(unix)]
    if let Ok(pid) = unix_pid(pid) {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
    #[cfg(not(unix))]
    let _ = pid;
}

#[cfg(unix)]
fn unix_pid(pid: u32) -> io::Result<rustix::process::Pid> {
    i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "invalid pid"))
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
pub fn seed_config(config: &mut mcpwire_core::ConnectionConfig) {
    if config.random_seed == 0 {
        config.random_seed = os_random_seed();
    }
}

/// A runtime's handle on one running server process.
pub trait ProcessControl {
    /// Queues bytes for the process's stdin.
    fn write(&self, bytes: Vec<u8>);
    /// Closes stdin.
    fn close_stdin(&mut self);
    /// Terminates (`force == false`) or kills the process.
    fn signal(&self, force: bool);
}

/// A spawn the runtime must perform, then report with [`mcpwire_core::Input::Started`] or
/// [`mcpwire_core::Input::SpawnFailed`].
#[derive(Debug)]
pub struct SpawnRequest {
    /// The epoch of the new process.
    pub epoch: Epoch,
    /// What to run.
    pub command: StdioCommand,
}

/// IO that [`apply_process_io`] hands back to the runtime: what is not a process action.
/// Non-exhaustive: the HTTP variants exist only with the `http` feature, which a runtime
/// crate built without its own `http` may find turned on by another crate of the build.
#[derive(Debug)]
#[non_exhaustive]
pub enum OtherIo {
    /// Start a process.
    Spawn(SpawnRequest),
    /// Start an HTTP exchange.
    #[cfg(feature = "http")]
    HttpStart {
        /// The exchange.
        exchange: ExchangeId,
        /// What to send.
        request: HttpRequest,
    },
    /// Abort an HTTP exchange.
    #[cfg(feature = "http")]
    HttpAbort(ExchangeId),
}

/// Applies an IO action to the runtime's table of live processes. Spawns and HTTP actions are
/// handed back for the runtime to perform; actions for a process that is gone are dropped.
pub fn apply_process_io<P: ProcessControl>(procs: &mut BTreeMap<Epoch, P>, io: Io) -> Option<OtherIo> {
    match io {
        Io::Spawn { epoch, command } => return Some(OtherIo::Spawn(SpawnRequest { epoch, command })),
        #[cfg(feature = "http")]
        Io::HttpStart { exchange, request } => return Some(OtherIo::HttpStart { exchange, request }),
        #[cfg(feature = "http")]
        Io::HttpAbort { exchange } => return Some(OtherIo::HttpAbort(exchange)),
        Io::Write { epoch, bytes } => procs.get(&epoch).map(|p| p.write(bytes)),
        Io::CloseStdin { epoch } => procs.get_mut(&epoch).map(P::close_stdin),
        Io::Terminate { epoch, force } => procs.get(&epoch).map(|p| p.signal(force)),
        // HTTP IO of a core built with `http` while this crate is not: never asked for, since
        // `BuilderParts::prepare` refuses servers that are not stdio without the feature.
        #[allow(unreachable_patterns)]
        _ => None,
    };
    None
}
