//! LLM-provider tool conversions against real servers, written once for every runtime: a
//! client holding server-everything and py-mcp-peer (both offer `echo`) converts their tools
//! for OpenAI, Anthropic and Gemini, and runs a model's tool call in each format on the right
//! server. The glue module `rt` needs `Client` and `build`; `tests/tests/real_peers.rs` runs
//! them on every runtime.

/// Defines `pub mod tool_format_peer_checks` for the glue `rt`:
/// `define_tool_format_peer_checks!(async, aw_async)` or `define_tool_format_peer_checks!(, aw_sync)`.
#[macro_export]
macro_rules! define_tool_format_peer_checks {
    ($($kw:ident)? , $aw:ident) => {
/// The tool-conversion checks against real peers, instantiated for this runtime.
#[allow(unused_imports)]
pub mod tool_format_peer_checks {
    use super::rt;
    use std::time::Duration;
    use $crate::mcpwire_core::tool_formats::{tool_result_message, Provider};
    use $crate::mcpwire_core::ClientError;
    use $crate::serde_json::{json, Value};
    use $crate::support;

    macro_rules! aw {
        ($e:expr) => {
            $crate::$aw!($e)
        };
    }

    /// Both servers' tools in each provider's format: the shared `echo` is qualified by server
    /// on both sides, a unique tool keeps its name, and a call in the provider's format runs on
    /// the server its name maps to.
    pub $($kw)? fn two_servers_as_provider_tools() {
        let everything = support::peer_spec("server-everything", &[]).request_timeout(Duration::from_secs(30));
        let py = support::peer_spec("py-mcp-peer", &[]).request_timeout(Duration::from_secs(30));
        let client = rt::build(rt::Client::builder().server(everything).server(py)).expect("build the client");
        let (everything, py) = (client.servers()[0].name().to_owned(), client.servers()[1].name().to_owned());

        let openai = aw!(client.provider_tools($crate::mcpwire_core::tool_formats::Provider::OpenAi));
        let names: Vec<&str> = openai.tools.iter().filter_map(|t| t["function"]["name"].as_str()).collect();
        let qualified_py = format!("{py}__echo");
        assert!(names.contains(&qualified_py.as_str()), "{names:?}");
        assert!(names.contains(&format!("{everything}__echo").as_str()), "{names:?}");
        assert!(!names.contains(&"echo"), "a shared name stays qualified: {names:?}");
        assert!(names.contains(&"add"), "py-mcp-peer's add is unique: {names:?}");
        for tool in &openai.tools {
            assert_eq!(tool["type"], "function");
            assert_eq!(tool["function"]["parameters"]["type"], "object", "{tool}");
        }

        // OpenAI: the arguments arrive as JSON text.
        let call = json!({"id": "call_1", "type": "function",
            "function": {"name": qualified_py, "arguments": "{\"message\":\"from openai\"}"}});
        let (parsed, result) = aw!(client.call_provider_tool(&openai, &call)).expect("the OpenAI call");
        assert!(result.text().contains("from openai"), "{:?}", result.raw());
        let answer = tool_result_message(Provider::OpenAi, &parsed, &result);
        assert_eq!(answer["tool_call_id"], "call_1");

        // Anthropic: a tool_use block for server-everything's echo.
        let anthropic = aw!(client.provider_tools($crate::mcpwire_core::tool_formats::Provider::Anthropic));
        let block = json!({"type": "tool_use", "id": "toolu_1", "name": format!("{everything}__echo"),
            "input": {"message": "from anthropic"}});
        let (_, result) = aw!(client.call_provider_tool(&anthropic, &block)).expect("the Anthropic call");
        assert!(result.text().contains("from anthropic"), "{:?}", result.raw());
        for tool in &anthropic.tools {
            assert!(tool.get("input_schema").is_some() && tool.get("$schema").is_none(), "{tool}");
        }

        // Gemini: one tool with every declaration; `add` on py-mcp-peer.
        let google = aw!(client.provider_tools($crate::mcpwire_core::tool_formats::Provider::Google));
        assert_eq!(google.tools.len(), 1);
        let declarations = google.tools[0]["functionDeclarations"].as_array().expect("declarations");
        assert_eq!(declarations.len(), openai.tools.len());
        let part = json!({"functionCall": {"name": "add", "args": {"a": 2, "b": 3}}});
        let (parsed, result) = aw!(client.call_provider_tool(&google, &part)).expect("the Gemini call");
        assert!(!result.is_error, "{:?}", result.raw());
        let answer = tool_result_message(Provider::Google, &parsed, &result);
        assert_eq!(answer["functionResponse"]["name"], "add");
        assert!(answer["functionResponse"]["response"]["result"].to_string().contains('5'), "{answer}");

        // A name the model made up is a typed error; nothing is sent.
        let unknown = json!({"type": "tool_use", "id": "t", "name": "echo", "input": {}});
        let err = aw!(client.call_provider_tool(&anthropic, &unknown)).expect_err("not a converted name");
        assert!(matches!(err, ClientError::ToolCall(_)), "{err:?}");
        aw!(client.close());
    }
}
    };
}

/// Generates the `#[test]`s of [`define_tool_format_peer_checks!`].
#[macro_export]
macro_rules! all_tool_format_peer_checks {
    ($run:path) => {
        $crate::scenario_tests!(tool_format_peer_checks, $run; two_servers_as_provider_tools);
    };
}
