//! Small types shared by many MCP structures: icons, implementation info,
//! annotations and roles.

use serde::Deserialize;
use serde_json::{Map, Value};

use super::{decode_wire, raw_json_impls, DecodeError};

/// An optionally-sized icon that a user interface can display.
#[derive(Debug, Clone, PartialEq)]
pub struct Icon {
    /// URI of the icon: an HTTP(S) URL or a `data:` URI.
    pub src: String,
    /// MIME type override, e.g. `"image/png"`.
    pub mime_type: Option<String>,
    /// Sizes the icon can be used at (`"48x48"`, `"any"`); empty means any.
    pub sizes: Vec<String>,
    /// `"light"` or `"dark"`, if the icon targets one theme.
    pub theme: Option<String>,
    raw: Value,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct IconWire {
    src: String,
    #[serde(default)]
    mime_type: Option<String>,
    #[serde(default)]
    sizes: Option<Vec<String>>,
    #[serde(default)]
    theme: Option<String>,
}

impl Icon {
    /// Creates an icon with only a `src`.
    pub fn new(src: impl Into<String>) -> Self {
        let mut icon =
            Self { src: src.into(), mime_type: None, sizes: Vec::new(), theme: None, raw: Value::Null };
        icon.raw = icon.to_value();
        icon
    }

    /// Decodes an icon object.
    pub fn from_value(value: Value) -> Result<Self, DecodeError> {
        let w: IconWire = decode_wire("Icon", &value)?;
        Ok(Self {
            src: w.src,
            mime_type: w.mime_type,
            sizes: w.sizes.unwrap_or_default(),
            theme: w.theme,
            raw: value,
        })
    }

    /// Encodes the typed fields as a spec-shaped JSON object.
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("src".into(), self.src.clone().into());
        if let Some(t) = &self.mime_type {
            m.insert("mimeType".into(), t.clone().into());
        }
        if !self.sizes.is_empty() {
            m.insert("sizes".into(), self.sizes.clone().into());
        }
        if let Some(t) = &self.theme {
            m.insert("theme".into(), t.clone().into());
        }
        Value::Object(m)
    }
}

/// Describes an MCP implementation (`serverInfo` / `clientInfo`).
#[derive(Debug, Clone, PartialEq)]
pub struct Implementation {
    /// Programmatic name of the implementation.
    pub name: String,
    /// Version of the implementation.
    pub version: String,
    /// Human-readable display name.
    pub title: Option<String>,
    /// Human-readable description.
    pub description: Option<String>,
    /// Website URL (`websiteUrl`).
    pub website_url: Option<String>,
    /// Icons for the implementation.
    pub icons: Vec<Icon>,
    raw: Value,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ImplementationWire {
    name: String,
    version: String,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    website_url: Option<String>,
    #[serde(default)]
    icons: Option<Vec<Icon>>,
}

impl Implementation {
    /// Creates an implementation description with only `name` and `version`.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        let mut imp = Self {
            name: name.into(),
            version: version.into(),
            title: None,
            description: None,
            website_url: None,
            icons: Vec::new(),
            raw: Value::Null,
        };
        imp.raw = imp.to_value();
        imp
    }

    /// Decodes an `Implementation` object.
    pub fn from_value(value: Value) -> Result<Self, DecodeError> {
        let w: ImplementationWire = decode_wire("Implementation", &value)?;
        Ok(Self {
            name: w.name,
            version: w.version,
            title: w.title,
            description: w.description,
            website_url: w.website_url,
            icons: w.icons.unwrap_or_default(),
            raw: value,
        })
    }

    /// Encodes the typed fields as a spec-shaped JSON object (optional fields
    /// omitted when unset). Fields not modelled here are not included.
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("name".into(), self.name.clone().into());
        m.insert("version".into(), self.version.clone().into());
        if let Some(t) = &self.title {
            m.insert("title".into(), t.clone().into());
        }
        if let Some(d) = &self.description {
            m.insert("description".into(), d.clone().into());
        }
        if let Some(u) = &self.website_url {
            m.insert("websiteUrl".into(), u.clone().into());
        }
        if !self.icons.is_empty() {
            m.insert("icons".into(), Value::Array(self.icons.iter().map(Icon::to_value).collect()));
        }
        Value::Object(m)
    }

    /// The title if present, else the name.
    pub fn display_name(&self) -> &str {
        self.title.as_deref().unwrap_or(&self.name)
    }
}

/// Optional client-facing annotations on content and resources.
#[derive(Debug, Clone, PartialEq)]
pub struct Annotations {
    /// Intended audience roles (`"user"`, `"assistant"`); empty if unset.
    pub audience: Vec<String>,
    /// Importance from 0 (optional) to 1 (effectively required).
    pub priority: Option<f64>,
    /// ISO 8601 last-modified timestamp (`lastModified`).
    pub last_modified: Option<String>,
    raw: Value,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct AnnotationsWire {
    #[serde(default)]
    audience: Option<Vec<String>>,
    #[serde(default)]
    priority: Option<f64>,
    #[serde(default)]
    last_modified: Option<String>,
}

impl Annotations {
    /// Decodes an `Annotations` object.
    pub fn from_value(value: Value) -> Result<Self, DecodeError> {
        let w: AnnotationsWire = decode_wire("Annotations", &value)?;
        Ok(Self {
            audience: w.audience.unwrap_or_default(),
            priority: w.priority,
            last_modified: w.last_modified,
            raw: value,
        })
    }

    /// Whether `role` (e.g. `"user"`) is listed in `audience`.
    pub fn is_for(&self, role: &str) -> bool {
        self.audience.iter().any(|r| r == role)
    }
}

/// The sender or recipient of a message.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Role {
    /// `"user"`.
    User,
    /// `"assistant"`.
    Assistant,
    /// A role this crate does not know.
    Other(String),
}

impl Role {
    /// Parses a wire role string; unknown strings become [`Role::Other`].
    pub fn parse(s: &str) -> Self {
        match s {
            "user" => Role::User,
            "assistant" => Role::Assistant,
            other => Role::Other(other.to_owned()),
        }
    }

    /// The wire string for this role.
    pub fn as_str(&self) -> &str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Other(s) => s,
        }
    }
}

impl From<&str> for Role {
    fn from(s: &str) -> Self {
        Role::parse(s)
    }
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Role {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Ok(Role::parse(&s))
    }
}

raw_json_impls!(Icon, Implementation, Annotations);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn icon_decodes_and_keeps_raw() {
        let v = json!({
            "src": "https://example.com/review-icon.svg",
            "mimeType": "image/svg+xml",
            "sizes": ["any"],
            "x-vendor": 1
        });
        let icon = Icon::from_value(v.clone()).unwrap();
        assert_eq!(icon.src, "https://example.com/review-icon.svg");
        assert_eq!(icon.mime_type.as_deref(), Some("image/svg+xml"));
        assert_eq!(icon.sizes, vec!["any"]);
        assert_eq!(icon.theme, None);
        assert_eq!(icon.raw(), &v);
        assert_eq!(icon.into_raw()["x-vendor"], 1);
    }

    #[test]
    fn icon_missing_src() {
        let err = Icon::from_value(json!({"sizes": []})).unwrap_err();
        assert_eq!(err.to_string(), "invalid Icon: missing field `src`");
    }

    #[test]
    fn implementation_new_and_to_value() {
        let mut imp = Implementation::new("mcp-client", "0.1.0");
        assert_eq!(imp.raw(), &json!({"name": "mcp-client", "version": "0.1.0"}));
        imp.website_url = Some("https://example.com".into());
        imp.icons.push(Icon::new("https://example.com/i.png"));
        assert_eq!(
            imp.to_value(),
            json!({
                "name": "mcp-client",
                "version": "0.1.0",
                "websiteUrl": "https://example.com",
                "icons": [{"src": "https://example.com/i.png"}]
            })
        );
        let back = Implementation::from_value(imp.to_value()).unwrap();
        assert_eq!(back.website_url, imp.website_url);
        assert_eq!(back.icons[0].src, "https://example.com/i.png");
        assert_eq!(back.display_name(), "mcp-client");
    }

    #[test]
    fn implementation_full_decode() {
        let v = json!({
            "name": "ExampleServer",
            "title": "Example Server",
            "version": "1.0.0",
            "description": "Does things",
            "websiteUrl": "https://example.com",
            "icons": [{"src": "a.png", "theme": "dark"}]
        });
        let imp = Implementation::from_value(v).unwrap();
        assert_eq!(imp.display_name(), "Example Server");
        assert_eq!(imp.description.as_deref(), Some("Does things"));
        assert_eq!(imp.icons[0].theme.as_deref(), Some("dark"));
    }

    #[test]
    fn implementation_errors() {
        let err = Implementation::from_value(json!({"name": "x"})).unwrap_err();
        assert_eq!(err.to_string(), "invalid Implementation: missing field `version`");
        let err =
            Implementation::from_value(json!({"name": "x", "version": "1", "icons": [{}]})).unwrap_err();
        assert_eq!(err.what, "Implementation");
        assert!(err.detail.contains("invalid Icon: missing field `src`"), "{err}");
    }

    #[test]
    fn annotations_decode() {
        let a = Annotations::from_value(json!({
            "audience": ["user", "assistant"],
            "priority": 0.7,
            "lastModified": "2025-05-03T14:30:00Z"
        }))
        .unwrap();
        assert!(a.is_for("user") && a.is_for("assistant"));
        assert_eq!(a.priority, Some(0.7));
        assert_eq!(a.last_modified.as_deref(), Some("2025-05-03T14:30:00Z"));
        let empty = Annotations::from_value(json!({})).unwrap();
        assert!(empty.audience.is_empty());
        assert_eq!(empty.priority, None);
    }

    #[test]
    fn role_round_trip() {
        assert_eq!(Role::parse("user"), Role::User);
        assert_eq!(Role::from("assistant"), Role::Assistant);
        assert_eq!(Role::parse("system"), Role::Other("system".into()));
        assert_eq!(Role::Other("system".into()).as_str(), "system");
        assert_eq!(Role::User.to_string(), "user");
        let r: Role = serde_json::from_value(json!("assistant")).unwrap();
        assert_eq!(r, Role::Assistant);
    }
}
