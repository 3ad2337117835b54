//! [`TransportAttempt`]: one transport an HTTP transport detection tried, and what it got; the
//! tries of a detection that found none make [`crate::RequestError::NoTransport`].

use std::fmt;

use crate::error::RpcError;
use crate::http_url::HttpUrl;
use crate::io::HttpMethod;
use crate::redact::redact_url;
use crate::transport::TransportKind;

/// One transport tried while detecting which one an HTTP server speaks.
#[derive(Debug, Clone, PartialEq)]
pub struct TransportAttempt {
    /// The transport tried.
    pub transport: TransportKind,
    /// The method of the request that decided (`POST` for `initialize`, `GET` for the HTTP+SSE
    /// stream).
    pub method: HttpMethod,
    /// The URL it went to (after any redirect followed), credentials redacted.
    pub url: String,
    /// What the server answered.
    pub outcome: AttemptOutcome,
}

/// What a tried transport got from the server.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum AttemptOutcome {
    /// An HTTP error status without a JSON-RPC error in the body.
    Status(u16),
    /// An HTTP error status with this JSON-RPC error in the body.
    Rpc {
        /// The status.
        status: u16,
        /// The error.
        error: RpcError,
    },
    /// A success status whose body ended without what the transport needs (the `initialize`
    /// answer, the HTTP+SSE `endpoint` event).
    NoAnswer {
        /// The status.
        status: u16,
    },
}

impl AttemptOutcome {
    /// The HTTP status the server answered with.
    pub fn status(&self) -> u16 {
        match self {
            Self::Status(status) | Self::Rpc { status, .. } | Self::NoAnswer { status } => *status,
        }
    }
}

impl fmt::Display for AttemptOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Status(status) => write!(f, "HTTP {status}"),
            Self::Rpc { status, error } => write!(f, "HTTP {status} ({error})"),
            Self::NoAnswer { status } => write!(f, "HTTP {status} without an answer"),
        }
    }
}

impl fmt::Display for TransportAttempt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let transport = match self.transport {
            TransportKind::StreamableHttp => "Streamable HTTP",
            TransportKind::Sse => "HTTP+SSE",
            TransportKind::PlainHttp => "plain HTTP",
            TransportKind::Stdio => "stdio",
        };
        write!(f, "{transport} {} {} -> {}", self.method.as_str(), self.url, self.outcome)
    }
}

/// The text of [`crate::RequestError::NoTransport`]: every try, then the paths to try
/// instead when every try was a 404.
pub(crate) fn describe(attempts: &[TransportAttempt], suggestions: &[String]) -> String {
    let tries: Vec<String> = attempts.iter().map(ToString::to_string).collect();
    let mut text = format!("no MCP transport answered at this URL: {}", tries.join("; "));
    if !suggestions.is_empty() {
        text.push_str(&format!(
            ". Every try got 404, so the MCP endpoint is at another path: try {}",
            suggestions.join(" or ")
        ));
    }
    text
}

/// The common MCP endpoints below `url`'s path (a 404 everywhere means the path is wrong):
/// `…/mcp` (Streamable HTTP) and `…/sse` (HTTP+SSE), redacted.
pub(crate) fn suggestions(url: &HttpUrl) -> Vec<String> {
    let path = url.path().trim_end_matches('/');
    ["mcp", "sse"].iter().map(|end| redact_url(&format!("{}{path}/{end}", url.origin()))).collect()
}
