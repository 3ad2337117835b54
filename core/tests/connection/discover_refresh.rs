//! Freshness without asking (2026-07-28): a `server/discover` answer whose `ttlMs` passed is
//! fetched again before the next request it gates; one refresh at a time, waiting requests keep
//! their timeouts, a failed refresh keeps the old answer with a warning, and the refreshed
//! capabilities gate what waited.

use serde_json::{json, Value};

use super::harness::*;
use super::http_harness::*;
use mcpwire_core::{Request, RequestError, Response, Warning, MODERN_VERSION};

fn discover_caps(caps: Value, ttl_ms: u64) -> Value {
    discover(&[MODERN_VERSION], caps, ttl_ms)
}

/// A modern stdio server whose `server/discover` answer lives `ttl_ms`.
fn connected_with_ttl(caps: Value, ttl_ms: u64) -> Harness {
    let mut h = Harness::auto();
    h.connect_modern_with(discover_caps(caps, ttl_ms));
    h
}

fn methods(sent: &[Value]) -> Vec<&str> {
    sent.iter().map(|m| m["method"].as_str().unwrap_or_default()).collect()
}

fn refresh_warnings(h: &mut Harness) -> Vec<String> {
    h.warnings()
        .into_iter()
        .filter_map(|w| match w {
            Warning::DiscoverRefreshFailed { detail } => Some(detail),
            _ => None,
        })
        .collect()
}

#[test]
fn an_expired_answer_is_refreshed_once_before_the_next_gated_request() {
    let mut h = connected_with_ttl(baseline_caps(), 1000);
    // Fresh: the call goes out at once.
    let r = h.request(call("echo", json!({})));
    let sent = h.expect_sent("tools/call");
    h.reply(&sent, text_result("one"));
    h.ok(r);

    h.advance(ms(1000));
    let r = h.request(call("echo", json!({})));
    let refresh = h.expect_sent("server/discover");
    assert_modern_meta(&refresh);
    h.reply(&refresh, discover_caps(baseline_caps(), 1000));
    let info = h.take_connected();
    assert_eq!(h.conn.server_info(), Some(&info));
    let sent = h.expect_sent("tools/call");
    h.reply(&sent, text_result("two"));
    h.ok(r);
    // Fresh again.
    let r = h.request(call("echo", json!({})));
    let sent = h.expect_sent("tools/call");
    h.reply(&sent, text_result("three"));
    h.ok(r);
    h.assert_quiet();
    h.assert_all_answered();
}

#[test]
fn a_zero_ttl_and_ungated_requests_never_wait_for_a_refresh() {
    let mut h = connected_with_ttl(baseline_caps(), 0);
    h.advance(secs(3600));
    let r = h.request(call("echo", json!({})));
    let sent = h.expect_sent("tools/call");
    h.reply(&sent, text_result("hi"));
    h.ok(r);

    let mut h = connected_with_ttl(baseline_caps(), 1000);
    h.advance(secs(5));
    let custom = Request::Custom { method: "x/y".into(), params: json!({}) };
    let r = h.request(custom);
    let sent = h.expect_sent("x/y");
    h.reply(&sent, json!({}));
    h.ok(r);
    h.assert_quiet();
}

#[test]
fn concurrent_requests_share_one_refresh_and_go_out_in_order() {
    let mut h = connected_with_ttl(baseline_caps(), 1000);
    h.advance(ms(1500));
    let a = h.request(call("echo", json!({})));
    let b = h.request(Request::ListPrompts);
    let refresh = h.expect_sent("server/discover");
    let c = h.request(Request::ListResources);
    assert!(h.sent().is_empty(), "everything waits for the one refresh");
    h.reply(&refresh, discover_caps(baseline_caps(), 1000));
    h.take_connected();
    let sent = h.sent();
    assert_eq!(methods(&sent), ["tools/call", "prompts/list", "resources/list"]);
    h.reply(&sent[0], text_result("a"));
    h.reply(&sent[1], json!({"prompts": [], "ttlMs": 0}));
    h.reply(&sent[2], json!({"resources": [], "ttlMs": 0}));
    h.ok(a);
    h.ok(b);
    h.ok(c);
    h.assert_quiet();
    h.assert_all_answered();
}

#[test]
fn the_refreshed_capabilities_gate_what_waited() {
    let mut h = connected_with_ttl(json!({"tools": {}}), 1000);
    h.advance(ms(1000));
    // Refused by the old answer, allowed by the new one; and the other way round.
    let prompts = h.request(Request::ListPrompts);
    let tools = h.request(Request::ListTools);
    let refresh = h.expect_sent("server/discover");
    h.reply(&refresh, discover_caps(json!({"prompts": {}}), 60_000));
    let info = h.take_connected();
    assert!(info.capabilities.tools().is_none());
    assert_eq!(h.err(tools), RequestError::CapabilityMissing { capability: "tools", method: "tools/list" });
    let sent = h.expect_sent("prompts/list");
    h.reply(&sent, json!({"prompts": [], "ttlMs": 0}));
    assert_eq!(h.ok(prompts), Response::Prompts(Vec::new()));
    h.assert_quiet();
    h.assert_all_answered();
}

#[test]
fn a_failed_refresh_keeps_the_old_answer_warns_and_lets_the_requests_go() {
    let mut h = connected_with_ttl(baseline_caps(), 1000);
    let before = h.conn.server_info().cloned();
    h.advance(ms(1000));
    let r = h.request(call("echo", json!({})));
    let refresh = h.expect_sent("server/discover");
    h.reply_error(&refresh, -32603, "internal", None);
    let warned = refresh_warnings(&mut h);
    assert_eq!(warned.len(), 1, "{warned:?}");
    assert!(warned[0].contains("internal"), "{warned:?}");
    assert_eq!(h.conn.server_info().cloned(), before, "the old answer stays");
    let sent = h.expect_sent("tools/call");
    h.reply(&sent, text_result("hi"));
    h.ok(r);
    h.assert_quiet();

    // The old answer is trusted for another ttlMs: a request within it does not wait.
    h.advance(ms(999));
    let r = h.request(call("echo", json!({})));
    let sent = h.expect_sent("tools/call");
    h.reply(&sent, text_result("hi"));
    h.ok(r);
    h.assert_quiet();

    // Then it is expired again: the next gated request tries once more; this time the refresh
    // times out (the connection's request timeout), and the waiting request (a longer timeout
    // of its own) still goes out.
    h.advance(ms(1));
    let long = opts().timeout(secs(600));
    let r = h.request_opts(Request::ListPrompts, long);
    let refresh = h.expect_sent("server/discover");
    h.fire_next_timer();
    let sent = h.sent();
    assert_eq!(methods(&sent), ["notifications/cancelled", "prompts/list"]);
    assert_eq!(sent[0]["params"]["requestId"], refresh["id"]);
    assert_eq!(refresh_warnings(&mut h).len(), 1);
    h.reply(&sent[1], json!({"prompts": [], "ttlMs": 0}));
    h.ok(r);
    h.assert_quiet();
    h.assert_all_answered();
}

#[test]
fn a_waiting_request_keeps_its_own_timeout() {
    let mut h = connected_with_ttl(baseline_caps(), 1000);
    h.advance(ms(1000));
    let short = opts().timeout(ms(500));
    let r = h.request_opts(call("echo", json!({})), short);
    let refresh = h.expect_sent("server/discover");
    assert_eq!(h.fire_next_timer(), ms(500));
    assert_eq!(h.err(r), RequestError::Timeout { after: ms(500) });
    assert!(h.sent().is_empty(), "it never went out: nothing to cancel");
    // The refresh goes on for whoever comes next.
    let next = h.request(Request::ListPrompts);
    assert!(h.sent().is_empty(), "waits for the same refresh");
    h.reply(&refresh, discover_caps(baseline_caps(), 1000));
    h.take_connected();
    let sent = h.expect_sent("prompts/list");
    h.reply(&sent, json!({"prompts": [], "ttlMs": 0}));
    h.ok(next);
    h.assert_quiet();
    h.assert_all_answered();
}

#[test]
fn a_refresh_cut_short_by_the_process_fails_its_waiters_with_it() {
    let mut h = connected_with_ttl(baseline_caps(), 1000);
    h.advance(ms(1000));
    let r = h.request(call("echo", json!({})));
    h.expect_sent("server/discover");
    h.eof();
    h.exited(exit_code(3));
    assert!(matches!(h.err(r), RequestError::TransportClosed { .. }));
    h.take_disconnected();
    assert!(refresh_warnings(&mut h).is_empty());
    h.assert_quiet();
    h.assert_all_answered();
}

#[test]
fn over_http_the_refresh_is_one_exchange_before_the_call() {
    let mut h = Harness::new(http_config("http://srv.test/mcp", &[]));
    let c = h.request(Request::Connect);
    let probe = h.expect_http("server/discover");
    h.reply_http(&probe, discover_caps(baseline_caps(), 1000));
    h.take_connected();
    h.ok(c);
    h.know_tools(json!([tool("echo")]));
    h.advance(ms(1000));
    let r = h.request(call("echo", json!({})));
    let refresh = h.expect_http("server/discover");
    assert_eq!(refresh.header("Mcp-Method"), Some("server/discover"));
    h.reply_http(&refresh, discover_caps(baseline_caps(), 1000));
    h.take_connected();
    let sent = h.expect_http("tools/call");
    h.reply_http(&sent, text_result("hi"));
    h.ok(r);
    h.assert_quiet();
}
