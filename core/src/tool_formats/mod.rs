//! MCP tools as LLM-provider function-calling tools, and the provider's tool calls back.
//!
//! A host that hands an LLM the tools of its MCP servers converts them with [`convert`] (or
//! the clients' `to_openai_tools` / `to_anthropic_tools` / `to_google_tools`), sends
//! [`ProviderTools::tools`] to the provider, and maps each tool call the model makes back to
//! the server and MCP tool that offer it with [`ProviderTools::resolve`] and a parser of
//! [`ProviderToolCall`]. Pure data work: no IO.
//!
//! Names: providers accept `[A-Za-z0-9_-]`, at most 64 characters (Google also wants a
//! letter or `_` first). A tool keeps its MCP name when that is valid and unique across the
//! servers; otherwise it gets the server's name as a prefix (`server__tool`), with characters
//! outside the alphabet replaced by `_`, and a short hash of the original pair when the result
//! is still too long or still collides. The mapping is deterministic for the same tool lists.
//!
//! ```
//! use mcpwire_core::tool_formats::{convert, Provider, ProviderToolCall};
//! use mcpwire_core::types::Tool;
//! use mcpwire_core::ServerTool;
//! use serde_json::json;
//!
//! let tool = Tool::from_value(json!({
//!     "name": "add",
//!     "description": "Adds two numbers",
//!     "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}}
//! })).unwrap();
//! let converted = convert(Provider::Anthropic, &[ServerTool { server: "calc".into(), tool }]);
//! assert_eq!(converted.tools[0]["name"], "add");
//!
//! // The model answers with a tool_use block; map it back to the MCP call.
//! let call = ProviderToolCall::from_anthropic(&json!({
//!     "type": "tool_use", "id": "toolu_01", "name": "add", "input": {"a": 1, "b": 2}
//! })).unwrap();
//! let target = converted.resolve(&call.name).unwrap();
//! assert_eq!((target.server.as_str(), target.tool.as_str()), ("calc", "add"));
//! ```

mod anthropic;
mod google;
mod naming;
mod openai;

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::catalog::ServerFailure;
pub use crate::error::ToolCallError;
use crate::server_spec::ServerTool;
use crate::types::CallToolResult;

/// An LLM provider's function-calling format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Provider {
    /// OpenAI Chat Completions: `{"type": "function", "function": {name, description, parameters}}`.
    OpenAi,
    /// Anthropic Messages: `{name, description, input_schema}`.
    Anthropic,
    /// Google Gemini: one `{"functionDeclarations": [{name, description, parameters}]}` tool, with
    /// parameters reduced to the OpenAPI 3.0 schema subset Gemini accepts.
    Google,
}

/// The server and MCP tool behind a provider-visible tool name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolTarget {
    /// The server offering the tool.
    pub server: String,
    /// The tool's MCP name (for `tools/call`).
    pub tool: String,
}

/// Tools converted for one provider, with the way back from provider names to MCP tools.
#[derive(Debug, Clone, PartialEq)]
pub struct ProviderTools {
    /// The provider the tools are shaped for.
    pub provider: Provider,
    /// The provider's tool definitions, ready to put in its request's `tools` field.
    pub tools: Vec<Value>,
    /// The servers whose tools could not be listed (their tools are missing here); empty from
    /// [`convert`], filled by a client's `provider_tools`.
    pub failed: Vec<ServerFailure>,
    names: BTreeMap<String, ToolTarget>,
}

impl ProviderTools {
    /// The server and MCP tool behind a provider-visible name, if it is one of these tools.
    pub fn resolve(&self, provider_name: &str) -> Option<&ToolTarget> {
        self.names.get(provider_name)
    }

    /// Every provider-visible name with its target, sorted by name.
    pub fn names(&self) -> impl Iterator<Item = (&str, &ToolTarget)> {
        self.names.iter().map(|(k, v)| (k.as_str(), v))
    }
}

/// Converts tools (each tagged with its server) to `provider`'s function-calling format.
/// Names are made valid and unique for the provider (see the module docs); schemas are
/// adjusted to what the provider accepts.
pub fn convert(provider: Provider, tools: &[ServerTool]) -> ProviderTools {
    let names = naming::assign(provider, tools);
    let mut definitions = Vec::with_capacity(tools.len());
    let mut targets = BTreeMap::new();
    for (entry, name) in tools.iter().zip(names) {
        let description = entry.tool.description.clone().or_else(|| entry.tool.title.clone());
        definitions.push(match provider {
            Provider::OpenAi => openai::definition(&name, description, &entry.tool.input_schema),
            Provider::Anthropic => anthropic::definition(&name, description, &entry.tool.input_schema),
            Provider::Google => google::declaration(&name, description, &entry.tool.input_schema),
        });
        targets.insert(name, ToolTarget { server: entry.server.clone(), tool: entry.tool.name.clone() });
    }
    let tools = match provider {
        Provider::Google if !definitions.is_empty() => {
            vec![serde_json::json!({ "functionDeclarations": definitions })]
        }
        Provider::Google => Vec::new(),
        _ => definitions,
    };
    ProviderTools { provider, tools, failed: Vec::new(), names: targets }
}

/// A tool call a model made, in a provider-neutral form.
#[derive(Debug, Clone, PartialEq)]
pub struct ProviderToolCall {
    /// The provider-visible tool name.
    pub name: String,
    /// The arguments, as a JSON object.
    pub arguments: Map<String, Value>,
    /// The provider's id of the call (to answer it), when the provider gives one.
    pub id: Option<String>,
}

impl ProviderToolCall {
    /// Reads an OpenAI tool call: a Chat Completions `tool_calls` item (`{"id", "type":
    /// "function", "function": {"name", "arguments": "<JSON text>"}}`) or a Responses API
    /// `function_call` item (`{"type": "function_call", "call_id", "name", "arguments"}`).
    pub fn from_openai(value: &Value) -> Result<Self, ToolCallError> {
        openai::parse_call(value)
    }

    /// Reads an Anthropic `tool_use` content block (`{"type": "tool_use", "id", "name",
    /// "input"}`).
    pub fn from_anthropic(value: &Value) -> Result<Self, ToolCallError> {
        anthropic::parse_call(value)
    }

    /// Reads a Gemini function call: a part `{"functionCall": {"name", "args", "id"?}}` or the
    /// bare `{"name", "args"}` object.
    pub fn from_google(value: &Value) -> Result<Self, ToolCallError> {
        google::parse_call(value)
    }

    /// Reads a tool call in `provider`'s format.
    pub fn parse(provider: Provider, value: &Value) -> Result<Self, ToolCallError> {
        match provider {
            Provider::OpenAi => Self::from_openai(value),
            Provider::Anthropic => Self::from_anthropic(value),
            Provider::Google => Self::from_google(value),
        }
    }
}

/// The provider's message or block that answers a tool call with an MCP tool result: an
/// OpenAI `tool` role message, an Anthropic `tool_result` block, a Gemini `functionResponse`
/// part. Text content is joined; structured content is included where the provider takes
/// JSON; `isError` is carried where the provider has a flag for it.
pub fn tool_result_message(provider: Provider, call: &ProviderToolCall, result: &CallToolResult) -> Value {
    let text = result_text(result);
    match provider {
        Provider::OpenAi => openai::result_message(call, text, result.is_error),
        Provider::Anthropic => anthropic::result_block(call, text, result.is_error),
        Provider::Google => google::result_part(call, text, result),
    }
}

/// The result's text blocks joined by newlines, else its structured content as JSON text.
fn result_text(result: &CallToolResult) -> String {
    let text = result.text();
    match &result.structured_content {
        Some(structured) if text.is_empty() => structured.to_string(),
        _ => text,
    }
}

/// A schema usable as a provider's parameters object: an object schema with `properties`,
/// without the `$schema` keyword. A non-object schema becomes an empty object schema.
fn object_schema(schema: &Value) -> Map<String, Value> {
    let mut out = match schema {
        Value::Object(map) => map.clone(),
        _ => Map::new(),
    };
    out.remove("$schema");
    out.insert("type".into(), Value::String("object".into()));
    out.entry("properties").or_insert_with(|| Value::Object(Map::new()));
    out
}

fn shape(provider: &'static str, detail: impl Into<String>) -> ToolCallError {
    ToolCallError::Shape { provider, detail: detail.into() }
}

fn string_field(value: &Value, key: &str, provider: &'static str) -> Result<String, ToolCallError> {
    match value.get(key) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(_) => Err(shape(provider, format!("{key} is not a string"))),
        None => Err(shape(provider, format!("no {key}"))),
    }
}

fn optional_string(value: &Value, key: &str) -> Option<String> {
    value.get(key).and_then(Value::as_str).map(str::to_owned)
}

fn arguments_object(value: Option<&Value>) -> Result<Map<String, Value>, ToolCallError> {
    match value {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(map)) => Ok(map.clone()),
        Some(other) => Err(ToolCallError::Arguments(crate::text::sanitize(&other.to_string(), 100))),
    }
}

#[cfg(test)]
mod tests;
