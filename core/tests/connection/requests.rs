//! Host requests: building, timeouts, cancellation, progress, outcomes, host misuse.

use serde_json::{json, Map, Value};

use super::harness::*;
use mcpwire_core::types::{CompletionReference, LoggingLevel};
use mcpwire_core::{
    CommandError, Event, Progress, ProtocolMode, Request, RequestError, Response, RpcError, RpcErrorKind,
    Warning,
};

fn obj(v: Value) -> Map<String, Value> {
    v.as_object().cloned().expect("an object")
}

// ----- timeouts -----------------------------------------------------------------------------

#[test]
fn default_timeout_fails_the_request_and_cancels_it_on_the_wire() {
    for legacy in [false, true] {
        let mut h = connected(legacy);
        let r = h.request(call("slow", json!({})));
        let msg = h.expect_sent("tools/call");
        assert_eq!(h.next_timer_in(), Some(secs(60)));
        h.advance(ms(59_999));
        h.assert_quiet();
        h.advance(ms(1));
        assert_eq!(h.err(r), RequestError::Timeout { after: secs(60) });
        let cancelled = h.expect_sent("notifications/cancelled");
        assert_eq!(cancelled["params"]["requestId"], msg["id"]);
        assert!(cancelled["params"]["reason"].is_string());
        assert!(cancelled.get("id").is_none());
        assert_eq!(h.next_timer_in(), None);

        // The answer that comes after is late.
        h.reply(&msg, text_result("too late"));
        assert_eq!(h.warnings(), vec![Warning::LateResponse { id: msg["id"].to_string() }]);
        h.assert_quiet();
        h.assert_all_answered();
    }
}

#[test]
fn per_request_and_configured_timeouts() {
    let mut h = Harness::with(ProtocolMode::Auto, |c| c.timeouts.request = secs(10));
    h.connect_modern();
    let short = h.request_opts(call("a", json!({})), opts().timeout(ms(1500)));
    let normal = h.request(call("b", json!({})));
    let sent = h.sent();
    assert_eq!(h.next_timer_in(), Some(ms(1500)));
    h.advance(ms(1500));
    assert_eq!(h.err(short), RequestError::Timeout { after: ms(1500) });
    assert_eq!(h.expect_sent("notifications/cancelled")["params"]["requestId"], sent[0]["id"]);
    assert_eq!(h.fire_next_timer(), ms(8500));
    assert_eq!(h.err(normal), RequestError::Timeout { after: secs(10) });
    assert_eq!(h.expect_sent("notifications/cancelled")["params"]["requestId"], sent[1]["id"]);
}

#[test]
fn unknown_response_ids_are_reported() {
    let mut h = connected(false);
    h.server_says(json!({"jsonrpc": "2.0", "id": 999, "result": {}}));
    h.server_says(json!({"jsonrpc": "2.0", "id": "2", "result": {}}));
    h.server_says(json!({"jsonrpc": "2.0", "id": 998, "error": {"code": 1, "message": "x"}}));
    assert_eq!(
        h.warnings(),
        vec![
            Warning::UnknownResponseId { id: "999".into() },
            Warning::UnknownResponseId { id: "\"2\"".into() },
            Warning::UnknownResponseId { id: "998".into() },
        ]
    );
    h.assert_quiet();
}

#[test]
fn a_response_id_of_another_json_type_does_not_match() {
    let mut h = connected(false);
    let r = h.request(Request::Ping);
    let msg = h.expect_sent("server/discover");
    let id = msg["id"].as_u64().unwrap();
    h.server_says(json!({"jsonrpc": "2.0", "id": id.to_string(), "result": discover_ok()}));
    assert!(matches!(&h.warnings()[..], [Warning::UnknownResponseId { .. }]));
    assert!(!h.has_response(r));
    h.reply(&msg, discover_ok());
    assert_eq!(h.ok(r), Response::Pong);
}

// ----- cancellation -------------------------------------------------------------------------

#[test]
fn cancel_ends_the_request_and_tells_the_server() {
    let mut h = connected(false);
    let r = h.request(call("a", json!({})));
    let msg = h.expect_sent("tools/call");
    assert!(h.cancel(r));
    assert_eq!(h.err(r), RequestError::Cancelled);
    let c = h.expect_sent("notifications/cancelled");
    assert_eq!(c["params"]["requestId"], msg["id"]);
    assert!(!h.cancel(r), "cancelling twice");
    h.assert_quiet();
    assert_eq!(h.next_timer_in(), None, "the request timer went with it");
    h.reply(&msg, text_result("x"));
    assert!(matches!(&h.warnings()[..], [Warning::LateResponse { .. }]));
    h.assert_all_answered();
}

#[test]
fn cancelling_a_queued_request_writes_nothing() {
    let mut h = Harness::auto();
    let r = h.request(call("a", json!({})));
    h.start();
    let probe = h.expect_sent("server/discover");
    assert!(h.cancel(r));
    assert_eq!(h.err(r), RequestError::Cancelled);
    h.assert_quiet();
    // Connecting later does not send it.
    h.reply(&probe, discover_ok());
    h.take_connected();
    h.assert_quiet();
    // Before the process even started, too.
    let mut h = Harness::auto();
    let r = h.request(Request::ListTools);
    assert!(h.cancel(r));
    h.err(r);
    h.start();
    h.expect_sent("server/discover");
}

// ----- progress -----------------------------------------------------------------------------

fn progress_token(msg: &Value) -> Value {
    msg["params"]["_meta"]["progressToken"].clone()
}

#[test]
fn progress_tokens_are_unique_and_route_notifications() {
    let mut h = connected(false);
    let with = opts().progress(true);
    let a = h.request_opts(call("a", json!({})), with.clone());
    let b = h.request_opts(call("b", json!({})), with);
    let plain = h.request(call("c", json!({})));
    let sent = h.sent();
    let (ta, tb) = (progress_token(&sent[0]), progress_token(&sent[1]));
    assert!(ta.is_string() && tb.is_string());
    assert_ne!(ta, tb);
    assert!(sent[2]["params"]["_meta"].get("progressToken").is_none());
    assert_modern_meta(&sent[0]);

    h.notify(
        "notifications/progress",
        json!({"progressToken": ta, "progress": 1, "total": 4, "message": "one\u{1b}"}),
    );
    h.notify("notifications/progress", json!({"progressToken": tb, "progress": 0.5}));
    assert_eq!(
        h.events(),
        vec![
            Event::Progress {
                handle: a,
                progress: Progress { progress: 1.0, total: Some(4.0), message: Some("one\\u{1b}".into()) }
            },
            Event::Progress { handle: b, progress: Progress { progress: 0.5, total: None, message: None } },
        ]
    );
    // Unknown tokens, and a number that looks like a token, are stale.
    h.notify("notifications/progress", json!({"progressToken": "nope", "progress": 1}));
    h.notify("notifications/progress", json!({"progressToken": 1, "progress": 1}));
    assert_eq!(
        h.warnings(),
        vec![
            Warning::StaleProgress { token: "\"nope\"".into() },
            Warning::StaleProgress { token: "1".into() }
        ]
    );
    // Once the request ended, its token is dropped.
    h.reply(&sent[0], text_result("done"));
    h.ok(a);
    h.notify("notifications/progress", json!({"progressToken": ta, "progress": 2}));
    assert!(matches!(&h.warnings()[..], [Warning::StaleProgress { .. }]));
    // The request without a token is answered as usual.
    h.reply(&sent[2], text_result("plain"));
    h.ok(plain);
    h.assert_quiet();
}

#[test]
fn malformed_progress_is_an_invalid_message() {
    let mut h = connected(false);
    h.request_opts(call("a", json!({})), opts().progress(true));
    let t = progress_token(&h.expect_sent("tools/call"));
    h.notify("notifications/progress", json!({"progress": 1}));
    h.notify("notifications/progress", json!({"progressToken": t, "progress": "half"}));
    let w = h.warnings();
    assert_eq!(w.len(), 2);
    assert!(w.iter().all(|w| matches!(w, Warning::InvalidMessage { .. })), "{w:?}");
    h.assert_quiet();
}

#[test]
fn stale_progress_tokens_are_sanitised() {
    let mut h = connected(false);
    h.notify("notifications/progress", json!({"progressToken": "x\u{7f}\u{9b}31m\u{2028}", "progress": 1}));
    let w = h.warnings();
    let [Warning::StaleProgress { token }] = &w[..] else { panic!("{w:?}") };
    assert!(!token.chars().any(|c| c.is_control() || c == '\u{2028}'), "{token:?}");
    let long = "t".repeat(10_000);
    h.notify("notifications/progress", json!({"progressToken": long, "progress": 1}));
    let w = h.warnings();
    let [Warning::StaleProgress { token }] = &w[..] else { panic!("{w:?}") };
    assert!(token.chars().count() < 1000, "capped");
}

#[test]
fn legacy_progress_token_is_the_only_meta() {
    let mut h = connected(true);
    let r = h.request_opts(Request::ListTools, opts().progress(true));
    let p1 = h.expect_sent("tools/list");
    assert_eq!(p1["params"]["_meta"].as_object().unwrap().len(), 1);
    let t = progress_token(&p1);
    h.reply(&p1, tools_page(&["a"], Some("next")));
    let p2 = h.expect_sent("tools/list");
    assert_eq!(progress_token(&p2), t, "every page of one request keeps its token");
    h.notify("notifications/progress", json!({"progressToken": t, "progress": 1}));
    assert!(matches!(&h.events()[..], [Event::Progress { handle, .. }] if *handle == r));
    h.reply(&p2, tools_page(&[], None));
    h.ok(r);
}

#[test]
fn progress_resets_the_timeout_up_to_the_total_bound() {
    let mut h = connected(false);
    let o =
        opts().timeout(secs(10)).progress(true).reset_timeout_on_progress(true).max_total_timeout(secs(25));
    let r = h.request_opts(call("long", json!({})), o);
    let msg = h.expect_sent("tools/call");
    let t = progress_token(&msg);
    h.advance(secs(8));
    h.notify("notifications/progress", json!({"progressToken": t, "progress": 1}));
    h.events();
    assert_eq!(h.next_timer_in(), Some(secs(10)));
    h.advance(secs(8)); // t = 16, the old deadline (10) is gone, the new one is 18
    assert!(!h.has_response(r));
    h.notify("notifications/progress", json!({"progressToken": t, "progress": 2}));
    h.events();
    assert_eq!(h.next_timer_in(), Some(secs(9)), "bounded by max_total_timeout (25 s)");
    h.advance(ms(8999));
    assert!(!h.has_response(r));
    h.advance(ms(1));
    assert_eq!(h.elapsed(), secs(25));
    assert_eq!(h.err(r), RequestError::Timeout { after: secs(10) });
    h.expect_sent("notifications/cancelled");
}

#[test]
fn progress_without_reset_does_not_extend_the_deadline() {
    let mut h = connected(false);
    let o = opts().timeout(secs(10)).progress(true);
    let r = h.request_opts(call("long", json!({})), o);
    let t = progress_token(&h.expect_sent("tools/call"));
    h.advance(secs(9));
    h.notify("notifications/progress", json!({"progressToken": t, "progress": 1}));
    h.events();
    assert_eq!(h.next_timer_in(), Some(secs(1)));
    h.advance(secs(1));
    assert!(matches!(h.err(r), RequestError::Timeout { .. }));
}

#[test]
fn progress_reset_without_a_total_bound_keeps_extending() {
    let mut h = connected(false);
    let o = opts().timeout(secs(10)).progress(true).reset_timeout_on_progress(true);
    let r = h.request_opts(call("long", json!({})), o);
    let msg = h.expect_sent("tools/call");
    let t = progress_token(&msg);
    for i in 0..10 {
        h.advance(secs(9));
        h.notify("notifications/progress", json!({"progressToken": t, "progress": i}));
        h.events();
    }
    assert!(!h.has_response(r));
    h.reply(&msg, text_result("done"));
    h.ok(r);
}

// ----- building requests --------------------------------------------------------------------

#[test]
fn meta_in_tool_arguments_is_hoisted_and_merged() {
    let mut h = Harness::with(ProtocolMode::Auto, |c| {
        c.request_meta = obj(json!({"static": 1, "shared": "static"}));
    });
    h.connect_modern();
    let o = opts().meta(obj(json!({
        "per": 2,
        "shared": "request",
        "io.modelcontextprotocol/protocolVersion": "1999-01-01",
        "io.modelcontextprotocol/clientInfo": {"name": "spoof", "version": "0"},
    })));
    let args = json!({"a": 1, "_meta": {"hoisted": true, "shared": "hoisted", "static": 3}});
    let r = h.request_opts(call("t", args), o);
    let msg = h.expect_sent("tools/call");
    assert_eq!(msg["params"]["arguments"], json!({"a": 1}), "the _meta key left the arguments");
    let meta = &msg["params"]["_meta"];
    assert_eq!(meta["static"], json!(3), "hoisted beats static");
    assert_eq!(meta["hoisted"], json!(true));
    assert_eq!(meta["per"], json!(2));
    assert_eq!(meta["shared"], json!("request"), "per-request wins");
    assert_modern_meta(&msg);
    h.reply(&msg, text_result(""));
    h.ok(r);
}

#[test]
fn legacy_requests_carry_host_meta_only() {
    let mut h = Harness::with(ProtocolMode::Legacy, |c| c.request_meta = obj(json!({"trace": "abc"})));
    h.connect_legacy();
    h.request(call("t", json!({"_meta": {"x": 1}})));
    let msg = h.expect_sent("tools/call");
    assert_eq!(msg["params"]["_meta"], json!({"trace": "abc", "x": 1}));
    assert_eq!(msg["params"]["arguments"], json!({}));
}

#[test]
fn null_arguments_are_an_empty_object() {
    let mut h = connected(true);
    h.request(call("t", Value::Null));
    let msg = h.expect_sent("tools/call");
    assert_eq!(msg["params"], json!({"name": "t", "arguments": {}}));
}

#[test]
fn request_kinds_are_built_per_era() {
    for legacy in [false, true] {
        let mut h = connected(legacy);
        let mut args = Map::new();
        args.insert("lang".into(), json!("rust"));
        let g = h.request(Request::GetPrompt { name: "p".into(), arguments: args.clone() });
        let msg = h.expect_sent("prompts/get");
        assert_eq!(msg["params"]["name"], json!("p"));
        assert_eq!(msg["params"]["arguments"], json!({"lang": "rust"}));
        h.reply(&msg, json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}]}));
        assert!(matches!(h.ok(g), Response::Prompt(_)));

        let g = h.request(Request::GetPrompt { name: "q".into(), arguments: Map::new() });
        let msg = h.expect_sent("prompts/get");
        assert!(msg["params"].get("arguments").is_none());
        h.reply(&msg, json!({"messages": "no"}));
        assert!(matches!(h.err(g), RequestError::InvalidResponse { .. }));

        let rr = h.request(Request::ReadResource { uri: "file:///x".into() });
        let msg = h.expect_sent("resources/read");
        assert_eq!(msg["params"]["uri"], json!("file:///x"));
        h.reply(&msg, json!({"contents": [{"uri": "file:///x", "text": "body"}]}));
        assert!(matches!(h.ok(rr), Response::Resource(_)));

        let c = h.request(Request::Complete {
            reference: CompletionReference::prompt("p"),
            argument: "lang".into(),
            value: "ru".into(),
            context: Some(args.clone()),
        });
        let msg = h.expect_sent("completion/complete");
        assert_eq!(msg["params"]["ref"], json!({"type": "ref/prompt", "name": "p"}));
        assert_eq!(msg["params"]["argument"], json!({"name": "lang", "value": "ru"}));
        assert_eq!(msg["params"]["context"], json!({"arguments": {"lang": "rust"}}));
        h.reply(&msg, json!({"completion": {"values": ["rust"]}}));
        assert!(matches!(h.ok(c), Response::Completion(_)));

        let x = h.request(Request::Custom {
            method: "vendor/thing".into(),
            params: json!({"k": 1, "_meta": {"m": 2}}),
        });
        let msg = h.expect_sent("vendor/thing");
        assert_eq!(msg["params"]["k"], json!(1));
        assert_eq!(msg["params"]["_meta"]["m"], json!(2));
        assert_eq!(has_modern_meta(&msg), !legacy);
        h.reply(&msg, json!({"any": "thing"}));
        assert_eq!(h.ok(x), Response::Raw(json!({"any": "thing"})));

        let x = h.request(Request::Custom { method: "vendor/empty".into(), params: Value::Null });
        let msg = h.expect_sent("vendor/empty");
        assert_eq!(msg.get("params").is_some(), !legacy, "{msg}");
        h.reply(&msg, json!(null));
        h.ok(x);
        h.assert_quiet();
        h.assert_all_answered();
    }
}

#[test]
fn set_log_level_per_era() {
    // Modern: remembered locally and sent with every later request.
    let mut h = connected(false);
    let s = h.request(Request::SetLogLevel(LoggingLevel::Warning));
    assert_eq!(h.ok(s), Response::Empty);
    h.assert_quiet();
    h.request(call("t", json!({})));
    let msg = h.expect_sent("tools/call");
    assert_eq!(msg["params"]["_meta"]["io.modelcontextprotocol/logLevel"], json!("warning"));

    // Legacy: logging/setLevel.
    let mut h = connected(true);
    let s = h.request(Request::SetLogLevel(LoggingLevel::Debug));
    let msg = h.expect_sent("logging/setLevel");
    assert_eq!(msg["params"], json!({"level": "debug"}));
    h.reply(&msg, json!({}));
    assert_eq!(h.ok(s), Response::Empty);
}

// ----- outcomes -----------------------------------------------------------------------------

#[test]
fn server_errors_are_kept_intact() {
    let mut h = connected(false);
    let r = h.request(call("t", json!({})));
    let msg = h.expect_sent("tools/call");
    h.reply_error(&msg, -32602, "Unknown tool", Some(json!({"name": "t"})));
    let e = h.err(r);
    assert_eq!(
        e,
        RequestError::Rpc(RpcError {
            code: -32602,
            message: "Unknown tool".into(),
            data: Some(json!({"name": "t"}))
        })
    );
    assert_eq!(e.rpc().unwrap().kind(), RpcErrorKind::InvalidParams);
    assert!(!e.is_transport());
}

#[test]
fn tool_results_are_decoded() {
    let mut h = connected(false);
    let r = h.request(call("t", json!({})));
    let msg = h.expect_sent("tools/call");
    h.reply(
        &msg,
        json!({"resultType": "complete", "content": [{"type": "text", "text": "x"}], "isError": true}),
    );
    let res = h.ok(r).into_tool_result().unwrap();
    assert!(res.is_error);

    let r = h.request(call("t", json!({})));
    let msg = h.expect_sent("tools/call");
    h.reply(&msg, json!({"content": "not a list"}));
    assert!(matches!(h.err(r), RequestError::InvalidResponse { .. }));
}

#[test]
fn other_result_types_are_unsupported() {
    // ("task" on a 2026-07-28 tool call is a task: see tasks.rs.)
    for (rt, shown) in [(json!("later"), "later"), (json!(5), "5")] {
        let mut h = connected(false);
        let r = h.request(call("t", json!({})));
        let msg = h.expect_sent("tools/call");
        h.reply(&msg, json!({"resultType": rt, "inputRequests": {}}));
        assert_eq!(h.err(r), RequestError::UnsupportedResultType { result_type: shown.into() });
    }
}

// ----- host misuse --------------------------------------------------------------------------

#[test]
fn max_in_flight_is_enforced() {
    let mut h = Harness::with(ProtocolMode::Auto, |c| c.limits.max_in_flight = 2);
    h.connect_modern();
    let a = h.request(call("a", json!({})));
    h.request(call("b", json!({})));
    let sent = h.sent();
    assert_eq!(h.try_request(call("c", json!({})), opts()), Err(CommandError::TooManyInFlight { limit: 2 }));
    h.assert_quiet();
    assert_eq!(h.conn.in_flight(), 2);
    h.reply(&sent[0], text_result(""));
    h.ok(a);
    h.request(call("c", json!({})));
    h.expect_sent("tools/call");
}

#[test]
fn invalid_arguments_are_refused_synchronously() {
    let mut h = Harness::auto();
    let bad = [
        call("t", json!([1, 2])),
        call("t", json!("text")),
        call("t", json!(3)),
        call("", json!({})),
        Request::Custom { method: "".into(), params: json!({}) },
        Request::Custom { method: "x".into(), params: json!([1]) },
    ];
    for req in bad {
        let e = h.try_request(req.clone(), opts());
        assert!(matches!(e, Err(CommandError::InvalidArgument(_))), "{req:?}: {e:?}");
    }
    h.assert_quiet();
    assert_eq!(h.conn.current_epoch(), None, "nothing was started");
    assert_eq!(h.conn.in_flight(), 0);
}

#[test]
fn ping_is_an_era_specific_liveness_check() {
    let mut h = connected(true);
    let p = h.request(Request::Ping);
    let msg = h.expect_sent("ping");
    h.reply(&msg, json!({}));
    assert_eq!(h.ok(p), Response::Pong);
}

#[test]
fn requests_wait_for_the_handshake_and_go_in_order() {
    let mut h = Harness::auto();
    let hs: Vec<_> = (0..5).map(|i| h.request(call(&format!("t{i}"), json!({})))).collect();
    h.start();
    h.modern_handshake(discover_ok());
    let sent = h.sent();
    let names: Vec<_> = sent.iter().map(|m| m["params"]["name"].as_str().unwrap().to_owned()).collect();
    assert_eq!(names, vec!["t0", "t1", "t2", "t3", "t4"]);
    // Answers in any order reach the right handles.
    for (i, msg) in sent.iter().enumerate().rev() {
        h.reply(msg, text_result(&format!("r{i}")));
    }
    for (i, r) in hs.iter().enumerate() {
        assert_eq!(h.ok(*r).into_tool_result().unwrap().text(), format!("r{i}"));
    }
    h.assert_all_answered();
}

#[test]
fn an_unbounded_timeout_means_no_deadline() {
    let mut h = connected(false);
    let o = opts()
        .timeout(std::time::Duration::MAX)
        .progress(true)
        .reset_timeout_on_progress(true)
        .max_total_timeout(std::time::Duration::MAX);
    let r = h.request_opts(call("forever", json!({})), o);
    let msg = h.expect_sent("tools/call");
    assert_eq!(h.next_timer_in(), None, "no deadline is armed");
    h.notify("notifications/progress", json!({"progressToken": progress_token(&msg), "progress": 1}));
    h.events();
    h.advance(secs(86_400 * 365));
    assert!(!h.has_response(r));
    h.reply(&msg, text_result("done"));
    h.ok(r);
}

#[test]
fn the_total_bound_applies_even_to_an_unbounded_timeout() {
    let mut h = connected(false);
    let o =
        opts().timeout(std::time::Duration::MAX).reset_timeout_on_progress(true).max_total_timeout(secs(5));
    let r = h.request_opts(call("t", json!({})), o);
    h.expect_sent("tools/call");
    assert_eq!(h.next_timer_in(), Some(secs(5)));
    h.advance(secs(5));
    assert!(matches!(h.err(r), RequestError::Timeout { .. }));
    h.expect_sent("notifications/cancelled");
}

#[test]
fn a_timeout_between_pages_cancels_the_page_in_flight() {
    let mut h = connected(true);
    let r = h.request_opts(Request::ListTools, opts().timeout(secs(4)));
    let p1 = h.expect_sent("tools/list");
    h.advance(secs(3));
    h.reply(&p1, tools_page(&["a"], Some("next")));
    let p2 = h.expect_sent("tools/list");
    h.advance(secs(1));
    assert_eq!(h.err(r), RequestError::Timeout { after: secs(4) });
    let c = h.expect_sent("notifications/cancelled");
    assert_eq!(c["params"]["requestId"], p2["id"]);
    assert_ne!(p1["id"], p2["id"]);
}

#[test]
fn finished_ids_are_remembered_up_to_the_limit_then_unknown() {
    let mut h = Harness::with(ProtocolMode::Auto, |c| c.limits.recent_finished = 1);
    h.connect_modern();
    let first = h.request(call("a", json!({})));
    let first_msg = h.expect_sent("tools/call");
    let second = h.request(call("b", json!({})));
    let second_msg = h.expect_sent("tools/call");
    assert!(h.cancel(first) && h.cancel(second));
    let _ = (h.err(first), h.err(second));
    let _ = h.sent();
    // Only the most recent finished id is remembered: the older answer is simply unknown.
    h.reply(&second_msg, text_result("late"));
    assert_eq!(h.warnings(), vec![Warning::LateResponse { id: second_msg["id"].to_string() }]);
    h.reply(&first_msg, text_result("later"));
    assert_eq!(h.warnings(), vec![Warning::UnknownResponseId { id: first_msg["id"].to_string() }]);
    h.assert_all_answered();
}
