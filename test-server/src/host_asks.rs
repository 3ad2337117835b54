//! `--host-asks`: tools that ask the client for URL-mode elicitation and tool-enabled sampling,
//! in both eras. On the legacy revisions they send a server-to-client request mid-call; on
//! 2026-07-28 they answer `input_required` (key `ask`, `requestState` `host-asks`) and read the
//! answer from the retry's `inputResponses`.
//!
//! * `elicit_url {id?="url-1"}`: a URL elicitation (`https://example.com/connect`) carrying
//!   `elicitationId` `id` in both eras (so a client can be seen dropping it on 2026-07-28). On the
//!   legacy revisions an `accept` is followed by `notifications/elicitation/complete` for `id`
//!   before the answer. Answers `elicitation: <compact result>`.
//! * `sample_tools {history?="valid", includeContext?}`: a `sampling/createMessage` with
//!   `tools` and `toolChoice`, after a history whose tool use is answered (`"valid"`) or not
//!   (`"unanswered"`). Answers `sampling: <compact result>` (legacy: or the error object).

use serde_json::{json, Map, Value};

use crate::protocol::{compact, text_result, Era, Reply};
use crate::server::{Request, Server};
use crate::tools::{object_schema, tool};

/// The tools of this block.
pub const NAMES: [&str; 2] = ["elicit_url", "sample_tools"];

/// Their definitions.
pub fn definitions() -> Vec<Value> {
    vec![
        tool(
            "elicit_url",
            "Asks the client to open a URL (URL-mode elicitation), then answers what it said",
            object_schema(json!({"id": {"type": "string"}}), &[]),
        ),
        tool(
            "sample_tools",
            "Asks the client's LLM with tools (sampling with tools), then answers what it said",
            object_schema(
                json!({
                    "history": {"type": "string", "enum": ["valid", "unanswered"]},
                    "includeContext": {"type": "string"}
                }),
                &[],
            ),
        ),
    ]
}

fn url_params(args: &Map<String, Value>) -> (Value, String) {
    let id = args.get("id").and_then(Value::as_str).unwrap_or("url-1").to_owned();
    let params = json!({
        "mode": "url",
        "message": "Connect your example.com account",
        "url": "https://example.com/connect",
        "elicitationId": id,
    });
    (params, id)
}

fn sampling_params(args: &Map<String, Value>) -> Value {
    let answered = args.get("history").and_then(Value::as_str) != Some("unanswered");
    let mut messages = vec![
        json!({"role": "user", "content": {"type": "text", "text": "What is the weather in Paris?"}}),
        json!({"role": "assistant", "content": [
            {"type": "tool_use", "id": "call-1", "name": "weather", "input": {"city": "Paris"}}
        ]}),
    ];
    if answered {
        messages.push(json!({"role": "user", "content": [
            {"type": "tool_result", "toolUseId": "call-1", "content": [{"type": "text", "text": "18C"}]}
        ]}));
    }
    let mut params = json!({
        "messages": messages,
        "tools": [{"name": "weather", "description": "Weather by city",
            "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}}}],
        "toolChoice": {"mode": "auto"},
        "maxTokens": 50
    });
    if let Some(context) = args.get("includeContext") {
        params["includeContext"] = context.clone();
    }
    params
}

/// Runs one of [`NAMES`].
pub fn call(server: &Server, req: &Request, name: &str, args: &Map<String, Value>) -> Option<Reply> {
    let (label, method, params, url_id) = match name {
        "elicit_url" => {
            let (params, id) = url_params(args);
            ("elicitation", "elicitation/create", params, Some(id))
        }
        _ => ("sampling", "sampling/createMessage", sampling_params(args), None),
    };
    if req.era == Era::Modern {
        return Some(Ok(match req.param("inputResponses").and_then(|r| r.get("ask")) {
            Some(answer) => text_result(format!("{label}: {}", compact(answer))),
            None => json!({
                "resultType": "input_required",
                "inputRequests": {"ask": {"method": method, "params": params}},
                "requestState": "host-asks",
            }),
        }));
    }
    let answer = match server.request_client(&req.id, method, Some(params))? {
        Ok(result) => result,
        Err(error) => error.to_value(),
    };
    if let (Some(id), Some("accept")) = (url_id, answer.get("action").and_then(Value::as_str)) {
        server
            .out
            .send_notification("notifications/elicitation/complete", Some(&json!({"elicitationId": id})));
    }
    Some(Ok(text_result(format!("{label}: {}", compact(&answer)))))
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use crate::config::{Config, ProtocolMode};
    use crate::protocol::{META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION, MODERN_VERSION};
    use crate::test_harness::Harness;

    fn config(protocol: ProtocolMode) -> Config {
        Config { protocol, host_asks: true, ..Config::default() }
    }

    fn call(id: u64, name: &str, mut params: Value, modern: bool) -> Value {
        params["name"] = json!(name);
        if modern {
            params["_meta"] = json!({META_PROTOCOL_VERSION: MODERN_VERSION, META_CLIENT_CAPABILITIES: {}});
        }
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
    }

    #[test]
    fn legacy_url_elicitation_then_completion() {
        let h = Harness::legacy(config(ProtocolMode::Legacy("2025-11-25")));
        h.send(call(1, "elicit_url", json!({"arguments": {"id": "e-7"}}), false));
        let asked = h.wait(1);
        assert_eq!(asked[0]["method"], "elicitation/create");
        assert_eq!(asked[0]["params"]["elicitationId"], "e-7");
        h.send(json!({"jsonrpc": "2.0", "id": asked[0]["id"], "result": {"action": "accept"}}));
        let lines = h.wait(2);
        assert_eq!(
            lines[0],
            json!({"jsonrpc": "2.0", "method": "notifications/elicitation/complete",
            "params": {"elicitationId": "e-7"}})
        );
        assert_eq!(lines[1]["result"]["content"][0]["text"], "elicitation: {\"action\":\"accept\"}");
    }

    #[test]
    fn modern_sampling_is_an_input_round() {
        let h = Harness::new(config(ProtocolMode::Modern));
        h.send(call(1, "sample_tools", json!({"arguments": {"history": "unanswered"}}), true));
        let first = h.wait(1);
        let ask = &first[0]["result"]["inputRequests"]["ask"];
        assert_eq!(first[0]["result"]["resultType"], "input_required");
        assert_eq!(ask["method"], "sampling/createMessage");
        assert_eq!(ask["params"]["messages"].as_array().map(Vec::len), Some(2));
        let answer = json!({"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m"});
        h.send(call(
            2,
            "sample_tools",
            json!({"inputResponses": {"ask": answer}, "requestState": "host-asks"}),
            true,
        ));
        let done = h.wait(1);
        assert_eq!(done[0]["result"]["resultType"], "complete");
        assert!(done[0]["result"]["content"][0]["text"].as_str().unwrap().starts_with("sampling: {"));
    }
}
