//! [`HttpConfig`]: how to reach an HTTP server.

use std::time::Duration;

use crate::http_url::HttpUrl;
use crate::redact::{redact_header_value, redact_url};
use crate::target::TargetConfigError;
use crate::transport::TransportKind;

/// How to reach an HTTP server. `Debug` redacts credentials (URL tokens, auth headers).
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct HttpConfig {
    /// The server URL: the MCP endpoint (Streamable or plain HTTP), or the event-stream URL
    /// (HTTP+SSE).
    pub url: String,
    /// The transports to try, in order (see [`crate::mcp_servers::detect_target`]); the first
    /// that works is kept for the connection's lifetime.
    pub kinds: Vec<TransportKind>,
    /// Headers sent with every request. In a modern session, `Mcp-Param-*` headers are dropped
    /// (that namespace belongs to the protocol).
    pub headers: Vec<(String, String)>,
    /// How many times a request that failed in transport or with HTTP 5xx is retried (never a
    /// `tools/call`, never after a JSON-RPC error, a 4xx, a timeout or an oversized body).
    /// Default 0.
    pub retries: u32,
    /// The first retry waits about this long; each later one twice as long (with jitter).
    /// Default 500 ms.
    pub retry_delay: Duration,
    /// How a `401`/`403` challenge is answered (OAuth, a token provider, or not at all).
    pub auth: crate::oauth::HttpAuth,
}

impl HttpConfig {
    /// The transports to try, in order (see [`crate::mcp_servers::detect_target`]); the first that works is kept for the connection's lifetime.
    pub fn kinds(mut self, kinds: Vec<TransportKind>) -> Self {
        self.kinds = kinds;
        self
    }

    /// Headers sent with every request.
    pub fn headers(mut self, headers: Vec<(String, String)>) -> Self {
        self.headers = headers;
        self
    }

    /// How many times a request that failed in transport or with HTTP 5xx is retried (never a `tools/call`, never after a JSON-RPC error, a 4xx, a timeout or an oversized body).
    pub fn retries(mut self, retries: u32) -> Self {
        self.retries = retries;
        self
    }

    /// The first retry waits about this long; each later one twice as long (with jitter).
    pub fn retry_delay(mut self, retry_delay: Duration) -> Self {
        self.retry_delay = retry_delay;
        self
    }

    /// How a `401`/`403` challenge is answered (OAuth, a token provider, or not at all).
    pub fn auth(mut self, auth: crate::oauth::HttpAuth) -> Self {
        self.auth = auth;
        self
    }

    /// A configuration for `url`, trying the transports its shape suggests (see
    /// [`crate::mcp_servers::HttpUrl::default_kinds`]).
    pub fn new(url: &str) -> Result<Self, TargetConfigError> {
        let parsed = HttpUrl::parse(url)?;
        Ok(Self {
            kinds: parsed.default_kinds(),
            url: parsed.as_str().to_owned(),
            headers: Vec::new(),
            retries: 0,
            retry_delay: Duration::from_millis(500),
            auth: crate::oauth::HttpAuth::None,
        })
    }
}

impl std::fmt::Debug for HttpConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let headers: Vec<(&str, &str)> =
            self.headers.iter().map(|(n, v)| (n.as_str(), redact_header_value(n, v))).collect();
        f.debug_struct("HttpConfig")
            .field("url", &redact_url(&self.url))
            .field("kinds", &self.kinds)
            .field("headers", &headers)
            .field("retries", &self.retries)
            .field("retry_delay", &self.retry_delay)
            .field("auth", &self.auth)
            .finish()
    }
}
