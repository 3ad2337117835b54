//! Pages of paginated list results (`tools/list`, `prompts/list`,
//! `resources/list`, `resources/templates/list`).

use serde_json::Value;

use super::{cache_scope_hint, expect_object, json_kind, ttl_hint, DecodeError, FromValue, Meta};

/// One page of a paginated list result, with the items left undecoded.
///
/// Decode the items with [`ListPage::decode_items`] (e.g. as
/// [`Tool`](super::Tool)s), or one by one so a single malformed entry can be
/// skipped.
#[derive(Debug, Clone, PartialEq)]
pub struct ListPage {
    /// The raw entries of the list array.
    pub items: Vec<Value>,
    /// Cursor for the next page; `None` when this is the last page.
    pub next_cursor: Option<String>,
    /// Cache TTL hint in milliseconds (`ttlMs`), if given; negative → 0.
    pub ttl_ms: Option<u64>,
    /// Cache scope hint (`"public"` / `"private"`), if given.
    pub cache_scope: Option<String>,
    /// The result's `_meta` object.
    pub meta: Option<Meta>,
    raw: Value,
}

/// The decode-error name for a list result keyed by `key`.
fn what_for(key: &str) -> &'static str {
    match key {
        "tools" => "ListToolsResult",
        "prompts" => "ListPromptsResult",
        "resources" => "ListResourcesResult",
        "resourceTemplates" => "ListResourceTemplatesResult",
        _ => "ListPage",
    }
}

impl ListPage {
    /// Decodes a list result whose items are under `key` (`"tools"`,
    /// `"prompts"`, `"resources"` or `"resourceTemplates"`).
    ///
    /// A missing or non-array `key`, or a `nextCursor` that is neither a
    /// string nor `null`, is an error. An empty cursor means "no more pages".
    pub fn from_value(value: Value, key: &str) -> Result<Self, DecodeError> {
        let what = what_for(key);
        let obj = expect_object(what, &value)?;
        let items = match obj.get(key) {
            Some(Value::Array(items)) => items.clone(),
            Some(other) => {
                return Err(DecodeError::new(
                    what,
                    format!("field `{key}` must be an array, got {}", json_kind(other)),
                ))
            }
            None => return Err(DecodeError::new(what, format!("missing field `{key}`"))),
        };
        let next_cursor = match obj.get("nextCursor") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if s.is_empty() => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => {
                return Err(DecodeError::new(
                    what,
                    format!("field `nextCursor` must be a string, got {}", json_kind(other)),
                ))
            }
        };
        let meta = match obj.get("_meta") {
            None | Some(Value::Null) => None,
            Some(Value::Object(m)) => Some(m.clone()),
            Some(other) => {
                return Err(DecodeError::new(
                    what,
                    format!("field `_meta` must be an object, got {}", json_kind(other)),
                ))
            }
        };
        Ok(Self {
            items,
            next_cursor,
            ttl_ms: ttl_hint(obj.get("ttlMs")),
            cache_scope: cache_scope_hint(obj.get("cacheScope")),
            meta,
            raw: value,
        })
    }

    /// Decodes every item as `T`, failing on the first malformed one.
    pub fn decode_items<T: FromValue>(&self) -> Result<Vec<T>, DecodeError> {
        self.items.iter().cloned().map(T::from_value).collect()
    }

    /// Whether the server indicated another page.
    pub fn has_more(&self) -> bool {
        self.next_cursor.is_some()
    }

    /// The raw JSON this page was decoded from.
    pub fn raw(&self) -> &Value {
        &self.raw
    }

    /// Consumes the page, returning the raw JSON.
    pub fn into_raw(self) -> Value {
        self.raw
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{Prompt, Resource, ResourceTemplate, Tool};
    use serde_json::json;

    // examples/ListToolsResult/tools-list-with-cursor-and-ttl.json
    const TOOLS: &str = r#"{
      "resultType": "complete",
      "tools": [
        {
          "name": "get_weather",
          "title": "Weather Information Provider",
          "description": "Get current weather information for a location",
          "inputSchema": {
            "type": "object",
            "properties": {
              "location": { "type": "string", "description": "City name or zip code" }
            },
            "required": ["location"]
          },
          "icons": [
            { "src": "https://example.com/weather-icon.png", "mimeType": "image/png", "sizes": ["48x48"] }
          ]
        }
      ],
      "nextCursor": "next-page-cursor",
      "ttlMs": 300000,
      "cacheScope": "public"
    }"#;

    // examples/ListPromptsResult/prompts-list-with-cursor-and-ttl.json
    const PROMPTS: &str = r#"{
      "resultType": "complete",
      "prompts": [
        {
          "name": "code_review",
          "title": "Request Code Review",
          "description": "Asks the LLM to analyze code quality and suggest improvements",
          "arguments": [ { "name": "code", "description": "The code to review", "required": true } ],
          "icons": [ { "src": "https://example.com/review-icon.svg", "mimeType": "image/svg+xml", "sizes": ["any"] } ]
        }
      ],
      "nextCursor": "next-page-cursor",
      "ttlMs": 600000,
      "cacheScope": "public"
    }"#;

    // examples/ListResourcesResult/resources-list-with-cursor-and-ttl.json
    const RESOURCES: &str = r#"{
      "resultType": "complete",
      "resources": [
        {
          "uri": "file:///project/src/main.rs",
          "name": "main.rs",
          "title": "Rust Software Application Main File",
          "description": "Primary application entry point",
          "mimeType": "text/x-rust",
          "icons": [ { "src": "https://example.com/rust-file-icon.png", "mimeType": "image/png", "sizes": ["48x48"] } ]
        }
      ],
      "nextCursor": "eyJwYWdlIjogM30=",
      "ttlMs": 600000,
      "cacheScope": "private"
    }"#;

    // examples/ListResourceTemplatesResult/resource-templates-list-with-cursor-and-ttl.json
    const TEMPLATES: &str = r#"{
      "resultType": "complete",
      "resourceTemplates": [
        {
          "uriTemplate": "file:///{path}",
          "name": "Project Files",
          "title": "📁 Project Files",
          "description": "Access files in the project directory",
          "mimeType": "application/octet-stream",
          "icons": [ { "src": "https://example.com/folder-icon.png", "mimeType": "image/png", "sizes": ["48x48"] } ]
        }
      ],
      "nextCursor": "next-page-cursor",
      "ttlMs": 3600000,
      "cacheScope": "public"
    }"#;

    fn page(s: &str, key: &str) -> ListPage {
        ListPage::from_value(serde_json::from_str(s).unwrap(), key).unwrap()
    }

    #[test]
    fn tools_page_example() {
        let p = page(TOOLS, "tools");
        assert_eq!(p.items.len(), 1);
        assert_eq!(p.next_cursor.as_deref(), Some("next-page-cursor"));
        assert!(p.has_more());
        assert_eq!(p.ttl_ms, Some(300_000));
        assert_eq!(p.cache_scope.as_deref(), Some("public"));
        let tools: Vec<Tool> = p.decode_items().unwrap();
        assert_eq!(tools[0].name, "get_weather");
        assert_eq!(tools[0].icons[0].sizes, vec!["48x48"]);
        assert_eq!(p.raw()["resultType"], "complete");
    }

    #[test]
    fn other_page_examples() {
        let prompts: Vec<Prompt> = page(PROMPTS, "prompts").decode_items().unwrap();
        assert_eq!(prompts[0].arguments[0].name, "code");

        let p = page(RESOURCES, "resources");
        assert_eq!(p.next_cursor.as_deref(), Some("eyJwYWdlIjogM30="));
        assert_eq!(p.cache_scope.as_deref(), Some("private"));
        let resources: Vec<Resource> = p.decode_items().unwrap();
        assert_eq!(resources[0].uri, "file:///project/src/main.rs");

        let p = page(TEMPLATES, "resourceTemplates");
        assert_eq!(p.ttl_ms, Some(3_600_000));
        let templates: Vec<ResourceTemplate> = p.decode_items().unwrap();
        assert_eq!(templates[0].uri_template, "file:///{path}");
    }

    #[test]
    fn cursor_rules() {
        let p = ListPage::from_value(json!({"tools": [], "nextCursor": ""}), "tools").unwrap();
        assert_eq!(p.next_cursor, None);
        assert!(!p.has_more());
        let p = ListPage::from_value(json!({"tools": [], "nextCursor": null}), "tools").unwrap();
        assert_eq!(p.next_cursor, None);
        let p = ListPage::from_value(json!({"tools": []}), "tools").unwrap();
        assert_eq!((p.next_cursor, p.ttl_ms, p.cache_scope), (None, None, None));
        let err = ListPage::from_value(json!({"tools": [], "nextCursor": 2}), "tools").unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid ListToolsResult: field `nextCursor` must be a string, got a number"
        );
    }

    #[test]
    fn structural_errors() {
        let err = ListPage::from_value(json!({"prompts": []}), "tools").unwrap_err();
        assert_eq!(err.to_string(), "invalid ListToolsResult: missing field `tools`");
        let err = ListPage::from_value(json!({"prompts": {}}), "prompts").unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid ListPromptsResult: field `prompts` must be an array, got an object"
        );
        let err = ListPage::from_value(json!({"things": []}), "stuff").unwrap_err();
        assert_eq!(err.what, "ListPage");
        let err = ListPage::from_value(json!(null), "resources").unwrap_err();
        assert_eq!(err.what, "ListResourcesResult");
        let err = ListPage::from_value(json!({"tools": [], "_meta": 1}), "tools").unwrap_err();
        assert!(err.detail.contains("`_meta`"));
    }

    #[test]
    fn ttl_negative_is_zero_and_bad_item_fails_decode() {
        let p = ListPage::from_value(json!({"tools": [{"name": "x"}], "ttlMs": -1}), "tools").unwrap();
        assert_eq!(p.ttl_ms, Some(0));
        let err = p.decode_items::<Tool>().unwrap_err();
        assert_eq!(err.to_string(), "invalid Tool: missing field `inputSchema`");
    }
}
