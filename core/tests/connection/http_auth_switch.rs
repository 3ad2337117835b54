//! The authorization server behind a protected MCP server changes (a 401's resource metadata
//! names another issuer): the old issuer's grant is set aside and saved as such at once, the
//! new one's is obtained (or resumed, when it was set aside earlier: presented again, refreshed
//! at its own token endpoint when expired, without a sign-in), and no token or refresh token
//! ever reaches another issuer's endpoints.

use serde_json::{json, Value};

use mcpwire_core::oauth::StoredAuth;
use mcpwire_core::types::HostRequest;
use mcpwire_core::{Event, HandlerError, Request, RequestError, ServerRequestKind};

use crate::harness::{call, discover_ok, secs, text_result, Harness};
use crate::http_auth::{
    as_metadata, authorized, json_answer, oauth_harness, state_of, PRM, REDIRECT, SERVER,
};
use crate::http_harness::Sent;

const A: &str = "https://auth.test";
const B: &str = "https://auth-b.test";

/// `issuer`'s metadata, its endpoints under its own origin.
fn metadata_of(issuer: &str) -> Value {
    let mut meta = as_metadata(true);
    for (field, path) in [
        ("issuer", ""),
        ("authorization_endpoint", "/authorize"),
        ("token_endpoint", "/token"),
        ("registration_endpoint", "/register"),
    ] {
        meta[field] = json!(format!("{issuer}{path}"));
    }
    meta
}

/// Whether an exchange carries `secret` anywhere (URL, headers, body).
fn carries(sent: &Sent, secret: &str) -> bool {
    sent.req.url.contains(secret)
        || sent.req.headers.iter().any(|(_, v)| v.contains(secret))
        || String::from_utf8_lossy(&sent.req.body).contains(secret)
}

/// Takes the only exchange started, checking it is a fetch to `url` carrying none of `secrets`.
fn fetch_to(h: &mut Harness, url: &str, secrets: &[&str]) -> Sent {
    let mut all = h.started_http();
    assert_eq!(all.len(), 1, "expected one fetch to {url}, got {all:#?}");
    let sent = all.remove(0);
    assert_eq!(sent.req.url, url);
    for secret in secrets {
        assert!(!carries(&sent, secret), "{secret} was sent to {url}");
    }
    sent
}

/// The server refuses `sent` with a 401 pointing at its resource metadata, which now names
/// `issuer`; answers that fetch and `issuer`'s metadata fetch.
fn refused_naming(h: &mut Harness, sent: &Sent, issuer: &str, secrets: &[&str]) {
    let www = format!(r#"Bearer resource_metadata="{PRM}""#);
    h.respond_http(sent.id, 401, &[("WWW-Authenticate", www.as_str())], b"");
    let prm = fetch_to(h, PRM, secrets);
    json_answer(h, &prm, 200, &json!({"resource": SERVER, "authorization_servers": [issuer]}));
    let meta = fetch_to(h, &format!("{issuer}/.well-known/oauth-authorization-server"), secrets);
    json_answer(h, &meta, 200, &metadata_of(issuer));
}

/// The record saved last (and that there was one).
fn last_saved(h: &mut Harness) -> StoredAuth {
    let mut last = None;
    while let Some(Event::AuthorizationSaved(record)) =
        h.take_event(|e| matches!(e, Event::AuthorizationSaved(_)))
    {
        last = Some(*record);
    }
    last.expect("a record was saved")
}

fn current_token(record: &StoredAuth) -> Option<&str> {
    record.tokens.as_ref().map(|t| t.access_token.expose())
}

fn set_aside(record: &StoredAuth) -> Vec<(&str, &str)> {
    record.set_aside.iter().map(|g| (g.tokens.issuer.as_str(), g.tokens.access_token.expose())).collect()
}

/// From `authorized` (A's `tok-1` in use), a call refused naming B: A's grant is set aside and
/// saved at once, then B registers a client and signs in (`tok-b`, valid two hours); the call
/// goes out again with `tok-b`.
fn switch_to_b(h: &mut Harness) {
    let t = h.request(call("echo", json!({})));
    let first = h.expect_http("tools/call");
    assert_eq!(first.header("Authorization"), Some("Bearer tok-1"));
    refused_naming(h, &first, B, &["tok-1"]);
    let record = last_saved(h);
    assert_eq!(current_token(&record), None, "A's token is no longer the server's");
    assert_eq!(set_aside(&record), [(A, "tok-1")], "it is set aside under its issuer");

    let register = fetch_to(h, &format!("{B}/register"), &["tok-1"]);
    json_answer(h, &register, 201, &json!({"client_id": "client-b"}));
    let (handle, request) = h.take_server_request();
    let HostRequest::Authorization(auth) = request.request else { panic!("not a sign-in") };
    assert!(auth.url.starts_with(&format!("{B}/authorize?")), "{}", auth.url);
    let callback = format!("{REDIRECT}?code=b&state={}&iss=https%3A%2F%2Fauth-b.test", state_of(&auth.url));
    assert!(h.respond(handle, Ok(json!({"callback": callback}))));
    let token = fetch_to(h, &format!("{B}/token"), &["tok-1"]);
    assert_eq!(token.header("Authorization"), None);
    let answer = json!({"access_token": "tok-b", "token_type": "Bearer", "expires_in": 7200,
                        "refresh_token": "refresh-tok-b"});
    json_answer(h, &token, 200, &answer);
    let record = last_saved(h);
    assert_eq!(current_token(&record), Some("tok-b"));
    assert_eq!(set_aside(&record), [(A, "tok-1")]);

    let again = h.expect_http("tools/call");
    assert_eq!(again.header("Authorization"), Some("Bearer tok-b"));
    h.reply_http(&again, text_result("ok"));
    h.ok(t);
}

#[test]
fn a_grant_set_aside_is_resumed_without_a_sign_in_when_its_issuer_comes_back() {
    let mut h = authorized(3600);
    switch_to_b(&mut h);

    let t = h.request(call("echo", json!({})));
    let sent = h.expect_http("tools/call");
    assert_eq!(sent.header("Authorization"), Some("Bearer tok-b"));
    refused_naming(&mut h, &sent, A, &["tok-b"]);
    let again = h.expect_http("tools/call");
    assert_eq!(again.header("Authorization"), Some("Bearer tok-1"), "A's token, with no token request");
    assert!(h.take_event(|e| matches!(e, Event::ServerRequest { .. })).is_none(), "no sign-in");
    let record = last_saved(&mut h);
    assert_eq!(current_token(&record), Some("tok-1"));
    assert_eq!(set_aside(&record), [(B, "tok-b")], "B's grant is set aside in turn");
    h.reply_http(&again, text_result("ok"));
    h.ok(t);
    h.assert_all_answered();
}

#[test]
fn an_expired_grant_is_refreshed_at_its_own_issuer_when_resumed() {
    let mut h = authorized(3600);
    switch_to_b(&mut h);
    h.advance(secs(3600));

    let t = h.request(call("echo", json!({})));
    let sent = h.expect_http("tools/call");
    assert_eq!(sent.header("Authorization"), Some("Bearer tok-b"), "B's token is still good");
    refused_naming(&mut h, &sent, A, &["tok-b"]);
    let refresh = fetch_to(&mut h, &format!("{A}/token"), &["tok-b"]);
    let body = String::from_utf8(refresh.req.body.clone()).unwrap();
    assert!(body.contains("grant_type=refresh_token&refresh_token=refresh-tok-1"), "{body}");
    json_answer(
        &mut h,
        &refresh,
        200,
        &json!({"access_token": "tok-1b", "token_type": "Bearer", "expires_in": 3600}),
    );
    let again = h.expect_http("tools/call");
    assert_eq!(again.header("Authorization"), Some("Bearer tok-1b"));
    assert!(h.take_event(|e| matches!(e, Event::ServerRequest { .. })).is_none(), "no sign-in");
    h.reply_http(&again, text_result("ok"));
    h.ok(t);
}

#[test]
fn a_retired_token_is_gone_from_the_saved_record_even_when_the_new_sign_in_fails() {
    let mut h = authorized(3600);
    let t = h.request(call("echo", json!({})));
    let first = h.expect_http("tools/call");
    refused_naming(&mut h, &first, B, &["tok-1"]);
    let register = fetch_to(&mut h, &format!("{B}/register"), &["tok-1"]);
    json_answer(&mut h, &register, 201, &json!({"client_id": "client-b"}));
    let (handle, request) = h.take_server_request();
    assert_eq!(request.kind, ServerRequestKind::Authorization);
    h.respond(handle, Err(HandlerError::new("user closed the window")));
    assert!(matches!(h.err(t), RequestError::AuthorizationFailed { .. }));

    // What the host's store holds now (the only record saved since the switch).
    let record = last_saved(&mut h);
    assert_eq!(current_token(&record), None);
    assert_eq!(record.client, None, "A's client left with its tokens");
    assert_eq!(record.auth_server.as_ref().map(|m| m.issuer.as_str()), Some(B));
    assert_eq!(set_aside(&record), [(A, "tok-1")]);

    // Nor does this run present it again.
    let t = h.request(call("echo", json!({})));
    let sent = h.expect_http("tools/call");
    assert_eq!(sent.header("Authorization"), None, "the retired token stays out of use");
    h.reply_http(&sent, text_result("ok"));
    h.ok(t);
}

#[test]
fn a_saved_record_resumes_the_set_aside_grant_only_for_its_own_issuer() {
    // The record saved at the switch to B, before B's sign-in: A's grant set aside.
    let mut h = authorized(3600);
    let t = h.request(call("echo", json!({})));
    let first = h.expect_http("tools/call");
    refused_naming(&mut h, &first, B, &["tok-1"]);
    let record = last_saved(&mut h);
    assert!(!h.has_response(t), "still waiting for B's sign-in");

    // Next run, the server names A again: A's token goes out without a sign-in.
    let mut h = oauth_harness(|s| s.stored = Some(record.clone()));
    let c = h.request(Request::Connect);
    let probe = h.expect_http("server/discover");
    assert_eq!(probe.header("Authorization"), None, "nothing is current");
    refused_naming(&mut h, &probe, A, &["tok-1"]);
    let probe = h.expect_http("server/discover");
    assert_eq!(probe.header("Authorization"), Some("Bearer tok-1"));
    h.reply_http(&probe, discover_ok());
    h.ok(c);

    // Next run, the server names B: A's token goes nowhere, B needs its sign-in.
    let mut h = oauth_harness(|s| s.stored = Some(record.clone()));
    let c = h.request(Request::Connect);
    let probe = h.expect_http("server/discover");
    let www = format!(r#"Bearer resource_metadata="{PRM}""#);
    h.respond_http(probe.id, 401, &[("WWW-Authenticate", www.as_str())], b"");
    let prm = fetch_to(&mut h, PRM, &["tok-1"]);
    json_answer(&mut h, &prm, 200, &json!({"resource": SERVER, "authorization_servers": [B]}));
    // B's metadata came with the record.
    let register = fetch_to(&mut h, &format!("{B}/register"), &["tok-1"]);
    json_answer(&mut h, &register, 201, &json!({"client_id": "client-b"}));
    let (_, request) = h.take_server_request();
    assert_eq!(request.kind, ServerRequestKind::Authorization);
    h.close();
    assert!(h.response(c).is_err(), "closed while signing in");
}
