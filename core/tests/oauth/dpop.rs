//! DPoP (RFC 9449): proofs on token requests when the authorization server offers DPoP, the
//! authorization server's nonce, DPoP-bound tokens presented with a fresh proof per request,
//! the MCP server's nonce, and storage of the key with the tokens.

use std::time::{Duration, Instant};

use mcpwire_core::oauth::{AuthFlow, AuthStep, DpopPolicy, OAuthError, TokenType};
use serde_json::{json, Value};

use crate::harness::*;
use crate::jws::{ath, thumbprint, verify_dpop};

const TOKEN: &str = "https://auth.example.com/token";
const UNIX: u64 = 1_700_000_000;

fn dpop_token(access: &str) -> String {
    token(access, json!({"token_type": "DPoP"}))
}

fn dpop_server(fake: &mut Fake) {
    fake.standard(json!({"dpop_signing_alg_values_supported": ["ES256"]}));
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
}

/// A flow authorized with a DPoP-bound token `at-dpop`, its wall clock anchored at `now`.
fn bound(fake: &mut Fake, now: Instant) -> AuthFlow {
    fake.on(TOKEN, 200, dpop_token("at-dpop"));
    dpop_server(fake);
    let mut f = flow(code_config());
    f.set_wall_clock(now, UNIX);
    f.on_challenge(now, 401, Some(CHALLENGE));
    fake.drive(&mut f, now).unwrap();
    f
}

#[test]
fn token_request_carries_a_proof_and_the_token_is_bound() {
    let now = t0();
    let mut fake = Fake::new();
    let mut f = bound(&mut fake, now);
    let t = f.tokens().unwrap().clone();
    assert_eq!(t.token_type, TokenType::Dpop);

    let proof = fake.header_of(TOKEN, "dpop").expect("a DPoP proof on the token request");
    let (h, c) = verify_dpop(&proof);
    assert_eq!((c["htm"].as_str(), c["htu"].as_str()), (Some("POST"), Some(TOKEN)));
    assert_eq!(c["iat"], UNIX);
    assert!(c["jti"].as_str().is_some_and(|j| j.len() >= 16));
    assert!(c.get("ath").is_none() && c.get("nonce").is_none());
    assert_eq!(f.dpop_thumbprint(), Some(thumbprint(&h["jwk"])));

    // Each MCP request: `DPoP <token>` and a fresh proof for its method and URL (no query).
    let later = now + Duration::from_secs(42);
    let hs = f.request_headers(later, "post", &format!("{MCP}?session=1#frag"));
    assert_eq!(header(&hs, "authorization"), Some("DPoP at-dpop"));
    let (h2, c2) = verify_dpop(header(&hs, "dpop").unwrap());
    assert_eq!(thumbprint(&h2["jwk"]), thumbprint(&h["jwk"]), "the key the token is bound to");
    assert_eq!((c2["htm"].as_str(), c2["htu"].as_str()), (Some("POST"), Some(MCP)));
    assert_eq!(c2["ath"].as_str(), Some(ath("at-dpop").as_str()));
    assert_eq!(c2["iat"], UNIX + 42);
    let hs2 = f.request_headers(later, "GET", MCP);
    let (_, c3) = verify_dpop(header(&hs2, "dpop").unwrap());
    assert_eq!(c3["htm"], "GET");
    assert_ne!(c3["jti"], c2["jti"], "never the same proof twice");
    assert!(f.request_headers(later, "POST", "https://evil.example/mcp").is_empty());
}

#[test]
fn the_authorization_server_nonce_is_retried_once() {
    let now = t0();
    let mut fake = Fake::new();
    let nonce_please = r#"{"error":"use_dpop_nonce","error_description":"nonce required"}"#;
    fake.on_with(TOKEN, 400, nonce_please, &[("DPoP-Nonce", "as-nonce-1")]).on(
        TOKEN,
        200,
        dpop_token("at-n"),
    );
    dpop_server(&mut fake);
    let mut f = flow(code_config());
    f.set_wall_clock(now, UNIX);
    f.on_challenge(now, 401, Some(CHALLENGE));
    assert_eq!(fake.drive(&mut f, now).unwrap().access_token.expose(), "at-n");
    let token_requests: Vec<_> = fake.requests.iter().filter(|r| r.url == TOKEN).collect();
    assert_eq!(token_requests.len(), 2);
    let proof = |i: usize| {
        let v = token_requests[i].headers.iter().find(|(n, _)| n == "DPoP").unwrap().1.clone();
        verify_dpop(&v).1
    };
    assert!(proof(0).get("nonce").is_none());
    assert_eq!(proof(1)["nonce"], "as-nonce-1");
    assert_ne!(proof(0)["jti"], proof(1)["jti"]);
    assert_eq!(token_requests[0].body, token_requests[1].body, "the same grant, sent again");

    // A server that keeps asking gets one retry, then the error.
    let mut fake = Fake::new();
    fake.on_with(TOKEN, 400, nonce_please, &[("DPoP-Nonce", "n")]).on_with(
        TOKEN,
        400,
        nonce_please,
        &[("DPoP-Nonce", "n2")],
    );
    dpop_server(&mut fake);
    let mut f = flow(code_config());
    f.set_wall_clock(now, UNIX);
    f.on_challenge(now, 401, Some(CHALLENGE));
    assert!(matches!(fake.drive(&mut f, now), Err(OAuthError::TokenRejected { status: 400, .. })));
    assert_eq!(fake.urls().iter().filter(|u| **u == TOKEN).count(), 2);
}

#[test]
fn the_mcp_server_nonce_means_retry_with_a_new_proof() {
    let now = t0();
    let mut fake = Fake::new();
    let mut f = bound(&mut fake, now);
    let fetched = fake.requests.len();
    let challenge = r#"DPoP error="use_dpop_nonce", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp""#;
    f.set_resource_nonce("rs-nonce-1");
    f.on_challenge(now, 401, Some(challenge));
    match f.poll() {
        Some(AuthStep::Done(t)) => assert_eq!(t.access_token.expose(), "at-dpop"),
        other => panic!("expected the held tokens, got {other:?}"),
    }
    assert_eq!(f.poll(), None);
    assert_eq!(fake.requests.len(), fetched, "no authorization round");
    let hs = f.request_headers(now, "POST", MCP);
    assert_eq!(verify_dpop(header(&hs, "dpop").unwrap()).1["nonce"], "rs-nonce-1");
    // A second nonce challenge in a row is an error; after a success one is allowed again.
    f.on_challenge(now, 401, Some(challenge));
    assert!(matches!(f.poll(), Some(AuthStep::Failed(OAuthError::DpopNonceRejected))));
    f.on_request_succeeded();
    f.set_resource_nonce("rs-nonce-2");
    f.on_challenge(now, 401, Some(challenge));
    assert!(matches!(f.poll(), Some(AuthStep::Done(_))));
    let hs = f.request_headers(now, "POST", MCP);
    assert_eq!(verify_dpop(header(&hs, "dpop").unwrap()).1["nonce"], "rs-nonce-2");
}

#[test]
fn token_types_match_what_was_asked() {
    let now = t0();
    // No DPoP offered: a DPoP token type is refused (no proof was sent).
    let mut fake = Fake::new();
    fake.on(TOKEN, 200, dpop_token("x"));
    fake.standard(json!({}));
    let mut f = flow(code_config());
    f.set_wall_clock(now, UNIX);
    f.on_challenge(now, 401, Some(CHALLENGE));
    assert!(matches!(fake.drive(&mut f, now), Err(OAuthError::UnsupportedTokenType(_))));
    assert!(fake.header_of(TOKEN, "dpop").is_none());

    // DPoP offered but the server issues a Bearer token: accepted, presented as Bearer.
    let mut fake = Fake::new();
    dpop_server(&mut fake);
    let mut f = flow(code_config());
    f.set_wall_clock(now, UNIX);
    f.on_challenge(now, 401, Some(CHALLENGE));
    assert_eq!(fake.drive(&mut f, now).unwrap().token_type, TokenType::Bearer);
    assert!(fake.header_of(TOKEN, "dpop").is_some());
    let hs = f.request_headers(now, "POST", MCP);
    assert_eq!(hs, vec![("authorization".to_owned(), "Bearer at-1".to_owned())]);

    // DPoP turned off: no proof even when offered. Forced on: a proof without the offer.
    for (policy, advertised, proof) in
        [(DpopPolicy::Never, true, false), (DpopPolicy::Always, false, true), (DpopPolicy::Auto, true, true)]
    {
        let mut fake = Fake::new();
        let extra =
            if advertised { json!({"dpop_signing_alg_values_supported": ["ES256"]}) } else { json!({}) };
        fake.standard(extra);
        let mut cfg = code_config();
        cfg.dpop = policy;
        let mut f = flow(cfg);
        f.set_wall_clock(now, UNIX);
        f.on_challenge(now, 401, Some(CHALLENGE));
        fake.drive(&mut f, now).unwrap();
        assert_eq!(fake.header_of(TOKEN, "dpop").is_some(), proof, "{policy:?}");
    }

    // Only ES256 is signed with: a server offering other algorithms gets no proof.
    let mut fake = Fake::new();
    fake.standard(json!({"dpop_signing_alg_values_supported": ["RS256"]}));
    let mut f = flow(code_config());
    f.on_challenge(now, 401, Some(CHALLENGE));
    fake.drive(&mut f, now).unwrap();
    assert!(fake.header_of(TOKEN, "dpop").is_none());
}

#[test]
fn dpop_needs_the_wall_clock() {
    let now = t0();
    let mut fake = Fake::new();
    dpop_server(&mut fake);
    let mut f = flow(code_config());
    f.on_challenge(now, 401, Some(CHALLENGE));
    assert!(matches!(fake.drive(&mut f, now), Err(OAuthError::NoWallClock)));
    assert!(!fake.urls().contains(&TOKEN));
}

#[test]
fn refresh_and_storage_keep_the_key() {
    let now = t0();
    let mut fake = Fake::new();
    fake.on(TOKEN, 200, token("at-1", json!({"token_type": "DPoP", "refresh_token": "rt-1"}))).on(
        TOKEN,
        200,
        dpop_token("at-2"),
    );
    dpop_server(&mut fake);
    let mut f = flow(code_config());
    f.set_wall_clock(now, UNIX);
    f.on_challenge(now, 401, Some(CHALLENGE));
    fake.drive(&mut f, now).unwrap();
    let jkt = f.dpop_thumbprint().unwrap();
    f.refresh(now);
    assert_eq!(fake.drive(&mut f, now).unwrap().access_token.expose(), "at-2");
    let (h, c) = verify_dpop(&fake.header_of(TOKEN, "dpop").unwrap());
    assert_eq!(thumbprint(&h["jwk"]), jkt, "the refresh proves the same key");
    assert_eq!(c["htu"], TOKEN);

    let stored = f.stored(now, UNIX);
    let text = serde_json::to_string(&stored).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["tokens"]["token_type"], "DPoP");
    // Another run, other entropy: the stored key comes back with the tokens.
    let other = AuthFlow::new(MCP, code_config(), &[1; 32]).unwrap();
    let mut g = other.with_stored(serde_json::from_str(&text).unwrap(), now, UNIX).unwrap();
    assert_eq!(g.dpop_thumbprint().as_deref(), Some(jkt.as_str()));
    g.set_wall_clock(now, UNIX);
    let hs = g.request_headers(now, "POST", MCP);
    assert_eq!(header(&hs, "authorization"), Some("DPoP at-2"));
    let (h, _) = verify_dpop(header(&hs, "dpop").unwrap());
    assert_eq!(thumbprint(&h["jwk"]), jkt);
    // Bound tokens without their key are refused.
    let mut keyless = stored.clone();
    keyless.dpop_key = None;
    let e = flow(code_config()).with_stored(keyless, now, UNIX).unwrap_err();
    assert!(matches!(e, OAuthError::InvalidStored(_)));
}
