//! Tool schemas in use: compiled once when a tool definition arrives in `tools/list`, captured by
//! each `tools/call` when the host issues it, and used to check its result.
//!
//! - `inputSchema`: only its dialect is checked; a dialect this client does not implement refuses
//!   the call before it is sent.
//! - `outputSchema`: a successful result must carry `structuredContent` that validates. What
//!   counts as structured content follows the negotiated revision (any JSON value in 2026-07-28,
//!   only an object before). [`ValidationMode`] decides whether a violation is a warning or an
//!   error.
//!
//! Problems with a definition (unusable schema, partial validation) are reported once, when it
//! is compiled; an unchanged definition in a later list reuses its compiled form.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::Value;

use crate::config::{ConnectionConfig, SchemaValidation, ValidationMode};
use crate::error::{RequestError, Warning};
use crate::schema::{CompiledSchema, Dialect, SchemaOptions, SchemaProblem, ValidationFailure, Violation};
use crate::types::{CallToolResult, Tool};

/// The compiled schemas of one tool definition.
#[derive(Debug)]
pub(in crate::connection) struct ToolSchemas {
    name: String,
    /// The definition's schemas as received, to recognise an unchanged definition.
    input_source: Value,
    output_source: Option<Value>,
    /// A dialect problem of `inputSchema`, if any.
    input_problem: Option<SchemaProblem>,
    output: Option<Result<CompiledSchema, SchemaProblem>>,
}

/// The schemas of the last complete `tools/list`, and how they are compiled and checked.
#[derive(Debug)]
pub(in crate::connection) struct ToolSchemaCache {
    /// How results are checked (the configuration's `structured_content`).
    mode: ValidationMode,
    options: SchemaOptions,
    by_name: BTreeMap<String, Arc<ToolSchemas>>,
    /// False after a `list_changed` or a restart: the definitions may be stale, so new calls are
    /// not checked until the next list (their compiled forms are kept for reuse).
    current: bool,
}

impl ToolSchemaCache {
    /// An empty cache checking as the connection's configuration says.
    pub(in crate::connection) fn new(cfg: &ConnectionConfig) -> Self {
        let options = options(&cfg.validation);
        Self { mode: cfg.validation.structured_content, options, by_name: BTreeMap::new(), current: false }
    }

    /// The definitions may have changed.
    pub(in crate::connection) fn mark_stale(&mut self) {
        self.current = false;
    }

    /// The schemas a call of `tool` issued now goes out under.
    pub(in crate::connection) fn for_call(&self, tool: &str) -> Option<Arc<ToolSchemas>> {
        if !self.current {
            return None;
        }
        self.by_name.get(tool).cloned()
    }
}

fn options(cfg: &SchemaValidation) -> SchemaOptions {
    SchemaOptions {
        #[cfg(feature = "schema-formats")]
        assert_format: cfg.assert_format,
        limits: cfg.limits.clone(),
        ..SchemaOptions::default()
    }
}

impl ToolSchemaCache {
    /// A complete `tools/list` arrived: compiles what changed and returns what to report once.
    pub(in crate::connection) fn compile(&mut self, tools: &[Tool]) -> Vec<Warning> {
        if self.mode == ValidationMode::Off {
            return Vec::new();
        }
        let mut previous = std::mem::take(&mut self.by_name);
        let mut next = BTreeMap::new();
        let mut warnings = Vec::new();
        for tool in tools {
            let reused = previous
                .remove(&tool.name)
                .filter(|s| s.input_source == tool.input_schema && s.output_source == tool.output_schema);
            let schemas = match reused {
                Some(s) => s,
                None => {
                    let compiled = compile(tool, &self.options);
                    warnings.extend(compiled.warnings());
                    Arc::new(compiled)
                }
            };
            next.insert(tool.name.clone(), schemas);
        }
        self.by_name = next;
        self.current = true;
        warnings
    }

    /// Checks a `tools/call` result against `schemas`, the ones the call went out under, on a
    /// server of the 2026-07-28 era or not (`modern`). `Ok` delivers it (after the warning, if
    /// any); `Err` fails the call.
    pub(in crate::connection) fn check(
        &self,
        schemas: &ToolSchemas,
        result: &CallToolResult,
        modern: bool,
    ) -> Result<Option<Warning>, RequestError> {
        let mode = self.mode;
        if mode == ValidationMode::Off || result.is_error {
            return Ok(None);
        }
        let compiled = match &schemas.output {
            None => return Ok(None),
            Some(Ok(compiled)) => compiled,
            Some(Err(problem)) => {
                let dialect = matches!(problem, SchemaProblem::UnsupportedDialect { .. });
                if dialect || mode == ValidationMode::Strict {
                    return Err(RequestError::ToolSchema {
                        tool: schemas.name.clone(),
                        which: "outputSchema",
                        problem: problem.clone(),
                    });
                }
                return Ok(None);
            }
        };
        let outcome = match result.structured_content_for(modern) {
            Some(content) => compiled.validate(content),
            None => Err(missing(result, modern)),
        };
        match outcome {
            Ok(()) => Ok(None),
            Err(failure) if mode == ValidationMode::Strict => {
                Err(RequestError::StructuredContent { tool: schemas.name.clone(), failure })
            }
            Err(failure) => Ok(Some(Warning::StructuredContent { tool: schemas.name.clone(), failure })),
        }
    }
}

/// The violation of a result without (usable) structured content.
fn missing(result: &CallToolResult, modern: bool) -> ValidationFailure {
    let message = match &result.structured_content {
        Some(other) if !modern => format!(
            "structuredContent is {} but must be an object before protocol 2026-07-28",
            crate::types::json_kind(other)
        ),
        _ => "structuredContent is missing, but the tool declares an outputSchema".to_owned(),
    };
    let violation = Violation { instance_path: String::new(), schema_path: String::new(), message };
    ValidationFailure::Invalid { violations: vec![violation], total: 1 }
}

fn compile(tool: &Tool, options: &SchemaOptions) -> ToolSchemas {
    let input_problem = match Dialect::of(&tool.input_schema) {
        Err(problem @ SchemaProblem::UnsupportedDialect { .. }) => Some(problem),
        _ => None,
    };
    let output = tool.output_schema.as_ref().map(|schema| CompiledSchema::compile(schema, options));
    ToolSchemas {
        name: tool.name.clone(),
        input_source: tool.input_schema.clone(),
        output_source: tool.output_schema.clone(),
        input_problem,
        output,
    }
}

impl ToolSchemas {
    /// Why a call must not be sent, if it must not.
    pub(in crate::connection) fn refusal(&self) -> Option<RequestError> {
        self.input_problem.as_ref().map(|problem| RequestError::ToolSchema {
            tool: self.name.clone(),
            which: "inputSchema",
            problem: problem.clone(),
        })
    }

    /// What to report once about this definition.
    fn warnings(&self) -> Vec<Warning> {
        let mut out = Vec::new();
        if let Some(problem) = &self.input_problem {
            out.push(Warning::ToolSchema {
                tool: self.name.clone(),
                which: "inputSchema",
                problem: problem.clone(),
            });
        }
        match &self.output {
            Some(Err(problem)) => out.push(Warning::ToolSchema {
                tool: self.name.clone(),
                which: "outputSchema",
                problem: problem.clone(),
            }),
            Some(Ok(compiled)) if !compiled.unasserted_keywords().is_empty() => {
                out.push(Warning::PartialValidation {
                    tool: self.name.clone(),
                    keywords: compiled.unasserted_keywords().to_vec(),
                });
            }
            _ => {}
        }
        out
    }
}
