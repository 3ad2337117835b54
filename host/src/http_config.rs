//! The HTTP client settings every runtime takes ([`HttpClientConfig`]), and proxy selection:
//! from the environment (`HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY`, `NO_PROXY`, upper or lower
//! case) or configured.

use std::net::{IpAddr, SocketAddr};

use base64::Engine as _;
use mcpwire_core::mcp_servers::HttpUrl;
use percent_encoding::percent_decode_str;
use url::Url;

/// How the HTTP client of a client is set up (`ClientBuilder::http_client` in every family):
/// extra trusted roots, the proxy, keep-alive. The async runtimes also take a custom
/// connector (`ClientBuilder::connector` there).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct HttpClientConfig {
    /// Extra trusted root certificates, each PEM (one or more certificates) or DER, added to the
    /// webpki roots.
    pub extra_root_certificates: Vec<Vec<u8>>,
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

/// Which proxy the HTTP client uses.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum ProxySetting {
    /// `HTTPS_PROXY`/`HTTP_PROXY`/`ALL_PROXY` and `NO_PROXY` from the environment, read once
    /// when the client is built (the default). The async runtimes use `http://` proxies (other
    /// schemes in the environment are ignored); mcpwire-blocking also `https://` and `socks*://`.
    #[default]
    FromEnv,
    /// No proxy, whatever the environment says.
    None,
    /// This proxy for every server: `http://[user:password@]host:port` (`CONNECT` tunnels for
    /// `https://` servers); mcpwire-blocking also takes `https://` and `socks4://`, `socks4a://`,
    /// `socks5://`, `socks5h://` proxies.
    Url(String),
}

/// A proxy server.
#[derive(Clone, PartialEq, Eq)]
pub struct Proxy {
    /// Its host.
    pub host: String,
    /// Its port.
    pub port: u16,
    /// `Basic ...` credentials for `Proxy-Authorization`.
    pub auth: Option<String>,
}

impl std::fmt::Debug for Proxy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Proxy").field("host", &self.host).field("port", &self.port).finish_non_exhaustive()
    }
}

/// The proxies to use, resolved once per client.
#[derive(Debug, Clone, Default)]
pub struct Proxies {
    http: Option<Proxy>,
    https: Option<Proxy>,
    no_proxy: Vec<String>,
    all: bool,
}

fn env(names: &[&str]) -> Option<String> {
    names.iter().find_map(|n| std::env::var(n).ok()).filter(|v| !v.trim().is_empty())
}

impl Proxies {
    /// Resolves a setting (reading the environment for [`ProxySetting::FromEnv`]).
    pub fn resolve(setting: &ProxySetting) -> Result<Self, String> {
        match setting {
            ProxySetting::None => Ok(Self::default()),
            ProxySetting::Url(url) => {
                let proxy =
                    parse_proxy(url).ok_or_else(|| "the proxy must be an http://host:port URL".to_owned())?;
                Ok(Self { http: Some(proxy.clone()), https: Some(proxy), no_proxy: Vec::new(), all: false })
            }
            ProxySetting::FromEnv => {
                let all = env(&["ALL_PROXY", "all_proxy"]);
                let http = env(&["HTTP_PROXY", "http_proxy"]).or_else(|| all.clone());
                let https = env(&["HTTPS_PROXY", "https_proxy"]).or(all);
                let no_proxy = env(&["NO_PROXY", "no_proxy"]).unwrap_or_default();
                Ok(Self::from_parts(http.as_deref(), https.as_deref(), &no_proxy))
            }
        }
    }

    fn from_parts(http: Option<&str>, https: Option<&str>, no_proxy: &str) -> Self {
        let entries: Vec<String> = no_proxy
            .split(',')
            .map(|e| e.trim().trim_start_matches('.').to_ascii_lowercase())
            .filter(|e| !e.is_empty())
            .collect();
        Self {
            http: http.and_then(parse_proxy),
            https: https.and_then(parse_proxy),
            all: entries.iter().any(|e| e == "*"),
            no_proxy: entries,
        }
    }

    /// Whether no proxy is set (a proxy URL this parser does not read counts as none).
    pub fn is_empty(&self) -> bool {
        self.http.is_none() && self.https.is_none()
    }

    /// The proxy for a server, if any.
    pub fn for_url(&self, url: &HttpUrl) -> Option<&Proxy> {
        let proxy = if url.is_https() { self.https.as_ref() } else { self.http.as_ref() }?;
        let host = url.host().to_ascii_lowercase();
        let excluded = self.all
            || self.no_proxy.iter().any(|entry| {
                let entry = match entry.rsplit_once(':') {
                    Some((h, p)) if p.bytes().all(|b| b.is_ascii_digit()) && !h.contains(':') => h,
                    _ => entry.as_str(),
                };
                let entry = entry.trim_start_matches('[').trim_end_matches(']');
                host == entry || host.strip_suffix(entry).is_some_and(|rest| rest.ends_with('.'))
            });
        (!excluded).then_some(proxy)
    }
}

/// Parses `http://[user:password@]host[:port]` (the scheme may be left out) with the WHATWG
/// parser; percent-encoded credentials become a `Proxy-Authorization` value.
fn parse_proxy(text: &str) -> Option<Proxy> {
    let text = text.trim();
    let url =
        if text.contains("://") { Url::parse(text) } else { Url::parse(&format!("http://{text}")) }.ok()?;
    if url.scheme() != "http" {
        return None;
    }
    let decode = |s: &str| percent_decode_str(s).decode_utf8_lossy().into_owned();
    let auth = (!url.username().is_empty() || url.password().is_some()).then(|| {
        let mut credentials = decode(url.username());
        if let Some(password) = url.password() {
            credentials.push(':');
            credentials.push_str(&decode(password));
        }
        format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(credentials.as_bytes()))
    });
    let server =
        HttpUrl::parse(&format!("http://{}:{}/", url.host_str()?, url.port_or_known_default()?)).ok()?;
    Some(Proxy { host: server.host().to_owned(), port: server.port(), auth })
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

    fn url(s: &str) -> HttpUrl {
        HttpUrl::parse(s).unwrap()
    }

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
    fn proxies_and_exclusions() {
        let p = Proxies::from_parts(
            Some("http://proxy:3128"),
            Some("http://u%40x:p%3Aw@sproxy:8080"),
            "localhost, .internal.test,10.0.0.1:80",
        );
        assert_eq!(
            p.for_url(&url("http://api.example/mcp")).map(|p| (p.host.as_str(), p.port)),
            Some(("proxy", 3128))
        );
        let s = p.for_url(&url("https://api.example/mcp")).unwrap();
        assert_eq!((s.host.as_str(), s.port), ("sproxy", 8080));
        assert_eq!(s.auth.as_deref(), Some("Basic dUB4OnA6dw=="), "user u@x, password p:w");
        assert!(p.for_url(&url("http://localhost:9/")).is_none());
        assert!(p.for_url(&url("http://a.internal.test/")).is_none());
        assert!(p.for_url(&url("http://internal.test/")).is_none());
        assert!(p.for_url(&url("http://notinternal.test/")).is_some());
        assert!(p.for_url(&url("http://10.0.0.1/")).is_none());
        let all = Proxies::from_parts(Some("proxy:1"), None, "*");
        assert!(all.for_url(&url("http://x/")).is_none());
        let numeric = Proxies::from_parts(Some("http://0x7f.1:3128/"), Some("u@[::1]"), "");
        assert_eq!(
            numeric.for_url(&url("http://x/")).map(|p| (p.host.as_str(), p.port)),
            Some(("127.0.0.1", 3128))
        );
        let v6 = numeric.for_url(&url("https://x/")).unwrap();
        assert_eq!((v6.host.as_str(), v6.port, v6.auth.as_deref()), ("::1", 80, Some("Basic dQ==")));
        let socks = Proxies::from_parts(Some("socks5://s:1080"), None, "");
        assert!(socks.for_url(&url("http://x/")).is_none(), "unsupported schemes are ignored");
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
