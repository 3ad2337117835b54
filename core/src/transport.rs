//! The transports a server can be reached over.

use std::fmt;

/// A transport a server can be reached over. The HTTP transports exist with the `http`
/// feature.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum TransportKind {
    /// A child process speaking JSON-RPC on stdin/stdout.
    Stdio,
    /// Streamable HTTP: POST to one endpoint, JSON or SSE responses.
    #[cfg(feature = "http")]
    StreamableHttp,
    /// The deprecated HTTP+SSE transport: a GET event stream announcing a POST endpoint.
    #[cfg(feature = "http")]
    Sse,
    /// Plain JSON-RPC over HTTP POST with a JSON response.
    #[cfg(feature = "http")]
    PlainHttp,
}

/// The transports tried, in order, on a URL whose shape suggests none.
#[cfg(feature = "http")]
pub(crate) const AUTO_KINDS: [TransportKind; 3] =
    [TransportKind::StreamableHttp, TransportKind::Sse, TransportKind::PlainHttp];

impl TransportKind {
    /// The canonical name: `stdio`, `streamable-http`, `sse` or `plain-http`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Stdio => "stdio",
            #[cfg(feature = "http")]
            Self::StreamableHttp => "streamable-http",
            #[cfg(feature = "http")]
            Self::Sse => "sse",
            #[cfg(feature = "http")]
            Self::PlainHttp => "plain-http",
        }
    }

    /// Reads a name as written in configs and on command lines, ignoring case, `-` and `_`:
    /// `stdio`; `http`, `streamable-http`, `streamableHttp` (Streamable HTTP: what MCP hosts
    /// mean by `"type": "http"`); `sse`; `plain-http`. Without the `http` feature only `stdio`
    /// is read (see [`TransportKind::names_http`]).
    pub fn from_name(name: &str) -> Option<Self> {
        match normalize(name).as_str() {
            "stdio" => Some(Self::Stdio),
            #[cfg(feature = "http")]
            "http" | "streamablehttp" => Some(Self::StreamableHttp),
            #[cfg(feature = "http")]
            "sse" => Some(Self::Sse),
            #[cfg(feature = "http")]
            "plainhttp" => Some(Self::PlainHttp),
            _ => None,
        }
    }

    /// Whether `name` names one of the HTTP transports (as [`TransportKind::from_name`] reads
    /// names), whether or not this build has them.
    pub fn names_http(name: &str) -> bool {
        matches!(normalize(name).as_str(), "http" | "streamablehttp" | "sse" | "plainhttp")
    }

    /// Whether this transport runs over HTTP.
    pub fn is_http(self) -> bool {
        self != Self::Stdio
    }
}

/// A transport name lowercased, without `-` and `_`.
fn normalize(name: &str) -> String {
    name.chars().filter(|c| !matches!(c, '-' | '_')).map(|c| c.to_ascii_lowercase()).collect()
}

impl fmt::Display for TransportKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
