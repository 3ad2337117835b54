//! Typed server requests to the host: the spec's examples decode, a request that does not
//! decode is refused before the host sees it (`-32602` / `InputRefused`), and a
//! `HandlerError` reaches the server as the policy says (constant unless it names a code).

use serde_json::{json, Value};

use super::harness::*;
use mcpwire_core::server_requests::Refusal;
use mcpwire_core::types::{
    decode_roots_result, CreateMessageRequest, CreateMessageResult, ElicitMode, ElicitRequest, ElicitResult,
    HostRequest, IncludeContext, Role, RootsRequest, SamplingContent,
};
use mcpwire_core::{ClientFeatures, HandlerError, ProtocolMode, RequestError, ServerRequestKind, Warning};

/// Every example of a schema type, by file name (test data read from disk).
#[allow(clippy::disallowed_methods)]
fn examples(kind: &str) -> Vec<(String, Value)> {
    let dir = format!("{}/tests/data/spec-examples/2026-07-28/{kind}", env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .map(|entry| entry.expect("a directory entry").path())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{dir} has examples");
    files
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).expect("an example file");
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            (name, serde_json::from_str(&text).expect("example JSON"))
        })
        .collect()
}

fn all_features() -> ClientFeatures {
    ClientFeatures::default()
        .roots(true)
        .sampling(true)
        .sampling_tools(true)
        .elicitation_form(true)
        .elicitation_url(true)
}

fn legacy() -> Harness {
    let mut h = Harness::with(ProtocolMode::Auto, |c| c.features = all_features());
    h.connect_legacy();
    h
}

#[test]
fn the_spec_examples_of_sampling_decode() {
    let (_, request) = examples("CreateMessageRequest").remove(0);
    assert_eq!(request["method"], "sampling/createMessage");
    let r = CreateMessageRequest::from_value(request["params"].clone()).expect("the example decodes");
    assert_eq!((r.max_tokens, r.system_prompt.as_deref()), (100, Some("You are a helpful assistant.")));
    assert_eq!(r.messages[0].role, Role::User);
    assert_eq!(r.last_text(), "What is the capital of France?");
    let prefs = r.model_preferences.expect("modelPreferences");
    assert_eq!((prefs.hints, prefs.intelligence_priority), (vec!["claude-3-sonnet".to_owned()], Some(0.8)));
    for (name, params) in examples("CreateMessageRequestParams") {
        let r = CreateMessageRequest::from_value(params.clone()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(r.raw(), &params, "{name}: the raw JSON is kept");
        match name.as_str() {
            "request-with-tools.json" => {
                assert_eq!(r.tools[0].name, "get_weather");
                assert_eq!(r.tool_choice.as_deref(), Some("auto"));
            }
            "follow-up-with-tool-results.json" => {
                let uses: Vec<_> = r.messages[1]
                    .content
                    .iter()
                    .filter_map(|c| match c {
                        SamplingContent::ToolUse(u) => Some((u.id.as_str(), u.input["city"].clone())),
                        _ => None,
                    })
                    .collect();
                assert_eq!(uses, [("call_abc123", json!("Paris")), ("call_def456", json!("London"))]);
                let SamplingContent::ToolResult(result) = &r.messages[2].content[1] else { panic!("{name}") };
                assert_eq!(result.tool_use_id, "call_def456");
                assert_eq!(result.content[0].as_text(), Some("Weather in London: 15°C, rainy"));
            }
            _ => assert!(r.tools.is_empty() && r.tool_choice.is_none(), "{name}"),
        }
        assert_eq!(r.include_context, None, "{name}");
    }
    for (name, result) in examples("CreateMessageResult") {
        let r = CreateMessageResult::from_value(result.clone()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(r.to_value(), result, "{name}: answers serialise back to the example");
    }
}

#[test]
fn the_spec_examples_of_elicitation_and_roots_decode() {
    let (_, request) = examples("ElicitRequest").remove(0);
    let r = ElicitRequest::from_value(request["params"].clone()).expect("the example decodes");
    assert_eq!((r.mode, r.message.as_str()), (ElicitMode::Form, "Please provide your GitHub username"));
    assert_eq!(r.requested_schema.as_ref().map(|s| s["required"].clone()), Some(json!(["name"])));
    for (name, params) in examples("ElicitRequestFormParams") {
        let r = ElicitRequest::from_value(params).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(r.mode, ElicitMode::Form, "{name}");
    }
    for (name, params) in examples("ElicitRequestURLParams") {
        let r = ElicitRequest::from_value(params).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(r.mode, ElicitMode::Url, "{name}");
        assert_eq!(r.url.as_deref(), Some("https://mcp.example.com/ui/set_api_key"));
    }
    for (name, result) in examples("ElicitResult") {
        let r = ElicitResult::from_value(result.clone()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(r.to_value(), result, "{name}");
    }
    let (_, list) = examples("ListRootsRequest").remove(0);
    assert_eq!(list["method"], "roots/list");
    let r = RootsRequest::from_value(list.get("params").cloned().unwrap_or(Value::Null)).expect("decodes");
    assert_eq!(r.meta, None);
    for (name, result) in examples("ListRootsResult") {
        let roots = decode_roots_result(&result).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(roots.iter().all(|r| r.uri.starts_with("file:///") && r.name.is_some()), "{name}");
        assert_eq!(mcpwire_core::types::roots_result(&roots), result, "{name}");
    }
}

#[test]
fn the_host_gets_the_typed_request() {
    let mut h = legacy();
    let (_, example) = examples("CreateMessageRequest").remove(0);
    h.server_says(json!({"jsonrpc": "2.0", "id": 5, "method": "sampling/createMessage",
        "params": example["params"]}));
    let (handle, req) = h.take_server_request();
    assert_eq!(req.kind, ServerRequestKind::Sampling);
    let HostRequest::Sampling(sampling) = &req.request else { panic!("{req:?}") };
    assert_eq!(sampling.max_tokens, 100);
    assert_eq!(req.params(), &example["params"]);
    let answer = CreateMessageResult::text("Paris.", "m").to_value();
    assert!(h.respond(handle, Ok(answer.clone())));
    assert_eq!(h.sent(), vec![json!({"jsonrpc": "2.0", "id": 5, "result": answer})]);

    h.server_says(json!({"jsonrpc": "2.0", "id": 6, "method": "elicitation/create",
        "params": {"message": "Name?", "requestedSchema": {"type": "object", "properties": {}},
                   "includeContext": "x"}}));
    let (_, req) = h.take_server_request();
    let HostRequest::Elicitation(e) = &req.request else { panic!("{req:?}") };
    assert_eq!((e.mode, e.message.as_str()), (ElicitMode::Form, "Name?"));
    h.assert_quiet();
}

#[test]
fn a_request_that_does_not_decode_gets_invalid_params() {
    let mut h = legacy();
    let ok_messages = json!([{"role": "user", "content": {"type": "text", "text": "hi"}}]);
    for (id, method, params, what) in [
        (1, "sampling/createMessage", json!({"messages": ok_messages}), "maxTokens"),
        (2, "sampling/createMessage", json!({"messages": ok_messages, "maxTokens": "many"}), "maxTokens"),
        (
            3,
            "elicitation/create",
            json!({"requestedSchema": {"type": "object", "properties": {}}}),
            "message",
        ),
        (4, "roots/list", json!(["not", "an", "object"]), "object"),
    ] {
        h.server_says(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let sent = h.sent();
        assert_eq!(sent.len(), 1, "{method}");
        assert_eq!((&sent[0]["id"], &sent[0]["error"]["code"]), (&json!(id), &json!(-32602)), "{sent:?}");
        let message = sent[0]["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(what), "{method}: {message}");
        let refused = h.warnings().into_iter().any(|w| {
            matches!(w, Warning::ServerRequestRefused { method: m, reason } if m == method && reason.contains(what))
        });
        assert!(refused, "{method}: refused with a warning");
        h.assert_quiet();
    }
}

#[test]
fn a_modern_input_request_that_does_not_decode_fails_the_call() {
    let mut h = Harness::with(ProtocolMode::Auto, |c| c.features = all_features());
    h.connect_modern();
    let r = h.request(call("book", json!({})));
    let first = h.expect_sent("tools/call");
    let bad = json!({"method": "sampling/createMessage", "params": {"messages": []}});
    h.reply(&first, json!({"resultType": "input_required", "inputRequests": {"s": bad}}));
    match h.err(r) {
        RequestError::InputRefused { method, reason: Refusal::Malformed(e), .. } => {
            assert_eq!(method, "sampling/createMessage");
            assert!(e.detail.contains("maxTokens"), "{e}");
        }
        other => panic!("{other:?}"),
    }
    assert!(
        h.take_event(|e| matches!(e, mcpwire_core::Event::ServerRequest { .. })).is_none(),
        "host not asked"
    );
}

#[test]
fn a_handler_error_with_a_code_reaches_the_server_as_it_is() {
    let mut h = legacy();
    h.server_says(json!({"jsonrpc": "2.0", "id": 1, "method": "roots/list"}));
    let (handle, _) = h.take_server_request();
    assert!(h.respond(handle, Err(HandlerError::with_code(-32001, "roots are private"))));
    assert_eq!(
        h.sent(),
        vec![json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32001, "message": "roots are private"}})]
    );
    assert_eq!(
        h.warnings(),
        vec![Warning::HandlerFailed { method: "roots/list".into(), detail: "roots are private".into() }]
    );
    // Without a code the detail stays local.
    h.server_says(json!({"jsonrpc": "2.0", "id": 2, "method": "roots/list"}));
    let (handle, _) = h.take_server_request();
    assert!(h.respond(handle, Err(HandlerError::new("secret path"))));
    assert_eq!(
        h.sent(),
        vec![
            json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32603, "message": "Client handler failed"}})
        ]
    );
    assert_eq!(
        h.warnings(),
        vec![Warning::HandlerFailed { method: "roots/list".into(), detail: "secret path".into() }]
    );
    h.assert_quiet();
}

#[test]
fn include_context_is_typed_after_the_opt_in_check() {
    let mut h = legacy();
    let params = json!({"messages": [], "maxTokens": 3, "includeContext": "allServers"});
    h.server_says(json!({"jsonrpc": "2.0", "id": 1, "method": "sampling/createMessage", "params": params}));
    let (_, req) = h.take_server_request();
    let HostRequest::Sampling(s) = &req.request else { panic!("{req:?}") };
    assert_eq!(s.include_context, Some(IncludeContext::None), "no sampling_context opt-in: read as none");
}
