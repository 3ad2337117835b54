//! Resource contents and the `resources/read` result.

use serde::Deserialize;
use serde_json::Value;

use super::{
    cache_scope_hint, decode_base64, decode_wire, raw_json_impls, ttl_hint, DecodeError, FromValue, Meta,
};

/// The contents of a resource: text or a base64 blob.
///
/// Each variant carries the `raw` JSON it was decoded from (a public field,
/// since enum variants cannot have private ones); see also [`Self::raw`].
#[derive(Debug, Clone, PartialEq)]
pub enum ResourceContents {
    /// `TextResourceContents`.
    Text {
        /// URI of the resource.
        uri: String,
        /// MIME type, if known.
        mime_type: Option<String>,
        /// The text of the resource.
        text: String,
        /// The `_meta` object.
        meta: Option<Meta>,
        /// The raw JSON this was decoded from.
        raw: Value,
    },
    /// `BlobResourceContents`.
    Blob {
        /// URI of the resource.
        uri: String,
        /// MIME type, if known.
        mime_type: Option<String>,
        /// Base64-encoded binary data; see [`ResourceContents::decode_blob`].
        blob: String,
        /// The `_meta` object.
        meta: Option<Meta>,
        /// The raw JSON this was decoded from.
        raw: Value,
    },
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ResourceContentsWire {
    uri: String,
    #[serde(default)]
    mime_type: Option<String>,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    blob: Option<String>,
    #[serde(default, rename = "_meta")]
    meta: Option<Meta>,
}

impl ResourceContents {
    /// Decodes text or blob resource contents; an object with `text` is text
    /// (even if it also has `blob`), one with only `blob` is a blob.
    pub fn from_value(value: Value) -> Result<Self, DecodeError> {
        const WHAT: &str = "ResourceContents";
        let w: ResourceContentsWire = decode_wire(WHAT, &value)?;
        match (w.text, w.blob) {
            (Some(text), _) => Ok(ResourceContents::Text {
                uri: w.uri,
                mime_type: w.mime_type,
                text,
                meta: w.meta,
                raw: value,
            }),
            (None, Some(blob)) => Ok(ResourceContents::Blob {
                uri: w.uri,
                mime_type: w.mime_type,
                blob,
                meta: w.meta,
                raw: value,
            }),
            (None, None) => Err(DecodeError::new(WHAT, "missing field `text` or `blob`")),
        }
    }

    /// URI of the resource.
    pub fn uri(&self) -> &str {
        match self {
            ResourceContents::Text { uri, .. } | ResourceContents::Blob { uri, .. } => uri,
        }
    }

    /// MIME type, if known.
    pub fn mime_type(&self) -> Option<&str> {
        match self {
            ResourceContents::Text { mime_type, .. } | ResourceContents::Blob { mime_type, .. } => {
                mime_type.as_deref()
            }
        }
    }

    /// The `_meta` object.
    pub fn meta(&self) -> Option<&Meta> {
        match self {
            ResourceContents::Text { meta, .. } | ResourceContents::Blob { meta, .. } => meta.as_ref(),
        }
    }

    /// The text, for text contents.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            ResourceContents::Text { text, .. } => Some(text),
            ResourceContents::Blob { .. } => None,
        }
    }

    /// Decodes the base64 blob: `Ok(None)` for text contents, an error if the
    /// blob is not valid base64.
    pub fn decode_blob(&self) -> Result<Option<Vec<u8>>, DecodeError> {
        match self {
            ResourceContents::Text { .. } => Ok(None),
            ResourceContents::Blob { blob, .. } => {
                decode_base64("BlobResourceContents", "blob", blob).map(Some)
            }
        }
    }

    /// The raw JSON this was decoded from.
    pub fn raw(&self) -> &Value {
        match self {
            ResourceContents::Text { raw, .. } | ResourceContents::Blob { raw, .. } => raw,
        }
    }

    /// Consumes the contents, returning the raw JSON.
    pub fn into_raw(self) -> Value {
        match self {
            ResourceContents::Text { raw, .. } | ResourceContents::Blob { raw, .. } => raw,
        }
    }
}

impl FromValue for ResourceContents {
    fn from_value(value: Value) -> Result<Self, DecodeError> {
        ResourceContents::from_value(value)
    }
}

impl<'de> Deserialize<'de> for ResourceContents {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        ResourceContents::from_value(value).map_err(serde::de::Error::custom)
    }
}

/// The result of `resources/read`.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadResourceResult {
    /// The contents read (a resource may expand to several sub-resources).
    pub contents: Vec<ResourceContents>,
    /// The `_meta` object.
    pub meta: Option<Meta>,
    /// Cache TTL hint in milliseconds (`ttlMs`), if given; negative → 0.
    pub ttl_ms: Option<u64>,
    /// Cache scope hint (`"public"` / `"private"`), if given.
    pub cache_scope: Option<String>,
    raw: Value,
}

#[derive(Deserialize)]
struct ReadResourceResultWire {
    contents: Vec<ResourceContents>,
    #[serde(default, rename = "_meta")]
    meta: Option<Meta>,
}

impl ReadResourceResult {
    /// Decodes a `resources/read` result.
    pub fn from_value(value: Value) -> Result<Self, DecodeError> {
        let w: ReadResourceResultWire = decode_wire("ReadResourceResult", &value)?;
        Ok(Self {
            contents: w.contents,
            meta: w.meta,
            ttl_ms: ttl_hint(value.get("ttlMs")),
            cache_scope: cache_scope_hint(value.get("cacheScope")),
            raw: value,
        })
    }
}

raw_json_impls!(ReadResourceResult);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    // examples/ReadResourceResult/file-resource-contents.json
    const READ_RESULT: &str = r#"{
      "resultType": "complete",
      "contents": [
        {
          "uri": "file:///project/src/main.rs",
          "mimeType": "text/x-rust",
          "text": "fn main() {\n    println!(\"Hello world!\");\n}"
        }
      ],
      "ttlMs": 60000,
      "cacheScope": "private"
    }"#;

    // examples/BlobResourceContents/image-file-contents.json
    const BLOB: &str = r#"{
      "uri": "file:///example.png",
      "mimeType": "image/png",
      "blob": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
    }"#;

    // examples/TextResourceContents/text-file-contents.json
    const TEXT: &str = r#"{
      "uri": "file:///example.txt",
      "mimeType": "text/plain",
      "text": "Resource content"
    }"#;

    fn parse(s: &str) -> Value {
        serde_json::from_str(s).unwrap()
    }

    #[test]
    fn read_result_example() {
        let r = ReadResourceResult::from_value(parse(READ_RESULT)).unwrap();
        assert_eq!(r.ttl_ms, Some(60000));
        assert_eq!(r.cache_scope.as_deref(), Some("private"));
        assert_eq!(r.contents.len(), 1);
        let c = &r.contents[0];
        assert_eq!(c.uri(), "file:///project/src/main.rs");
        assert_eq!(c.mime_type(), Some("text/x-rust"));
        assert!(c.as_text().unwrap().starts_with("fn main()"));
        assert_eq!(c.decode_blob().unwrap(), None);
        assert_eq!(r.raw()["resultType"], "complete");
        let err = ReadResourceResult::from_value(json!({})).unwrap_err();
        assert_eq!(err.to_string(), "invalid ReadResourceResult: missing field `contents`");
    }

    #[test]
    fn text_and_blob_contents() {
        let t = ResourceContents::from_value(parse(TEXT)).unwrap();
        assert!(matches!(&t, ResourceContents::Text { text, .. } if text == "Resource content"));
        assert_eq!(t.raw(), &parse(TEXT));

        let b = ResourceContents::from_value(parse(BLOB)).unwrap();
        let bytes = b.decode_blob().unwrap().unwrap();
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
        assert_eq!(b.as_text(), None);
        assert_eq!(b.meta(), None);
        assert_eq!(b.into_raw(), parse(BLOB));
    }

    #[test]
    fn contents_errors() {
        let err = ResourceContents::from_value(json!({"uri": "u"})).unwrap_err();
        assert_eq!(err.to_string(), "invalid ResourceContents: missing field `text` or `blob`");
        let err = ResourceContents::from_value(json!({"text": "t"})).unwrap_err();
        assert_eq!(err.to_string(), "invalid ResourceContents: missing field `uri`");
        let bad = ResourceContents::from_value(json!({"uri": "u", "blob": "%%%"})).unwrap();
        let err = bad.decode_blob().unwrap_err();
        assert_eq!(err.what, "BlobResourceContents");
    }
}
