//! HTTP proxies: from the environment (`HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY`, `NO_PROXY`,
//! upper or lower case) or configured, with `CONNECT` tunnels for `https://` servers.

use base64::Engine as _;
use futures_lite::{AsyncReadExt, AsyncWriteExt};

use super::hyper_io::BoxedStream;
use mcp_core::mcp_servers::HttpUrl;

/// Which proxy the HTTP client uses.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum ProxySetting {
    /// `HTTPS_PROXY`/`HTTP_PROXY`/`ALL_PROXY` and `NO_PROXY` from the environment, read once
    /// when the client is built (the default). The async runtimes use `http://` proxies (other
    /// schemes in the environment are ignored); mcp-blocking also `https://` and `socks*://`.
    #[default]
    FromEnv,
    /// No proxy, whatever the environment says.
    None,
    /// This proxy for every server: `http://[user:password@]host:port` (`CONNECT` tunnels for
    /// `https://` servers); mcp-blocking also takes `https://` and `socks4://`, `socks4a://`,
    /// `socks5://`, `socks5h://` proxies.
    Url(String),
}

/// A proxy server.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Proxy {
    pub(crate) host: String,
    pub(crate) port: u16,
    /// `Basic ...` credentials for `Proxy-Authorization`.
    pub(crate) auth: Option<String>,
}

impl std::fmt::Debug for Proxy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Proxy").field("host", &self.host).field("port", &self.port).finish_non_exhaustive()
    }
}

/// The proxies to use, resolved once per client.
#[derive(Debug, Clone, Default)]
pub(crate) struct Proxies {
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
    pub(crate) fn resolve(setting: &ProxySetting) -> Result<Self, String> {
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

    /// The proxy for a server, if any.
    pub(crate) fn for_url(&self, url: &HttpUrl) -> Option<&Proxy> {
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

/// Parses `http://[user:password@]host[:port]` (the scheme may be left out).
fn parse_proxy(text: &str) -> Option<Proxy> {
    let text = text.trim();
    let rest = match text.split_once("://") {
        Some((scheme, rest)) if scheme.eq_ignore_ascii_case("http") => rest,
        Some(_) => return None,
        None => text,
    };
    let authority = rest.split(['/', '?', '#']).next()?;
    let (userinfo, hostport) = match authority.rsplit_once('@') {
        Some((u, h)) => (Some(u), h),
        None => (None, authority),
    };
    let url = HttpUrl::parse(&format!("http://{hostport}/")).ok()?;
    let auth = userinfo.map(|u| {
        let decoded = percent_decode(u);
        format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(decoded.as_bytes()))
    });
    Some(Proxy { host: url.host().to_owned(), port: url.port(), auth })
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match (bytes[i], bytes.get(i + 1..i + 3)) {
            (b'%', Some(hex)) => {
                match std::str::from_utf8(hex).ok().and_then(|h| u8::from_str_radix(h, 16).ok()) {
                    Some(b) => {
                        out.push(b);
                        i += 3;
                        continue;
                    }
                    None => out.push(b'%'),
                }
            }
            (b, _) => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Longest proxy answer to `CONNECT` accepted.
const MAX_CONNECT_RESPONSE: usize = 16 * 1024;

/// Opens a `CONNECT` tunnel to `host:port` through a proxy connection.
pub(crate) async fn tunnel(
    mut stream: BoxedStream,
    proxy: &Proxy,
    url: &HttpUrl,
) -> Result<BoxedStream, String> {
    let target = url.authority_with_port();
    let mut request = format!("CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n");
    if let Some(auth) = &proxy.auth {
        request.push_str(&format!("Proxy-Authorization: {auth}\r\n"));
    }
    request.push_str("\r\n");
    stream.write_all(request.as_bytes()).await.map_err(|e| format!("proxy CONNECT failed: {e}"))?;
    stream.flush().await.map_err(|e| format!("proxy CONNECT failed: {e}"))?;
    // Read the answer byte by byte so no tunnelled byte is consumed.
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        let n = stream.read(&mut byte).await.map_err(|e| format!("proxy CONNECT failed: {e}"))?;
        if n == 0 {
            return Err("the proxy closed the connection during CONNECT".into());
        }
        head.push(byte[0]);
        if head.len() > MAX_CONNECT_RESPONSE {
            return Err("the proxy's answer to CONNECT is too long".into());
        }
    }
    let status_line =
        String::from_utf8_lossy(head.split(|b| *b == b'\r').next().unwrap_or_default()).into_owned();
    let status = status_line.split_whitespace().nth(1).unwrap_or("");
    if status.starts_with('2') {
        Ok(stream)
    } else {
        let shown = mcp_core::text::sanitize(&status_line, 200);
        Err(format!("the proxy refused the tunnel: {shown}"))
    }
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
        assert_eq!(s.auth.as_deref(), Some("Basic dUB4OnA6dw=="), "user u@x, password p:w");
        assert!(p.for_url(&url("http://localhost:9/")).is_none());
        assert!(p.for_url(&url("http://a.internal.test/")).is_none());
        assert!(p.for_url(&url("http://internal.test/")).is_none());
        assert!(p.for_url(&url("http://notinternal.test/")).is_some());
        assert!(p.for_url(&url("http://10.0.0.1/")).is_none());
        let all = Proxies::from_parts(Some("proxy:1"), None, "*");
        assert!(all.for_url(&url("http://x/")).is_none());
        let socks = Proxies::from_parts(Some("socks5://s:1080"), None, "");
        assert!(socks.for_url(&url("http://x/")).is_none(), "unsupported schemes are ignored");
    }
}
