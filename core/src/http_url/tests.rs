//! WHATWG normalisation as [`HttpUrl`] applies it, and our rules on top.

use core::net::IpAddr;

use super::*;

fn parsed(url: &str) -> HttpUrl {
    HttpUrl::parse(url).unwrap_or_else(|e| panic!("{url}: {e}"))
}

fn refused(url: &str) -> String {
    match HttpUrl::parse(url) {
        Err(TargetConfigError::InvalidUrl { detail }) => detail,
        other => panic!("{url}: expected InvalidUrl, got {other:?}"),
    }
}

fn ip(url: &str) -> IpAddr {
    parsed(url).ip().unwrap_or_else(|| panic!("{url}: not an IP host"))
}

#[test]
fn numeric_ipv4_forms_are_the_addresses_the_resolver_sees() {
    for (url, want) in [
        ("http://167772161/", "10.0.0.1"),
        ("http://0x7f.1/", "127.0.0.1"),
        ("http://010.0.0.1/", "8.0.0.1"),
        ("http://0x0a.0.0.1", "10.0.0.1"),
        ("http://127.1/", "127.0.0.1"),
        ("http://0x7F000001/", "127.0.0.1"),
        ("http://0177.0.0.1/", "127.0.0.1"),
        ("http://10.1/", "10.0.0.1"),
        ("http://192.168.257/", "192.168.1.1"),
        ("http://127.0.0.1./", "127.0.0.1"),
        ("http://0x7f.1./", "127.0.0.1"),
    ] {
        assert_eq!(ip(url), want.parse::<IpAddr>().unwrap(), "{url}");
        assert_eq!(parsed(url).host(), want, "{url}");
        assert_eq!(parsed(url).as_str(), format!("http://{want}/"), "{url}");
    }
    assert_eq!(refused("http://0x100000000/"), "invalid IPv4 address");
    assert_eq!(refused("http://1.2.3.256/"), "invalid IPv4 address");
}

#[test]
fn ipv6_forms_are_canonical() {
    for (url, host) in [
        ("http://[::ffff:10.0.0.1]/", "::ffff:a00:1"),
        ("http://[::ffff:a00:1]/", "::ffff:a00:1"),
        ("http://[FC00:0::1]/", "fc00::1"),
        ("http://[fe80::1]:9000/", "fe80::1"),
    ] {
        assert_eq!(parsed(url).host(), host, "{url}");
    }
    assert_eq!(ip("http://[::ffff:10.0.0.1]/"), "::ffff:10.0.0.1".parse::<IpAddr>().unwrap());
    assert_eq!(parsed("http://[::ffff:a00:1]:8080/x").authority(), "[::ffff:a00:1]:8080");
    assert_eq!(parsed("http://[::1]/").authority_with_port(), "[::1]:80");
}

#[test]
fn zone_ids_are_refused_with_a_clear_error() {
    for url in ["http://[fe80::1%25eth0]/", "http://[fe80::1%eth0]:8080/x"] {
        assert!(refused(url).contains("zone identifiers"), "{url}");
    }
}

#[test]
fn trailing_dots_and_names() {
    let u = parsed("http://localhost./mcp");
    assert_eq!((u.host(), u.ip()), ("localhost.", None));
    assert_eq!(parsed("http://Example.COM./").host(), "example.com.");
}

#[test]
fn international_names_become_punycode() {
    let u = parsed("https://bücher.example/pâth?q=é");
    assert_eq!(u.host(), "xn--bcher-kva.example");
    assert_eq!(u.as_str(), "https://xn--bcher-kva.example/p%C3%A2th?q=%C3%A9");
    assert_eq!(parsed("https://XN--BCHER-KVA.example/").host(), "xn--bcher-kva.example");
    assert_eq!(refused("https://xn--a.example/"), "invalid international domain name");
    // IDNA mapping happens before the host is judged: full-width forms are the ASCII ones.
    assert_eq!(parsed("http://ｌｏｃａｌｈｏｓｔ/").host(), "localhost");
    assert_eq!(ip("http://１２７.０.０.１/"), "127.0.0.1".parse::<IpAddr>().unwrap());
}

#[test]
fn userinfo_is_refused_in_any_form() {
    for url in ["http://u@h/", "http://:p@h/", "http://u:p@0x7f.1/", "http://a@b@h/", "http://h%40evil@h/"] {
        assert!(refused(url).contains("credentials"), "{url}");
    }
    assert_eq!(parsed("http://h/@x?y=@z").as_str(), "http://h/@x?y=@z");
}

#[test]
fn what_whatwg_would_repair_is_refused() {
    for url in [
        "http:host/mcp",
        "http:/host/mcp",
        "http:///host/mcp",
        "http://h/a\\b",
        "http://h/a b",
        "\thttp://h/",
        "http://h/\n",
        "http://h:0/",
        "http://h!x/",
        "http://h*/",
        "ws://h/",
    ] {
        HttpUrl::parse(url).expect_err(url);
    }
    assert!(refused(&format!("http://h/{}", "a".repeat(MAX_URL_BYTES))).contains("too long"));
    assert!(refused("http://::1/").contains("brackets"));
}

#[test]
fn join_removes_dot_segments() {
    let base = parsed("http://h/a/b/c?x#f");
    for (reference, want) in [
        ("d", "http://h/a/b/d"),
        ("./d", "http://h/a/b/d"),
        ("../d", "http://h/a/d"),
        ("../../../../d", "http://h/d"),
        ("/x/./y/../z", "http://h/x/z"),
        ("/%2e%2e/z", "http://h/z"),
        ("?q=1", "http://h/a/b/c?q=1"),
        ("//o:8080/p#frag", "http://o:8080/p"),
        ("https://0x7f.1/", "https://127.0.0.1/"),
        ("http:d", "http://h/a/b/d"),
    ] {
        assert_eq!(base.join(reference).map(|u| u.as_str().to_owned()).as_deref(), Some(want), "{reference}");
    }
    for reference in
        ["", "\\\\evil/x", "/a b", "//u@evil/", "ftp://h/", "javascript:alert(1)", "http://[fe80::1%25x]/"]
    {
        assert!(base.join(reference).is_none(), "{reference:?}");
    }
    assert_eq!(base.join_same_origin("../sse?s=1").as_deref(), Some("http://h/a/sse?s=1"));
    assert_eq!(base.join_same_origin("//h.evil/x"), None);
    assert_eq!(base.join_same_origin("https://h/x"), None);
}

proptest::proptest! {
    #[test]
    fn parse_and_join_never_panic_and_stay_normal(
        base in "(https?|HTTP|ftp)?:?/{0,3}[a-zA-Z0-9.%@:\\[\\]_-]{0,24}(/[a-zA-Z0-9.%?&=#-]{0,12}){0,3}",
        reference in "[a-zA-Z0-9./:%?#@\\[\\]-]{0,32}",
    ) {
        if let Ok(url) = HttpUrl::parse(&base) {
            proptest::prop_assert_eq!(HttpUrl::parse(url.as_str()), Ok(url.clone()));
            if let Some(joined) = url.join(&reference) {
                proptest::prop_assert_eq!(HttpUrl::parse(joined.as_str()), Ok(joined.clone()));
                proptest::prop_assert!(!joined.as_str().contains('#'));
            }
        }
    }
}
