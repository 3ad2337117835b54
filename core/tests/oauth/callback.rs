//! RFC 9207 `iss` rules and `state` on a real flow (the `auth/iss-*` conformance cases).

use mcpwire_core::oauth::OAuthError;
use serde_json::json;

use crate::harness::*;

fn run(
    iss_supported: Option<bool>,
    browser: Browser,
) -> (Fake, Result<mcpwire_core::oauth::Tokens, OAuthError>) {
    let mut fake = Fake::new();
    let extra = match iss_supported {
        Some(b) => json!({"authorization_response_iss_parameter_supported": b}),
        None => json!({}),
    };
    fake.standard(extra);
    fake.browser = browser;
    let mut f = flow(code_config());
    let now = t0();
    f.on_challenge(now, 401, Some(CHALLENGE));
    let r = fake.drive(&mut f, now);
    (fake, r)
}

fn token_requested(fake: &Fake) -> bool {
    fake.urls().contains(&"https://auth.example.com/token")
}

#[test]
fn iss_supported_and_correct_proceeds() {
    let (fake, r) = run(Some(true), approve(Some(AS)));
    assert!(r.is_ok());
    assert!(token_requested(&fake));
}

#[test]
fn iss_not_advertised_and_absent_proceeds() {
    let (fake, r) = run(None, approve(None));
    assert!(r.is_ok() && token_requested(&fake));
}

#[test]
fn iss_supported_but_missing_is_rejected() {
    let (fake, r) = run(Some(true), approve(None));
    assert!(matches!(r, Err(OAuthError::CallbackIssuerMissing)));
    assert!(!token_requested(&fake), "the code never reaches a token endpoint");
}

#[test]
fn wrong_iss_is_rejected_advertised_or_not() {
    for supported in [Some(true), None] {
        let (fake, r) = run(supported, approve(Some("https://evil.example.com")));
        assert!(matches!(r, Err(OAuthError::CallbackIssuerMismatch { .. })), "{supported:?}");
        assert!(!token_requested(&fake));
    }
}

#[test]
fn iss_is_compared_without_normalisation() {
    let (fake, r) = run(Some(true), approve(Some("https://auth.example.com/")));
    assert!(matches!(r, Err(OAuthError::CallbackIssuerMismatch { .. })));
    assert!(!token_requested(&fake));
}

#[test]
fn state_mismatch_and_error_responses() {
    let (fake, r) = run(None, Box::new(|_| "code=c&state=forged".to_owned()));
    assert!(matches!(r, Err(OAuthError::StateMismatch)));
    assert!(!token_requested(&fake));
    let (_, r) =
        run(None, Box::new(|url| format!("error=access_denied&state={}", param(url, "state").unwrap())));
    assert!(matches!(r, Err(OAuthError::AuthorizationDenied { .. })));
    let (_, r) = run(None, Box::new(|url| format!("code=a&code=b&state={}", param(url, "state").unwrap())));
    assert!(matches!(r, Err(OAuthError::DuplicateCallbackParameter(_))));
}

#[test]
fn callback_without_pending_request() {
    let mut f = flow(code_config());
    f.on_callback(t0(), "code=x&state=y");
    assert!(matches!(
        f.poll(),
        Some(mcpwire_core::oauth::AuthStep::Failed(OAuthError::NoPendingAuthorization))
    ));
}

#[test]
fn pkce_verifier_matches_challenge() {
    let (fake, r) = run(None, approve(None));
    r.unwrap();
    let url = &fake.authorize_urls[0];
    let body = fake.body_of("https://auth.example.com/token");
    let verifier = param(&body, "code_verifier").unwrap();
    assert!((43..=128).contains(&verifier.len()));
    assert_eq!(param(url, "code_challenge").unwrap(), mcpwire_core::oauth::pkce_challenge(&verifier));
    assert_eq!(param(&body, "code").as_deref(), Some("test-code"));
    assert_eq!(param(&body, "redirect_uri").as_deref(), Some(REDIRECT));
    assert_eq!(param(&body, "grant_type").as_deref(), Some("authorization_code"));
}
