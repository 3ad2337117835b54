//! Unit tests of the typed host requests and answers.

use serde_json::{json, Value};

use super::*;
use crate::types::{IncludeContext, SamplingContent};

#[test]
fn sampling_request_fields() {
    let r = CreateMessageRequest::from_value(json!({
        "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}],
        "maxTokens": 50, "temperature": 0.5, "stopSequences": ["\n\n"],
        "toolChoice": {}, "includeContext": "thisServer", "metadata": {"k": 1}
    }))
    .unwrap();
    assert_eq!((r.max_tokens, r.temperature, r.last_text()), (50, Some(0.5), "hi".to_owned()));
    assert_eq!(r.stop_sequences, vec!["\n\n".to_owned()]);
    assert_eq!(r.tool_choice.as_deref(), Some("auto"));
    assert_eq!(r.include_context, Some(IncludeContext::ThisServer));
    assert_eq!(r.metadata.as_ref().map(|m| m["k"].clone()), Some(json!(1)));
    assert_eq!(r.raw()["maxTokens"], json!(50));
}

#[test]
fn malformed_requests_are_errors() {
    let msg = json!([{"role": "user", "content": {"type": "text", "text": "x"}}]);
    for bad in [
        json!({"messages": msg}),                                // no maxTokens
        json!({"maxTokens": 5}),                                 // no messages
        json!({"messages": msg, "maxTokens": -1}),               // negative
        json!({"messages": [{"role": "user"}], "maxTokens": 5}), // no content
        json!({"messages": [{"role": 1, "content": []}], "maxTokens": 5}),
        json!({"messages": [{"role": "user", "content": {"type": "tool_use"}}], "maxTokens": 5}),
        json!("text"),
    ] {
        assert!(CreateMessageRequest::from_value(bad.clone()).is_err(), "{bad}");
    }
    assert!(ElicitRequest::from_value(json!({"message": "m"})).is_err(), "a form needs its schema");
    assert!(ElicitRequest::from_value(json!({"mode": "url", "message": "m"})).is_err());
    assert!(ElicitRequest::from_value(json!({"mode": "x", "message": "m", "url": "u"})).is_err());
    assert!(ElicitRequest::from_value(json!({"requestedSchema": {}})).is_err(), "no message");
    assert!(RootsRequest::from_value(json!([1])).is_err());
    assert!(RootsRequest::from_value(json!({"_meta": 3})).is_err());
    assert!(RootsRequest::from_value(Value::Null).is_ok());
}

#[test]
fn results_serialise() {
    let one = CreateMessageResult::text("Paris", "m1");
    assert_eq!(
        one.to_value(),
        json!({"role": "assistant", "content": {"type": "text", "text": "Paris"}, "model": "m1",
               "stopReason": "endTurn"})
    );
    let tools = CreateMessageResult::blocks(
        vec![SamplingContent::tool_use("c1", "w", json!({"a": 1})), SamplingContent::text("x")],
        "m2",
    );
    let v = tools.to_value();
    assert_eq!(v["stopReason"], json!("toolUse"));
    assert_eq!(v["content"][0], json!({"type": "tool_use", "id": "c1", "name": "w", "input": {"a": 1}}));
    assert_eq!(CreateMessageResult::from_value(v).unwrap(), tools);
    assert_eq!(
        ElicitResult::accept(json!({"n": 1})).to_value(),
        json!({"action": "accept", "content": {"n": 1}})
    );
    assert_eq!(ElicitResult::decline().to_value(), json!({"action": "decline"}));
    assert_eq!(ElicitResult::accept(json!(3)).content, None);
    assert_eq!(
        roots_result(&[Root::named("file:///a", "a"), Root::new("file:///b")]),
        json!({"roots": [{"uri": "file:///a", "name": "a"}, {"uri": "file:///b"}]})
    );
}

#[test]
fn edited_blocks_send_their_fields() {
    let mut block = SamplingContent::text("old");
    if let SamplingContent::Text(t) = &mut block {
        t.text = "new".into();
    }
    assert_eq!(block.to_value(), json!({"type": "text", "text": "new"}));
    let unknown = SamplingContent::from_value(json!({"type": "video", "v": 1})).unwrap();
    assert_eq!(unknown.to_value(), json!({"type": "video", "v": 1}));
}

#[test]
fn handler_errors() {
    let e: HandlerError = "no".into();
    assert_eq!((e.code, e.to_string()), (None, "no".to_owned()));
    let e = HandlerError::with_code(-32001, "denied");
    assert_eq!(e.to_string(), "denied (code -32001)");
}
