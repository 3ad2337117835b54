//! Tool schemas without the `schema` feature: nothing is compiled, captured or checked. The
//! engine makes the same calls as with the feature (`checked.rs`); here they do nothing, and
//! [`ToolSchemas`] has no values, so no call ever carries schemas and a tool's
//! `structuredContent` is delivered as the server sent it.

use std::sync::Arc;

use crate::connection::Connection;
use crate::error::RequestError;
use crate::types::{CallToolResult, Tool};

/// The compiled schemas of one tool definition: none exist without the `schema` feature.
#[derive(Debug)]
pub(in crate::connection) enum ToolSchemas {}

/// The schemas of the last complete `tools/list`: always empty.
#[derive(Debug, Default)]
pub(in crate::connection) struct ToolSchemaCache {}

impl ToolSchemaCache {
    /// The definitions may have changed: nothing is kept to go stale.
    pub(in crate::connection) fn mark_stale(&mut self) {}

    /// The schemas a call of `tool` goes out under: none.
    pub(in crate::connection) fn for_call(&self, _tool: &str) -> Option<Arc<ToolSchemas>> {
        None
    }
}

impl ToolSchemas {
    /// Why a call must not be sent (unreachable: there are no schemas).
    pub(in crate::connection) fn refusal(&self) -> Option<RequestError> {
        match *self {}
    }
}

impl Connection {
    /// A complete `tools/list` arrived: nothing to compile.
    pub(in crate::connection) fn compile_tool_schemas(&mut self, _tools: &[Tool]) {}

    /// Checks a `tools/call` result (unreachable: there are no schemas).
    pub(in crate::connection) fn check_tool_result(
        &mut self,
        schemas: &ToolSchemas,
        _result: &CallToolResult,
    ) -> Result<(), RequestError> {
        match *schemas {}
    }
}
