//! Capability gating: each request kind goes out only when the server declared the capability
//! it needs, in `initialize` (legacy) or `server/discover` (2026-07-28); otherwise it ends with
//! `RequestError::CapabilityMissing` and nothing is written. A request issued before the
//! handshake is judged once the capabilities are known.

use serde_json::{json, Value};

use mcpwire_core::types::{CompletionReference, LoggingLevel};
use mcpwire_core::{Request, RequestError, Response, MODERN_VERSION};

use crate::harness::{call, discover, secs, Harness};

fn missing(capability: &'static str, method: &'static str) -> RequestError {
    RequestError::CapabilityMissing { capability, method }
}

fn complete() -> Request {
    Request::Complete {
        reference: CompletionReference::prompt("p"),
        argument: "a".into(),
        value: "x".into(),
        context: None,
    }
}

/// Every gated request kind of a legacy server: the request, the method it sends, the
/// capability it needs, and a capabilities object declaring it.
fn legacy_table() -> Vec<(Request, &'static str, &'static str, Value)> {
    let tasks =
        json!({"tools": {}, "tasks": {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}});
    vec![
        (Request::ListTools, "tools/list", "tools", json!({"tools": {}})),
        (call("t", json!({})), "tools/call", "tools", json!({"tools": {}})),
        (Request::ListPrompts, "prompts/list", "prompts", json!({"prompts": {}})),
        (
            Request::GetPrompt { name: "p".into(), arguments: Default::default() },
            "prompts/get",
            "prompts",
            json!({"prompts": {}}),
        ),
        (Request::ListResources, "resources/list", "resources", json!({"resources": {}})),
        (Request::ListResourceTemplates, "resources/templates/list", "resources", json!({"resources": {}})),
        (
            Request::ReadResource { uri: "a://b".into() },
            "resources/read",
            "resources",
            json!({"resources": {}}),
        ),
        (
            Request::SubscribeResource { uri: "a://b".into() },
            "resources/subscribe",
            "resources.subscribe",
            json!({"resources": {"subscribe": true}}),
        ),
        (
            Request::UnsubscribeResource { uri: "a://b".into() },
            "resources/unsubscribe",
            "resources.subscribe",
            json!({"resources": {"subscribe": true}}),
        ),
        (complete(), "completion/complete", "completions", json!({"completions": {}})),
        (Request::SetLogLevel(LoggingLevel::Debug), "logging/setLevel", "logging", json!({"logging": {}})),
        (Request::ListTasks, "tasks/list", "tasks.list", tasks.clone()),
        (Request::CancelTask { task_id: "t1".into() }, "tasks/cancel", "tasks.cancel", tasks.clone()),
        (Request::GetTask { task_id: "t1".into() }, "tasks/get", "tasks", tasks.clone()),
        (
            Request::CallToolAsTask { name: "t".into(), arguments: json!({}) },
            "tools/call",
            "tasks.requests.tools.call",
            tasks,
        ),
    ]
}

#[test]
fn legacy_requests_without_their_capability_are_refused_unsent() {
    for (request, method, capability, _) in legacy_table() {
        let mut h = Harness::auto();
        // A task-augmented call needs `tools` too (checked first): declare only that.
        let caps = if capability == "tasks.requests.tools.call" { json!({"tools": {}}) } else { json!({}) };
        h.connect_legacy_with("2025-11-25", caps);
        let r = h.request(request);
        assert_eq!(h.err(r), missing(capability, method), "{method}");
        h.assert_quiet();
    }
}

#[test]
fn legacy_requests_with_their_capability_go_out() {
    for (request, method, _, caps) in legacy_table() {
        let mut h = Harness::auto();
        h.connect_legacy_with("2025-11-25", caps);
        let r = h.request(request);
        let sent = h.expect_sent(method);
        assert!(!h.has_response(r), "{method} is in flight");
        h.reply_error(&sent, -32603, "boom", None);
        assert!(matches!(h.err(r), RequestError::Rpc(_)), "{method}");
    }
}

#[test]
fn a_capability_of_the_wrong_kind_is_not_a_declaration() {
    let mut h = Harness::auto();
    h.connect_legacy_with("2025-11-25", json!({"resources": {"subscribe": "yes"}, "tools": null}));
    let s = h.request(Request::SubscribeResource { uri: "a://b".into() });
    assert_eq!(h.err(s), missing("resources.subscribe", "resources/subscribe"));
    let t = h.request(Request::ListTools);
    assert_eq!(h.err(t), missing("tools", "tools/list"));
    let a = h.request(Request::CallToolAsTask { name: "t".into(), arguments: json!({}) });
    assert_eq!(h.err(a), missing("tools", "tools/call"), "tools is checked before the task capability");
    // The entry alone is enough for reading.
    let r = h.request(Request::ReadResource { uri: "a://b".into() });
    h.expect_sent("resources/read");
    assert!(!h.has_response(r));
}

#[test]
fn requests_issued_before_the_handshake_are_judged_after_it() {
    let mut h = Harness::auto();
    let level = h.request(Request::SetLogLevel(LoggingLevel::Info));
    let list = h.request(Request::ListTools);
    let prompts = h.request(Request::ListPrompts);
    h.start();
    assert!(!h.has_response(level), "nothing is known before the handshake");
    h.legacy_handshake("2025-11-25", json!({"tools": {}}));
    assert_eq!(h.err(level), missing("logging", "logging/setLevel"));
    assert_eq!(h.err(prompts), missing("prompts", "prompts/list"));
    // Only the declared one was written.
    let sent = h.expect_sent("tools/list");
    h.reply(&sent, json!({"tools": []}));
    assert_eq!(h.ok(list), Response::Tools(vec![]));
    h.assert_quiet();
}

#[test]
fn a_declared_request_issued_before_the_handshake_goes_out_after_it() {
    let mut h = Harness::auto();
    let level = h.request(Request::SetLogLevel(LoggingLevel::Info));
    h.start();
    h.legacy_handshake("2025-11-25", json!({"logging": {}}));
    let sent = h.expect_sent("logging/setLevel");
    assert_eq!(sent["params"]["level"], "info");
    h.reply(&sent, json!({}));
    assert_eq!(h.ok(level), Response::Empty);
}

#[test]
fn completion_has_no_capability_on_2024_11_05() {
    let mut h = Harness::auto();
    h.connect_legacy_with("2024-11-05", json!({"prompts": {}}));
    let c = h.request(complete());
    let sent = h.expect_sent("completion/complete");
    h.reply(&sent, json!({"completion": {"values": ["xy"]}}));
    assert!(matches!(h.ok(c), Response::Completion(_)));

    let mut h = Harness::auto();
    h.connect_legacy_with("2025-03-26", json!({"prompts": {}}));
    let c = h.request(complete());
    assert_eq!(h.err(c), missing("completions", "completion/complete"));
    h.assert_quiet();
}

#[test]
fn modern_capabilities_come_from_server_discover() {
    let mut h = Harness::auto();
    h.connect_modern_with(discover(&[MODERN_VERSION], json!({"tools": {}}), 0));
    for (request, method, capability) in [
        (Request::SetLogLevel(LoggingLevel::Debug), "logging/setLevel", "logging"),
        (complete(), "completion/complete", "completions"),
        (Request::ListPrompts, "prompts/list", "prompts"),
        (Request::ReadResource { uri: "a://b".into() }, "resources/read", "resources"),
        (Request::GetTask { task_id: "t".into() }, "tasks/get", "extensions.io.modelcontextprotocol/tasks"),
    ] {
        let r = h.request(request);
        assert_eq!(h.err(r), missing(capability, method));
    }
    h.assert_quiet();

    // A refreshed discovery declaring logging lets the level through (kept locally and sent
    // as `_meta` with later requests on 2026-07-28).
    let d = h.request(Request::Discover);
    let probe = h.expect_sent("server/discover");
    h.reply(&probe, discover(&[MODERN_VERSION], json!({"tools": {}, "logging": {}}), 0));
    h.take_connected();
    h.ok(d);
    let level = h.request(Request::SetLogLevel(LoggingLevel::Debug));
    assert_eq!(h.ok(level), Response::Empty);
    let t = h.request(Request::ListTools);
    let sent = h.expect_sent("tools/list");
    assert_eq!(sent["params"]["_meta"]["io.modelcontextprotocol/logLevel"], "debug");
    h.reply(&sent, json!({"tools": []}));
    h.ok(t);
}

#[test]
fn a_server_that_refused_discovery_with_a_modern_error_is_not_gated() {
    let mut h = Harness::auto();
    let r = h.request(Request::ListPrompts);
    h.start();
    let probe = h.expect_sent("server/discover");
    h.reply_error(&probe, -32021, "missing client capability", None);
    let info = h.take_connected();
    assert!(info.capabilities.is_unknown());
    let sent = h.expect_sent("prompts/list");
    h.reply(&sent, json!({"prompts": []}));
    assert_eq!(h.ok(r), Response::Prompts(vec![]));
}

#[test]
fn a_restarted_server_is_judged_on_its_new_declaration() {
    let mut h = Harness::auto();
    h.connect_legacy_with("2025-11-25", json!({"logging": {}}));
    let level = h.request(Request::SetLogLevel(LoggingLevel::Warning));
    let sent = h.expect_sent("logging/setLevel");
    h.reply(&sent, json!({}));
    h.ok(level);
    h.advance(secs(1));
    h.exited(crate::harness::exit_code(0));
    h.eof();
    h.take_disconnected();
    // The next process no longer declares logging.
    let level = h.request(Request::SetLogLevel(LoggingLevel::Warning));
    h.start();
    h.legacy_handshake("2025-11-25", json!({"tools": {}}));
    assert_eq!(h.err(level), missing("logging", "logging/setLevel"));
    h.assert_quiet();
}

#[test]
fn the_error_names_the_capability_and_the_method() {
    let e = missing("resources.subscribe", "resources/subscribe");
    assert_eq!(
        e.to_string(),
        "the server does not declare the resources.subscribe capability that resources/subscribe needs"
    );
}
