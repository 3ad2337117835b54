//! Elicitation forms: the `requestedSchema` of a form-mode `elicitation/create` is a flat object
//! of primitive fields (strings with an optional `email`/`uri`/`date`/`date-time` format, numbers,
//! integers, booleans, single- and multi-select enums). [`FormSchema::parse`] checks that shape;
//! [`FormSchema::check_content`] checks the user's answer before it goes back to the server.
//!
//! The checks are written for these forms (no JSON Schema engine: they work without the
//! `schema` feature). An answer carries only the form's fields, every `required` one, each of
//! the field's `type`; the form keywords are asserted: `enum`, the `const`s of `oneOf` (single
//! select) and of `items.anyOf` or the `items.enum` (multi select), `minLength`/`maxLength`
//! (in characters), `minimum`/`maximum`, `minItems`/`maxItems`, and the four formats. Other
//! keywords (`title`, `description`, `default`, `enumNames`, anything else) are not checked.
//!
//! ```
//! use mcpwire_core::schema::elicitation::FormSchema;
//! use serde_json::json;
//!
//! let form = FormSchema::parse(&json!({
//!     "type": "object",
//!     "properties": {"email": {"type": "string", "format": "email"}},
//!     "required": ["email"]
//! })).unwrap();
//! assert!(form.check_content(&json!({"email": "ada@example.com"})).is_ok());
//! assert!(form.check_content(&json!({"email": "not an address"})).is_err());
//! ```

mod formats;

use std::cmp::Ordering;
use std::collections::BTreeMap;

use serde_json::{Map, Number, Value};

use crate::types::json_kind as kind;

/// The string formats a form field may declare.
pub const FORM_FORMATS: [&str; 4] = ["email", "uri", "date", "date-time"];

/// Problems listed in one [`ElicitationError::InvalidAnswer`] (the count of the others follows).
const MAX_LISTED: usize = 8;

/// Why an elicitation schema or answer is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ElicitationError {
    /// The server's `requestedSchema` is not a flat form of primitive fields.
    #[error("invalid requestedSchema: {detail}")]
    InvalidSchema {
        /// What is wrong.
        detail: String,
    },
    /// The answer's `content` does not match the requested schema; nothing was sent.
    #[error("the elicitation answer does not match the requested schema: {detail}")]
    InvalidAnswer {
        /// What is wrong.
        detail: String,
    },
}

/// A checked form schema, ready to validate answers.
#[derive(Debug, Clone)]
pub struct FormSchema {
    fields: BTreeMap<String, Field>,
    required: Vec<String>,
}

/// One field of a form, with the keywords that constrain its value.
#[derive(Debug, Clone)]
enum Field {
    Text {
        min_length: Option<u64>,
        max_length: Option<u64>,
        format: Option<Format>,
        /// `enum`: the value is one of these.
        allowed: Option<Vec<String>>,
        /// `oneOf` of `const`s: the value equals exactly one of these.
        one_of: Option<Vec<String>>,
    },
    Number {
        integer: bool,
        minimum: Option<Number>,
        maximum: Option<Number>,
    },
    Boolean,
    /// An array of strings, each one of `options`.
    MultiSelect {
        options: Vec<String>,
        min_items: Option<u64>,
        max_items: Option<u64>,
    },
}

#[derive(Debug, Clone, Copy)]
enum Format {
    Email,
    Uri,
    Date,
    DateTime,
}

fn schema_error(detail: impl Into<String>) -> ElicitationError {
    ElicitationError::InvalidSchema { detail: detail.into() }
}

impl FormSchema {
    /// Checks the shape of a form-mode `requestedSchema`.
    pub fn parse(requested: &Value) -> Result<FormSchema, ElicitationError> {
        let Value::Object(root) = requested else {
            return Err(schema_error(format!("it must be an object, not {}", kind(requested))));
        };
        if root.get("type").and_then(Value::as_str) != Some("object") {
            return Err(schema_error("its type must be \"object\""));
        }
        let properties = match root.get("properties") {
            Some(Value::Object(p)) => p,
            None => return Err(schema_error("it has no properties")),
            Some(other) => {
                return Err(schema_error(format!("properties must be an object, not {}", kind(other))))
            }
        };
        let mut fields = BTreeMap::new();
        for (name, field) in properties {
            let field =
                parse_field(field).map_err(|detail| schema_error(format!("field {name:?}: {detail}")))?;
            fields.insert(name.clone(), field);
        }
        let mut required = Vec::new();
        match root.get("required") {
            None => {}
            Some(Value::Array(names)) => {
                for name in names {
                    match name.as_str() {
                        Some(n) if properties.contains_key(n) => required.push(n.to_owned()),
                        Some(n) => {
                            return Err(schema_error(format!("required field {n:?} is not a property")))
                        }
                        None => return Err(schema_error("required must list field names")),
                    }
                }
            }
            Some(other) => {
                return Err(schema_error(format!("required must be an array, not {}", kind(other))))
            }
        }
        Ok(FormSchema { fields, required })
    }

    /// Checks an answer's `content` (an object of field values).
    pub fn check_content(&self, content: &Value) -> Result<(), ElicitationError> {
        let Value::Object(answer) = content else {
            return Err(ElicitationError::InvalidAnswer {
                detail: format!("the content must be an object, not {}", kind(content)),
            });
        };
        let mut problems = Vec::new();
        for name in &self.required {
            if !answer.contains_key(name) {
                problems.push(format!("{}: the field is required", pointer(name)));
            }
        }
        for (name, value) in answer {
            match self.fields.get(name) {
                None => problems.push(format!("{}: the form has no such field", pointer(name))),
                Some(field) => {
                    if let Err(problem) = field.check(value) {
                        problems.push(format!("{}: {problem}", pointer(name)));
                    }
                }
            }
        }
        if problems.is_empty() {
            return Ok(());
        }
        let more = problems.len().saturating_sub(MAX_LISTED);
        problems.truncate(MAX_LISTED);
        let mut detail = problems.join("; ");
        if more > 0 {
            detail.push_str(&format!("; and {more} more"));
        }
        Err(ElicitationError::InvalidAnswer { detail })
    }

    /// Checks a whole `ElicitResult`: with `action: "accept"` its `content` must match the form;
    /// other actions carry no content to check.
    pub fn check_result(&self, result: &Value) -> Result<(), ElicitationError> {
        let invalid = |detail: &str| ElicitationError::InvalidAnswer { detail: detail.into() };
        match result.get("action").and_then(Value::as_str) {
            Some("accept") => self.check_content(result.get("content").unwrap_or(&Value::Object(Map::new()))),
            Some("decline" | "cancel") => Ok(()),
            Some(other) => Err(invalid(&format!("unknown action {:?}", crate::text::sanitize(other, 50)))),
            None => Err(invalid("the answer has no action")),
        }
    }
}

/// The form schema of elicitation params, when they ask for a form; `Ok(None)` for URL mode.
pub fn form_of(params: &Value) -> Result<Option<FormSchema>, ElicitationError> {
    match params.get("mode").and_then(Value::as_str) {
        Some("url") => Ok(None),
        None | Some("form") => match params.get("requestedSchema") {
            Some(schema) => FormSchema::parse(schema).map(Some),
            None => Err(schema_error("a form elicitation has no requestedSchema")),
        },
        Some(other) => {
            Err(schema_error(format!("unknown elicitation mode {:?}", crate::text::sanitize(other, 50))))
        }
    }
}

fn parse_field(field: &Value) -> Result<Field, String> {
    let Value::Object(f) = field else { return Err(format!("it must be an object, not {}", kind(field))) };
    match f.get("type").and_then(Value::as_str) {
        Some("string") => {
            let format = match f.get("format") {
                None => None,
                Some(format) => Some(match format.as_str() {
                    Some("email") => Format::Email,
                    Some("uri") => Format::Uri,
                    Some("date") => Format::Date,
                    Some("date-time") => Format::DateTime,
                    _ => return Err(format!("format must be one of {}", FORM_FORMATS.join(", "))),
                }),
            };
            Ok(Field::Text {
                min_length: count(f, "minLength")?,
                max_length: count(f, "maxLength")?,
                format,
                allowed: f.get("enum").map(|values| string_list(values, "enum")).transpose()?,
                one_of: f.get("oneOf").map(|options| const_options(options, "oneOf")).transpose()?,
            })
        }
        Some(kind @ ("number" | "integer")) => Ok(Field::Number {
            integer: kind == "integer",
            minimum: bound(f, "minimum")?,
            maximum: bound(f, "maximum")?,
        }),
        Some("boolean") => Ok(Field::Boolean),
        Some("array") => {
            let Some(Value::Object(items)) = f.get("items") else {
                return Err("a multi-select field needs an items object".into());
            };
            let options =
                match (items.get("enum"), items.get("anyOf"), items.get("type").and_then(Value::as_str)) {
                    (Some(values), None, Some("string")) => string_list(values, "items.enum")?,
                    (None, Some(options), None | Some("string")) => const_options(options, "items.anyOf")?,
                    _ => {
                        return Err("a multi-select field's items need a string enum or anyOf options".into())
                    }
                };
            Ok(Field::MultiSelect {
                options,
                min_items: count(f, "minItems")?,
                max_items: count(f, "maxItems")?,
            })
        }
        Some("object") => Err("nested objects are not allowed in a form".into()),
        Some(other) => Err(format!("unsupported type {:?}", crate::text::sanitize(other, 50))),
        None => Err("it has no type".into()),
    }
}

fn string_list(values: &Value, what: &str) -> Result<Vec<String>, String> {
    match values {
        Value::Array(items) if !items.is_empty() => items
            .iter()
            .map(|v| v.as_str().map(str::to_owned))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| format!("{what} must be a non-empty array of strings")),
        _ => Err(format!("{what} must be a non-empty array of strings")),
    }
}

fn const_options(options: &Value, what: &str) -> Result<Vec<String>, String> {
    let consts = match options {
        Value::Array(items) if !items.is_empty() => {
            items.iter().map(|o| o.get("const").and_then(Value::as_str).map(str::to_owned)).collect()
        }
        _ => None,
    };
    consts.ok_or_else(|| format!("{what} must be a non-empty array of {{\"const\": string}} options"))
}

/// A non-negative integer keyword (`minLength`, `maxItems`, ...), if present.
fn count(f: &Map<String, Value>, key: &str) -> Result<Option<u64>, String> {
    let Some(value) = f.get(key) else { return Ok(None) };
    let n = value.as_u64().or_else(|| {
        // JSON Schema counts 2.0 as an integer.
        value.as_f64().filter(|x| *x >= 0.0 && x.fract() == 0.0 && *x < u64::MAX as f64).map(|x| x as u64)
    });
    n.map(Some).ok_or_else(|| format!("{key} must be a non-negative integer"))
}

/// A numeric bound (`minimum`, `maximum`), if present.
fn bound(f: &Map<String, Value>, key: &str) -> Result<Option<Number>, String> {
    match f.get(key) {
        None => Ok(None),
        Some(Value::Number(n)) => Ok(Some(n.clone())),
        Some(_) => Err(format!("{key} must be a number")),
    }
}

/// `a` against `b`: exactly for two integers, as floats otherwise.
fn compare(a: &Number, b: &Number) -> Option<Ordering> {
    let int = |n: &Number| n.as_i64().map(i128::from).or_else(|| n.as_u64().map(i128::from));
    match (int(a), int(b)) {
        (Some(a), Some(b)) => Some(a.cmp(&b)),
        _ => a.as_f64()?.partial_cmp(&b.as_f64()?),
    }
}

/// A field name as a JSON Pointer, shortened for messages.
fn pointer(name: &str) -> String {
    crate::text::sanitize(&format!("/{}", name.replace('~', "~0").replace('/', "~1")), 60)
}

/// A string value quoted for messages.
fn quoted(text: &str) -> String {
    format!("\"{}\"", crate::text::sanitize(text, 50))
}

impl Field {
    fn check(&self, value: &Value) -> Result<(), String> {
        match self {
            Field::Text { min_length, max_length, format, allowed, one_of } => {
                let Value::String(text) = value else {
                    return Err(format!("expected a string, not {}", kind(value)));
                };
                let length = text.chars().count() as u64;
                if let Some(min) = min_length.filter(|&min| length < min) {
                    return Err(format!("{} is shorter than {min} characters", quoted(text)));
                }
                if let Some(max) = max_length.filter(|&max| length > max) {
                    return Err(format!("{} is longer than {max} characters", quoted(text)));
                }
                if let Some(format) = format {
                    let (ok, what) = match format {
                        Format::Email => (formats::is_email(text), "an email address"),
                        Format::Uri => (formats::is_uri(text), "a URI"),
                        Format::Date => (formats::is_date(text), "a date (YYYY-MM-DD)"),
                        Format::DateTime => (formats::is_date_time(text), "an RFC 3339 date-time"),
                    };
                    if !ok {
                        return Err(format!("{} is not {what}", quoted(text)));
                    }
                }
                if allowed.as_ref().is_some_and(|values| !values.contains(text)) {
                    return Err(format!("{} is not one of the choices", quoted(text)));
                }
                if one_of.as_ref().is_some_and(|options| options.iter().filter(|o| *o == text).count() != 1) {
                    return Err(format!("{} is not exactly one of the options", quoted(text)));
                }
                Ok(())
            }
            Field::Number { integer, minimum, maximum } => {
                let Value::Number(n) = value else {
                    return Err(format!("expected a number, not {}", kind(value)));
                };
                let whole = n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|x| x.fract() == 0.0);
                if *integer && !whole {
                    return Err(format!("{n} is not an integer"));
                }
                if let Some(min) = minimum.as_ref().filter(|min| compare(n, min) == Some(Ordering::Less)) {
                    return Err(format!("{n} is less than the minimum {min}"));
                }
                if let Some(max) = maximum.as_ref().filter(|max| compare(n, max) == Some(Ordering::Greater)) {
                    return Err(format!("{n} is more than the maximum {max}"));
                }
                Ok(())
            }
            Field::Boolean => match value {
                Value::Bool(_) => Ok(()),
                other => Err(format!("expected a boolean, not {}", kind(other))),
            },
            Field::MultiSelect { options, min_items, max_items } => {
                let Value::Array(picked) = value else {
                    return Err(format!("expected an array, not {}", kind(value)));
                };
                let len = picked.len() as u64;
                if let Some(min) = min_items.filter(|&min| len < min) {
                    return Err(format!("{len} choices, fewer than {min}"));
                }
                if let Some(max) = max_items.filter(|&max| len > max) {
                    return Err(format!("{len} choices, more than {max}"));
                }
                for (i, item) in picked.iter().enumerate() {
                    match item {
                        Value::String(s) if options.contains(s) => {}
                        Value::String(s) => {
                            return Err(format!("item {i}: {} is not one of the choices", quoted(s)))
                        }
                        other => return Err(format!("item {i}: expected a string, not {}", kind(other))),
                    }
                }
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests;
