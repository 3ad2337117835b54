//! The result of a tool call (`tools/call`).

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use std::sync::Arc;

use super::content::LineTextBlock;
use super::raw_json::LinePath;
use super::{de_present, decode_wire, json_kind, raw_json_impls, ContentBlock, DecodeError, Meta, RawJson};
use crate::jsonrpc::{decode_answer, WireId};

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
    raw: RawJson,
}

/// The members of a result, its blocks decoded as `B`: [`ContentBlock`] from a parsed value,
/// [`TextBlock`] from JSON text.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", bound = "B: Deserialize<'de>")]
struct CallToolResultWire<B> {
    #[serde(default)]
    content: Option<Vec<B>>,
    #[serde(default, deserialize_with = "de_present")]
    structured_content: Option<Value>,
    #[serde(default)]
    is_error: Option<bool>,
    #[serde(default, rename = "_meta")]
    meta: Option<Meta>,
    /// What tells a complete result apart (read by the direct decode only).
    #[serde(default, deserialize_with = "de_present")]
    result_type: Option<Value>,
    #[serde(default, deserialize_with = "de_present")]
    task: Option<Value>,
}

/// A content block decoded from its JSON text ([`ContentBlock::from_json_text`]).
struct TextBlock(ContentBlock);

impl<'de> Deserialize<'de> for TextBlock {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = Box::<RawValue>::deserialize(d)?;
        ContentBlock::from_json_text(text).map(TextBlock).map_err(serde::de::Error::custom)
    }
}

impl CallToolResult {
    /// Decodes a `tools/call` result. A missing `content` is treated as empty.
    pub fn from_value(value: Value) -> Result<Self, DecodeError> {
        let w: CallToolResultWire<ContentBlock> = decode_wire("CallToolResult", &value)?;
        Ok(Self {
            content: w.content.unwrap_or_default(),
            structured_content: w.structured_content,
            is_error: w.is_error.unwrap_or(false),
            meta: w.meta,
            raw: value.into(),
        })
    }

    /// Decodes a complete result straight from its JSON text, keeping the text as its raw
    /// JSON (no tree of the whole result is built unless [`Self::raw`] asks for it).
    ///
    /// The text comes back as the error when the direct decode does not apply, and the caller
    /// then decodes the parsed value as usual: the text is not an object, repeats a member,
    /// says a `resultType` other than `"complete"`, carries a `task` (a task was created
    /// instead), or fails to decode (so errors read the same on both paths).
    pub(crate) fn from_complete_text(text: Box<RawValue>) -> Result<Self, Box<RawValue>> {
        let Ok(w) = serde_json::from_str::<CallToolResultWire<TextBlock>>(text.get()) else {
            return Err(text);
        };
        if w.task.is_some() || w.result_type.is_some_and(|t| t != "complete") {
            return Err(text);
        }
        let content = match w.content {
            Some(blocks) => blocks.into_iter().map(|b| b.0).collect(),
            None => Vec::new(),
        };
        Ok(Self {
            content,
            structured_content: w.structured_content,
            is_error: w.is_error.unwrap_or(false),
            meta: w.meta,
            raw: RawJson::from_text(text),
        })
    }

    /// Decodes a complete result in one pass from the response line that carries it, when the
    /// line names its id before its result and `wanted` takes that id; the result and its
    /// blocks keep their place in the line as their raw JSON. Only text blocks are decoded
    /// this way. Anything else gives the line back for the general path (see
    /// [`Self::from_complete_text`], whose rules this follows), so both paths accept and refuse
    /// the same answers alike.
    pub(crate) fn from_answer_line(
        line: Vec<u8>,
        wanted: &dyn Fn(&WireId) -> bool,
    ) -> Result<(WireId, Self), Vec<u8>> {
        let Some((id, w)) = decode_answer::<CallToolResultWire<LineTextBlock>>(&line, wanted) else {
            return Err(line);
        };
        if w.task.is_some() || w.result_type.as_ref().is_some_and(|t| t != "complete") {
            return Err(line);
        }
        let line = Arc::new(line);
        let content = w.content.unwrap_or_default().into_iter().enumerate();
        let content =
            content.map(|(n, b)| b.into_block(RawJson::from_line(line.clone(), LinePath::ResultBlock(n))));
        let result = Self {
            content: content.collect(),
            structured_content: w.structured_content,
            is_error: w.is_error.unwrap_or(false),
            meta: w.meta,
            raw: RawJson::from_line(line, LinePath::Result),
        };
        Ok((id, result))
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

    /// The structured content decoded as `T` (any `serde::Deserialize` type): a
    /// [`DecodeError`] naming what is wrong when it is absent or does not fit `T`.
    ///
    /// ```
    /// # use mcpwire_core::types::CallToolResult;
    /// #[derive(serde::Deserialize)]
    /// struct Forecast { city: String, high: f64 }
    /// let result = CallToolResult::from_value(serde_json::json!({
    ///     "content": [], "structuredContent": {"city": "Oslo", "high": 7.5}
    /// })).unwrap();
    /// let forecast: Forecast = result.structured_as().unwrap();
    /// assert_eq!((forecast.city.as_str(), forecast.high), ("Oslo", 7.5));
    /// assert!(result.structured_as::<Vec<u8>>().is_err());
    /// ```
    pub fn structured_as<T: serde::de::DeserializeOwned>(&self) -> Result<T, DecodeError> {
        let what = std::any::type_name::<T>();
        let value = self
            .structured_content
            .as_ref()
            .ok_or_else(|| DecodeError::new("structuredContent", format!("absent (expected {what})")))?;
        T::deserialize(value).map_err(|e| DecodeError::new("structuredContent", format!("not a {what}: {e}")))
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

    fn text(s: &str) -> Box<RawValue> {
        serde_json::from_str(s).unwrap()
    }

    /// Decoded straight from the text, a complete result equals the one decoded from its
    /// parsed value, raw JSON included.
    #[test]
    fn from_text_matches_from_value() {
        let cases = [
            RESULT_STRUCTURED,
            RESULT_ARRAY,
            RESULT_ERROR,
            r#"{}"#,
            r#"{"content": null, "isError": null, "structuredContent": null}"#,
            r#"{"content": [{"type": "text", "text": "a\nb \u00e9", "annotations": {"priority": 0.5}, "_meta": {"k": 1}}]}"#,
            r#"{"content": [{"type": "image", "data": "aGk=", "mimeType": "image/png"}, {"type": "text", "text": "x", "extra": [1]}]}"#,
            r#"{"content": [{"type": "future", "payload": 1}], "_meta": {"progressToken": 3}, "x-vendor": true}"#,
            r#"{"resultType": "complete", "content": [], "structuredContent": 1.5e300}"#,
            // A block that repeats a member is decoded from its parsed value (the last wins).
            r#"{"content": [{"type": "text", "text": "a", "text": "b"}]}"#,
        ];
        for case in cases {
            let fast =
                CallToolResult::from_complete_text(text(case)).unwrap_or_else(|_| panic!("direct: {case}"));
            let slow = CallToolResult::from_value(parse(case)).unwrap();
            assert_eq!(fast, slow, "{case}");
            assert_eq!(fast.raw(), &parse(case), "{case}");
            assert_eq!(format!("{fast:?}"), format!("{slow:?}"), "{case}");
            assert_eq!(fast.clone().into_raw(), parse(case), "{case}");
        }
    }

    fn answer_line(id: u64, result: &str) -> Vec<u8> {
        format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#).into_bytes()
    }

    /// Decoded in one pass from its response line, a complete result equals the one decoded
    /// from its parsed value, its raw JSON and its blocks' included.
    #[test]
    fn from_answer_line_matches_from_value() {
        let cases = [
            RESULT_ERROR,
            r#"{}"#,
            r#"{"content": [], "isError": true, "resultType": "complete"}"#,
            r#"{"content": null, "isError": null, "structuredContent": null}"#,
            r#"{"content": [{"type": "text", "text": "a\nb \u00e9", "annotations": {"priority": 0.5}, "_meta": {"k": 1}}]}"#,
            r#"{"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b", "extra": [1]}],
                "structuredContent": {"k": [1, 2.5]}, "_meta": {"m": null}, "x-vendor": true}"#,
        ];
        for (n, case) in (0u64..).zip(cases) {
            let wanted = |id: &WireId| id.as_int() == Some(n);
            let (id, fast) = CallToolResult::from_answer_line(answer_line(n, case), &wanted)
                .unwrap_or_else(|_| panic!("one pass: {case}"));
            assert_eq!(id, WireId::from_int(n));
            let slow = CallToolResult::from_value(parse(case)).unwrap();
            assert_eq!(fast, slow, "{case}");
            assert_eq!(fast.raw(), &parse(case), "{case}");
            assert_eq!(format!("{fast:?}"), format!("{slow:?}"), "{case}");
            for (block, expected) in
                fast.content.iter().zip(parse(case)["content"].as_array().into_iter().flatten())
            {
                let ContentBlock::Text(text) = block else { panic!("a text block: {case}") };
                assert_eq!(text.raw(), expected, "{case}");
            }
            assert_eq!(fast.clone().into_raw(), parse(case), "{case}");
        }
    }

    /// What the one-pass decode gives back, unchanged, for the general path.
    #[test]
    fn from_answer_line_leaves_the_rest_to_the_general_path() {
        let cases = [
            r#"{"jsonrpc":"2.0","id":7,"result":{"content":[]}}"#, // an id it was not asked for
            r#"{"result":{"content":[]},"id":1,"jsonrpc":"2.0"}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{},"x":1}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"id":1,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{},"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":null,"result":{}}"#,
            r#"{"jsonrpc":"2.0","\u0069d":1,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"image","data":"aGk=","mimeType":"image/png"}]}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"a","text":"b"}]}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[],"content":[]}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":"nope"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"task","task":{"taskId":"t"}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":null}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"task":null,"content":[]}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{}} x"#,
            r#"[{"jsonrpc":"2.0","id":1,"result":{}}]"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{}"#,
        ];
        for case in cases {
            let wanted = |id: &WireId| id.as_int() == Some(1);
            let back = CallToolResult::from_answer_line(case.as_bytes().to_vec(), &wanted).expect_err(case);
            assert_eq!(back, case.as_bytes(), "the line comes back as it was");
        }
    }

    /// What the direct decode leaves to the general path: not a complete result, a repeated
    /// member, or a result the general path refuses (with its own error).
    #[test]
    fn from_text_leaves_the_rest_to_the_general_path() {
        let cases = [
            r#"{"resultType": "task", "task": {"taskId": "t"}}"#,
            r#"{"resultType": "input_required", "inputRequests": {}}"#,
            r#"{"resultType": null, "content": []}"#,
            r#"{"resultType": 7}"#,
            r#"{"task": {"taskId": "t", "status": "working"}}"#,
            r#"{"task": null, "content": []}"#,
            r#"{"content": [], "content": [{"type": "text", "text": "last"}]}"#,
            r#"{"content": [{"type": "text"}]}"#,
            r#"{"content": "nope"}"#,
            r#"{"isError": "yes"}"#,
            r#"[1]"#,
            r#"null"#,
        ];
        for case in cases {
            let back = CallToolResult::from_complete_text(text(case)).expect_err(case);
            assert_eq!(back.get(), case, "the text comes back as it was");
        }
    }
}
