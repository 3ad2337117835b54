//! Tool schemas without the `schema` feature: nothing is compiled, captured or checked. The
//! engine makes the same calls as with the feature (`checked.rs`); here they do nothing, and
//! [`ToolSchemas`] has no values, so no call ever carries schemas and a tool's
//! `structuredContent` is delivered as the server sent it.

use std::sync::Arc;

use crate::config::ConnectionConfig;
use crate::error::{RequestError, Warning};
use crate::types::{CallToolResult, Tool};

/// The compiled schemas of one tool definition: none exist without the `schema` feature.
#[derive(Debug)]
pub(in crate::connection) enum ToolSchemas {}

/// The schemas of the last complete `tools/list`: always empty.
#[derive(Debug)]
pub(in crate::connection) struct ToolSchemaCache {}

impl ToolSchemaCache {
    /// An empty cache; there is nothing to configure.
    pub(in crate::connection) fn new(_cfg: &ConnectionConfig) -> Self {
        Self {}
    }

    /// The definitions may have changed: nothing is kept to go stale.
    pub(in crate::connection) fn mark_stale(&mut self) {}

    /// A complete `tools/list` arrived: nothing to compile, nothing to report.
    pub(in crate::connection) fn compile(&mut self, _tools: &[Tool]) -> Vec<Warning> {
        Vec::new()
    }

    /// The schemas a call of `tool` goes out under: none.
    pub(in crate::connection) fn for_call(&self, _tool: &str) -> Option<Arc<ToolSchemas>> {
        None
    }

    /// Checks a `tools/call` result (unreachable: there are no schemas).
    pub(in crate::connection) fn check(
        &self,
        schemas: &ToolSchemas,
        _result: &CallToolResult,
        _modern: bool,
    ) -> Result<Option<Warning>, RequestError> {
        match *schemas {}
    }
}

impl ToolSchemas {
    /// Why a call must not be sent (unreachable: there are no schemas).
    pub(in crate::connection) fn refusal(&self) -> Option<RequestError> {
        match *self {}
    }
}
