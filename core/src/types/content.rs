//! Content blocks carried by tool results and prompt messages.

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::{
    decode_base64, decode_wire, expect_object, json_kind, raw_json_impls, Annotations, DecodeError,
    FromValue, Meta, RawJson, ResourceContents, ResourceLink,
};

/// One block of content, keyed by its `type` field.
///
/// A block whose `type` this crate does not know decodes to
/// [`ContentBlock::Unknown`] rather than failing, so newer servers keep
/// working.
#[derive(Debug, Clone, PartialEq)]
pub enum ContentBlock {
    /// `"type": "text"`.
    Text(TextContent),
    /// `"type": "image"`.
    Image(ImageContent),
    /// `"type": "audio"`.
    Audio(AudioContent),
    /// `"type": "resource_link"`.
    ResourceLink(ResourceLink),
    /// `"type": "resource"`.
    EmbeddedResource(EmbeddedResource),
    /// A block with a `type` this crate does not model; the whole JSON object.
    Unknown(Value),
}

impl ContentBlock {
    /// Decodes a content block. An unknown `type` is [`ContentBlock::Unknown`];
    /// a missing or non-string `type`, or a known type with missing required
    /// fields, is an error.
    pub fn from_value(value: Value) -> Result<Self, DecodeError> {
        const WHAT: &str = "ContentBlock";
        let obj = expect_object(WHAT, &value)?;
        let ty = match obj.get("type") {
            Some(Value::String(s)) => s.as_str(),
            Some(other) => {
                return Err(DecodeError::new(
                    WHAT,
                    format!("field `type` must be a string, got {}", json_kind(other)),
                ))
            }
            None => return Err(DecodeError::new(WHAT, "missing field `type`")),
        };
        Ok(match ty {
            "text" => ContentBlock::Text(TextContent::from_value(value)?),
            "image" => ContentBlock::Image(ImageContent::from_value(value)?),
            "audio" => ContentBlock::Audio(AudioContent::from_value(value)?),
            "resource_link" => ContentBlock::ResourceLink(ResourceLink::from_value(value)?),
            "resource" => ContentBlock::EmbeddedResource(EmbeddedResource::from_value(value)?),
            _ => ContentBlock::Unknown(value),
        })
    }

    /// The block's `type` string (e.g. `"text"`), also for unknown blocks.
    pub fn content_type(&self) -> &str {
        match self {
            ContentBlock::Text(_) => "text",
            ContentBlock::Image(_) => "image",
            ContentBlock::Audio(_) => "audio",
            ContentBlock::ResourceLink(_) => "resource_link",
            ContentBlock::EmbeddedResource(_) => "resource",
            ContentBlock::Unknown(v) => v.get("type").and_then(Value::as_str).unwrap_or(""),
        }
    }

    /// The text of a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            ContentBlock::Text(t) => Some(&t.text),
            _ => None,
        }
    }

    /// The block's annotations, if it is a known type that has them.
    pub fn annotations(&self) -> Option<&Annotations> {
        match self {
            ContentBlock::Text(c) => c.annotations.as_ref(),
            ContentBlock::Image(c) => c.annotations.as_ref(),
            ContentBlock::Audio(c) => c.annotations.as_ref(),
            ContentBlock::ResourceLink(c) => c.annotations.as_ref(),
            ContentBlock::EmbeddedResource(c) => c.annotations.as_ref(),
            ContentBlock::Unknown(_) => None,
        }
    }

    /// The raw JSON of the block.
    pub fn raw(&self) -> &Value {
        match self {
            ContentBlock::Text(c) => c.raw(),
            ContentBlock::Image(c) => c.raw(),
            ContentBlock::Audio(c) => c.raw(),
            ContentBlock::ResourceLink(c) => c.raw(),
            ContentBlock::EmbeddedResource(c) => c.raw(),
            ContentBlock::Unknown(v) => v,
        }
    }

    /// Consumes the block, returning its raw JSON.
    pub fn into_raw(self) -> Value {
        match self {
            ContentBlock::Text(c) => c.into_raw(),
            ContentBlock::Image(c) => c.into_raw(),
            ContentBlock::Audio(c) => c.into_raw(),
            ContentBlock::ResourceLink(c) => c.into_raw(),
            ContentBlock::EmbeddedResource(c) => c.into_raw(),
            ContentBlock::Unknown(v) => v,
        }
    }
}

impl FromValue for ContentBlock {
    fn from_value(value: Value) -> Result<Self, DecodeError> {
        ContentBlock::from_value(value)
    }
}

impl<'de> Deserialize<'de> for ContentBlock {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        ContentBlock::from_value(value).map_err(serde::de::Error::custom)
    }
}

/// Text content.
#[derive(Debug, Clone, PartialEq)]
pub struct TextContent {
    /// The text.
    pub text: String,
    /// Client-facing annotations.
    pub annotations: Option<Annotations>,
    /// The `_meta` object.
    pub meta: Option<Meta>,
    raw: RawJson,
}

#[derive(Deserialize)]
struct TextWire {
    text: String,
    #[serde(default)]
    annotations: Option<Annotations>,
    #[serde(default, rename = "_meta")]
    meta: Option<Meta>,
}

impl TextContent {
    /// Decodes a text content object (the `type` field is not checked).
    pub fn from_value(value: Value) -> Result<Self, DecodeError> {
        let w: TextWire = decode_wire("TextContent", &value)?;
        Ok(Self { text: w.text, annotations: w.annotations, meta: w.meta, raw: value.into() })
    }
}

/// A text block's members, decoded straight from its JSON text.
#[derive(Deserialize)]
struct TextBlockWire<'a> {
    #[serde(rename = "type", borrow)]
    kind: std::borrow::Cow<'a, str>,
    text: String,
    #[serde(default)]
    annotations: Option<Annotations>,
    #[serde(default, rename = "_meta")]
    meta: Option<Meta>,
}

/// A text block of a response decoded in one pass ([`CallToolResult::from_answer_line`]):
/// its members, its raw JSON given later (its place in the line). Any other type of block is
/// refused, so the whole response takes the general path.
///
/// [`CallToolResult::from_answer_line`]: super::CallToolResult
pub(crate) struct LineTextBlock {
    text: String,
    annotations: Option<Annotations>,
    meta: Option<Meta>,
}

impl<'de> Deserialize<'de> for LineTextBlock {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let w = TextBlockWire::deserialize(d)?;
        if w.kind != "text" {
            return Err(serde::de::Error::custom("not a text block"));
        }
        Ok(Self { text: w.text, annotations: w.annotations, meta: w.meta })
    }
}

impl LineTextBlock {
    /// The block, with its raw JSON.
    pub(crate) fn into_block(self, raw: RawJson) -> ContentBlock {
        ContentBlock::Text(TextContent {
            text: self.text,
            annotations: self.annotations,
            meta: self.meta,
            raw,
        })
    }
}

impl ContentBlock {
    /// Decodes a block from its JSON text, keeping the text as its raw JSON. A text block
    /// decodes straight from the text; any other block (or one the direct decode refuses,
    /// such as a repeated member) goes through [`ContentBlock::from_value`], so both paths
    /// accept and refuse the same blocks alike.
    pub(crate) fn from_json_text(text: Box<RawValue>) -> Result<Self, DecodeError> {
        match serde_json::from_str::<TextBlockWire<'_>>(text.get()) {
            Ok(w) if w.kind == "text" => Ok(ContentBlock::Text(TextContent {
                text: w.text,
                annotations: w.annotations,
                meta: w.meta,
                raw: RawJson::from_text(text),
            })),
            _ => {
                let value = serde_json::from_str(text.get())
                    .map_err(|e| DecodeError::new("ContentBlock", e.to_string()))?;
                ContentBlock::from_value(value)
            }
        }
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct MediaWire {
    data: String,
    mime_type: String,
    #[serde(default)]
    annotations: Option<Annotations>,
    #[serde(default, rename = "_meta")]
    meta: Option<Meta>,
}

/// Defines a base64 media content struct (image or audio).
macro_rules! media_content {
    ($(#[$doc:meta])* $ty:ident, $what:literal, $kind:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq)]
        pub struct $ty {
            #[doc = concat!("Base64-encoded ", $kind, " data; see [`Self::decode_data`].")]
            pub data: String,
            #[doc = concat!("MIME type of the ", $kind, " (`mimeType`).")]
            pub mime_type: String,
            /// Client-facing annotations.
            pub annotations: Option<Annotations>,
            /// The `_meta` object.
            pub meta: Option<Meta>,
            raw: Value,
        }

        impl $ty {
            #[doc = concat!("Decodes an `", $what, "` object (the `type` field is not checked).")]
            pub fn from_value(value: Value) -> Result<Self, DecodeError> {
                let w: MediaWire = decode_wire($what, &value)?;
                Ok(Self {
                    data: w.data,
                    mime_type: w.mime_type,
                    annotations: w.annotations,
                    meta: w.meta,
                    raw: value,
                })
            }

            /// Decodes the base64 `data` (standard alphabet; whitespace and
            /// missing padding are tolerated).
            pub fn decode_data(&self) -> Result<Vec<u8>, DecodeError> {
                decode_base64($what, "data", &self.data)
            }
        }
    };
}

media_content!(
    /// Image content (base64 data plus MIME type).
    ImageContent,
    "ImageContent",
    "image"
);
media_content!(
    /// Audio content (base64 data plus MIME type).
    AudioContent,
    "AudioContent",
    "audio"
);

/// A resource's contents embedded in a result (`"type": "resource"`).
#[derive(Debug, Clone, PartialEq)]
pub struct EmbeddedResource {
    /// The embedded text or blob contents.
    pub resource: ResourceContents,
    /// Client-facing annotations.
    pub annotations: Option<Annotations>,
    /// The `_meta` object.
    pub meta: Option<Meta>,
    raw: Value,
}

#[derive(Deserialize)]
struct EmbeddedWire {
    resource: ResourceContents,
    #[serde(default)]
    annotations: Option<Annotations>,
    #[serde(default, rename = "_meta")]
    meta: Option<Meta>,
}

impl EmbeddedResource {
    /// Decodes an embedded resource object (the `type` field is not checked).
    pub fn from_value(value: Value) -> Result<Self, DecodeError> {
        let w: EmbeddedWire = decode_wire("EmbeddedResource", &value)?;
        Ok(Self { resource: w.resource, annotations: w.annotations, meta: w.meta, raw: value })
    }
}

raw_json_impls!(TextContent, ImageContent, AudioContent, EmbeddedResource);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    // examples/TextContent/text-content.json
    const TEXT: &str = r#"{ "type": "text", "text": "Tool result text" }"#;

    // examples/ImageContent/image-png-content-with-annotations.json
    const IMAGE: &str = r#"{
      "type": "image",
      "data": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
      "mimeType": "image/png",
      "annotations": { "audience": ["user"], "priority": 0.9 }
    }"#;

    // examples/AudioContent/audio-wav-content.json
    const AUDIO: &str = r#"{
      "type": "audio",
      "data": "UklGRiQAAABXQVZFZm10IBAAAAABAAEARKwAAIhYAQACABAAZGF0YQAAAAA=",
      "mimeType": "audio/wav"
    }"#;

    // examples/ResourceLink/file-resource-link.json
    const LINK: &str = r#"{
      "type": "resource_link",
      "uri": "file:///project/src/main.rs",
      "name": "main.rs",
      "description": "Primary application entry point",
      "mimeType": "text/x-rust"
    }"#;

    // examples/EmbeddedResource/embedded-file-resource-with-annotations.json
    const EMBEDDED: &str = r#"{
      "type": "resource",
      "resource": {
        "uri": "file:///project/src/main.rs",
        "mimeType": "text/x-rust",
        "text": "fn main() {\n    println!(\"Hello world!\");\n}"
      },
      "annotations": {
        "audience": ["user", "assistant"],
        "priority": 0.7,
        "lastModified": "2025-05-03T14:30:00Z"
      }
    }"#;

    fn block(s: &str) -> ContentBlock {
        ContentBlock::from_value(serde_json::from_str(s).unwrap()).unwrap()
    }

    #[test]
    fn text_example() {
        let b = block(TEXT);
        assert_eq!(b.as_text(), Some("Tool result text"));
        assert_eq!(b.content_type(), "text");
        assert_eq!(b.raw(), &serde_json::from_str::<Value>(TEXT).unwrap());
        assert!(b.annotations().is_none());
    }

    #[test]
    fn image_example_and_decode() {
        let ContentBlock::Image(img) = block(IMAGE) else { panic!("not an image") };
        assert_eq!(img.mime_type, "image/png");
        let a = img.annotations.as_ref().unwrap();
        assert_eq!(a.audience, vec!["user"]);
        assert_eq!(a.priority, Some(0.9));
        let bytes = img.decode_data().unwrap();
        assert_eq!(&bytes[1..4], b"PNG");
        assert_eq!(img.raw()["type"], "image");
    }

    #[test]
    fn audio_example_and_decode() {
        let b = block(AUDIO);
        assert_eq!(b.content_type(), "audio");
        let ContentBlock::Audio(audio) = b else { panic!("not audio") };
        assert_eq!(audio.mime_type, "audio/wav");
        assert_eq!(&audio.decode_data().unwrap()[..4], b"RIFF");
        let bad = AudioContent::from_value(json!({"data": "@@", "mimeType": "audio/wav"})).unwrap();
        let err = bad.decode_data().unwrap_err();
        assert_eq!(err.what, "AudioContent");
    }

    #[test]
    fn resource_link_example() {
        let ContentBlock::ResourceLink(link) = block(LINK) else { panic!("not a link") };
        assert_eq!(link.uri, "file:///project/src/main.rs");
        assert_eq!(link.name, "main.rs");
        assert_eq!(link.mime_type.as_deref(), Some("text/x-rust"));
        assert_eq!(link.raw()["type"], "resource_link");
    }

    #[test]
    fn embedded_example() {
        let b = block(EMBEDDED);
        assert_eq!(b.annotations().unwrap().last_modified.as_deref(), Some("2025-05-03T14:30:00Z"));
        let ContentBlock::EmbeddedResource(e) = b else { panic!("not embedded") };
        assert_eq!(e.resource.uri(), "file:///project/src/main.rs");
        assert!(e.resource.as_text().unwrap().contains("Hello world!"));
        assert_eq!(e.resource.raw()["mimeType"], "text/x-rust");
    }

    #[test]
    fn unknown_type_is_kept() {
        let v = json!({"type": "hologram", "frames": 3});
        let b = ContentBlock::from_value(v.clone()).unwrap();
        assert_eq!(b, ContentBlock::Unknown(v.clone()));
        assert_eq!(b.content_type(), "hologram");
        assert_eq!(b.as_text(), None);
        assert_eq!(b.into_raw(), v);
    }

    #[test]
    fn missing_required_fields() {
        let err = ContentBlock::from_value(json!({"type": "text"})).unwrap_err();
        assert_eq!(err.to_string(), "invalid TextContent: missing field `text`");
        let err = ContentBlock::from_value(json!({"type": "image", "data": "AA=="})).unwrap_err();
        assert_eq!(err.to_string(), "invalid ImageContent: missing field `mimeType`");
        let err = ContentBlock::from_value(json!({"type": "resource"})).unwrap_err();
        assert_eq!(err.to_string(), "invalid EmbeddedResource: missing field `resource`");
        let err = ContentBlock::from_value(json!({"type": "resource_link", "uri": "u"})).unwrap_err();
        assert_eq!(err.to_string(), "invalid ResourceLink: missing field `name`");
        let err = ContentBlock::from_value(json!({"text": "x"})).unwrap_err();
        assert_eq!(err.to_string(), "invalid ContentBlock: missing field `type`");
        let err = ContentBlock::from_value(json!({"type": 1})).unwrap_err();
        assert_eq!(err.to_string(), "invalid ContentBlock: field `type` must be a string, got a number");
        let err = ContentBlock::from_value(json!("text")).unwrap_err();
        assert_eq!(err.to_string(), "invalid ContentBlock: expected a JSON object, got a string");
    }

    #[test]
    fn wrong_field_type_is_error() {
        let err = ContentBlock::from_value(json!({"type": "text", "text": 5})).unwrap_err();
        assert_eq!(err.what, "TextContent");
        assert!(err.detail.contains("invalid type"), "{err}");
    }
}
