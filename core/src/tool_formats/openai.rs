//! OpenAI function-calling shapes (Chat Completions and the Responses API).

use serde_json::{json, Value};

use super::{
    arguments_object, object_schema, optional_string, shape, string_field, ProviderToolCall, ToolCallError,
};

const PROVIDER: &str = "OpenAI";

/// `{"type": "function", "function": {"name", "description", "parameters"}}`.
pub(super) fn definition(name: &str, description: Option<String>, input_schema: &Value) -> Value {
    let mut function = serde_json::Map::new();
    function.insert("name".into(), Value::String(name.to_owned()));
    if let Some(description) = description {
        function.insert("description".into(), Value::String(description));
    }
    function.insert("parameters".into(), Value::Object(object_schema(input_schema)));
    json!({ "type": "function", "function": function })
}

/// A Chat Completions `tool_calls` item or a Responses API `function_call` item. The
/// arguments are JSON text (an object is accepted too).
pub(super) fn parse_call(value: &Value) -> Result<ProviderToolCall, ToolCallError> {
    if !value.is_object() {
        return Err(shape(PROVIDER, "not an object"));
    }
    let (body, id) = match value.get("function") {
        Some(function) => (function, optional_string(value, "id")),
        None if value.get("type").and_then(Value::as_str) == Some("function_call") => {
            (value, optional_string(value, "call_id").or_else(|| optional_string(value, "id")))
        }
        None => return Err(shape(PROVIDER, "neither a function nor a function_call item")),
    };
    let name = string_field(body, "name", PROVIDER)?;
    let arguments = match body.get("arguments") {
        Some(Value::String(text)) if text.trim().is_empty() => serde_json::Map::new(),
        Some(Value::String(text)) => {
            let parsed: Value =
                serde_json::from_str(text).map_err(|e| ToolCallError::Arguments(format!("not JSON: {e}")))?;
            arguments_object(Some(&parsed))?
        }
        other => arguments_object(other)?,
    };
    Ok(ProviderToolCall { name, arguments, id })
}

/// `{"role": "tool", "tool_call_id", "content"}` (Chat Completions).
pub(super) fn result_message(call: &ProviderToolCall, text: String, is_error: bool) -> Value {
    let content = if is_error { format!("Error: {text}") } else { text };
    json!({ "role": "tool", "tool_call_id": call.id.clone().unwrap_or_default(), "content": content })
}
