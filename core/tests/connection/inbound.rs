//! Messages from the server: server requests, notifications, framing, stderr, event bounds.

use serde_json::{json, Value};

use super::harness::*;
use mcpwire_core::types::LoggingLevel;
use mcpwire_core::{
    ClientFeatures, Event, LogMessage, Notification, ProtocolMode, Request, ServerRequestKind, Warning,
};

fn legacy_with(features: ClientFeatures) -> Harness {
    let mut h = Harness::with(ProtocolMode::Auto, |c| c.features = features);
    h.connect_legacy();
    h
}

fn roots() -> ClientFeatures {
    ClientFeatures::default().roots(true)
}

// ----- legacy server-to-client requests -----------------------------------------------------

#[test]
fn ping_from_the_server_is_answered_automatically() {
    let mut h = legacy_with(ClientFeatures::default());
    h.server_says(json!({"jsonrpc": "2.0", "id": "p-1", "method": "ping"}));
    assert_eq!(h.sent(), vec![json!({"jsonrpc": "2.0", "id": "p-1", "result": {}})]);
    h.assert_quiet();
}

#[test]
fn requests_without_a_handler_are_refused() {
    let mut h = legacy_with(ClientFeatures::default());
    for (id, method) in
        [(1, "roots/list"), (2, "sampling/createMessage"), (3, "elicitation/create"), (4, "x/y")]
    {
        h.server_says(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": {}}));
        let sent = h.sent();
        assert_eq!(sent.len(), 1);
        assert_eq!(sent[0]["id"], json!(id));
        assert_eq!(sent[0]["error"]["code"], json!(-32601));
        assert!(sent[0].get("result").is_none());
        let w = h.warnings();
        assert!(matches!(&w[..], [Warning::ServerRequestRefused { method: m, .. }] if m == method), "{w:?}");
        h.assert_quiet();
    }
}

#[test]
fn roots_request_reaches_the_host_and_its_answer_the_server() {
    let mut h = legacy_with(roots());
    h.server_says(json!({"jsonrpc": "2.0", "id": "abc", "method": "roots/list", "params": {"x": 1}}));
    assert!(h.sent().is_empty());
    let (handle, req) = h.take_server_request();
    assert_eq!((req.kind, req.params()), (ServerRequestKind::Roots, &json!({"x": 1})));
    h.assert_quiet();
    assert!(h.respond(handle, Ok(json!({"roots": [{"uri": "file:///w"}]}))));
    assert_eq!(
        h.sent(),
        vec![json!({"jsonrpc": "2.0", "id": "abc", "result": {"roots": [{"uri": "file:///w"}]}})]
    );
    assert!(!h.respond(handle, Ok(json!({}))), "answered once");
    h.assert_quiet();
}

#[test]
fn a_failing_handler_sends_a_constant_error_and_warns_locally() {
    let mut h = legacy_with(roots());
    h.server_says(json!({"jsonrpc": "2.0", "id": 9, "method": "roots/list"}));
    let (handle, req) = h.take_server_request();
    assert_eq!(req.params(), &Value::Null);
    assert!(h.respond(handle, Err("secret path /home/x missing".into())));
    let sent = h.sent();
    assert_eq!(
        sent,
        vec![
            json!({"jsonrpc": "2.0", "id": 9, "error": {"code": -32603, "message": "Client handler failed"}})
        ]
    );
    assert_eq!(
        h.warnings(),
        vec![Warning::HandlerFailed {
            method: "roots/list".into(),
            detail: "secret path /home/x missing".into()
        }]
    );
    h.assert_quiet();
}

#[test]
fn sampling_and_elicitation_need_their_features() {
    let mut h = legacy_with(ClientFeatures::default().sampling(true).elicitation_url(true));
    h.server_says(json!({"jsonrpc": "2.0", "id": 1, "method": "sampling/createMessage",
        "params": {"messages": [], "maxTokens": 5}}));
    assert_eq!(h.take_server_request().1.kind, ServerRequestKind::Sampling);
    h.server_says(json!({"jsonrpc": "2.0", "id": 2, "method": "elicitation/create",
        "params": {"mode": "url", "url": "https://example.com/auth", "message": "Sign in", "elicitationId": "e1"}}));
    assert_eq!(h.take_server_request().1.kind, ServerRequestKind::ElicitationUrl);
    h.server_says(json!({"jsonrpc": "2.0", "id": 3, "method": "roots/list"}));
    assert!(matches!(&h.warnings()[..], [Warning::ServerRequestRefused { .. }]));
    assert_eq!(h.sent().len(), 1);
    h.assert_quiet();
}

#[test]
fn concurrent_server_requests_are_bounded() {
    let mut h = Harness::with(ProtocolMode::Auto, |c| {
        c.features = roots();
        c.limits.max_concurrent_server_requests = 2;
    });
    h.connect_legacy();
    for id in 1..=2 {
        h.server_says(json!({"jsonrpc": "2.0", "id": id, "method": "roots/list"}));
    }
    let (first, _) = h.take_server_request();
    h.take_server_request();
    h.server_says(json!({"jsonrpc": "2.0", "id": 3, "method": "roots/list"}));
    let sent = h.sent();
    assert_eq!(sent.len(), 1);
    assert_eq!((sent[0]["id"].clone(), sent[0]["error"]["code"].clone()), (json!(3), json!(-32603)));
    let w = h.warnings();
    assert!(
        matches!(&w[..], [Warning::ServerRequestRefused { method, .. }] if method == "roots/list"),
        "{w:?}"
    );
    h.assert_quiet();
    // A slot frees up once one is answered; pings never count.
    h.server_says(json!({"jsonrpc": "2.0", "id": 4, "method": "ping"}));
    assert_eq!(h.sent()[0]["result"], json!({}));
    assert!(h.respond(first, Ok(json!({"roots": []}))));
    h.sent();
    h.server_says(json!({"jsonrpc": "2.0", "id": 5, "method": "roots/list"}));
    h.take_server_request();
    h.assert_quiet();
}

#[test]
fn a_server_cancellation_withdraws_its_request() {
    let mut h = legacy_with(roots());
    h.server_says(json!({"jsonrpc": "2.0", "id": 5, "method": "roots/list"}));
    let (handle, _) = h.take_server_request();
    // A cancellation for another id (or of another JSON type) does nothing.
    h.notify("notifications/cancelled", json!({"requestId": "5"}));
    h.notify("notifications/cancelled", json!({}));
    h.assert_quiet();
    h.notify("notifications/cancelled", json!({"requestId": 5, "reason": "changed my mind"}));
    assert_eq!(h.events(), vec![Event::ServerRequestCancelled { handle }]);
    assert!(!h.respond(handle, Ok(json!({"roots": []}))));
    h.assert_quiet();
}

#[test]
fn server_requests_die_with_their_process() {
    let mut h = legacy_with(roots());
    h.server_says(json!({"jsonrpc": "2.0", "id": 5, "method": "roots/list"}));
    let (handle, _) = h.take_server_request();
    h.exited(exit_code(1));
    h.eof();
    h.events();
    assert!(!h.respond(handle, Ok(json!({}))));
    h.assert_quiet();
}

#[test]
fn server_requests_are_refused_in_modern_mode() {
    let mut h = Harness::with(ProtocolMode::Auto, |c| c.features = roots());
    h.connect_modern();
    h.server_says(json!({"jsonrpc": "2.0", "id": 1, "method": "roots/list"}));
    h.server_says(json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}));
    let sent = h.sent();
    assert_eq!(sent.len(), 2);
    assert!(sent.iter().all(|m| m["error"]["code"] == json!(-32601)), "{sent:?}");
    assert_eq!(
        h.warnings(),
        vec![
            Warning::UnexpectedServerRequest { method: "roots/list".into() },
            Warning::UnexpectedServerRequest { method: "ping".into() },
        ]
    );
    h.assert_quiet();
}

#[test]
fn server_requests_during_initialize_are_legacy() {
    let mut h = Harness::with(ProtocolMode::Legacy, |c| c.features = roots());
    h.request(Request::Connect);
    h.start();
    h.expect_sent("initialize");
    h.server_says(json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}));
    assert_eq!(h.sent()[0]["result"], json!({}));
}

// ----- notifications ------------------------------------------------------------------------

fn log_of(h: &mut Harness) -> LogMessage {
    match h.events().pop() {
        Some(Event::Notification(Notification::Log(l))) => l,
        other => panic!("expected a log, got {other:?}"),
    }
}

#[test]
fn log_messages_are_escaped_and_capped() {
    let mut h = Harness::with(ProtocolMode::Auto, |c| c.limits.max_log_chars = 20);
    h.connect_modern();
    h.notify(
        "notifications/message",
        json!({"level": "error", "logger": "db\u{1b}", "data": "line1\nline2\u{1b}[31m\u{7}"}),
    );
    let log = log_of(&mut h);
    assert_eq!(log.level, LoggingLevel::Error);
    assert_eq!(log.logger.as_deref(), Some("db\\u{1b}"));
    assert!(!log.text.chars().any(char::is_control), "{:?}", log.text);
    assert!(log.text.starts_with("line1\\nline2\\u{1b}"), "{:?}", log.text);
    assert!(log.text.ends_with("…[truncated]"), "{:?}", log.text);
    assert_eq!(log.data, json!("line1\nline2\u{1b}[31m\u{7}"), "raw data kept");

    h.notify("notifications/message", json!({"level": "shouting", "data": {"k": [1, 2]}}));
    let log = log_of(&mut h);
    assert_eq!(log.level, LoggingLevel::Info, "unknown levels read as info");
    assert_eq!(log.text, r#"{"k":[1,2]}"#);
    assert_eq!(log.logger, None);

    h.notify("notifications/message", json!({"data": "x".repeat(100)}));
    assert_eq!(log_of(&mut h).text, format!("{}…[truncated]", "x".repeat(20)));
}

#[test]
fn other_notifications_are_passed_through() {
    let mut h = Harness::auto();
    h.connect_modern();
    h.notify("vendor/thing", json!({"a": 1}));
    h.server_says(json!({"jsonrpc": "2.0", "method": "notifications/bare"}));
    h.notify("notifications/resources/updated", json!({"uri": "file:///a"}));
    h.notify("notifications/resources/updated", json!({}));
    let events = h.events();
    assert_eq!(
        events[..3],
        [
            Event::Notification(Notification::Other {
                method: "vendor/thing".into(),
                params: json!({"a": 1})
            }),
            Event::Notification(Notification::Other {
                method: "notifications/bare".into(),
                params: Value::Null
            }),
            Event::Notification(Notification::ResourceUpdated { uri: "file:///a".into() }),
        ]
    );
    assert!(matches!(events[3], Event::Warning(Warning::InvalidMessage { .. })));
    assert_eq!(events.len(), 4);
    h.assert_quiet();
}

// ----- framing ------------------------------------------------------------------------------

#[test]
fn a_non_json_line_is_skipped_and_the_next_one_works() {
    let mut h = Harness::auto();
    h.connect_modern();
    let r = h.request(Request::Ping);
    let msg = h.expect_sent("server/discover");
    let id = msg["id"].clone();
    h.stdout(b"Server listening on port 3000 \x1b[32mOK\x1b[0m\n");
    let w = h.warnings();
    let [Warning::NonJsonLine { excerpt }] = &w[..] else { panic!("{w:?}") };
    assert!(excerpt.starts_with("Server listening") && !excerpt.contains('\u{1b}'), "{excerpt}");
    h.stdout(format!("{}\n", json!({"jsonrpc": "2.0", "id": id, "result": discover_ok()})).as_bytes());
    assert_eq!(h.ok(r), mcpwire_core::Response::Pong);
    h.assert_quiet();
}

#[test]
fn json_that_is_not_json_rpc_is_an_invalid_message() {
    let mut h = Harness::auto();
    h.connect_modern();
    h.stdout(b"42\n{\"id\":1}\n{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"Parse error\"}}\n[]\n");
    let w = h.warnings();
    assert_eq!(w.len(), 4, "{w:?}");
    assert!(w.iter().all(|w| matches!(w, Warning::InvalidMessage { .. })), "{w:?}");
    // Blank lines are nothing at all.
    h.stdout(b"\n  \r\n\t\n");
    h.assert_quiet();
}

#[test]
fn an_oversize_line_is_discarded_and_the_next_one_works() {
    let mut h = Harness::with(ProtocolMode::Auto, |c| c.limits.max_message_bytes = 512);
    h.connect_modern();
    let r = h.request(Request::Ping);
    let msg = h.expect_sent("server/discover");
    let huge =
        json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"data": "x".repeat(2000)}});
    let mut bytes = serde_json::to_vec(&huge).unwrap();
    bytes.push(b'\n');
    let len = bytes.len() - 1;
    // In pieces, so the framer never holds the whole line.
    for chunk in bytes.chunks(100) {
        h.stdout(chunk);
    }
    assert_eq!(h.warnings(), vec![Warning::OversizeMessage { len, limit: 512 }]);
    h.reply(&msg, discover_ok());
    assert_eq!(h.ok(r), mcpwire_core::Response::Pong);
    h.assert_quiet();
}

#[test]
fn a_response_split_across_many_chunks_and_crlf() {
    let mut h = Harness::auto();
    h.connect_modern();
    let r = h.request(Request::ListTools);
    let msg = h.expect_sent("tools/list");
    let line =
        format!("{}\r\n", json!({"jsonrpc": "2.0", "id": msg["id"], "result": tools_page(&["a"], None)}));
    for b in line.as_bytes() {
        assert!(!h.has_response(r));
        h.stdout(std::slice::from_ref(b));
    }
    assert_eq!(tool_names(h.ok(r)), vec!["a"]);
    // Two messages in one chunk, with a BOM on the first.
    let a = h.request(Request::Ping);
    let b = h.request(Request::Ping);
    let sent = h.sent();
    let mut bytes = b"\xEF\xBB\xBF".to_vec();
    for m in &sent {
        bytes.extend(
            format!("{}\r\n", json!({"jsonrpc": "2.0", "id": m["id"], "result": discover_ok()})).as_bytes(),
        );
    }
    h.stdout(&bytes);
    h.ok(a);
    h.ok(b);
    h.assert_quiet();
}

#[test]
fn a_json_batch_array_is_handled_element_by_element() {
    let mut h = Harness::auto();
    h.connect_legacy();
    let a = h.request(call("a", json!({})));
    let b = h.request(call("b", json!({})));
    let sent = h.sent();
    let batch = json!([
        {"jsonrpc": "2.0", "id": sent[1]["id"], "result": text_result("B")},
        {"jsonrpc": "2.0", "method": "notifications/message", "params": {"data": "hi"}},
        {"jsonrpc": "2.0", "id": 77, "method": "ping"},
        7,
        {"jsonrpc": "2.0", "id": sent[0]["id"], "result": text_result("A")},
    ]);
    h.server_says(batch);
    assert_eq!(h.ok(a).into_tool_result().unwrap().text(), "A");
    assert_eq!(h.ok(b).into_tool_result().unwrap().text(), "B");
    assert_eq!(h.sent(), vec![json!({"jsonrpc": "2.0", "id": 77, "result": {}})]);
    let events = h.events();
    assert!(matches!(events[0], Event::Notification(Notification::Log(_))), "{events:?}");
    assert!(matches!(events[1], Event::Warning(Warning::InvalidMessage { .. })), "{events:?}");
    assert_eq!(events.len(), 2);
}

#[test]
fn a_batch_that_ends_the_session_is_not_read_further() {
    let mut h = Harness::legacy_mode();
    let r = h.request(Request::ListTools);
    h.start();
    let init = h.expect_sent("initialize");
    let batch = json!([
        {"jsonrpc": "2.0", "id": init["id"], "result": init_result("1999-01-01", json!({}))},
        {"jsonrpc": "2.0", "id": 9, "method": "ping"},
        {"jsonrpc": "2.0", "method": "notifications/message", "params": {"data": "after"}},
    ]);
    h.server_says(batch);
    h.err(r);
    h.take_disconnected();
    // Nothing is answered to, or reported from, a process that is being shut down.
    let io = h.io();
    assert_eq!(io, vec![mcpwire_core::Io::CloseStdin { epoch: h.epoch.unwrap() }]);
    h.assert_quiet();
}

// ----- stderr -------------------------------------------------------------------------------

#[test]
fn stderr_lines_are_sanitised_events() {
    let mut h = Harness::with(ProtocolMode::Auto, |c| c.limits.max_stderr_line_bytes = 32);
    h.connect_modern();
    h.stderr(b"plain\r\nwith \x1b[31mcolour\x1b[0m\npart");
    h.stderr(b"ial\n\xff bad utf8\n");
    h.stderr(&[b'y'; 100]);
    h.stderr(b"\nafter\n");
    assert_eq!(
        h.events(),
        vec![
            Event::Stderr("plain".into()),
            Event::Stderr("with \\u{1b}[31mcolour\\u{1b}[0m".into()),
            Event::Stderr("partial".into()),
            Event::Stderr("\u{fffd} bad utf8".into()),
            Event::Stderr(format!("{}…[line of 100 bytes truncated]", "y".repeat(32))),
            Event::Stderr("after".into()),
        ]
    );
    h.assert_quiet();
}

// ----- the event queue bound ----------------------------------------------------------------

#[test]
fn a_flood_of_events_never_drops_responses() {
    let mut h = Harness::with(ProtocolMode::Auto, |c| c.limits.max_pending_events = 8);
    h.connect_modern();
    let r = h.request(call("t", json!({})));
    let msg = h.expect_sent("tools/call");
    let epoch = h.epoch.unwrap();
    // The host does not poll while the server floods.
    let now = h.now;
    for i in 0..50 {
        h.conn.handle_stderr(now, epoch, format!("noise {i}\n").as_bytes());
        let n = json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"data": i}});
        h.conn.handle_stdout(now, epoch, format!("{n}\n").as_bytes());
    }
    let reply = json!({"jsonrpc": "2.0", "id": msg["id"], "result": text_result("kept")});
    h.conn.handle_stdout(now, epoch, format!("{reply}\n").as_bytes());
    h.advance(ms(0));
    let events = h.events();
    assert_eq!(events.len(), 10, "8 queued, the response, the drop report: {events:#?}");
    assert!(matches!(&events[8], Event::Response { handle, result: Ok(_) } if *handle == r));
    assert_eq!(events[9], Event::Warning(Warning::EventsDropped { count: 92 }));
    // Once polled, the queue takes events again.
    h.notify("vendor/x", json!({}));
    assert_eq!(h.events().len(), 1);
}
