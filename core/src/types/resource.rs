//! Resources: listing entries, templates and links.

use serde::Deserialize;
use serde_json::Value;

use super::{de_opt_u64, decode_wire, raw_json_impls, Annotations, DecodeError, Icon, Meta};

/// A resource the server can read (an entry of `resources/list`).
#[derive(Debug, Clone, PartialEq)]
pub struct Resource {
    /// URI of the resource.
    pub uri: String,
    /// Programmatic name.
    pub name: String,
    /// Human-readable display name.
    pub title: Option<String>,
    /// Description of the resource.
    pub description: Option<String>,
    /// MIME type, if known (`mimeType`).
    pub mime_type: Option<String>,
    /// Size of the raw content in bytes, if known.
    pub size: Option<u64>,
    /// Client-facing annotations.
    pub annotations: Option<Annotations>,
    /// Icons for the resource.
    pub icons: Vec<Icon>,
    /// The `_meta` object.
    pub meta: Option<Meta>,
    raw: Value,
}

/// A link to a resource inside tool results or prompts (`"type": "resource_link"`).
///
/// Has the same fields as [`Resource`]; the linked resource need not appear in
/// `resources/list`.
#[derive(Debug, Clone, PartialEq)]
pub struct ResourceLink {
    /// URI of the resource.
    pub uri: String,
    /// Programmatic name.
    pub name: String,
    /// Human-readable display name.
    pub title: Option<String>,
    /// Description of the resource.
    pub description: Option<String>,
    /// MIME type, if known (`mimeType`).
    pub mime_type: Option<String>,
    /// Size of the raw content in bytes, if known.
    pub size: Option<u64>,
    /// Client-facing annotations.
    pub annotations: Option<Annotations>,
    /// Icons for the resource.
    pub icons: Vec<Icon>,
    /// The `_meta` object.
    pub meta: Option<Meta>,
    raw: Value,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ResourceWire {
    uri: String,
    name: String,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    mime_type: Option<String>,
    #[serde(default, deserialize_with = "de_opt_u64")]
    size: Option<u64>,
    #[serde(default)]
    annotations: Option<Annotations>,
    #[serde(default)]
    icons: Option<Vec<Icon>>,
    #[serde(default, rename = "_meta")]
    meta: Option<Meta>,
}

/// Defines `from_value` for a struct with exactly the [`ResourceWire`] fields.
macro_rules! resource_like {
    ($ty:ident, $what:literal) => {
        impl $ty {
            #[doc = concat!("Decodes a `", $what, "` object.")]
            pub fn from_value(value: Value) -> Result<Self, DecodeError> {
                let w: ResourceWire = decode_wire($what, &value)?;
                Ok(Self {
                    uri: w.uri,
                    name: w.name,
                    title: w.title,
                    description: w.description,
                    mime_type: w.mime_type,
                    size: w.size,
                    annotations: w.annotations,
                    icons: w.icons.unwrap_or_default(),
                    meta: w.meta,
                    raw: value,
                })
            }

            /// The title if present, else the name.
            pub fn display_name(&self) -> &str {
                self.title.as_deref().unwrap_or(&self.name)
            }
        }
    };
}
resource_like!(Resource, "Resource");
resource_like!(ResourceLink, "ResourceLink");

/// A parameterised resource (an entry of `resources/templates/list`).
#[derive(Debug, Clone, PartialEq)]
pub struct ResourceTemplate {
    /// RFC 6570 URI template (`uriTemplate`).
    pub uri_template: String,
    /// Programmatic name.
    pub name: String,
    /// Human-readable display name.
    pub title: Option<String>,
    /// Description of the template.
    pub description: Option<String>,
    /// MIME type shared by all matching resources (`mimeType`).
    pub mime_type: Option<String>,
    /// Client-facing annotations.
    pub annotations: Option<Annotations>,
    /// Icons for the template.
    pub icons: Vec<Icon>,
    /// The `_meta` object.
    pub meta: Option<Meta>,
    raw: Value,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ResourceTemplateWire {
    uri_template: String,
    name: String,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    mime_type: Option<String>,
    #[serde(default)]
    annotations: Option<Annotations>,
    #[serde(default)]
    icons: Option<Vec<Icon>>,
    #[serde(default, rename = "_meta")]
    meta: Option<Meta>,
}

impl ResourceTemplate {
    /// Decodes a `ResourceTemplate` object.
    pub fn from_value(value: Value) -> Result<Self, DecodeError> {
        let w: ResourceTemplateWire = decode_wire("ResourceTemplate", &value)?;
        Ok(Self {
            uri_template: w.uri_template,
            name: w.name,
            title: w.title,
            description: w.description,
            mime_type: w.mime_type,
            annotations: w.annotations,
            icons: w.icons.unwrap_or_default(),
            meta: w.meta,
            raw: value,
        })
    }

    /// The title if present, else the name.
    pub fn display_name(&self) -> &str {
        self.title.as_deref().unwrap_or(&self.name)
    }
}

raw_json_impls!(Resource, ResourceLink, ResourceTemplate);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    // examples/Resource/file-resource-with-annotations.json
    const RESOURCE: &str = r#"{
      "uri": "file:///project/README.md",
      "name": "README.md",
      "title": "Project Documentation",
      "mimeType": "text/markdown",
      "annotations": {
        "audience": ["user"],
        "priority": 0.8,
        "lastModified": "2025-01-12T15:00:58Z"
      }
    }"#;

    fn parse(s: &str) -> Value {
        serde_json::from_str(s).unwrap()
    }

    #[test]
    fn resource_example() {
        let r = Resource::from_value(parse(RESOURCE)).unwrap();
        assert_eq!(r.uri, "file:///project/README.md");
        assert_eq!(r.name, "README.md");
        assert_eq!(r.display_name(), "Project Documentation");
        assert_eq!(r.mime_type.as_deref(), Some("text/markdown"));
        assert_eq!(r.size, None);
        let a = r.annotations.as_ref().unwrap();
        assert_eq!(a.audience, vec!["user"]);
        assert_eq!(a.priority, Some(0.8));
        assert_eq!(r.raw(), &parse(RESOURCE));
    }

    #[test]
    fn resource_size_and_errors() {
        let r = Resource::from_value(json!({"uri": "u", "name": "n", "size": 1024.0})).unwrap();
        assert_eq!(r.size, Some(1024));
        let err = Resource::from_value(json!({"uri": "u", "name": "n", "size": -1})).unwrap_err();
        assert_eq!(err.what, "Resource");
        assert!(err.detail.contains("non-negative integer"), "{err}");
        let err = Resource::from_value(json!({"uri": "u"})).unwrap_err();
        assert_eq!(err.to_string(), "invalid Resource: missing field `name`");
    }

    #[test]
    fn resource_template_example() {
        // examples/ListResourceTemplatesResult/... (first entry)
        let v = json!({
            "uriTemplate": "file:///{path}",
            "name": "Project Files",
            "title": "📁 Project Files",
            "description": "Access files in the project directory",
            "mimeType": "application/octet-stream",
            "icons": [{"src": "https://example.com/folder-icon.png", "mimeType": "image/png", "sizes": ["48x48"]}]
        });
        let t = ResourceTemplate::from_value(v.clone()).unwrap();
        assert_eq!(t.uri_template, "file:///{path}");
        assert_eq!(t.display_name(), "📁 Project Files");
        assert_eq!(t.icons[0].sizes, vec!["48x48"]);
        assert_eq!(t.into_raw(), v);
        let err = ResourceTemplate::from_value(json!({"name": "x"})).unwrap_err();
        assert_eq!(err.to_string(), "invalid ResourceTemplate: missing field `uriTemplate`");
    }
}
