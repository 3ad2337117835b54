//! [`HttpUrl`]: every URL from a server or a configuration, parsed by the WHATWG URL parser
//! (the `url` crate) with the HTTP transports' rules on top, and origin checks for
//! server-announced endpoints.

use core::net::IpAddr;
use std::fmt;

use url::{Host, Position, Url};

use crate::redact::redact_url;
use crate::target::{ensure, unsupported_scheme, url_err, TargetConfigError};
use crate::transport::{TransportKind, AUTO_KINDS};

/// Longest URL accepted, as written and once normalised (percent-encoding and IDNA can grow
/// it). Far above any real server URL, OAuth endpoint or redirect target.
pub const MAX_URL_BYTES: usize = 8192;

/// A validated `http://` or `https://` URL: a small wrapper around a WHATWG [`url::Url`] with
/// our rules on top (http/https only, a host, no `user:password@`, no whitespace, control
/// characters or backslashes, at most [`MAX_URL_BYTES`], no fragment kept).
///
/// Normalised by the WHATWG parser: scheme and host lowercased, numeric IPv4 forms
/// (`0x7f.1`, `2130706433`, `010.0.0.1`) written as dotted decimal, IPv6 literals canonical,
/// international domain names as punycode, default ports elided, an empty path written `/`,
/// dot segments removed, other characters percent-encoded. `Debug` is redacted; the full URL
/// (which may carry a token) is [`HttpUrl::as_str`].
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct HttpUrl {
    url: Url,
}

impl HttpUrl {
    /// Parses and validates a URL: `http://` or `https://` followed by a host, an optional
    /// port (not 0), no `user:password@` credentials, no whitespace, control characters or
    /// backslashes, at most [`MAX_URL_BYTES`]. A fragment is dropped.
    pub fn parse(url: &str) -> Result<Self, TargetConfigError> {
        ensure(!url.is_empty(), "empty URL")?;
        check_text(url)?;
        // WHATWG reads `http:host` and `http:///host` as `http://host/`; a URL we accept names
        // its host after exactly `scheme://`.
        let scheme = url.split_once(':').map_or("", |(s, _)| s);
        if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") {
            return Err(if url.contains("://") {
                unsupported_scheme(scheme, "http:// or https://")
            } else {
                url_err("expected http:// or https://")
            });
        }
        let after = &url[scheme.len() + 1..];
        ensure(
            after.starts_with("//") && !after[2..].starts_with('/'),
            "expected http:// or https:// and a host",
        )?;
        let parsed = Url::parse(url).map_err(|e| parse_error(url, e))?;
        Self::from_url(parsed)
    }

    /// Our rules on a URL the WHATWG parser accepted (scheme, credentials, host, port, length).
    fn from_url(mut url: Url) -> Result<Self, TargetConfigError> {
        if !matches!(url.scheme(), "http" | "https") {
            return Err(unsupported_scheme(url.scheme(), "http:// or https://"));
        }
        ensure(
            url.username().is_empty() && url.password().is_none(),
            "credentials in the URL (user:password@host) are not allowed; \
             send them in a header such as \"Authorization\" instead",
        )?;
        match url.host() {
            None => return Err(url_err("missing host")),
            Some(Host::Domain(domain)) => {
                ensure(!domain.is_empty(), "missing host")?;
                let valid =
                    domain.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_'));
                ensure(valid, "invalid character in host")?;
            }
            Some(Host::Ipv4(_) | Host::Ipv6(_)) => {}
        }
        ensure(url.port() != Some(0), "port out of range")?;
        url.set_fragment(None);
        ensure(url.as_str().len() <= MAX_URL_BYTES, "URL too long")?;
        Ok(Self { url })
    }

    /// The normalised URL in full; it may contain a credential, so log [`HttpUrl::redacted`].
    pub fn as_str(&self) -> &str {
        self.url.as_str()
    }

    /// Whether the scheme is `https`.
    pub fn is_https(&self) -> bool {
        self.url.scheme() == "https"
    }

    /// The host, lowercased (punycode for an international name, dotted decimal for IPv4);
    /// an IPv6 address without brackets.
    pub fn host(&self) -> &str {
        let host = self.url.host_str().unwrap_or_default();
        host.strip_prefix('[').and_then(|h| h.strip_suffix(']')).unwrap_or(host)
    }

    /// The host as an IP address when it is one (after normalisation: `http://0x7f.1/` is
    /// `127.0.0.1`, `http://[::ffff:a00:1]/` is `::ffff:10.0.0.1`); `None` for a name.
    pub fn ip(&self) -> Option<IpAddr> {
        match self.url.host()? {
            Host::Ipv4(v4) => Some(IpAddr::V4(v4)),
            Host::Ipv6(v6) => Some(IpAddr::V6(v6)),
            Host::Domain(_) => None,
        }
    }

    /// The port to connect to (the scheme's default when none was written).
    pub fn port(&self) -> u16 {
        self.url.port_or_known_default().unwrap_or([80, 443][usize::from(self.is_https())])
    }

    /// `host[:port]` as sent in a `Host` header: IPv6 in brackets, default port elided.
    pub fn authority(&self) -> String {
        let host = self.url.host_str().unwrap_or_default();
        match self.url.port() {
            Some(port) => format!("{host}:{port}"),
            None => host.to_owned(),
        }
    }

    /// `host:port` with the port always written (IPv6 in brackets), as a `CONNECT` target.
    pub fn authority_with_port(&self) -> String {
        format!("{}:{}", self.url.host_str().unwrap_or_default(), self.port())
    }

    /// The HTTP request target: the path (starting with `/`) and the query.
    pub fn request_target(&self) -> String {
        self.url[Position::BeforePath..Position::AfterQuery].to_owned()
    }

    /// The path (starting with `/`, percent-encoded, dot segments removed), without the query.
    pub fn path(&self) -> &str {
        self.url.path()
    }

    /// `scheme://host[:port]`, default ports elided: equal origins mean the same server.
    pub fn origin(&self) -> String {
        format!("{}://{}", self.url.scheme(), self.authority())
    }

    /// The transports to try, in order, judged from the path (a trailing `/` ignored): `…/sse`
    /// is SSE only, `…/mcp` Streamable HTTP only, anything else Streamable HTTP, then SSE,
    /// then plain HTTP.
    pub fn default_kinds(&self) -> Vec<TransportKind> {
        match self.url.path().trim_end_matches('/').rsplit('/').next() {
            Some("sse") => vec![TransportKind::Sse],
            Some("mcp") => vec![TransportKind::StreamableHttp],
            _ => AUTO_KINDS.to_vec(),
        }
    }

    /// Resolves a reference the server sent (an absolute URL, `//host/...`, an absolute path, a
    /// query, or a relative path) against this URL as a browser would (WHATWG, which follows
    /// RFC 3986 here: dot segments are removed), wherever it leads; `None` when the reference
    /// holds whitespace, control characters or backslashes, or the result is not a URL
    /// [`HttpUrl::parse`] would accept. The fragment is dropped.
    pub fn join(&self, reference: &str) -> Option<HttpUrl> {
        if reference.is_empty() || check_text(reference).is_err() {
            return None;
        }
        Self::from_url(self.url.join(reference).ok()?).ok()
    }

    /// [`HttpUrl::join`], returning the full URL only if it stays on this URL's origin:
    /// configured credentials must never reach another host.
    pub fn join_same_origin(&self, reference: &str) -> Option<String> {
        let url = self.join(reference)?;
        (url.origin() == self.origin()).then(|| url.as_str().to_owned())
    }

    /// The URL with credential query parameters and secret-looking path segments as `***`.
    pub fn redacted(&self) -> String {
        redact_url(self.as_str())
    }
}

/// What only the OAuth flow asks of a URL (address checks, query rewriting).
#[cfg(feature = "oauth")]
impl HttpUrl {
    /// The host as the WHATWG parser classified it: a domain name, an IPv4 or an IPv6 address.
    pub(crate) fn parsed_host(&self) -> Host<&str> {
        self.url.host().unwrap_or(Host::Domain(""))
    }

    /// The query without its `?`, if the URL has one.
    pub(crate) fn query(&self) -> Option<&str> {
        self.url.query()
    }

    /// This URL with its query replaced (`None` removes it).
    pub(crate) fn with_raw_query(&self, query: Option<&str>) -> HttpUrl {
        let mut url = self.url.clone();
        url.set_query(query);
        HttpUrl { url }
    }
}

/// Refuses what WHATWG would silently repair and other parsers read differently: whitespace
/// and control characters (removed or trimmed by WHATWG), backslashes (read as `/`), and
/// overlong input.
fn check_text(url: &str) -> Result<(), TargetConfigError> {
    ensure(url.len() <= MAX_URL_BYTES, "URL too long")?;
    let clean = !url.chars().any(|c| c.is_whitespace() || c.is_control());
    ensure(clean, "URLs must not contain whitespace or control characters")?;
    ensure(!url.contains('\\'), "backslashes are not allowed in URLs")
}

/// A WHATWG parse error as our typed error, in words (the URL itself is not repeated).
fn parse_error(url: &str, error: url::ParseError) -> TargetConfigError {
    use url::ParseError as E;
    let zone_id =
        url.split_once('[').and_then(|(_, rest)| rest.split(']').next()).is_some_and(|h| h.contains('%'));
    let authority =
        url.split_once("://").map_or("", |(_, rest)| rest.split(['/', '?', '#']).next().unwrap_or(""));
    let bare_ipv6 = !authority.contains('[') && authority.matches(':').count() > 1;
    match error {
        E::InvalidIpv6Address if zone_id => {
            url_err("IPv6 zone identifiers (as in [fe80::1%25eth0]) are not supported in URLs")
        }
        _ if bare_ipv6 => url_err("IPv6 addresses must be written in brackets, e.g. http://[::1]:8080/"),
        E::InvalidIpv6Address => url_err("invalid IPv6 address in brackets"),
        E::InvalidPort => url_err("the port must be a number from 1 to 65535"),
        E::EmptyHost => url_err("missing host"),
        E::IdnaError => url_err("invalid international domain name"),
        E::InvalidIpv4Address => url_err("invalid IPv4 address"),
        E::InvalidDomainCharacter => url_err("invalid character in host"),
        other => url_err(other.to_string()),
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

#[cfg(test)]
mod tests;
