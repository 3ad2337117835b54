//! Process helpers every runtime shares: the `std::process::Command` of a stdio server, exit
//! statuses, polite termination, and the OS seed for the core's jitter.

use std::io;

use mcp_core::{ExitInfo, StdioCommand};

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
