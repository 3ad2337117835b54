//! Where a decoded type keeps the JSON it came from: a [`Value`] already parsed, or the JSON
//! text as received, parsed on the first `raw()`. A tool result decoded straight from the
//! response's bytes keeps the text (one copy), so a caller that never asks for the raw JSON
//! never pays for a second tree of it.

use std::sync::OnceLock;

use serde_json::value::RawValue;
use serde_json::Value;

/// The raw JSON of a decoded value (see the module docs). Equality, cloning and `Debug` are
/// those of the JSON value.
pub(crate) struct RawJson {
    /// The text as received, when decoded from it.
    text: Option<Box<RawValue>>,
    /// The parsed value: set from the start, or on first use of `text`.
    value: OnceLock<Value>,
}

impl RawJson {
    /// The JSON text as received (valid JSON: serde_json checked it while capturing it).
    pub(crate) fn from_text(text: Box<RawValue>) -> Self {
        Self { text: Some(text), value: OnceLock::new() }
    }

    /// The JSON value.
    pub(crate) fn get(&self) -> &Value {
        self.value.get_or_init(|| parse(self.text.as_deref()))
    }

    /// The JSON value, by value.
    pub(crate) fn into_value(self) -> Value {
        let Self { text, value } = self;
        value.into_inner().unwrap_or_else(|| parse(text.as_deref()))
    }
}

/// Parses captured text; it was checked as JSON when captured, so `Null` never shows.
fn parse(text: Option<&RawValue>) -> Value {
    text.and_then(|t| serde_json::from_str(t.get()).ok()).unwrap_or(Value::Null)
}

impl From<Value> for RawJson {
    fn from(value: Value) -> Self {
        Self { text: None, value: OnceLock::from(value) }
    }
}

impl Clone for RawJson {
    fn clone(&self) -> Self {
        match self.value.get() {
            Some(v) => Self::from(v.clone()),
            None => Self { text: self.text.clone(), value: OnceLock::new() },
        }
    }
}

impl PartialEq for RawJson {
    fn eq(&self, other: &Self) -> bool {
        self.get() == other.get()
    }
}

impl std::fmt::Debug for RawJson {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.get().fmt(f)
    }
}

/// A type's `raw` field: a [`Value`] or a [`RawJson`] (what `raw_json_impls!` reads).
pub(crate) trait RawField {
    /// The JSON value.
    fn json(&self) -> &Value;
    /// The JSON value, by value.
    fn into_json(self) -> Value;
}

impl RawField for Value {
    fn json(&self) -> &Value {
        self
    }

    fn into_json(self) -> Value {
        self
    }
}

impl RawField for RawJson {
    fn json(&self) -> &Value {
        self.get()
    }

    fn into_json(self) -> Value {
        self.into_value()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text(s: &str) -> RawJson {
        RawJson::from_text(serde_json::from_str(s).expect("valid JSON"))
    }

    #[test]
    fn text_parses_on_first_use_and_compares_as_json() {
        let raw = text(r#"{ "b": [1, 2.5], "a": "x" }"#);
        assert_eq!(raw.get(), &json!({"a": "x", "b": [1, 2.5]}));
        assert_eq!(raw, RawJson::from(json!({"b": [1, 2.5], "a": "x"})));
        assert_eq!(text("null").clone().into_value(), Value::Null);
        assert_eq!(format!("{:?}", text("[true]")), format!("{:?}", json!([true])));
        let unparsed = text(r#"{"k": 1}"#);
        assert_eq!(unparsed.clone().into_value(), json!({"k": 1}));
        assert_eq!(unparsed.into_value(), json!({"k": 1}));
    }
}
