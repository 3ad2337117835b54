//! Tools: definitions and behaviour annotations.

use serde::Deserialize;
use serde_json::Value;

use super::{decode_wire, raw_json_impls, DecodeError, FromValue, Icon, Meta};

/// A tool the client can call (an entry of `tools/list`).
#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    /// Programmatic name, used in `tools/call`.
    pub name: String,
    /// Human-readable display name.
    pub title: Option<String>,
    /// Description for the model.
    pub description: Option<String>,
    /// JSON Schema for the arguments (`inputSchema`).
    pub input_schema: Value,
    /// JSON Schema for `structuredContent` (`outputSchema`), if declared.
    pub output_schema: Option<Value>,
    /// Behaviour hints; all `None` when the tool has no `annotations`.
    pub annotations: ToolAnnotations,
    /// Icons for the tool.
    pub icons: Vec<Icon>,
    /// Legacy (2025-11-25) `execution` object, e.g. `{"taskSupport": "optional"}`.
    pub execution: Option<Value>,
    /// The `_meta` object.
    pub meta: Option<Meta>,
    raw: Value,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ToolWire {
    name: String,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    description: Option<String>,
    input_schema: Value,
    #[serde(default)]
    output_schema: Option<Value>,
    #[serde(default)]
    annotations: Option<ToolAnnotations>,
    #[serde(default)]
    icons: Option<Vec<Icon>>,
    #[serde(default)]
    execution: Option<Value>,
    #[serde(default, rename = "_meta")]
    meta: Option<Meta>,
}

impl Tool {
    /// Decodes a `Tool` object. `inputSchema` is required (any JSON value is
    /// kept as-is; it is not validated as a schema).
    pub fn from_value(value: Value) -> Result<Self, DecodeError> {
        let w: ToolWire = decode_wire("Tool", &value)?;
        Ok(Self {
            name: w.name,
            title: w.title,
            description: w.description,
            input_schema: w.input_schema,
            output_schema: w.output_schema,
            annotations: w.annotations.unwrap_or_default(),
            icons: w.icons.unwrap_or_default(),
            execution: w.execution,
            meta: w.meta,
            raw: value,
        })
    }

    /// The name to show a user: `title`, else `annotations.title`, else `name`.
    pub fn display_name(&self) -> &str {
        self.title.as_deref().or(self.annotations.title.as_deref()).unwrap_or(&self.name)
    }

    /// The legacy `execution.taskSupport` value (`"forbidden"`, `"optional"`,
    /// `"required"`), if present.
    pub fn task_support(&self) -> Option<&str> {
        self.execution.as_ref()?.get("taskSupport")?.as_str()
    }

    /// Whether the tool may run as a task (a legacy `taskSupport` of `"optional"` or
    /// `"required"`; 2026-07-28 servers decide per call, so their tools do not say).
    pub fn supports_task(&self) -> bool {
        matches!(self.task_support(), Some("optional" | "required"))
    }
}

/// Hints describing a tool's behaviour. Untrusted: never base security
/// decisions on them.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolAnnotations {
    /// Human-readable title.
    pub title: Option<String>,
    /// `readOnlyHint` as sent.
    pub read_only_hint: Option<bool>,
    /// `destructiveHint` as sent.
    pub destructive_hint: Option<bool>,
    /// `idempotentHint` as sent.
    pub idempotent_hint: Option<bool>,
    /// `openWorldHint` as sent.
    pub open_world_hint: Option<bool>,
    raw: Value,
}

impl Default for ToolAnnotations {
    /// No hints; the raw JSON is `null` (as for a tool without `annotations`).
    fn default() -> Self {
        Self {
            title: None,
            read_only_hint: None,
            destructive_hint: None,
            idempotent_hint: None,
            open_world_hint: None,
            raw: Value::Null,
        }
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ToolAnnotationsWire {
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    read_only_hint: Option<bool>,
    #[serde(default)]
    destructive_hint: Option<bool>,
    #[serde(default)]
    idempotent_hint: Option<bool>,
    #[serde(default)]
    open_world_hint: Option<bool>,
}

impl ToolAnnotations {
    /// Decodes a `ToolAnnotations` object; JSON `null` gives the default (no
    /// hints).
    pub fn from_value(value: Value) -> Result<Self, DecodeError> {
        if value.is_null() {
            return Ok(Self::default());
        }
        let w: ToolAnnotationsWire = decode_wire("ToolAnnotations", &value)?;
        Ok(Self {
            title: w.title,
            read_only_hint: w.read_only_hint,
            destructive_hint: w.destructive_hint,
            idempotent_hint: w.idempotent_hint,
            open_world_hint: w.open_world_hint,
            raw: value,
        })
    }

    /// Whether the tool does not modify its environment (default `false`).
    pub fn read_only(&self) -> bool {
        self.read_only_hint.unwrap_or(false)
    }

    /// Whether the tool may perform destructive updates (default `true`).
    /// Meaningful only for tools that are not read-only, so `false` when
    /// [`Self::read_only`] is true.
    pub fn destructive(&self) -> bool {
        !self.read_only() && self.destructive_hint.unwrap_or(true)
    }

    /// Whether repeated identical calls have no additional effect (default
    /// `false`). Meaningful only for tools that are not read-only, so `false`
    /// when [`Self::read_only`] is true.
    pub fn idempotent(&self) -> bool {
        !self.read_only() && self.idempotent_hint.unwrap_or(false)
    }

    /// Whether the tool may interact with an open world of external entities
    /// (default `true`).
    pub fn open_world(&self) -> bool {
        self.open_world_hint.unwrap_or(true)
    }
}

raw_json_impls!(Tool);

impl ToolAnnotations {
    /// The raw JSON this was decoded from (`null` when the tool had none).
    pub fn raw(&self) -> &Value {
        &self.raw
    }

    /// Consumes the annotations, returning the raw JSON.
    pub fn into_raw(self) -> Value {
        self.raw
    }
}

impl FromValue for ToolAnnotations {
    fn from_value(value: Value) -> Result<Self, DecodeError> {
        ToolAnnotations::from_value(value)
    }
}

impl<'de> Deserialize<'de> for ToolAnnotations {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        ToolAnnotations::from_value(value).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    // examples/Tool/with-output-schema-for-structured-content.json
    const TOOL_OUTPUT_SCHEMA: &str = r#"{
      "name": "get_weather_data",
      "title": "Weather Data Retriever",
      "description": "Get current weather data for a location",
      "inputSchema": {
        "type": "object",
        "properties": {
          "location": { "type": "string", "description": "City name or zip code" }
        },
        "required": ["location"]
      },
      "outputSchema": {
        "type": "object",
        "properties": {
          "temperature": { "type": "number", "description": "Temperature in celsius" },
          "conditions": { "type": "string", "description": "Weather conditions description" },
          "humidity": { "type": "number", "description": "Humidity percentage" }
        },
        "required": ["temperature", "conditions", "humidity"]
      }
    }"#;

    // examples/Tool/with-no-parameters.json
    const TOOL_NO_PARAMS: &str = r#"{
      "name": "get_current_time",
      "description": "Returns the current server time",
      "inputSchema": { "type": "object", "additionalProperties": false }
    }"#;

    fn parse(s: &str) -> Value {
        serde_json::from_str(s).unwrap()
    }

    #[test]
    fn tool_with_output_schema_example() {
        let t = Tool::from_value(parse(TOOL_OUTPUT_SCHEMA)).unwrap();
        assert_eq!(t.name, "get_weather_data");
        assert_eq!(t.display_name(), "Weather Data Retriever");
        assert_eq!(t.input_schema["required"], json!(["location"]));
        assert_eq!(t.output_schema.as_ref().unwrap()["type"], "object");
        assert_eq!(t.annotations, ToolAnnotations::default());
        assert!(t.icons.is_empty());
        assert_eq!(t.raw(), &parse(TOOL_OUTPUT_SCHEMA));
    }

    #[test]
    fn tool_without_params_example() {
        let t = Tool::from_value(parse(TOOL_NO_PARAMS)).unwrap();
        assert_eq!(t.display_name(), "get_current_time");
        assert_eq!(t.input_schema["additionalProperties"], false);
        assert_eq!(t.output_schema, None);
        assert_eq!(t.execution, None);
        assert_eq!(t.task_support(), None);
    }

    #[test]
    fn tool_display_name_precedence_and_legacy_fields() {
        let t = Tool::from_value(json!({
            "name": "n",
            "inputSchema": {"type": "object"},
            "annotations": {"title": "Annotated"},
            "execution": {"taskSupport": "optional"},
            "icons": [{"src": "i.png"}],
            "_meta": {"k": 1}
        }))
        .unwrap();
        assert_eq!(t.display_name(), "Annotated");
        assert_eq!(t.task_support(), Some("optional"));
        assert_eq!(t.icons[0].src, "i.png");
        assert_eq!(t.meta.as_ref().unwrap()["k"], 1);
        assert_eq!(t.annotations.raw(), &json!({"title": "Annotated"}));
    }

    #[test]
    fn tool_missing_fields() {
        let err = Tool::from_value(json!({"inputSchema": {}})).unwrap_err();
        assert_eq!(err.to_string(), "invalid Tool: missing field `name`");
        let err = Tool::from_value(json!({"name": "x"})).unwrap_err();
        assert_eq!(err.to_string(), "invalid Tool: missing field `inputSchema`");
        let err = Tool::from_value(json!({"name": "x", "inputSchema": {}, "annotations": 3})).unwrap_err();
        assert_eq!(err.what, "Tool");
        assert!(err.detail.contains("invalid ToolAnnotations"), "{err}");
    }

    #[test]
    fn annotation_defaults() {
        let none = ToolAnnotations::default();
        assert!(!none.read_only());
        assert!(none.destructive());
        assert!(!none.idempotent());
        assert!(none.open_world());

        let ro = ToolAnnotations::from_value(json!({
            "readOnlyHint": true,
            "destructiveHint": true,
            "idempotentHint": true
        }))
        .unwrap();
        assert!(ro.read_only());
        assert!(!ro.destructive(), "destructive is meaningless for read-only tools");
        assert!(!ro.idempotent(), "idempotent is meaningless for read-only tools");
        assert!(ro.open_world());

        let rw = ToolAnnotations::from_value(json!({
            "readOnlyHint": false,
            "destructiveHint": false,
            "idempotentHint": true,
            "openWorldHint": false
        }))
        .unwrap();
        assert!(!rw.read_only());
        assert!(!rw.destructive());
        assert!(rw.idempotent());
        assert!(!rw.open_world());
        assert_eq!(rw.destructive_hint, Some(false));

        assert_eq!(ToolAnnotations::from_value(Value::Null).unwrap(), none);
        assert!(ToolAnnotations::from_value(json!({"readOnlyHint": "yes"})).is_err());
    }
}
