//! The grants without a browser beyond plain client credentials: `private_key_jwt` client
//! authentication, the JWT bearer grant (workload identity) and enterprise-managed
//! authorization (token exchange at the IdP, then the JWT bearer grant), each against the
//! scripted fake servers with fake time.

use std::time::Duration;

use mcpwire_core::oauth::{
    AuthConfig, AuthStep, IdentityProvider, OAuthError, OAuthErrorCode, PreRegisteredClient, Secret,
    TokenAuthMethod,
};
use serde_json::json;

use crate::harness::*;
use crate::jws::{test_public_key, verify, PKCS8_PEM, SEC1_PEM};

const TOKEN: &str = "https://auth.example.com/token";
const UNIX: u64 = 1_700_000_000;
const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/// The suite's client-credentials-only authorization server.
fn cc_server(fake: &mut Fake, methods: &[&str]) {
    fake.on(PRM_PATH, 200, prm(MCP, &[AS], None)).on(
        AS_META,
        200,
        as_meta(
            AS,
            json!({"grant_types_supported": ["client_credentials"], "token_endpoint_auth_methods_supported": methods,
                   "token_endpoint_auth_signing_alg_values_supported": ["ES256"], "registration_endpoint": null}),
        ),
    );
}

#[test]
fn private_key_jwt_signs_a_client_assertion() {
    let now = t0();
    let mut fake = Fake::new();
    cc_server(&mut fake, &["private_key_jwt"]);
    fake.on(TOKEN, 200, token("cc-1", json!({})));
    let client =
        PreRegisteredClient::for_issuer(AS, "conformance-test-client", None).with_private_key(PKCS8_PEM);
    let mut f = flow(AuthConfig::client_credentials(client));
    f.set_wall_clock(now, UNIX);
    let later = now + Duration::from_secs(7);
    f.on_challenge(later, 401, Some(CHALLENGE));
    assert_eq!(fake.drive(&mut f, later).unwrap().access_token.expose(), "cc-1");
    assert_eq!(f.client().unwrap().auth_method, TokenAuthMethod::PrivateKeyJwt);

    let body = fake.body_of(TOKEN);
    assert_eq!(param(&body, "grant_type").as_deref(), Some("client_credentials"));
    assert_eq!(
        param(&body, "client_assertion_type").as_deref(),
        Some("urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
    );
    assert!(param(&body, "client_secret").is_none() && fake.header_of(TOKEN, "authorization").is_none());
    let (header, claims) = verify(&param(&body, "client_assertion").unwrap(), &test_public_key());
    assert_eq!(header["typ"], "JWT");
    assert_eq!(claims["iss"], "conformance-test-client");
    assert_eq!(claims["sub"], "conformance-test-client");
    assert_eq!(claims["aud"], AS, "the audience is the authorization server's issuer");
    assert_eq!(claims["iat"], UNIX + 7, "issued at the host's wall-clock time of the request");
    assert_eq!(claims["exp"], UNIX + 7 + 300);
    let jti = claims["jti"].as_str().unwrap().to_owned();
    assert!(jti.len() >= 16);

    // Every assertion gets its own jti.
    f.on_challenge(later, 401, Some(CHALLENGE));
    fake.drive(&mut f, later).unwrap();
    let (_, again) = verify(&param(&fake.body_of(TOKEN), "client_assertion").unwrap(), &test_public_key());
    assert_ne!(again["jti"].as_str(), Some(jti.as_str()));
}

#[test]
fn private_key_jwt_accepts_sec1_and_needs_a_wall_clock() {
    let now = t0();
    let mut fake = Fake::new();
    cc_server(&mut fake, &["private_key_jwt", "client_secret_basic"]);
    fake.on(TOKEN, 200, token("cc-1", json!({})));
    // A secret and a key: the key wins when the server lists private_key_jwt.
    let mut client = PreRegisteredClient::for_issuer(AS, "c", Some("s")).with_private_key(SEC1_PEM);
    client.auth_method = None;
    let mut f = flow(AuthConfig::client_credentials(client.clone()));
    f.on_challenge(now, 401, Some(CHALLENGE));
    assert!(matches!(fake.drive(&mut f, now), Err(OAuthError::NoWallClock)));
    assert!(!fake.urls().contains(&TOKEN), "nothing unsigned was sent");
    f.set_wall_clock(now, UNIX);
    f.on_challenge(now, 401, Some(CHALLENGE));
    fake.drive(&mut f, now).unwrap();
    verify(&param(&fake.body_of(TOKEN), "client_assertion").unwrap(), &test_public_key());
    assert!(fake.header_of(TOKEN, "authorization").is_none());
}

#[test]
fn jwt_bearer_grant_presents_the_workload_assertion() {
    let now = t0();
    let mut fake = Fake::new();
    fake.on(PRM_PATH, 200, prm(MCP, &[AS], None))
        .on(
            AS_META,
            200,
            as_meta(AS, json!({"grant_types_supported": [JWT_BEARER], "registration_endpoint": null})),
        )
        .on(TOKEN, 200, token("wif-1", json!({})));
    let cfg = AuthConfig::jwt_bearer(
        PreRegisteredClient::for_issuer(AS, "conformance-wif-workload", None),
        "wl.jwt.x",
    );
    let mut f = flow(cfg);
    f.on_challenge(now, 401, Some(CHALLENGE));
    let t = fake.drive(&mut f, now).unwrap();
    assert_eq!(t.access_token.expose(), "wif-1");
    assert_eq!(t.issuer, AS);
    let body = fake.body_of(TOKEN);
    assert_eq!(param(&body, "grant_type").as_deref(), Some(JWT_BEARER));
    assert_eq!(param(&body, "assertion").as_deref(), Some("wl.jwt.x"));
    assert_eq!(param(&body, "client_id").as_deref(), Some("conformance-wif-workload"));
    assert_eq!(param(&body, "resource").as_deref(), Some(MCP));
    assert_eq!(fake.urls().iter().filter(|u| u.contains("/register")).count(), 0);
}

#[test]
fn a_refused_assertion_is_not_retried_until_replaced() {
    let now = t0();
    let mut fake = Fake::new();
    fake.on(PRM_PATH, 200, prm(MCP, &[AS], None))
        .on(AS_META, 200, as_meta(AS, json!({"grant_types_supported": [JWT_BEARER]})))
        .on(TOKEN, 400, r#"{"error":"invalid_grant","error_description":"JWT assertion is expired"}"#)
        .on(TOKEN, 200, token("wif-2", json!({})));
    let cfg = AuthConfig::jwt_bearer(PreRegisteredClient::for_issuer(AS, "w", None), "expired.jwt.x");
    let mut f = flow(cfg);
    f.on_challenge(now, 401, Some(CHALLENGE));
    let e = fake.drive(&mut f, now).unwrap_err();
    assert!(matches!(e, OAuthError::TokenRejected { error: OAuthErrorCode::InvalidGrant, .. }), "{e:?}");
    let token_requests = |fake: &Fake| fake.urls().iter().filter(|u| **u == TOKEN).count();
    assert_eq!(token_requests(&fake), 1);
    // The server asks again: no second try with the same assertion, no other grant.
    f.on_challenge(now, 401, Some(CHALLENGE));
    assert!(matches!(fake.drive(&mut f, now), Err(OAuthError::AssertionRejected)));
    assert_eq!(token_requests(&fake), 1);
    assert!(fake.authorize_urls.is_empty());
    // A fresh assertion is used.
    f.set_assertion(Secret::new("fresh.jwt.x"));
    f.on_challenge(now, 401, Some(CHALLENGE));
    assert_eq!(fake.drive(&mut f, now).unwrap().access_token.expose(), "wif-2");
    assert_eq!(param(&fake.body_of(TOKEN), "assertion").as_deref(), Some("fresh.jwt.x"));
}

const IDP: &str = "https://idp.example.com";
const IDP_TOKEN: &str = "https://idp.example.com/token";

fn enterprise(fake: &mut Fake) -> mcpwire_core::oauth::AuthFlow {
    fake.on(PRM_PATH, 200, prm(MCP, &[AS], None)).on(
        AS_META,
        200,
        as_meta(
            AS,
            json!({"grant_types_supported": [JWT_BEARER], "token_endpoint_auth_methods_supported": ["client_secret_basic"]}),
        ),
    );
    let idp = IdentityProvider::new(IDP, IDP_TOKEN, "idp-client", "user.id.token");
    let client = PreRegisteredClient::for_issuer(AS, "xaa-client", Some("xaa-secret"));
    flow(AuthConfig::enterprise_managed(client, idp))
}

#[test]
fn enterprise_managed_exchanges_the_id_token_then_presents_the_id_jag() {
    let now = t0();
    let mut fake = Fake::new();
    let mut f = enterprise(&mut fake);
    fake.on(
        IDP_TOKEN,
        200,
        r#"{"access_token":"id.jag.jwt","issued_token_type":"urn:ietf:params:oauth:token-type:id-jag","token_type":"N_A"}"#,
    )
    .on(TOKEN, 200, token("xaa-1", json!({})));
    f.on_challenge(now, 401, Some(CHALLENGE));
    assert_eq!(fake.drive(&mut f, now).unwrap().access_token.expose(), "xaa-1");
    assert_eq!(fake.urls(), [PRM_PATH, AS_META, IDP_TOKEN, TOKEN]);

    let x = fake.body_of(IDP_TOKEN);
    assert_eq!(param(&x, "grant_type").as_deref(), Some("urn:ietf:params:oauth:grant-type:token-exchange"));
    assert_eq!(param(&x, "requested_token_type").as_deref(), Some("urn:ietf:params:oauth:token-type:id-jag"));
    assert_eq!(param(&x, "subject_token").as_deref(), Some("user.id.token"));
    assert_eq!(param(&x, "subject_token_type").as_deref(), Some("urn:ietf:params:oauth:token-type:id_token"));
    assert_eq!(param(&x, "audience").as_deref(), Some(AS), "the ID-JAG is for the MCP authorization server");
    assert_eq!(param(&x, "resource").as_deref(), Some(MCP));
    assert_eq!(param(&x, "client_id").as_deref(), Some("idp-client"));
    assert!(fake.header_of(IDP_TOKEN, "authorization").is_none(), "the AS secret never goes to the IdP");

    let g = fake.body_of(TOKEN);
    assert_eq!(param(&g, "grant_type").as_deref(), Some(JWT_BEARER));
    assert_eq!(param(&g, "assertion").as_deref(), Some("id.jag.jwt"));
    assert!(!g.contains("user.id.token"), "the ID token goes to the IdP only");
    use base64::Engine as _;
    let basic = base64::engine::general_purpose::STANDARD.encode("xaa-client:xaa-secret");
    assert_eq!(fake.header_of(TOKEN, "authorization"), Some(format!("Basic {basic}")));
}

#[test]
fn enterprise_managed_refusals_are_typed() {
    let now = t0();
    let mut fake = Fake::new();
    let mut f = enterprise(&mut fake);
    fake.on(IDP_TOKEN, 400, r#"{"error":"invalid_grant","error_description":"Invalid ID token"}"#).on(
        IDP_TOKEN,
        200,
        r#"{"access_token":"not-a-jag","issued_token_type":"urn:ietf:params:oauth:token-type:access_token"}"#,
    );
    f.on_challenge(now, 401, Some(CHALLENGE));
    let e = fake.drive(&mut f, now).unwrap_err();
    assert!(matches!(
        e,
        OAuthError::TokenExchangeRejected { status: 400, error: OAuthErrorCode::InvalidGrant, .. }
    ));
    // The refused ID token is not sent again until a new one is given.
    f.on_challenge(now, 401, Some(CHALLENGE));
    assert!(matches!(fake.drive(&mut f, now), Err(OAuthError::AssertionRejected)));
    f.set_assertion(Secret::new("new.id.token"));
    f.on_challenge(now, 401, Some(CHALLENGE));
    assert!(matches!(fake.drive(&mut f, now), Err(OAuthError::TokenExchangeRejected { status: 200, .. })));
    assert_eq!(param(&fake.body_of(IDP_TOKEN), "subject_token").as_deref(), Some("new.id.token"));
    assert!(!fake.urls().contains(&TOKEN), "no grant without an ID-JAG");
    assert!(matches!(f.poll(), None | Some(AuthStep::Notice(_))));
}
