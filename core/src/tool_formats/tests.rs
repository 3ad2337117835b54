use serde_json::json;

use super::*;
use crate::types::Tool;

fn tool(server: &str, value: Value) -> ServerTool {
    ServerTool { server: server.into(), tool: Tool::from_value(value).unwrap() }
}

fn weather(server: &str) -> ServerTool {
    tool(
        server,
        json!({
            "name": "get_weather",
            "description": "Get the current weather in a given location",
            "inputSchema": {
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "properties": {
                    "location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"},
                    "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}
                },
                "required": ["location"],
                "additionalProperties": false
            }
        }),
    )
}

#[test]
fn openai_definition_has_the_chat_completions_shape() {
    let out = convert(Provider::OpenAi, &[weather("w")]);
    assert_eq!(
        out.tools,
        vec![json!({
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "Get the current weather in a given location",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"},
                        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}
                    },
                    "required": ["location"],
                    "additionalProperties": false
                }
            }
        })]
    );
}

#[test]
fn anthropic_definition_has_the_messages_shape() {
    let out = convert(Provider::Anthropic, &[weather("w")]);
    let t = &out.tools[0];
    assert_eq!(t["name"], "get_weather");
    assert_eq!(t["description"], "Get the current weather in a given location");
    assert_eq!(t["input_schema"]["type"], "object");
    assert_eq!(t["input_schema"]["required"], json!(["location"]));
    assert!(t["input_schema"].get("$schema").is_none());
    assert_eq!(t.as_object().unwrap().len(), 3);
}

#[test]
fn google_declaration_reduces_the_schema() {
    let out = convert(Provider::Google, &[weather("w")]);
    assert_eq!(out.tools.len(), 1, "one tool holding every declaration");
    let declarations = out.tools[0]["functionDeclarations"].as_array().unwrap();
    assert_eq!(
        declarations[0],
        json!({
            "name": "get_weather",
            "description": "Get the current weather in a given location",
            "parameters": {
                "type": "object",
                "properties": {
                    "location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"},
                    "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}
                },
                "required": ["location"]
            }
        })
    );
}

#[test]
fn google_schema_rules() {
    let schema = json!({
        "type": "object",
        "$defs": {"point": {"type": "object", "properties": {"x": {"type": "number"}}}},
        "properties": {
            "maybe": {"type": ["string", "null"], "default": "a"},
            "either": {"type": ["string", "integer"]},
            "fixed": {"const": "v"},
            "numbers": {"enum": [1, 2]},
            "at": {"$ref": "#/$defs/point"},
            "remote": {"$ref": "https://example.com/schema"},
            "one": {"oneOf": [{"type": "string"}, {"type": "number"}]},
            "tuple": {"type": "array", "items": [{"type": "string"}]}
        },
        "required": ["maybe", "ghost"]
    });
    let reduced = google::reduce(&schema, &schema, 0);
    let p = &reduced["properties"];
    assert_eq!(p["maybe"], json!({"type": "string", "nullable": true}));
    assert_eq!(p["either"], json!({"anyOf": [{"type": "string"}, {"type": "integer"}]}));
    assert_eq!(p["fixed"], json!({"type": "string", "enum": ["v"]}));
    assert_eq!(p["numbers"], json!({}), "Gemini enums are strings only");
    assert_eq!(p["at"], json!({"type": "object", "properties": {"x": {"type": "number"}}}));
    assert_eq!(p["remote"], json!({}));
    assert_eq!(p["one"], json!({"anyOf": [{"type": "string"}, {"type": "number"}]}));
    assert_eq!(p["tuple"], json!({"type": "array", "items": {"type": "string"}}));
    assert_eq!(reduced["required"], json!(["maybe"]));
    assert!(reduced.get("$defs").is_none());
}

#[test]
fn google_cyclic_references_are_bounded() {
    let schema = json!({"type": "object", "properties": {"next": {"$ref": "#"}}});
    let reduced = google::reduce(&schema, &schema, 0);
    let mut depth = 0;
    let mut at = &reduced;
    while let Some(next) = at.get("properties").and_then(|p| p.get("next")) {
        at = next;
        depth += 1;
    }
    assert!(depth > 1 && depth <= 30, "depth {depth}");
}

#[test]
fn google_leaves_out_parameters_of_a_tool_without_properties() {
    let out =
        convert(Provider::Google, &[tool("s", json!({"name": "ping", "inputSchema": {"type": "object"}}))]);
    assert_eq!(out.tools[0]["functionDeclarations"][0], json!({"name": "ping"}));
    assert!(convert(Provider::Google, &[]).tools.is_empty());
}

#[test]
fn names_collide_across_servers_and_are_qualified() {
    let tools = [weather("east"), weather("west"), tool("west", json!({"name": "x.y z", "inputSchema": {}}))];
    let out = convert(Provider::OpenAi, &tools);
    let names: Vec<&str> = out.tools.iter().map(|t| t["function"]["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["east__get_weather", "west__get_weather", "west__x_y_z"]);
    let target = out.resolve("west__x_y_z").unwrap();
    assert_eq!((target.server.as_str(), target.tool.as_str()), ("west", "x.y z"));
    assert_eq!(out.resolve("get_weather"), None);
}

#[test]
fn long_and_leading_digit_names() {
    let long = "t".repeat(80);
    let tools = [
        tool("s", json!({"name": long, "inputSchema": {}})),
        tool("s", json!({"name": "9lives", "inputSchema": {}})),
    ];
    let google = convert(Provider::Google, &tools);
    let names: Vec<&str> = google.names().map(|(n, _)| n).collect();
    for name in &names {
        assert!(naming::is_valid(Provider::Google, name), "{name}");
    }
    assert!(google.resolve("s__9lives").is_some());
    // OpenAI accepts a leading digit: the name stays as it is.
    assert!(convert(Provider::OpenAi, &tools).resolve("9lives").is_some());
    // The same input gives the same names.
    assert_eq!(convert(Provider::Google, &tools).names().count(), 2);
    assert_eq!(convert(Provider::Google, &tools), google);
}

#[test]
fn a_qualified_name_never_takes_a_plain_one() {
    let tools = [
        tool("a", json!({"name": "a__t", "inputSchema": {}})),
        tool("a", json!({"name": "t", "inputSchema": {}})),
        tool("b", json!({"name": "t", "inputSchema": {}})),
    ];
    let out = convert(Provider::Anthropic, &tools);
    let names: Vec<&str> = out.tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names[0], "a__t");
    assert_ne!(names[1], "a__t");
    assert_eq!(names[2], "b__t");
    assert_eq!(out.resolve(names[1]).unwrap().server, "a");
    assert_eq!(out.resolve("a__t").unwrap().tool, "a__t");
}

#[test]
fn openai_calls_both_apis() {
    let chat = json!({
        "id": "call_abc123", "type": "function",
        "function": {"name": "get_weather", "arguments": "{\"location\":\"Paris, France\"}"}
    });
    let call = ProviderToolCall::from_openai(&chat).unwrap();
    assert_eq!(call.name, "get_weather");
    assert_eq!(call.id.as_deref(), Some("call_abc123"));
    assert_eq!(Value::Object(call.arguments), json!({"location": "Paris, France"}));
    let responses = json!({
        "type": "function_call", "id": "fc_1", "call_id": "call_2",
        "name": "get_weather", "arguments": "{}"
    });
    let call = ProviderToolCall::parse(Provider::OpenAi, &responses).unwrap();
    assert_eq!(call.id.as_deref(), Some("call_2"));
    assert!(call.arguments.is_empty());
    let bad = json!({"type": "function", "function": {"name": "f", "arguments": "{not json"}});
    assert!(matches!(ProviderToolCall::from_openai(&bad), Err(ToolCallError::Arguments(_))));
    let list = json!({"type": "function", "function": {"name": "f", "arguments": "[1]"}});
    assert!(matches!(ProviderToolCall::from_openai(&list), Err(ToolCallError::Arguments(_))));
    assert!(matches!(
        ProviderToolCall::from_openai(&json!({"type": "message"})),
        Err(ToolCallError::Shape { .. })
    ));
    assert!(matches!(ProviderToolCall::from_openai(&json!("x")), Err(ToolCallError::Shape { .. })));
}

#[test]
fn anthropic_and_google_calls() {
    let block =
        json!({"type": "tool_use", "id": "toolu_01A", "name": "get_weather", "input": {"location": "SF"}});
    let call = ProviderToolCall::from_anthropic(&block).unwrap();
    assert_eq!((call.name.as_str(), call.id.as_deref()), ("get_weather", Some("toolu_01A")));
    let text = json!({"type": "text", "text": "hi"});
    assert!(matches!(ProviderToolCall::from_anthropic(&text), Err(ToolCallError::Shape { .. })));
    let no_name = json!({"type": "tool_use", "id": "x", "input": {}});
    assert!(matches!(ProviderToolCall::from_anthropic(&no_name), Err(ToolCallError::Shape { .. })));

    let part = json!({"functionCall": {"name": "get_weather", "args": {"location": "Boston"}}});
    let call = ProviderToolCall::from_google(&part).unwrap();
    assert_eq!(Value::Object(call.arguments), json!({"location": "Boston"}));
    assert_eq!(call.id, None);
    let bare = json!({"name": "ping", "id": "c1"});
    assert_eq!(ProviderToolCall::from_google(&bare).unwrap().id.as_deref(), Some("c1"));
    let bad_args = json!({"functionCall": {"name": "f", "args": 3}});
    assert!(matches!(ProviderToolCall::from_google(&bad_args), Err(ToolCallError::Arguments(_))));
}

#[test]
fn results_go_back_in_each_provider_shape() {
    let ok = CallToolResult::from_value(json!({"content": [{"type": "text", "text": "22 C"}]})).unwrap();
    let failed = CallToolResult::from_value(
        json!({"content": [{"type": "text", "text": "no city"}], "isError": true}),
    )
    .unwrap();
    let structured =
        CallToolResult::from_value(json!({"content": [], "structuredContent": {"t": 22}})).unwrap();
    let call = ProviderToolCall { name: "get_weather".into(), arguments: Map::new(), id: Some("c1".into()) };

    assert_eq!(
        tool_result_message(Provider::OpenAi, &call, &ok),
        json!({"role": "tool", "tool_call_id": "c1", "content": "22 C"})
    );
    assert_eq!(tool_result_message(Provider::OpenAi, &call, &failed)["content"], "Error: no city");
    assert_eq!(
        tool_result_message(Provider::Anthropic, &call, &failed),
        json!({"type": "tool_result", "tool_use_id": "c1", "content": [{"type": "text", "text": "no city"}], "is_error": true})
    );
    assert_eq!(
        tool_result_message(Provider::Anthropic, &call, &structured)["content"][0]["text"],
        "{\"t\":22}"
    );
    assert_eq!(
        tool_result_message(Provider::Google, &call, &structured),
        json!({"functionResponse": {"name": "get_weather", "id": "c1", "response": {"result": {"t": 22}}}})
    );
    assert_eq!(
        tool_result_message(Provider::Google, &call, &failed)["functionResponse"]["response"],
        json!({"error": "no city"})
    );
}

proptest::proptest! {
    #[test]
    fn names_are_valid_unique_and_resolvable(
        entries in proptest::collection::vec(("[a-c]{1,3}", "[a-z0-9._ -]{0,70}"), 0..12)
    ) {
        let tools: Vec<ServerTool> = entries
            .iter()
            .map(|(server, name)| tool(server, json!({"name": name, "inputSchema": {}})))
            .collect();
        for provider in [Provider::OpenAi, Provider::Anthropic, Provider::Google] {
            let out = convert(provider, &tools);
            let names = naming::assign(provider, &tools);
            let unique: std::collections::BTreeSet<&String> = names.iter().collect();
            proptest::prop_assert_eq!(unique.len(), names.len());
            for (name, entry) in names.iter().zip(&tools) {
                proptest::prop_assert!(naming::is_valid(provider, name), "{:?}", name);
                let target = out.resolve(name).unwrap();
                proptest::prop_assert_eq!(&target.server, &entry.server);
                proptest::prop_assert_eq!(&target.tool, &entry.tool.name);
            }
        }
    }
}
