//! Legacy resource subscriptions (`resources/subscribe`) survive a restart: the confirmed set
//! is renewed right after each new handshake (stdio restart, HTTP 404 -> new session), a
//! refused renewal leaves the set with `Event::ResourceSubscriptionDropped`, an unanswered one
//! stays for the next session, and an unsubscribed URI is not renewed.

use serde_json::{json, Value};

use super::harness::*;
use super::http_harness::*;
use mcpwire_core::{Event, HttpMethod, Request, RequestError, Response};

fn subscribe(uri: &str) -> Request {
    Request::SubscribeResource { uri: uri.into() }
}

fn subscribing_caps() -> Value {
    json!({"tools": {}, "resources": {"subscribe": true}})
}

fn subscriptions(h: &Harness) -> Vec<String> {
    h.conn.resource_subscriptions().map(str::to_owned).collect()
}

/// A legacy stdio server confirming a subscription to each of `uris`.
fn subscribed(uris: &[&str]) -> Harness {
    let mut h = Harness::legacy_mode();
    h.connect_legacy_with("2025-11-25", subscribing_caps());
    for uri in uris {
        let s = h.request(subscribe(uri));
        let sent = h.expect_sent("resources/subscribe");
        assert_eq!(sent["params"], json!({"uri": uri}));
        h.reply(&sent, json!({}));
        assert_eq!(h.ok(s), Response::Empty);
    }
    assert_eq!(subscriptions(&h), uris);
    h
}

/// The process dies; the next request (a tool call) restarts it and completes the handshake
/// with `caps`. Returns the call's handle.
fn crash_and_call(h: &mut Harness, caps: Value) -> mcpwire_core::RequestHandle {
    h.eof();
    h.exited(exit_code(3));
    h.take_disconnected();
    let r = h.request(call("echo", json!({})));
    h.start();
    h.legacy_handshake("2025-11-25", caps);
    r
}

fn dropped(h: &mut Harness) -> Vec<(String, RequestError)> {
    let mut out = Vec::new();
    while let Some(Event::ResourceSubscriptionDropped { uri, reason }) =
        h.take_event(|e| matches!(e, Event::ResourceSubscriptionDropped { .. }))
    {
        out.push((uri, reason));
    }
    out
}

#[test]
fn a_restarted_process_gets_every_subscription_again_before_the_request_that_restarted_it() {
    let mut h = subscribed(&["test://a", "test://b"]);
    let r = crash_and_call(&mut h, subscribing_caps());
    let sent = h.sent();
    let methods: Vec<_> = sent.iter().map(|m| m["method"].as_str().unwrap_or_default()).collect();
    assert_eq!(methods, ["resources/subscribe", "resources/subscribe", "tools/call"]);
    assert_eq!(sent[0]["params"], json!({"uri": "test://a"}));
    assert_eq!(sent[1]["params"], json!({"uri": "test://b"}));
    // The call is not held for the renewals' answers.
    h.reply(&sent[2], text_result("hi"));
    h.ok(r);
    h.reply(&sent[0], json!({}));
    h.reply(&sent[1], json!({}));
    h.assert_quiet();
    assert_eq!(subscriptions(&h), ["test://a", "test://b"]);
    h.assert_all_answered();

    // Updates of the renewed subscription reach the host as before.
    h.notify("notifications/resources/updated", json!({"uri": "test://a"}));
    assert!(h.take_event(|e| matches!(e, Event::Notification(_))).is_some());
}

#[test]
fn a_refused_renewal_is_reported_and_dropped() {
    let mut h = subscribed(&["test://a", "test://b"]);
    let r = crash_and_call(&mut h, subscribing_caps());
    let sent = h.sent();
    h.reply_error(&sent[0], -32602, "Resource not found", None);
    h.reply(&sent[1], json!({}));
    h.reply(&sent[2], text_result("hi"));
    h.ok(r);
    let gone = dropped(&mut h);
    assert_eq!(gone.len(), 1, "{gone:?}");
    assert_eq!(gone[0].0, "test://a");
    assert!(matches!(&gone[0].1, RequestError::Rpc(e) if e.code == -32602), "{:?}", gone[0].1);
    h.assert_quiet();
    assert_eq!(subscriptions(&h), ["test://b"]);

    // The next process no longer declares `resources.subscribe`: nothing is sent, and the
    // subscription is dropped as refused.
    let r = crash_and_call(&mut h, json!({"tools": {}}));
    let call_sent = h.expect_sent("tools/call");
    h.reply(&call_sent, text_result("hi"));
    h.ok(r);
    let gone = dropped(&mut h);
    assert_eq!(
        gone,
        [(
            "test://b".to_owned(),
            RequestError::CapabilityMissing {
                capability: "resources.subscribe",
                method: "resources/subscribe"
            }
        )]
    );
    h.assert_quiet();
    assert!(subscriptions(&h).is_empty());
    h.assert_all_answered();
}

#[test]
fn an_unsubscribed_resource_is_not_renewed_even_when_the_unsubscribe_failed() {
    let mut h = subscribed(&["test://a", "test://b", "test://c"]);
    let u = h.request(Request::UnsubscribeResource { uri: "test://a".into() });
    let sent = h.expect_sent("resources/unsubscribe");
    h.reply(&sent, json!({}));
    h.ok(u);
    let u = h.request(Request::UnsubscribeResource { uri: "test://c".into() });
    assert_eq!(subscriptions(&h), ["test://b"], "gone as soon as the host asks");
    let sent = h.expect_sent("resources/unsubscribe");
    h.reply_error(&sent, -32603, "internal", None);
    h.err(u);
    let r = crash_and_call(&mut h, subscribing_caps());
    let sent = h.sent();
    let renewed: Vec<_> = sent.iter().filter(|m| m["method"] == "resources/subscribe").collect();
    assert_eq!(renewed.len(), 1, "{sent:#?}");
    assert_eq!(renewed[0]["params"], json!({"uri": "test://b"}));
    h.reply(renewed[0], json!({}));
    let call_sent = sent.iter().find(|m| m["method"] == "tools/call").expect("the call");
    h.reply(call_sent, text_result("hi"));
    h.ok(r);
    h.assert_quiet();
}

#[test]
fn an_unanswered_renewal_keeps_the_subscription_for_the_next_session() {
    let mut h = subscribed(&["test://a"]);
    let r = crash_and_call(&mut h, subscribing_caps());
    let sent = h.sent();
    h.reply(&sent[1], text_result("hi"));
    h.ok(r);
    // The renewal times out (the connection's request timeout): the server is told, the
    // subscription stays.
    h.fire_next_timer();
    let cancelled = h.expect_sent("notifications/cancelled");
    assert_eq!(cancelled["params"]["requestId"], sent[0]["id"]);
    assert!(dropped(&mut h).is_empty());
    h.assert_quiet();
    assert_eq!(subscriptions(&h), ["test://a"]);

    // A renewal in flight when the process dies is not dropped either; the next one renews.
    let r = crash_and_call(&mut h, subscribing_caps());
    let sent = h.sent();
    assert_eq!(sent[0]["method"], "resources/subscribe");
    h.reply(&sent[1], text_result("hi"));
    h.ok(r);
    let r = crash_and_call(&mut h, subscribing_caps());
    assert!(dropped(&mut h).is_empty());
    let sent = h.sent();
    assert_eq!(sent[0]["method"], "resources/subscribe");
    assert_eq!(sent[0]["params"], json!({"uri": "test://a"}));
    h.reply(&sent[0], json!({}));
    h.reply(&sent[1], text_result("hi"));
    h.ok(r);
    h.assert_quiet();
    assert_eq!(subscriptions(&h), ["test://a"]);
    h.assert_all_answered();
}

#[test]
fn a_renewal_on_a_2026_server_is_refused_by_its_era() {
    let mut h = Harness::auto();
    h.connect_legacy_with("2025-11-25", subscribing_caps());
    let s = h.request(subscribe("test://a"));
    let sent = h.expect_sent("resources/subscribe");
    h.reply(&sent, json!({}));
    h.ok(s);
    h.eof();
    h.exited(exit_code(3));
    h.take_disconnected();
    // The restarted server speaks 2026-07-28: `resources/subscribe` no longer exists.
    let r = h.request(Request::ListTools);
    h.start();
    h.modern_handshake(discover_ok());
    let list = h.expect_sent("tools/list");
    h.reply(&list, json!({"tools": [], "ttlMs": 0}));
    h.ok(r);
    let gone = dropped(&mut h);
    assert!(matches!(gone.as_slice(), [(uri, RequestError::Unsupported { .. })] if uri == "test://a"));
    assert!(subscriptions(&h).is_empty());
    h.assert_quiet();
}

// ----- legacy Streamable HTTP ---------------------------------------------------------------

/// A legacy Streamable HTTP handshake whose `initialize` gets session `session` and declares
/// `resources.subscribe`; the GET stream is opened and left quiet.
fn http_handshake(h: &mut Harness, session: &str) {
    let init = h.expect_http("initialize");
    let caps = json!({"prompts": {}, "resources": {"subscribe": true}});
    let msg = result_for(&init.json(), init_result("2025-06-18", caps));
    h.head(init.id, 200, &[("Content-Type", "application/json"), ("Mcp-Session-Id", session)]);
    h.body(init.id, msg.to_string().as_bytes());
    h.end(init.id);
    let started = h.started_http();
    let initialized =
        started.iter().find(|s| s.method() == "notifications/initialized").expect("initialized");
    h.accepted(&initialized.clone());
    let listen = started.iter().find(|s| s.req.method == HttpMethod::Get).expect("a GET stream");
    h.sse_open(listen.id, "");
    h.take_connected();
}

#[test]
fn an_expired_http_session_gets_the_subscriptions_again_before_the_resent_requests() {
    let mut h = Harness::new(http_config("http://srv.test/mcp", &[]));
    let c = h.request(Request::Connect);
    let probe = h.expect_http("server/discover");
    h.respond_http(probe.id, 400, &[("Content-Type", "text/plain")], b"Bad Request: no session");
    http_handshake(&mut h, "sess-1");
    h.ok(c);
    let s = h.request(subscribe("test://a"));
    let sent = h.expect_http("resources/subscribe");
    h.reply_http(&sent, json!({}));
    h.ok(s);

    let l = h.request(Request::ListPrompts);
    let list = h.expect_http("prompts/list");
    h.respond_http(list.id, 404, &[], b"session not found");
    assert!(matches!(h.take_disconnected(), RequestError::SessionExpired));
    http_handshake(&mut h, "sess-2");
    let started = h.started_http();
    let methods: Vec<_> = started.iter().map(|s| s.method()).collect();
    assert_eq!(methods, ["resources/subscribe", "prompts/list"]);
    for sent in &started {
        assert_eq!(sent.header("Mcp-Session-Id"), Some("sess-2"));
    }
    assert_eq!(started[0].json()["params"], json!({"uri": "test://a"}));
    h.reply_http(&started[0].clone(), json!({}));
    h.reply_http(&started[1].clone(), json!({"prompts": []}));
    h.ok(l);
    assert!(dropped(&mut h).is_empty());
    assert_eq!(subscriptions(&h), ["test://a"]);
    h.assert_all_answered();
}
