//! Set-aside grants in the stored record ([`StoredAuth::set_aside`]): they round-trip, a
//! record from before the field existed still loads, odd ones are typed errors, and a
//! set-aside token is never presented until its issuer is named again.

use std::time::Instant;

use mcpwire_core::oauth::{AuthFlow, OAuthError, StoredAuth, StoredGrant, TokenType, MAX_SET_ASIDE};
use serde_json::json;

use crate::harness::*;

const UNIX: u64 = 1_000_000;

/// A record with A's token in use, as a signed-in flow saves it.
fn signed_in(now: Instant) -> StoredAuth {
    let mut fake = Fake::new();
    fake.on(&format!("{AS}/token"), 200, token("at-a", json!({"refresh_token": "rt-a"})));
    fake.standard(json!({}));
    let mut f = flow(code_config());
    f.on_challenge(now, 401, Some(CHALLENGE));
    fake.drive(&mut f, now).unwrap();
    f.stored(now, UNIX)
}

/// `record` after a switch to `issuer`: the grant in use moved to `set_aside`.
fn switched(mut record: StoredAuth, issuer: &str) -> StoredAuth {
    let grant = StoredGrant { client: record.client.take().unwrap(), tokens: record.tokens.take().unwrap() };
    record.set_aside.push(grant);
    record.auth_server.as_mut().unwrap().issuer = issuer.to_owned();
    record
}

fn restore(record: StoredAuth, now: Instant) -> Result<AuthFlow, OAuthError> {
    flow(code_config()).with_stored(record, now, UNIX)
}

#[test]
fn set_aside_grants_round_trip_and_stay_out_of_use() {
    let now = t0();
    let record = switched(signed_in(now), "https://auth-b.example.com");
    let text = serde_json::to_string(&record).unwrap();
    let back: StoredAuth = serde_json::from_str(&text).unwrap();
    assert_eq!(back, record);
    let f = restore(back, now).unwrap();
    assert_eq!(f.set_aside_issuers().collect::<Vec<_>>(), [AS]);
    assert_eq!(f.tokens(), None);
    assert_eq!(f.authorization_header(MCP), None, "a set-aside token is not presented");
    assert_eq!(f.stored(now, UNIX), record, "and is saved again as it was");
}

#[test]
fn a_record_written_before_set_aside_existed_loads() {
    let now = t0();
    let record = signed_in(now);
    let mut value = serde_json::to_value(&record).unwrap();
    assert!(value.get("set_aside").is_none(), "nothing set aside, nothing written");
    // The exact shape the previous release wrote (same version, no `set_aside`).
    value.as_object_mut().unwrap().remove("set_aside");
    let old: StoredAuth = serde_json::from_value(value).unwrap();
    assert!(old.set_aside.is_empty());
    let f = restore(old, now).unwrap();
    assert_eq!(f.authorization_header(MCP).as_deref(), Some("Bearer at-a"));
}

#[test]
fn odd_set_aside_grants_are_typed_errors() {
    let now = t0();
    let base = switched(signed_in(now), "https://auth-b.example.com");
    let invalid = |record: StoredAuth, why: &str| match restore(record, now) {
        Err(OAuthError::InvalidStored(detail)) => assert!(detail.contains(why), "{detail}"),
        other => panic!("{why}: {other:?}"),
    };

    let mut foreign_client = base.clone();
    foreign_client.set_aside[0].client.issuer = "https://auth-b.example.com".into();
    invalid(foreign_client, "without their client");

    let mut twice = base.clone();
    twice.set_aside.push(twice.set_aside[0].clone());
    invalid(twice, "two grants");

    let mut also_current = signed_in(now);
    also_current.set_aside.push(base.set_aside[0].clone());
    invalid(also_current, "two grants");

    let mut keyless = base.clone();
    keyless.set_aside[0].tokens.token_type = TokenType::Dpop;
    invalid(keyless, "DPoP");

    let mut other_resource = signed_in(now);
    other_resource.tokens.as_mut().unwrap().resource = "https://mcp.example.com/other".into();
    invalid(other_resource, "another resource");

    // Too many: the first MAX_SET_ASIDE are kept.
    let mut many = base;
    let grant = many.set_aside.remove(0);
    for n in 0..MAX_SET_ASIDE + 3 {
        let mut g = grant.clone();
        g.tokens.issuer = format!("https://as{n}.example.com");
        g.client.issuer = g.tokens.issuer.clone();
        many.set_aside.push(g);
    }
    assert_eq!(restore(many, now).unwrap().set_aside_issuers().count(), MAX_SET_ASIDE);
}

#[test]
fn a_restored_set_aside_grant_is_resumed_only_for_its_issuer_and_resource() {
    let now = t0();
    let record = switched(signed_in(now), "https://auth-b.example.com");

    // The server names A again, for the same resource: A's token, no sign-in, no token request.
    let mut fake = Fake::new();
    fake.standard(json!({}));
    let mut f = restore(record.clone(), now).unwrap();
    f.on_challenge(now, 401, Some(CHALLENGE));
    assert_eq!(fake.drive(&mut f, now).unwrap().access_token.expose(), "at-a");
    assert_eq!(fake.switches, [AS]);
    assert!(fake.authorize_urls.is_empty());
    assert!(!fake.urls().iter().any(|u| u.ends_with("/token")), "{:?}", fake.urls());
    assert_eq!(f.authorization_header(MCP).as_deref(), Some("Bearer at-a"));
    assert_eq!(f.set_aside_issuers().count(), 0);

    // A for a resource the token was not obtained for: the grant is dropped, A signs in anew.
    let mut fake = Fake::new();
    fake.on(&format!("{AS}/token"), 200, token("at-new", json!({})));
    fake.standard_with(prm("https://mcp.example.com/", &[AS], None), json!({}));
    let mut f = restore(record, now).unwrap();
    f.on_challenge(now, 401, Some(CHALLENGE));
    assert_eq!(fake.drive(&mut f, now).unwrap().access_token.expose(), "at-new");
    assert_eq!(fake.authorize_urls.len(), 1);
    assert_eq!(f.set_aside_issuers().count(), 0);
}
