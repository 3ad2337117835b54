//! Which JSON Schema dialect a document declares.

use std::collections::BTreeMap;

use serde_json::Value;

use super::SchemaProblem;
use crate::types::json_kind as kind;

/// A JSON Schema dialect this client implements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Dialect {
    /// Draft 4.
    Draft4,
    /// Draft 6.
    Draft6,
    /// Draft 7.
    Draft7,
    /// 2019-09.
    Draft201909,
    /// 2020-12, the default when `$schema` is absent (MCP 2025-11-25 and later).
    Draft202012,
}

impl Dialect {
    /// Every supported dialect, oldest first.
    pub const SUPPORTED: [Dialect; 5] =
        [Dialect::Draft4, Dialect::Draft6, Dialect::Draft7, Dialect::Draft201909, Dialect::Draft202012];

    /// The canonical meta-schema URI.
    pub fn uri(self) -> &'static str {
        match self {
            Dialect::Draft4 => "http://json-schema.org/draft-04/schema#",
            Dialect::Draft6 => "http://json-schema.org/draft-06/schema#",
            Dialect::Draft7 => "http://json-schema.org/draft-07/schema#",
            Dialect::Draft201909 => "https://json-schema.org/draft/2019-09/schema",
            Dialect::Draft202012 => "https://json-schema.org/draft/2020-12/schema",
        }
    }

    /// A short name (`"2020-12"`, `"draft-07"`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Dialect::Draft4 => "draft-04",
            Dialect::Draft6 => "draft-06",
            Dialect::Draft7 => "draft-07",
            Dialect::Draft201909 => "2019-09",
            Dialect::Draft202012 => "2020-12",
        }
    }

    /// The supported dialects, for messages.
    pub fn supported_list() -> String {
        Self::SUPPORTED.iter().map(|d| d.name()).collect::<Vec<_>>().join(", ")
    }

    /// The dialect `schema` declares with `$schema` (2020-12 when absent or for a boolean schema).
    pub fn of(schema: &Value) -> Result<Dialect, SchemaProblem> {
        Self::resolve(schema, Dialect::Draft202012, &BTreeMap::new())
    }

    /// Like [`Self::of`] with `default` for a schema without `$schema`, also accepting a custom
    /// meta-schema found in `resources` whose own `$schema` chain ends in a supported dialect.
    pub(super) fn resolve(
        schema: &Value,
        default: Dialect,
        resources: &BTreeMap<String, Value>,
    ) -> Result<Dialect, SchemaProblem> {
        let mut current = schema;
        // A few links of custom meta-schemas, then give up.
        for _ in 0..8 {
            let Some(uri) = declared(current)? else {
                return Ok(default);
            };
            if let Some(known) = Self::from_uri(uri) {
                return Ok(known);
            }
            let key = uri.strip_suffix('#').unwrap_or(uri);
            match resources.get(key) {
                Some(meta) => current = meta,
                None => {
                    return Err(SchemaProblem::UnsupportedDialect {
                        dialect: crate::text::sanitize(uri, 200),
                    });
                }
            }
        }
        Err(SchemaProblem::Invalid { detail: "the chain of custom meta-schemas is too long".into() })
    }

    /// The dialect of a meta-schema URI (an empty fragment and `http`/`https` are tolerated as
    /// the meta-schemas' own `$id`s are written).
    pub fn from_uri(uri: &str) -> Option<Dialect> {
        let trimmed = uri.strip_suffix('#').unwrap_or(uri);
        let rest = trimmed.strip_prefix("https://").or_else(|| trimmed.strip_prefix("http://"))?;
        match rest {
            "json-schema.org/draft-04/schema" => Some(Dialect::Draft4),
            "json-schema.org/draft-06/schema" => Some(Dialect::Draft6),
            "json-schema.org/draft-07/schema" => Some(Dialect::Draft7),
            "json-schema.org/draft/2019-09/schema" => Some(Dialect::Draft201909),
            "json-schema.org/draft/2020-12/schema" => Some(Dialect::Draft202012),
            _ => None,
        }
    }

    pub(super) fn engine_draft(self) -> jsonschema::Draft {
        match self {
            Dialect::Draft4 => jsonschema::Draft::Draft4,
            Dialect::Draft6 => jsonschema::Draft::Draft6,
            Dialect::Draft7 => jsonschema::Draft::Draft7,
            Dialect::Draft201909 => jsonschema::Draft::Draft201909,
            Dialect::Draft202012 => jsonschema::Draft::Draft202012,
        }
    }

    /// Whether `$ref` makes its sibling keywords ignored (draft-07 and older).
    pub(super) fn ref_overrides_siblings(self) -> bool {
        matches!(self, Dialect::Draft4 | Dialect::Draft6 | Dialect::Draft7)
    }
}

/// The `$schema` of a schema, if it declares one.
pub(super) fn declared(schema: &Value) -> Result<Option<&str>, SchemaProblem> {
    match schema {
        Value::Object(map) => match map.get("$schema") {
            None => Ok(None),
            Some(Value::String(uri)) => Ok(Some(uri)),
            Some(other) => Err(SchemaProblem::Invalid {
                detail: format!("$schema must be a string, not {}", kind(other)),
            }),
        },
        Value::Bool(_) => Ok(None),
        other => Err(SchemaProblem::Invalid {
            detail: format!("a schema must be an object or a boolean, not {}", kind(other)),
        }),
    }
}
