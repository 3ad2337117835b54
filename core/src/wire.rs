//! The wire trace: what a connection sent and received, as [`WireRecord`]s.
//!
//! Off by default ([`crate::ConnectionConfig::wire_trace`]); while off, nothing is copied or
//! encoded for it. When on, [`crate::Connection::poll_wire`] hands the records out in the order
//! they happened. The core has no clock: the host stamps each record as it drains it.
//! Credentials never enter a record: request headers are redacted (`Authorization`, `Cookie`,
//! `Proxy-Authorization`, `DPoP`, every header the server's configuration adds, and any name or
//! value that looks like a credential), URLs and command arguments as in the `Debug` output of
//! the configuration types, and OAuth fetches are traced by method, URL and status only (their
//! bodies carry client secrets, codes and tokens).

use crate::handle::Epoch;
#[cfg(feature = "http")]
use crate::handle::ExchangeId;
use crate::io::ExitInfo;
#[cfg(feature = "http")]
use crate::io::HttpMethod;
#[cfg(feature = "http")]
use crate::redact::{redact_header_value, MASK};

/// One thing that crossed the wire or the process boundary.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum WireRecord {
    /// A JSON-RPC message (request, notification or answer to a server request) went out: a
    /// stdin line, or the body of a `POST`.
    Sent {
        /// The process or session it went to.
        epoch: Epoch,
        /// The message as JSON text (no trailing newline).
        message: String,
    },
    /// A JSON-RPC message (or batch) came in, within the message size limit: a stdout line, a
    /// JSON body or an event-stream `message` event.
    Received {
        /// The process or session it came from.
        epoch: Epoch,
        /// The message as JSON text, as the server wrote it (lossy if not UTF-8).
        message: String,
    },
    /// The core asked the runtime to start the server process.
    ProcessStart {
        /// The process's epoch.
        epoch: Epoch,
        /// The program.
        program: String,
        /// Its arguments, credentials redacted (environment values are never recorded).
        args: Vec<String>,
    },
    /// The process could not be started.
    SpawnFailed {
        /// The process's epoch.
        epoch: Epoch,
        /// The runtime's error.
        error: String,
    },
    /// The process exited.
    ProcessExit {
        /// The process's epoch.
        epoch: Epoch,
        /// How it ended.
        status: ExitInfo,
    },
    /// An HTTP request was started (its body, if a message, is the `Sent` record before it).
    #[cfg(feature = "http")]
    HttpRequest {
        /// Names the exchange in the records that follow.
        exchange: ExchangeId,
        /// The method.
        method: HttpMethod,
        /// The URL, credentials redacted.
        url: String,
        /// The headers, credentials redacted (none for an OAuth fetch).
        headers: Vec<(String, String)>,
    },
    /// An HTTP response head arrived.
    #[cfg(feature = "http")]
    HttpResponse {
        /// The exchange.
        exchange: ExchangeId,
        /// The status code.
        status: u16,
        /// The headers that say how the answer is read (`Content-Type`, `Content-Encoding`,
        /// `Mcp-Session-Id`, `Mcp-Protocol-Version`, `Location`, `WWW-Authenticate`,
        /// `Retry-After`), in order.
        headers: Vec<(String, String)>,
    },
    /// An HTTP exchange failed in transport (or was refused for its address).
    #[cfg(feature = "http")]
    HttpFailed {
        /// The exchange.
        exchange: ExchangeId,
        /// The error.
        error: String,
    },
}

impl WireRecord {
    /// The direction, for one-word display: `"send"`, `"recv"` or `"event"` (process starts
    /// and exits, failures).
    pub fn direction(&self) -> &'static str {
        match self {
            WireRecord::Sent { .. } => "send",
            #[cfg(feature = "http")]
            WireRecord::HttpRequest { .. } => "send",
            WireRecord::Received { .. } => "recv",
            #[cfg(feature = "http")]
            WireRecord::HttpResponse { .. } => "recv",
            _ => "event",
        }
    }

    /// The kind, in `snake_case`: `message`, `process_start`, `spawn_failed`, `process_exit`,
    /// `http_request`, `http_response`, `http_failed`.
    pub fn kind(&self) -> &'static str {
        match self {
            WireRecord::Sent { .. } | WireRecord::Received { .. } => "message",
            WireRecord::ProcessStart { .. } => "process_start",
            WireRecord::SpawnFailed { .. } => "spawn_failed",
            WireRecord::ProcessExit { .. } => "process_exit",
            #[cfg(feature = "http")]
            WireRecord::HttpRequest { .. } => "http_request",
            #[cfg(feature = "http")]
            WireRecord::HttpResponse { .. } => "http_response",
            #[cfg(feature = "http")]
            WireRecord::HttpFailed { .. } => "http_failed",
        }
    }
}

/// Request headers shown as they are: protocol headers with no credential in them.
#[cfg(feature = "http")]
const PLAIN_REQUEST_HEADERS: [&str; 5] =
    ["content-type", "accept", "mcp-session-id", "mcp-protocol-version", "last-event-id"];

/// Response headers a trace keeps.
#[cfg(feature = "http")]
const RESPONSE_HEADERS: [&str; 7] = [
    "content-type",
    "content-encoding",
    "mcp-session-id",
    "mcp-protocol-version",
    "location",
    "www-authenticate",
    "retry-after",
];

/// Request headers for a trace: protocol headers as they are; `DPoP` proofs, the headers the
/// configuration adds (`configured`, which may hold an API key under any name) and anything
/// credential-like masked.
#[cfg(feature = "http")]
pub(crate) fn request_headers(
    headers: &[(String, String)],
    configured: &[(String, String)],
) -> Vec<(String, String)> {
    headers
        .iter()
        .map(|(name, value)| {
            let lower = name.to_ascii_lowercase();
            let shown = if PLAIN_REQUEST_HEADERS.contains(&lower.as_str()) {
                value.as_str()
            } else if lower == "dpop" || configured.iter().any(|(c, _)| c.eq_ignore_ascii_case(name)) {
                MASK
            } else {
                redact_header_value(name, value)
            };
            (name.clone(), shown.to_owned())
        })
        .collect()
}

/// The response headers a trace keeps (see [`WireRecord::HttpResponse`]); a `Location` is
/// redacted like any URL.
#[cfg(feature = "http")]
pub(crate) fn response_headers(headers: &[(String, String)]) -> Vec<(String, String)> {
    headers
        .iter()
        .filter(|(name, _)| RESPONSE_HEADERS.iter().any(|k| name.eq_ignore_ascii_case(k)))
        .map(|(name, value)| {
            let shown = match name.to_ascii_lowercase().as_str() {
                "location" => crate::redact::redact_url(value),
                _ => value.clone(),
            };
            (name.clone(), shown)
        })
        .collect()
}

/// A message's bytes as text (without the trailing newline of a stdio line).
pub(crate) fn message_text(bytes: &[u8]) -> String {
    let trimmed = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    let trimmed = trimmed.strip_suffix(b"\r").unwrap_or(trimmed);
    String::from_utf8_lossy(trimmed).into_owned()
}
