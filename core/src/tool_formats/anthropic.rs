//! Anthropic Messages tool shapes.

use serde_json::{json, Value};

use super::{
    arguments_object, object_schema, optional_string, shape, string_field, ProviderToolCall, ToolCallError,
};

const PROVIDER: &str = "Anthropic";

/// `{"name", "description", "input_schema"}`.
pub(super) fn definition(name: &str, description: Option<String>, input_schema: &Value) -> Value {
    let mut tool = serde_json::Map::new();
    tool.insert("name".into(), Value::String(name.to_owned()));
    if let Some(description) = description {
        tool.insert("description".into(), Value::String(description));
    }
    tool.insert("input_schema".into(), Value::Object(object_schema(input_schema)));
    Value::Object(tool)
}

/// A `tool_use` content block.
pub(super) fn parse_call(value: &Value) -> Result<ProviderToolCall, ToolCallError> {
    match value.get("type").and_then(Value::as_str) {
        Some("tool_use") => {}
        Some(other) => {
            return Err(shape(
                PROVIDER,
                format!("a {:?} block, not tool_use", crate::text::sanitize(other, 40)),
            ))
        }
        None => return Err(shape(PROVIDER, "no type")),
    }
    let name = string_field(value, "name", PROVIDER)?;
    let arguments = arguments_object(value.get("input"))?;
    Ok(ProviderToolCall { name, arguments, id: optional_string(value, "id") })
}

/// `{"type": "tool_result", "tool_use_id", "content": [{"type": "text", "text"}], "is_error"}`.
pub(super) fn result_block(call: &ProviderToolCall, text: String, is_error: bool) -> Value {
    let mut block = json!({
        "type": "tool_result",
        "tool_use_id": call.id.clone().unwrap_or_default(),
        "content": [{ "type": "text", "text": text }],
    });
    if is_error {
        block["is_error"] = Value::Bool(true);
    }
    block
}
