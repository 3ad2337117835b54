//! Google Gemini function-calling shapes, and the reduction of a JSON Schema to the OpenAPI 3.0
//! subset Gemini's `parameters` accepts.

use serde_json::{json, Map, Value};

use super::{
    arguments_object, object_schema, optional_string, shape, string_field, ProviderToolCall, ToolCallError,
};
use crate::types::CallToolResult;

const PROVIDER: &str = "Google";

/// Nesting deeper than this becomes an unconstrained schema (hostile or cyclic schemas).
const MAX_DEPTH: usize = 24;

/// Schema keywords Gemini reads; everything else is dropped.
const KEPT: &[&str] = &[
    "format",
    "title",
    "description",
    "nullable",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "pattern",
    "propertyOrdering",
];

/// `{"name", "description", "parameters"}`; `parameters` is left out for a tool without
/// properties (Gemini refuses an object schema with none).
pub(super) fn declaration(name: &str, description: Option<String>, input_schema: &Value) -> Value {
    let mut declaration = Map::new();
    declaration.insert("name".into(), Value::String(name.to_owned()));
    if let Some(description) = description {
        declaration.insert("description".into(), Value::String(description));
    }
    let root = Value::Object(object_schema(input_schema));
    let parameters = reduce(&root, &root, 0);
    let has_properties =
        parameters.get("properties").and_then(Value::as_object).is_some_and(|p| !p.is_empty());
    if has_properties {
        declaration.insert("parameters".into(), parameters);
    }
    Value::Object(declaration)
}

/// `schema` reduced to Gemini's subset: local `$ref`s inlined (bounded), `type: [T, "null"]` as
/// `nullable`, `oneOf` as `anyOf`, a string `const` as a one-value `enum`, enums of strings only,
/// `required` limited to declared properties, unknown keywords dropped.
pub(super) fn reduce(schema: &Value, root: &Value, depth: usize) -> Value {
    let Value::Object(map) = schema else { return json!({}) };
    if depth > MAX_DEPTH {
        return json!({});
    }
    if let Some(Value::String(reference)) = map.get("$ref") {
        return match resolve_local(root, reference) {
            Some(target) => reduce(target, root, depth + 1),
            None => json!({}),
        };
    }
    let mut out = Map::new();
    for key in KEPT {
        if let Some(value) = map.get(*key) {
            out.insert((*key).to_owned(), value.clone());
        }
    }
    match map.get("type") {
        Some(Value::String(t)) => {
            out.insert("type".into(), Value::String(t.clone()));
        }
        Some(Value::Array(types)) => {
            let named: Vec<&str> = types.iter().filter_map(Value::as_str).filter(|t| *t != "null").collect();
            if named.len() < types.len() {
                out.insert("nullable".into(), Value::Bool(true));
            }
            match named.as_slice() {
                [] => {}
                [one] => {
                    out.insert("type".into(), Value::String((*one).to_owned()));
                }
                many => {
                    let variants = many.iter().map(|t| json!({ "type": t })).collect();
                    out.insert("anyOf".into(), Value::Array(variants));
                }
            }
        }
        _ => {}
    }
    let enum_values = match (map.get("enum"), map.get("const")) {
        (Some(Value::Array(values)), _) => Some(values.clone()),
        (None, Some(value)) => Some(vec![value.clone()]),
        _ => None,
    };
    if let Some(values) = enum_values {
        if !values.is_empty() && values.iter().all(Value::is_string) {
            out.insert("enum".into(), Value::Array(values));
            out.entry("type").or_insert_with(|| Value::String("string".into()));
        }
    }
    if let Some(Value::Object(properties)) = map.get("properties") {
        let reduced: Map<String, Value> =
            properties.iter().map(|(k, v)| (k.clone(), reduce(v, root, depth + 1))).collect();
        if let Some(Value::Array(required)) = map.get("required") {
            let kept: Vec<Value> = required
                .iter()
                .filter(|r| r.as_str().is_some_and(|r| reduced.contains_key(r)))
                .cloned()
                .collect();
            if !kept.is_empty() {
                out.insert("required".into(), Value::Array(kept));
            }
        }
        out.insert("properties".into(), Value::Object(reduced));
    }
    match map.get("items") {
        Some(items @ Value::Object(_)) => {
            out.insert("items".into(), reduce(items, root, depth + 1));
        }
        Some(Value::Array(tuple)) => {
            if let Some(first) = tuple.first() {
                out.insert("items".into(), reduce(first, root, depth + 1));
            }
        }
        _ => {}
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(variants)) = map.get(key) {
            let reduced = variants.iter().map(|v| reduce(v, root, depth + 1)).collect();
            out.insert("anyOf".into(), Value::Array(reduced));
        }
    }
    if let Some(Value::Array(all)) = map.get("allOf") {
        if let [only] = all.as_slice() {
            if let Value::Object(merged) = reduce(only, root, depth + 1) {
                for (k, v) in merged {
                    out.entry(k).or_insert(v);
                }
            }
        }
    }
    Value::Object(out)
}

/// The target of a local reference (`#/$defs/X`, `#/definitions/X`, any JSON pointer into
/// the root); `None` for remote or unreadable references.
fn resolve_local<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    if pointer.is_empty() {
        return Some(root);
    }
    root.pointer(pointer)
}

/// A part `{"functionCall": {...}}` or the bare function call object.
pub(super) fn parse_call(value: &Value) -> Result<ProviderToolCall, ToolCallError> {
    if !value.is_object() {
        return Err(shape(PROVIDER, "not an object"));
    }
    let call = value.get("functionCall").unwrap_or(value);
    let name = string_field(call, "name", PROVIDER)?;
    let arguments = arguments_object(call.get("args"))?;
    Ok(ProviderToolCall { name, arguments, id: optional_string(call, "id") })
}

/// `{"functionResponse": {"name", "response": {...}, "id"?}}`: the response holds the
/// structured content (or the text) under `result`, or the text under `error`.
pub(super) fn result_part(call: &ProviderToolCall, text: String, result: &CallToolResult) -> Value {
    let response = if result.is_error {
        json!({ "error": text })
    } else {
        match &result.structured_content {
            Some(structured) if !structured.is_null() => json!({ "result": structured }),
            _ => json!({ "result": text }),
        }
    };
    let mut function_response = json!({ "name": call.name, "response": response });
    if let Some(id) = &call.id {
        function_response["id"] = Value::String(id.clone());
    }
    json!({ "functionResponse": function_response })
}
