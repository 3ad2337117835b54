//! Deprecated features in use: each is reported as one `Warning::Deprecated` per connection
//! (`DeprecationNotices::PerConnection`), none with `Off`, and nothing else changes. The
//! process-wide mode has its own test binary (`core/tests/deprecation_process.rs`).

use serde_json::{json, Value};

use super::harness::*;
use super::http_harness::*;
use mcpwire_core::types::LoggingLevel;
use mcpwire_core::{
    ClientFeatures, ConnectionConfig, Deprecation, DeprecationNotices, Event, ProtocolMode, Request,
    ServerRequestKind, UsedBy, Warning,
};

fn features() -> ClientFeatures {
    // With `sampling_context`, `includeContext` reaches the handler unchanged (no adjustment).
    ClientFeatures::default().roots(true).sampling(true).sampling_context(true).elicitation_form(true)
}

fn harness(mode: DeprecationNotices, features: ClientFeatures) -> Harness {
    Harness::with(ProtocolMode::Auto, |c| {
        c.features = features;
        c.deprecation_notices = Some(mode);
    })
}

/// The deprecation warnings pending, in order; other warnings stay.
fn deprecations(h: &mut Harness) -> Vec<(Deprecation, UsedBy)> {
    let mut out = Vec::new();
    for w in h.warnings() {
        match w {
            Warning::Deprecated { what, by } => out.push((what, by)),
            other => panic!("unexpected warning {other:?}"),
        }
    }
    out
}

fn sampling(include_context: Option<&str>) -> Value {
    let mut p = json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}],
        "maxTokens": 5});
    if let Some(c) = include_context {
        p["includeContext"] = json!(c);
    }
    p
}

/// A legacy server asks for roots and sampling (with `includeContext`) and logs, twice over;
/// the host's requests are served either way. Returns the deprecations reported.
fn legacy_session(mode: DeprecationNotices) -> Vec<(Deprecation, UsedBy)> {
    let mut h = harness(mode, features());
    h.connect_legacy();
    let mut id = 0;
    for _ in 0..2 {
        for (method, params) in [
            ("roots/list", json!({})),
            ("sampling/createMessage", sampling(Some("thisServer"))),
            ("sampling/createMessage", sampling(Some("allServers"))),
        ] {
            id += 1;
            h.server_says(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
            let (handle, request) = h.take_server_request();
            assert_eq!(request.kind.method(), method);
            assert!(h.respond(handle, Ok(json!({}))));
            assert_eq!(h.sent().len(), 1, "the answer goes out");
        }
        h.notify("notifications/message", json!({"level": "info", "data": "hello"}));
        assert!(h.take_event(|e| matches!(e, Event::Notification(_))).is_some(), "the log is delivered");
    }
    let found = deprecations(&mut h);
    h.assert_quiet();
    found
}

#[test]
fn a_legacy_server_reports_roots_sampling_context_and_logging_once_each() {
    assert_eq!(
        legacy_session(DeprecationNotices::PerConnection),
        [
            (Deprecation::Roots, UsedBy::Server),
            (Deprecation::Sampling, UsedBy::Server),
            (Deprecation::SamplingIncludeContext, UsedBy::Server),
            (Deprecation::Logging, UsedBy::Server),
        ]
    );
}

#[test]
fn off_reports_nothing_and_changes_nothing_else() {
    assert_eq!(legacy_session(DeprecationNotices::Off), []);
}

#[test]
fn a_refused_server_request_is_still_reported() {
    let mut h = harness(DeprecationNotices::PerConnection, ClientFeatures::default());
    h.connect_legacy();
    h.server_says(json!({"jsonrpc": "2.0", "id": 1, "method": "roots/list"}));
    assert_eq!(h.sent()[0]["error"]["code"], json!(-32601), "no handler: refused as before");
    let w = h.warnings();
    assert!(
        matches!(
            &w[..],
            [
                Warning::Deprecated { what: Deprecation::Roots, by: UsedBy::Server },
                Warning::ServerRequestRefused { .. }
            ]
        ),
        "{w:?}"
    );
}

#[test]
fn context_none_elicitation_and_ping_are_not_deprecated() {
    let mut h = harness(DeprecationNotices::PerConnection, features());
    h.connect_legacy();
    h.server_says(json!({"jsonrpc": "2.0", "id": 1, "method": "sampling/createMessage",
        "params": sampling(Some("none"))}));
    h.take_server_request();
    h.server_says(json!({"jsonrpc": "2.0", "id": 2, "method": "elicitation/create", "params": {
        "message": "Name?", "requestedSchema": {"type": "object", "properties": {}}}}));
    h.take_server_request();
    h.server_says(json!({"jsonrpc": "2.0", "id": 3, "method": "ping"}));
    h.sent();
    assert_eq!(deprecations(&mut h), [(Deprecation::Sampling, UsedBy::Server)]);
}

/// One `input_required` round asking for roots and sampling with `includeContext`.
fn input_round(h: &mut Harness) {
    let r = h.request(call("book", json!({})));
    let sent = h.expect_sent("tools/call");
    let requests = json!({
        "roots": {"method": "roots/list", "params": {}},
        "llm": {"method": "sampling/createMessage", "params": sampling(Some("allServers"))},
    });
    h.reply(&sent, json!({"resultType": "input_required", "inputRequests": requests}));
    for _ in 0..2 {
        let (handle, request) = h.take_server_request();
        let answer = match request.kind {
            ServerRequestKind::Roots => json!({"roots": []}),
            _ => json!({"role": "assistant", "content": {"type": "text", "text": "ok"}, "model": "m"}),
        };
        assert!(h.respond(handle, Ok(answer)));
    }
    let retry = h.expect_sent("tools/call");
    h.reply(&retry, text_result("booked"));
    h.ok(r);
}

#[test]
fn modern_input_requests_are_reported_once_per_connection() {
    let mut h = harness(DeprecationNotices::PerConnection, features());
    h.connect_modern();
    input_round(&mut h);
    let first = deprecations(&mut h);
    assert_eq!(first.len(), 3, "{first:?}");
    for what in [Deprecation::Roots, Deprecation::Sampling, Deprecation::SamplingIncludeContext] {
        assert!(first.contains(&(what, UsedBy::Server)), "{what:?} in {first:?}");
    }
    input_round(&mut h);
    assert_eq!(deprecations(&mut h), []);
}

/// One `input_required` round asking for roots and sampling (with `includeContext`) from a
/// host that has no handler for either: the request stops, resumable.
fn refused_input_round(h: &mut Harness) {
    let r = h.request(call("book", json!({})));
    let sent = h.expect_sent("tools/call");
    let requests = json!({
        "roots": {"method": "roots/list", "params": {}},
        "llm": {"method": "sampling/createMessage", "params": sampling(Some("thisServer"))},
    });
    h.reply(&sent, json!({"resultType": "input_required", "inputRequests": requests, "requestState": "s"}));
    assert!(matches!(h.err(r), mcpwire_core::RequestError::InputUndeclared { .. }));
    assert!(h.take_event(|e| matches!(e, Event::ServerRequest { .. })).is_none(), "no handler was asked");
}

#[test]
fn modern_input_requests_refused_for_lack_of_a_handler_are_reported_like_handled_ones() {
    let no_handlers = ClientFeatures::default().elicitation_form(true);
    let mut h = harness(DeprecationNotices::PerConnection, no_handlers.clone());
    h.connect_modern();
    refused_input_round(&mut h);
    let first = deprecations(&mut h);
    assert_eq!(first.len(), 3, "{first:?}");
    for what in [Deprecation::Roots, Deprecation::Sampling, Deprecation::SamplingIncludeContext] {
        assert!(first.contains(&(what, UsedBy::Server)), "{what:?} in {first:?}");
    }
    refused_input_round(&mut h);
    assert_eq!(deprecations(&mut h), [], "once per connection");

    let mut off = harness(DeprecationNotices::Off, no_handlers);
    off.connect_modern();
    refused_input_round(&mut off);
    assert_eq!(deprecations(&mut off), []);
}

#[test]
fn setting_a_log_level_is_the_hosts_use_of_logging_in_both_eras() {
    for legacy in [true, false] {
        let mut h = harness(DeprecationNotices::PerConnection, ClientFeatures::default());
        if legacy {
            h.connect_legacy_with("2025-11-25", json!({"logging": {}}));
        } else {
            h.connect_modern();
        }
        for _ in 0..2 {
            let r = h.request(Request::SetLogLevel(LoggingLevel::Debug));
            if legacy {
                let sent = h.expect_sent("logging/setLevel");
                h.reply(&sent, json!({}));
            }
            h.ok(r);
        }
        // The server's logs are the same feature: already reported.
        h.notify("notifications/message", json!({"level": "debug", "data": "x"}));
        assert_eq!(deprecations(&mut h), [(Deprecation::Logging, UsedBy::Host)], "legacy: {legacy}");
    }
}

/// An HTTP+SSE session (URL ending in `/sse`) in `mode`, connected; its stream id.
fn sse_session(cfg: ConnectionConfig) -> (Harness, mcpwire_core::ExchangeId) {
    let mut h = Harness::new(cfg);
    let c = h.request(Request::Connect);
    let stream = h.expect_http("GET");
    h.sse_open(stream.id, "event: endpoint\ndata: /messages\n\n");
    let init = h.expect_http("initialize");
    h.accepted(&init);
    let msg = result_for(&init.json(), init_result("2024-11-05", json!({})));
    h.body(stream.id, sse_message(None, &msg).as_bytes());
    h.ok(c);
    h.take_connected();
    let initialized = h.expect_http("notifications/initialized");
    h.accepted(&initialized);
    (h, stream.id)
}

#[test]
fn the_http_sse_transport_is_reported_once_across_reopenings() {
    let mut cfg = http_config("http://srv.test/sse", &[]);
    cfg.deprecation_notices = Some(DeprecationNotices::PerConnection);
    let (mut h, stream) = sse_session(cfg.clone());
    assert_eq!(deprecations(&mut h), [(Deprecation::HttpSseTransport, UsedBy::Server)]);
    // The stream is lost and reopened: the same connection, no second notice.
    h.end(stream);
    h.take_disconnected();
    h.fire_next_timer();
    h.expect_http("GET");
    assert_eq!(deprecations(&mut h), []);
    // Another connection has its own notice; with notices off, none.
    let (mut other, _) = sse_session(cfg.clone());
    assert_eq!(deprecations(&mut other), [(Deprecation::HttpSseTransport, UsedBy::Server)]);
    cfg.deprecation_notices = Some(DeprecationNotices::Off);
    let (mut off, _) = sse_session(cfg);
    assert_eq!(deprecations(&mut off), []);
}

#[test]
fn the_warning_reads_as_the_tables_notice() {
    let w = Warning::Deprecated { what: Deprecation::Roots, by: UsedBy::Server };
    let text = w.to_string();
    assert!(text.starts_with("deprecated: Roots (roots/list) is deprecated since MCP 2026-07-28"), "{text}");
    assert!(text.ends_with("(used by the server)"), "{text}");
}
