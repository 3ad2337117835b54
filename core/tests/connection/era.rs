//! Era detection: the `server/discover` probe, the legacy `initialize` fallback, the modes.

use serde_json::{json, Value};

use super::harness::*;
use mcpwire_core::{
    ClientFeatures, Era, Event, Io, ProtocolMode, Request, RequestError, Response, Warning, LEGACY_VERSIONS,
    MODERN_VERSION,
};

#[test]
fn auto_probe_is_the_first_write_and_carries_the_modern_meta() {
    let mut h = Harness::auto();
    let r = h.request(Request::ListTools);
    // Nothing is written before the process is confirmed.
    let epoch = h.take_spawn();
    h.assert_quiet();
    assert_eq!(h.conn.current_epoch(), Some(epoch));
    assert_eq!(h.conn.era(), None);
    h.started(epoch);
    let probe = h.expect_sent("server/discover");
    assert!(probe["id"].is_u64());
    assert_modern_meta(&probe);
    // The probe is bounded by the discover timeout.
    assert_eq!(h.next_timer_in(), Some(secs(5)));
    assert_eq!(h.conn.poll_timeout_reason().map(|(_, r)| r), Some("handshake timeout"));
    assert!(!h.has_response(r));
}

#[test]
fn discover_result_connects_modern_and_sends_queued_requests_with_meta() {
    let mut h = Harness::auto();
    let list = h.request(Request::ListTools);
    let call_h = h.request(call("echo", json!({"text": "hi"})));
    h.start();
    let info = h.modern_handshake(discover(&[MODERN_VERSION, "2025-11-25"], json!({"tools": {}}), 0));
    assert_eq!(info.protocol_version, MODERN_VERSION);
    assert_eq!(info.supported_versions, vec![MODERN_VERSION.to_string(), "2025-11-25".into()]);
    assert_eq!(info.implementation.as_ref().map(|i| i.name.as_str()), Some("fake"));
    assert_eq!(h.conn.era(), Some(Era::Modern));
    // The handshake timer is gone; request timers remain.
    assert_eq!(h.conn.poll_timeout_reason().map(|(_, r)| r), Some("request timeout"));

    let sent = h.sent();
    assert_eq!(sent.len(), 2);
    assert_eq!(sent[0]["method"], json!("tools/list"));
    assert_eq!(sent[1]["method"], json!("tools/call"));
    assert_eq!(sent[1]["params"]["name"], json!("echo"));
    for msg in &sent {
        assert_modern_meta(msg);
    }
    h.reply(&sent[0], tools_page(&["echo"], None));
    h.reply(&sent[1], text_result("hi"));
    assert_eq!(tool_names(h.ok(list)), vec!["echo"]);
    assert_eq!(h.ok(call_h).into_tool_result().unwrap().text(), "hi");

    // Later requests carry the envelope too, and no initialize is ever written.
    let p = h.request(Request::Ping);
    let ping = h.expect_sent("server/discover");
    assert_modern_meta(&ping);
    h.reply(&ping, discover_ok());
    assert_eq!(h.ok(p), Response::Pong);
    h.assert_quiet();
    h.assert_all_answered();
}

/// Reaches the `initialize` of an Auto-mode connection whose probe got this error.
fn fallback_after_probe_error(code: i64) -> (Harness, mcpwire_core::RequestHandle, Value) {
    let mut h = Harness::auto();
    let r = h.request(Request::ListTools);
    h.start();
    let probe = h.expect_sent("server/discover");
    h.reply_error(&probe, code, "nope", None);
    let init = h.expect_sent("initialize");
    (h, r, init)
}

fn assert_initialize(init: &Value) {
    assert_eq!(init["params"]["protocolVersion"], json!("2025-11-25"));
    assert_eq!(init["params"]["clientInfo"], json!({"name": "test-client", "version": "9.9.9"}));
    assert_eq!(init["params"]["capabilities"], json!({}), "no feature, no capability");
    assert!(!has_modern_meta(init));
}

fn finish_legacy(mut h: Harness, r: mcpwire_core::RequestHandle, init: Value) {
    assert_eq!(h.next_timer_in(), Some(secs(30)), "initialize timeout");
    h.reply(&init, init_result("2025-11-25", json!({"tools": {}})));
    let sent = h.sent();
    assert_eq!(sent.len(), 2);
    assert_eq!(sent[0], json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    assert_eq!(sent[1]["method"], json!("tools/list"));
    assert!(sent[1].get("params").is_none(), "legacy tools/list without cursor has no params: {}", sent[1]);
    let info = h.take_connected();
    assert_eq!((info.era, info.protocol_version.as_str()), (Era::Legacy, "2025-11-25"));
    assert!(info.supported_versions.is_empty());
    h.reply(&sent[1], tools_page(&["a"], None));
    assert_eq!(tool_names(h.ok(r)), vec!["a"]);

    // Every later legacy request is free of the modern envelope.
    let c = h.request(call("a", json!({"x": 1})));
    let msg = h.expect_sent("tools/call");
    assert!(!has_modern_meta(&msg));
    assert!(msg["params"].get("_meta").is_none());
    h.reply(&msg, text_result("ok"));
    h.ok(c);
    let p = h.request(Request::Ping);
    let ping = h.expect_sent("ping");
    assert!(ping.get("params").is_none());
    h.reply(&ping, json!({}));
    assert_eq!(h.ok(p), Response::Pong);
    h.assert_quiet();
    h.assert_all_answered();
}

#[test]
fn probe_method_not_found_falls_back_to_initialize() {
    let (h, r, init) = fallback_after_probe_error(-32601);
    assert_initialize(&init);
    finish_legacy(h, r, init);
}

#[test]
fn probe_invalid_params_falls_back_to_initialize() {
    let (h, r, init) = fallback_after_probe_error(-32602);
    assert_initialize(&init);
    finish_legacy(h, r, init);
}

#[test]
fn fallback_is_not_keyed_to_one_error_code() {
    for code in [-32600, -32603, -32000, -1, 42] {
        let (h, r, init) = fallback_after_probe_error(code);
        assert_initialize(&init);
        finish_legacy(h, r, init);
    }
}

#[test]
fn probe_silence_until_the_discover_timeout_falls_back() {
    let mut h = Harness::auto();
    let r = h.request(Request::ListTools);
    h.start();
    h.expect_sent("server/discover");
    h.advance(ms(4999));
    h.assert_quiet();
    h.advance(ms(1));
    let init = h.expect_sent("initialize");
    assert_initialize(&init);
    assert!(h.events().is_empty(), "falling back is silent");
    finish_legacy(h, r, init);
}

#[test]
fn unusable_discover_result_falls_back() {
    let mut h = Harness::auto();
    let r = h.request(Request::ListTools);
    h.start();
    let probe = h.expect_sent("server/discover");
    h.reply(&probe, json!({"something": "else"}));
    let init = h.expect_sent("initialize");
    finish_legacy(h, r, init);
}

#[test]
fn late_discover_result_during_initialize_wins() {
    let mut h = Harness::auto();
    let r = h.request(Request::ListTools);
    h.start();
    let probe = h.expect_sent("server/discover");
    h.advance(secs(5));
    let init = h.expect_sent("initialize");
    h.reply(&probe, discover_ok());
    let info = h.take_connected();
    assert_eq!(info.era, Era::Modern);
    let list = h.expect_sent("tools/list");
    assert_modern_meta(&list);
    // The initialize answer that follows is late, and no `initialized` is sent.
    h.reply(&init, init_result("2025-11-25", json!({})));
    let w = h.warnings();
    assert!(
        matches!(&w[..], [Warning::LateResponse { id }] if init["id"] == json!(id.parse::<u64>().unwrap())),
        "{w:?}"
    );
    h.assert_quiet();
    assert_eq!(h.conn.era(), Some(Era::Modern));
    h.reply(&list, tools_page(&["t"], None));
    assert_eq!(tool_names(h.ok(r)), vec!["t"]);
    // No handshake timer is left behind.
    assert_eq!(h.next_timer_in(), None);
}

#[test]
fn late_discover_result_after_the_legacy_handshake_is_ignored() {
    let mut h = Harness::auto();
    h.request(Request::Connect);
    h.start();
    let probe = h.expect_sent("server/discover");
    h.advance(secs(5));
    let init = h.expect_sent("initialize");
    h.reply(&init, init_result("2025-06-18", json!({"tools": {}})));
    h.expect_sent("notifications/initialized");
    assert_eq!(h.take_connected().era, Era::Legacy);
    h.events();
    // A dual-era server answering the probe only now does not flip the session.
    h.reply(&probe, discover_ok());
    assert!(
        !h.events().iter().any(|e| matches!(e, Event::Connected(_))),
        "a late probe answer must not reconnect a ready legacy session"
    );
    assert_eq!(h.conn.era(), Some(Era::Legacy));
    let c = h.request(call("x", json!({})));
    let msg = h.expect_sent("tools/call");
    assert!(!has_modern_meta(&msg));
    h.reply(&msg, text_result(""));
    h.ok(c);
}

#[test]
fn late_probe_error_during_initialize_changes_nothing() {
    let mut h = Harness::auto();
    let r = h.request(Request::ListTools);
    h.start();
    let probe = h.expect_sent("server/discover");
    h.advance(secs(5));
    let init = h.expect_sent("initialize");
    h.reply_error(&probe, -32601, "Method not found", None);
    h.assert_quiet();
    finish_legacy(h, r, init);
}

#[test]
fn unsupported_version_error_without_a_legacy_revision_is_not_a_fallback() {
    let mut h = Harness::auto();
    let r = h.request(Request::ListTools);
    h.start();
    let probe = h.expect_sent("server/discover");
    let data = json!({"supported": ["2099-01-01"], "requested": MODERN_VERSION});
    h.reply_error(&probe, -32022, "Unsupported protocol version", Some(data));
    let sent = h.sent();
    assert!(sent.iter().all(|m| m["method"] != json!("initialize")), "{sent:?}");
    let e = h.err(r);
    let RequestError::NoCommonVersion { server, client } = &e else { panic!("{e:?}") };
    assert_eq!(server, &vec!["2099-01-01".to_string()]);
    assert_eq!(client[0], MODERN_VERSION);
    assert!(client.iter().any(|v| v == "2024-11-05"));
    assert_eq!(h.take_disconnected(), e);
    assert_eq!(h.io(), vec![Io::CloseStdin { epoch: h.epoch.unwrap() }]);
}

#[test]
fn unsupported_version_error_listing_a_legacy_revision_uses_initialize_in_auto_mode() {
    let mut h = Harness::auto();
    let r = h.request(Request::ListTools);
    h.start();
    let probe = h.expect_sent("server/discover");
    h.reply_error(&probe, -32022, "Unsupported", Some(json!({"supported": ["2025-06-18"]})));
    let init = h.expect_sent("initialize");
    finish_legacy(h, r, init);
}

#[test]
fn unsupported_version_error_listing_our_version_retries_the_probe_once() {
    let mut h = Harness::auto();
    let r = h.request(Request::ListTools);
    h.start();
    let probe = h.expect_sent("server/discover");
    let data = json!({"supported": [MODERN_VERSION], "requested": MODERN_VERSION});
    h.reply_error(&probe, -32022, "Unsupported protocol version", Some(data.clone()));
    let again = h.expect_sent("server/discover");
    assert_ne!(again["id"], probe["id"]);
    h.reply(&again, discover_ok());
    h.take_connected();
    let list = h.expect_sent("tools/list");
    h.reply(&list, tools_page(&["a"], None));
    h.ok(r);

    // A server that keeps refusing gets one retry, then a typed error.
    let mut h = Harness::auto();
    let r = h.request(Request::ListTools);
    h.start();
    for _ in 0..2 {
        let probe = h.expect_sent("server/discover");
        h.reply_error(&probe, -32022, "Unsupported protocol version", Some(data.clone()));
    }
    assert!(matches!(h.err(r), RequestError::NoCommonVersion { .. }));
}

#[test]
fn discover_without_the_modern_version_is_no_common_version() {
    let mut h = Harness::auto();
    let r = h.request(Request::ListTools);
    h.start();
    h.modern_handshake_fails(discover(&["2099-01-01"], json!({}), 0));
    assert!(matches!(h.err(r), RequestError::NoCommonVersion { .. }));
    assert!(matches!(h.take_disconnected(), RequestError::NoCommonVersion { .. }));
}

impl Harness {
    fn modern_handshake_fails(&mut self, result: Value) {
        let probe = self.expect_sent("server/discover");
        self.reply(&probe, result);
        assert!(self.sent().is_empty());
    }
}

#[test]
fn other_modern_errors_identify_a_modern_server() {
    for code in [-32020, -32021] {
        let mut h = Harness::auto();
        let r = h.request(Request::ListTools);
        h.start();
        let probe = h.expect_sent("server/discover");
        h.reply_error(&probe, code, "modern", None);
        assert_eq!(h.take_connected().era, Era::Modern);
        let list = h.expect_sent("tools/list");
        assert_modern_meta(&list);
        h.reply(&list, tools_page(&[], None));
        h.ok(r);
    }
}

#[test]
fn initialize_with_an_unsupported_revision_fails_everything_and_reaps() {
    let mut h = Harness::legacy_mode();
    let a = h.request(Request::ListTools);
    let b = h.request(call("x", json!({})));
    let first = h.start();
    let init = h.expect_sent("initialize");
    h.reply(&init, init_result("1999-01-01", json!({})));
    let expected = RequestError::UnsupportedProtocolVersion {
        offered: "2025-11-25".into(),
        answered: "1999-01-01".into(),
    };
    assert_eq!(h.err(a), expected);
    assert_eq!(h.err(b), expected);
    let msg = expected.to_string();
    assert!(msg.contains("1999-01-01") && msg.contains("2025-11-25"), "{msg}");
    assert_eq!(h.take_disconnected(), expected);
    assert!(h.events().is_empty());
    assert!(h.sent().is_empty(), "no notifications/initialized, no cancellation");
    assert_eq!(h.conn.current_epoch(), None);
    // Reaping: close stdin, then terminate, then kill.
    assert_eq!(h.io(), vec![Io::CloseStdin { epoch: first }]);
    assert_eq!(h.fire_next_timer(), secs(2));
    assert_eq!(h.io(), vec![Io::Terminate { epoch: first, force: false }]);
    assert_eq!(h.fire_next_timer(), secs(2));
    assert_eq!(h.io(), vec![Io::Terminate { epoch: first, force: true }]);
    assert_eq!(h.fire_next_timer(), secs(2));
    h.assert_quiet();
    assert_eq!(h.next_timer_in(), None);
    // Output from the dead process is ignored.
    h.stdout_from(first, b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n");
    h.assert_quiet();

    // A new request spawns a new epoch, which is handshaken afresh.
    let c = h.request(Request::ListTools);
    let second = h.start();
    assert_ne!(first, second);
    assert!(second > first);
    h.legacy_handshake("2025-03-26", json!({"tools": {}}));
    let list = h.expect_sent("tools/list");
    h.reply(&list, tools_page(&["t"], None));
    assert_eq!(tool_names(h.ok(c)), vec!["t"]);
    h.assert_all_answered();
}

#[test]
fn unsupported_revision_reaping_stops_early_when_the_process_exits() {
    let mut h = Harness::legacy_mode();
    let a = h.request(Request::ListTools);
    let epoch = h.start();
    let init = h.expect_sent("initialize");
    h.reply(&init, init_result("2030-01-01", json!({})));
    h.err(a);
    h.take_disconnected();
    assert_eq!(h.io(), vec![Io::CloseStdin { epoch }]);
    h.exited_epoch(epoch, exit_code(0));
    assert_eq!(h.next_timer_in(), None, "no escalation once the process exited");
    h.advance(secs(10));
    h.assert_quiet();
}

#[test]
fn modern_mode_against_a_legacy_server_is_modern_required() {
    let mut h = Harness::modern_mode();
    let r = h.request(Request::ListTools);
    h.start();
    let probe = h.expect_sent("server/discover");
    assert_modern_meta(&probe);
    h.reply_error(&probe, -32601, "Method not found", None);
    assert!(h.sent().is_empty(), "modern mode never sends initialize");
    let e = h.err(r);
    assert!(matches!(&e, RequestError::ModernRequired { detail } if detail.contains("-32601")), "{e:?}");
    assert_eq!(h.take_disconnected(), e);
}

#[test]
fn modern_mode_probe_silence_is_modern_required() {
    let mut h = Harness::modern_mode();
    let r = h.request(Request::ListTools);
    h.start();
    h.expect_sent("server/discover");
    h.advance(secs(5));
    assert!(h.sent().is_empty());
    assert!(matches!(h.err(r), RequestError::ModernRequired { .. }));
    h.take_disconnected();
}

#[test]
fn modern_mode_with_unsupported_version_listing_legacy_is_no_common_version() {
    let mut h = Harness::modern_mode();
    let r = h.request(Request::ListTools);
    h.start();
    let probe = h.expect_sent("server/discover");
    h.reply_error(&probe, -32022, "Unsupported", Some(json!({"supported": ["2025-11-25"]})));
    assert!(h.sent().is_empty());
    let e = h.err(r);
    let RequestError::NoCommonVersion { client, .. } = &e else { panic!("{e:?}") };
    assert_eq!(client, &vec![MODERN_VERSION.to_string()]);
}

#[test]
fn modern_mode_against_a_modern_server_works() {
    let mut h = Harness::modern_mode();
    let info = h.connect_modern();
    assert_eq!(info.era, Era::Modern);
    let r = h.request(Request::ListTools);
    let list = h.expect_sent("tools/list");
    assert_modern_meta(&list);
    h.reply(&list, tools_page(&["x"], None));
    h.ok(r);
}

#[test]
fn modern_required_detail_is_sanitised() {
    let mut h = Harness::modern_mode();
    let r = h.request(Request::ListTools);
    h.start();
    let probe = h.expect_sent("server/discover");
    h.reply_error(&probe, -32601, "evil\u{1b}]0;title\u{7}\u{9b}", None);
    let e = h.err(r);
    let text = e.to_string();
    assert!(!text.chars().any(|c| c.is_control()), "{text:?}");
}

#[test]
fn an_unsupported_revision_is_sanitised_in_the_error() {
    let mut h = Harness::legacy_mode();
    let r = h.request(Request::ListTools);
    h.start();
    let init = h.expect_sent("initialize");
    h.reply(&init, init_result("2025\u{1b}]0;x\u{7}", json!({})));
    let e = h.err(r);
    let RequestError::UnsupportedProtocolVersion { answered, .. } = &e else { panic!("{e:?}") };
    assert!(answered.starts_with("2025") && !answered.chars().any(char::is_control), "{answered:?}");
    assert!(!e.to_string().chars().any(char::is_control));
}

#[test]
fn legacy_mode_sends_initialize_first_without_a_probe() {
    let mut h = Harness::legacy_mode();
    let r = h.request(Request::ListTools);
    h.start();
    let init = h.expect_sent("initialize");
    assert_initialize(&init);
    assert_eq!(h.next_timer_in(), Some(secs(30)));
    finish_legacy(h, r, init);
}

#[test]
fn each_legacy_revision_is_accepted() {
    for version in LEGACY_VERSIONS {
        for mode in [ProtocolMode::Auto, ProtocolMode::Legacy] {
            let mut h = Harness::with(mode, |_| {});
            let info = h.connect_legacy_with(version, json!({"tools": {}}));
            assert_eq!(info.protocol_version, version);
            assert_eq!(h.conn.server_info().map(|i| i.protocol_version.as_str()), Some(version));
            assert_eq!(h.conn.era(), Some(Era::Legacy));
            assert_eq!(info.implementation.as_ref().map(|i| i.name.as_str()), Some("legacy-fake"));
        }
    }
}

#[test]
fn initialize_error_is_a_handshake_failure() {
    let mut h = Harness::legacy_mode();
    let r = h.request(Request::ListTools);
    h.start();
    let init = h.expect_sent("initialize");
    h.reply_error(&init, -32603, "boom\u{1b}", None);
    let e = h.err(r);
    let RequestError::Handshake { detail } = &e else { panic!("{e:?}") };
    assert!(detail.contains("-32603") && detail.contains("boom") && !detail.contains('\u{1b}'), "{detail}");
    h.take_disconnected();
    assert_eq!(h.io(), vec![Io::CloseStdin { epoch: h.epoch.unwrap() }]);
}

#[test]
fn malformed_initialize_result_is_a_handshake_failure() {
    let mut h = Harness::legacy_mode();
    let r = h.request(Request::ListTools);
    h.start();
    let init = h.expect_sent("initialize");
    h.reply(&init, json!({"capabilities": {}}));
    assert!(matches!(h.err(r), RequestError::Handshake { .. }));
    h.take_disconnected();
}

#[test]
fn initialize_timeout_fails_without_any_cancellation() {
    let mut h = Harness::legacy_mode();
    let short = h.request_opts(Request::ListTools, mcpwire_core::RequestOptions::default().timeout(secs(3)));
    let long = h.request(Request::ListTools);
    h.start();
    h.expect_sent("initialize");
    h.advance(secs(3));
    assert_eq!(h.err(short), RequestError::Timeout { after: secs(3) });
    assert!(h.sent().is_empty(), "an unsent request is not cancelled");
    h.advance(secs(27));
    let e = h.err(long);
    assert!(matches!(&e, RequestError::Handshake { detail } if detail.contains("30s")), "{e:?}");
    assert!(h.sent().is_empty(), "initialize is never cancelled");
    h.take_disconnected();
    assert_eq!(h.io(), vec![Io::CloseStdin { epoch: h.epoch.unwrap() }]);
}

#[test]
fn auto_mode_initialize_timeout_after_probe_timeout() {
    let mut h = Harness::auto();
    let r = h.request(Request::Connect);
    h.start();
    h.expect_sent("server/discover");
    h.advance(secs(5));
    h.expect_sent("initialize");
    h.advance(secs(30));
    assert!(h.sent().is_empty());
    assert!(matches!(h.err(r), RequestError::Handshake { .. }));
    h.take_disconnected();
}

#[test]
fn capabilities_in_initialize_derive_from_features() {
    let mut h = Harness::with(ProtocolMode::Legacy, |c| {
        c.features = ClientFeatures::default().roots(true).sampling(true).elicitation_form(true);
    });
    h.request(Request::Connect);
    h.start();
    let init = h.expect_sent("initialize");
    assert_eq!(
        init["params"]["capabilities"],
        json!({"roots": {}, "sampling": {}, "elicitation": {"form": {}}})
    );

    // Modern requests declare the same (served through input_required rounds).
    let mut h = Harness::with(ProtocolMode::Auto, |c| {
        c.features =
            ClientFeatures::default().roots(true).sampling(true).elicitation_form(true).elicitation_url(true);
    });
    h.request(Request::Connect);
    h.start();
    let probe = h.expect_sent("server/discover");
    assert_eq!(
        probe["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"],
        json!({"roots": {}, "sampling": {}, "elicitation": {"form": {}, "url": {}},
            "extensions": {"io.modelcontextprotocol/tasks": {}}})
    );
}

#[test]
fn connect_when_ready_answers_locally() {
    let mut h = Harness::auto();
    let info = h.connect_modern();
    let c = h.request(Request::Connect);
    assert_eq!(h.ok(c), Response::Connected(Box::new(info)));
    h.assert_quiet();
}
