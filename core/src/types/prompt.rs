//! Prompts: listings and `prompts/get` results.

use serde::Deserialize;
use serde_json::Value;

use super::{decode_wire, raw_json_impls, ContentBlock, DecodeError, Icon, Meta, Role};

/// A prompt or prompt template (an entry of `prompts/list`).
#[derive(Debug, Clone, PartialEq)]
pub struct Prompt {
    /// Programmatic name, used in `prompts/get`.
    pub name: String,
    /// Human-readable display name.
    pub title: Option<String>,
    /// Description of what the prompt provides.
    pub description: Option<String>,
    /// Arguments for templating the prompt.
    pub arguments: Vec<PromptArgument>,
    /// Icons for the prompt.
    pub icons: Vec<Icon>,
    /// The `_meta` object.
    pub meta: Option<Meta>,
    raw: Value,
}

#[derive(Deserialize)]
struct PromptWire {
    name: String,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    arguments: Option<Vec<PromptArgument>>,
    #[serde(default)]
    icons: Option<Vec<Icon>>,
    #[serde(default, rename = "_meta")]
    meta: Option<Meta>,
}

impl Prompt {
    /// Decodes a `Prompt` object.
    pub fn from_value(value: Value) -> Result<Self, DecodeError> {
        let w: PromptWire = decode_wire("Prompt", &value)?;
        Ok(Self {
            name: w.name,
            title: w.title,
            description: w.description,
            arguments: w.arguments.unwrap_or_default(),
            icons: w.icons.unwrap_or_default(),
            meta: w.meta,
            raw: value,
        })
    }

    /// The title if present, else the name.
    pub fn display_name(&self) -> &str {
        self.title.as_deref().unwrap_or(&self.name)
    }

    /// The arguments that must be supplied.
    pub fn required_arguments(&self) -> impl Iterator<Item = &PromptArgument> + '_ {
        self.arguments.iter().filter(|a| a.required)
    }
}

/// An argument a prompt accepts.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptArgument {
    /// Argument name.
    pub name: String,
    /// Human-readable display name.
    pub title: Option<String>,
    /// Description of the argument.
    pub description: Option<String>,
    /// Whether the argument must be provided (default `false`).
    pub required: bool,
    raw: Value,
}

#[derive(Deserialize)]
struct PromptArgumentWire {
    name: String,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    required: Option<bool>,
}

impl PromptArgument {
    /// Decodes a `PromptArgument` object.
    pub fn from_value(value: Value) -> Result<Self, DecodeError> {
        let w: PromptArgumentWire = decode_wire("PromptArgument", &value)?;
        Ok(Self {
            name: w.name,
            title: w.title,
            description: w.description,
            required: w.required.unwrap_or(false),
            raw: value,
        })
    }
}

/// The result of `prompts/get`.
#[derive(Debug, Clone, PartialEq)]
pub struct GetPromptResult {
    /// Description of the prompt.
    pub description: Option<String>,
    /// The prompt's messages.
    pub messages: Vec<PromptMessage>,
    /// The `_meta` object.
    pub meta: Option<Meta>,
    raw: Value,
}

#[derive(Deserialize)]
struct GetPromptResultWire {
    #[serde(default)]
    description: Option<String>,
    messages: Vec<PromptMessage>,
    #[serde(default, rename = "_meta")]
    meta: Option<Meta>,
}

impl GetPromptResult {
    /// Decodes a `prompts/get` result.
    pub fn from_value(value: Value) -> Result<Self, DecodeError> {
        let w: GetPromptResultWire = decode_wire("GetPromptResult", &value)?;
        Ok(Self { description: w.description, messages: w.messages, meta: w.meta, raw: value })
    }
}

/// One message of a prompt.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptMessage {
    /// Who the message is from.
    pub role: Role,
    /// The message content.
    pub content: ContentBlock,
    raw: Value,
}

#[derive(Deserialize)]
struct PromptMessageWire {
    role: Role,
    content: ContentBlock,
}

impl PromptMessage {
    /// Decodes a `PromptMessage` object.
    pub fn from_value(value: Value) -> Result<Self, DecodeError> {
        let w: PromptMessageWire = decode_wire("PromptMessage", &value)?;
        Ok(Self { role: w.role, content: w.content, raw: value })
    }
}

raw_json_impls!(Prompt, PromptArgument, GetPromptResult, PromptMessage);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    // examples/GetPromptResult/code-review-prompt.json
    const GET_PROMPT: &str = r#"{
      "resultType": "complete",
      "description": "Code review prompt",
      "messages": [
        {
          "role": "user",
          "content": {
            "type": "text",
            "text": "Please review this Python code:\ndef hello():\n    print('world')"
          }
        }
      ]
    }"#;

    // First entry of examples/ListPromptsResult/prompts-list-with-cursor-and-ttl.json
    const PROMPT: &str = r#"{
      "name": "code_review",
      "title": "Request Code Review",
      "description": "Asks the LLM to analyze code quality and suggest improvements",
      "arguments": [
        { "name": "code", "description": "The code to review", "required": true }
      ],
      "icons": [
        { "src": "https://example.com/review-icon.svg", "mimeType": "image/svg+xml", "sizes": ["any"] }
      ]
    }"#;

    #[test]
    fn prompt_example() {
        let v: Value = serde_json::from_str(PROMPT).unwrap();
        let p = Prompt::from_value(v.clone()).unwrap();
        assert_eq!(p.name, "code_review");
        assert_eq!(p.display_name(), "Request Code Review");
        assert_eq!(p.arguments.len(), 1);
        assert_eq!(p.arguments[0].name, "code");
        assert!(p.arguments[0].required);
        assert_eq!(p.required_arguments().count(), 1);
        assert_eq!(p.icons[0].mime_type.as_deref(), Some("image/svg+xml"));
        assert_eq!(p.raw(), &v);
    }

    #[test]
    fn prompt_argument_defaults() {
        let a = PromptArgument::from_value(json!({"name": "lang"})).unwrap();
        assert!(!a.required);
        assert_eq!(a.title, None);
        let p = Prompt::from_value(json!({"name": "bare"})).unwrap();
        assert!(p.arguments.is_empty());
        assert_eq!(p.display_name(), "bare");
        let err = PromptArgument::from_value(json!({"required": true})).unwrap_err();
        assert_eq!(err.to_string(), "invalid PromptArgument: missing field `name`");
    }

    #[test]
    fn get_prompt_example() {
        let r = GetPromptResult::from_value(serde_json::from_str(GET_PROMPT).unwrap()).unwrap();
        assert_eq!(r.description.as_deref(), Some("Code review prompt"));
        assert_eq!(r.messages.len(), 1);
        let m = &r.messages[0];
        assert_eq!(m.role, Role::User);
        assert!(m.content.as_text().unwrap().starts_with("Please review"));
        assert_eq!(m.raw()["role"], "user");
        assert_eq!(r.raw()["resultType"], "complete");
    }

    #[test]
    fn prompt_message_variants_and_errors() {
        let m = PromptMessage::from_value(json!({
            "role": "narrator",
            "content": {"type": "mystery"}
        }))
        .unwrap();
        assert_eq!(m.role, Role::Other("narrator".into()));
        assert!(matches!(m.content, ContentBlock::Unknown(_)));

        let err = PromptMessage::from_value(json!({"role": "user"})).unwrap_err();
        assert_eq!(err.to_string(), "invalid PromptMessage: missing field `content`");
        let err = GetPromptResult::from_value(json!({"description": "x"})).unwrap_err();
        assert_eq!(err.to_string(), "invalid GetPromptResult: missing field `messages`");
    }
}
