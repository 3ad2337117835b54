//! The client the official conformance suite drives (`mcp __conformance-client URL`): the
//! harness sets `MCP_CONFORMANCE_SCENARIO`, `MCP_CONFORMANCE_PROTOCOL_VERSION` and sometimes
//! `MCP_CONFORMANCE_CONTEXT`, and appends the mock server's URL. Each scenario does what a host
//! would do with that server; the checks are the suite's.

use std::process::ExitCode;

use mcpwire_tokio::types::Tool;
use mcpwire_tokio::types::{CreateMessageResult, ElicitResult};
use mcpwire_tokio::{
    Client, ElicitationRequest, HandlerError, ProtocolMode, Root, SamplingRequest, ServerSpec,
};
use serde_json::{json, Map, Value};

use crate::commands::CliError;

/// The hidden first argument that turns this binary into the conformance client.
pub const CONFORMANCE_ARG: &str = "__conformance-client";

/// Runs the scenario the environment names against the URL in `args` (the last one).
pub fn run(args: impl Iterator<Item = String>) -> ExitCode {
    let Some(url) = args.last() else {
        eprintln!("error: usage: mcp {CONFORMANCE_ARG} URL");
        return ExitCode::from(2);
    };
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let version = std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION").unwrap_or_default();
    let context: Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|c| serde_json::from_str(&c).ok())
        .unwrap_or(Value::Null);
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(scenario_run(&url, &scenario, &version, &context)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {scenario}: {e}");
            ExitCode::FAILURE
        }
    }
}

/// An elicitation answer that accepts with every default the form declares (SEP-1034); a
/// field without a default gets a plain value of its type.
pub fn accept_with_defaults(params: &Value) -> Value {
    let mut content = Map::new();
    let properties = params.pointer("/requestedSchema/properties").and_then(Value::as_object);
    for (name, schema) in properties.into_iter().flatten() {
        let value = match schema.get("default") {
            Some(d) => d.clone(),
            None => match schema.get("type").and_then(Value::as_str) {
                Some("boolean") => json!(true),
                Some("integer" | "number") => json!(0),
                _ => match schema.get("enum").and_then(Value::as_array).and_then(|e| e.first()) {
                    Some(first) => first.clone(),
                    None => json!(""),
                },
            },
        };
        content.insert(name.clone(), value);
    }
    json!({"action": "accept", "content": content})
}

/// Arguments for a tool: a plain value for each required property.
fn sample_arguments(tool: &Tool) -> Value {
    let mut args = Map::new();
    let required = tool.input_schema.get("required").and_then(Value::as_array);
    for name in required.into_iter().flatten().filter_map(Value::as_str) {
        let schema = &tool.input_schema["properties"][name];
        let value = match schema.get("type").and_then(Value::as_str) {
            Some("integer" | "number") => json!(1),
            Some("boolean") => json!(true),
            Some("object") => json!({}),
            Some("array") => json!([]),
            _ => json!("us-west1"),
        };
        args.insert(name.to_owned(), value);
    }
    Value::Object(args)
}

fn client_for(
    url: &str,
    scenario: &str,
    version: &str,
    context: &Value,
    issuer: Option<&str>,
) -> Result<Client, CliError> {
    let mode = if version == "2026-07-28" { ProtocolMode::Modern } else { ProtocolMode::Legacy };
    let mut spec = ServerSpec::from_target("conformance", url)?.protocol(mode);
    if scenario.starts_with("auth/") {
        spec = crate::conformance_auth::configure(spec, context, issuer);
    }
    let builder = Client::builder()
        .authorization_handler(crate::conformance_auth::follow_authorization)
        .server(spec)
        .roots([Root::named("file:///conformance", "conformance")])
        .sampling_handler(|_: SamplingRequest| async { Ok(CreateMessageResult::text("ok", "conformance")) })
        .elicitation_handler(|req: ElicitationRequest| async move {
            ElicitResult::from_value(accept_with_defaults(req.raw()))
                .map_err(|e| HandlerError::new(e.to_string()))
        });
    Ok(builder.build()?)
}

async fn scenario_run(url: &str, scenario: &str, version: &str, context: &Value) -> Result<(), CliError> {
    let issuer = match crate::conformance_auth::needs_issuer(scenario, context) {
        true => Some(learn_issuer(url, scenario, version, context).await?),
        false => None,
    };
    let client = client_for(url, scenario, version, context, issuer.as_deref())?;
    let outcome = steps(&client, scenario, context).await;
    client.close().await;
    outcome
}

/// The issuer of the suite's authorization server, from a first connection whose credentials
/// are bound to [`crate::conformance_auth::PROBE_ISSUER`] (refused before any token request).
async fn learn_issuer(url: &str, scenario: &str, version: &str, context: &Value) -> Result<String, CliError> {
    let probe = client_for(url, scenario, version, context, Some(crate::conformance_auth::PROBE_ISSUER))?;
    let outcome = probe.servers()[0].connect().await;
    probe.close().await;
    match outcome {
        Err(e) => crate::conformance_auth::discovered_issuer(&e).ok_or_else(|| e.into()),
        Ok(_) => Err(CliError::new("the server did not ask for authorization")),
    }
}

async fn steps(client: &Client, scenario: &str, context: &Value) -> Result<(), CliError> {
    let server = client.servers()[0].clone();
    server.connect().await?;
    let tools = server.list_tools().await?;
    match scenario {
        "tools_call" => {
            server.call_tool("add_numbers", json!({"a": 2, "b": 3})).await?;
        }
        "elicitation-sep1034-client-defaults" => {
            server.call_tool("test_client_elicitation_defaults", json!({})).await?;
        }
        "sse-retry" => {
            server.call_tool("test_reconnection", json!({})).await?;
        }
        "http-standard-headers" => {
            if let Some(tool) = tools.iter().find(|t| t.name == "my-hyphenated-tool").or(tools.first()) {
                server.call_tool(&tool.name, sample_arguments(tool)).await?;
            }
            let resources = server.list_resources().await?;
            if let Some(r) = resources.first() {
                server.read_resource(&r.uri).await?;
            }
            let prompts = server.list_prompts().await?;
            if let Some(p) = prompts.first() {
                server.get_prompt(&p.name, Map::new()).await?;
            }
        }
        "http-custom-headers" => {
            let calls = context.get("toolCalls").and_then(Value::as_array);
            for call in calls.into_iter().flatten() {
                let name = call.get("name").and_then(Value::as_str).unwrap_or_default();
                let arguments = call.get("arguments").cloned().unwrap_or_else(|| json!({}));
                server.call_tool(name, arguments).await?;
            }
        }
        "json-schema-2020-12-preservation" => {
            let schema = tools
                .iter()
                .find(|t| t.name == "json_schema_2020_12_tool")
                .map(|t| t.input_schema.clone())
                .ok_or_else(|| CliError::new("json_schema_2020_12_tool is not listed"))?;
            server.call_tool("json_schema_echo", json!({"schema": schema})).await?;
        }
        "sep-2322-client-request-state" => {
            for name in [
                "test_mrtr_echo_state",
                "test_mrtr_unrelated",
                "test_mrtr_no_state",
                "test_mrtr_no_result_type",
            ] {
                server.call_tool(name, json!({})).await?;
            }
        }
        // Every tool the client kept (invalid x-mcp-header tools are excluded by the library).
        "http-invalid-tool-headers" => {
            for tool in &tools {
                server.call_tool(&tool.name, sample_arguments(tool)).await?;
            }
        }
        // A protected server: after the first authorization, a call (a step-up scenario
        // asks for more scope on it).
        s if s.starts_with("auth/") => {
            if let Some(tool) = tools.first() {
                server.call_tool(&tool.name, sample_arguments(tool)).await?;
            }
        }
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_applied() {
        let params = json!({"requestedSchema": {"type": "object", "properties": {
            "name": {"type": "string", "default": "John Doe"},
            "age": {"type": "integer", "default": 30},
            "status": {"type": "string", "enum": ["active", "inactive"]},
            "ok": {"type": "boolean"}}}});
        assert_eq!(
            accept_with_defaults(&params),
            json!({"action": "accept", "content": {"name": "John Doe", "age": 30, "status": "active", "ok": true}})
        );
    }
}
