//! Argument autocompletion (`completion/complete`).

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::{de_opt_u64, decode_wire, raw_json_impls, DecodeError, Meta};

/// The result of `completion/complete` (the wire's `completion` object).
#[derive(Debug, Clone, PartialEq)]
pub struct CompleteResult {
    /// Suggested values (at most 100 per the spec).
    pub values: Vec<String>,
    /// Total number of options available, which may exceed `values.len()`.
    pub total: Option<u64>,
    /// Whether more options exist beyond those returned (`hasMore`).
    pub has_more: Option<bool>,
    /// The result's `_meta` object.
    pub meta: Option<Meta>,
    raw: Value,
}

#[derive(Deserialize)]
struct CompleteResultWire {
    completion: CompletionWire,
    #[serde(default, rename = "_meta")]
    meta: Option<Meta>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CompletionWire {
    values: Vec<String>,
    #[serde(default, deserialize_with = "de_opt_u64")]
    total: Option<u64>,
    #[serde(default)]
    has_more: Option<bool>,
}

impl CompleteResult {
    /// Decodes a `completion/complete` result (`{"completion": {...}}`).
    pub fn from_value(value: Value) -> Result<Self, DecodeError> {
        let w: CompleteResultWire = decode_wire("CompleteResult", &value)?;
        Ok(Self {
            values: w.completion.values,
            total: w.completion.total,
            has_more: w.completion.has_more,
            meta: w.meta,
            raw: value,
        })
    }
}

raw_json_impls!(CompleteResult);

/// What a completion request refers to (the `ref` parameter).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum CompletionReference {
    /// A prompt, by name (`"type": "ref/prompt"`).
    Prompt {
        /// The prompt name.
        name: String,
    },
    /// A resource or resource template, by URI (`"type": "ref/resource"`).
    Resource {
        /// The resource URI or URI template.
        uri: String,
    },
}

impl CompletionReference {
    /// A reference to the prompt `name`.
    pub fn prompt(name: impl Into<String>) -> Self {
        CompletionReference::Prompt { name: name.into() }
    }

    /// A reference to the resource (template) `uri`.
    pub fn resource(uri: impl Into<String>) -> Self {
        CompletionReference::Resource { uri: uri.into() }
    }

    /// Encodes the reference as its wire object.
    pub fn to_value(&self) -> Value {
        match self {
            CompletionReference::Prompt { name } => json!({"type": "ref/prompt", "name": name}),
            CompletionReference::Resource { uri } => json!({"type": "ref/resource", "uri": uri}),
        }
    }
}

/// Builder for `completion/complete` request params (without `_meta`, which
/// the request layer adds).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompleteParams {
    /// The prompt or resource the argument belongs to.
    pub reference: CompletionReference,
    /// Name of the argument being completed.
    pub argument_name: String,
    /// Current (partial) value of the argument.
    pub argument_value: String,
    /// Previously resolved arguments (`context.arguments`); omitted if empty.
    pub context_arguments: BTreeMap<String, String>,
}

impl CompleteParams {
    /// Params completing `argument_name` (currently `argument_value`) of `reference`.
    pub fn new(
        reference: CompletionReference,
        argument_name: impl Into<String>,
        argument_value: impl Into<String>,
    ) -> Self {
        Self {
            reference,
            argument_name: argument_name.into(),
            argument_value: argument_value.into(),
            context_arguments: BTreeMap::new(),
        }
    }

    /// Adds a previously resolved argument to the completion context.
    pub fn with_context_argument(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.context_arguments.insert(name.into(), value.into());
        self
    }

    /// Encodes the params object.
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("ref".into(), self.reference.to_value());
        m.insert("argument".into(), json!({"name": self.argument_name, "value": self.argument_value}));
        if !self.context_arguments.is_empty() {
            m.insert("context".into(), json!({"arguments": self.context_arguments}));
        }
        Value::Object(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // examples/CompleteResult/multiple-completion-values-with-more-available.json
    const MULTIPLE: &str = r#"{
      "resultType": "complete",
      "completion": {
        "values": ["python", "pytorch", "pyside"],
        "total": 10,
        "hasMore": true
      }
    }"#;

    // examples/CompleteResult/single-completion-value.json
    const SINGLE: &str = r#"{
      "resultType": "complete",
      "completion": { "values": ["flask"], "total": 1, "hasMore": false }
    }"#;

    #[test]
    fn complete_result_examples() {
        let v: Value = serde_json::from_str(MULTIPLE).unwrap();
        let r = CompleteResult::from_value(v.clone()).unwrap();
        assert_eq!(r.values, vec!["python", "pytorch", "pyside"]);
        assert_eq!(r.total, Some(10));
        assert_eq!(r.has_more, Some(true));
        assert_eq!(r.raw(), &v);

        let r = CompleteResult::from_value(serde_json::from_str(SINGLE).unwrap()).unwrap();
        assert_eq!(r.values, vec!["flask"]);
        assert_eq!(r.has_more, Some(false));
    }

    #[test]
    fn complete_result_minimal_and_errors() {
        let r = CompleteResult::from_value(json!({"completion": {"values": []}})).unwrap();
        assert!(r.values.is_empty());
        assert_eq!((r.total, r.has_more), (None, None));
        let err = CompleteResult::from_value(json!({})).unwrap_err();
        assert_eq!(err.to_string(), "invalid CompleteResult: missing field `completion`");
        let err = CompleteResult::from_value(json!({"completion": {}})).unwrap_err();
        assert_eq!(err.to_string(), "invalid CompleteResult: missing field `values`");
    }

    #[test]
    fn reference_to_value() {
        assert_eq!(
            CompletionReference::prompt("code_review").to_value(),
            json!({"type": "ref/prompt", "name": "code_review"})
        );
        assert_eq!(
            CompletionReference::resource("file:///{path}").to_value(),
            json!({"type": "ref/resource", "uri": "file:///{path}"})
        );
    }

    #[test]
    fn params_match_spec_example() {
        // examples/CompleteRequestParams/prompt-argument-completion-with-context.json, minus `_meta`.
        let expected = json!({
            "ref": {"type": "ref/prompt", "name": "code_review"},
            "argument": {"name": "framework", "value": "fla"},
            "context": {"arguments": {"language": "python"}}
        });
        let p = CompleteParams::new(CompletionReference::prompt("code_review"), "framework", "fla")
            .with_context_argument("language", "python");
        assert_eq!(p.to_value(), expected);

        let bare = CompleteParams::new(CompletionReference::prompt("code_review"), "language", "py");
        assert_eq!(
            bare.to_value(),
            json!({
                "ref": {"type": "ref/prompt", "name": "code_review"},
                "argument": {"name": "language", "value": "py"}
            })
        );
    }
}
