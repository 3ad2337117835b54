//! Elicitation forms: the `requestedSchema` of a form-mode `elicitation/create` is a flat object
//! of primitive fields (strings with an optional `email`/`uri`/`date`/`date-time` format, numbers,
//! integers, booleans, single- and multi-select enums). [`FormSchema::parse`] checks that shape;
//! [`FormSchema::check_content`] checks the user's answer before it goes back to the server.
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

use serde_json::{Map, Value};

use super::{CompiledSchema, SchemaOptions};
use crate::types::json_kind as kind;

/// The string formats a form field may declare.
pub const FORM_FORMATS: [&str; 4] = ["email", "uri", "date", "date-time"];

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
    validator: CompiledSchema,
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
        for (name, field) in properties {
            check_field(field).map_err(|detail| schema_error(format!("field {name:?}: {detail}")))?;
        }
        match root.get("required") {
            None => {}
            Some(Value::Array(names)) => {
                for name in names {
                    match name.as_str() {
                        Some(n) if properties.contains_key(n) => {}
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
        // Answers carry only the form's fields.
        let mut strict = root.clone();
        strict.insert("additionalProperties".into(), Value::Bool(false));
        let validator = CompiledSchema::compile(&Value::Object(strict), &SchemaOptions::asserting_format())
            .map_err(|e| schema_error(e.to_string()))?;
        Ok(FormSchema { validator })
    }

    /// Checks an answer's `content` (an object of field values).
    pub fn check_content(&self, content: &Value) -> Result<(), ElicitationError> {
        self.validator
            .validate(content)
            .map_err(|e| ElicitationError::InvalidAnswer { detail: e.to_string() })
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

fn check_field(field: &Value) -> Result<(), String> {
    let Value::Object(f) = field else { return Err(format!("it must be an object, not {}", kind(field))) };
    match f.get("type").and_then(Value::as_str) {
        Some("string") => {
            if let Some(format) = f.get("format") {
                match format.as_str() {
                    Some(name) if FORM_FORMATS.contains(&name) => {}
                    _ => return Err(format!("format must be one of {}", FORM_FORMATS.join(", "))),
                }
            }
            if let Some(values) = f.get("enum") {
                string_list(values, "enum")?;
            }
            if let Some(options) = f.get("oneOf") {
                const_options(options, "oneOf")?;
            }
            Ok(())
        }
        Some("number" | "integer" | "boolean") => Ok(()),
        Some("array") => {
            let Some(Value::Object(items)) = f.get("items") else {
                return Err("a multi-select field needs an items object".into());
            };
            match (items.get("enum"), items.get("anyOf")) {
                (Some(values), None) if items.get("type").and_then(Value::as_str) == Some("string") => {
                    string_list(values, "items.enum")
                }
                (None, Some(options)) => const_options(options, "items.anyOf"),
                _ => Err("a multi-select field's items need a string enum or anyOf options".into()),
            }
        }
        Some("object") => Err("nested objects are not allowed in a form".into()),
        Some(other) => Err(format!("unsupported type {:?}", crate::text::sanitize(other, 50))),
        None => Err("it has no type".into()),
    }
}

fn string_list(values: &Value, what: &str) -> Result<(), String> {
    match values {
        Value::Array(items) if !items.is_empty() && items.iter().all(Value::is_string) => Ok(()),
        _ => Err(format!("{what} must be a non-empty array of strings")),
    }
}

fn const_options(options: &Value, what: &str) -> Result<(), String> {
    match options {
        Value::Array(items)
            if !items.is_empty() && items.iter().all(|o| o.get("const").is_some_and(Value::is_string)) =>
        {
            Ok(())
        }
        _ => Err(format!("{what} must be a non-empty array of {{\"const\": string}} options")),
    }
}
