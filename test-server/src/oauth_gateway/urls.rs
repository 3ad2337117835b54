//! The few URL facts the gateway needs: splitting `http://host:port/path?query`, loopback hosts,
//! redirect URI rules (RFC 8252 §7.3 / OAuth 2.1 §2.3.1) and adding query parameters.

use crate::oauth_gateway::http::percent_encode;

/// An absolute `http`/`https` URL, split.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Url {
    /// `http` or `https` (lower-case).
    pub scheme: String,
    /// The host, lower-case, IPv6 without brackets.
    pub host: String,
    /// The explicit port, if any.
    pub port: Option<u16>,
    /// The path and query (`/` when absent); no fragment.
    pub target: String,
}

impl Url {
    /// Parses an absolute `http` or `https` URL without user info. `None` if it is not one.
    pub fn parse(url: &str) -> Option<Url> {
        let (scheme, rest) = url.split_once("://")?;
        let scheme = scheme.to_ascii_lowercase();
        if scheme != "http" && scheme != "https" {
            return None;
        }
        if url.contains('#') || url.bytes().any(|b| b.is_ascii_control() || b == b' ') {
            return None;
        }
        let end = rest.find(['/', '?']).unwrap_or(rest.len());
        let (authority, target) = rest.split_at(end);
        if authority.is_empty() || authority.contains('@') {
            return None;
        }
        let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
            let (host, after) = v6.split_once(']')?;
            (host, after.strip_prefix(':'))
        } else {
            match authority.rsplit_once(':') {
                Some((h, p)) => (h, Some(p)),
                None => (authority, None),
            }
        };
        let port = match port {
            Some(p) => Some(p.parse::<u16>().ok()?),
            None => None,
        };
        if host.is_empty() {
            return None;
        }
        let target = match target {
            "" => "/".to_owned(),
            t if t.starts_with('?') => format!("/{t}"),
            t => t.to_owned(),
        };
        Some(Url { scheme, host: host.to_ascii_lowercase(), port, target })
    }

    /// `host:port` for a socket (the scheme's default port when none is given).
    pub fn authority(&self) -> String {
        let port = self.port.unwrap_or(if self.scheme == "https" { 443 } else { 80 });
        if self.host.contains(':') {
            format!("[{}]:{port}", self.host)
        } else {
            format!("{}:{port}", self.host)
        }
    }

    /// The value of a `Host` header for this URL.
    pub fn host_header(&self) -> String {
        let host = if self.host.contains(':') { format!("[{}]", self.host) } else { self.host.clone() };
        match self.port {
            Some(p) => format!("{host}:{p}"),
            None => host,
        }
    }
}

/// Whether `host` (lower-case, no brackets) names the loopback interface.
pub fn is_loopback(host: &str) -> bool {
    host == "localhost"
        || host.ends_with(".localhost")
        || host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// Whether `uri` may be registered as a redirect URI: `https`, or `http` on a loopback host;
/// absolute, no fragment.
pub fn redirect_uri_allowed(uri: &str) -> bool {
    uri.len() <= 2048 && Url::parse(uri).is_some_and(|u| u.scheme == "https" || is_loopback(&u.host))
}

/// Whether the redirect URI of a request matches a registered one: exactly, or, for a loopback
/// IP literal, with any port (RFC 8252 §7.3: native apps take an ephemeral port).
pub fn redirect_uri_matches(registered: &str, requested: &str) -> bool {
    if registered == requested {
        return true;
    }
    match (Url::parse(registered), Url::parse(requested)) {
        (Some(r), Some(q)) => {
            let ip_loopback = r.host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback());
            ip_loopback
                && r.scheme == "http"
                && r.scheme == q.scheme
                && r.host == q.host
                && r.target == q.target
        }
        _ => false,
    }
}

/// `url` with the parameters added to its query.
pub fn with_params(url: &str, params: &[(&str, &str)]) -> String {
    let mut out = url.to_owned();
    let mut sep = if url.contains('?') { '&' } else { '?' };
    for (name, value) in params {
        out.push(sep);
        out.push_str(&percent_encode(name));
        out.push('=');
        out.push_str(&percent_encode(value));
        sep = '&';
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_checks_redirects() {
        let u = Url::parse("http://127.0.0.1:8080/mcp?x=1").unwrap();
        assert_eq!((u.host.as_str(), u.port, u.target.as_str()), ("127.0.0.1", Some(8080), "/mcp?x=1"));
        assert_eq!(u.authority(), "127.0.0.1:8080");
        let v6 = Url::parse("http://[::1]:9/").unwrap();
        assert_eq!(
            (v6.host.as_str(), v6.authority(), v6.host_header()),
            ("::1", "[::1]:9".into(), "[::1]:9".into())
        );
        assert_eq!(Url::parse("HTTPS://Example.COM").unwrap().authority(), "example.com:443");
        for bad in ["ftp://x/", "http://", "http://u@h/", "http://h:99999/", "http://h/#f", "/relative"] {
            assert!(Url::parse(bad).is_none(), "{bad}");
        }
        assert!(redirect_uri_allowed("http://127.0.0.1:5/cb"));
        assert!(redirect_uri_allowed("http://localhost/cb"));
        assert!(redirect_uri_allowed("https://app.example/cb"));
        assert!(!redirect_uri_allowed("http://app.example/cb"));
        assert!(!redirect_uri_allowed("https://app.example/cb#x"));
        assert!(redirect_uri_matches("http://127.0.0.1:5/cb", "http://127.0.0.1:7/cb"));
        assert!(!redirect_uri_matches("http://127.0.0.1:5/cb", "http://127.0.0.1:7/other"));
        assert!(
            !redirect_uri_matches("http://localhost:5/cb", "http://localhost:7/cb"),
            "names match exactly"
        );
        assert!(!redirect_uri_matches("https://a.example/cb", "https://a.example/cb/"));
        assert_eq!(
            with_params("http://h/cb", &[("code", "a b"), ("state", "s")]),
            "http://h/cb?code=a%20b&state=s"
        );
        assert_eq!(
            with_params("http://h/cb?k=v", &[("iss", "http://x")]),
            "http://h/cb?k=v&iss=http%3A%2F%2Fx"
        );
    }
}
