//! Client registration priority, token endpoint authentication, and migration to another
//! authorization server.

use mcpwire_core::oauth::{AuthNotice, OAuthError, PreRegisteredClient, RegistrationSource, TokenAuthMethod};
use serde_json::json;

use crate::harness::*;

const TOKEN: &str = "https://auth.example.com/token";
const REGISTER: &str = "https://auth.example.com/register";

fn basic(id: &str, secret: &str) -> String {
    use base64::Engine as _;
    format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(format!("{id}:{secret}")))
}

#[test]
fn pre_registered_client_for_the_issuer_uses_basic_auth() {
    let mut fake = Fake::new();
    fake.standard(json!({"registration_endpoint": null, "token_endpoint_auth_methods_supported": ["client_secret_basic"]}));
    let mut cfg = code_config();
    cfg.pre_registered = vec![
        PreRegisteredClient::for_issuer("https://elsewhere.example", "elsewhere", Some("w")),
        PreRegisteredClient::for_issuer(AS, "pre-registered-client", Some("pre-registered-secret")),
    ];
    let mut f = flow(cfg);
    let now = t0();
    f.on_challenge(now, 401, Some(CHALLENGE));
    fake.drive(&mut f, now).unwrap();
    assert!(!fake.urls().contains(&REGISTER));
    assert_eq!(
        fake.header_of(TOKEN, "authorization"),
        Some(basic("pre-registered-client", "pre-registered-secret"))
    );
    assert_eq!(param(&fake.body_of(TOKEN), "client_secret"), None);
    assert_eq!(param(&fake.authorize_urls[0], "client_id").as_deref(), Some("pre-registered-client"));
    assert_eq!(f.client().unwrap().source, RegistrationSource::PreRegistered);
}

#[test]
fn client_id_metadata_document_when_supported() {
    let cimd = "https://app.example/client-metadata.json";
    let mut cfg = code_config();
    cfg.client_metadata_url = Some(cimd.into());
    let mut fake = Fake::new();
    fake.standard(json!({"client_id_metadata_document_supported": true}));
    let mut f = flow(cfg.clone());
    let now = t0();
    f.on_challenge(now, 401, Some(CHALLENGE));
    fake.drive(&mut f, now).unwrap();
    assert!(!fake.urls().contains(&REGISTER));
    assert_eq!(param(&fake.authorize_urls[0], "client_id").as_deref(), Some(cimd));
    assert_eq!(param(&fake.body_of(TOKEN), "client_id").as_deref(), Some(cimd));
    assert!(fake.notices.is_empty());

    // Not advertised: dynamic registration, with a deprecation notice and application_type.
    let mut fake = Fake::new();
    fake.standard(json!({}));
    let mut f = flow(cfg);
    f.on_challenge(now, 401, Some(CHALLENGE));
    fake.drive(&mut f, now).unwrap();
    let reg: serde_json::Value = serde_json::from_str(&fake.body_of(REGISTER)).unwrap();
    assert_eq!(reg["application_type"], "native");
    assert_eq!(reg["redirect_uris"][0], REDIRECT);
    assert!(reg["grant_types"].as_array().unwrap().contains(&json!("refresh_token")));
    assert_eq!(fake.notices, [AuthNotice::DynamicClientRegistration { issuer: AS.into() }]);
    assert_eq!(param(&fake.authorize_urls[0], "client_id").as_deref(), Some("dyn-client"));
}

#[test]
fn token_endpoint_auth_method_follows_the_server() {
    for (method, dcr_answer) in [
        (
            "client_secret_basic",
            r#"{"client_id":"c1","client_secret":"s1","token_endpoint_auth_method":"client_secret_basic"}"#,
        ),
        (
            "client_secret_post",
            r#"{"client_id":"c1","client_secret":"s1","token_endpoint_auth_method":"client_secret_post"}"#,
        ),
        ("none", r#"{"client_id":"c1","token_endpoint_auth_method":"none"}"#),
    ] {
        let mut fake = Fake::new();
        fake.on(REGISTER, 201, dcr_answer);
        fake.standard(json!({"token_endpoint_auth_methods_supported": [method]}));
        let mut f = flow(code_config());
        let now = t0();
        f.on_challenge(now, 401, Some(CHALLENGE));
        fake.drive(&mut f, now).unwrap();
        let reg: serde_json::Value = serde_json::from_str(&fake.body_of(REGISTER)).unwrap();
        assert_eq!(reg["token_endpoint_auth_method"], method);
        let body = fake.body_of(TOKEN);
        let auth = fake.header_of(TOKEN, "authorization");
        match method {
            "client_secret_basic" => {
                assert_eq!(auth, Some(basic("c1", "s1")));
                assert_eq!(param(&body, "client_secret"), None);
            }
            "client_secret_post" => {
                assert_eq!(auth, None);
                assert_eq!(param(&body, "client_secret").as_deref(), Some("s1"));
                assert_eq!(param(&body, "client_id").as_deref(), Some("c1"));
            }
            _ => {
                assert_eq!(auth, None);
                assert_eq!(param(&body, "client_secret"), None);
                assert_eq!(param(&body, "client_id").as_deref(), Some("c1"));
            }
        }
        assert_eq!(f.client().unwrap().auth_method, TokenAuthMethod::parse(method).unwrap());
    }
}

#[test]
fn registration_failure_is_typed() {
    let mut fake = Fake::new();
    fake.on(REGISTER, 400, r#"{"error":"invalid_redirect_uri"}"#);
    fake.standard(json!({}));
    let mut f = flow(code_config());
    let now = t0();
    f.on_challenge(now, 401, Some(CHALLENGE));
    assert!(matches!(fake.drive(&mut f, now), Err(OAuthError::RegistrationFailed { status: 400, .. })));
    let mut fake = Fake::new();
    fake.standard(json!({"registration_endpoint": null}));
    let mut f = flow(code_config());
    f.on_challenge(now, 401, Some(CHALLENGE));
    assert!(matches!(fake.drive(&mut f, now), Err(OAuthError::NoClientRegistration { .. })));
}

#[test]
fn migration_to_another_authorization_server_re_registers() {
    let as2 = "https://auth2.example.com";
    let mut fake = Fake::new();
    fake.on(PRM_PATH, 200, prm(MCP, &[AS], None))
        .on(PRM_PATH, 200, prm(MCP, &[as2], None))
        .on(AS_META, 200, as_meta(AS, json!({})))
        .on(REGISTER, 201, r#"{"client_id":"as1-client-id","client_secret":"as1-secret","token_endpoint_auth_method":"client_secret_post"}"#)
        .on(TOKEN, 200, token("as1-token", json!({"refresh_token": "as1-refresh"})))
        .on(&format!("{as2}/.well-known/oauth-authorization-server"), 200, as_meta(as2, json!({})))
        .on(&format!("{as2}/register"), 201, r#"{"client_id":"as2-client-id"}"#)
        .on(&format!("{as2}/token"), 200, token("as2-token", json!({})));
    let mut f = flow(code_config());
    let now = t0();
    f.on_challenge(now, 401, Some(CHALLENGE));
    assert_eq!(fake.drive(&mut f, now).unwrap().issuer, AS);
    // The server moved: its metadata now names AS2.
    f.on_challenge(now, 401, Some(CHALLENGE));
    let t = fake.drive(&mut f, now).unwrap();
    assert_eq!((t.issuer.as_str(), t.access_token.expose()), (as2, "as2-token"));
    assert!(fake.urls().contains(&"https://auth2.example.com/register"));
    assert_eq!(param(&fake.authorize_urls[1], "client_id").as_deref(), Some("as2-client-id"));
    let as2_body = fake.body_of("https://auth2.example.com/token");
    assert!(!as2_body.contains("as1"), "nothing of AS1 reaches AS2: {as2_body}");
    assert_eq!(fake.header_of("https://auth2.example.com/token", "authorization"), None);
    // AS1's refresh token was not tried at AS1 either: the server no longer trusts it.
    assert_eq!(fake.urls().iter().filter(|u| **u == TOKEN).count(), 1);
    // Both registrations are kept, one per issuer.
    let issuers: Vec<_> = f.registrations().iter().map(|r| r.issuer.as_str()).collect();
    assert_eq!(issuers, [AS, as2]);
}
