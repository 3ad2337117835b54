//! Pre-registered credentials belong to one authorization server: a client without an issuer
//! is refused before anything is sent, and one whose issuer is not the discovered one is
//! refused before any token request (a Client ID Metadata Document URL answers for every
//! server).

use mcpwire_core::oauth::{AuthConfig, AuthFlow, OAuthError, PreRegisteredClient};
use serde_json::json;

use crate::harness::*;

const TOKEN: &str = "https://auth.example.com/token";

/// A client credentials flow whose credentials name `issuer`.
fn client_credentials(issuer: Option<&str>) -> AuthConfig {
    let mut client = PreRegisteredClient::for_issuer(AS, "svc", Some("svc-secret"));
    client.issuer = issuer.map(str::to_owned);
    AuthConfig::client_credentials(client)
}

/// The standard resource and authorization server, for the client credentials grant.
fn fake() -> Fake {
    let mut fake = Fake::new();
    fake.standard(json!({"grant_types_supported": ["client_credentials"], "registration_endpoint": null}));
    fake
}

#[test]
fn credentials_without_an_issuer_are_refused_before_any_fetch() {
    for issuer in [None, Some("")] {
        let refused = AuthFlow::new(MCP, client_credentials(issuer), &ENTROPY);
        assert!(
            matches!(&refused, Err(OAuthError::PreRegisteredWithoutIssuer { client_id }) if client_id == "svc"),
            "{issuer:?}: {refused:?}"
        );
    }
    // The same for the browser grant's pre-registered clients.
    let mut cfg = code_config();
    let mut client = PreRegisteredClient::for_issuer(AS, "web", None);
    client.issuer = None;
    cfg.pre_registered.push(client);
    assert!(matches!(AuthFlow::new(MCP, cfg, &ENTROPY), Err(OAuthError::PreRegisteredWithoutIssuer { .. })));
}

#[test]
fn another_issuer_is_refused_after_discovery_without_a_token_request() {
    let mut fake = fake();
    let mut f = flow(client_credentials(Some("https://other.example.com")));
    let now = t0();
    f.on_challenge(now, 401, Some(CHALLENGE));
    let e = fake.drive(&mut f, now).unwrap_err();
    let OAuthError::IssuerMismatch { configured, discovered } = &e else { panic!("{e:?}") };
    assert_eq!((configured.as_str(), discovered.as_str()), ("https://other.example.com", AS));
    assert!(e.to_string().contains("https://other.example.com") && e.to_string().contains(AS), "{e}");
    assert!(fake.urls().contains(&AS_META), "refused after the metadata: {:?}", fake.urls());
    assert!(!fake.urls().contains(&TOKEN), "the secret went nowhere: {:?}", fake.urls());
}

#[test]
fn another_issuer_is_refused_even_where_registration_is_possible() {
    let mut fake = Fake::new();
    fake.standard(json!({}));
    let mut cfg = code_config();
    cfg.pre_registered.push(PreRegisteredClient::for_issuer("https://other.example.com", "web", Some("s")));
    let mut f = flow(cfg);
    let now = t0();
    f.on_challenge(now, 401, Some(CHALLENGE));
    assert!(matches!(fake.drive(&mut f, now), Err(OAuthError::IssuerMismatch { .. })));
    assert!(fake.authorize_urls.is_empty());
    assert!(!fake.urls().iter().any(|u| u.ends_with("/register") || u.ends_with("/token")));
}

#[test]
fn the_matching_issuer_gets_the_credentials() {
    // Compared as issuers are everywhere in the flow: a trailing slash does not matter.
    for issuer in [AS.to_owned(), format!("{AS}/")] {
        let mut fake = fake();
        let mut f = flow(client_credentials(Some(&issuer)));
        let now = t0();
        f.on_challenge(now, 401, Some(CHALLENGE));
        let t = fake.drive(&mut f, now).unwrap();
        assert_eq!(t.access_token.expose(), "at-1");
        assert_eq!(param(&fake.body_of(TOKEN), "grant_type").as_deref(), Some("client_credentials"));
    }
}

#[test]
fn a_client_id_metadata_document_url_needs_no_issuer() {
    let cimd = "https://app.example/client.json";
    let mut fake = Fake::new();
    fake.standard(json!({"grant_types_supported": ["urn:ietf:params:oauth:grant-type:jwt-bearer"]}));
    let cfg = AuthConfig::jwt_bearer(PreRegisteredClient::metadata_document(cimd), "wl.jwt.x");
    let mut f = flow(cfg);
    let now = t0();
    f.on_challenge(now, 401, Some(CHALLENGE));
    fake.drive(&mut f, now).unwrap();
    assert_eq!(param(&fake.body_of(TOKEN), "client_id").as_deref(), Some(cimd));
    // Not any https text: a URL without a path is no metadata document.
    let bare = AuthConfig::jwt_bearer(PreRegisteredClient::metadata_document("https://app.example"), "a.b.c");
    assert!(matches!(AuthFlow::new(MCP, bare, &ENTROPY), Err(OAuthError::PreRegisteredWithoutIssuer { .. })));
}
