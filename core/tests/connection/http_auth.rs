//! A protected HTTP server: the connection answers `401`/`403` with the OAuth flow (fetches as
//! exchanges, the browser step as a host request, the refused request sent again) or with the
//! host's token provider; tokens are refreshed ahead of expiry; failures are typed and bounded.

use serde_json::{json, Value};

use mcpwire_core::oauth::{AuthConfig, HttpAuth, OAuthSetup};
use mcpwire_core::types::HostRequest;
use mcpwire_core::{Event, HandlerError, Request, RequestError, ServerRequestKind};

use crate::harness::{call, discover_ok, secs, text_result, Harness};
use crate::http_harness::{http_config, Sent};

pub(crate) const SERVER: &str = "https://srv.test/mcp";
pub(crate) const PRM: &str = "https://srv.test/.well-known/oauth-protected-resource/mcp";
pub(crate) const REDIRECT: &str = "http://127.0.0.1:8765/callback";

fn challenge() -> String {
    format!(r#"Bearer resource_metadata="{PRM}""#)
}

pub(crate) fn oauth_harness(setup: impl FnMut(&mut OAuthSetup)) -> Harness {
    oauth_harness_traced(setup, false)
}

/// [`oauth_harness`], with the wire trace on or off.
pub(crate) fn oauth_harness_traced(mut setup: impl FnMut(&mut OAuthSetup), wire_trace: bool) -> Harness {
    let mut cfg = http_config(SERVER, &[]);
    cfg.wire_trace = wire_trace;
    let mut oauth = OAuthSetup::new(AuthConfig::authorization_code(REDIRECT), vec![9; 32], 1_700_000_000);
    setup(&mut oauth);
    if let mcpwire_core::TransportConfig::Http(http) = &mut cfg.transport {
        http.auth = HttpAuth::OAuth(Box::new(oauth));
    }
    Harness::new(cfg)
}

pub(crate) fn as_metadata(pkce: bool) -> Value {
    let mut meta = json!({
        "issuer": "https://auth.test",
        "authorization_endpoint": "https://auth.test/authorize",
        "token_endpoint": "https://auth.test/token",
        "registration_endpoint": "https://auth.test/register",
        "token_endpoint_auth_methods_supported": ["none"],
    });
    if pkce {
        meta["code_challenge_methods_supported"] = json!(["S256"]);
    }
    meta
}

pub(crate) fn json_answer(h: &mut Harness, sent: &Sent, status: u16, body: &Value) {
    h.respond_http(sent.id, status, &[("Content-Type", "application/json")], body.to_string().as_bytes());
}

/// Answers the discovery and registration fetches; returns the browser step's URL and handle.
fn discover_and_register(h: &mut Harness) -> (mcpwire_core::ServerRequestHandle, String) {
    let prm = h.expect_http("GET");
    assert_eq!(prm.req.url, PRM);
    assert_eq!(prm.header("Authorization"), None);
    let resource = json!({"resource": SERVER, "authorization_servers": ["https://auth.test"]});
    json_answer(h, &prm, 200, &resource);
    let meta = h.expect_http("GET");
    assert_eq!(meta.req.url, "https://auth.test/.well-known/oauth-authorization-server");
    json_answer(h, &meta, 200, &as_metadata(true));
    let register = h.started_http().remove(0);
    assert_eq!(register.req.url, "https://auth.test/register");
    json_answer(h, &register, 201, &json!({"client_id": "client-1"}));
    let (handle, request) = h.take_server_request();
    assert_eq!(request.kind, ServerRequestKind::Authorization);
    let HostRequest::Authorization(auth) = request.request else { panic!("not an authorization request") };
    assert_eq!(auth.redirect_uri, REDIRECT);
    assert!(auth.url.starts_with("https://auth.test/authorize?"), "{}", auth.url);
    (handle, auth.url)
}

pub(crate) fn state_of(url: &str) -> String {
    url.split("state=").nth(1).unwrap().split('&').next().unwrap().to_owned()
}

/// Answers the browser step and the token request with `token` (valid `expires_in` seconds).
fn sign_in(
    h: &mut Harness,
    handle: mcpwire_core::ServerRequestHandle,
    url: &str,
    token: &str,
    expires_in: u64,
) {
    let callback = format!("{REDIRECT}?code=abc&state={}&iss=https%3A%2F%2Fauth.test", state_of(url));
    assert!(h.respond(handle, Ok(json!({"callback": callback}))));
    let token_req = h.started_http().remove(0);
    assert_eq!(token_req.req.url, "https://auth.test/token");
    assert_eq!(token_req.header("Authorization"), None);
    let body = String::from_utf8(token_req.req.body.clone()).unwrap();
    assert!(body.contains("grant_type=authorization_code") && body.contains("code_verifier="), "{body}");
    let answer = json!({"access_token": token, "token_type": "Bearer", "expires_in": expires_in,
                        "refresh_token": format!("refresh-{token}")});
    json_answer(h, &token_req, 200, &answer);
}

fn unauthorized(h: &mut Harness, sent: &Sent) {
    let www = challenge();
    h.respond_http(sent.id, 401, &[("WWW-Authenticate", www.as_str())], b"");
}

/// Connects through a first authorization; returns the harness with a `tok-1` token.
pub(crate) fn authorized(expires_in: u64) -> Harness {
    authorized_traced(expires_in, false)
}

/// [`authorized`], with the wire trace on or off.
pub(crate) fn authorized_traced(expires_in: u64, wire_trace: bool) -> Harness {
    let mut h = oauth_harness_traced(|_| {}, wire_trace);
    let c = h.request(Request::Connect);
    let probe = h.expect_http("server/discover");
    unauthorized(&mut h, &probe);
    let (handle, url) = discover_and_register(&mut h);
    sign_in(&mut h, handle, &url, "tok-1", expires_in);
    let saved = h.take_event(|e| matches!(e, Event::AuthorizationSaved(_)));
    let Some(Event::AuthorizationSaved(record)) = saved else { panic!("no saved record") };
    assert_eq!(record.tokens.as_ref().map(|t| t.access_token.expose()), Some("tok-1"));
    assert_eq!(record.client.as_ref().map(|c| c.client_id.as_str()), Some("client-1"));
    let probe = h.expect_http("server/discover");
    assert_eq!(probe.header("Authorization"), Some("Bearer tok-1"));
    h.reply_http(&probe, discover_ok());
    h.ok(c);
    h.know_tools(json!([]));
    h
}

#[test]
fn a_refused_handshake_authorizes_through_the_browser_step_then_connects() {
    let mut h = authorized(3600);
    let t = h.request(call("echo", json!({})));
    let sent = h.expect_http("tools/call");
    assert_eq!(sent.header("Authorization"), Some("Bearer tok-1"));
    h.reply_http(&sent, text_result("ok"));
    h.ok(t);
    h.assert_all_answered();
}

#[test]
fn a_refused_call_refreshes_and_goes_out_again_once() {
    let mut h = authorized(3600);
    let t = h.request(call("echo", json!({})));
    let first = h.expect_http("tools/call");
    unauthorized(&mut h, &first);
    // A 401 re-discovers the resource (its authorization server may have moved); the same
    // server's metadata is kept, and the refresh token is used.
    let prm = h.expect_http("GET");
    assert_eq!(prm.req.url, PRM);
    let resource = json!({"resource": SERVER, "authorization_servers": ["https://auth.test"]});
    json_answer(&mut h, &prm, 200, &resource);
    let refresh = h.started_http().remove(0);
    let body = String::from_utf8(refresh.req.body.clone()).unwrap();
    assert!(
        body.contains("grant_type=refresh_token") && body.contains("refresh_token=refresh-tok-1"),
        "{body}"
    );
    json_answer(
        &mut h,
        &refresh,
        200,
        &json!({"access_token": "tok-2", "token_type": "Bearer", "expires_in": 3600}),
    );
    let again = h.expect_http("tools/call");
    assert_eq!(again.header("Authorization"), Some("Bearer tok-2"));
    assert_ne!(again.json()["id"], first.json()["id"], "a new wire id");
    h.reply_http(&again, text_result("ok"));
    h.ok(t);
}

#[test]
fn a_token_about_to_expire_is_refreshed_before_the_request_goes_out() {
    let mut h = authorized(60);
    h.advance(secs(45));
    let t = h.request(call("echo", json!({})));
    let refresh = h.started_http().remove(0);
    assert_eq!(refresh.req.url, "https://auth.test/token", "the refresh goes first");
    json_answer(
        &mut h,
        &refresh,
        200,
        &json!({"access_token": "tok-2", "token_type": "Bearer", "expires_in": 3600}),
    );
    assert!(h.take_event(|e| matches!(e, Event::AuthorizationSaved(_))).is_some());
    let sent = h.expect_http("tools/call");
    assert_eq!(sent.header("Authorization"), Some("Bearer tok-2"));
    h.reply_http(&sent, text_result("ok"));
    h.ok(t);
}

#[test]
fn an_authorization_server_without_pkce_fails_the_connect_with_a_typed_error() {
    let mut h = oauth_harness(|_| {});
    let c = h.request(Request::Connect);
    let probe = h.expect_http("server/discover");
    unauthorized(&mut h, &probe);
    let prm = h.expect_http("GET");
    json_answer(
        &mut h,
        &prm,
        200,
        &json!({"resource": SERVER, "authorization_servers": ["https://auth.test"]}),
    );
    let meta = h.expect_http("GET");
    json_answer(&mut h, &meta, 200, &as_metadata(false));
    match h.err(c) {
        RequestError::AuthorizationFailed {
            oauth: Some(mcpwire_core::oauth::OAuthError::PkceNotSupported { .. }),
            ..
        } => {}
        other => panic!("expected a PKCE refusal, got {other:?}"),
    }
}

#[test]
fn a_declined_or_silent_browser_step_fails_the_connect() {
    let mut h = oauth_harness(|_| {});
    let c = h.request(Request::Connect);
    let probe = h.expect_http("server/discover");
    unauthorized(&mut h, &probe);
    let (handle, _) = discover_and_register(&mut h);
    h.respond(handle, Err(HandlerError::new("user closed the window")));
    assert!(
        matches!(h.err(c), RequestError::AuthorizationFailed { oauth: None, detail } if detail.contains("declined"))
    );

    let mut h = oauth_harness(|s| s.authorization_timeout = secs(120));
    let c = h.request(Request::Connect);
    let probe = h.expect_http("server/discover");
    unauthorized(&mut h, &probe);
    let (handle, _) = discover_and_register(&mut h);
    assert_eq!(h.next_timer_in(), Some(secs(120)), "the browser step has its own deadline");
    h.advance(secs(120));
    let cancelled =
        h.take_event(|e| matches!(e, Event::ServerRequestCancelled { handle: x } if *x == handle));
    assert!(cancelled.is_some(), "the browser step is withdrawn");
    assert!(
        matches!(h.err(c), RequestError::AuthorizationFailed { detail, .. } if detail.contains("too long"))
    );
}

#[test]
fn a_server_that_refuses_every_token_stops_after_a_bounded_number_of_rounds() {
    let mut h = authorized(3600);
    let t = h.request(call("echo", json!({})));
    let mut rounds = 0;
    loop {
        let sent = h.started_http().remove(0);
        match sent.req.url.as_str() {
            SERVER => unauthorized(&mut h, &sent),
            PRM => json_answer(
                &mut h,
                &sent,
                200,
                &json!({"resource": SERVER, "authorization_servers": ["https://auth.test"]}),
            ),
            "https://auth.test/.well-known/oauth-authorization-server" => {
                json_answer(&mut h, &sent, 200, &as_metadata(true))
            }
            "https://auth.test/token" => {
                rounds += 1;
                let answer = json!({"access_token": format!("tok-r{rounds}"), "token_type": "Bearer",
                                    "refresh_token": format!("rt-{rounds}")});
                json_answer(&mut h, &sent, 200, &answer);
            }
            other => panic!("unexpected request to {other}"),
        }
        if let Some(Event::Response { result, .. }) =
            h.take_event(|e| matches!(e, Event::Response { handle, .. } if *handle == t))
        {
            assert!(matches!(result, Err(RequestError::Unauthorized { status: 401, .. })), "{result:?}");
            break;
        }
        assert!(rounds <= 5, "the rounds must be bounded");
    }
    assert!(rounds >= 1);
}

#[test]
fn the_token_provider_is_asked_and_the_request_goes_out_again() {
    let mut cfg = http_config(SERVER, &[]);
    if let mcpwire_core::TransportConfig::Http(http) = &mut cfg.transport {
        http.auth = HttpAuth::TokenProvider;
    }
    let mut h = Harness::new(cfg);
    let c = h.request(Request::Connect);
    let probe = h.expect_http("server/discover");
    unauthorized(&mut h, &probe);
    let (handle, request) = h.take_server_request();
    let HostRequest::AccessToken(ask) = request.request else { panic!("not a token request") };
    assert_eq!((ask.server_url.as_str(), ask.status, ask.attempt), (SERVER, 401, 1));
    assert_eq!(ask.www_authenticate.as_deref(), Some(challenge().as_str()));
    h.respond(handle, Ok(json!({"accessToken": "host-token"})));
    let probe = h.expect_http("server/discover");
    assert_eq!(probe.header("Authorization"), Some("Bearer host-token"));
    unauthorized(&mut h, &probe);
    let (handle, request) = h.take_server_request();
    let HostRequest::AccessToken(ask) = request.request else { panic!("not a token request") };
    assert_eq!(ask.attempt, 2);
    h.respond(handle, Ok(json!({"accessToken": "host-token-2"})));
    let probe = h.expect_http("server/discover");
    unauthorized(&mut h, &probe);
    assert!(matches!(h.err(c), RequestError::Unauthorized { status: 401, .. }), "two attempts, then final");

    // A malformed answer is a typed failure.
    let c = h.request(Request::Connect);
    let probe = h.expect_http("server/discover");
    unauthorized(&mut h, &probe);
    let (handle, _) = h.take_server_request();
    h.respond(handle, Ok(json!({"accessToken": "has space"})));
    assert!(matches!(h.err(c), RequestError::AuthorizationFailed { .. }));
}

#[test]
fn a_refused_legacy_initialize_is_sent_again_once_authorized() {
    let mut h = oauth_harness(|_| {});
    let c = h.request(Request::Connect);
    let probe = h.expect_http("server/discover");
    h.respond_http(probe.id, 400, &[("Content-Type", "text/plain")], b"no session");
    let init = h.expect_http("initialize");
    unauthorized(&mut h, &init);
    let (handle, url) = discover_and_register(&mut h);
    sign_in(&mut h, handle, &url, "tok-1", 3600);
    let init = h.expect_http("initialize");
    assert_eq!(init.header("Authorization"), Some("Bearer tok-1"));
    let msg =
        crate::http_harness::result_for(&init.json(), crate::harness::init_result("2025-06-18", json!({})));
    h.head(init.id, 200, &[("Content-Type", "application/json"), ("Mcp-Session-Id", "sess-1")]);
    h.body(init.id, msg.to_string().as_bytes());
    h.end(init.id);
    let mut after = h.started_http();
    assert!(!after.is_empty());
    for sent in &after {
        assert_eq!(sent.header("Authorization"), Some("Bearer tok-1"), "every request carries the token");
    }
    let listen = after.pop().unwrap();
    assert_eq!(listen.req.method, mcpwire_core::HttpMethod::Get);
    h.sse_open(listen.id, ": ok\n\n");
    h.ok(c);
}

#[test]
fn insufficient_scope_steps_up_with_the_union_of_scopes() {
    let mut h = authorized(3600);
    let t = h.request(call("admin", json!({})));
    let sent = h.expect_http("tools/call");
    let www = r#"Bearer error="insufficient_scope", scope="admin:write""#;
    h.respond_http(sent.id, 403, &[("WWW-Authenticate", www)], b"");
    let (handle, request) = h.take_server_request();
    let HostRequest::Authorization(auth) = request.request else { panic!("not an authorization request") };
    assert!(
        auth.url.contains("scope=admin%3Awrite") || auth.url.contains("scope=admin:write"),
        "{}",
        auth.url
    );
    sign_in(&mut h, handle, &auth.url, "tok-admin", 3600);
    let again = h.expect_http("tools/call");
    assert_eq!(again.header("Authorization"), Some("Bearer tok-admin"));
    h.reply_http(&again, text_result("ok"));
    h.ok(t);

    // A 403 that is not about scope is final.
    let t = h.request(call("admin", json!({})));
    let sent = h.expect_http("tools/call");
    h.respond_http(sent.id, 403, &[("WWW-Authenticate", r#"Bearer error="invalid_token""#)], b"");
    assert!(matches!(h.err(t), RequestError::Unauthorized { status: 403, .. }));
}

#[test]
fn an_oversize_or_silent_authorization_server_fails_the_round() {
    // Over the 256 KiB bound: the fetch is aborted and the connect fails at once.
    let mut h = oauth_harness(|_| {});
    let c = h.request(Request::Connect);
    let probe = h.expect_http("server/discover");
    unauthorized(&mut h, &probe);
    let prm = h.expect_http("GET");
    h.head(prm.id, 200, &[("Content-Type", "application/json")]);
    h.body(prm.id, &vec![b' '; 200 * 1024]);
    h.body(prm.id, &vec![b' '; 100 * 1024]);
    assert!(h.aborted().contains(&prm.id), "the oversize answer is aborted");
    match h.err(c) {
        RequestError::AuthorizationFailed { detail, .. } => {
            assert!(detail.contains("the request failed"), "{detail}")
        }
        other => panic!("expected an authorization failure, got {other:?}"),
    }

    // No answer at all: 30 s per fetch.
    let mut h = oauth_harness(|_| {});
    let c = h.request(Request::Connect);
    let probe = h.expect_http("server/discover");
    unauthorized(&mut h, &probe);
    let prm = h.expect_http("GET");
    assert_eq!(h.next_timer_in(), Some(secs(30)));
    h.advance(secs(30));
    assert!(h.aborted().contains(&prm.id), "the silent fetch is aborted");
    assert!(
        matches!(h.err(c), RequestError::AuthorizationFailed { detail, .. } if detail.contains("too long"))
    );
}

#[test]
fn a_silent_token_provider_fails_the_request_after_its_deadline() {
    let mut cfg = http_config(SERVER, &[]);
    if let mcpwire_core::TransportConfig::Http(http) = &mut cfg.transport {
        http.auth = HttpAuth::TokenProvider;
    }
    let mut h = Harness::new(cfg);
    let c = h.request(Request::Connect);
    let probe = h.expect_http("server/discover");
    unauthorized(&mut h, &probe);
    let (handle, _) = h.take_server_request();
    assert_eq!(h.next_timer_in(), Some(secs(60)), "the provider has 60 s; the connect waits that long too");
    h.advance(secs(60));
    let withdrawn =
        h.take_event(|e| matches!(e, Event::ServerRequestCancelled { handle: x } if *x == handle));
    assert!(withdrawn.is_some(), "the token request is withdrawn");
    assert!(matches!(h.err(c), RequestError::AuthorizationFailed { .. }));
    h.respond(handle, Ok(json!({"accessToken": "late"})));
    assert!(h.started_http().is_empty(), "a late token sends nothing");
}

#[test]
fn closing_during_the_browser_step_withdraws_it_and_fails_what_waited() {
    let mut h = oauth_harness(|_| {});
    let c = h.request(Request::Connect);
    let probe = h.expect_http("server/discover");
    unauthorized(&mut h, &probe);
    let (handle, _) = discover_and_register(&mut h);
    h.close();
    let withdrawn =
        h.take_event(|e| matches!(e, Event::ServerRequestCancelled { handle: x } if *x == handle));
    assert!(withdrawn.is_some(), "the browser step is withdrawn");
    assert!(h.response(c).is_err(), "the connect waiting for the sign-in fails");
}

#[test]
fn a_refused_legacy_event_stream_reopens_once_authorized() {
    let mut h = oauth_harness(|_| {});
    let c = h.request(Request::Connect);
    let probe = h.expect_http("server/discover");
    h.respond_http(probe.id, 400, &[("Content-Type", "text/plain")], b"no session");
    let init = h.expect_http("initialize");
    unauthorized(&mut h, &init);
    let (handle, url) = discover_and_register(&mut h);
    sign_in(&mut h, handle, &url, "tok-1", 3600);
    let init = h.expect_http("initialize");
    let msg =
        crate::http_harness::result_for(&init.json(), crate::harness::init_result("2025-06-18", json!({})));
    h.head(init.id, 200, &[("Content-Type", "application/json"), ("Mcp-Session-Id", "sess-1")]);
    h.body(init.id, msg.to_string().as_bytes());
    h.end(init.id);
    let listen = h.started_http().pop().expect("the GET stream");
    assert_eq!(listen.req.method, mcpwire_core::HttpMethod::Get);
    // The token was revoked: the GET stream is refused; the refresh token gets a new one.
    unauthorized(&mut h, &listen);
    let prm = h.expect_http("GET");
    assert_eq!(prm.req.url, PRM);
    json_answer(
        &mut h,
        &prm,
        200,
        &json!({"resource": SERVER, "authorization_servers": ["https://auth.test"]}),
    );
    let refresh = h.started_http().remove(0);
    assert_eq!(refresh.req.url, "https://auth.test/token");
    json_answer(
        &mut h,
        &refresh,
        200,
        &json!({"access_token": "tok-2", "token_type": "Bearer", "expires_in": 3600}),
    );
    let reopened = h.started_http().pop().expect("the GET stream again");
    assert_eq!(reopened.req.method, mcpwire_core::HttpMethod::Get);
    assert_eq!(reopened.header("Authorization"), Some("Bearer tok-2"));
    h.sse_open(reopened.id, ": ok\n\n");
    h.ok(c);
}

/// Every OAuth fetch carries the address rule the runtime must apply to the addresses it
/// resolves (public only: the server is remote), MCP traffic none; a fetch the runtime refuses
/// for its resolved address fails the connect with `OAuthError::UnsafeAddress` naming the URL,
/// the address and its class, and nothing more is fetched.
#[test]
fn a_fetch_refused_for_its_resolved_address_fails_the_connect_with_a_typed_error() {
    use mcpwire_core::address_class::AddressClass;
    use mcpwire_core::{Destination, Input, UnsafeAddress};
    let remote = Destination::Public { loopback: false };
    let mut h = oauth_harness(|_| {});
    let c = h.request(Request::Connect);
    let probe = h.expect_http("server/discover");
    assert_eq!(probe.req.destination, Destination::Any);
    unauthorized(&mut h, &probe);
    let prm = h.expect_http("GET");
    assert_eq!(prm.req.destination, remote);
    json_answer(
        &mut h,
        &prm,
        200,
        &json!({"resource": SERVER, "authorization_servers": ["https://auth.test"]}),
    );
    let meta = h.expect_http("GET");
    assert_eq!(meta.req.destination, remote);
    let metadata_service = std::net::IpAddr::from([169, 254, 169, 254]);
    h.input(Input::HttpRefused(meta.id, UnsafeAddress::new(&meta.req.url, metadata_service)));
    match h.err(c) {
        RequestError::AuthorizationFailed {
            oauth: Some(mcpwire_core::oauth::OAuthError::UnsafeAddress { url, address, class }),
            ..
        } => {
            assert_eq!(url, "https://auth.test/.well-known/oauth-authorization-server");
            assert_eq!((address, class), (metadata_service, AddressClass::LinkLocal));
        }
        other => panic!("expected an unsafe-address refusal, got {other:?}"),
    }
    assert!(h.started_http().is_empty(), "no other candidate is fetched");
}

/// With `allow_private_addresses`, the flow's fetches carry no address rule.
#[test]
fn the_private_address_opt_out_lifts_the_rule_of_every_fetch() {
    let mut h = oauth_harness(|o| o.config.allow_private_addresses = true);
    h.request(Request::Connect);
    let probe = h.expect_http("server/discover");
    unauthorized(&mut h, &probe);
    let prm = h.expect_http("GET");
    assert_eq!(prm.req.destination, mcpwire_core::Destination::Any);
}
