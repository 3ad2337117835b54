//! The `oauth_flow` fuzz body: an [`AuthFlow`] fed hostile answers (metadata, registration,
//! token responses, callbacks) never panics or loops, never contacts a URL the safety rules
//! forbid, and never hands its token to another origin.

use std::time::{Duration, Instant};

use crate::oauth::{
    AuthConfig, AuthFlow, AuthStep, DpopPolicy, IdentityProvider, PreRegisteredClient, Secret,
};

const SERVER: &str = "https://mcp.example.com/mcp";

/// A P-256 key made for the fuzz body only (`private_key_jwt`); it protects nothing.
const FUZZ_KEY: &str = "-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgw32wxvbPiYkuN8LA
OjrM8nPE4PK+1iw5vAFVEpjxBUShRANCAATLbGc8jtpDNnDmrF6OD4wWhm/4UghF
eUzuQVwk10kf4pDqNhXXZK62zjIOMlNDbs+Dz9sgxUN+7k9xRnIAH3cy
-----END PRIVATE KEY-----";

/// Input: segments separated by `0xFF` (never in UTF-8 text). The first is `[flags, WWW-Authenticate...]`; each
/// later one answers the next step: for a fetch `[status selector, body...]`, for an
/// authorization `[mode, query...]` (an even mode prefixes the real `state`, so the checks
/// after it are reached).
pub fn oauth_flow(t0: Instant, data: &[u8]) {
    let mut segments = data.split(|&b| b == 0xFF);
    let Some(first) = segments.next() else { return };
    let (flags, www) = first.split_first().map_or((0, &[][..]), |(f, rest)| (*f, rest));
    // Bits 0, 5 and 6 pick the grant; bit 4 forces DPoP; bit 7 anchors the wall clock.
    let mut config = match (flags & 1, (flags >> 5) & 3) {
        (0, 0) => AuthConfig::authorization_code("http://127.0.0.1:8765/callback"),
        (_, 0) => AuthConfig::client_credentials(PreRegisteredClient::for_issuer(
            "https://as.example",
            "cc",
            Some("secret"),
        )),
        (0, 1) => AuthConfig::client_credentials(
            PreRegisteredClient::for_issuer("https://as.example", "pk", None).with_private_key(FUZZ_KEY),
        ),
        (_, 1) => AuthConfig::jwt_bearer(
            PreRegisteredClient::for_issuer("https://as.example", "wl", None),
            "wl.jwt.x",
        ),
        _ => AuthConfig::enterprise_managed(
            PreRegisteredClient::for_issuer("https://as.example", "xaa", Some("s")),
            IdentityProvider::new("https://idp.example", "https://idp.example/token", "idp", "id.tok.en"),
        ),
    };
    if flags & 16 != 0 {
        config.dpop = DpopPolicy::Always;
    }
    if flags & 2 != 0 {
        config.client_metadata_url = Some("https://app.example/client.json".into());
    }
    if flags & 4 != 0 && config.pre_registered.is_empty() {
        config.pre_registered.push(PreRegisteredClient::for_issuer(
            "https://as.example",
            "pre",
            Some("pre-secret"),
        ));
    }
    let mut flow = AuthFlow::new(SERVER, config, &[9; 32]).expect("valid config");
    if flags & 128 != 0 {
        flow.set_wall_clock(t0, 1_700_000_000);
    }
    let www = String::from_utf8_lossy(www);
    let status = if flags & 8 == 0 { 401 } else { 403 };
    flow.on_challenge(t0, status, Some(&www));
    let mut now = t0;
    let mut steps = 0;
    let mut rounds = 0;
    loop {
        steps += 1;
        assert!(steps < 500, "the flow does not settle");
        let Some(step) = flow.poll() else {
            // Idle: a further challenge or a refresh, while input lasts.
            match segments.next() {
                Some([b, ..]) if rounds < 4 => {
                    rounds += 1;
                    if b % 8 == 4 {
                        // A fresh assertion, then the MCP server asks for a new DPoP nonce.
                        flow.set_assertion(Secret::new("wl.jwt.y"));
                        flow.set_resource_nonce("fuzz-nonce");
                        flow.on_challenge(now, 401, Some(r#"DPoP error="use_dpop_nonce""#));
                    } else if b % 2 == 0 {
                        flow.refresh(now);
                    } else {
                        flow.on_challenge(now, 401 + u16::from(b % 4 == 3) * 2, Some(&www));
                    }
                    continue;
                }
                _ => return,
            }
        };
        now += Duration::from_secs(1);
        match step {
            AuthStep::Fetch { id, request } => {
                let url = crate::http_url::HttpUrl::parse(&request.url).expect("fetch URLs are valid");
                assert!(url.is_https(), "plain http fetched for a remote server: {}", request.url);
                let class = url.ip().map(crate::address_class::classify);
                assert!(class.is_none_or(|c| c.is_public()), "{class:?} address fetched: {}", request.url);
                let Some(seg) = segments.next() else { return };
                let (sel, body) = seg.split_first().map_or((0, &[][..]), |(s, b)| (*s, b));
                match sel % 8 {
                    7 => flow.on_fetch_failed(now, id, "refused"),
                    6 => {
                        // An authorization server asking for a DPoP nonce (when the body says so).
                        let headers = [("DPoP-Nonce".to_owned(), "fuzz-as-nonce".to_owned())];
                        flow.on_response(now, id, 400, &headers, body);
                    }
                    s => {
                        let status = [200, 201, 400, 401, 404, 500][usize::from(s)];
                        flow.on_response(now, id, status, &[], body);
                    }
                }
            }
            AuthStep::Authorize { url } => {
                assert!(url.starts_with("https://"), "authorization URL not https: {url}");
                assert!(url.contains("code_challenge_method=S256"));
                let Some(seg) = segments.next() else { return };
                let (mode, rest) = seg.split_first().map_or((1, &[][..]), |(m, r)| (*m, r));
                let rest = String::from_utf8_lossy(rest);
                let query = if mode % 2 == 0 {
                    let state = url.split("&state=").nth(1).and_then(|s| s.split('&').next()).unwrap_or("");
                    format!("state={state}&{rest}")
                } else {
                    rest.into_owned()
                };
                flow.on_callback(now, &query);
            }
            AuthStep::Done(tokens) => {
                assert!(!tokens.access_token.expose().is_empty());
                assert!(flow.authorization_header(SERVER).is_some());
                assert!(flow.authorization_header("https://evil.example/").is_none());
                let headers = flow.request_headers(now, "POST", SERVER);
                assert!(headers.iter().any(|(n, _)| n == "authorization"));
                assert!(flow.request_headers(now, "POST", "https://evil.example/").is_empty());
                // Seeds mark their tokens; a marked token must never print.
                let token = tokens.access_token.expose();
                if token.starts_with("SECRET-") {
                    assert!(!format!("{tokens:?}{flow:?}").contains(token), "token printed");
                }
                // The stored record round-trips.
                let stored = flow.stored(now, 1_000);
                let text = serde_json::to_string(&stored).expect("serialisable");
                let back = serde_json::from_str(&text).expect("deserialisable");
                assert_eq!(stored, back);
            }
            AuthStep::AuthServerChanged { issuer, .. } => {
                let stored = flow.stored(now, 1_000);
                assert!(stored.tokens.iter().all(|t| t.issuer == issuer), "another issuer's token in use");
            }
            AuthStep::Notice(_) | AuthStep::Failed(_) => {}
        }
    }
}
