//! Tool output validation and elicitation form checks against real servers (issue 4), on
//! mcpwire-tokio (the checks live in the core, so one runtime proves the wiring):
//!
//! - server-everything (2025-11-25, draft-07 `outputSchema`): `get-structured-content` passes in
//!   strict mode; its 13-field elicitation form is accepted, and an answer that breaks it never
//!   reaches the server;
//! - server-filesystem (draft-07 schemas with `additionalProperties: false`) passes in strict mode;
//! - py-mcp-peer and ts-v2-peer (2026-07-28): `add` passes; py-mcp-peer's `add` of two huge
//!   floats overflows and returns `{"sum": null}`, which breaks its `{"sum": number}` schema:
//!   strict mode fails the call, warn mode delivers it with a warning.

#![cfg(feature = "schema")]

use mcp_tests::support::{self, Events, TempDir};
use mcpwire_core::schema::ValidationFailure;
use mcpwire_core::{ClientError, Era, Event, RequestError, ServerSpec, ValidationMode, Warning};
use serde_json::{json, Value};

fn run<F: std::future::Future<Output = ()>>(check: F) {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime")
        .block_on(check);
}

fn peer(name: &str, args: &[&str], mode: ValidationMode) -> ServerSpec {
    support::peer_spec(name, args)
        .request_timeout(std::time::Duration::from_secs(30))
        .validate_structured_content(mode)
}

/// A client for one peer, with its events collected; tools are listed (which compiles them).
async fn client_for(spec: ServerSpec, era: Era) -> (mcpwire_tokio::Client, Events) {
    let events = Events::new();
    let client = mcpwire_tokio::Client::builder()
        .server(spec)
        .on_event(events.hook())
        .build()
        .expect("build the client");
    let info = client.connect().await.into_result().expect("connect").remove(0);
    assert_eq!(info.era, era, "{info:?}");
    let tools = client.list_tools().await.into_result().expect("list_tools");
    assert!(tools.iter().any(|t| t.tool.output_schema.is_some()), "no outputSchema at all");
    (client, events)
}

fn validation_warnings(events: &Events) -> Vec<Warning> {
    events
        .snapshot()
        .into_iter()
        .filter_map(|(_, e)| match e {
            Event::Warning(w @ (Warning::StructuredContent { .. } | Warning::ToolSchema { .. })) => Some(w),
            _ => None,
        })
        .collect()
}

#[test]
fn server_everything_structured_content_passes_strict_validation() {
    run(async {
        let (client, events) =
            client_for(peer("server-everything", &[], ValidationMode::Strict), Era::Legacy).await;
        let tool = client.find_tool("get-structured-content").await.unwrap().expect("tool listed");
        let schema = tool.tool.output_schema.expect("an outputSchema");
        assert_eq!(schema["$schema"], json!("http://json-schema.org/draft-07/schema#"));
        for location in ["New York", "Chicago", "Los Angeles"] {
            let r = client.call_tool("get-structured-content", json!({"location": location})).await;
            let r = r.unwrap_or_else(|e| panic!("{location}: {e}"));
            let sc = r.structured_content.expect("structuredContent");
            assert!(sc["temperature"].is_number() && sc["conditions"].is_string(), "{sc}");
        }
        assert!(validation_warnings(&events).is_empty(), "{:?}", validation_warnings(&events));
        client.close().await;
    });
}

#[test]
fn server_filesystem_results_pass_strict_validation() {
    run(async {
        let dir = TempDir::new("fs-validation");
        let file = dir.write("note.txt", b"validated");
        let root = dir.path_str();
        let spec = peer("server-filesystem", &[&root], ValidationMode::Strict);
        let (client, events) = client_for(spec, Era::Legacy).await;
        let path = file.to_string_lossy().into_owned();
        let calls = [
            ("read_text_file", json!({"path": path})),
            ("list_directory", json!({"path": root})),
            ("get_file_info", json!({"path": path})),
            ("list_allowed_directories", json!({})),
        ];
        for (tool, args) in calls {
            let r = client.call_tool(tool, args).await.unwrap_or_else(|e| panic!("{tool}: {e}"));
            assert!(!r.is_error && r.structured_content.is_some(), "{tool}: {:?}", r.raw());
        }
        assert!(validation_warnings(&events).is_empty(), "{:?}", validation_warnings(&events));
        client.close().await;
    });
}

#[test]
fn modern_peers_structured_content_passes_strict_validation() {
    run(async {
        for (name, args) in [("py-mcp-peer", vec![]), ("ts-v2-peer", vec!["stdio"])] {
            let (client, events) = client_for(peer(name, &args, ValidationMode::Strict), Era::Modern).await;
            let r = client
                .call_tool("add", json!({"a": 2, "b": 3}))
                .await
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(r.structured_content.as_ref().and_then(|s| s["sum"].as_f64()), Some(5.0), "{name}");
            assert!(validation_warnings(&events).is_empty(), "{name}: {:?}", validation_warnings(&events));
            client.close().await;
        }
    });
}

/// py-mcp-peer's `add` overflows to infinity, which its serializer writes as `null`.
const OVERFLOW: fn() -> Value = || json!({"a": 1e308, "b": 1e308});

#[test]
fn strict_mode_fails_a_violating_real_result() {
    run(async {
        let (client, _) = client_for(peer("py-mcp-peer", &[], ValidationMode::Strict), Era::Modern).await;
        let err = client.call_tool("add", OVERFLOW()).await.expect_err("the result breaks the schema");
        match err {
            ClientError::Request(RequestError::StructuredContent { tool, failure }) => {
                assert_eq!(tool, "add");
                let ValidationFailure::Invalid { violations, .. } = &failure else { panic!("{failure:?}") };
                assert_eq!(violations[0].instance_path, "/sum", "{violations:?}");
                assert!(violations[0].message.contains("number"), "{violations:?}");
            }
            other => panic!("expected a structured-content error, got {other:?}"),
        }
        // The connection is fine afterwards.
        assert!(client.call_tool("add", json!({"a": 1, "b": 1})).await.is_ok());
        client.close().await;
    });
}

#[test]
fn warn_mode_delivers_a_violating_real_result_with_a_warning() {
    run(async {
        let (client, events) = client_for(peer("py-mcp-peer", &[], ValidationMode::Warn), Era::Modern).await;
        let r = client.call_tool("add", OVERFLOW()).await.expect("delivered in warn mode");
        assert_eq!(r.structured_content, Some(json!({"sum": null})));
        // Once closed, the event hook has seen everything routed before (the warning too).
        client.close().await;
        match &validation_warnings(&events)[..] {
            [Warning::StructuredContent { tool, failure }] => {
                assert_eq!(tool, "add");
                assert_eq!(failure.violations()[0].instance_path, "/sum");
            }
            other => panic!("{other:?}"),
        }
    });
}

#[test]
fn server_everything_elicitation_answers_are_checked_against_its_form() {
    run(async {
        for (content, accepted) in [
            (json!({"name": "Ada", "email": "ada@example.com", "integer": 7}), true),
            (json!({"name": "Ada", "email": "not-an-email"}), false),
        ] {
            let events = Events::new();
            let answer = content.clone();
            let builder = mcpwire_tokio::Client::builder()
                .server(peer("server-everything", &[], ValidationMode::Strict))
                .elicitation_handler(move |_: mcpwire_tokio::ElicitationRequest| {
                    let answer = answer.clone();
                    async move { Ok(mcpwire_tokio::ElicitResult::accept(answer)) }
                })
                .on_event(events.hook());
            let client = builder.build().expect("build the client");
            let outcome = client.call_tool("trigger-elicitation-request", json!({})).await;
            let handler_failures: Vec<String> = events
                .snapshot()
                .into_iter()
                .filter_map(|(_, e)| match e {
                    Event::Warning(Warning::HandlerFailed { detail, .. }) => Some(detail),
                    _ => None,
                })
                .collect();
            if accepted {
                let r = outcome.expect("the call succeeds");
                assert!(!r.is_error && r.text().contains("ada@example.com"), "{:?}", r.raw());
                assert!(handler_failures.is_empty(), "{handler_failures:?}");
            } else {
                assert!(
                    matches!(&handler_failures[..], [d] if d.contains("/email")),
                    "the invalid answer is reported locally: {handler_failures:?}"
                );
                let text = match outcome {
                    Ok(r) => r.text(),
                    Err(e) => e.to_string(),
                };
                assert!(!text.contains("not-an-email"), "the server never saw the invalid answer: {text}");
            }
            client.close().await;
        }
    });
}
