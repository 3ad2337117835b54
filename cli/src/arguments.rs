//! Tool and prompt arguments as people type them: `key=value` pairs typed by the tool's
//! `inputSchema`, `key:=JSON`, one JSON object, or `--args FILE` (`-` for stdin), checked
//! against the schema (or the prompt's declared arguments) before anything is sent.
//!
//! Typing of `key=value`, by the property's schema `type`:
//! - `string`: the text as is (`n=5` stays `"5"`);
//! - `number`, `integer`, `boolean`, `null`, `array`, `object`: the text parsed as JSON;
//! - a list of types: JSON when it parses to one of the listed non-string types, else the text
//!   when `string` is listed;
//! - no type (or an unknown property): JSON when the text parses as JSON, else the text.
//!
//! `key:=JSON` always parses the value as JSON.
//!
//! Checks (exit code 2, naming the argument): an unknown name when the schema lists
//! `properties` and does not allow others (`additionalProperties` absent or `false`; `_meta`
//! is always allowed, it travels as the request's `_meta`); a missing `required` one; a value
//! whose JSON type is not the property's top-level `type`. Nothing deeper is validated here.

use mcpwire_core::types::json_kind;
use serde_json::{Map, Value};

use crate::commands::CliError;

/// One `key=value` or `key:=JSON` word.
#[derive(Debug, Clone, PartialEq)]
enum Pair {
    /// `key=value`: typed by the schema.
    Text(String, String),
    /// `key:=JSON`: already parsed.
    Json(String, Value),
}

/// The arguments of `call` or `prompts get` as given, before the schema is known.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ArgInput {
    /// A JSON object (the single `{...}` argument, or `--args FILE`); pairs are applied over it.
    base: Map<String, Value>,
    pairs: Vec<Pair>,
}

impl ArgInput {
    /// Parses the words after the tool or prompt name and the contents of `--args` (already
    /// read). A first word starting with `{` is a JSON object and must be the only word.
    pub fn parse(words: &[String], args_file: Option<&str>) -> Result<Self, CliError> {
        let mut input = ArgInput::default();
        if let Some(text) = args_file {
            input.base = json_object(text, "--args")?;
        }
        if let Some(first) = words.first().filter(|w| w.trim_start().starts_with('{')) {
            if words.len() > 1 {
                return Err(CliError::usage(
                    "a JSON object argument must be the only argument (or use key=value pairs)",
                ));
            }
            input.base.extend(json_object(first, "JSON_ARGS")?);
            return Ok(input);
        }
        for word in words {
            input.pairs.push(pair(word)?);
        }
        Ok(input)
    }

    /// Whether there are `key=value` words (whose typing needs the schema).
    pub fn has_pairs(&self) -> bool {
        self.pairs.iter().any(|p| matches!(p, Pair::Text(..)))
    }

    /// The arguments of a tool with this `inputSchema` (`None`: unknown tool, typed without a
    /// schema and not checked), checked against it when `check`.
    pub fn for_tool(&self, tool: &str, schema: Option<&Value>, check: bool) -> Result<Value, CliError> {
        let empty = Map::new();
        let properties = schema.and_then(|s| s.get("properties")).and_then(Value::as_object);
        let mut args = self.base.clone();
        for pair in &self.pairs {
            let (key, value) = match pair {
                Pair::Json(key, value) => (key, value.clone()),
                Pair::Text(key, text) => {
                    let types = properties.unwrap_or(&empty).get(key).map(schema_types).unwrap_or_default();
                    (key, typed(key, text, &types)?)
                }
            };
            args.insert(key.clone(), value);
        }
        if let Some(schema) = schema.filter(|_| check) {
            check_tool(tool, schema, &args)?;
        }
        Ok(Value::Object(args))
    }

    /// The arguments of a prompt declaring `declared` (name, required), or of an unknown prompt
    /// (`None`: not checked). Prompt arguments are strings.
    pub fn for_prompt(
        &self,
        prompt: &str,
        declared: Option<&[(String, bool)]>,
    ) -> Result<Map<String, Value>, CliError> {
        let mut args = self.base.clone();
        for pair in &self.pairs {
            match pair {
                Pair::Text(key, text) => args.insert(key.clone(), Value::String(text.clone())),
                Pair::Json(key, value) => args.insert(key.clone(), value.clone()),
            };
        }
        if let Some((key, value)) = args.iter().find(|(_, v)| !v.is_string()) {
            return Err(CliError::usage(format!(
                "argument {key:?} of prompt {prompt:?} must be a string, got {}",
                json_kind(value)
            )));
        }
        if let Some(declared) = declared {
            let names = || declared.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>();
            if let Some(key) = args.keys().find(|k| !names().contains(&k.as_str())) {
                return Err(CliError::usage(format!(
                    "unknown argument {key:?}: prompt {prompt:?} takes {}",
                    listing(&names())
                )));
            }
            if let Some((name, _)) = declared.iter().find(|(n, required)| *required && !args.contains_key(n))
            {
                return Err(CliError::usage(format!(
                    "missing required argument {name:?} of prompt {prompt:?}"
                )));
            }
        }
        Ok(args)
    }
}

/// `a, b` or `no arguments`.
fn listing(names: &[&str]) -> String {
    if names.is_empty() {
        "no arguments".into()
    } else {
        names.join(", ")
    }
}

/// A JSON object from `text`, or a usage error naming `what`.
pub fn json_object(text: &str, what: &str) -> Result<Map<String, Value>, CliError> {
    let value: Value = serde_json::from_str(text).map_err(|e| {
        CliError::usage(format!(
            "{what} is not valid JSON ({e}); expected an object like '{{\"key\": \"value\"}}'"
        ))
    })?;
    match value {
        Value::Object(map) => Ok(map),
        other => Err(CliError::usage(format!("{what} must be a JSON object, got {}", json_kind(&other)))),
    }
}

/// `key=value` or `key:=JSON`.
fn pair(word: &str) -> Result<Pair, CliError> {
    let Some((key, value)) = word.split_once('=') else {
        return Err(CliError::usage(format!(
            "expected key=value, key:=JSON or one JSON object, got {word:?}"
        )));
    };
    let (key, json) = match key.strip_suffix(':') {
        Some(key) => (key, true),
        None => (key, false),
    };
    if key.is_empty() {
        return Err(CliError::usage(format!("an argument name is missing in {word:?}")));
    }
    if !json {
        return Ok(Pair::Text(key.to_owned(), value.to_owned()));
    }
    let value = serde_json::from_str(value)
        .map_err(|e| CliError::usage(format!("argument {key:?}: {value:?} is not JSON ({e})")))?;
    Ok(Pair::Json(key.to_owned(), value))
}

/// The `type` of a property schema, as a list (empty: none given).
fn schema_types(schema: &Value) -> Vec<String> {
    match schema.get("type") {
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
        _ => Vec::new(),
    }
}

/// Whether `value` is of the JSON Schema type `ty` (unknown type names match anything).
fn is_type(value: &Value, ty: &str) -> bool {
    match ty {
        "string" => value.is_string(),
        "number" => value.is_number(),
        "integer" => {
            value.is_i64()
                || value.is_u64()
                || value.as_f64().is_some_and(|f| f.fract() == 0.0 && f.is_finite())
        }
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        _ => true,
    }
}

/// `key=text` typed by the property's schema types (see the module docs).
fn typed(key: &str, text: &str, types: &[String]) -> Result<Value, CliError> {
    let parsed = serde_json::from_str::<Value>(text).ok();
    if types.is_empty() {
        return Ok(parsed.unwrap_or_else(|| Value::String(text.to_owned())));
    }
    let non_string: Vec<&String> = types.iter().filter(|t| *t != "string").collect();
    if let Some(value) = parsed.filter(|v| non_string.iter().any(|t| is_type(v, t))) {
        return Ok(value);
    }
    if types.iter().any(|t| t == "string") {
        return Ok(Value::String(text.to_owned()));
    }
    Err(CliError::usage(format!("argument {key:?}: expected {}, got {text:?}", types.join(" or "))))
}

/// Unknown names, missing required ones and top-level types (see the module docs).
fn check_tool(tool: &str, schema: &Value, args: &Map<String, Value>) -> Result<(), CliError> {
    let properties = schema.get("properties").and_then(Value::as_object);
    if let Some(properties) = properties {
        let closed = matches!(schema.get("additionalProperties"), None | Some(Value::Bool(false)));
        if closed {
            if let Some(key) = args.keys().find(|k| *k != "_meta" && !properties.contains_key(*k)) {
                let names: Vec<&str> = properties.keys().map(String::as_str).collect();
                return Err(CliError::usage(format!(
                    "unknown argument {key:?}: tool {tool:?} takes {}",
                    listing(&names)
                )));
            }
        }
        for (key, value) in args {
            let types = properties.get(key).map(schema_types).unwrap_or_default();
            if !types.is_empty() && !types.iter().any(|t| is_type(value, t)) {
                return Err(CliError::usage(format!(
                    "argument {key:?} of tool {tool:?}: expected {}, got {}",
                    types.join(" or "),
                    json_kind(value)
                )));
            }
        }
    }
    let required = schema.get("required").and_then(Value::as_array);
    if let Some(name) =
        required.into_iter().flatten().filter_map(Value::as_str).find(|n| !args.contains_key(*n))
    {
        return Err(CliError::usage(format!("missing required argument {name:?} of tool {tool:?}")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exit;
    use serde_json::json;

    fn words(ws: &[&str]) -> Vec<String> {
        ws.iter().map(|w| w.to_string()).collect()
    }

    fn schema() -> Value {
        json!({"type": "object", "properties": {
            "s": {"type": "string"},
            "n": {"type": "number"},
            "i": {"type": "integer"},
            "b": {"type": "boolean"},
            "a": {"type": "array"},
            "o": {"type": "object"},
            "z": {"type": "null"},
            "sn": {"type": ["string", "null"]},
            "any": {}
        }, "required": ["s"]})
    }

    fn tool_args(ws: &[&str]) -> Result<Value, CliError> {
        ArgInput::parse(&words(ws), None)?.for_tool("t", Some(&schema()), true)
    }

    #[test]
    fn pairs_are_typed_by_the_schema() {
        let args = tool_args(&[
            "s=5",
            "n=1.5",
            "i=7",
            "b=true",
            "a=[1,\"x\"]",
            "o={\"k\":1}",
            "z=null",
            "sn=null",
            "any=3",
        ])
        .unwrap();
        assert_eq!(
            args,
            json!({"s": "5", "n": 1.5, "i": 7, "b": true, "a": [1, "x"], "o": {"k": 1}, "z": null,
                   "sn": null, "any": 3})
        );
        // Strings are taken as is, `=` in the value included; unknown types guess JSON.
        assert_eq!(
            tool_args(&["s=a=b c", "sn=hello", "any=hello"]).unwrap(),
            json!({"s": "a=b c", "sn": "hello", "any": "hello"})
        );
        assert_eq!(tool_args(&["s=", "any=\"q\""]).unwrap(), json!({"s": "", "any": "q"}));
    }

    #[test]
    fn colon_equals_forces_json() {
        assert_eq!(tool_args(&["s:=\"x\"", "any:=[1]"]).unwrap(), json!({"s": "x", "any": [1]}));
        let err = tool_args(&["s:=x"]).unwrap_err();
        assert!(err.to_string().starts_with("argument \"s\": \"x\" is not JSON"), "{err}");
        // Forced JSON of the wrong type is caught by the type check.
        let err = tool_args(&["s:=5"]).unwrap_err();
        assert_eq!(err.to_string(), "argument \"s\" of tool \"t\": expected string, got a number");
    }

    #[test]
    fn wrong_unknown_and_missing_arguments_are_named() {
        for (ws, message) in [
            (&["s=x", "n=abc"][..], "argument \"n\": expected number, got \"abc\""),
            (&["s=x", "i=1.5"], "argument \"i\": expected integer, got \"1.5\""),
            (&["s=x", "i:=1.5"], "argument \"i\" of tool \"t\": expected integer, got a number"),
            (&["s=x", "b=yes"], "argument \"b\": expected boolean, got \"yes\""),
            (&["s=x", "nope=1"], "unknown argument \"nope\": tool \"t\" takes a, any, b, i, n, o, s, sn, z"),
            (&["n=1"], "missing required argument \"s\" of tool \"t\""),
            (&["novalue"], "expected key=value, key:=JSON or one JSON object, got \"novalue\""),
            (&["=1"], "an argument name is missing in \"=1\""),
        ] {
            let err = tool_args(ws).unwrap_err();
            assert_eq!((err.to_string().as_str(), err.code()), (message, exit::USAGE), "{ws:?}");
        }
        assert_eq!(tool_args(&["s=x", "i=2.0"]).unwrap()["i"], json!(2.0), "a whole float is an integer");
    }

    #[test]
    fn open_schemas_and_unknown_tools_accept_any_name() {
        let open =
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": true});
        let args = ArgInput::parse(&words(&["a=1", "b=2"]), None).unwrap();
        assert_eq!(args.for_tool("t", Some(&open), true).unwrap(), json!({"a": "1", "b": 2}));
        assert_eq!(args.for_tool("t", None, true).unwrap(), json!({"a": 1, "b": 2}));
        let no_properties = json!({"type": "object"});
        assert_eq!(args.for_tool("t", Some(&no_properties), true).unwrap(), json!({"a": 1, "b": 2}));
        let meta = ArgInput::parse(&words(&["_meta:={\"k\":1}"]), None).unwrap();
        let closed = json!({"type": "object", "properties": {}});
        assert!(meta.for_tool("t", Some(&closed), true).is_ok(), "_meta is always allowed");
        let err = args.for_tool("t", Some(&closed), true).unwrap_err();
        assert_eq!(err.to_string(), "unknown argument \"a\": tool \"t\" takes no arguments");
        // Without the checks (`--validate off`) the schema still types the pairs.
        assert_eq!(args.for_tool("t", Some(&closed), false).unwrap(), json!({"a": 1, "b": 2}));
        assert_eq!(args.for_tool("t", Some(&open), false).unwrap(), json!({"a": "1", "b": 2}));
    }

    #[test]
    fn a_json_object_or_file_with_pairs_over_it() {
        let args = ArgInput::parse(&words(&[r#"{"s": "x", "n": 2}"#]), None).unwrap();
        assert_eq!(args.for_tool("t", Some(&schema()), true).unwrap(), json!({"s": "x", "n": 2}));
        let args = ArgInput::parse(&words(&["n=3"]), Some(r#"{"s": "f", "n": 2}"#)).unwrap();
        assert_eq!(args.for_tool("t", Some(&schema()), true).unwrap(), json!({"s": "f", "n": 3}));
        let err = ArgInput::parse(&words(&["{}", "a=1"]), None).unwrap_err();
        assert!(err.to_string().contains("only argument"), "{err}");
        let err = ArgInput::parse(&[], Some("[1]")).unwrap_err();
        assert_eq!(err.to_string(), "--args must be a JSON object, got an array");
        let err = ArgInput::parse(&words(&["{oops"]), None).unwrap_err();
        assert!(err.to_string().starts_with("JSON_ARGS is not valid JSON ("), "{err}");
        // A JSON object is checked too.
        let err =
            ArgInput::parse(&words(&[r#"{"s": 1}"#]), None).unwrap().for_tool("t", Some(&schema()), true);
        assert_eq!(
            err.unwrap_err().to_string(),
            "argument \"s\" of tool \"t\": expected string, got a number"
        );
    }

    #[test]
    fn prompt_arguments_are_strings_and_declared() {
        let declared = [("name".to_owned(), true), ("style".to_owned(), false)];
        let args = ArgInput::parse(&words(&["name=5"]), None).unwrap();
        assert_eq!(
            args.for_prompt("p", Some(&declared)).unwrap(),
            json!({"name": "5"}).as_object().unwrap().clone()
        );
        let err = ArgInput::parse(&words(&["style=x"]), None).unwrap().for_prompt("p", Some(&declared));
        assert_eq!(err.unwrap_err().to_string(), "missing required argument \"name\" of prompt \"p\"");
        let err = ArgInput::parse(&words(&["name=a", "x=1"]), None).unwrap().for_prompt("p", Some(&declared));
        assert_eq!(err.unwrap_err().to_string(), "unknown argument \"x\": prompt \"p\" takes name, style");
        let err = ArgInput::parse(&words(&["name:=1"]), None).unwrap().for_prompt("p", None);
        assert_eq!(
            err.unwrap_err().to_string(),
            "argument \"name\" of prompt \"p\" must be a string, got a number"
        );
        let any = ArgInput::parse(&words(&["x=1"]), None).unwrap().for_prompt("p", None).unwrap();
        assert_eq!(any["x"], "1");
    }
}
