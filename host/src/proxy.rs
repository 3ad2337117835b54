//! Proxy selection for the HTTP clients of every runtime: from the environment (`HTTPS_PROXY`,
//! `HTTP_PROXY`, `ALL_PROXY`, `NO_PROXY`, upper or lower case) or configured, with
//! `http://`, `https://`, `socks4://`, `socks4a://`, `socks5://` and `socks5h://` proxies.

use base64::Engine as _;
use mcpwire_core::mcp_servers::HttpUrl;
use percent_encoding::percent_decode_str;
use url::Url;

/// Which proxy the HTTP client uses.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum ProxySetting {
    /// `HTTPS_PROXY`/`HTTP_PROXY`/`ALL_PROXY` and `NO_PROXY` from the environment, read once
    /// when the client is built (the default). A proxy URL of a scheme not listed at
    /// [`ProxySetting::Url`] is ignored.
    #[default]
    FromEnv,
    /// No proxy, whatever the environment says.
    None,
    /// This proxy for every server, `SCHEME://[user:password@]host[:port]`:
    /// - `http://` (port 80 by default) and `https://` (443; TLS to the proxy itself):
    ///   `CONNECT` tunnels for `https://` servers, absolute-form requests for `http://` ones,
    ///   credentials as `Proxy-Authorization: Basic`;
    /// - `socks5://` (names resolved by the client) and `socks5h://` (by the proxy), port 1080
    ///   by default, with username/password authentication when the URL has credentials;
    /// - `socks4://` (IPv4 addresses resolved by the client) and `socks4a://` (names resolved by
    ///   the proxy), the user name as the SOCKS4 user id.
    ///
    /// Anything else is a configuration error when the client is built.
    Url(String),
}

/// How a proxy is spoken to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ProxyKind {
    /// An HTTP proxy over plain TCP.
    Http,
    /// An HTTP proxy over TLS.
    Https,
    /// SOCKS4: the client resolves the name to an IPv4 address.
    Socks4,
    /// SOCKS4a: the proxy resolves the name.
    Socks4a,
    /// SOCKS5: the client resolves the name.
    Socks5,
    /// SOCKS5 with the name resolved by the proxy.
    Socks5h,
}

impl ProxyKind {
    /// The kind for a URL scheme (lowercase), if it is a proxy scheme.
    fn from_scheme(scheme: &str) -> Option<Self> {
        Some(match scheme {
            "http" => Self::Http,
            "https" => Self::Https,
            "socks4" => Self::Socks4,
            "socks4a" => Self::Socks4a,
            "socks5" => Self::Socks5,
            "socks5h" => Self::Socks5h,
            _ => return None,
        })
    }

    /// The URL scheme.
    pub fn scheme(self) -> &'static str {
        match self {
            Self::Http => "http",
            Self::Https => "https",
            Self::Socks4 => "socks4",
            Self::Socks4a => "socks4a",
            Self::Socks5 => "socks5",
            Self::Socks5h => "socks5h",
        }
    }

    /// Whether this is an HTTP proxy (over TCP or TLS), rather than SOCKS.
    pub fn is_http(self) -> bool {
        matches!(self, Self::Http | Self::Https)
    }

    /// Whether the proxy is handed a server's name to resolve, rather than an address the
    /// client resolved (SOCKS4 and SOCKS5 without `h`).
    pub fn resolves_names(self) -> bool {
        !matches!(self, Self::Socks4 | Self::Socks5)
    }

    fn default_port(self) -> u16 {
        match self {
            Self::Http => 80,
            Self::Https => 443,
            _ => 1080,
        }
    }
}

/// A proxy server.
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Proxy {
    /// How it is spoken to.
    pub kind: ProxyKind,
    /// Its host.
    pub host: String,
    /// Its port.
    pub port: u16,
    /// The user name of the URL, percent-decoded.
    pub username: Option<String>,
    /// The password of the URL, percent-decoded.
    pub password: Option<String>,
}

impl Proxy {
    /// The `Proxy-Authorization` value for an HTTP proxy with credentials (`Basic ...`).
    pub fn basic_authorization(&self) -> Option<String> {
        if self.username.is_none() && self.password.is_none() {
            return None;
        }
        let mut credentials = self.username.clone().unwrap_or_default();
        if let Some(password) = &self.password {
            credentials.push(':');
            credentials.push_str(password);
        }
        Some(format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(credentials.as_bytes())))
    }
}

impl std::fmt::Debug for Proxy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Proxy")
            .field("kind", &self.kind)
            .field("host", &self.host)
            .field("port", &self.port)
            .finish_non_exhaustive()
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
    /// Resolves a setting (reading the environment for [`ProxySetting::FromEnv`]). Fails for
    /// a configured URL that is not a proxy URL.
    pub fn resolve(setting: &ProxySetting) -> Result<Self, String> {
        match setting {
            ProxySetting::None => Ok(Self::default()),
            ProxySetting::Url(url) => {
                let proxy = parse_proxy(url).ok_or_else(|| {
                    "the proxy must be an http://, https://, socks4://, socks4a://, socks5:// or \
                     socks5h:// URL with a host"
                        .to_owned()
                })?;
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

/// Parses `SCHEME://[user:password@]host[:port]` (`http://` when the scheme is left out) with
/// the WHATWG parser; credentials are percent-decoded.
fn parse_proxy(text: &str) -> Option<Proxy> {
    let text = text.trim();
    let url =
        if text.contains("://") { Url::parse(text) } else { Url::parse(&format!("http://{text}")) }.ok()?;
    let kind = ProxyKind::from_scheme(url.scheme())?;
    let decode = |s: &str| percent_decode_str(s).decode_utf8_lossy().into_owned();
    let username = (!url.username().is_empty()).then(|| decode(url.username()));
    let password = url.password().map(decode);
    let port = url.port().unwrap_or(kind.default_port());
    // The core's parser gives the host in the form the clients connect to (IPv4 numbers
    // normalised, IPv6 without brackets).
    let server = HttpUrl::parse(&format!("http://{}:{port}/", url.host_str()?)).ok()?;
    Some(Proxy { kind, host: server.host().to_owned(), port: server.port(), username, password })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> HttpUrl {
        HttpUrl::parse(s).unwrap()
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
        assert_eq!(s.basic_authorization().as_deref(), Some("Basic dUB4OnA6dw=="), "user u@x, password p:w");
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
        assert_eq!((v6.host.as_str(), v6.port), ("::1", 80));
        assert_eq!(v6.basic_authorization().as_deref(), Some("Basic dQ=="));
    }

    #[test]
    fn every_proxy_scheme_is_read_with_its_default_port() {
        let cases = [
            ("https://p.test", ProxyKind::Https, 443),
            ("socks4://p.test", ProxyKind::Socks4, 1080),
            ("socks4a://p.test:9", ProxyKind::Socks4a, 9),
            ("SOCKS5://p.test", ProxyKind::Socks5, 1080),
            ("socks5h://p.test:1081", ProxyKind::Socks5h, 1081),
            ("http://p.test", ProxyKind::Http, 80),
        ];
        for (text, kind, port) in cases {
            let p = parse_proxy(text).unwrap_or_else(|| panic!("{text} parses"));
            assert_eq!((p.kind, p.host.as_str(), p.port), (kind, "p.test", port), "{text}");
            assert_eq!(kind.scheme(), text.split("://").next().unwrap().to_ascii_lowercase());
        }
        let socks = parse_proxy("socks5://al%20ice:s%3Acret@p.test").unwrap();
        assert_eq!((socks.username.as_deref(), socks.password.as_deref()), (Some("al ice"), Some("s:cret")));
        assert!(format!("{socks:?}").contains("p.test") && !format!("{socks:?}").contains("cret"));
        assert!(!ProxyKind::Socks5.resolves_names() && ProxyKind::Socks5h.resolves_names());
        assert!(!ProxyKind::Socks4.resolves_names() && ProxyKind::Socks4a.resolves_names());
        assert!(parse_proxy("ftp://p.test").is_none());
        let err = Proxies::resolve(&ProxySetting::Url("ftp://p.test".into())).unwrap_err();
        assert!(err.contains("socks5h://"), "{err}");
        let env_like = Proxies::from_parts(Some("socks5h://s:1080"), None, "");
        assert_eq!(env_like.for_url(&url("http://x/")).map(|p| p.kind), Some(ProxyKind::Socks5h));
    }
}
