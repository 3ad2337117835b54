//! IO the runtime performs on the core's behalf, and what it reports back.

use crate::config::StdioCommand;
use crate::handle::Epoch;

/// One IO action for the runtime. Every action names the process epoch it is for; an action
/// for an epoch whose process is gone is simply skipped by the runtime.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Io {
    /// Start the server process. Report [`crate::Connection::handle_process_started`] or
    /// [`crate::Connection::handle_spawn_failed`], then stdout/stderr bytes and the exit.
    Spawn {
        /// The epoch the new process belongs to.
        epoch: Epoch,
        /// What to run.
        command: StdioCommand,
    },
    /// Write these bytes (one or more complete lines) to the process's stdin, in order.
    Write {
        /// Target process.
        epoch: Epoch,
        /// The bytes.
        bytes: Vec<u8>,
    },
    /// Close the process's stdin (the graceful shutdown signal).
    CloseStdin {
        /// Target process.
        epoch: Epoch,
    },
    /// Terminate the process: `force == false` asks politely (SIGTERM), `true` kills it.
    Terminate {
        /// Target process.
        epoch: Epoch,
        /// Kill instead of asking.
        force: bool,
    },
}

/// How a process ended, as reported by the runtime.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ExitInfo {
    /// The exit code, if it exited normally.
    pub code: Option<i32>,
    /// The signal that ended it (Unix), if any.
    pub signal: Option<i32>,
}

impl std::fmt::Display for ExitInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.code, self.signal) {
            (Some(c), _) => write!(f, "exit code {c}"),
            (None, Some(s)) => write!(f, "signal {s}"),
            (None, None) => f.write_str("unknown status"),
        }
    }
}
