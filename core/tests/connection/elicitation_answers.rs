//! Elicitation forms on the wire: an invalid form is refused, an answer that breaks the form
//! is not sent (a host's checked answer, a handler's answer, an `input_required` round's).

use serde_json::{json, Value};

use super::harness::*;
use mcpwire_core::schema::elicitation::ElicitationError;
use mcpwire_core::{AnswerError, ClientFeatures, Event, ProtocolMode, RequestError, Warning};

/// A connected harness whose host handles form elicitation.
fn eliciting(legacy: bool) -> Harness {
    let mut h =
        Harness::with(ProtocolMode::Auto, |c| c.features = ClientFeatures::default().elicitation_form(true));
    if legacy {
        h.connect_legacy();
    } else {
        h.connect_modern();
    }
    h
}

fn form_request(id: i64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "elicitation/create", "params": {
        "message": "Who are you?",
        "requestedSchema": {"type": "object", "required": ["email"],
                            "properties": {"email": {"type": "string", "format": "email"}}}}})
}

#[test]
fn an_invalid_elicitation_form_is_refused() {
    let mut h = eliciting(true);
    h.server_says(json!({"jsonrpc": "2.0", "id": 7, "method": "elicitation/create", "params": {
        "message": "Nested?", "requestedSchema": {"type": "object", "properties": {
            "address": {"type": "object", "properties": {"city": {"type": "string"}}}}}}}));
    let sent = h.sent();
    assert_eq!(sent[0]["error"]["code"], json!(-32602), "{sent:?}");
    assert!(matches!(&h.warnings()[..], [Warning::ServerRequestRefused { .. }]));
    assert!(h.take_event(|e| matches!(e, Event::ServerRequest { .. })).is_none());
}

#[test]
fn an_elicitation_answer_that_breaks_the_form_is_not_sent() {
    let mut h = eliciting(true);
    h.server_says(form_request(8));
    let (handle, _) = h.take_server_request();
    let bad = h.respond_checked(handle, Ok(json!({"action": "accept", "content": {"email": "nope"}})));
    assert!(
        matches!(bad, Err(AnswerError::InvalidAnswer(ElicitationError::InvalidAnswer { .. }))),
        "{bad:?}"
    );
    assert!(h.sent().is_empty(), "nothing was sent");
    // The request still waits: a valid answer goes through.
    h.respond_checked(handle, Ok(json!({"action": "accept", "content": {"email": "ada@example.com"}})))
        .unwrap();
    assert_eq!(h.sent()[0]["result"]["content"]["email"], json!("ada@example.com"));
    assert_eq!(h.respond_checked(handle, Ok(json!({"action": "decline"}))), Err(AnswerError::Gone));
}

#[test]
fn a_handler_answer_that_breaks_the_form_becomes_an_error_for_the_server() {
    let mut h = eliciting(true);
    h.server_says(form_request(9));
    let (handle, _) = h.take_server_request();
    h.input(mcpwire_core::Input::ServerAnswer(handle, Ok(json!({"action": "accept", "content": {}}))));
    let sent = h.sent();
    assert_eq!(sent[0]["id"], json!(9));
    assert!(sent[0].get("error").is_some(), "{sent:?}");
    match &h.warnings()[..] {
        [Warning::HandlerFailed { detail, .. }] => assert!(detail.contains("email"), "{detail}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn input_required_elicitation_answers_are_checked_too() {
    let mut h = eliciting(false);
    let r = h.request(call("book", json!({})));
    let first = h.expect_sent("tools/call");
    let ask = form_request(0)["params"].clone();
    h.reply(
        &first,
        json!({"resultType": "input_required",
                           "inputRequests": {"who": {"method": "elicitation/create", "params": ask}}}),
    );
    let (handle, _) = h.take_server_request();
    let bad = h.respond_checked(handle, Ok(json!({"action": "accept", "content": {"email": 3}})));
    assert!(matches!(bad, Err(AnswerError::InvalidAnswer(_))));
    assert!(h.sent().is_empty());
    h.respond_checked(handle, Ok(json!({"action": "accept", "content": {"email": "ada@example.com"}})))
        .unwrap();
    let retry = h.expect_sent("tools/call");
    assert_eq!(retry["params"]["inputResponses"]["who"]["content"]["email"], json!("ada@example.com"));
    h.reply(&retry, text_result("booked"));
    assert!(h.response(r).is_ok());
}

#[test]
fn an_input_required_round_with_an_invalid_form_fails_the_request() {
    let mut h = eliciting(false);
    let r = h.request(call("book", json!({})));
    let first = h.expect_sent("tools/call");
    let nested = json!({"method": "elicitation/create", "params": {"message": "Where?", "requestedSchema": {
        "type": "object", "properties": {"address": {"type": "object", "properties": {}}}}}});
    h.reply(&first, json!({"resultType": "input_required", "inputRequests": {"where": nested}}));
    match h.err(r) {
        RequestError::InputRefused { reason, .. } => {
            assert!(reason.to_string().contains("nested objects"), "{reason}")
        }
        other => panic!("{other:?}"),
    }
    assert!(h.take_event(|e| matches!(e, Event::ServerRequest { .. })).is_none(), "the host was not asked");
    assert!(h.sent().is_empty(), "no retry");
}
