//! Where a decoded type keeps the JSON it came from: a [`Value`] already parsed, the JSON text
//! as received, or the whole line of a response decoded in one pass (with where in it the
//! value sits), parsed on the first `raw()`. A caller that never asks for the raw JSON never
//! pays for a tree of it.

use std::sync::{Arc, OnceLock};

use serde_json::value::RawValue;
use serde_json::Value;

/// The raw JSON of a decoded value (see the module docs). Equality, cloning and `Debug` are
/// those of the JSON value.
pub(crate) struct RawJson {
    /// Where the value comes from, when it has not been parsed yet.
    source: Source,
    /// The parsed value: set from the start, or on first use of `source`.
    value: OnceLock<Value>,
}

#[derive(Clone)]
enum Source {
    /// Parsed from the start.
    Parsed,
    /// The text as received.
    Text(Box<RawValue>),
    /// A member of a response line (valid JSON, decoded once already).
    Line(Arc<Vec<u8>>, LinePath),
}

/// Where a value sits in a response line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LinePath {
    /// The `result` member.
    Result,
    /// Block `n` of the result's `content`.
    ResultBlock(usize),
}

impl RawJson {
    /// The JSON text as received (valid JSON: serde_json checked it while capturing it).
    pub(crate) fn from_text(text: Box<RawValue>) -> Self {
        Self { source: Source::Text(text), value: OnceLock::new() }
    }

    /// The value at `path` in a response line that decoded as JSON.
    pub(crate) fn from_line(line: Arc<Vec<u8>>, path: LinePath) -> Self {
        Self { source: Source::Line(line, path), value: OnceLock::new() }
    }

    /// The JSON value.
    pub(crate) fn get(&self) -> &Value {
        self.value.get_or_init(|| parse(&self.source))
    }

    /// The JSON value, by value.
    pub(crate) fn into_value(self) -> Value {
        let Self { source, value } = self;
        value.into_inner().unwrap_or_else(|| parse(&source))
    }
}

/// Parses the source; it was checked as JSON when captured, so `Null` never shows.
fn parse(source: &Source) -> Value {
    match source {
        Source::Parsed => Value::Null,
        Source::Text(text) => serde_json::from_str(text.get()).unwrap_or(Value::Null),
        Source::Line(line, path) => {
            let Ok(mut message) = serde_json::from_slice::<Value>(line) else { return Value::Null };
            let result = message.get_mut("result").map(Value::take);
            let value = match path {
                LinePath::Result => result,
                LinePath::ResultBlock(n) => result
                    .and_then(|mut r| r.get_mut("content").map(Value::take))
                    .and_then(|mut c| c.get_mut(*n).map(Value::take)),
            };
            value.unwrap_or(Value::Null)
        }
    }
}

impl From<Value> for RawJson {
    fn from(value: Value) -> Self {
        Self { source: Source::Parsed, value: OnceLock::from(value) }
    }
}

impl Clone for RawJson {
    fn clone(&self) -> Self {
        match self.value.get() {
            Some(v) => Self::from(v.clone()),
            None => Self { source: self.source.clone(), value: OnceLock::new() },
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

    #[test]
    fn a_line_member_parses_on_first_use() {
        let line = Arc::new(br#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"a"},{"type":"text","text":"b","x":1}]}}"#.to_vec());
        let result = RawJson::from_line(line.clone(), LinePath::Result);
        let second = RawJson::from_line(line, LinePath::ResultBlock(1));
        assert_eq!(second.clone().into_value(), json!({"type": "text", "text": "b", "x": 1}));
        assert_eq!(second.get(), &json!({"type": "text", "text": "b", "x": 1}));
        assert_eq!(result.get()["content"][0], json!({"type": "text", "text": "a"}));
        assert_eq!(format!("{result:?}"), format!("{:?}", result.get()));
    }
}
