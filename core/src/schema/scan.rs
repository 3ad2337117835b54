//! One pass over a schema before the engine sees it: size, pattern lengths, identifier
//! collisions and the annotation-only keywords it uses.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::{Dialect, SchemaLimits, SchemaProblem};

/// Keywords that only annotate unless asked otherwise; a schema using them is validated partially.
const ANNOTATION_KEYWORDS: [&str; 4] = ["format", "contentMediaType", "contentEncoding", "contentSchema"];

/// Keywords whose value is one subschema.
const ONE: [&str; 12] = [
    "additionalProperties",
    "additionalItems",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
    "unevaluatedItems",
    "unevaluatedProperties",
    "contentSchema",
    "items",
];
/// Keywords whose value maps names to subschemas.
const MAP: [&str; 6] =
    ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"];
/// Keywords whose value is a list of subschemas.
const LIST: [&str; 5] = ["allOf", "anyOf", "oneOf", "prefixItems", "items"];

/// The base URI of a document without an `$id` (the engine uses the same).
const DEFAULT_BASE: &str = "json-schema:///";

/// What the scan learnt.
#[derive(Debug, Default)]
pub(super) struct Found {
    /// Annotation-only keywords the schema uses, in [`ANNOTATION_KEYWORDS`] order.
    pub(super) annotation_keywords: Vec<&'static str>,
}

pub(super) fn scan(schema: &Value, dialect: Dialect, limits: &SchemaLimits) -> Result<Found, SchemaProblem> {
    count_values(schema, limits.max_schema_nodes)?;
    let mut used = [false; ANNOTATION_KEYWORDS.len()];
    // Identifier -> JSON Pointer of the schema that declares it.
    let mut identifiers: BTreeMap<String, String> = BTreeMap::new();
    let mut stack: Vec<(&Value, String, String)> = vec![(schema, DEFAULT_BASE.to_owned(), String::new())];
    while let Some((value, base, pointer)) = stack.pop() {
        let Value::Object(map) = value else { continue };
        for (i, keyword) in ANNOTATION_KEYWORDS.iter().enumerate() {
            used[i] |= map.contains_key(*keyword);
        }
        check_patterns(map, limits)?;
        let ids_ignored = dialect.ref_overrides_siblings() && map.contains_key("$ref");
        let base = if ids_ignored { base } else { declare(map, dialect, base, &pointer, &mut identifiers)? };
        for (keyword, sub) in map {
            let at = |suffix: &str| format!("{pointer}/{}{suffix}", escape(keyword));
            let k = keyword.as_str();
            match sub {
                Value::Object(_) | Value::Bool(_) if ONE.contains(&k) => {
                    stack.push((sub, base.clone(), at("")))
                }
                Value::Object(entries) if MAP.contains(&k) => {
                    for (name, s) in entries {
                        if s.is_object() || s.is_boolean() {
                            stack.push((s, base.clone(), at(&format!("/{}", escape(name)))));
                        }
                    }
                }
                Value::Array(items) if LIST.contains(&k) => {
                    for (i, s) in items.iter().enumerate() {
                        stack.push((s, base.clone(), at(&format!("/{i}"))));
                    }
                }
                _ => {}
            }
        }
    }
    let annotation_keywords =
        ANNOTATION_KEYWORDS.iter().zip(used).filter(|(_, u)| *u).map(|(k, _)| *k).collect();
    Ok(Found { annotation_keywords })
}

/// Registers the `$id` and anchors of one schema object; returns its base URI.
fn declare(
    map: &Map<String, Value>,
    dialect: Dialect,
    base: String,
    pointer: &str,
    identifiers: &mut BTreeMap<String, String>,
) -> Result<String, SchemaProblem> {
    let id_keyword = if dialect == Dialect::Draft4 { "id" } else { "$id" };
    let mut base = base;
    if let Some(Value::String(id)) = map.get(id_keyword) {
        let resolved = resolve(&base, id)?;
        let (resource, fragment) = match resolved.split_once('#') {
            Some((r, f)) => (r.to_owned(), f.to_owned()),
            None => (resolved.clone(), String::new()),
        };
        if resource != base || fragment.is_empty() {
            register(identifiers, resource.clone(), pointer)?;
        }
        if !fragment.is_empty() {
            // Draft-07 and older spell a plain-name anchor as `"$id": "#name"`.
            register(identifiers, format!("{resource}#{fragment}"), pointer)?;
        }
        base = resource;
    }
    for keyword in ["$anchor", "$dynamicAnchor"] {
        if let Some(Value::String(anchor)) = map.get(keyword) {
            register(identifiers, format!("{base}#{anchor}"), pointer)?;
        }
    }
    Ok(base)
}

/// Records one identifier; the same one at another place is a collision.
fn register(
    identifiers: &mut BTreeMap<String, String>,
    key: String,
    pointer: &str,
) -> Result<(), SchemaProblem> {
    match identifiers.get(&key) {
        Some(existing) if existing != pointer => {
            let identifier = key.strip_prefix(DEFAULT_BASE).map_or(key.clone(), |rest| rest.to_owned());
            Err(SchemaProblem::DuplicateIdentifier { identifier: crate::text::sanitize(&identifier, 200) })
        }
        Some(_) => Ok(()),
        None => {
            identifiers.insert(key, pointer.to_owned());
            Ok(())
        }
    }
}

fn resolve(base: &str, reference: &str) -> Result<String, SchemaProblem> {
    let invalid = |e: &dyn std::fmt::Display| SchemaProblem::Invalid {
        detail: format!("invalid $id {:?}: {e}", crate::text::sanitize(reference, 200)),
    };
    let base = jsonschema::uri::from_str(base).map_err(|e| invalid(&e))?;
    let resolved = jsonschema::uri::resolve_against(&base.borrow(), reference).map_err(|e| invalid(&e))?;
    let s = resolved.as_str();
    Ok(s.strip_suffix('#').unwrap_or(s).to_owned())
}

fn check_patterns(map: &Map<String, Value>, limits: &SchemaLimits) -> Result<(), SchemaProblem> {
    let too_long = |p: &str| {
        (p.len() > limits.max_pattern_len)
            .then_some(SchemaProblem::PatternTooLong { len: p.len(), limit: limits.max_pattern_len })
    };
    if let Some(Value::String(p)) = map.get("pattern") {
        if let Some(problem) = too_long(p) {
            return Err(problem);
        }
    }
    if let Some(Value::Object(props)) = map.get("patternProperties") {
        if let Some(problem) = props.keys().find_map(|p| too_long(p)) {
            return Err(problem);
        }
    }
    Ok(())
}

/// Refuses documents with more values than `limit` (serde_json already bounds their depth).
fn count_values(schema: &Value, limit: usize) -> Result<(), SchemaProblem> {
    let mut count = 0usize;
    let mut stack = vec![schema];
    while let Some(value) = stack.pop() {
        count += 1;
        if count > limit {
            return Err(SchemaProblem::TooLarge { limit });
        }
        match value {
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.values()),
            _ => {}
        }
    }
    Ok(())
}

/// JSON Pointer escaping of one reference token.
fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}
