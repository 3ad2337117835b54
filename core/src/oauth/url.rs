//! URL rules of the authorization flow: which hosts may be contacted, the well-known URLs to
//! try in spec order, the canonical resource identifier, and `application/x-www-form-urlencoded`
//! encoding and decoding.

use core::net::IpAddr;

use percent_encoding::{percent_decode, utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};
use url::Host;

use crate::address_class::{classify, AddressClass};
use crate::destination::Destination;
use crate::http_url::HttpUrl;
use crate::oauth::error::OAuthError;
use crate::redact::redact_url;

/// Longest URL accepted from a metadata document or a configuration.
pub(crate) const MAX_URL_LEN: usize = 2048;

/// `s` cut to at most `max` characters (for error messages and codes from the network).
pub(crate) fn clip(s: &str, max: usize) -> String {
    s.chars().take(max).collect()
}

fn unsafe_url(url: &str, reason: &str) -> OAuthError {
    OAuthError::UnsafeUrl { url: clip(&redact_url(url), 200), reason: reason.into() }
}

/// Whether a URL's host names the loopback interface: `localhost`, `*.localhost` (a trailing
/// dot allowed), or an address in `127.0.0.0/8` or `::1` in any form the WHATWG parser
/// normalises (`127.1`, `0x7f.0.0.1`, `2130706433`, `[::ffff:127.0.0.1]`).
pub(crate) fn is_loopback(url: &HttpUrl) -> bool {
    match url.parsed_host() {
        Host::Domain(name) => {
            let name = name.strip_suffix('.').unwrap_or(name);
            name == "localhost" || name.ends_with(".localhost")
        }
        Host::Ipv4(v4) => classify(IpAddr::V4(v4)) == AddressClass::Loopback,
        Host::Ipv6(v6) => classify(IpAddr::V6(v6)) == AddressClass::Loopback,
    }
}

/// Checks a URL the flow is about to contact (a discovery URL or an endpoint from metadata):
/// `https`, or plain `http` on loopback only; for [`Destination::Public`], never a literal
/// address that is not public ([`classify`]: private, shared NAT, link-local, unspecified,
/// multicast, reserved), judged after WHATWG normalisation, so `http://0x0a.1/` is `10.0.0.1`;
/// loopback only when the rule allows it (the MCP server itself is on loopback). A host name is
/// judged again on the addresses it resolves to, by the runtime, under the same rule (the
/// request's `destination`).
pub(crate) fn check_endpoint(url: &str, destination: Destination) -> Result<HttpUrl, OAuthError> {
    if url.len() > MAX_URL_LEN {
        return Err(unsafe_url(url, "URL too long"));
    }
    let parsed = HttpUrl::parse(url).map_err(|e| unsafe_url(url, &e.to_string()))?;
    let loopback = is_loopback(&parsed);
    let class = match parsed.ip() {
        Some(ip) => classify(ip),
        None if loopback => AddressClass::Loopback,
        None => AddressClass::Public,
    };
    if !destination.permits(class) {
        return Err(match class {
            AddressClass::Loopback => unsafe_url(url, "loopback address for a remote MCP server"),
            other => unsafe_url(url, &format!("{other} address")),
        });
    }
    if !parsed.is_https() && !loopback {
        return Err(unsafe_url(url, "authorization URLs must use https"));
    }
    Ok(parsed)
}

/// Checks a redirect URI: `https`, or `http` on a loopback host (RFC 8252 §7.3).
pub(crate) fn check_redirect_uri(uri: &str) -> Result<HttpUrl, OAuthError> {
    let bad = |why: &str| OAuthError::InvalidConfig(format!("redirect URI {}: {why}", clip(uri, 200)));
    if uri.len() > MAX_URL_LEN {
        return Err(bad("too long"));
    }
    let parsed = HttpUrl::parse(uri).map_err(|e| bad(&e.to_string()))?;
    if !parsed.is_https() && !is_loopback(&parsed) {
        return Err(bad("must be https or loopback http"));
    }
    Ok(parsed)
}

/// The path of a URL without its trailing slashes (`""` for the root).
fn trimmed_path(url: &HttpUrl) -> String {
    url.path().trim_end_matches('/').to_owned()
}

/// The canonical resource identifier of an MCP server URL (RFC 8707, MCP "Canonical Server
/// URI"): lowercase scheme and host, no default port, no fragment, and no trailing slash when
/// the path is the root.
pub(crate) fn canonical_resource(url: &HttpUrl) -> String {
    let target = url.request_target();
    if target == "/" {
        url.origin()
    } else {
        format!("{}{target}", url.origin())
    }
}

/// Protected Resource Metadata URLs in spec order: path-inserted (when the server URL has a
/// path), then the root.
pub(crate) fn prm_candidates(server: &HttpUrl) -> Vec<String> {
    let origin = server.origin();
    let path = trimmed_path(server);
    let mut out = Vec::new();
    if !path.is_empty() {
        out.push(format!("{origin}/.well-known/oauth-protected-resource{path}"));
    }
    out.push(format!("{origin}/.well-known/oauth-protected-resource"));
    out
}

/// Authorization server metadata URLs in spec order for an issuer: with a path, OAuth
/// path-inserted, OIDC path-inserted, OIDC path-appended; without one, OAuth then OIDC.
pub(crate) fn as_metadata_candidates(issuer: &HttpUrl) -> Vec<String> {
    let origin = issuer.origin();
    let path = trimmed_path(issuer);
    if path.is_empty() {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server"),
            format!("{origin}/.well-known/openid-configuration"),
        ]
    } else {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server{path}"),
            format!("{origin}/.well-known/openid-configuration{path}"),
            format!("{origin}{path}/.well-known/openid-configuration"),
        ]
    }
}

/// Whether the Protected Resource Metadata `resource` names this server: the same origin, and
/// its path equal to the server's or a parent of it on a segment boundary (a root document
/// describes the whole origin). Comparison is after URL normalisation (case of scheme and
/// host, default port).
pub(crate) fn resource_covers(resource: &str, server: &HttpUrl) -> bool {
    let Ok(res) = HttpUrl::parse(resource) else { return false };
    if res.origin() != server.origin() || res.query().is_some() {
        return false;
    }
    let (rp, sp) = (trimmed_path(&res), trimmed_path(server));
    rp.is_empty() || sp == rp || sp.starts_with(&format!("{rp}/"))
}

/// Whether a metadata document's `issuer` is the issuer its well-known URL was built from:
/// identical, or differing only by a trailing `/` (both build the same well-known URLs).
pub(crate) fn issuer_matches(expected: &str, found: &str) -> bool {
    expected == found || expected.trim_end_matches('/') == found.trim_end_matches('/')
}

/// Bytes kept as they are in a form component: the RFC 3986 unreserved characters.
const FORM_COMPONENT: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');

/// Percent-encodes for `application/x-www-form-urlencoded` (unreserved characters kept, space
/// as `%20`, which every decoder accepts).
pub(crate) fn form_encode(s: &str) -> String {
    utf8_percent_encode(s, FORM_COMPONENT).to_string()
}

/// Encodes name/value pairs as a form body or query.
pub(crate) fn form_body(pairs: &[(&str, &str)]) -> String {
    pairs.iter().map(|(n, v)| format!("{}={}", form_encode(n), form_encode(v))).collect::<Vec<_>>().join("&")
}

/// Decodes one `application/x-www-form-urlencoded` component as the WHATWG form parser does:
/// `+` is a space, then `%XX` escapes are decoded. A `%` not followed by two hex digits is kept
/// as a literal `%` (so `%zz` stays `%zz` and `%+1` is `% 1`). `None` when the decoded bytes
/// are not UTF-8 (WHATWG would replace them; a code or state must not be altered).
pub(crate) fn form_decode(s: &str) -> Option<String> {
    let spaced = s.replace('+', " ");
    percent_decode(spaced.as_bytes()).decode_utf8().ok().map(|c| c.into_owned())
}

/// Splits a query string into decoded pairs (empty sequences between `&`s skipped, a pair
/// without `=` has an empty value), refusing a name or value that is not UTF-8 once decoded.
pub(crate) fn parse_query(query: &str) -> Option<Vec<(String, String)>> {
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (n, v) = p.split_once('=').unwrap_or((p, ""));
            Some((form_decode(n)?, form_decode(v)?))
        })
        .collect()
}

/// `base` with the pairs appended to its query. Parameters of `base`'s own query that share a
/// name with one of the pairs are dropped, so each parameter appears once (RFC 6749 §3.1).
pub(crate) fn with_query(base: &HttpUrl, pairs: &[(&str, &str)]) -> String {
    let mut parts: Vec<&str> = base
        .query()
        .unwrap_or("")
        .split('&')
        .filter(|p| !p.is_empty())
        .filter(|p| {
            let name = form_decode(p.split('=').next().unwrap_or("")).unwrap_or_default();
            !pairs.iter().any(|(n, _)| *n == name)
        })
        .collect();
    let added = form_body(pairs);
    parts.push(&added);
    base.with_raw_query(Some(&parts.join("&"))).as_str().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(s: &str) -> HttpUrl {
        HttpUrl::parse(s).unwrap()
    }

    const REMOTE: Destination = Destination::Public { loopback: false };
    const LOCAL: Destination = Destination::Public { loopback: true };

    #[test]
    fn endpoint_rules() {
        assert!(check_endpoint("https://as.example/token", REMOTE).is_ok());
        assert!(check_endpoint("http://as.example/token", REMOTE).is_err());
        assert!(check_endpoint("http://localhost:3000/token", REMOTE).is_err());
        assert!(check_endpoint("http://localhost:3000/token", LOCAL).is_ok());
        assert!(check_endpoint("http://127.0.0.1:3000/token", LOCAL).is_ok());
        assert!(check_endpoint("http://[::1]:3000/token", LOCAL).is_ok());
        for bad in [
            "https://10.0.0.1/x",
            "https://192.168.1.1/x",
            "https://172.16.0.1/x",
            "https://169.254.169.254/latest",
            "https://[fe80::1]/x",
            "https://[fd00::1]/x",
            "https://0.0.0.0/x",
            "https://[::ffff:10.0.0.1]/x",
            "https://100.64.0.1/x",
        ] {
            assert!(check_endpoint(bad, LOCAL).is_err(), "{bad}");
        }
        assert!(check_endpoint("http://192.168.1.1/x", LOCAL).is_err(), "private http never allowed");
        // Every numeric form is judged as the address it normalises to.
        for bad in [
            "https://167772161/x",
            "https://0x0a.0.0.1/x",
            "https://0xa.1/x",
            "https://012.0.0.1/x",
            "https://0xa9.254.169.254/latest",
            "https://2852039166/latest",
            "https://192.168.257/x",
            "https://10.0.0.1./x",
            "https://[::ffff:a00:1]/x",
            "https://[::ffff:169.254.169.254]/x",
            "https://[fc00::1]/x",
            "https://[::10.0.0.1]/x",
            "https://[64:ff9b::a00:1]/x",
            "https://0/x",
            "https://[::]/x",
            "https://224.0.0.1/x",
            "https://198.51.100.1/x",
        ] {
            let err = check_endpoint(bad, LOCAL).expect_err(bad);
            assert!(matches!(err, OAuthError::UnsafeUrl { .. }), "{bad}: {err}");
        }
        let err = check_endpoint("https://0xa9.254.169.254/latest", REMOTE).unwrap_err();
        assert!(err.to_string().contains("link-local"), "{err}");
        // Loopback in any form is loopback: refused for a remote server, allowed for a local one.
        for local in [
            "http://0x7f.1/t",
            "http://127.1/t",
            "http://2130706433/t",
            "http://localhost./t",
            "http://[::ffff:7f00:1]/t",
            "http://ｌｏｃａｌｈｏｓｔ/t",
        ] {
            assert!(check_endpoint(local, REMOTE).is_err(), "{local}");
            assert!(check_endpoint(local, LOCAL).is_ok(), "{local}");
        }
        // `010.0.0.1` is octal: 8.0.0.1, a public address.
        assert_eq!(check_endpoint("https://010.0.0.1/x", REMOTE).unwrap().host(), "8.0.0.1");
        assert!(check_endpoint("https://[fe80::1%25eth0]/x", LOCAL)
            .unwrap_err()
            .to_string()
            .contains("zone"));
        assert_eq!(
            check_endpoint("https://bücher.example/t", REMOTE).unwrap().host(),
            "xn--bcher-kva.example"
        );
        assert!(check_endpoint("https://u:p@as.example/t", REMOTE).is_err());
        assert!(check_endpoint("ftp://as.example/", REMOTE).is_err());
        assert!(check_endpoint(&format!("https://as.example/{}", "a".repeat(3000)), REMOTE).is_err());
    }

    /// The opt-out for private networks: literal private, link-local and loopback addresses
    /// pass; plain `http` is still refused off loopback.
    #[test]
    fn any_destination_skips_the_address_rules_only() {
        for ok in
            ["https://10.0.0.1/x", "https://169.254.169.254/x", "https://[fd00::1]/x", "http://127.0.0.1:1/x"]
        {
            assert!(check_endpoint(ok, Destination::Any).is_ok(), "{ok}");
        }
        assert!(check_endpoint("http://10.0.0.1/x", Destination::Any).is_err());
    }

    #[test]
    fn redirect_rules() {
        assert!(check_redirect_uri("http://127.0.0.1:8765/callback").is_ok());
        assert!(check_redirect_uri("http://localhost/cb").is_ok());
        assert!(check_redirect_uri("https://app.example/cb").is_ok());
        assert!(check_redirect_uri("http://app.example/cb").is_err());
        assert!(check_redirect_uri("javascript:alert(1)").is_err());
        assert!(check_redirect_uri("http://0x7f.1:8765/cb").is_ok());
        assert!(check_redirect_uri("http://localhost.:8765/cb").is_ok());
        assert!(check_redirect_uri("http://localhost.evil.example/cb").is_err());
    }

    #[test]
    fn canonical_forms() {
        assert_eq!(canonical_resource(&u("HTTPS://MCP.Example.com:443/")), "https://mcp.example.com");
        assert_eq!(canonical_resource(&u("https://mcp.example.com/mcp#x")), "https://mcp.example.com/mcp");
        assert_eq!(canonical_resource(&u("http://localhost:8080/mcp")), "http://localhost:8080/mcp");
    }

    #[test]
    fn well_known_orders() {
        assert_eq!(
            prm_candidates(&u("https://ex.com/public/mcp/")),
            [
                "https://ex.com/.well-known/oauth-protected-resource/public/mcp",
                "https://ex.com/.well-known/oauth-protected-resource"
            ]
        );
        assert_eq!(
            prm_candidates(&u("https://ex.com")),
            ["https://ex.com/.well-known/oauth-protected-resource"]
        );
        assert_eq!(
            as_metadata_candidates(&u("https://auth.ex.com/tenant1")),
            [
                "https://auth.ex.com/.well-known/oauth-authorization-server/tenant1",
                "https://auth.ex.com/.well-known/openid-configuration/tenant1",
                "https://auth.ex.com/tenant1/.well-known/openid-configuration"
            ]
        );
        assert_eq!(
            as_metadata_candidates(&u("https://auth.ex.com/")),
            [
                "https://auth.ex.com/.well-known/oauth-authorization-server",
                "https://auth.ex.com/.well-known/openid-configuration"
            ]
        );
    }

    #[test]
    fn resource_coverage() {
        let s = u("https://ex.com/api/mcp");
        assert!(resource_covers("https://ex.com/api/mcp", &s));
        assert!(resource_covers("https://EX.com:443/api/mcp/", &s));
        assert!(resource_covers("https://ex.com", &s));
        assert!(resource_covers("https://ex.com/api", &s));
        assert!(!resource_covers("https://ex.com/ap", &s));
        assert!(!resource_covers("https://ex.com/api/mcp/other", &s));
        assert!(!resource_covers("https://evil.example.com/api/mcp", &s));
        assert!(!resource_covers("http://ex.com/api/mcp", &s));
        assert!(!resource_covers("not a url", &s));
    }

    #[test]
    fn issuer_comparison() {
        assert!(issuer_matches("https://as.ex", "https://as.ex"));
        assert!(issuer_matches("https://as.ex", "https://as.ex/"));
        assert!(!issuer_matches("https://as.ex", "https://attacker.example.com"));
        assert!(!issuer_matches("https://as.ex/t1", "https://as.ex/t2"));
    }

    #[test]
    fn form_round_trip() {
        let body = form_body(&[("redirect_uri", "http://localhost:1/cb?a=b c"), ("x", "é")]);
        assert_eq!(body, "redirect_uri=http%3A%2F%2Flocalhost%3A1%2Fcb%3Fa%3Db%20c&x=%C3%A9");
        let pairs = parse_query(&body).unwrap();
        assert_eq!(pairs[0].1, "http://localhost:1/cb?a=b c");
        assert_eq!(pairs[1].1, "é");
        assert_eq!(form_decode("a+b%2B").unwrap(), "a b+");
        assert_eq!(form_encode("a b~*+/é"), "a%20b~%2A%2B%2F%C3%A9");
    }

    #[test]
    fn malformed_escapes_stay_literal_and_non_utf8_is_refused() {
        // WHATWG form decoding: a `%` without two hex digits is a literal `%` (a sign is not
        // a hex digit: `%+1` is never byte 0x01); `+` is a space before escapes are decoded.
        assert_eq!(form_decode("%+1").as_deref(), Some("% 1"));
        assert_eq!(form_decode("%-1").as_deref(), Some("%-1"));
        assert_eq!(form_decode("%zz").as_deref(), Some("%zz"));
        assert_eq!(form_decode("%4").as_deref(), Some("%4"));
        assert_eq!(form_decode("%").as_deref(), Some("%"));
        assert_eq!(form_decode("+").as_deref(), Some(" "));
        assert_eq!(form_decode("%2b").as_deref(), Some("+"));
        assert_eq!(form_decode("%C3%A9").as_deref(), Some("é"));
        assert!(form_decode("%ff").is_none());
        assert!(form_decode("%C3").is_none());
        assert!(parse_query("code=ok&state=%80").is_none());
        assert_eq!(
            parse_query("&a=1&&b&=c&d=%zz").unwrap(),
            [("a", "1"), ("b", ""), ("", "c"), ("d", "%zz")].map(|(n, v)| (n.to_owned(), v.to_owned()))
        );
    }

    #[test]
    fn query_params_appear_once() {
        let base = u("https://as.ex/authorize?tenant=a&scope=openid");
        let url = with_query(&base, &[("scope", "mcp"), ("state", "s")]);
        assert_eq!(url, "https://as.ex/authorize?tenant=a&scope=mcp&state=s");
    }
}
