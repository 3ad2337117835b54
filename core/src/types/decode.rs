//! How every type here decodes: the leniency rules' shared readers (`_meta`, TTL and cache
//! hints, base64, numbers), the one decode error, and the macro that gives each type its
//! `raw()` / `into_raw()`.

use serde::de::{DeserializeOwned, Deserializer};
use serde::Deserialize;
use serde_json::{Map, Value};

/// The `_meta` object carried by many MCP types.
pub type Meta = Map<String, Value>;

/// The `_meta` key under which a 2026-07-28 result names the server software.
pub const SERVER_INFO_META_KEY: &str = "io.modelcontextprotocol/serverInfo";

/// A JSON value could not be decoded into one of the typed MCP structures.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid {what}: {detail}")]
pub struct DecodeError {
    /// The name of the type being decoded, e.g. `"Tool"`.
    pub what: &'static str,
    /// What was wrong, e.g. ``missing field `name` ``.
    pub detail: String,
}

impl DecodeError {
    /// Creates a decode error for the type `what`.
    pub fn new(what: &'static str, detail: impl Into<String>) -> Self {
        Self { what, detail: detail.into() }
    }
}

/// Types that can be decoded from a JSON value.
///
/// Every type in this module implements it by delegating to its inherent
/// `from_value`; it exists so generic code such as
/// [`ListPage::decode_items`](super::ListPage::decode_items) can decode any of them.
pub trait FromValue: Sized {
    /// Decodes `value`, keeping it as the raw JSON of the result.
    fn from_value(value: Value) -> Result<Self, DecodeError>;
}

/// Implements `raw()`, `into_raw()`, [`FromValue`] and `Deserialize` for a
/// struct with a private `raw` field (a `Value` or a [`RawJson`](super::RawJson)) and an inherent `from_value`.
macro_rules! raw_json_impls {
    ($($ty:ident),* $(,)?) => {$(
        impl $ty {
            /// The raw JSON this value was decoded from.
            pub fn raw(&self) -> &::serde_json::Value {
                $crate::types::RawField::json(&self.raw)
            }

            /// Consumes the value, returning the raw JSON it was decoded from.
            pub fn into_raw(self) -> ::serde_json::Value {
                $crate::types::RawField::into_json(self.raw)
            }
        }

        impl $crate::types::FromValue for $ty {
            fn from_value(
                value: ::serde_json::Value,
            ) -> ::std::result::Result<Self, $crate::types::DecodeError> {
                $ty::from_value(value)
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $ty {
            fn deserialize<D>(deserializer: D) -> ::std::result::Result<Self, D::Error>
            where
                D: ::serde::Deserializer<'de>,
            {
                let value = <::serde_json::Value as ::serde::Deserialize>::deserialize(deserializer)?;
                $ty::from_value(value).map_err(<D::Error as ::serde::de::Error>::custom)
            }
        }
    )*};
}
pub(crate) use raw_json_impls;

/// A short name for the JSON type of `value`, for error messages: `null`, `a boolean`,
/// `a number`, `a string`, `an array` or `an object`.
pub fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Checks that `value` is a JSON object.
pub(crate) fn expect_object<'a>(
    what: &'static str,
    value: &'a Value,
) -> Result<&'a Map<String, Value>, DecodeError> {
    value
        .as_object()
        .ok_or_else(|| DecodeError::new(what, format!("expected a JSON object, got {}", json_kind(value))))
}

/// Decodes `value` (which must be an object) into the serde "wire" struct `W`.
pub(crate) fn decode_wire<W: DeserializeOwned>(what: &'static str, value: &Value) -> Result<W, DecodeError> {
    expect_object(what, value)?;
    W::deserialize(value).map_err(|e| DecodeError::new(what, e.to_string()))
}

/// Serde helper: a field that is present (even as JSON `null`) decodes to
/// `Some(value)`; use with `#[serde(default)]` so an absent field is `None`.
pub(crate) fn de_present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// Serde helper: an optional non-negative integer. Integral floats such as
/// `1024.0` are accepted; `null` is `None`.
pub(crate) fn de_opt_u64<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    match Option::<Value>::deserialize(d)? {
        None | Some(Value::Null) => Ok(None),
        Some(v) => exact_u64(&v).map(Some).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "expected a non-negative integer, got {}",
                if v.is_number() { v.to_string() } else { json_kind(&v).to_owned() }
            ))
        }),
    }
}

/// The value of `v` as a `u64` if it is a non-negative integer (or an
/// integral float in range).
fn exact_u64(v: &Value) -> Option<u64> {
    if let Some(n) = v.as_u64() {
        return Some(n);
    }
    let f = v.as_f64()?;
    if f.is_finite() && f >= 0.0 && f.fract() == 0.0 && f < u64::MAX as f64 {
        Some(f as u64)
    } else {
        None
    }
}

/// Interprets a `ttlMs` cache hint leniently: a negative number is `0`, a
/// fractional one is truncated, a huge one saturates; anything that is not a
/// number (or is absent) is `None`.
pub(crate) fn ttl_hint(v: Option<&Value>) -> Option<u64> {
    let v = v?;
    if let Some(n) = v.as_u64() {
        return Some(n);
    }
    if v.as_i64().is_some() {
        return Some(0);
    }
    let f = v.as_f64()?;
    if f.is_nan() || f <= 0.0 {
        Some(0)
    } else {
        // `as` saturates at u64::MAX for large values.
        Some(f as u64)
    }
}

/// The `cacheScope` hint, if it is a string.
pub(crate) fn cache_scope_hint(v: Option<&Value>) -> Option<String> {
    v.and_then(Value::as_str).map(str::to_owned)
}

/// Decodes base64 `data` (standard alphabet), tolerating embedded ASCII
/// whitespace (line-wrapped encoders) and missing padding.
pub(crate) fn decode_base64(what: &'static str, field: &str, data: &str) -> Result<Vec<u8>, DecodeError> {
    use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
    use base64::Engine as _;
    const ENGINE: GeneralPurpose = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
    );
    let result = if data.bytes().any(|b| b.is_ascii_whitespace()) {
        let compact: Vec<u8> = data.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
        ENGINE.decode(compact)
    } else {
        ENGINE.decode(data)
    };
    result.map_err(|e| DecodeError::new(what, format!("invalid base64 in `{field}`: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn decode_error_display() {
        let e = DecodeError::new("Tool", "missing field `name`");
        assert_eq!(e.to_string(), "invalid Tool: missing field `name`");
    }

    #[test]
    fn ttl_hint_is_lenient() {
        assert_eq!(ttl_hint(None), None);
        assert_eq!(ttl_hint(Some(&json!("5"))), None);
        assert_eq!(ttl_hint(Some(&json!(5))), Some(5));
        assert_eq!(ttl_hint(Some(&json!(-5))), Some(0));
        assert_eq!(ttl_hint(Some(&json!(-0.5))), Some(0));
        assert_eq!(ttl_hint(Some(&json!(2.9))), Some(2));
        assert_eq!(ttl_hint(Some(&json!(1e300))), Some(u64::MAX));
    }

    #[test]
    fn exact_u64_accepts_integral_floats_only() {
        assert_eq!(exact_u64(&json!(7)), Some(7));
        assert_eq!(exact_u64(&json!(7.0)), Some(7));
        assert_eq!(exact_u64(&json!(7.5)), None);
        assert_eq!(exact_u64(&json!(-1)), None);
        assert_eq!(exact_u64(&json!("7")), None);
    }

    #[test]
    fn base64_tolerates_whitespace_and_missing_padding() {
        assert_eq!(decode_base64("T", "data", "aGVsbG8=").unwrap(), b"hello");
        assert_eq!(decode_base64("T", "data", "aGVs\nbG8").unwrap(), b"hello");
        let err = decode_base64("T", "data", "!!!").unwrap_err();
        assert_eq!(err.what, "T");
        assert!(err.detail.starts_with("invalid base64 in `data`"), "{err}");
    }

    #[test]
    fn decode_wire_rejects_non_objects() {
        #[derive(Deserialize)]
        struct W {}
        let err = decode_wire::<W>("Thing", &json!([1])).map(|_| ()).unwrap_err();
        assert_eq!(err.to_string(), "invalid Thing: expected a JSON object, got an array");
    }
}
