//! The HTTP side of [`crate::Io`]: the request the runtime performs and the response head it
//! reports.

use crate::destination::Destination;

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
