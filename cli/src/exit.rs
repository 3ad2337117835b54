//! The exit codes of `mcp`, and which failure maps to which.
//!
//! | code | meaning |
//! | --- | --- |
//! | 0 | success |
//! | 1 | the request failed (an error from the server, an invalid answer), or the tool reported `isError` |
//! | 2 | usage: unknown flag or command, bad TARGET, tool or prompt arguments (checked against the schema before sending) or config file |
//! | 3 | the server could not be started or reached (spawn, connect, handshake, connection lost) |
//! | 4 | a request timed out |
//! | 5 | the server refused the credentials (HTTP 401 or 403) |
//! | 130 | interrupted (Ctrl-C): the servers were shut down first |
//!
//! Across the servers of a config file (`tools`, `prompts`, `resources` with no server named):
//! 0 when every server answered, 1 when some failed and another answered (the answers still
//! printed), else the first failure's code (3 when no server could be reached). `call` across
//! them ends as with one server, 2 when several servers offer the tool.

use mcpwire_tokio::{ClientError, RequestError};

/// A request failed, or the tool reported an error.
pub const FAILED: u8 = 1;
/// A usage error (clap exits with 2 for its own).
pub const USAGE: u8 = 2;
/// The server could not be started or reached.
pub const UNREACHABLE: u8 = 3;
/// A request timed out.
pub const TIMEOUT: u8 = 4;
/// HTTP 401 or 403.
pub const UNAUTHORIZED: u8 = 5;
/// Interrupted by Ctrl-C (SIGINT), the shell's code for it.
pub const INTERRUPTED: u8 = 130;

/// The exit code a client error ends the command with.
pub fn code_of(error: &ClientError) -> u8 {
    match error {
        ClientError::Request(request) => match request {
            RequestError::Timeout { .. } => TIMEOUT,
            RequestError::Unauthorized { .. } => UNAUTHORIZED,
            RequestError::Spawn { .. }
            | RequestError::TransportClosed { .. }
            | RequestError::Handshake { .. }
            | RequestError::NoCommonVersion { .. }
            | RequestError::UnsupportedProtocolVersion { .. }
            | RequestError::ModernRequired { .. }
            | RequestError::Http { .. }
            | RequestError::Redirect(_)
            | RequestError::NoTransport { .. }
            | RequestError::StreamClosed { .. } => UNREACHABLE,
            _ => FAILED,
        },
        ClientError::Target(_) | ClientError::Config(_) => USAGE,
        _ => FAILED,
    }
}
