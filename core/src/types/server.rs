//! Server capabilities and the handshake results (`server/discover` and the
//! legacy `initialize`).

use serde::Deserialize;
use serde_json::{Map, Value};

use super::{
    cache_scope_hint, decode_wire, expect_object, raw_json_impls, ttl_hint, DecodeError, Implementation,
    Meta, SERVER_INFO_META_KEY,
};

/// Capabilities a server advertises.
///
/// The object is kept as sent (it is an open set); the accessors interpret
/// the known entries leniently: an entry counts as present unless it is
/// absent or `null`, and a flag that is not a boolean counts as `false`.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerCapabilities {
    raw: Value,
}

/// A capability whose only option is `listChanged` (`tools`, `prompts`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ListCapability {
    /// Whether the server sends list-changed notifications (`listChanged`).
    pub list_changed: bool,
}

/// The `resources` capability.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ResourcesCapability {
    /// Whether the server supports per-resource update subscriptions.
    pub subscribe: bool,
    /// Whether the server sends list-changed notifications (`listChanged`).
    pub list_changed: bool,
}

impl Default for ServerCapabilities {
    /// No capabilities (an empty object).
    fn default() -> Self {
        Self { raw: Value::Object(Map::new()) }
    }
}

impl ServerCapabilities {
    /// Decodes a capabilities object. Only the top level must be an object.
    pub fn from_value(value: Value) -> Result<Self, DecodeError> {
        expect_object("ServerCapabilities", &value)?;
        Ok(Self { raw: value })
    }

    /// The entry `key` unless absent or `null`.
    fn entry(&self, key: &str) -> Option<&Value> {
        self.raw.get(key).filter(|v| !v.is_null())
    }

    /// The boolean flag `flag` of entry `key` (`false` unless `true`).
    fn flag(entry: &Value, flag: &str) -> bool {
        entry.get(flag).and_then(Value::as_bool).unwrap_or(false)
    }

    /// The `tools` capability, if advertised.
    pub fn tools(&self) -> Option<ListCapability> {
        self.entry("tools").map(|e| ListCapability { list_changed: Self::flag(e, "listChanged") })
    }

    /// The `prompts` capability, if advertised.
    pub fn prompts(&self) -> Option<ListCapability> {
        self.entry("prompts").map(|e| ListCapability { list_changed: Self::flag(e, "listChanged") })
    }

    /// The `resources` capability, if advertised.
    pub fn resources(&self) -> Option<ResourcesCapability> {
        self.entry("resources").map(|e| ResourcesCapability {
            subscribe: Self::flag(e, "subscribe"),
            list_changed: Self::flag(e, "listChanged"),
        })
    }

    /// Whether the (deprecated) `logging` capability is advertised.
    pub fn logging(&self) -> bool {
        self.entry("logging").is_some()
    }

    /// Whether the `completions` capability is advertised.
    pub fn completions(&self) -> bool {
        self.entry("completions").is_some()
    }

    /// The `extensions` map (extension id → settings), if it is an object.
    pub fn extensions(&self) -> Option<&Map<String, Value>> {
        self.entry("extensions")?.as_object()
    }

    /// The settings of extension `id`, if the server advertises it.
    pub fn extension(&self, id: &str) -> Option<&Value> {
        self.extensions()?.get(id).filter(|v| !v.is_null())
    }

    /// The `experimental` map, if it is an object.
    pub fn experimental(&self) -> Option<&Map<String, Value>> {
        self.entry("experimental")?.as_object()
    }

    /// Whether the legacy (2025-11-25) core `tasks` capability is present.
    /// (In 2026-07-28 tasks are the `io.modelcontextprotocol/tasks` extension;
    /// see [`Self::extension`].)
    pub fn has_tasks(&self) -> bool {
        self.entry("tasks").is_some()
    }

    /// Whether the object has no entries at all.
    pub fn is_empty(&self) -> bool {
        self.raw.as_object().is_none_or(Map::is_empty)
    }

    /// Capabilities that are not known: a 2026-07-28 server that refused `server/discover`
    /// with a modern error (so it is modern, but never said what it offers). Its `raw` is
    /// `null`; every accessor answers "not declared", and requests are not gated on them.
    pub fn unknown() -> Self {
        Self { raw: Value::Null }
    }

    /// Whether these are [`Self::unknown`] capabilities.
    pub fn is_unknown(&self) -> bool {
        self.raw.is_null()
    }
}

raw_json_impls!(ServerCapabilities);

/// Decodes an optional `Implementation`; malformed values are `None`
/// (the field is informational only and stays visible in `raw`).
fn lenient_implementation(v: Option<&Value>) -> Option<Implementation> {
    v.and_then(|v| Implementation::from_value(v.clone()).ok())
}

/// The result of `server/discover` (2026-07-28).
#[derive(Debug, Clone, PartialEq)]
pub struct DiscoverResult {
    /// Protocol versions the server supports (`supportedVersions`).
    pub supported_versions: Vec<String>,
    /// The server's capabilities (empty if absent).
    pub capabilities: ServerCapabilities,
    /// The server software, from `_meta["io.modelcontextprotocol/serverInfo"]`;
    /// `None` if absent or malformed.
    pub server_info: Option<Implementation>,
    /// Natural-language guidance about the server.
    pub instructions: Option<String>,
    /// Cache TTL hint in milliseconds (`ttlMs`); absent, negative or
    /// non-numeric is `0`.
    pub ttl_ms: u64,
    /// Cache scope hint (`"public"` / `"private"`), if given.
    pub cache_scope: Option<String>,
    /// The `_meta` object.
    pub meta: Option<Meta>,
    raw: Value,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct DiscoverWire {
    supported_versions: Vec<String>,
    #[serde(default)]
    capabilities: Option<ServerCapabilities>,
    #[serde(default)]
    instructions: Option<String>,
    #[serde(default, rename = "_meta")]
    meta: Option<Meta>,
}

impl DiscoverResult {
    /// Decodes a `server/discover` result.
    pub fn from_value(value: Value) -> Result<Self, DecodeError> {
        let w: DiscoverWire = decode_wire("DiscoverResult", &value)?;
        let server_info = lenient_implementation(w.meta.as_ref().and_then(|m| m.get(SERVER_INFO_META_KEY)));
        Ok(Self {
            supported_versions: w.supported_versions,
            capabilities: w.capabilities.unwrap_or_default(),
            server_info,
            instructions: w.instructions,
            ttl_ms: ttl_hint(value.get("ttlMs")).unwrap_or(0),
            cache_scope: cache_scope_hint(value.get("cacheScope")),
            meta: w.meta,
            raw: value,
        })
    }

    /// Whether `version` is among the supported versions.
    pub fn supports_version(&self, version: &str) -> bool {
        self.supported_versions.iter().any(|v| v == version)
    }
}

/// The result of the legacy `initialize` handshake (2025-11-25 and earlier).
#[derive(Debug, Clone, PartialEq)]
pub struct InitializeResult {
    /// The protocol version the server chose (`protocolVersion`).
    pub protocol_version: String,
    /// The server's capabilities (empty if absent).
    pub capabilities: ServerCapabilities,
    /// The server software (`serverInfo`, else the `_meta` server-info key);
    /// `None` if absent or malformed.
    pub server_info: Option<Implementation>,
    /// Instructions describing how to use the server.
    pub instructions: Option<String>,
    /// The `_meta` object.
    pub meta: Option<Meta>,
    raw: Value,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct InitializeWire {
    protocol_version: String,
    #[serde(default)]
    capabilities: Option<ServerCapabilities>,
    #[serde(default)]
    instructions: Option<String>,
    #[serde(default, rename = "_meta")]
    meta: Option<Meta>,
}

impl InitializeResult {
    /// Decodes an `initialize` result.
    pub fn from_value(value: Value) -> Result<Self, DecodeError> {
        let w: InitializeWire = decode_wire("InitializeResult", &value)?;
        let server_info = lenient_implementation(value.get("serverInfo"))
            .or_else(|| lenient_implementation(w.meta.as_ref().and_then(|m| m.get(SERVER_INFO_META_KEY))));
        Ok(Self {
            protocol_version: w.protocol_version,
            capabilities: w.capabilities.unwrap_or_default(),
            server_info,
            instructions: w.instructions,
            meta: w.meta,
            raw: value,
        })
    }
}

raw_json_impls!(DiscoverResult, InitializeResult);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    // examples/DiscoverResult/server-capabilities-discovery.json
    const DISCOVER: &str = r#"{
      "resultType": "complete",
      "supportedVersions": ["2026-07-28"],
      "capabilities": { "tools": {}, "resources": {} },
      "_meta": {
        "io.modelcontextprotocol/serverInfo": { "name": "ExampleServer", "version": "1.0.0" }
      },
      "instructions": "This server provides weather and resource utilities. Prefer `get_weather` for forecast lookups.",
      "ttlMs": 3600000,
      "cacheScope": "public"
    }"#;

    fn caps(v: Value) -> ServerCapabilities {
        ServerCapabilities::from_value(v).unwrap()
    }

    #[test]
    fn capability_examples() {
        // examples/ServerCapabilities/*.json
        assert!(caps(json!({"completions": {}})).completions());
        assert!(caps(json!({"logging": {}})).logging());
        assert_eq!(caps(json!({"prompts": {}})).prompts(), Some(ListCapability { list_changed: false }));
        assert_eq!(
            caps(json!({"prompts": {"listChanged": true}})).prompts(),
            Some(ListCapability { list_changed: true })
        );
        assert_eq!(
            caps(json!({"tools": {"listChanged": true}})).tools(),
            Some(ListCapability { list_changed: true })
        );
        assert_eq!(
            caps(json!({"resources": {"subscribe": true, "listChanged": true}})).resources(),
            Some(ResourcesCapability { subscribe: true, list_changed: true })
        );
        assert_eq!(
            caps(json!({"resources": {"subscribe": true}})).resources(),
            Some(ResourcesCapability { subscribe: true, list_changed: false })
        );
        let ext = caps(json!({"extensions": {"io.modelcontextprotocol/tasks": {}}}));
        assert!(ext.extensions().unwrap().contains_key("io.modelcontextprotocol/tasks"));
        assert_eq!(ext.extension("io.modelcontextprotocol/tasks"), Some(&json!({})));
        assert!(!ext.has_tasks());
        assert!(!ext.is_empty());
    }

    #[test]
    fn capability_absence_and_leniency() {
        let empty = ServerCapabilities::default();
        assert!(empty.is_empty());
        assert_eq!(empty.tools(), None);
        assert_eq!(empty.resources(), None);
        assert!(!empty.logging() && !empty.completions() && !empty.has_tasks());
        assert_eq!(empty.extensions(), None);
        assert_eq!(empty.experimental(), None);

        let odd = caps(json!({
            "tools": {"listChanged": "yes"},
            "logging": null,
            "tasks": {"list": {}},
            "experimental": {"x": {"y": 1}},
            "vendor": true
        }));
        assert_eq!(odd.tools(), Some(ListCapability::default()));
        assert!(!odd.logging());
        assert!(odd.has_tasks());
        assert_eq!(odd.experimental().unwrap()["x"]["y"], 1);
        assert_eq!(odd.raw()["vendor"], true);

        let err = ServerCapabilities::from_value(json!([])).unwrap_err();
        assert_eq!(err.to_string(), "invalid ServerCapabilities: expected a JSON object, got an array");
    }

    #[test]
    fn discover_example() {
        let v: Value = serde_json::from_str(DISCOVER).unwrap();
        let d = DiscoverResult::from_value(v.clone()).unwrap();
        assert_eq!(d.supported_versions, vec!["2026-07-28"]);
        assert!(d.supports_version("2026-07-28"));
        assert!(!d.supports_version("2025-11-25"));
        assert!(d.capabilities.tools().is_some());
        assert!(d.capabilities.resources().is_some());
        assert!(d.capabilities.prompts().is_none());
        let info = d.server_info.as_ref().unwrap();
        assert_eq!((info.name.as_str(), info.version.as_str()), ("ExampleServer", "1.0.0"));
        assert!(d.instructions.as_deref().unwrap().starts_with("This server"));
        assert_eq!(d.ttl_ms, 3_600_000);
        assert_eq!(d.cache_scope.as_deref(), Some("public"));
        assert_eq!(d.raw(), &v);
    }

    #[test]
    fn discover_defaults_and_errors() {
        let d = DiscoverResult::from_value(json!({
            "supportedVersions": [],
            "ttlMs": -5,
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "no-version"}}
        }))
        .unwrap();
        assert_eq!(d.ttl_ms, 0);
        assert!(d.capabilities.is_empty());
        assert_eq!(d.server_info, None, "malformed serverInfo is ignored");
        assert_eq!(d.cache_scope, None);

        let d = DiscoverResult::from_value(json!({"supportedVersions": ["x"]})).unwrap();
        assert_eq!(d.ttl_ms, 0);

        let err = DiscoverResult::from_value(json!({"capabilities": {}})).unwrap_err();
        assert_eq!(err.to_string(), "invalid DiscoverResult: missing field `supportedVersions`");
        let err =
            DiscoverResult::from_value(json!({"supportedVersions": [], "capabilities": 1})).unwrap_err();
        assert_eq!(err.what, "DiscoverResult");
    }

    #[test]
    fn initialize_result() {
        let v = json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {"listChanged": true}, "tasks": {}},
            "serverInfo": {"name": "legacy", "version": "2.0", "title": "Legacy Server"},
            "instructions": "hi"
        });
        let r = InitializeResult::from_value(v.clone()).unwrap();
        assert_eq!(r.protocol_version, "2025-11-25");
        assert_eq!(r.capabilities.tools(), Some(ListCapability { list_changed: true }));
        assert!(r.capabilities.has_tasks());
        assert_eq!(r.server_info.as_ref().unwrap().display_name(), "Legacy Server");
        assert_eq!(r.instructions.as_deref(), Some("hi"));
        assert_eq!(r.into_raw(), v);

        let bare = InitializeResult::from_value(json!({"protocolVersion": "2024-11-05"})).unwrap();
        assert_eq!(bare.server_info, None);
        assert!(bare.capabilities.is_empty());

        let err = InitializeResult::from_value(json!({"capabilities": {}})).unwrap_err();
        assert_eq!(err.to_string(), "invalid InitializeResult: missing field `protocolVersion`");
    }
}
