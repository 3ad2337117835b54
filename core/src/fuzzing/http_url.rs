//! The `http_url` fuzz body: [`HttpUrl`] parsing and joining, the OAuth endpoint check and the
//! form codecs never panic, and what they accept keeps its invariants.

use crate::address_class::{classify, AddressClass};
use crate::destination::Destination;
use crate::http_url::{HttpUrl, MAX_URL_BYTES};
use crate::oauth::url::{check_endpoint, form_body, form_decode, parse_query};

/// Input: a base URL, then (after a `0xFF` byte, never in UTF-8 text) a reference to join.
pub fn http_url(data: &[u8]) {
    let mut parts = data.splitn(2, |&b| b == 0xFF);
    let base = String::from_utf8_lossy(parts.next().unwrap_or_default());
    let reference = String::from_utf8_lossy(parts.next().unwrap_or_default());
    for text in [&*base, &*reference] {
        if let Some(pairs) = parse_query(text) {
            let borrowed: Vec<(&str, &str)> = pairs.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
            assert_eq!(parse_query(&form_body(&borrowed)), Some(pairs), "form round trip");
        }
        let _ = form_decode(text);
        for server_loopback in [false, true] {
            if let Ok(url) = check_endpoint(text, Destination::Public { loopback: server_loopback }) {
                let class = url.ip().map_or(AddressClass::Public, classify);
                assert!(class.is_public() || class == AddressClass::Loopback, "{class} endpoint allowed");
                assert!(url.is_https() || server_loopback, "plain http endpoint for a remote server");
            }
        }
    }
    let Ok(url) = HttpUrl::parse(&base) else { return };
    check_invariants(&url);
    if let Some(joined) = url.join(&reference) {
        check_invariants(&joined);
        let same = url.join_same_origin(&reference);
        assert_eq!(same.is_some(), joined.origin() == url.origin());
    }
}

/// What every accepted URL satisfies: it is its own normal form, has a host, a request target
/// starting with `/`, no fragment, no credentials, and stays within the length cap.
fn check_invariants(url: &HttpUrl) {
    let text = url.as_str();
    assert!(text.len() <= MAX_URL_BYTES);
    let again = HttpUrl::parse(text).unwrap_or_else(|e| panic!("normalised URL refused: {e}"));
    assert_eq!(&again, url, "normalisation is idempotent");
    assert!(!url.host().is_empty());
    assert!(url.request_target().starts_with('/'));
    assert!(!text.contains('#'));
    assert!(!url.authority().contains('@'));
    assert_eq!(format!("{}{}", url.origin(), url.request_target()), text);
    assert!(url.port() != 0);
}
