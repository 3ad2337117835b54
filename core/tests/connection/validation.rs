//! Tool schemas (feature `schema`): `structuredContent` against `outputSchema` (warn, strict,
//! off), the revision's rule for what counts as structured content, the definition a call went
//! out under, `inputSchema` dialect refusal, reporting once.

use serde_json::{json, Value};

use super::harness::*;
use mcpwire_core::schema::{SchemaProblem, ValidationFailure};
use mcpwire_core::{Event, ProtocolMode, Request, RequestError, Response, ValidationMode, Warning};

fn weather_schema() -> Value {
    json!({"type": "object", "required": ["temperature"],
           "properties": {"temperature": {"type": "number"}, "conditions": {"type": "string"}}})
}

fn tool_with(name: &str, output: Value) -> Value {
    json!({"name": name, "inputSchema": {"type": "object"}, "outputSchema": output})
}

fn harness(legacy: bool, mode: ValidationMode) -> Harness {
    let mut h = Harness::with(ProtocolMode::Auto, |c| c.validation.structured_content = mode);
    if legacy {
        h.connect_legacy();
    } else {
        h.connect_modern();
    }
    h
}

/// Lists `tools` and returns the warnings the listing produced.
fn list(h: &mut Harness, tools: Vec<Value>) -> Vec<Warning> {
    let r = h.request_opts(Request::ListTools, opts().refresh(true));
    let req = h.expect_sent("tools/list");
    h.reply(&req, json!({"tools": tools}));
    assert!(matches!(h.ok(r), Response::Tools(_)));
    h.warnings()
}

/// Calls `name` and answers with `result`.
fn call_and_answer(h: &mut Harness, name: &str, result: Value) -> Result<Response, RequestError> {
    let r = h.request(call(name, json!({})));
    let req = h.expect_sent("tools/call");
    h.reply(&req, result);
    h.response(r)
}

fn structured(content: Value) -> Value {
    json!({"content": [{"type": "text", "text": "x"}], "structuredContent": content})
}

#[test]
fn matching_structured_content_passes_quietly() {
    let mut h = harness(false, ValidationMode::Strict);
    assert!(list(&mut h, vec![tool_with("weather", weather_schema())]).is_empty());
    let ok =
        call_and_answer(&mut h, "weather", structured(json!({"temperature": 21.5, "conditions": "sun"})));
    assert!(matches!(ok, Ok(Response::ToolResult(_))));
    assert!(h.warnings().is_empty());
}

#[test]
fn warn_mode_delivers_the_result_and_names_the_violation() {
    let mut h = harness(false, ValidationMode::Warn);
    list(&mut h, vec![tool_with("weather", weather_schema())]);
    let result = call_and_answer(&mut h, "weather", structured(json!({"temperature": "warm"})));
    assert!(matches!(result, Ok(Response::ToolResult(_))));
    match &h.warnings()[..] {
        [Warning::StructuredContent { tool, failure }] => {
            assert_eq!(tool, "weather");
            assert_eq!(failure.violations()[0].instance_path, "/temperature");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn strict_mode_fails_the_call() {
    let mut h = harness(false, ValidationMode::Strict);
    list(&mut h, vec![tool_with("weather", weather_schema())]);
    let err = call_and_answer(&mut h, "weather", structured(json!({"conditions": "sun"}))).unwrap_err();
    match err {
        RequestError::StructuredContent { tool, failure: ValidationFailure::Invalid { violations, .. } } => {
            assert_eq!(tool, "weather");
            assert!(violations[0].message.contains("temperature"), "{violations:?}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn off_mode_checks_nothing() {
    let mut h = harness(false, ValidationMode::Off);
    list(&mut h, vec![tool_with("weather", json!({"$schema": "https://example.com/unknown"}))]);
    assert!(call_and_answer(&mut h, "weather", structured(json!(42))).is_ok());
    assert!(h.warnings().is_empty());
}

#[test]
fn a_declared_output_schema_requires_structured_content_but_not_for_errors() {
    let mut h = harness(false, ValidationMode::Strict);
    list(&mut h, vec![tool_with("weather", weather_schema())]);
    let err = call_and_answer(&mut h, "weather", text_result("22 degrees")).unwrap_err();
    assert!(err.to_string().contains("structuredContent is missing"), "{err}");
    let tool_error = json!({"content": [{"type": "text", "text": "no such city"}], "isError": true});
    assert!(call_and_answer(&mut h, "weather", tool_error).is_ok());
}

#[test]
fn what_counts_as_structured_content_follows_the_revision() {
    let list_schema = json!({"type": "array", "items": {"type": "string"}});
    // 2026-07-28: any JSON value is structured content, null and arrays included.
    let mut modern = harness(false, ValidationMode::Strict);
    list(
        &mut modern,
        vec![tool_with("names", list_schema.clone()), tool_with("nothing", json!({"type": "null"}))],
    );
    assert!(call_and_answer(&mut modern, "names", structured(json!(["a", "b"]))).is_ok());
    assert!(call_and_answer(&mut modern, "nothing", structured(Value::Null)).is_ok());
    assert!(call_and_answer(&mut modern, "names", structured(json!([1]))).is_err());
    // 2025-11-25: only an object is; an array counts as absent.
    let mut legacy = harness(true, ValidationMode::Strict);
    list(&mut legacy, vec![tool_with("names", list_schema)]);
    let err = call_and_answer(&mut legacy, "names", structured(json!(["a"]))).unwrap_err();
    assert!(err.to_string().contains("must be an object before protocol 2026-07-28"), "{err}");
}

#[test]
fn a_result_is_checked_against_the_definition_its_call_went_out_under() {
    let mut h = harness(false, ValidationMode::Strict);
    list(&mut h, vec![tool_with("weather", weather_schema())]);
    let r = h.request(call("weather", json!({})));
    let req = h.expect_sent("tools/call");
    // The definition changes while the call is in flight.
    h.notify("notifications/tools/list_changed", json!({}));
    h.take_event(|e| matches!(e, Event::Notification(_)));
    list(&mut h, vec![tool_with("weather", json!({"type": "object", "required": ["city"]}))]);
    h.reply(&req, structured(json!({"temperature": 3})));
    assert!(matches!(h.response(r), Ok(Response::ToolResult(_))), "checked against the old definition");
    // A new call uses the new definition.
    assert!(call_and_answer(&mut h, "weather", structured(json!({"temperature": 3}))).is_err());
}

#[test]
fn after_list_changed_calls_are_not_checked_until_the_next_list() {
    let mut h = harness(false, ValidationMode::Strict);
    list(&mut h, vec![tool_with("weather", weather_schema())]);
    h.notify("notifications/tools/list_changed", json!({}));
    h.take_event(|e| matches!(e, Event::Notification(_)));
    assert!(call_and_answer(&mut h, "weather", structured(json!({"other": 1}))).is_ok());
}

#[test]
fn an_input_schema_in_an_unknown_dialect_refuses_the_call_before_it_is_sent() {
    let mut h = harness(false, ValidationMode::Warn);
    let tool =
        json!({"name": "odd", "inputSchema": {"$schema": "https://example.com/dialect", "type": "object"}});
    let warnings = list(&mut h, vec![tool]);
    assert!(matches!(&warnings[..], [Warning::ToolSchema { which: "inputSchema", .. }]), "{warnings:?}");
    let r = h.request(call("odd", json!({})));
    assert!(h.sent().is_empty(), "nothing goes to the server");
    match h.err(r) {
        RequestError::ToolSchema { tool, which: "inputSchema", problem } => {
            assert_eq!(tool, "odd");
            assert_eq!(
                problem,
                SchemaProblem::UnsupportedDialect { dialect: "https://example.com/dialect".into() }
            );
            assert!(problem.to_string().contains("2020-12"), "{problem}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_output_schema_in_an_unknown_dialect_is_an_error_in_warn_mode_too() {
    let mut h = harness(false, ValidationMode::Warn);
    list(&mut h, vec![tool_with("odd", json!({"$schema": "https://example.com/dialect"}))]);
    let err = call_and_answer(&mut h, "odd", structured(json!({}))).unwrap_err();
    assert!(matches!(err, RequestError::ToolSchema { which: "outputSchema", .. }), "{err:?}");
}

#[test]
fn an_unusable_output_schema_is_reported_once_and_fails_only_strict_calls() {
    let external = tool_with("remote", json!({"$ref": "https://example.com/schema.json"}));
    let mut warn = harness(false, ValidationMode::Warn);
    let warnings = list(&mut warn, vec![external.clone()]);
    assert!(
        matches!(
            &warnings[..],
            [Warning::ToolSchema { problem: SchemaProblem::ExternalReference { .. }, .. }]
        ),
        "{warnings:?}"
    );
    assert!(
        list(&mut warn, vec![external.clone()]).is_empty(),
        "an unchanged definition is not reported again"
    );
    assert!(call_and_answer(&mut warn, "remote", structured(json!({}))).is_ok());
    let mut strict = harness(false, ValidationMode::Strict);
    list(&mut strict, vec![external]);
    assert!(matches!(
        call_and_answer(&mut strict, "remote", structured(json!({}))),
        Err(RequestError::ToolSchema { which: "outputSchema", .. })
    ));
}

#[test]
fn partial_validation_is_reported_once_per_definition() {
    let mut h = harness(false, ValidationMode::Warn);
    let mail = tool_with(
        "mail",
        json!({"type": "object", "properties": {"to": {"type": "string", "format": "email"}}}),
    );
    let first = list(&mut h, vec![mail.clone()]);
    assert_eq!(first, vec![Warning::PartialValidation { tool: "mail".into(), keywords: vec!["format"] }]);
    assert!(list(&mut h, vec![mail]).is_empty());
    assert!(call_and_answer(&mut h, "mail", structured(json!({"to": "not an address"}))).is_ok());
    assert!(h.warnings().is_empty(), "format is not asserted by default");
}

#[cfg(feature = "schema-formats")]
#[test]
fn format_can_be_asserted() {
    let mut h = Harness::with(ProtocolMode::Auto, |c| {
        c.validation.structured_content = ValidationMode::Strict;
        c.validation.assert_format = true;
    });
    h.connect_modern();
    let mail = tool_with(
        "mail",
        json!({"type": "object", "properties": {"to": {"type": "string", "format": "email"}}}),
    );
    assert!(list(&mut h, vec![mail]).is_empty(), "nothing is partial");
    assert!(call_and_answer(&mut h, "mail", structured(json!({"to": "not an address"}))).is_err());
}
