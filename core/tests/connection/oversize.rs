//! Oversize responses fail their request at once, on every transport: a stdio line, an HTTP
//! JSON body (announced by `Content-Length` or counted as it streams), an SSE event. Other
//! requests in flight are unaffected and the connection keeps working. A message whose id
//! cannot be read is only reported, as before.

use std::time::Duration;

use serde_json::{json, Value};

use mcpwire_core::mcp_servers::TransportKind;
use mcpwire_core::{ExchangeId, ProtocolMode, Request, RequestError, Response, Warning};

use crate::harness::{call, discover_ok, text_result, tools_page, Harness};
use crate::http_harness::{http_config, modern_http, result_for, sse_message, sse_session, Sent};

const LIMIT: usize = 1024;

/// A tool result whose text makes the message well over the limit.
fn huge_result(text_len: usize) -> Value {
    text_result(&"x".repeat(text_len))
}

/// `{"result": …, "jsonrpc": "2.0", "id": …}`: the TypeScript SDK's order, the id at the end.
fn result_first(id: &Value, result: &Value) -> Vec<u8> {
    format!(r#"{{"result":{result},"jsonrpc":"2.0","id":{id}}}"#).into_bytes()
}

fn assert_too_large(err: RequestError, seen_at_least: usize) {
    match err {
        RequestError::ResponseTooLarge { limit, seen_at_least: seen, detail } => {
            assert_eq!(limit, LIMIT, "{detail}");
            assert_eq!(seen, seen_at_least, "{detail}");
            assert!(detail.contains(&LIMIT.to_string()), "{detail}");
        }
        other => panic!("expected ResponseTooLarge, got {other:?}"),
    }
}

fn stdio() -> Harness {
    let mut h = Harness::with(ProtocolMode::Auto, |c| c.limits.max_message_bytes = LIMIT);
    h.connect_modern();
    h
}

// ----- stdio ---------------------------------------------------------------------------------

#[test]
fn stdio_an_oversize_response_fails_its_request_as_soon_as_it_passes_the_limit() {
    let mut h = stdio();
    let big = h.request(call("big", json!({})));
    let big_msg = h.expect_sent("tools/call");
    let small = h.request(call("small", json!({})));
    let small_msg = h.expect_sent("tools/call");

    let mut line = serde_json::to_vec(&result_for(&big_msg, huge_result(10 * LIMIT))).unwrap();
    let len = line.len();
    line.push(b'\n');
    let (first, rest) = line.split_at(LIMIT + 100);
    h.stdout(first);
    // Failed before the rest of the line arrived, with no time passing.
    assert_too_large(h.err(big), LIMIT + 1);
    assert_eq!(h.elapsed(), Duration::ZERO);
    assert!(!h.has_response(small), "the other request is still waiting");
    for chunk in rest.chunks(700) {
        h.stdout(chunk);
    }
    assert_eq!(h.warnings(), vec![Warning::OversizeMessage { len, limit: LIMIT }]);

    h.reply(&small_msg, text_result("small"));
    h.ok(small);
    let again = h.request(Request::ListTools);
    let list = h.expect_sent("tools/list");
    h.reply(&list, tools_page(&["big"], None));
    h.ok(again);
    h.assert_all_answered();
}

#[test]
fn stdio_an_id_at_the_end_fails_the_request_when_the_line_ends() {
    let mut h = stdio();
    let big = h.request(call("big", json!({})));
    let msg = h.expect_sent("tools/call");
    let mut line = result_first(&msg["id"], &huge_result(10 * LIMIT));
    let len = line.len();
    line.extend_from_slice(b"\r\n");
    let (body, end) = line.split_at(line.len() - 3);
    for chunk in body.chunks(333) {
        h.stdout(chunk);
    }
    assert!(!h.has_response(big), "the id is not known before the end of the line");
    h.stdout(end);
    assert_too_large(h.err(big), len);
    assert_eq!(h.warnings(), vec![Warning::OversizeMessage { len, limit: LIMIT }]);
    assert_eq!(h.elapsed(), Duration::ZERO);
}

#[test]
fn stdio_a_message_without_a_readable_id_is_only_reported() {
    let mut h = stdio();
    let big = h.request(call("big", json!({})));
    let msg = h.expect_sent("tools/call");
    // The id sits between two huge members: neither the start nor the end shows it.
    let mut line = format!(
        r#"{{"result":{},"id":{},"padding":"{}"}}"#,
        huge_result(10 * LIMIT),
        msg["id"],
        "p".repeat(10 * LIMIT)
    )
    .into_bytes();
    let len = line.len();
    line.push(b'\n');
    h.stdout(&line);
    assert_eq!(h.warnings(), vec![Warning::OversizeMessage { len, limit: LIMIT }]);
    assert!(!h.has_response(big), "today's behaviour: the request waits for its timeout");
    h.advance(Duration::from_secs(61));
    assert!(matches!(h.err(big), RequestError::Timeout { .. }));
}

#[test]
fn stdio_an_oversize_server_request_never_fails_ours() {
    let mut h = Harness::with(ProtocolMode::Auto, |c| c.limits.max_message_bytes = LIMIT);
    h.connect_legacy();
    let big = h.request(call("big", json!({})));
    let msg = h.expect_sent("tools/call");
    // The server's own request happens to use the same id as ours.
    let request = json!({"jsonrpc": "2.0", "id": msg["id"], "method": "sampling/createMessage",
        "params": {"messages": [], "maxTokens": 1, "systemPrompt": "s".repeat(4 * LIMIT)}});
    let mut line = serde_json::to_vec(&request).unwrap();
    line.push(b'\n');
    h.stdout(&line);
    assert!(matches!(h.warnings().as_slice(), [Warning::OversizeMessage { .. }]));
    assert!(!h.has_response(big));
    h.reply(&msg, text_result("small"));
    h.ok(big);
}

#[test]
fn stdio_an_oversize_handshake_answer_fails_the_handshake_at_once() {
    let mut h = Harness::with(ProtocolMode::Auto, |c| c.limits.max_message_bytes = LIMIT);
    let c = h.request(Request::Connect);
    h.start();
    let probe = h.expect_sent("server/discover");
    let mut result = discover_ok();
    result["instructions"] = json!("i".repeat(4 * LIMIT));
    let line = serde_json::to_vec(&result_for(&probe, result)).unwrap();
    h.stdout(&line[..2 * LIMIT]);
    assert_too_large(h.take_disconnected(), LIMIT + 1);
    assert_too_large(h.err(c), LIMIT + 1);
    assert_eq!(h.elapsed(), Duration::ZERO);
}

// ----- HTTP ----------------------------------------------------------------------------------

fn http() -> Harness {
    let mut cfg = http_config("http://srv.test/mcp", &[]);
    cfg.limits.max_message_bytes = LIMIT;
    let mut h = Harness::new(cfg);
    let c = h.request(Request::Connect);
    h.http_connect_modern();
    h.ok(c);
    h.know_tools(json!([]));
    h
}

/// Two calls in flight: returns their handles and exchanges.
fn two_calls(h: &mut Harness) -> ((mcpwire_core::RequestHandle, Sent), (mcpwire_core::RequestHandle, Sent)) {
    let big = h.request(call("big", json!({})));
    let big_sent = h.expect_http("tools/call");
    let small = h.request(call("small", json!({})));
    let small_sent = h.expect_http("tools/call");
    ((big, big_sent), (small, small_sent))
}

/// The other call still works, and so does a new request.
fn others_unaffected(h: &mut Harness, small: mcpwire_core::RequestHandle, small_sent: &Sent) {
    assert!(!h.has_response(small));
    h.reply_http(small_sent, text_result("small"));
    match h.ok(small) {
        Response::ToolResult(t) => assert_eq!(t.text(), "small"),
        other => panic!("expected a tool result, got {other:?}"),
    }
    let list = h.request(Request::ListTools);
    let sent = h.expect_http("tools/list");
    h.reply_http(&sent, tools_page(&["big", "small"], None));
    h.ok(list);
    h.assert_all_answered();
}

#[test]
fn http_a_content_length_over_the_limit_fails_the_request_before_any_body() {
    let mut h = http();
    let ((big, big_sent), (small, small_sent)) = two_calls(&mut h);
    let len = (10 * LIMIT).to_string();
    h.head(big_sent.id, 200, &[("Content-Type", "application/json"), ("Content-Length", &len)]);
    assert_too_large(h.err(big), 10 * LIMIT);
    assert_eq!(h.aborted(), vec![big_sent.id], "the body is never read");
    assert!(h.started_http().is_empty(), "too large is never retried");
    others_unaffected(&mut h, small, &small_sent);
}

#[test]
fn http_a_gzip_content_length_is_not_judged_before_inflating() {
    let mut h = http();
    let t = h.request(call("small", json!({})));
    let sent = h.expect_http("tools/call");
    // A compressed length says nothing certain about the message: the body is read.
    let body = crate::http_harness::gzip(result_for(&sent.json(), text_result("ok")).to_string().as_bytes());
    let len = (10 * LIMIT).to_string();
    h.head(
        sent.id,
        200,
        &[("Content-Type", "application/json"), ("Content-Encoding", "gzip"), ("Content-Length", &len)],
    );
    assert!(!h.has_response(t));
    h.body(sent.id, &body);
    h.end(sent.id);
    h.ok(t);
}

#[test]
fn http_a_streamed_json_body_fails_its_request_when_it_passes_the_limit() {
    let mut h = http();
    let ((big, big_sent), (small, small_sent)) = two_calls(&mut h);
    let body = result_for(&big_sent.json(), huge_result(10 * LIMIT)).to_string();
    h.head(big_sent.id, 200, &[("Content-Type", "application/json")]);
    h.body(big_sent.id, &body.as_bytes()[..800]);
    assert!(!h.has_response(big));
    h.body(big_sent.id, &body.as_bytes()[800..1600]);
    assert_too_large(h.err(big), 1600);
    assert_eq!(h.aborted(), vec![big_sent.id]);
    others_unaffected(&mut h, small, &small_sent);
}

fn sse_head(h: &mut Harness, ex: ExchangeId) {
    h.head(ex, 200, &[("Content-Type", "text/event-stream")]);
}

#[test]
fn http_an_sse_event_over_the_limit_fails_its_request_as_soon_as_its_start_is_known() {
    let mut h = http();
    let ((big, big_sent), (small, small_sent)) = two_calls(&mut h);
    sse_head(&mut h, big_sent.id);
    let event = sse_message(Some("e1"), &result_for(&big_sent.json(), huge_result(10 * LIMIT)));
    h.body(big_sent.id, &event.as_bytes()[..2 * LIMIT]);
    assert_too_large(h.err(big), LIMIT + 1);
    assert_eq!(h.aborted(), vec![big_sent.id], "the rest of the stream is not read");
    assert_eq!(h.elapsed(), Duration::ZERO);
    others_unaffected(&mut h, small, &small_sent);
}

#[test]
fn http_an_sse_event_naming_its_id_at_the_end_fails_the_request_when_it_ends() {
    let mut h = http();
    let ((big, big_sent), (small, small_sent)) = two_calls(&mut h);
    sse_head(&mut h, big_sent.id);
    let data = result_first(&big_sent.json()["id"], &huge_result(10 * LIMIT));
    let event = [b"event: message\ndata: ".as_slice(), &data, b"\n\n"].concat();
    let (most, end) = event.split_at(event.len() - 2);
    for chunk in most.chunks(500) {
        h.body(big_sent.id, chunk);
    }
    assert!(!h.has_response(big));
    h.body(big_sent.id, end);
    // The event's bytes, as the decoder counts them: its type and its data line.
    assert_too_large(h.err(big), "message".len() + "data: ".len() + data.len());
    assert_eq!(h.aborted(), vec![big_sent.id]);
    assert!(matches!(h.warnings().as_slice(), [Warning::OversizeMessage { .. }]));
    others_unaffected(&mut h, small, &small_sent);
}

#[test]
fn http_an_unreadable_oversize_event_fails_the_request_when_its_stream_ends() {
    let mut h = http();
    let ((big, big_sent), (small, small_sent)) = two_calls(&mut h);
    sse_head(&mut h, big_sent.id);
    let data = format!(
        r#"{{"result":{},"id":{},"padding":"{}"}}"#,
        huge_result(10 * LIMIT),
        big_sent.json()["id"],
        "p".repeat(10 * LIMIT)
    );
    h.body(big_sent.id, format!("data: {data}\n\n").as_bytes());
    assert!(!h.has_response(big), "which request it answered is unknown");
    assert!(matches!(h.warnings().as_slice(), [Warning::OversizeMessage { .. }]));
    h.end(big_sent.id);
    // Not re-issued (it would come back as large): failed as too large.
    assert!(matches!(h.err(big), RequestError::ResponseTooLarge { limit: LIMIT, .. }));
    assert!(h.started_http().is_empty());
    others_unaffected(&mut h, small, &small_sent);
}

#[test]
fn http_sse_transport_an_oversize_event_on_the_stream_fails_the_request_it_names() {
    let mut cfg = http_config("http://srv.test/sse", &[TransportKind::Sse]);
    cfg.limits.max_message_bytes = LIMIT;
    let (mut h, stream) = sse_session(cfg);

    let big = h.request(call("big", json!({})));
    let big_sent = h.expect_http("tools/call");
    h.accepted(&big_sent);
    let ping = h.request(Request::Ping);
    let ping_sent = h.expect_http("ping");
    h.accepted(&ping_sent);
    let event = sse_message(None, &result_for(&big_sent.json(), huge_result(10 * LIMIT)));
    h.body(stream.id, &event.as_bytes()[..2 * LIMIT]);
    assert_too_large(h.err(big), LIMIT + 1);
    assert!(h.aborted().is_empty(), "the session's stream stays open");
    h.body(stream.id, &event.as_bytes()[2 * LIMIT..]);
    assert!(matches!(h.warnings().as_slice(), [Warning::OversizeMessage { .. }]));
    h.body(stream.id, sse_message(None, &result_for(&ping_sent.json(), json!({}))).as_bytes());
    assert_eq!(h.ok(ping), Response::Pong);
    h.assert_all_answered();
}

#[test]
fn http_defaults_are_unchanged_for_messages_within_the_limit() {
    let mut h = modern_http();
    let t = h.request(call("echo", json!({})));
    let sent = h.expect_http("tools/call");
    let body = result_for(&sent.json(), text_result("fine")).to_string();
    let len = body.len().to_string();
    h.head(sent.id, 200, &[("Content-Type", "application/json"), ("Content-Length", &len)]);
    h.body(sent.id, body.as_bytes());
    h.end(sent.id);
    h.ok(t);
}
