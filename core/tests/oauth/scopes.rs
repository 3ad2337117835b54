//! Scope selection, `offline_access`, and step-up with its limit.

use mcpwire_core::oauth::OAuthError;
use serde_json::json;

use crate::harness::*;

fn requested(prm_scopes: Option<&[&str]>, challenge: &str, as_extra: serde_json::Value) -> Option<String> {
    let mut fake = Fake::new();
    fake.standard_with(prm(MCP, &[AS], prm_scopes), as_extra);
    let mut f = flow(code_config());
    let now = t0();
    f.on_challenge(now, 401, Some(challenge));
    fake.drive(&mut f, now).unwrap();
    param(&fake.authorize_urls[0], "scope")
}

#[test]
fn scope_selection_priority() {
    let with_scope = format!(r#"{CHALLENGE}, scope="mcp:basic""#);
    let challenge_scope = requested(Some(&["mcp:other"]), &with_scope, json!({}));
    assert_eq!(challenge_scope.as_deref(), Some("mcp:basic"));
    let supported = requested(Some(&["mcp:basic", "mcp:read", "mcp:write"]), CHALLENGE, json!({}));
    assert_eq!(supported.as_deref(), Some("mcp:basic mcp:read mcp:write"));
    assert_eq!(requested(None, CHALLENGE, json!({})), None, "omitted when undefined");
    let repeated = format!(r#"{CHALLENGE}, scope="a b a  b c""#);
    assert_eq!(requested(None, &repeated, json!({})).as_deref(), Some("a b c"), "each scope once");
}

#[test]
fn offline_access_only_when_listed() {
    let listed = requested(
        Some(&["mcp:basic"]),
        CHALLENGE,
        json!({"scopes_supported": ["mcp:basic", "offline_access"]}),
    );
    assert_eq!(listed.as_deref(), Some("mcp:basic offline_access"));
    let unlisted = requested(
        Some(&["mcp:basic", "mcp:read"]),
        CHALLENGE,
        json!({"scopes_supported": ["mcp:basic", "mcp:read"]}),
    );
    assert_eq!(unlisted.as_deref(), Some("mcp:basic mcp:read"));
}

#[test]
fn step_up_requests_the_union_and_is_bounded() {
    let mut fake = Fake::new();
    fake.standard(json!({}));
    let mut f = flow(code_config());
    let now = t0();
    f.on_challenge(now, 401, Some(&format!(r#"{CHALLENGE}, scope="mcp:basic""#)));
    fake.drive(&mut f, now).unwrap();
    let forbidden =
        format!(r#"Bearer error="insufficient_scope", scope="mcp:write", resource_metadata="{PRM_PATH}""#);
    f.on_challenge(now, 403, Some(&forbidden));
    fake.drive(&mut f, now).unwrap();
    assert_eq!(param(&fake.authorize_urls[1], "scope").as_deref(), Some("mcp:basic mcp:write"));
    // The DCR client is reused; only one registration happened.
    assert_eq!(fake.urls().iter().filter(|u| u.ends_with("/register")).count(), 1);
    // A server that never accepts: two step-ups, then a typed failure (3 authorizations total).
    f.on_challenge(now, 403, Some(&forbidden));
    fake.drive(&mut f, now).unwrap();
    f.on_challenge(now, 403, Some(&forbidden));
    assert!(matches!(fake.drive(&mut f, now), Err(OAuthError::StepUpLimit { attempts: 2 })));
    assert_eq!(fake.authorize_urls.len(), 3);
    // A success resets the budget.
    f.on_request_succeeded();
    f.on_challenge(now, 403, Some(&forbidden));
    assert!(fake.drive(&mut f, now).is_ok());
}

#[test]
fn plain_403_is_not_a_step_up() {
    let mut f = flow(code_config());
    f.on_challenge(t0(), 403, Some("Bearer error=\"invalid_token\""));
    assert!(matches!(
        f.poll(),
        Some(mcpwire_core::oauth::AuthStep::Failed(OAuthError::AuthorizationDenied { .. }))
    ));
}
