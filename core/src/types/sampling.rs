//! The content of sampling conversations (`sampling/createMessage`): messages, their content
//! blocks (text, image, audio, tool uses and results), model preferences and `includeContext`.

use serde::Deserialize;
use serde_json::{json, Value};

use super::{
    decode_wire, expect_object, json_kind, AudioContent, ContentBlock, DecodeError, ImageContent, Meta, Role,
    TextContent,
};

/// A tool use the model asked for (`"type": "tool_use"`).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolUse {
    /// The id the result must name.
    pub id: String,
    /// The tool.
    pub name: String,
    /// The arguments.
    pub input: Value,
    raw: Value,
}

/// A tool's result given back to the model (`"type": "tool_result"`).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    /// The tool use this answers (`toolUseId`).
    pub tool_use_id: String,
    /// The result's content.
    pub content: Vec<ContentBlock>,
    /// The result's `structuredContent`.
    pub structured_content: Option<Value>,
    /// The tool failed (`isError`).
    pub is_error: bool,
    raw: Value,
}

#[derive(Deserialize)]
struct ToolUseWire {
    id: String,
    name: String,
    #[serde(default)]
    input: Value,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ToolResultWire {
    tool_use_id: String,
    #[serde(default)]
    content: Vec<ContentBlock>,
    #[serde(default)]
    structured_content: Option<Value>,
    #[serde(default)]
    is_error: Option<bool>,
}

/// One content block of a sampling message.
#[derive(Debug, Clone, PartialEq)]
pub enum SamplingContent {
    /// `"type": "text"`.
    Text(TextContent),
    /// `"type": "image"`.
    Image(ImageContent),
    /// `"type": "audio"`.
    Audio(AudioContent),
    /// `"type": "tool_use"`.
    ToolUse(ToolUse),
    /// `"type": "tool_result"`.
    ToolResult(ToolResult),
    /// A block with a `type` this crate does not model; the whole JSON object.
    Unknown(Value),
}

impl SamplingContent {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        let raw = json!({"type": "text", "text": text.into()});
        // A text object always decodes; were it not to, the JSON is kept as it is.
        TextContent::from_value(raw.clone()).map_or(SamplingContent::Unknown(raw), SamplingContent::Text)
    }

    /// A tool use block.
    pub fn tool_use(id: impl Into<String>, name: impl Into<String>, input: Value) -> Self {
        let (id, name) = (id.into(), name.into());
        let raw = json!({"type": "tool_use", "id": id, "name": name, "input": input});
        SamplingContent::ToolUse(ToolUse { id, name, input, raw })
    }

    /// Decodes a block. An unknown `type` is [`SamplingContent::Unknown`]; a missing `type`, or
    /// a known type without its required fields, is an error.
    pub fn from_value(value: Value) -> Result<Self, DecodeError> {
        const WHAT: &str = "SamplingContent";
        let obj = expect_object(WHAT, &value)?;
        let ty = match obj.get("type") {
            Some(Value::String(s)) => s.clone(),
            Some(other) => {
                return Err(DecodeError::new(
                    WHAT,
                    format!("type must be a string, got {}", json_kind(other)),
                ))
            }
            None => return Err(DecodeError::new(WHAT, "missing field `type`")),
        };
        Ok(match ty.as_str() {
            "text" => SamplingContent::Text(TextContent::from_value(value)?),
            "image" => SamplingContent::Image(ImageContent::from_value(value)?),
            "audio" => SamplingContent::Audio(AudioContent::from_value(value)?),
            "tool_use" => {
                let w: ToolUseWire = decode_wire("ToolUseContent", &value)?;
                SamplingContent::ToolUse(ToolUse { id: w.id, name: w.name, input: w.input, raw: value })
            }
            "tool_result" => {
                let w: ToolResultWire = decode_wire("ToolResultContent", &value)?;
                SamplingContent::ToolResult(ToolResult {
                    tool_use_id: w.tool_use_id,
                    content: w.content,
                    structured_content: w.structured_content,
                    is_error: w.is_error.unwrap_or(false),
                    raw: value,
                })
            }
            _ => SamplingContent::Unknown(value),
        })
    }

    /// The text of a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            SamplingContent::Text(t) => Some(&t.text),
            _ => None,
        }
    }

    /// The block as JSON: the JSON it was decoded from (or built with), with the modelled
    /// fields as they are now.
    pub fn to_value(&self) -> Value {
        let (raw, fields) = match self {
            SamplingContent::Text(t) => (t.raw(), vec![("type", json!("text")), ("text", json!(t.text))]),
            SamplingContent::Image(m) => (
                m.raw(),
                vec![("type", json!("image")), ("data", json!(m.data)), ("mimeType", json!(m.mime_type))],
            ),
            SamplingContent::Audio(m) => (
                m.raw(),
                vec![("type", json!("audio")), ("data", json!(m.data)), ("mimeType", json!(m.mime_type))],
            ),
            SamplingContent::ToolUse(u) => (
                &u.raw,
                vec![
                    ("type", json!("tool_use")),
                    ("id", json!(u.id)),
                    ("name", json!(u.name)),
                    ("input", u.input.clone()),
                ],
            ),
            SamplingContent::ToolResult(r) => {
                let content: Vec<Value> = r.content.iter().map(|c| c.raw().clone()).collect();
                let mut fields = vec![
                    ("type", json!("tool_result")),
                    ("toolUseId", json!(r.tool_use_id)),
                    ("content", Value::Array(content)),
                ];
                if r.is_error {
                    fields.push(("isError", json!(true)));
                }
                if let Some(s) = &r.structured_content {
                    fields.push(("structuredContent", s.clone()));
                }
                (&r.raw, fields)
            }
            SamplingContent::Unknown(v) => return v.clone(),
        };
        let mut o = raw.as_object().cloned().unwrap_or_default();
        for (k, v) in fields {
            o.insert(k.into(), v);
        }
        Value::Object(o)
    }
}

/// Content as sent: one block alone, several as an array.
pub(super) fn content_value(content: &[SamplingContent]) -> Value {
    match content {
        [one] => one.to_value(),
        many => Value::Array(many.iter().map(SamplingContent::to_value).collect()),
    }
}

/// Content as received: one block or an array of blocks.
fn decode_content(what: &'static str, value: Option<&Value>) -> Result<Vec<SamplingContent>, DecodeError> {
    match value {
        Some(Value::Array(items)) => items.iter().cloned().map(SamplingContent::from_value).collect(),
        Some(block @ Value::Object(_)) => Ok(vec![SamplingContent::from_value(block.clone())?]),
        Some(other) => Err(DecodeError::new(
            what,
            format!("content must be a block or an array of blocks, got {}", json_kind(other)),
        )),
        None => Err(DecodeError::new(what, "missing field `content`")),
    }
}

/// A message of a sampling conversation.
#[derive(Debug, Clone, PartialEq)]
pub struct SamplingMessage {
    /// Who said it.
    pub role: Role,
    /// What was said (a single block on the wire is a list of one here).
    pub content: Vec<SamplingContent>,
    /// The `_meta` object.
    pub meta: Option<Meta>,
}

impl SamplingMessage {
    /// Decodes a sampling message.
    pub fn from_value(value: Value) -> Result<Self, DecodeError> {
        const WHAT: &str = "SamplingMessage";
        let obj = expect_object(WHAT, &value)?;
        let role = match obj.get("role") {
            Some(Value::String(r)) => Role::parse(r),
            _ => return Err(DecodeError::new(WHAT, "role must be a string")),
        };
        let content = decode_content(WHAT, obj.get("content"))?;
        let meta = obj.get("_meta").and_then(Value::as_object).cloned();
        Ok(Self { role, content, meta })
    }

    /// The text of the message's text blocks, joined by newlines.
    pub fn text(&self) -> String {
        self.content.iter().filter_map(SamplingContent::as_text).collect::<Vec<_>>().join("\n")
    }
}

/// The server's model preferences (advisory).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelPreferences {
    /// Model name hints, in order of preference.
    pub hints: Vec<String>,
    /// How much cost matters, 0 to 1 (`costPriority`).
    pub cost_priority: Option<f64>,
    /// How much speed matters, 0 to 1 (`speedPriority`).
    pub speed_priority: Option<f64>,
    /// How much capability matters, 0 to 1 (`intelligencePriority`).
    pub intelligence_priority: Option<f64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ModelPreferencesWire {
    #[serde(default)]
    hints: Vec<Value>,
    #[serde(default)]
    cost_priority: Option<f64>,
    #[serde(default)]
    speed_priority: Option<f64>,
    #[serde(default)]
    intelligence_priority: Option<f64>,
}

impl From<ModelPreferencesWire> for ModelPreferences {
    fn from(p: ModelPreferencesWire) -> Self {
        Self {
            hints: p
                .hints
                .iter()
                .filter_map(|h| h.get("name").and_then(Value::as_str).map(str::to_owned))
                .collect(),
            cost_priority: p.cost_priority,
            speed_priority: p.speed_priority,
            intelligence_priority: p.intelligence_priority,
        }
    }
}

/// What `includeContext` asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IncludeContext {
    /// `"none"`.
    None,
    /// `"thisServer"` (deprecated).
    ThisServer,
    /// `"allServers"` (deprecated).
    AllServers,
    /// Any other value.
    Other(String),
}

impl IncludeContext {
    pub(super) fn parse(s: &str) -> Self {
        match s {
            "none" => IncludeContext::None,
            "thisServer" => IncludeContext::ThisServer,
            "allServers" => IncludeContext::AllServers,
            other => IncludeContext::Other(other.to_owned()),
        }
    }
}
