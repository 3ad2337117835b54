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
    /// Some pattern needs the backtracking engine (backreferences or lookaround); the others
    /// run on a linear-time engine.
    pub(super) backtracking: bool,
}

pub(super) fn scan(
    schema: &Value,
    dialect: Dialect,
    limits: &SchemaLimits,
    resources: &BTreeMap<String, Value>,
) -> Result<Found, SchemaProblem> {
    count_values(schema, limits.max_schema_nodes)?;
    let mut used = [false; ANNOTATION_KEYWORDS.len()];
    let mut backtracking = false;
    // Resolved references, in the order met.
    let mut references: Vec<String> = Vec::new();
    // Identifier -> JSON Pointer of the schema that declares it.
    let mut identifiers: BTreeMap<String, String> = BTreeMap::new();
    let mut stack: Vec<(&Value, String, String)> = vec![(schema, DEFAULT_BASE.to_owned(), String::new())];
    while let Some((value, base, pointer)) = stack.pop() {
        let Value::Object(map) = value else { continue };
        for (i, keyword) in ANNOTATION_KEYWORDS.iter().enumerate() {
            used[i] |= map.contains_key(*keyword);
        }
        backtracking |= check_patterns(map, limits)?;
        for keyword in ["$ref", "$dynamicRef", "$recursiveRef"] {
            if let Some(Value::String(reference)) = map.get(keyword) {
                references.push(resolve(&base_of(map, dialect, &base)?, reference)?);
            }
        }
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
    // The first reference (in document order) to a resource neither the document, the caller's
    // in-memory documents nor the engine's built-in meta-schemas provide.
    for reference in references {
        let resource = reference.split_once('#').map_or(reference.as_str(), |(r, _)| r);
        let known = resource == DEFAULT_BASE.trim_end_matches('/')
            || resource == DEFAULT_BASE
            || identifiers.contains_key(resource)
            || resources.contains_key(resource)
            || is_meta_schema(resource);
        if !known {
            return Err(SchemaProblem::ExternalReference {
                reference: crate::text::sanitize(&reference, 200),
            });
        }
    }
    let annotation_keywords =
        ANNOTATION_KEYWORDS.iter().zip(used).filter(|(_, u)| *u).map(|(k, _)| *k).collect();
    Ok(Found { annotation_keywords, backtracking })
}

/// The base URI references in `map` resolve against: its own `$id` when it has one.
fn base_of(map: &Map<String, Value>, dialect: Dialect, base: &str) -> Result<String, SchemaProblem> {
    let id_keyword = if dialect == Dialect::Draft4 { "id" } else { "$id" };
    if dialect.ref_overrides_siblings() {
        // A `$ref` beside an `$id` ignores it in draft-07 and older.
        return Ok(base.to_owned());
    }
    match map.get(id_keyword) {
        Some(Value::String(id)) => {
            let resolved = resolve(base, id)?;
            Ok(resolved.split_once('#').map_or(resolved.clone(), |(r, _)| r.to_owned()))
        }
        _ => Ok(base.to_owned()),
    }
}

/// The engine ships the meta-schemas (and vocabularies) of every dialect.
fn is_meta_schema(resource: &str) -> bool {
    let rest = resource.strip_prefix("https://").or_else(|| resource.strip_prefix("http://"));
    rest.is_some_and(|r| r.starts_with("json-schema.org/"))
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

/// Checks pattern lengths; returns whether a pattern needs the backtracking engine.
fn check_patterns(map: &Map<String, Value>, limits: &SchemaLimits) -> Result<bool, SchemaProblem> {
    let too_long = |p: &str| {
        (p.len() > limits.max_pattern_len)
            .then_some(SchemaProblem::PatternTooLong { len: p.len(), limit: limits.max_pattern_len })
    };
    let mut backtracking = false;
    if let Some(Value::String(p)) = map.get("pattern") {
        if let Some(problem) = too_long(p) {
            return Err(problem);
        }
        backtracking |= needs_backtracking(p);
    }
    if let Some(Value::Object(props)) = map.get("patternProperties") {
        if let Some(problem) = props.keys().find_map(|p| too_long(p)) {
            return Err(problem);
        }
        backtracking |= props.keys().any(|p| needs_backtracking(p));
    }
    Ok(backtracking)
}

/// Whether a pattern uses what only the backtracking engine implements (backreferences,
/// lookaround). Over-approximates: an escaped backslash before a digit also counts.
fn needs_backtracking(pattern: &str) -> bool {
    let b = pattern.as_bytes();
    let backreference =
        b.windows(2).any(|w| w[0] == b'\\' && (w[1].is_ascii_digit() && w[1] != b'0' || w[1] == b'k'));
    backreference || ["(?=", "(?!", "(?<=", "(?<!"].iter().any(|l| pattern.contains(l))
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
