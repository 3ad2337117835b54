//! IO the runtime performs on the core's behalf, and what it reports back.

use crate::command::StdioCommand;
use crate::destination::Destination;
use crate::handle::{Epoch, ExchangeId};

/// One IO action for the runtime. Every action names the process epoch it is for; an action
/// for an epoch whose process is gone is simply skipped by the runtime. Deliberately
/// exhaustive: a runtime must perform every kind, so a new kind is a breaking change that
/// fails to compile in every runtime rather than being dropped by a wildcard arm.
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
    HttpStart {
        /// Names this exchange in every report.
        exchange: ExchangeId,
        /// What to send.
        request: HttpRequest,
    },
    /// Abort an exchange: close its connection (never return it to a pool) and report nothing
    /// more for it. Aborting an exchange that already ended is a no-op.
    HttpAbort {
        /// The exchange.
        exchange: ExchangeId,
    },
}

/// An HTTP method the core uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HttpMethod {
    /// `GET` (event streams).
    Get,
    /// `POST` (messages).
    Post,
    /// `DELETE` (ending a legacy session).
    Delete,
}

impl HttpMethod {
    /// The method name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Get => "GET",
            Self::Post => "POST",
            Self::Delete => "DELETE",
        }
    }
}

/// One HTTP request for the runtime to perform.
///
/// The runtime sends exactly these headers (adding only `Host`, `Content-Length` and the
/// framing headers its HTTP library needs), never decompresses the body (`Content-Encoding`
/// is the core's business), never follows redirects (a 3xx is reported like any status: the
/// core follows same-origin `307`/`308` itself, as a new exchange, and refuses the rest), and
/// delivers body bytes as they arrive (event streams are long-lived). Connections may be
/// reused between exchanges; an aborted exchange's connection is closed.
#[derive(Clone, PartialEq, Eq)]
pub struct HttpRequest {
    /// The method.
    pub method: HttpMethod,
    /// The absolute `http://` or `https://` URL.
    pub url: String,
    /// Header names and values, in order.
    pub headers: Vec<(String, String)>,
    /// The body (empty for `GET` and `DELETE`).
    pub body: Vec<u8>,
    /// How long connecting (TCP, proxy and TLS) may take before the exchange fails.
    pub connect_timeout: std::time::Duration,
    /// Which addresses the runtime may connect to for this request: [`Destination::Any`] for
    /// MCP traffic, [`Destination::Public`] for OAuth-related fetches (see [`Destination`]).
    pub destination: Destination,
}

impl std::fmt::Debug for HttpRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let headers: Vec<(&str, &str)> = self
            .headers
            .iter()
            .map(|(n, v)| (n.as_str(), crate::redact::redact_header_value(n, v)))
            .collect();
        f.debug_struct("HttpRequest")
            .field("method", &self.method)
            .field("url", &crate::redact::redact_url(&self.url))
            .field("headers", &headers)
            .field("body_len", &self.body.len())
            .field("destination", &self.destination)
            .finish()
    }
}

/// The status line and headers of an HTTP response, as reported by the runtime.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpHead {
    /// The status code.
    pub status: u16,
    /// Header names (any case) and values, in order. Values that are not valid UTF-8 may be
    /// dropped by the runtime.
    pub headers: Vec<(String, String)>,
}

impl HttpHead {
    /// The first value of a header, by case-insensitive name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
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
