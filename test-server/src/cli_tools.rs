//! `--cli-tools`: tools for the `mcp` command line's argument typing and readable output.
//! Served in both eras.
//!
//! - `typed {text, count, ratio?, flag?, tags?, options?, nothing?}`: one property of each JSON
//!   type (`text` and `count` required, `additionalProperties: false`); answers the arguments
//!   back as `structuredContent` and as the same JSON in a text block (as servers do for older
//!   clients).
//! - `app_view`: an MCP Apps tool with a UI resource (`_meta.ui.resourceUri`, `ui://test/view.html`).
//! - `app_refresh`: an app-only MCP Apps tool (`_meta.ui.visibility: ["app"]`).

use serde_json::{json, Map, Value};

use crate::protocol::{compact, text_result, Reply};
use crate::tools::tool;

/// The tools of this block.
pub const NAMES: [&str; 3] = ["typed", "app_view", "app_refresh"];

/// Their definitions.
pub fn definitions() -> Vec<Value> {
    let typed_schema = json!({
        "type": "object",
        "properties": {
            "text": {"type": "string"},
            "count": {"type": "integer"},
            "ratio": {"type": "number"},
            "flag": {"type": "boolean"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "options": {"type": "object"},
            "nothing": {"type": "null"}
        },
        "required": ["text", "count"],
        "additionalProperties": false
    });
    let mut view = tool("app_view", "Shows the test app", json!({"type": "object", "properties": {}}));
    view["_meta"] = json!({"ui": {"resourceUri": "ui://test/view.html"}});
    let mut refresh =
        tool("app_refresh", "Refreshes the test app's data", json!({"type": "object", "properties": {}}));
    refresh["_meta"] = json!({"ui": {"resourceUri": "ui://test/view.html", "visibility": ["app"]}});
    vec![tool("typed", "Answers its arguments back, typed", typed_schema), view, refresh]
}

/// Runs one of [`NAMES`].
pub fn call(name: &str, args: &Map<String, Value>) -> Reply {
    let arguments = Value::Object(args.clone());
    match name {
        "typed" => {
            let mut result = text_result(compact(&arguments));
            result["structuredContent"] = arguments;
            Ok(result)
        }
        _ => Ok(text_result(format!("{name} done"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_answers_its_arguments_twice() {
        let args = json!({"text": "a", "count": 2}).as_object().unwrap().clone();
        let result = call("typed", &args).unwrap();
        assert_eq!(result["structuredContent"], json!({"text": "a", "count": 2}));
        let text: Value = serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(text, result["structuredContent"]);
        assert_eq!(definitions().len(), NAMES.len());
        assert_eq!(definitions()[2]["_meta"]["ui"]["visibility"], json!(["app"]));
    }
}
