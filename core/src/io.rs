//! IO the runtime performs on the core's behalf, and what it reports back.

use crate::command::StdioCommand;
use crate::handle::Epoch;
#[cfg(feature = "http")]
use crate::handle::ExchangeId;

// The HTTP exchanges' requests and response heads (only with the `http` feature).
#[cfg(feature = "http")]
mod http;
#[cfg(feature = "http")]
pub use http::{HttpHead, HttpMethod, HttpRequest};

/// One IO action for the runtime. Every action names the process epoch it is for; an action
/// for an epoch whose process is gone is simply skipped by the runtime. Deliberately
/// exhaustive: a runtime must perform every kind, so a new kind is a breaking change that
/// fails to compile in every runtime rather than being dropped by a wildcard arm. The HTTP kinds
/// (`HttpStart`, `HttpAbort`) exist with the `http` feature.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Io {
    /// Start the server process. Report [`crate::Input::Started`] or
    /// [`crate::Input::SpawnFailed`], then stdout/stderr bytes and the exit.
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
    /// Start one HTTP exchange. Report its head with
    /// [`crate::Connection::handle_http_head`], every body chunk as it arrives with
    /// [`crate::Connection::handle_http_body`], then exactly one of
    /// [`crate::Connection::handle_http_end`], [`crate::Connection::handle_http_failed`] or
    /// (refused for its resolved address) [`crate::Connection::handle_http_refused`].
    /// See [`HttpRequest`] for what the runtime must and must not do.
    #[cfg(feature = "http")]
    HttpStart {
        /// Names this exchange in every report.
        exchange: ExchangeId,
        /// What to send.
        request: HttpRequest,
    },
    /// Abort an exchange: close its connection (never return it to a pool) and report nothing
    /// more for it. Aborting an exchange that already ended is a no-op.
    #[cfg(feature = "http")]
    HttpAbort {
        /// The exchange.
        exchange: ExchangeId,
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
