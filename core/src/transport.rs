//! The transports a server can be reached over.

use std::fmt;

/// A transport a server can be reached over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum TransportKind {
    /// A child process speaking JSON-RPC on stdin/stdout.
    Stdio,
    /// Streamable HTTP: POST to one endpoint, JSON or SSE responses.
    StreamableHttp,
    /// The deprecated HTTP+SSE transport: a GET event stream announcing a POST endpoint.
    Sse,
    /// Plain JSON-RPC over HTTP POST with a JSON response.
    PlainHttp,
}

pub(crate) const AUTO_KINDS: [TransportKind; 3] =
    [TransportKind::StreamableHttp, TransportKind::Sse, TransportKind::PlainHttp];

impl TransportKind {
    /// The canonical name: `stdio`, `streamable-http`, `sse` or `plain-http`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Stdio => "stdio",
            Self::StreamableHttp => "streamable-http",
            Self::Sse => "sse",
            Self::PlainHttp => "plain-http",
        }
    }

    /// Reads a name as written in configs and on command lines, ignoring case, `-` and `_`:
    /// `stdio`; `http`, `streamable-http`, `streamableHttp` (Streamable HTTP: what MCP hosts
    /// mean by `"type": "http"`); `sse`; `plain-http`.
    pub fn from_name(name: &str) -> Option<Self> {
        let norm: String = name.chars().filter(|c| !matches!(c, '-' | '_')).collect();
        match norm.to_ascii_lowercase().as_str() {
            "stdio" => Some(Self::Stdio),
            "http" | "streamablehttp" => Some(Self::StreamableHttp),
            "sse" => Some(Self::Sse),
            "plainhttp" => Some(Self::PlainHttp),
            _ => None,
        }
    }

    /// Whether this transport runs over HTTP.
    pub fn is_http(self) -> bool {
        self != Self::Stdio
    }
}

impl fmt::Display for TransportKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
