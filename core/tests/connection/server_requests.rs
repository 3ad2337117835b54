//! Server requests to the host, both eras: URL-mode elicitation (capabilities, routing,
//! `elicitationId`, consent-only answers, completion notifications), lenient form answers,
//! sampling history checks and the `sampling.tools` / `sampling.context` opt-ins.

use serde_json::{json, Value};

use super::harness::*;
use mcpwire_core::server_requests::{Adjustment, Refusal, SamplingViolation};
use mcpwire_core::{ClientFeatures, Event, ProtocolMode, Request, RequestError, ServerRequestKind, Warning};

fn both_modes() -> ClientFeatures {
    ClientFeatures::default().sampling(true).elicitation_form(true).elicitation_url(true)
}

fn legacy_with(features: ClientFeatures) -> Harness {
    let mut h = Harness::with(ProtocolMode::Auto, |c| c.features = features);
    h.connect_legacy();
    h
}

fn modern_with(features: ClientFeatures) -> Harness {
    let mut h = Harness::with(ProtocolMode::Auto, |c| c.features = features);
    h.connect_modern();
    h
}

fn url_params(id: Option<&str>) -> Value {
    let mut p =
        json!({"mode": "url", "url": "https://example.com/connect", "message": "Connect your account"});
    if let Some(id) = id {
        p["elicitationId"] = json!(id);
    }
    p
}

fn form_params() -> Value {
    json!({"message": "Name?", "requestedSchema": {"type": "object",
        "properties": {"name": {"type": "string"}}, "required": ["name"]}})
}

fn sampling_params(messages: Value) -> Value {
    json!({"messages": messages, "maxTokens": 20})
}

fn ask(h: &mut Harness, id: u64, method: &str, params: Value) {
    h.server_says(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
}

/// The one message sent: a JSON-RPC error with `code`, answering `id`.
fn assert_error_sent(h: &mut Harness, id: u64, code: i64) -> String {
    let sent = h.sent();
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_eq!(
        (sent[0]["id"].clone(), sent[0]["error"]["code"].clone()),
        (json!(id), json!(code)),
        "{sent:?}"
    );
    sent[0]["error"]["message"].as_str().unwrap_or_default().to_owned()
}

/// A modern `tools/call` answered with one input request under key `k`; returns the call.
fn modern_input(h: &mut Harness, request: Value) -> (mcpwire_core::RequestHandle, Value) {
    let r = h.request(call("book", json!({})));
    let first = h.expect_sent("tools/call");
    h.reply(
        &first,
        json!({"resultType": "input_required", "inputRequests": {"k": request}, "requestState": "s"}),
    );
    (r, first)
}

// ----- capabilities -------------------------------------------------------------------------

#[test]
fn capabilities_declare_url_mode_and_the_sampling_opt_ins() {
    let features = ClientFeatures::default()
        .sampling(true)
        .sampling_tools(true)
        .sampling_context(true)
        .elicitation_url(true);
    let expected = json!({"sampling": {"tools": {}, "context": {}}, "elicitation": {"url": {}}});
    let mut h = Harness::with(ProtocolMode::Legacy, |c| c.features = features.clone());
    h.request(Request::Connect);
    h.start();
    assert_eq!(h.expect_sent("initialize")["params"]["capabilities"], expected);

    let mut h = Harness::with(ProtocolMode::Auto, |c| c.features = features);
    h.request(Request::Connect);
    h.start();
    let caps =
        &h.expect_sent("server/discover")["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"];
    assert_eq!(caps["sampling"], expected["sampling"]);
    assert_eq!(caps["elicitation"], expected["elicitation"]);

    let mut h = Harness::with(ProtocolMode::Legacy, |c| c.features = both_modes());
    h.request(Request::Connect);
    h.start();
    assert_eq!(
        h.expect_sent("initialize")["params"]["capabilities"],
        json!({"sampling": {}, "elicitation": {"form": {}, "url": {}}})
    );
}

// ----- URL elicitation, 2025-11-25 ----------------------------------------------------------

#[test]
fn legacy_url_elicitation_reaches_the_url_handler_with_its_id() {
    let mut h = legacy_with(both_modes());
    ask(&mut h, 7, "elicitation/create", url_params(Some("el-1")));
    let (handle, req) = h.take_server_request();
    assert_eq!(req.kind, ServerRequestKind::ElicitationUrl);
    assert_eq!(*req.params(), url_params(Some("el-1")));
    h.assert_quiet();
    // Consent only: content is dropped (with a warning), _meta kept.
    let answer = json!({"action": "accept", "content": {"token": "secret"}, "_meta": {"trace": "t1"}});
    assert!(h.respond(handle, Ok(answer)));
    assert_eq!(
        h.sent(),
        vec![json!({"jsonrpc": "2.0", "id": 7, "result": {"action": "accept", "_meta": {"trace": "t1"}}})]
    );
    assert_eq!(
        h.warnings(),
        vec![Warning::HostRequestAdjusted {
            method: "elicitation/create",
            adjustment: Adjustment::UrlContentDropped
        }]
    );
    // The completion is passed on once; unknown or repeated ids are ignored.
    h.notify("notifications/elicitation/complete", json!({"elicitationId": "other"}));
    h.assert_quiet();
    h.notify("notifications/elicitation/complete", json!({"elicitationId": "el-1"}));
    assert_eq!(h.events(), vec![Event::ElicitationComplete { elicitation_id: "el-1".into() }]);
    h.notify("notifications/elicitation/complete", json!({"elicitationId": "el-1"}));
    h.assert_quiet();
    h.notify("notifications/elicitation/complete", json!({}));
    assert!(matches!(&h.warnings()[..], [Warning::InvalidMessage { .. }]));
    h.assert_quiet();
}

#[test]
fn url_answers_without_a_known_action_are_sent_as_cancel() {
    let mut h = legacy_with(both_modes());
    for (id, answer) in [(1, json!({"ok": true})), (2, json!("sure")), (3, json!({"action": "later"}))] {
        ask(&mut h, id, "elicitation/create", url_params(None));
        let (handle, _) = h.take_server_request();
        assert!(h.respond(handle, Ok(answer)));
        assert_eq!(h.sent(), vec![json!({"jsonrpc": "2.0", "id": id, "result": {"action": "cancel"}})]);
        let w = h.warnings();
        assert!(
            matches!(
                &w[..],
                [Warning::HostRequestAdjusted { adjustment: Adjustment::AnswerCancelled { .. }, .. }]
            ),
            "{w:?}"
        );
    }
    ask(&mut h, 4, "elicitation/create", url_params(None));
    let (handle, _) = h.take_server_request();
    assert!(h.respond(handle, Ok(json!(true))));
    assert_eq!(h.sent()[0]["result"], json!({"action": "accept"}));
    h.assert_quiet();
}

#[test]
fn ids_from_url_elicitation_required_errors_complete_too() {
    let mut h = legacy_with(both_modes());
    let r = h.request(call("files", json!({})));
    let msg = h.expect_sent("tools/call");
    let data = json!({"elicitations": [{"mode": "url", "elicitationId": "el-9",
        "url": "https://example.com/connect", "message": "Authorize"}]});
    h.reply_error(&msg, -32042, "This request requires more information.", Some(data));
    assert_eq!(h.err(r).rpc().map(|e| e.code), Some(-32042));
    h.notify("notifications/elicitation/complete", json!({"elicitationId": "el-9"}));
    assert_eq!(h.events(), vec![Event::ElicitationComplete { elicitation_id: "el-9".into() }]);
}

#[test]
fn a_mode_without_its_handler_is_invalid_params() {
    let mut h = legacy_with(ClientFeatures::default().elicitation_form(true));
    ask(&mut h, 1, "elicitation/create", url_params(Some("el-1")));
    let message = assert_error_sent(&mut h, 1, -32602);
    assert!(message.contains("\"url\""), "{message}");
    let w = h.warnings();
    assert!(
        matches!(&w[..], [Warning::ServerRequestRefused { method, .. }] if method == "elicitation/create")
    );
    h.assert_quiet();

    let mut h = legacy_with(ClientFeatures::default().elicitation_url(true));
    ask(&mut h, 2, "elicitation/create", form_params());
    assert_error_sent(&mut h, 2, -32602);
    h.warnings();
    h.assert_quiet();
    // A completion for a refused request's id is not passed on.
    h.notify("notifications/elicitation/complete", json!({"elicitationId": "el-1"}));
    h.assert_quiet();
}

// ----- URL elicitation, 2026-07-28 ----------------------------------------------------------

#[test]
fn modern_url_input_loses_its_elicitation_id_and_answers_consent_only() {
    let mut h = modern_with(both_modes());
    let (r, first) =
        modern_input(&mut h, json!({"method": "elicitation/create", "params": url_params(Some("el-1"))}));
    let (handle, req) = h.take_server_request();
    assert_eq!(req.kind, ServerRequestKind::ElicitationUrl);
    assert_eq!(*req.params(), url_params(None), "elicitationId is not a 2026-07-28 field");
    assert_eq!(
        h.warnings(),
        vec![Warning::HostRequestAdjusted {
            method: "elicitation/create",
            adjustment: Adjustment::ElicitationIdRemoved
        }]
    );
    assert!(h.respond(handle, Ok(json!({"action": "accept", "content": {"x": 1}}))));
    let retry = h.expect_sent("tools/call");
    assert_ne!(retry["id"], first["id"]);
    assert_eq!(retry["params"]["inputResponses"], json!({"k": {"action": "accept"}}));
    assert_eq!(retry["params"]["requestState"], json!("s"));
    assert_eq!(h.warnings().len(), 1, "content dropped");
    h.reply(&retry, text_result("connected"));
    h.ok(r);
    // 2026-07-28 has no completion notification: nothing was remembered.
    h.notify("notifications/elicitation/complete", json!({"elicitationId": "el-1"}));
    h.assert_quiet();
}

#[test]
fn modern_input_in_an_undeclared_mode_fails_the_request() {
    let mut h = modern_with(ClientFeatures::default().elicitation_form(true));
    let (r, _) = modern_input(&mut h, json!({"method": "elicitation/create", "params": url_params(None)}));
    match h.err(r) {
        RequestError::InputRefused { method, reason, .. } => {
            assert_eq!(
                (method.as_str(), reason),
                ("elicitation/create", Refusal::UnsupportedMode { mode: "url" })
            )
        }
        other => panic!("{other:?}"),
    }
    assert!(h.take_event(|e| matches!(e, Event::ServerRequest { .. })).is_none(), "the host was not asked");
    assert!(h.sent().is_empty(), "no retry");
    assert!(matches!(&h.warnings()[..], [Warning::ServerRequestRefused { .. }]));
}

// ----- lenient form answers -----------------------------------------------------------------

#[test]
fn a_bare_form_answer_is_an_accept_and_still_checked() {
    let mut h = legacy_with(both_modes());
    ask(&mut h, 1, "elicitation/create", form_params());
    let (handle, req) = h.take_server_request();
    assert_eq!(req.kind, ServerRequestKind::Elicitation);
    let bad = h.respond_checked(handle, Ok(json!({"name": 5})));
    assert!(matches!(bad, Err(mcpwire_core::AnswerError::InvalidAnswer(_))), "{bad:?}");
    assert!(h.sent().is_empty(), "the request still waits");
    assert!(h.respond(handle, Ok(json!({"name": "Ada"}))));
    assert_eq!(
        h.sent(),
        vec![json!({"jsonrpc": "2.0", "id": 1, "result": {"action": "accept", "content": {"name": "Ada"}}})]
    );
    h.assert_quiet();
}

#[test]
fn an_unknown_form_action_is_a_cancel() {
    let mut h = legacy_with(both_modes());
    ask(&mut h, 1, "elicitation/create", form_params());
    let (handle, _) = h.take_server_request();
    assert!(h.respond(handle, Ok(json!({"action": "snooze", "content": {"name": "Ada"}}))));
    assert_eq!(h.sent(), vec![json!({"jsonrpc": "2.0", "id": 1, "result": {"action": "cancel"}})]);
    assert_eq!(
        h.warnings(),
        vec![Warning::HostRequestAdjusted {
            method: "elicitation/create",
            adjustment: Adjustment::AnswerCancelled { got: "action \"snooze\"".into() }
        }]
    );
    // The same on 2026-07-28 input.
    let mut h = modern_with(both_modes());
    let (r, _) = modern_input(&mut h, json!({"method": "elicitation/create", "params": form_params()}));
    let (handle, _) = h.take_server_request();
    assert!(h.respond(handle, Ok(json!({"name": "Grace"}))));
    let retry = h.expect_sent("tools/call");
    assert_eq!(
        retry["params"]["inputResponses"]["k"],
        json!({"action": "accept", "content": {"name": "Grace"}})
    );
    h.reply(&retry, text_result("ok"));
    h.ok(r);
}

// ----- sampling -----------------------------------------------------------------------------

fn unanswered_tool_use() -> Value {
    sampling_params(json!([
        {"role": "user", "content": {"type": "text", "text": "weather?"}},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "name": "w", "input": {}},
                                          {"type": "tool_use", "id": "c2", "name": "w", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "toolUseId": "c1", "content": []}]}
    ]))
}

#[test]
fn invalid_sampling_histories_are_refused_before_the_handler() {
    let mut h = legacy_with(both_modes().sampling_tools(true));
    for (id, params) in [
        (1, unanswered_tool_use()),
        (2, sampling_params(json!([{"role": "system", "content": {"type": "text", "text": "x"}}]))),
        (
            3,
            sampling_params(json!([{"role": "user", "content": [
            {"type": "text", "text": "results:"}, {"type": "tool_result", "toolUseId": "c1", "content": []}]}])),
        ),
        (4, json!({"maxTokens": 5})),
    ] {
        ask(&mut h, id, "sampling/createMessage", params);
        let message = assert_error_sent(&mut h, id, -32602);
        assert!(message.starts_with("invalid sampling messages: "), "{message}");
        let w = h.warnings();
        assert!(
            matches!(&w[..], [Warning::ServerRequestRefused { method, .. }] if method == "sampling/createMessage"),
            "{w:?}"
        );
        h.assert_quiet();
    }
}

#[test]
fn modern_sampling_input_with_a_bad_history_fails_the_request() {
    let mut h = modern_with(both_modes().sampling_tools(true));
    let (r, _) =
        modern_input(&mut h, json!({"method": "sampling/createMessage", "params": unanswered_tool_use()}));
    match h.err(r) {
        RequestError::InputRefused { method, reason, .. } => {
            assert_eq!(method, "sampling/createMessage");
            assert_eq!(
                reason,
                Refusal::Sampling(SamplingViolation::ToolResultMissing { index: 1, id: "c2".into() })
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(h.sent().is_empty());
    assert!(h.take_event(|e| matches!(e, Event::ServerRequest { .. })).is_none());
    h.warnings();
}

#[test]
fn tool_enabled_sampling_needs_the_opt_in() {
    let tools = json!([{"name": "w", "inputSchema": {"type": "object"}}]);
    let mut params =
        sampling_params(json!([{"role": "user", "content": {"type": "text", "text": "weather?"}}]));
    params["tools"] = tools;
    params["toolChoice"] = json!({"mode": "auto"});

    let mut h = legacy_with(both_modes());
    ask(&mut h, 1, "sampling/createMessage", params.clone());
    let message = assert_error_sent(&mut h, 1, -32602);
    assert!(message.contains("sampling.tools"), "{message}");
    h.warnings();
    h.assert_quiet();

    let mut h = modern_with(both_modes());
    let (r, _) = modern_input(&mut h, json!({"method": "sampling/createMessage", "params": params.clone()}));
    assert!(matches!(h.err(r), RequestError::InputRefused { reason: Refusal::ToolsNotDeclared, .. }));
    h.warnings();

    let mut h = legacy_with(both_modes().sampling_tools(true));
    ask(&mut h, 2, "sampling/createMessage", params.clone());
    let (handle, req) = h.take_server_request();
    assert_eq!((req.kind, req.params()), (ServerRequestKind::Sampling, &params));
    let answer = json!({"role": "assistant", "model": "m", "stopReason": "toolUse",
        "content": [{"type": "tool_use", "id": "c1", "name": "w", "input": {"city": "Paris"}}]});
    assert!(h.respond(handle, Ok(answer.clone())));
    assert_eq!(h.sent(), vec![json!({"jsonrpc": "2.0", "id": 2, "result": answer})]);
    h.assert_quiet();
}

#[test]
fn include_context_is_none_without_the_opt_in() {
    let mut params = sampling_params(json!([{"role": "user", "content": {"type": "text", "text": "q"}}]));
    params["includeContext"] = json!("allServers");
    let mut h = legacy_with(both_modes());
    ask(&mut h, 1, "sampling/createMessage", params.clone());
    let (_, req) = h.take_server_request();
    assert_eq!(req.params()["includeContext"], json!("none"));
    assert_eq!(
        h.warnings(),
        vec![Warning::HostRequestAdjusted {
            method: "sampling/createMessage",
            adjustment: Adjustment::IncludeContextIgnored { value: "\"allServers\"".into() }
        }]
    );

    let mut h = modern_with(both_modes().sampling_context(true));
    let (_, _) = modern_input(&mut h, json!({"method": "sampling/createMessage", "params": params}));
    let (_, req) = h.take_server_request();
    assert_eq!(req.params()["includeContext"], json!("allServers"));
    h.assert_quiet();
}
