//! The HTTP+SSE transport (2024-11-05) against a scripted server: the fallback from Streamable
//! HTTP, the endpoint's origin, plain HTTP after every streaming transport, and the stream's
//! liveness (pings, silence, reopening with backoff).

use serde_json::json;

use mcpwire_core::mcp_servers::TransportKind;
use mcpwire_core::{Era, Request, RequestError, Warning};

use crate::harness::{init_result, ms, secs, tools_page, Harness};
use crate::http_harness::{error_for, http_config, modern_http, result_for, sse_message, sse_session};

// ----- fallback to HTTP+SSE ----------------------------------------------------------------

#[test]
fn fallback_to_http_sse_with_a_relative_endpoint() {
    let mut cfg = http_config("http://srv.test/api", &[]);
    cfg.deprecation_notices = Some(mcpwire_core::DeprecationNotices::PerConnection);
    let mut h = Harness::new(cfg);
    let c = h.request(Request::Connect);
    let stream = h.refuse_streamable(404);
    assert_eq!(stream.req.url, "http://srv.test/api");
    let deprecated = |w: &Warning| {
        matches!(w, Warning::Deprecated { what: mcpwire_core::Deprecation::HttpSseTransport, .. })
    };
    assert!(!h.warnings().iter().any(deprecated), "trying HTTP+SSE is not using it");
    h.sse_open(stream.id, "event: endpoint\ndata: /messages?session=abc\n\n");
    assert!(h.warnings().iter().any(deprecated), "the endpoint event shows the server serves HTTP+SSE");
    let init = h.expect_http("initialize");
    assert_eq!(init.req.url, "http://srv.test/messages?session=abc");
    assert_eq!(init.header("Accept-Encoding"), None, "HTTP+SSE never asks for gzip");
    h.accepted(&init);
    let msg = result_for(&init.json(), init_result("2024-11-05", json!({"tools": {}, "prompts": {}})));
    h.body(stream.id, sse_message(None, &msg).as_bytes());
    let info = h.take_connected();
    assert_eq!((info.era, info.protocol_version.as_str()), (Era::Legacy, "2024-11-05"));
    h.ok(c);
    assert_eq!(h.conn.http_transport(), Some(TransportKind::Sse));
    let initialized = h.expect_http("notifications/initialized");
    h.accepted(&initialized);

    let l = h.request(Request::ListTools);
    let sent = h.expect_http("tools/list");
    h.accepted(&sent);
    assert!(!h.has_response(l));
    h.body(stream.id, sse_message(None, &result_for(&sent.json(), tools_page(&["t"], None))).as_bytes());
    h.ok(l);

    // Losing the stream loses the session; the next request reconnects.
    let p = h.request(Request::ListPrompts);
    let _pending = h.expect_http("prompts/list");
    h.end(stream.id);
    assert!(matches!(h.err(p), RequestError::TransportClosed { .. }));
    h.request(Request::ListPrompts);
    h.expect_http("GET");
}

#[test]
fn an_off_origin_endpoint_is_refused() {
    let mut h = Harness::new(http_config("http://srv.test/sse", &[]));
    let c = h.request(Request::Connect);
    let stream = h.expect_http("GET");
    h.sse_open(stream.id, "event: endpoint\ndata: http://evil.test/messages\n\n");
    match h.err(c) {
        RequestError::Handshake { detail } => assert!(detail.contains("origin"), "{detail}"),
        other => panic!("expected Handshake, got {other:?}"),
    }
    assert!(h.started_http().is_empty(), "nothing is posted to the other host");
    assert!(h.aborted().contains(&stream.id));
}

#[test]
fn plain_http_after_every_streaming_transport_fails() {
    let mut h = Harness::new(http_config("http://srv.test/rpc", &[]));
    let c = h.request(Request::Connect);
    let probe = h.expect_http("server/discover");
    h.respond_http(probe.id, 404, &[], b"");
    let init = h.expect_http("initialize");
    h.respond_http(init.id, 404, &[], b"");
    let stream = h.expect_http("GET");
    h.respond_http(stream.id, 404, &[], b"");
    let init = h.expect_http("initialize");
    assert_eq!(init.header("Accept"), Some("application/json"));
    h.reply_http(&init, init_result("2025-03-26", json!({})));
    h.ok(c);
    assert_eq!(h.conn.http_transport(), Some(TransportKind::PlainHttp));
    let initialized = h.expect_http("notifications/initialized");
    h.accepted(&initialized);
    assert!(h.started_http().is_empty(), "no GET stream on plain HTTP");
}

#[test]
fn an_error_result_without_id_answers_the_request() {
    let mut h = modern_http();
    let t = h.request(Request::ListPrompts);
    let sent = h.expect_http("prompts/list");
    let msg = error_for(&json!({"id": null}), -32603, "boom");
    h.json_reply(&sent, &msg);
    assert!(matches!(h.err(t), RequestError::Rpc(e) if e.code == -32603));
}

// ----- HTTP+SSE liveness -------------------------------------------------------------------

/// A session over HTTP+SSE (URL ending in `/sse`), connected, with its stream open.
fn sse_connected() -> (Harness, crate::http_harness::Sent) {
    sse_session(http_config("http://srv.test/sse", &[]))
}

#[test]
fn a_silent_sse_stream_is_pinged_then_reopened() {
    let (mut h, stream) = sse_connected();
    assert_eq!(h.fire_next_timer(), secs(30));
    let ping = h.expect_http("ping");
    h.accepted(&ping);
    h.body(stream.id, sse_message(None, &result_for(&ping.json(), json!({}))).as_bytes());
    // Alive: the next check comes a full interval after that activity; the next ping too.
    assert_eq!(h.fire_next_timer(), secs(30));
    let ping = h.expect_http("ping");
    h.accepted(&ping);
    let t = h.request(Request::ListTools);
    let _sent = h.expect_http("tools/list");
    // Silence after the ping: the stream is dead.
    assert_eq!(h.fire_next_timer(), secs(30));
    assert!(matches!(h.take_disconnected(), RequestError::TransportClosed { .. }));
    assert!(matches!(h.err(t), RequestError::TransportClosed { detail, .. } if detail.contains("silent")));
    assert!(h.aborted().contains(&stream.id));
    // Reopened after a jittered backoff of about a second.
    let waited = h.fire_next_timer();
    assert!(waited >= ms(750) && waited <= ms(1250), "{waited:?}");
    let again = h.expect_http("GET");
    assert_eq!(again.req.url, "http://srv.test/sse");
}

#[test]
fn a_lost_sse_stream_reopens_with_growing_backoff_then_stops() {
    let (mut h, stream) = sse_connected();
    h.end(stream.id);
    assert!(matches!(h.take_disconnected(), RequestError::TransportClosed { .. }));
    let mut waits = Vec::new();
    for _ in 0..5 {
        waits.push(h.fire_next_timer());
        let get = h.expect_http("GET");
        h.http_fail(get.id, "connection refused");
        h.take_disconnected();
    }
    assert_eq!(h.conn.poll_timeout(), None, "gives up after five reopenings: {waits:?}");
    for (i, w) in waits.iter().enumerate() {
        let base = ms(1000 << i);
        assert!(*w >= base * 3 / 4 && *w <= base * 5 / 4, "wait {i}: {w:?}");
    }
    // A request still reconnects.
    h.request(Request::ListTools);
    h.expect_http("GET");
}
