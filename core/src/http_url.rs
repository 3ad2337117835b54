//! [`HttpUrl`]: the small, strict URL parser the HTTP transports need (scheme, host, port,
//! path, query), with origin checks for server-announced endpoints.

use core::net::Ipv6Addr;
use std::fmt;

use crate::redact::redact_url;
use crate::target::TargetConfigError;
use crate::transport::{TransportKind, AUTO_KINDS};

pub(crate) fn url_err(detail: impl Into<String>) -> TargetConfigError {
    TargetConfigError::InvalidUrl { detail: detail.into() }
}

pub(crate) fn ensure(ok: bool, detail: &str) -> Result<(), TargetConfigError> {
    if ok {
        Ok(())
    } else {
        Err(url_err(detail))
    }
}

/// A validated `http://` or `https://` URL, normalised: scheme and host lowercased, IPv6
/// literals canonical, default ports elided, an empty path written `/`, the fragment dropped.
/// `Debug` is redacted; the full URL (which may carry a token) is [`HttpUrl::as_str`].
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct HttpUrl {
    https: bool,
    host: String,
    ipv6: bool,
    port: u16,
    path: String,
    query: Option<String>,
    serialized: String,
}

impl HttpUrl {
    /// Parses and validates a URL: an `http` or `https` scheme, a host, an optional port, ASCII
    /// only, no whitespace or control characters, and no `user:password@` credentials.
    pub fn parse(url: &str) -> Result<Self, TargetConfigError> {
        ensure(!url.is_empty(), "empty URL")?;
        let clean = !url.chars().any(|c| c.is_whitespace() || c.is_control());
        ensure(clean, "URLs must not contain whitespace or control characters")?;
        ensure(url.is_ascii(), "URLs must be ASCII (percent-encode other characters)")?;
        let (scheme, rest) = url.split_once("://").ok_or_else(|| url_err("expected http:// or https://"))?;
        let https = match scheme.to_ascii_lowercase().as_str() {
            "http" => false,
            "https" => true,
            _ => return Err(unsupported_scheme(scheme, "http:// or https://")),
        };
        let rest = rest.split_once('#').map_or(rest, |(r, _)| r);
        let (authority, tail) = rest.split_at(rest.find(['/', '?']).unwrap_or(rest.len()));
        ensure(
            !authority.contains('@'),
            "credentials in the URL (user:password@host) are not allowed; \
             send them in a header such as \"Authorization\" instead",
        )?;
        let (host, ipv6, port) = if let Some(bracketed) = authority.strip_prefix('[') {
            let (inner, after) =
                bracketed.split_once(']').ok_or_else(|| url_err("missing ']' after IPv6"))?;
            let addr: Ipv6Addr = inner.parse().map_err(|_| url_err("invalid IPv6 address in brackets"))?;
            let port = after.strip_prefix(':');
            ensure(after.is_empty() || port.is_some(), "unexpected text after ']'")?;
            (addr.to_string(), true, port)
        } else {
            let (host, port) = authority.split_once(':').map_or((authority, None), |(h, p)| (h, Some(p)));
            let bracketed = !port.is_some_and(|p| p.contains(':'));
            ensure(bracketed, "IPv6 addresses must be written in brackets, e.g. http://[::1]:8080/")?;
            ensure(!host.is_empty(), "missing host")?;
            let valid = host.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'));
            ensure(valid, "invalid character in host")?;
            (host.to_ascii_lowercase(), false, port)
        };
        let port = match port {
            None | Some("") => [80, 443][usize::from(https)],
            Some(p) => {
                ensure(p.bytes().all(|b| b.is_ascii_digit()), "the port must be a number")?;
                p.parse::<u16>().ok().filter(|n| *n != 0).ok_or_else(|| url_err("port out of range"))?
            }
        };
        ensure(!tail.contains('\\'), "backslashes are not allowed in URLs")?;
        let (path, query) = tail.split_once('?').map_or((tail, None), |(p, q)| (p, Some(q.to_owned())));
        let path = if path.is_empty() { "/".to_owned() } else { path.to_owned() };
        let mut url = Self { https, host, ipv6, port, path, query, serialized: String::new() };
        url.serialized = format!("{}{}", url.origin(), url.request_target());
        Ok(url)
    }

    /// The normalised URL in full; it may contain a credential, so log [`HttpUrl::redacted`].
    pub fn as_str(&self) -> &str {
        &self.serialized
    }

    /// Whether the scheme is `https`.
    pub fn is_https(&self) -> bool {
        self.https
    }

    /// The host, lowercased; an IPv6 address without brackets.
    pub fn host(&self) -> &str {
        &self.host
    }

    /// The port to connect to (the scheme's default when none was written).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `host[:port]` as sent in a `Host` header: IPv6 in brackets, default port elided.
    pub fn authority(&self) -> String {
        let host = if self.ipv6 { format!("[{}]", self.host) } else { self.host.clone() };
        if self.port == [80, 443][usize::from(self.https)] {
            host
        } else {
            format!("{host}:{}", self.port)
        }
    }

    /// `host:port` with the port always written (IPv6 in brackets), as a `CONNECT` target.
    pub fn authority_with_port(&self) -> String {
        if self.ipv6 {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }

    /// The HTTP request target: the path (starting with `/`) and the query.
    pub fn request_target(&self) -> String {
        match &self.query {
            Some(q) => format!("{}?{q}", self.path),
            None => self.path.clone(),
        }
    }

    /// `scheme://host[:port]`, default ports elided: equal origins mean the same server.
    pub fn origin(&self) -> String {
        format!("{}://{}", if self.https { "https" } else { "http" }, self.authority())
    }

    /// The transports to try, in order, judged from the path (a trailing `/` ignored): `…/sse`
    /// is SSE only, `…/mcp` Streamable HTTP only, anything else Streamable HTTP, then SSE,
    /// then plain HTTP.
    pub fn default_kinds(&self) -> Vec<TransportKind> {
        match self.path.trim_end_matches('/').rsplit('/').next() {
            Some("sse") => vec![TransportKind::Sse],
            Some("mcp") => vec![TransportKind::StreamableHttp],
            _ => AUTO_KINDS.to_vec(),
        }
    }

    /// Resolves a reference the server sent (an absolute URL, `//host/...`, an absolute path, a
    /// query, or a path relative to this URL's directory) against this URL, wherever it leads;
    /// `None` when the result is not a valid `http://` or `https://` URL. Dot segments are kept
    /// as written (the server resolves them).
    pub fn join(&self, reference: &str) -> Option<HttpUrl> {
        let clean = !reference.is_empty()
            && reference.is_ascii()
            && !reference.chars().any(|c| c.is_whitespace() || c.is_control() || c == '\\');
        if !clean {
            return None;
        }
        let reference = reference.split('#').next().unwrap_or("");
        let scheme = if self.https { "https" } else { "http" };
        // An absolute URL starts with a scheme and `:` (a `:` after a `/` or `?` is not one).
        let has_scheme = reference.split_once(':').is_some_and(|(before, _)| is_scheme(before));
        let candidate = if reference.starts_with("//") {
            format!("{scheme}:{reference}")
        } else if has_scheme {
            reference.to_owned()
        } else if reference.starts_with('/') {
            format!("{}{reference}", self.origin())
        } else if reference.starts_with('?') {
            format!("{}{}{reference}", self.origin(), self.path)
        } else {
            let dir = &self.path[..self.path.rfind('/').map_or(0, |i| i + 1)];
            format!("{}{dir}{reference}", self.origin())
        };
        HttpUrl::parse(&candidate).ok()
    }

    /// [`HttpUrl::join`], returning the full URL only if it stays on this URL's origin:
    /// configured credentials must never reach another host.
    pub fn join_same_origin(&self, reference: &str) -> Option<String> {
        let url = self.join(reference)?;
        (url.origin() == self.origin()).then_some(url.serialized)
    }

    /// The URL with credential query parameters and secret-looking path segments as `***`.
    pub fn redacted(&self) -> String {
        redact_url(&self.serialized)
    }
}

impl fmt::Debug for HttpUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("HttpUrl").field(&self.redacted()).finish()
    }
}

/// The origin (`scheme://host[:port]`, default ports elided) of an HTTP URL, or `None` if it is
/// not a valid `http://` or `https://` URL.
pub fn origin(url: &str) -> Option<String> {
    HttpUrl::parse(url.trim()).ok().map(|u| u.origin())
}

pub(crate) fn is_scheme(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

pub(crate) fn unsupported_scheme(scheme: &str, expected: &str) -> TargetConfigError {
    if is_scheme(scheme) && scheme.len() <= 16 {
        url_err(format!("unsupported scheme {scheme:?} (use {expected})"))
    } else {
        url_err(format!("unsupported scheme (use {expected})"))
    }
}
