//! Discovery order and the checks on what it finds.

use mcpwire_core::oauth::{AuthNotice, OAuthError};
use serde_json::json;

use crate::harness::*;

#[test]
fn resource_metadata_hint_is_used_first() {
    let mut fake = Fake::new();
    let hinted = "https://mcp.example.com/custom/metadata.json";
    fake.on(hinted, 200, prm(MCP, &[AS], None))
        .on(AS_META, 200, as_meta(AS, json!({})))
        .on(&format!("{AS}/register"), 201, r#"{"client_id":"c"}"#)
        .on(&format!("{AS}/token"), 200, token("at", json!({})));
    let mut flow = flow(code_config());
    let now = t0();
    flow.on_challenge(now, 401, Some(&format!(r#"Bearer resource_metadata="{hinted}""#)));
    let t = fake.drive(&mut flow, now).unwrap();
    assert_eq!(t.access_token.expose(), "at");
    assert_eq!(t.issuer, AS);
    assert_eq!(fake.urls()[..2], [hinted, AS_META]);
    assert!(!fake.urls().contains(&PRM_PATH));
    // resource (RFC 8707) in both the authorization and the token request.
    assert_eq!(param(&fake.authorize_urls[0], "resource").as_deref(), Some(MCP));
    assert_eq!(param(&fake.body_of(&format!("{AS}/token")), "resource").as_deref(), Some(MCP));
}

#[test]
fn well_known_fallback_path_then_root_and_resource_as_published() {
    let mut fake = Fake::new();
    // Root document describing the whole origin (no path in `resource`).
    fake.on(PRM_ROOT, 200, prm("https://mcp.example.com", &[AS], None))
        .on(AS_META, 200, as_meta(AS, json!({})))
        .on(&format!("{AS}/register"), 201, r#"{"client_id":"c"}"#)
        .on(&format!("{AS}/token"), 200, token("at", json!({})));
    let mut flow = flow(code_config());
    let now = t0();
    flow.on_challenge(now, 401, Some("Bearer"));
    fake.drive(&mut flow, now).unwrap();
    assert_eq!(fake.urls()[..3], [PRM_PATH, PRM_ROOT, AS_META]);
    assert_eq!(param(&fake.authorize_urls[0], "resource").as_deref(), Some("https://mcp.example.com"));
    assert_eq!(flow.resource(), "https://mcp.example.com");
}

#[test]
fn openid_configuration_and_path_issuers_in_spec_order() {
    // Issuer without a path, only OIDC discovery served.
    let mut fake = Fake::new();
    let oidc = "https://auth.example.com/.well-known/openid-configuration";
    fake.on(PRM_PATH, 200, prm(MCP, &[AS], None))
        .on(oidc, 200, as_meta(AS, json!({})))
        .on(&format!("{AS}/register"), 201, r#"{"client_id":"c"}"#)
        .on(&format!("{AS}/token"), 200, token("at", json!({})));
    let mut f = flow(code_config());
    let now = t0();
    f.on_challenge(now, 401, None);
    fake.drive(&mut f, now).unwrap();
    assert_eq!(fake.urls()[1..3], [AS_META, oidc]);

    // Issuer with a path: OAuth inserted, OIDC inserted, OIDC appended.
    let issuer = "https://auth.example.com/tenant1";
    let appended = "https://auth.example.com/tenant1/.well-known/openid-configuration";
    let mut fake = Fake::new();
    fake.on(PRM_PATH, 200, prm(MCP, &[issuer], None))
        .on(appended, 200, as_meta(issuer, json!({})))
        .on(&format!("{issuer}/register"), 201, r#"{"client_id":"c"}"#)
        .on(&format!("{issuer}/token"), 200, token("at", json!({})));
    let mut f = flow(code_config());
    f.on_challenge(now, 401, Some(CHALLENGE));
    fake.drive(&mut f, now).unwrap();
    assert_eq!(
        fake.urls()[1..4],
        [
            "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
            "https://auth.example.com/.well-known/openid-configuration/tenant1",
            appended
        ]
    );
    assert!(!fake.urls().contains(&AS_META), "never the root for a path issuer");
}

#[test]
fn legacy_2025_03_26_fallbacks() {
    // No PRM anywhere: AS metadata at the server's origin.
    let origin = "https://mcp.example.com";
    let mut fake = Fake::new();
    fake.on(
        "https://mcp.example.com/.well-known/oauth-authorization-server",
        200,
        as_meta(origin, json!({})),
    )
    .on(&format!("{origin}/register"), 201, r#"{"client_id":"c"}"#)
    .on(&format!("{origin}/token"), 200, token("at", json!({})));
    let mut f = flow(code_config());
    let now = t0();
    f.on_challenge(now, 401, Some("Bearer realm=\"x\""));
    let t = fake.drive(&mut f, now).unwrap();
    assert_eq!(t.issuer, origin);
    assert!(fake.notices.contains(&AuthNotice::LegacyDiscovery { issuer: origin.into() }));
    assert_eq!(param(&fake.authorize_urls[0], "resource").as_deref(), Some(MCP));

    // No metadata either: default endpoints.
    let mut fake = Fake::new();
    fake.on(&format!("{origin}/register"), 201, r#"{"client_id":"c"}"#).on(
        &format!("{origin}/token"),
        200,
        token("at", json!({})),
    );
    let mut f = flow(code_config());
    f.on_challenge(now, 401, None);
    fake.drive(&mut f, now).unwrap();
    assert!(fake.notices.contains(&AuthNotice::DefaultEndpoints { issuer: origin.into() }));
    assert!(fake.authorize_urls[0].starts_with("https://mcp.example.com/authorize?"));
    assert!(fake.urls().contains(&"https://mcp.example.com/register"));
}

#[test]
fn pkce_refusal_stops_before_anything_is_sent() {
    let mut fake = Fake::new();
    fake.standard(json!({"code_challenge_methods_supported": null}));
    let mut f = flow(code_config());
    let now = t0();
    f.on_challenge(now, 401, Some(CHALLENGE));
    assert!(matches!(fake.drive(&mut f, now), Err(OAuthError::PkceNotSupported { .. })));
    assert!(fake.authorize_urls.is_empty());
    assert_eq!(fake.urls(), [PRM_PATH, AS_META]);
}

#[test]
fn metadata_issuer_mismatch_is_refused() {
    let mut fake = Fake::new();
    fake.on(PRM_PATH, 200, prm(MCP, &[AS], None)).on(
        AS_META,
        200,
        as_meta(AS, json!({"issuer": "https://attacker.example.com"})),
    );
    let mut f = flow(code_config());
    let now = t0();
    f.on_challenge(now, 401, Some(CHALLENGE));
    assert!(matches!(fake.drive(&mut f, now), Err(OAuthError::MetadataIssuerMismatch { .. })));
    assert_eq!(fake.urls(), [PRM_PATH, AS_META], "no endpoint of the poisoned document is used");
}

#[test]
fn resource_mismatch_is_refused() {
    let mut fake = Fake::new();
    fake.on(PRM_PATH, 200, prm("https://evil.example.com/mcp", &[AS], None));
    let mut f = flow(code_config());
    let now = t0();
    f.on_challenge(now, 401, Some(CHALLENGE));
    assert!(matches!(fake.drive(&mut f, now), Err(OAuthError::ResourceMismatch { .. })));
    assert_eq!(fake.urls(), [PRM_PATH]);
}

#[test]
fn hinted_metadata_missing_fails_typed() {
    let mut fake = Fake::new();
    let mut f = flow(code_config());
    let now = t0();
    f.on_challenge(now, 401, Some(CHALLENGE));
    assert!(matches!(
        fake.drive(&mut f, now),
        Err(OAuthError::ResourceMetadataUnavailable { status: 404, .. })
    ));
}

#[test]
fn unsafe_urls_are_refused() {
    let now = t0();
    // A plain-http authorization server for a remote MCP server.
    let mut fake = Fake::new();
    fake.on(PRM_PATH, 200, prm(MCP, &["http://auth.example.com"], None));
    let mut f = flow(code_config());
    f.on_challenge(now, 401, Some(CHALLENGE));
    assert!(matches!(fake.drive(&mut f, now), Err(OAuthError::UnsafeUrl { .. })));
    // A hint pointing at the cloud metadata address.
    let mut f = flow(code_config());
    f.on_challenge(now, 401, Some(r#"Bearer resource_metadata="https://169.254.169.254/latest""#));
    assert!(matches!(Fake::new().drive(&mut f, now), Err(OAuthError::UnsafeUrl { .. })));
    // A token endpoint on a private address.
    let mut fake = Fake::new();
    fake.standard(json!({"token_endpoint": "https://10.1.2.3/token"}));
    let mut f = flow(code_config());
    f.on_challenge(now, 401, Some(CHALLENGE));
    assert!(matches!(fake.drive(&mut f, now), Err(OAuthError::UnsafeUrl { .. })));
}

#[test]
fn loopback_stack_may_use_plain_http() {
    let server = "http://localhost:3000/mcp";
    let auth = "http://localhost:3001";
    let mut fake = Fake::new();
    fake.on(
        "http://localhost:3000/.well-known/oauth-protected-resource/mcp",
        200,
        prm(server, &[auth], None),
    )
    .on("http://localhost:3001/.well-known/oauth-authorization-server", 200, as_meta(auth, json!({})))
    .on(&format!("{auth}/register"), 201, r#"{"client_id":"c"}"#)
    .on(&format!("{auth}/token"), 200, token("at", json!({})));
    let mut f = mcpwire_core::oauth::AuthFlow::new(server, code_config(), &ENTROPY).unwrap();
    let now = t0();
    f.on_challenge(now, 401, None);
    let t = fake.drive(&mut f, now).unwrap();
    assert_eq!(t.issuer, auth);
    assert_eq!(f.authorization_header("http://localhost:3000/mcp").as_deref(), Some("Bearer at"));
    assert_eq!(f.authorization_header("http://localhost:3001/token"), None, "never to another origin");
}

#[test]
fn stale_answers_are_ignored() {
    let mut f = flow(code_config());
    let now = t0();
    f.on_challenge(now, 401, Some(CHALLENGE));
    let Some(mcpwire_core::oauth::AuthStep::Fetch { id: old, .. }) = f.poll() else { panic!() };
    // A new challenge restarts; the answer to the old fetch changes nothing.
    f.on_challenge(now, 401, Some(CHALLENGE));
    f.on_response(now, old, 200, &[], prm(MCP, &[AS], None).as_bytes());
    assert!(matches!(f.poll(), Some(mcpwire_core::oauth::AuthStep::Fetch { .. })));
    assert!(f.poll().is_none());
}
