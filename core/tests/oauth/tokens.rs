//! Token lifetimes: expiry from `now`, refresh with rotation, client credentials, storage
//! across runs, and redaction.

use std::time::{Duration, Instant};

use mcpwire_core::oauth::{AuthConfig, AuthStep, OAuthError, OAuthErrorCode, PreRegisteredClient};
use serde_json::json;

use crate::harness::*;

const TOKEN: &str = "https://auth.example.com/token";

fn authorized(fake: &mut Fake, now: Instant) -> mcpwire_core::oauth::AuthFlow {
    let mut f = flow(code_config());
    f.on_challenge(now, 401, Some(CHALLENGE));
    fake.drive(&mut f, now).unwrap();
    f
}

#[test]
fn expiry_and_refresh_rotation() {
    let now = t0();
    let mut fake = Fake::new();
    fake.on(TOKEN, 200, token("at-1", json!({"refresh_token": "rt-1", "expires_in": 600})))
        .on(TOKEN, 200, token("at-2", json!({"refresh_token": "rt-2"})))
        .on(TOKEN, 200, token("at-3", json!({})))
        .on(TOKEN, 400, r#"{"error":"invalid_grant","error_description":"revoked"}"#);
    fake.standard(json!({}));
    let mut f = authorized(&mut fake, now);
    let t = f.tokens().unwrap();
    assert_eq!(t.expires_at, Some(now + Duration::from_secs(600)));
    assert!(!f.needs_refresh(now + Duration::from_secs(500)));
    assert!(f.needs_refresh(now + Duration::from_secs(580)), "within the 30 s margin");

    let later = now + Duration::from_secs(590);
    f.refresh(later);
    let t = fake.drive(&mut f, later).unwrap();
    assert_eq!((t.access_token.expose(), t.refresh_token.as_ref().unwrap().expose()), ("at-2", "rt-2"));
    assert_eq!(t.expires_at, Some(later + Duration::from_secs(3600)));
    let body = fake.body_of(TOKEN);
    assert_eq!(param(&body, "grant_type").as_deref(), Some("refresh_token"));
    assert_eq!(param(&body, "refresh_token").as_deref(), Some("rt-1"));
    assert_eq!(param(&body, "resource").as_deref(), Some(MCP));

    // The rotated token is used next; a response without one keeps it.
    f.refresh(later);
    let t = fake.drive(&mut f, later).unwrap();
    assert_eq!(param(&fake.body_of(TOKEN), "refresh_token").as_deref(), Some("rt-2"));
    assert_eq!(t.refresh_token.unwrap().expose(), "rt-2");

    // invalid_grant: typed, and the dead refresh token is dropped.
    f.refresh(later);
    let e = fake.drive(&mut f, later).unwrap_err();
    assert!(matches!(e, OAuthError::TokenRejected { error: OAuthErrorCode::InvalidGrant, .. }));
    f.refresh(later);
    assert!(matches!(f.poll(), Some(AuthStep::Failed(OAuthError::NoRefreshToken))));
}

#[test]
fn a_401_tries_the_refresh_token_before_the_browser() {
    let now = t0();
    let mut fake = Fake::new();
    fake.on(TOKEN, 200, token("at-1", json!({"refresh_token": "rt-1"})))
        .on(TOKEN, 200, token("at-2", json!({})))
        .on(TOKEN, 400, r#"{"error":"invalid_grant"}"#)
        .on(TOKEN, 200, token("at-3", json!({})));
    fake.standard(json!({}));
    let mut f = authorized(&mut fake, now);
    f.on_challenge(now, 401, Some(CHALLENGE));
    assert_eq!(fake.drive(&mut f, now).unwrap().access_token.expose(), "at-2");
    assert_eq!(fake.authorize_urls.len(), 1, "no new browser round");
    // Refresh refused: falls back to a new authorization by itself.
    f.on_challenge(now, 401, Some(CHALLENGE));
    assert_eq!(fake.drive(&mut f, now).unwrap().access_token.expose(), "at-3");
    assert_eq!(fake.authorize_urls.len(), 2);
}

/// Malformed token answers fail the flow with a typed error and leave no token; an absurd
/// `expires_in` is clamped instead of overflowing the clock.
#[test]
fn malformed_token_answers_are_refused() {
    let now = t0();
    let bad: [(u16, &str); 8] = [
        (200, r#"{"token_type":"Bearer"}"#),
        (200, r#"{"access_token":"at"}"#),
        (200, r#"{"access_token":"a t","token_type":"Bearer"}"#),
        (200, r#"{"access_token":"at","token_type":"Bearer","expires_in":-1}"#),
        (200, r#"{"access_token":"at","token_type":"Bearer","expires_in":1.5}"#),
        (200, r#"{"access_token":5,"token_type":"Bearer"}"#),
        (200, "nope"),
        (502, "<html>"),
    ];
    for (status, body) in bad {
        let mut fake = Fake::new();
        fake.on(TOKEN, status, body);
        fake.standard(json!({}));
        let mut f = flow(code_config());
        f.on_challenge(now, 401, Some(CHALLENGE));
        assert!(fake.drive(&mut f, now).is_err(), "{status} {body}");
        assert!(f.tokens().is_none(), "{body}");
    }
    let mut fake = Fake::new();
    fake.on(TOKEN, 200, r#"{"access_token":"at","token_type":"bearer","expires_in":18446744073709551615}"#);
    fake.standard(json!({}));
    let mut f = flow(code_config());
    f.on_challenge(now, 401, Some(CHALLENGE));
    fake.drive(&mut f, now).expect("a lower-case bearer with a huge lifetime is accepted");
    let expires = f.tokens().and_then(|t| t.expires_at).expect("an expiry");
    assert!(expires > now + Duration::from_secs(3600), "clamped, not wrapped");
}

#[test]
fn non_bearer_tokens_are_refused() {
    let now = t0();
    let mut fake = Fake::new();
    fake.on(TOKEN, 200, r#"{"access_token":"x","token_type":"DPoP"}"#);
    fake.standard(json!({}));
    let mut f = flow(code_config());
    f.on_challenge(now, 401, Some(CHALLENGE));
    assert!(matches!(fake.drive(&mut f, now), Err(OAuthError::UnsupportedTokenType(_))));
    assert!(f.tokens().is_none());
}

#[test]
fn client_credentials_grant() {
    let now = t0();
    let mut fake = Fake::new();
    fake.standard_with(
        prm(MCP, &[AS], Some(&["mcp:basic"])),
        json!({"grant_types_supported": ["client_credentials"], "token_endpoint_auth_methods_supported": ["client_secret_basic"],
               "code_challenge_methods_supported": null, "authorization_endpoint": null}),
    );
    let cfg = AuthConfig::client_credentials(PreRegisteredClient::for_issuer(
        AS,
        "conformance-test-client",
        Some("conformance-test-secret"),
    ));
    let mut f = flow(cfg);
    f.on_challenge(now, 401, Some(CHALLENGE));
    let t = fake.drive(&mut f, now).unwrap();
    assert_eq!(t.scopes, ["mcp:basic"]);
    assert!(fake.authorize_urls.is_empty());
    let body = fake.body_of(TOKEN);
    assert_eq!(param(&body, "grant_type").as_deref(), Some("client_credentials"));
    assert_eq!(param(&body, "scope").as_deref(), Some("mcp:basic"));
    assert_eq!(param(&body, "resource").as_deref(), Some(MCP));
    use base64::Engine as _;
    let expected =
        base64::engine::general_purpose::STANDARD.encode("conformance-test-client:conformance-test-secret");
    assert_eq!(fake.header_of(TOKEN, "authorization"), Some(format!("Basic {expected}")));
    assert!(!fake.urls().iter().any(|u| u.ends_with("/register")));
}

#[test]
fn stored_state_skips_discovery_and_registration() {
    let now = t0();
    let mut fake = Fake::new();
    fake.on(TOKEN, 200, token("at-1", json!({"refresh_token": "rt-1", "expires_in": 100}))).on(
        TOKEN,
        200,
        token("at-2", json!({})),
    );
    fake.standard(json!({}));
    let f = authorized(&mut fake, now);
    let stored = f.stored(now, 1_000_000);
    assert_eq!(stored.tokens.as_ref().unwrap().expires_at_unix, Some(1_000_100));
    let text = serde_json::to_string(&stored).unwrap();
    let back: mcpwire_core::oauth::StoredAuth = serde_json::from_str(&text).unwrap();
    assert_eq!(back, stored);

    // A later run, 40 s later in wall time, with a fresh monotonic clock.
    let run2 = now + Duration::from_secs(5000);
    let mut f2 = flow(code_config()).with_stored(back.clone(), run2, 1_000_040).unwrap();
    assert_eq!(f2.tokens().unwrap().expires_at, Some(run2 + Duration::from_secs(60)));
    assert_eq!(f2.authorization_header(MCP).as_deref(), Some("Bearer at-1"));
    let before = fake.requests.len();
    f2.refresh(run2);
    assert_eq!(fake.drive(&mut f2, run2).unwrap().access_token.expose(), "at-2");
    assert_eq!(fake.urls()[before..], [TOKEN], "straight to the token endpoint");
    assert_eq!(param(&fake.body_of(TOKEN), "client_id").as_deref(), Some("dyn-client"));

    // A record for another server, or tampered, is refused.
    let other =
        mcpwire_core::oauth::AuthFlow::new("https://other.example/mcp", code_config(), &ENTROPY).unwrap();
    assert!(matches!(other.with_stored(back.clone(), run2, 0), Err(OAuthError::InvalidStored(_))));
    let mut tampered = back;
    tampered.auth_server.as_mut().unwrap().token_endpoint = "http://auth.example.com/token".into();
    assert!(matches!(flow(code_config()).with_stored(tampered, run2, 0), Err(OAuthError::UnsafeUrl { .. })));
}

#[test]
fn secrets_never_print() {
    let now = t0();
    let mut fake = Fake::new();
    fake.on("https://auth.example.com/register", 201, r#"{"client_id":"c","client_secret":"client-secret-value","token_endpoint_auth_method":"client_secret_post"}"#)
        .on(TOKEN, 200, token("access-token-value", json!({"refresh_token": "refresh-token-value"})));
    fake.standard(json!({"token_endpoint_auth_methods_supported": ["client_secret_post"]}));
    let mut f = flow(code_config());
    f.on_challenge(now, 401, Some(CHALLENGE));
    // Stop at the authorization step to print the pending state too.
    let mut printed = String::new();
    loop {
        let step = f.poll().expect("a step");
        printed.push_str(&format!("{step:?} {f:?}"));
        match step {
            AuthStep::Fetch { id, request } => {
                let (status, body) = fake.answer_for(&request.url);
                fake.requests.push(request);
                f.on_response(now, id, status, &[], body.as_bytes());
            }
            AuthStep::Authorize { url } => {
                let q = format!("code=code-value&state={}", param(&url, "state").unwrap());
                f.on_callback(now, &q);
            }
            AuthStep::Done(t) => {
                printed.push_str(&format!("{t:?} {}", t.access_token));
                break;
            }
            AuthStep::Notice(_) | AuthStep::AuthServerChanged { .. } => {}
            AuthStep::Failed(e) => panic!("{e}"),
        }
    }
    printed.push_str(&format!("{:?}", f.stored(now, 0)));
    for secret in ["client-secret-value", "access-token-value", "refresh-token-value", "code-value"] {
        assert!(!printed.contains(secret), "{secret} printed");
    }
}
