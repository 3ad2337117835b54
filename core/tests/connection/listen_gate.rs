//! Legacy Streamable HTTP: after the handshake, host requests wait for the GET stream's
//! response head, so a server request sent in answer to them has a stream to travel on.
//! The wait is bounded (2 s), and a refused or failed stream ends it at once.

use serde_json::json;

use mcpwire_core::{Request, RequestHandle};

use crate::harness::{call, secs, text_result, Harness};
use crate::http_harness::{http_config, sse_message, Sent};

/// A legacy handshake (session `sess-1`) with a tool call issued before it; returns the call,
/// and the GET stream (started, unanswered). The call is held.
fn call_during_handshake() -> (Harness, RequestHandle, Sent) {
    let mut h = Harness::new(http_config("http://srv.test/mcp", &[]));
    let t = h.request(call("ask", json!({})));
    let listen = h.http_connect_legacy();
    assert!(h.started_http().is_empty(), "the call waits for the GET stream");
    (h, t, listen)
}

#[test]
fn requests_wait_for_the_get_stream_head() {
    let (mut h, t, listen) = call_during_handshake();
    h.head(listen.id, 200, &[("Content-Type", "text/event-stream")]);
    let sent = h.expect_http("tools/call");
    assert_eq!(sent.header("Mcp-Session-Id"), Some("sess-1"));
    // The server asks for input on the stream that now exists, then answers the call.
    let ask = json!({"jsonrpc": "2.0", "id": 7, "method": "ping"});
    h.body(listen.id, sse_message(Some("e1"), &ask).as_bytes());
    let pong = h.expect_http("");
    assert_eq!(pong.json()["id"], 7, "the server request was answered");
    h.accepted(&pong);
    h.reply_http(&sent, text_result("done"));
    h.ok(t);
}

#[test]
fn a_refused_get_stream_releases_requests_at_once() {
    let (mut h, t, listen) = call_during_handshake();
    h.respond_http(listen.id, 405, &[], b"");
    let sent = h.expect_http("tools/call");
    h.reply_http(&sent, text_result("done"));
    h.ok(t);
    let later = h.request(Request::ListPrompts);
    let list = h.expect_http("prompts/list");
    h.reply_http(&list, json!({"prompts": []}));
    h.ok(later);
}

#[test]
fn a_failed_get_stream_releases_requests_at_once() {
    let (mut h, t, listen) = call_during_handshake();
    h.http_fail(listen.id, "connection reset");
    let sent = h.expect_http("tools/call");
    h.reply_http(&sent, text_result("done"));
    h.ok(t);
}

#[test]
fn a_silent_get_stream_holds_requests_for_two_seconds_at_most() {
    let (mut h, t, listen) = call_during_handshake();
    let later = h.request(Request::ListPrompts);
    assert!(h.started_http().is_empty());
    assert_eq!(h.fire_next_timer(), secs(2));
    let mut sent = h.started_http();
    assert_eq!(sent.len(), 2, "both held requests go out, in order: {sent:#?}");
    let (first, second) = (sent.remove(0), sent.remove(0));
    assert_eq!((first.method().as_str(), second.method().as_str()), ("tools/call", "prompts/list"));
    h.reply_http(&first, text_result("done"));
    h.reply_http(&second, json!({"prompts": []}));
    h.ok(t);
    h.ok(later);
    // The head arriving late changes nothing.
    h.head(listen.id, 200, &[("Content-Type", "text/event-stream")]);
    assert!(h.started_http().is_empty());
}

#[test]
fn a_held_request_can_be_cancelled_before_it_is_sent() {
    let (mut h, t, _listen) = call_during_handshake();
    let c = h.request(Request::ListPrompts);
    assert!(h.cancel(c));
    assert!(matches!(h.err(c), mcpwire_core::RequestError::Cancelled));
    assert!(h.started_http().is_empty(), "a cancelled request is never sent");
    h.advance(secs(2));
    let sent = h.expect_http("tools/call");
    h.reply_http(&sent, text_result("done"));
    h.ok(t);
}
