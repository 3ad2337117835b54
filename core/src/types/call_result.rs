//! The result of a tool call (`tools/call`).

use serde::Deserialize;
use serde_json::Value;

use super::{de_present, decode_wire, json_kind, raw_json_impls, ContentBlock, DecodeError, Meta};

/// The result of `tools/call`.
#[derive(Debug, Clone, PartialEq)]
pub struct CallToolResult {
    /// Unstructured content blocks (empty if the server omitted `content`).
    pub content: Vec<ContentBlock>,
    /// `structuredContent` exactly as sent: `None` if absent, `Some(Value::Null)`
    /// for an explicit `null`. See [`Self::structured_content_for`].
    pub structured_content: Option<Value>,
    /// Whether the tool reported an error (`isError`, default `false`).
    pub is_error: bool,
    /// The `_meta` object.
    pub meta: Option<Meta>,
    raw: Value,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CallToolResultWire {
    #[serde(default)]
    content: Option<Vec<ContentBlock>>,
    #[serde(default, deserialize_with = "de_present")]
    structured_content: Option<Value>,
    #[serde(default)]
    is_error: Option<bool>,
    #[serde(default, rename = "_meta")]
    meta: Option<Meta>,
}

impl CallToolResult {
    /// Decodes a `tools/call` result. A missing `content` is treated as empty.
    pub fn from_value(value: Value) -> Result<Self, DecodeError> {
        let w: CallToolResultWire = decode_wire("CallToolResult", &value)?;
        Ok(Self {
            content: w.content.unwrap_or_default(),
            structured_content: w.structured_content,
            is_error: w.is_error.unwrap_or(false),
            meta: w.meta,
            raw: value,
        })
    }

    /// The text of all text blocks, joined with `"\n"`.
    pub fn text(&self) -> String {
        self.content.iter().filter_map(ContentBlock::as_text).collect::<Vec<_>>().join("\n")
    }

    /// The structured content as the negotiated revision defines it.
    ///
    /// From 2026-07-28 (`revision_is_modern`) any JSON value counts, including
    /// an explicit `null`; earlier revisions only allow an object, so anything
    /// else is ignored there.
    pub fn structured_content_for(&self, revision_is_modern: bool) -> Option<&Value> {
        let sc = self.structured_content.as_ref()?;
        if revision_is_modern || sc.is_object() {
            Some(sc)
        } else {
            None
        }
    }

    /// Describes the JSON type of `structuredContent` (`"absent"` if missing),
    /// for diagnostics.
    pub fn structured_content_kind(&self) -> &'static str {
        self.structured_content.as_ref().map_or("absent", json_kind)
    }
}

raw_json_impls!(CallToolResult);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    // examples/CallToolResult/result-with-structured-content.json
    const RESULT_STRUCTURED: &str = r#"{
      "resultType": "complete",
      "content": [
        {
          "type": "text",
          "text": "{\"temperature\": 22.5, \"conditions\": \"Partly cloudy\", \"humidity\": 65}"
        }
      ],
      "structuredContent": { "temperature": 22.5, "conditions": "Partly cloudy", "humidity": 65 }
    }"#;

    // examples/CallToolResult/result-with-array-structured-content.json
    const RESULT_ARRAY: &str = r#"{
      "resultType": "complete",
      "content": [
        { "type": "text", "text": "Found 2 users: Alice (alice@example.com) and Bob (bob@example.com)." }
      ],
      "structuredContent": [
        { "id": "1", "name": "Alice", "email": "alice@example.com" },
        { "id": "2", "name": "Bob", "email": "bob@example.com" }
      ]
    }"#;

    // examples/CallToolResult/invalid-tool-input-error.json
    const RESULT_ERROR: &str = r#"{
      "resultType": "complete",
      "content": [
        {
          "type": "text",
          "text": "Invalid departure date: must be in the future. Current date is 08/08/2025."
        }
      ],
      "isError": true
    }"#;

    fn parse(s: &str) -> Value {
        serde_json::from_str(s).unwrap()
    }

    #[test]
    fn call_result_structured_example() {
        let r = CallToolResult::from_value(parse(RESULT_STRUCTURED)).unwrap();
        assert!(!r.is_error);
        assert!(r.text().contains("Partly cloudy"));
        let sc = r.structured_content.as_ref().unwrap();
        assert_eq!(sc["humidity"], 65);
        assert_eq!(r.structured_content_for(true), Some(sc));
        assert_eq!(r.structured_content_for(false), Some(sc));
        assert_eq!(r.raw()["resultType"], "complete");
    }

    #[test]
    fn structured_content_rule_by_era() {
        let r = CallToolResult::from_value(parse(RESULT_ARRAY)).unwrap();
        assert_eq!(r.structured_content_kind(), "an array");
        assert!(r.structured_content_for(true).unwrap().is_array());
        assert_eq!(r.structured_content_for(false), None);

        let null = CallToolResult::from_value(json!({"content": [], "structuredContent": null})).unwrap();
        assert_eq!(null.structured_content, Some(Value::Null));
        assert_eq!(null.structured_content_for(true), Some(&Value::Null));
        assert_eq!(null.structured_content_for(false), None);

        let absent = CallToolResult::from_value(json!({"content": []})).unwrap();
        assert_eq!(absent.structured_content, None);
        assert_eq!(absent.structured_content_kind(), "absent");
        assert_eq!(absent.structured_content_for(true), None);
        assert_eq!(absent.structured_content_for(false), None);

        let scalar = CallToolResult::from_value(json!({"content": [], "structuredContent": 42})).unwrap();
        assert_eq!(scalar.structured_content_for(true), Some(&json!(42)));
        assert_eq!(scalar.structured_content_for(false), None);
    }

    #[test]
    fn call_result_error_and_text_join() {
        let r = CallToolResult::from_value(parse(RESULT_ERROR)).unwrap();
        assert!(r.is_error);
        assert!(r.text().starts_with("Invalid departure date"));

        let multi = CallToolResult::from_value(json!({
            "content": [
                {"type": "text", "text": "a"},
                {"type": "image", "data": "AA==", "mimeType": "image/png"},
                {"type": "future", "x": 1},
                {"type": "text", "text": "b"}
            ]
        }))
        .unwrap();
        assert_eq!(multi.text(), "a\nb");
        assert!(matches!(multi.content[2], ContentBlock::Unknown(_)));
    }

    #[test]
    fn call_result_defaults_and_errors() {
        let r = CallToolResult::from_value(json!({"isError": null})).unwrap();
        assert!(r.content.is_empty());
        assert!(!r.is_error);
        assert_eq!(r.text(), "");
        let err = CallToolResult::from_value(json!({"content": [{"type": "text"}]})).unwrap_err();
        assert_eq!(err.what, "CallToolResult");
        assert!(err.detail.contains("invalid TextContent: missing field `text`"), "{err}");
        let err = CallToolResult::from_value(json!({"content": "nope"})).unwrap_err();
        assert_eq!(err.what, "CallToolResult");
    }
}
