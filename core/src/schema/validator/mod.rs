//! The JSON Schema validator (feature `schema`): [`CompiledSchema`] and its options, problems
//! and failures, re-exported by [`crate::schema`], whose documentation describes the guarantees.

mod dialect;
mod scan;

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use serde_json::Value;

pub use dialect::Dialect;

/// Bounds on the work one schema and one validation may take.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SchemaLimits {
    /// Longest `pattern` (or `patternProperties` key), in bytes.
    pub max_pattern_len: usize,
    /// Backtracking steps one pattern match may take before it fails.
    pub backtrack_limit: usize,
    /// Backtracking steps one validation may take in all: an instance with more strings than
    /// `max_backtrack_steps / backtrack_limit` is refused unvalidated by a schema whose patterns
    /// need backtracking (backreferences, lookaround). Other patterns run in linear time.
    pub max_backtrack_steps: usize,
    /// Most JSON values (objects, arrays and scalars) in an instance.
    pub max_instance_nodes: usize,
    /// Deepest nesting of an instance.
    pub max_instance_depth: usize,
    /// Most JSON values in a schema document.
    pub max_schema_nodes: usize,
    /// Violations kept per failed validation (the count of all is kept too).
    pub max_violations: usize,
}

impl Default for SchemaLimits {
    fn default() -> Self {
        Self {
            max_pattern_len: 4096,
            backtrack_limit: 20_000,
            max_backtrack_steps: 20_000_000,
            max_instance_nodes: 1_000_000,
            max_instance_depth: 128,
            max_schema_nodes: 100_000,
            max_violations: 8,
        }
    }
}

/// How schemas are compiled.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SchemaOptions {
    /// The dialect of a schema without `$schema` (2020-12, as MCP specifies).
    pub default_dialect: Dialect,
    /// Assert `format` (off by default: it is an annotation in 2019-09 and 2020-12). Only with
    /// the `schema-formats` feature; without it `format` is never asserted.
    #[cfg(feature = "schema-formats")]
    pub assert_format: bool,
    /// Work bounds.
    pub limits: SchemaLimits,
    /// Documents a `$ref` may point to besides the schema itself, by absolute URI. They are
    /// served from memory; nothing else is ever retrieved.
    pub resources: BTreeMap<String, Value>,
}

impl Default for SchemaOptions {
    fn default() -> Self {
        Self {
            default_dialect: Dialect::Draft202012,
            #[cfg(feature = "schema-formats")]
            assert_format: false,
            limits: SchemaLimits::default(),
            resources: BTreeMap::new(),
        }
    }
}

impl SchemaOptions {
    /// Options that assert `format` (feature `schema-formats`).
    #[cfg(feature = "schema-formats")]
    pub fn asserting_format() -> Self {
        Self { assert_format: true, ..Self::default() }
    }

    /// Whether `format` is asserted: never without the `schema-formats` feature.
    fn format_asserted(&self) -> bool {
        #[cfg(feature = "schema-formats")]
        {
            self.assert_format
        }
        #[cfg(not(feature = "schema-formats"))]
        {
            false
        }
    }

    /// Adds a document `$ref`s may use, under its absolute URI.
    pub fn with_resource(mut self, uri: impl Into<String>, document: Value) -> Self {
        self.resources.insert(uri.into(), document);
        self
    }
}

/// Why a schema cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SchemaProblem {
    /// `$schema` names a dialect this client does not implement.
    #[error("unsupported JSON Schema dialect {dialect:?} (supported: {})", Dialect::supported_list())]
    UnsupportedDialect {
        /// The `$schema` value.
        dialect: String,
    },
    /// A `$ref` points outside the document; it is not fetched.
    #[error("the schema references {reference:?}, which it does not contain (external references are never fetched)")]
    ExternalReference {
        /// The reference, resolved.
        reference: String,
    },
    /// Two `$id`s, or two anchors of one resource, are the same.
    #[error("the schema declares {identifier:?} twice")]
    DuplicateIdentifier {
        /// The identifier, resolved.
        identifier: String,
    },
    /// A pattern is longer than the limit.
    #[error("a pattern is {len} bytes long (limit {limit})")]
    PatternTooLong {
        /// Its length.
        len: usize,
        /// The limit.
        limit: usize,
    },
    /// The schema document is larger than the limit.
    #[error("the schema has more than {limit} values")]
    TooLarge {
        /// The limit.
        limit: usize,
    },
    /// The schema is not valid for its dialect (including a pattern the engine cannot express).
    #[error("invalid schema: {detail}")]
    Invalid {
        /// What is wrong, at which location.
        detail: String,
    },
}

/// One way an instance fails its schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// JSON Pointer to the failing part of the instance (`""` is the whole instance).
    pub instance_path: String,
    /// JSON Pointer to the failing keyword in the schema.
    pub schema_path: String,
    /// What is wrong (instance excerpts are shortened).
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.instance_path.is_empty() { "(root)" } else { &self.instance_path };
        write!(f, "{at}: {}", self.message)
    }
}

/// Why an instance did not validate.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ValidationFailure {
    /// The instance breaks the schema.
    #[error("{}", describe(violations, *total))]
    Invalid {
        /// The first violations, in instance then schema order.
        violations: Vec<Violation>,
        /// How many there are in all.
        total: usize,
    },
    /// The instance is larger or deeper than the limits; it was not validated.
    #[error("the instance is too large to validate ({detail})")]
    TooLarge {
        /// Which limit.
        detail: String,
    },
}

impl ValidationFailure {
    /// The violations found (empty when the instance was too large to check).
    pub fn violations(&self) -> &[Violation] {
        match self {
            ValidationFailure::Invalid { violations, .. } => violations,
            ValidationFailure::TooLarge { .. } => &[],
        }
    }
}

fn describe(violations: &[Violation], total: usize) -> String {
    let mut out = violations.iter().map(Violation::to_string).collect::<Vec<_>>().join("; ");
    if total > violations.len() {
        out.push_str(&format!("; and {} more", total - violations.len()));
    }
    out
}

/// A schema compiled once and used for many instances. Cloning is cheap.
///
/// ```
/// use mcpwire_core::schema::{CompiledSchema, SchemaOptions};
/// use serde_json::json;
///
/// let schema = json!({"type": "object", "required": ["temperature"],
///                     "properties": {"temperature": {"type": "number"}}});
/// let compiled = CompiledSchema::compile(&schema, &SchemaOptions::default()).unwrap();
/// assert!(compiled.validate(&json!({"temperature": 21.5})).is_ok());
/// let failure = compiled.validate(&json!({"temperature": "warm"})).unwrap_err();
/// assert_eq!(failure.violations()[0].instance_path, "/temperature");
/// ```
#[derive(Clone)]
pub struct CompiledSchema {
    inner: Arc<Inner>,
}

struct Inner {
    validator: jsonschema::Validator,
    dialect: Dialect,
    unasserted: Vec<&'static str>,
    limits: SchemaLimits,
    /// Some pattern needs the backtracking engine.
    backtracking: bool,
}

impl fmt::Debug for CompiledSchema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CompiledSchema")
            .field("dialect", &self.inner.dialect)
            .field("unasserted", &self.inner.unasserted)
            .finish_non_exhaustive()
    }
}

impl CompiledSchema {
    /// Compiles `schema` (an object or a boolean) under `options`.
    pub fn compile(schema: &Value, options: &SchemaOptions) -> Result<Self, SchemaProblem> {
        let dialect = Dialect::resolve(schema, options.default_dialect, &options.resources)?;
        let found = scan::scan(schema, dialect, &options.limits, &options.resources)?;
        // The engine reads `$schema` itself (custom meta-schemas' vocabularies included); the
        // default applies only to a schema that declares none.
        let mut builder = jsonschema::options();
        if dialect::declared(schema)?.is_none() {
            builder = builder.with_draft(dialect.engine_draft());
        }
        // Asserting `format` is opt-in everywhere (the engine asserts it by default in draft-07
        // and older); with `schema-formats`, a custom meta-schema's format-assertion vocabulary
        // still applies; without it, nothing asserts `format`.
        let assert_format = options.format_asserted();
        if assert_format || dialect.ref_overrides_siblings() || cfg!(not(feature = "schema-formats")) {
            builder = builder.should_validate_formats(assert_format);
        }
        let mut builder = builder
            .with_pattern_options(
                jsonschema::PatternOptions::fancy_regex().backtrack_limit(options.limits.backtrack_limit),
            )
            .with_retriever(InMemory(options.resources.clone()));
        builder = builder.without_content_media_type_support("application/json");
        builder = builder.without_content_encoding_support("base64");
        let validator = builder.build(schema).map_err(|e| problem_of(&e))?;
        let mut unasserted = found.annotation_keywords;
        if assert_format {
            unasserted.retain(|k| *k != "format");
        }
        let inner = Inner {
            validator,
            dialect,
            unasserted,
            limits: options.limits.clone(),
            backtracking: found.backtracking,
        };
        Ok(Self { inner: Arc::new(inner) })
    }

    /// The dialect the schema was compiled under.
    pub fn dialect(&self) -> Dialect {
        self.inner.dialect
    }

    /// Keywords the schema uses that were not asserted (`format`, `contentMediaType`,
    /// `contentEncoding`, `contentSchema`): validation of this schema is partial.
    pub fn unasserted_keywords(&self) -> &[&'static str] {
        &self.inner.unasserted
    }

    /// Validates `instance`.
    pub fn validate(&self, instance: &Value) -> Result<(), ValidationFailure> {
        let limits = &self.inner.limits;
        check_size(instance, limits, self.inner.backtracking)?;
        if self.inner.validator.is_valid(instance) {
            return Ok(());
        }
        let mut all: Vec<Violation> = self
            .inner
            .validator
            .iter_errors(instance)
            .map(|e| Violation {
                instance_path: e.instance_path().as_str().to_owned(),
                schema_path: e.schema_path().as_str().to_owned(),
                message: message_of(&e),
            })
            .collect();
        if all.is_empty() {
            // `is_valid` and `iter_errors` disagree only if the engine failed internally; fail closed.
            all.push(Violation {
                instance_path: String::new(),
                schema_path: String::new(),
                message: "the validator could not decide".into(),
            });
        }
        all.sort_by(|a, b| (&a.instance_path, &a.schema_path).cmp(&(&b.instance_path, &b.schema_path)));
        let total = all.len();
        all.truncate(limits.max_violations.max(1));
        Err(ValidationFailure::Invalid { violations: all, total })
    }
}

/// Refuses instances larger or deeper than the limits, without recursion; with backtracking
/// patterns, also instances whose strings could exceed the whole-validation step budget.
fn check_size(instance: &Value, limits: &SchemaLimits, backtracking: bool) -> Result<(), ValidationFailure> {
    let max_strings = limits.max_backtrack_steps / limits.backtrack_limit.max(1);
    let mut strings = 0usize;
    let mut nodes = 0usize;
    let mut stack: Vec<(&Value, usize)> = vec![(instance, 1)];
    while let Some((value, depth)) = stack.pop() {
        nodes += 1;
        if nodes > limits.max_instance_nodes {
            return Err(ValidationFailure::TooLarge {
                detail: format!("more than {} values", limits.max_instance_nodes),
            });
        }
        if depth > limits.max_instance_depth {
            return Err(ValidationFailure::TooLarge {
                detail: format!("nested deeper than {}", limits.max_instance_depth),
            });
        }
        match value {
            Value::Array(items) => stack.extend(items.iter().map(|v| (v, depth + 1))),
            Value::Object(map) => {
                strings += map.len();
                stack.extend(map.values().map(|v| (v, depth + 1)));
            }
            Value::String(_) => strings += 1,
            _ => {}
        }
        if backtracking && strings > max_strings {
            return Err(ValidationFailure::TooLarge {
                detail: format!(
                    "more than {max_strings} strings for patterns that backtrack (budget {} steps)",
                    limits.max_backtrack_steps
                ),
            });
        }
    }
    Ok(())
}

/// The engine's message, or with the instance masked when quoting it would make it long.
fn message_of(error: &jsonschema::ValidationError<'_>) -> String {
    let full = error.to_string();
    if full.chars().count() <= 200 {
        return shorten(&full);
    }
    shorten(&error.masked_with("the value").to_string())
}

/// Engine messages quote the instance; keep them short.
fn shorten(message: &str) -> String {
    crate::text::sanitize(message, 300)
}

fn problem_of(error: &jsonschema::ValidationError<'_>) -> SchemaProblem {
    if let jsonschema::error::ValidationErrorKind::Referencing(r) = error.kind() {
        match r {
            jsonschema::ReferencingError::Unretrievable { uri, .. } => {
                return SchemaProblem::ExternalReference { reference: uri.clone() };
            }
            jsonschema::ReferencingError::UnknownSpecification { specification } => {
                return SchemaProblem::UnsupportedDialect { dialect: specification.clone() };
            }
            _ => {}
        }
    }
    let at = error.schema_path().as_str();
    let detail = if at.is_empty() {
        shorten(&error.to_string())
    } else {
        format!("{} at {at}", shorten(&error.to_string()))
    };
    SchemaProblem::Invalid { detail }
}

/// Serves the caller's documents; refuses everything else (no network, no files).
struct InMemory(BTreeMap<String, Value>);

impl jsonschema::Retrieve for InMemory {
    fn retrieve(
        &self,
        uri: &jsonschema::Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        let key = uri.as_str();
        let key = key.strip_suffix('#').unwrap_or(key);
        self.0
            .get(key)
            .cloned()
            .ok_or_else(|| "not provided in memory; external references are never fetched".into())
    }
}

#[cfg(test)]
mod tests;
