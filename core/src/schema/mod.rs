//! Schemas an untrusted server sends: tool `outputSchema`s and `inputSchema` dialects (JSON
//! Schema, with the `schema` feature) and elicitation forms (always).
//!
//! - [`CompiledSchema`] (feature `schema`): JSON Schema validation with the [`jsonschema`] crate,
//!   built without its network and file retrievers and told to stay offline: a `$ref` to a
//!   resource the document does not contain makes the schema unusable, it is never fetched.
//!   Around it this module adds what a hostile schema needs:
//!   - dialects: `$schema` picks draft-04, draft-06, draft-07, 2019-09 or 2020-12 (the default
//!     when absent); anything else is [`SchemaProblem::UnsupportedDialect`];
//!   - identifiers: two `$id`s resolving to the same URI, or two equal anchors in one resource,
//!     make the document unusable instead of picking one silently;
//!   - bounded work: patterns longer than [`SchemaLimits::max_pattern_len`] are refused, every
//!     backtracking match has a step budget (running out fails validation, it never passes it),
//!     and instances over [`SchemaLimits::max_instance_nodes`] or deeper than
//!     [`SchemaLimits::max_instance_depth`] are refused before any keyword runs;
//!   - annotations: `format`, `contentMediaType`, `contentEncoding` and `contentSchema` are not
//!     asserted (with the `schema-formats` feature, `SchemaOptions::assert_format` asks for
//!     `format`); a schema that uses them lists them in
//!     [`CompiledSchema::unasserted_keywords`] so the caller can say validation is partial.
//!
//!   Patterns follow ECMA-262 classes: `\d` and `\w` are ASCII-only, `\s` includes U+FEFF. A
//!   pattern the engine cannot express (the `v` flag's set operations, `[^]`) makes the schema
//!   unusable, never a silent pass.
//! - [`elicitation`]: the flat forms of `elicitation/create`, checked by hand (no JSON Schema
//!   engine), with or without the `schema` feature.
//!
//! Without the `schema` feature a tool's `outputSchema` is kept as JSON
//! ([`crate::types::Tool::output_schema`]) and its `structuredContent` is delivered unvalidated.

pub mod elicitation;
#[cfg(feature = "schema")]
mod validator;

#[cfg(feature = "schema")]
pub use validator::{
    CompiledSchema, Dialect, SchemaLimits, SchemaOptions, SchemaProblem, ValidationFailure, Violation,
};
