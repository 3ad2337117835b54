//! The HTTP client settings every runtime takes ([`HttpClientConfig`]), and the request
//! headers both HTTP clients build on.

use std::net::{IpAddr, SocketAddr};

use crate::ProxySetting;

/// How the HTTP client of a client is set up (`ClientBuilder::http_client` in every family):
/// the trusted roots, the proxy, keep-alive. The async runtimes also take a custom
/// connector (`RuntimeOptions::connector` there, given to `ClientBuilder::runtime_options`).
///
/// TLS is rustls. Trusted: the Mozilla roots bundled with the client (webpki-roots), the
/// operating system's roots when the `native-roots` feature is compiled in, and the
/// certificates given to [`HttpClientConfig::root_certificate`]; each of the first two can be
/// turned off.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct HttpClientConfig {
    /// Extra trusted root certificates, each PEM (one or more certificates) or DER, added to the
    /// other roots.
    pub extra_root_certificates: Vec<Vec<u8>>,
    /// Whether the Mozilla roots bundled with the client (webpki-roots) are trusted (default
    /// true).
    pub webpki_roots: bool,
    /// Whether the operating system's trusted roots are (default true; feature `native-roots`).
    /// They are read when the first `https://` connection is made (mcpwire-blocking: at its
    /// first HTTP exchange), or at `build()` when roots are configured or the webpki roots are
    /// off.
    #[cfg(feature = "native-roots")]
    pub native_roots: bool,
    /// Which proxy to use (default: from the environment).
    pub proxy: ProxySetting,
    /// Idle keep-alive connections kept per server (default 4; 0 disables reuse).
    pub max_idle_per_host: usize,
    /// Names answered without DNS ([`HttpClientConfig::resolve`]), lowercase.
    pub resolve_overrides: Vec<(String, Vec<IpAddr>)>,
}

impl Default for HttpClientConfig {
    fn default() -> Self {
        Self {
            extra_root_certificates: Vec::new(),
            webpki_roots: true,
            #[cfg(feature = "native-roots")]
            native_roots: true,
            proxy: ProxySetting::default(),
            max_idle_per_host: 4,
            resolve_overrides: Vec::new(),
        }
    }
}

impl HttpClientConfig {
    /// Idle keep-alive connections kept per server (default 4; 0 disables reuse).
    pub fn max_idle_per_host(mut self, max_idle_per_host: usize) -> Self {
        self.max_idle_per_host = max_idle_per_host;
        self
    }

    /// Adds a trusted root certificate (PEM or DER).
    pub fn root_certificate(mut self, certificate: impl Into<Vec<u8>>) -> Self {
        self.extra_root_certificates.push(certificate.into());
        self
    }

    /// Trusts the Mozilla roots bundled with the client, or not (default: trusted). With them
    /// off, only the operating system's roots and the configured ones are.
    pub fn webpki_roots(mut self, trusted: bool) -> Self {
        self.webpki_roots = trusted;
        self
    }

    /// Trusts the operating system's roots, or not (default: trusted when the `native-roots`
    /// feature is compiled in).
    #[cfg(feature = "native-roots")]
    pub fn native_roots(mut self, trusted: bool) -> Self {
        self.native_roots = trusted;
        self
    }

    /// Sets the proxy setting.
    pub fn proxy(mut self, proxy: ProxySetting) -> Self {
        self.proxy = proxy;
        self
    }

    /// Answers the host `name` (case-insensitive) with `addresses` instead of DNS, for every
    /// HTTP connection the client opens to it (MCP traffic and OAuth fetches, on every
    /// runtime; the port comes from the URL), like reqwest's `ClientBuilder::resolve`. The
    /// addresses of an OAuth fetch are checked like resolved ones. A later call for the same
    /// name replaces the earlier one. A plain-`http` URL sent through a proxy is resolved by
    /// the proxy, not here.
    pub fn resolve(mut self, name: &str, addresses: impl IntoIterator<Item = IpAddr>) -> Self {
        let name = name.trim_end_matches('.').to_ascii_lowercase();
        self.resolve_overrides.retain(|(n, _)| *n != name);
        self.resolve_overrides.push((name, addresses.into_iter().collect()));
        self
    }

    /// The addresses of `host` at `port` known without DNS: an IP literal (IPv6 with or
    /// without brackets) or a name given to [`HttpClientConfig::resolve`]. `None` means a
    /// lookup is needed.
    pub fn known_addresses(&self, host: &str, port: u16) -> Option<Vec<SocketAddr>> {
        let bare = host.trim_start_matches('[').trim_end_matches(']');
        match bare.parse::<IpAddr>() {
            Ok(ip) => Some(vec![SocketAddr::new(ip, port)]),
            Err(_) => self.overridden(bare, port),
        }
    }

    /// The addresses [`HttpClientConfig::resolve`] gave `host`, at `port`.
    pub fn overridden(&self, host: &str, port: u16) -> Option<Vec<SocketAddr>> {
        let name = host.trim_end_matches('.').to_ascii_lowercase();
        let (_, ips) = self.resolve_overrides.iter().find(|(n, _)| *n == name)?;
        Some(ips.iter().map(|ip| SocketAddr::new(*ip, port)).collect())
    }
}

/// `builder` with the core's request `headers`: the names and values every request carries
/// come from static tables, without parsing or copying them (both HTTP clients build their
/// requests on [`http::request::Builder`]).
pub fn with_request_headers(
    mut builder: http::request::Builder,
    headers: &[(String, String)],
) -> http::request::Builder {
    for (name, value) in headers {
        builder = match (known_name(name), known_value(value)) {
            (Some(n), Some(v)) => builder.header(n, v),
            (Some(n), None) => builder.header(n, value.as_str()),
            (None, Some(v)) => builder.header(name.as_str(), v),
            (None, None) => builder.header(name.as_str(), value.as_str()),
        };
    }
    builder
}

/// The header names every request carries.
fn known_name(name: &str) -> Option<http::HeaderName> {
    use http::header::{HeaderName, ACCEPT, ACCEPT_ENCODING, CONTENT_TYPE};
    const KNOWN: [(&str, HeaderName); 5] = [
        ("content-type", CONTENT_TYPE),
        ("accept", ACCEPT),
        ("accept-encoding", ACCEPT_ENCODING),
        ("mcp-protocol-version", HeaderName::from_static("mcp-protocol-version")),
        ("mcp-session-id", HeaderName::from_static("mcp-session-id")),
    ];
    KNOWN.iter().find(|(text, _)| name.eq_ignore_ascii_case(text)).map(|(_, n)| n.clone())
}

/// The header values most requests carry.
fn known_value(value: &str) -> Option<http::HeaderValue> {
    const KNOWN: [&str; 4] =
        ["application/json", "application/json, text/event-stream", "gzip", "text/event-stream"];
    KNOWN.into_iter().find(|text| value == *text).map(http::HeaderValue::from_static)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolve_overrides_answer_names_and_literals_answer_themselves() {
        let private: IpAddr = "10.0.0.1".parse().unwrap();
        let public: IpAddr = "93.184.216.34".parse().unwrap();
        let config = HttpClientConfig::default()
            .resolve("Auth.Internal.Test.", [private])
            .resolve("auth.internal.test", [public, private]);
        let expected = vec![SocketAddr::new(public, 443), SocketAddr::new(private, 443)];
        assert_eq!(config.known_addresses("AUTH.internal.test", 443), Some(expected), "the later call wins");
        assert_eq!(config.overridden("other.test", 443), None);
        assert_eq!(config.known_addresses("other.test", 443), None, "a name needs a lookup");
        let v6 = SocketAddr::new("::1".parse().unwrap(), 8080);
        assert_eq!(config.known_addresses("[::1]", 8080), Some(vec![v6]));
        assert_eq!(config.overridden("127.0.0.1", 80), None, "literals are not overrides");
    }

    #[test]
    fn request_headers_keep_names_values_and_order() {
        let headers: Vec<(String, String)> = [
            ("Content-Type", "application/json"),
            ("mcp-session-id", "abc"),
            ("X-Custom", "gzip"),
            ("x-other", "v 1"),
            ("accept", "application/json, text/event-stream"),
        ]
        .iter()
        .map(|(n, v)| (n.to_string(), v.to_string()))
        .collect();
        let request =
            with_request_headers(http::Request::builder(), &headers).body(()).expect("valid headers");
        let got: Vec<(&str, &str)> =
            request.headers().iter().map(|(n, v)| (n.as_str(), v.to_str().expect("ascii"))).collect();
        assert_eq!(
            got,
            [
                ("content-type", "application/json"),
                ("mcp-session-id", "abc"),
                ("x-custom", "gzip"),
                ("x-other", "v 1"),
                ("accept", "application/json, text/event-stream"),
            ]
        );
        let bad = [("bad name".to_owned(), "v".to_owned())];
        assert!(with_request_headers(http::Request::builder(), &bad).body(()).is_err());
    }
}
