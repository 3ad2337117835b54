//! Multi-round-trip input (2026-07-28 `input_required`): host requests, the retry with a new
//! id, `inputResponses` and the exact `requestState`, bounds and withdrawal.

use serde_json::{json, Value};

use super::harness::*;
use mcpwire_core::{ClientFeatures, Event, ProtocolMode, RequestError, RequestOptions, ServerRequestKind};

fn modern_with(features: ClientFeatures) -> Harness {
    let mut h = Harness::with(ProtocolMode::Auto, |c| c.features = features);
    h.connect_modern();
    h
}

fn all_features() -> ClientFeatures {
    ClientFeatures::default().roots(true).sampling(true).elicitation_form(true)
}

fn input_required(requests: Value, state: Option<&str>) -> Value {
    let mut v = json!({"resultType": "input_required", "inputRequests": requests});
    if let Some(s) = state {
        v["requestState"] = json!(s);
    }
    v
}

fn elicit(message: &str) -> Value {
    json!({"method": "elicitation/create", "params": {"message": message,
        "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}}}})
}

#[test]
fn input_is_asked_of_the_host_and_the_request_retried_with_state() {
    let mut h = modern_with(all_features());
    let r = h.request(call("book", json!({"when": "now"})));
    let first = h.expect_sent("tools/call");
    let state = "v1.opaque+/=state";
    let requests = json!({"confirm": elicit("Sure?"), "roots": {"method": "roots/list", "params": {}}});
    h.reply(&first, input_required(requests, Some(state)));
    assert!(!h.has_response(r));
    let (a, req_a) = h.take_server_request();
    let (b, req_b) = h.take_server_request();
    let kinds = [req_a.kind, req_b.kind];
    assert!(kinds.contains(&ServerRequestKind::Elicitation) && kinds.contains(&ServerRequestKind::Roots));
    let answer = |kind| match kind {
        ServerRequestKind::Elicitation => json!({"action": "accept", "content": {"ok": true}}),
        _ => json!({"roots": []}),
    };
    assert!(h.respond(a, Ok(answer(req_a.kind))));
    assert!(h.sent().is_empty(), "waits for every answer");
    assert!(h.respond(b, Ok(answer(req_b.kind))));
    let retry = h.expect_sent("tools/call");
    assert_ne!(retry["id"], first["id"]);
    assert_eq!(retry["params"]["name"], "book");
    assert_eq!(retry["params"]["arguments"], json!({"when": "now"}));
    assert_eq!(retry["params"]["requestState"], json!(state));
    assert_eq!(
        retry["params"]["inputResponses"],
        json!({"confirm": {"action": "accept", "content": {"ok": true}}, "roots": {"roots": []}})
    );
    assert_eq!(
        retry["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"],
        json!(mcpwire_core::MODERN_VERSION)
    );
    h.reply(&retry, json!({"resultType": "complete", "content": [{"type": "text", "text": "booked"}]}));
    assert_eq!(h.ok(r).into_tool_result().unwrap().text(), "booked");
    assert!(!h.respond(a, Ok(json!({}))), "answered input is gone");
}

#[test]
fn no_state_means_none_is_sent_and_parallel_requests_are_untouched() {
    let mut h = modern_with(all_features());
    let r = h.request(call("a", json!({})));
    let first = h.expect_sent("tools/call");
    h.reply(&first, input_required(json!({"q": elicit("?")}), None));
    let other = h.request(call("b", json!({})));
    let parallel = h.expect_sent("tools/call");
    assert!(
        parallel["params"].get("inputResponses").is_none()
            && parallel["params"].get("requestState").is_none()
    );
    let (q, _) = h.take_server_request();
    h.respond(q, Ok(json!({"action": "decline"})));
    let retry = h.expect_sent("tools/call");
    assert!(retry["params"].get("requestState").is_none(), "{retry}");
    assert_eq!(retry["params"]["inputResponses"]["q"], json!({"action": "decline"}));
    h.reply(&retry, text_result("done"));
    h.reply(&parallel, text_result("other"));
    h.ok(r);
    h.ok(other);
}

/// Resumes `resume` (answering `answers`) and checks the first attempt: the original
/// `tools/call` under a new id with the round's `requestState` and the answers.
fn resume_sends_the_original_with_the_state(
    h: &mut Harness,
    resume: mcpwire_core::InputResume,
    answers: Value,
    first: &Value,
    state: &str,
) {
    let mut resume = resume;
    for (key, value) in answers.as_object().cloned().unwrap_or_default() {
        resume = resume.answer(key, value);
    }
    let (request, input) = resume.into_parts();
    let r = h.request_opts(request, RequestOptions::default().input_state(input));
    let sent = h.expect_sent("tools/call");
    assert_ne!(sent["id"], first["id"]);
    assert_eq!(sent["params"]["name"], first["params"]["name"]);
    assert_eq!(sent["params"]["arguments"], first["params"]["arguments"]);
    assert_eq!(sent["params"]["requestState"], json!(state));
    assert_eq!(sent["params"]["inputResponses"], answers);
    h.reply(&sent, text_result("done"));
    h.ok(r);
}

#[test]
fn undeclared_input_fails_resumably_and_resuming_sends_the_original_with_the_state() {
    let mut h = modern_with(ClientFeatures::default().elicitation_form(true));
    let r = h.request(call("book", json!({"n": 1})));
    let first = h.expect_sent("tools/call");
    let sampling = json!({"method": "sampling/createMessage", "params": {"messages": [], "maxTokens": 5}});
    let requests = json!({"q": elicit("Sure?"), "s": sampling, "r": {"method": "roots/list"}});
    h.reply(&first, input_required(requests, Some("st1")));
    let err = h.err(r);
    assert!(h.take_event(|e| matches!(e, Event::ServerRequest { .. })).is_none(), "no handler was asked");
    let RequestError::InputUndeclared { methods, outstanding, resume } = err.clone() else {
        panic!("expected InputUndeclared, got {err:?}");
    };
    assert_eq!(methods, ["roots/list", "sampling/createMessage"]);
    let mut keys: Vec<(&str, &str)> =
        outstanding.iter().map(|o| (o.key.as_str(), o.method.as_str())).collect();
    keys.sort_unstable();
    assert_eq!(keys, [("q", "elicitation/create"), ("r", "roots/list"), ("s", "sampling/createMessage")]);
    let roots = outstanding.iter().find(|o| o.key == "r").expect("the roots request");
    assert_eq!(roots.params, json!({}), "absent params read as {{}}");
    assert_eq!(err.input_resume(), Some(&*resume));
    assert_eq!(resume.request, call("book", json!({"n": 1})));
    assert_eq!(resume.request_state.as_deref(), Some("st1"));
    assert!(resume.responses.is_empty());
    let answers = json!({"q": {"action": "decline"}, "r": {"roots": []},
        "s": {"role": "assistant", "content": {"type": "text", "text": "ok"}, "model": "m"}});
    resume_sends_the_original_with_the_state(&mut h, *resume, answers, &first, "st1");
}

#[test]
fn malformed_input_requests_fail_resumably_with_what_parses() {
    let mut h = modern_with(all_features());
    // inputRequests that is not an object: nothing parses.
    let r = h.request(call("book", json!({"n": 2})));
    let first = h.expect_sent("tools/call");
    h.reply(
        &first,
        json!({"resultType": "input_required", "inputRequests": [elicit("?")], "requestState": "st2"}),
    );
    let err = h.err(r);
    let RequestError::InputMalformed { detail, outstanding, resume } = err.clone() else {
        panic!("expected InputMalformed, got {err:?}");
    };
    assert!(detail.contains("not an object"), "{detail}");
    assert!(outstanding.is_empty());
    assert_eq!(err.input_resume(), Some(&*resume));
    assert_eq!(resume.request_state.as_deref(), Some("st2"));
    resume_sends_the_original_with_the_state(&mut h, *resume, json!({}), &first, "st2");

    // Entries that are not objects with a method string and object params: the rest is kept.
    let r = h.request(call("book", json!({"n": 3})));
    let first = h.expect_sent("tools/call");
    let requests = json!({"q": elicit("?"), "bad": 7, "noMethod": {"params": {}},
        "badParams": {"method": "roots/list", "params": [1]}});
    h.reply(&first, input_required(requests, Some("st3")));
    assert!(h.take_event(|e| matches!(e, Event::ServerRequest { .. })).is_none(), "no handler was asked");
    let err = h.err(r);
    let RequestError::InputMalformed { detail, outstanding, resume } = err.clone() else {
        panic!("expected InputMalformed, got {err:?}");
    };
    assert!(
        detail.contains("bad") && detail.contains("noMethod") && detail.contains("badParams"),
        "{detail}"
    );
    let keys: Vec<&str> = outstanding.iter().map(|o| o.key.as_str()).collect();
    assert_eq!(keys, ["q"]);
    assert_eq!(resume.request, call("book", json!({"n": 3})));
    let answers = json!({"q": {"action": "accept", "content": {"ok": true}}});
    resume_sends_the_original_with_the_state(&mut h, *resume, answers, &first, "st3");
}

#[test]
fn refused_input_fails_resumably() {
    // Form elicitation only: a URL elicitation is refused before any handler sees it.
    let mut h = modern_with(ClientFeatures::default().elicitation_form(true));
    let r = h.request(call("connect", json!({})));
    let first = h.expect_sent("tools/call");
    let url = json!({"method": "elicitation/create", "params": {"mode": "url", "message": "Sign in",
        "url": "https://example.com/connect"}});
    h.reply(&first, input_required(json!({"u": url, "q": elicit("?")}), Some("st4")));
    assert!(h.take_event(|e| matches!(e, Event::ServerRequest { .. })).is_none(), "no handler was asked");
    h.warnings();
    let err = h.err(r);
    let RequestError::InputRefused { method, reason, outstanding, resume } = err.clone() else {
        panic!("expected InputRefused, got {err:?}");
    };
    assert_eq!(method, "elicitation/create");
    assert_eq!(reason, mcpwire_core::server_requests::Refusal::UnsupportedMode { mode: "url" });
    let mut keys: Vec<&str> = outstanding.iter().map(|o| o.key.as_str()).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["q", "u"]);
    let resume = resume.expect("resumable");
    assert_eq!(err.input_resume(), Some(&*resume));
    assert_eq!(resume.request_state.as_deref(), Some("st4"));
    let answers = json!({"u": {"action": "accept"}, "q": {"action": "decline"}});
    resume_sends_the_original_with_the_state(&mut h, *resume, answers, &first, "st4");
}

#[test]
fn bad_shapes_fail_the_request() {
    let mut h = modern_with(ClientFeatures::default().elicitation_form(true));
    for (result, what) in [
        (json!({"resultType": "input_required", "requestState": 7}), "not a string"),
        (json!({"resultType": "input_required"}), "without inputRequests"),
    ] {
        let r = h.request(call("x", json!({})));
        let msg = h.expect_sent("tools/call");
        h.reply(&msg, result);
        assert!(matches!(h.err(r), RequestError::InvalidResponse { detail } if detail.contains(what)));
    }
    // Only tools/call, prompts/get and resources/read may ask for input.
    let r = h.request(mcpwire_core::Request::ListPrompts);
    let msg = h.expect_sent("prompts/list");
    h.reply(&msg, input_required(json!({"q": elicit("?")}), None));
    assert!(h.has_response(r));
}

#[test]
fn cancel_withdraws_pending_input_and_handler_failure_fails_typed() {
    let mut h = modern_with(all_features());
    let r = h.request(call("x", json!({})));
    let msg = h.expect_sent("tools/call");
    h.reply(&msg, input_required(json!({"q": elicit("?")}), Some("st")));
    let (q, _) = h.take_server_request();
    assert!(h.cancel(r));
    assert!(h
        .take_event(|e| matches!(e, Event::ServerRequestCancelled { handle } if *handle == q))
        .is_some());
    assert!(!h.respond(q, Ok(json!({}))));
    assert!(h.sent().is_empty());

    let r = h.request(call("y", json!({})));
    let msg = h.expect_sent("tools/call");
    h.reply(&msg, input_required(json!({"q": elicit("?")}), None));
    let (q, _) = h.take_server_request();
    h.respond(q, Err("the user closed the dialog".into()));
    match h.err(r) {
        RequestError::InputFailed { method, detail } => {
            assert_eq!(method, "elicitation/create");
            assert!(detail.contains("closed"));
        }
        other => panic!("expected InputFailed, got {other:?}"),
    }
}
