//! Taking answers: a response routed by what it is (an error, a page, a task, an input round,
//! a `server/discover` refresh, a listen stream's end) and otherwise decoded into the typed
//! [`crate::Response`] its kind gives ([`super::kinds::decode`]); tool results checked against
//! their output schema, list answers invalidating caches.

use std::time::Instant;

use serde_json::Value;

use crate::connection::{Connection, WireUse};
use crate::era::Era;
use crate::error::{RequestError, RpcError};
use crate::handle::RequestHandle;
use crate::jsonrpc::{ResultJson, RpcErrorObject, WireId};
use crate::request::Request;
use crate::response::Response;
use crate::types::CallToolResult;

impl Connection {
    /// The server answered a host request.
    pub(in crate::connection) fn on_op_response(
        &mut self,
        now: Instant,
        handle: RequestHandle,
        outcome: Result<ResultJson, RpcErrorObject>,
    ) {
        #[cfg(feature = "http")]
        let Some(outcome) = self.on_header_mismatch(now, handle, outcome) else {
            return;
        };
        let result = match outcome {
            Err(e) if e.code == -32602 && self.restart_pages(now, handle) => return,
            Err(e) => {
                let err = RpcError { code: e.code, message: e.message, data: e.data };
                self.finish(handle, Err(RequestError::Rpc(err)));
                return;
            }
            Ok(r) => r,
        };
        match self.complete_tool_result(handle, result) {
            Ok(call) => self.finish_tool_result(handle, call),
            Err(result) => self.on_op_result(now, handle, result.to_value()),
        }
    }

    /// A result for an operation, parsed: routed by what it is and what the request was.
    pub(in crate::connection) fn on_op_result(&mut self, now: Instant, handle: RequestHandle, value: Value) {
        if self.in_flight.get(handle).is_some_and(|op| matches!(op.request, Request::Listen { .. })) {
            self.on_listen_response(handle, value);
            return;
        }
        if let Some(method) =
            self.in_flight.get(handle).and_then(|op| op.task.as_ref()).map(|t| t.sent_method)
        {
            self.on_task_response(now, handle, method, value);
            return;
        }
        if let Some(round) = self.in_flight.get_mut(handle).and_then(|op| op.input.as_mut()) {
            // The retry's input was for that one attempt.
            round.retry = None;
        }
        if let Some(rt) = value.get("resultType") {
            match rt.as_str() {
                Some("complete") => {}
                Some("input_required") => {
                    self.on_input_required(now, handle, value);
                    return;
                }
                Some("task") if self.era() == Some(Era::Modern) => {
                    self.on_task_created(now, handle, value, false);
                    return;
                }
                other => {
                    let result_type = other.map_or_else(|| rt.to_string(), str::to_owned);
                    self.finish(handle, Err(RequestError::UnsupportedResultType { result_type }));
                    return;
                }
            }
        }
        if let Some(task) = self.legacy_task_created(handle, &value) {
            self.on_task_created(now, handle, task, true);
            return;
        }
        let Some(op) = self.in_flight.get(handle) else { return };
        if matches!(op.request, Request::ListTasks) {
            self.on_tasks_page(now, handle, value);
            return;
        }
        if op.request.list_kind().is_some() {
            self.on_page(now, handle, value);
            return;
        }
        if op.request == Request::Discover {
            self.on_rediscover(now, handle, value);
            return;
        }
        let read_uri = match &op.request {
            Request::ReadResource { uri } => Some(uri.clone()),
            _ => None,
        };
        let tool = op.tool.clone();
        let result = super::kinds::decode(&op.request, value)
            .map_err(|e| RequestError::InvalidResponse { detail: e.to_string() })
            .and_then(|response| self.check_output(tool.as_deref(), response));
        if let (Ok(response), Some(uri)) = (&result, read_uri) {
            self.keep_read(now, handle, uri, response);
        }
        self.finish(handle, result);
    }

    /// The common case of `tools/call`, decoded straight from the result's text: a plain call
    /// (no task, no input round in progress) answered with a complete result. The result
    /// comes back for the general path (which parses it) otherwise, and when the direct decode
    /// does not take it (see [`CallToolResult::from_complete_text`]).
    fn complete_tool_result(
        &self,
        handle: RequestHandle,
        result: ResultJson,
    ) -> Result<CallToolResult, ResultJson> {
        if !self.is_plain_call_op(handle) {
            return Err(result);
        }
        CallToolResult::from_complete_text(result.into_raw()).map_err(ResultJson::from_raw)
    }

    /// Whether `handle` is a plain `tools/call`: no task, no input round in progress.
    fn is_plain_call_op(&self, handle: RequestHandle) -> bool {
        self.in_flight.get(handle).is_some_and(|op| {
            matches!(op.request, Request::CallTool { .. }) && op.task.is_none() && op.input.is_none()
        })
    }

    /// A response line that answers a plain `tools/call` with a complete result, decoded in
    /// one pass ([`CallToolResult::from_answer_line`]) and delivered; the line comes back for
    /// the general path otherwise.
    pub(in crate::connection) fn on_call_answer_line(&mut self, line: Vec<u8>) -> Result<(), Vec<u8>> {
        let wanted = |id: &WireId| matches!(self.in_flight.wire_use(id), Some(WireUse::Op(h)) if self.is_plain_call_op(h));
        let (id, call) = CallToolResult::from_answer_line(line, &wanted)?;
        if let Some(WireUse::Op(handle)) = self.take_answered(id) {
            self.op_answered(handle);
            self.finish_tool_result(handle, call);
        }
        Ok(())
    }

    /// Ends a `tools/call` with its decoded result, checked against the tool's output schema.
    fn finish_tool_result(&mut self, handle: RequestHandle, call: CallToolResult) {
        let tool = self.in_flight.get(handle).and_then(|op| op.tool.clone());
        let checked = self.check_output(tool.as_deref(), Response::ToolResult(call));
        self.finish(handle, checked);
    }

    /// A response as the host gets it: a tool result checked against the tool's output schema
    /// (when the call knows the tool), anything else as it is.
    fn check_output(
        &mut self,
        tool: Option<&crate::connection::validation::ToolSchemas>,
        response: Response,
    ) -> Result<Response, RequestError> {
        match (&response, tool) {
            (Response::ToolResult(call), Some(schemas)) => {
                let modern = self.era() == Some(Era::Modern);
                let warning = self.tool_schemas.check(schemas, call, modern)?;
                if let Some(warning) = warning {
                    self.warn(warning);
                }
                Ok(response)
            }
            _ => Ok(response),
        }
    }

    /// Drops cached lists of a kind (and, for resources, every cached read).
    pub(in crate::connection) fn invalidate(&mut self, kind: crate::request::ListKind) {
        use crate::request::ListKind;
        match kind {
            ListKind::Tools => {
                self.drop_cached_list("tools/list");
                self.known_tools = None;
                self.tool_schemas.mark_stale();
            }
            ListKind::Prompts => self.drop_cached_list("prompts/list"),
            ListKind::Resources => {
                self.drop_cached_list("resources/list");
                self.drop_cached_list("resources/templates/list");
                self.drop_cached_reads(None);
            }
        }
    }
}
