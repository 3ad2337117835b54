//! `Mcp-Param-*` headers of `tools/call` on 2026-07-28 Streamable HTTP, kept in step with the
//! tool definitions they come from (`x-mcp-header`, streamable-http.mdx §Client Behavior):
//!
//! - **List first.** A call of a tool whose definition is not known (no current `tools/list`)
//!   lists the tools first, once, so the headers its annotations ask for go out on the first
//!   attempt. A first list in flight is shared by every call waiting for one. When the list
//!   fails on the server's side (an error answer, a list bound, a refusal) the call goes out
//!   without the headers, with a warning; when the connection fails, the call fails with it.
//! - **Header mismatch.** A call answered with `-32020` refreshes `tools/list` (never from the
//!   cache; its answer replaces the cached definitions, as any list does), then goes out once
//!   more under a new wire id, its headers recomputed from the refreshed definition and its
//!   definition checked as for any call (an `inputSchema` dialect this client cannot read
//!   refuses it with [`RequestError::ToolSchema`]). A tool the refreshed list leaves out fails
//!   with [`RequestError::UnknownTool`]; a second `-32020` with [`RequestError::HeaderMismatch`].
//!
//! Not on stdio nor on legacy sessions (neither has `Mcp-Param-*` headers). The list is an
//! internal request: a handle the host never sees and no [`crate::Event::Response`] of its own.
//! It has no deadline of its own: the call's timeout bounds the list and the retry together,
//! and when the call ends (timeout, cancel, close) the list is dropped unless another call
//! still waits for it.

mod state;

pub(super) use state::HeaderState;

use std::time::Instant;

use crate::jsonrpc::ResultJson;

use super::requests::Op;
use super::{Connection, Transport};
use crate::era::Era;
use crate::error::{RequestError, RpcError, Warning};
use crate::handle::RequestHandle;
use crate::jsonrpc::RpcErrorObject;
use crate::request::{Request, RequestOptions};
use crate::response::Response;

/// The JSON-RPC code of a header mismatch (`HeaderMismatch`).
const HEADER_MISMATCH: i64 = -32020;

/// The tool a `tools/call` op calls, while it is a call (not a task being polled).
fn called_tool(op: &Op) -> Option<&str> {
    match &op.request {
        Request::CallTool { name, .. } | Request::CallToolAsTask { name, .. } if op.task.is_none() => {
            Some(name)
        }
        _ => None,
    }
}

/// Errors of a first list that say nothing about the connection: the call still goes out.
fn server_verdict(err: &RequestError) -> bool {
    matches!(
        err,
        RequestError::Rpc(_)
            | RequestError::Pagination { .. }
            | RequestError::InvalidResponse { .. }
            | RequestError::Unsupported { .. }
            | RequestError::UnsupportedResultType { .. }
            | RequestError::TransientServer { .. }
            | RequestError::Http { .. }
            | RequestError::ResponseTooLarge { .. }
            | RequestError::Unauthorized { .. }
    )
}

impl Connection {
    /// Whether requests of `era` carry `Mcp-Param-*` headers on this connection.
    fn param_headers_apply(&self, era: Era) -> bool {
        era == Era::Modern && matches!(self.transport, Transport::Http(_))
    }

    /// A call is about to go out: when the tool definitions are unknown, it waits for a
    /// `tools/list` first (returns true; the list is queued) so that its headers can be
    /// computed. Once per call.
    pub(super) fn list_tools_first(&mut self, now: Instant, era: Era, handle: RequestHandle) -> bool {
        if !self.param_headers_apply(era) || self.known_tools.is_some() {
            return false;
        }
        let Some(op) = self.in_flight.get_mut(handle) else { return false };
        if called_tool(op).is_none() || op.headers.listed_first {
            return false;
        }
        op.headers.listed_first = true;
        self.wait_for_list(now, handle, false);
        true
    }

    /// A response to a host request arrived: a `-32020` answering a call over modern HTTP
    /// starts the refresh and retry (or, the second time, fails the call). `None`: handled.
    pub(super) fn on_header_mismatch(
        &mut self,
        now: Instant,
        handle: RequestHandle,
        outcome: Result<ResultJson, RpcErrorObject>,
    ) -> Option<Result<ResultJson, RpcErrorObject>> {
        let mismatch = matches!(&outcome, Err(e) if e.code == HEADER_MISMATCH);
        if !mismatch || !self.era().is_some_and(|era| self.param_headers_apply(era)) {
            return Some(outcome);
        }
        let Some(op) = self.in_flight.get_mut(handle) else { return Some(outcome) };
        let Some(tool) = called_tool(op).map(str::to_owned) else { return Some(outcome) };
        let Err(e) = outcome else { return Some(outcome) };
        if op.headers.mismatch {
            let error = RpcError { code: e.code, message: e.message, data: e.data };
            self.finish(handle, Err(RequestError::HeaderMismatch { tool, error }));
            return None;
        }
        op.headers.mismatch = true;
        self.wait_for_list(now, handle, true);
        self.pump(now);
        None
    }

    /// Makes `call` wait for an internal `tools/list`: the first list in flight (for a first
    /// list), else a new one queued at the front.
    fn wait_for_list(&mut self, now: Instant, call: RequestHandle, refresh: bool) {
        let shared = if refresh {
            None
        } else {
            self.in_flight
                .iter()
                .find(|(_, op)| op.headers.waiters.is_some() && !op.headers.refresh)
                .map(|(h, _)| h)
        };
        let list = match shared {
            Some(list) => list,
            None => {
                let timeout = self.request_timeout_of(call);
                // A refresh never serves (nor falls back to) a cached list.
                let opts = RequestOptions { refresh, ..RequestOptions::default() };
                let mut op = Op::new(Request::ListTools, opts, now, timeout);
                op.headers.waiters = Some(Vec::new());
                op.headers.refresh = refresh;
                let list = RequestHandle::new(self.counters.handles.next());
                self.in_flight.add_first(list, op);
                list
            }
        };
        if let Some(waiters) = self.in_flight.get_mut(list).and_then(|op| op.headers.waiters.as_mut()) {
            waiters.push(call);
        }
        if let Some(op) = self.in_flight.get_mut(call) {
            op.headers.waiting = Some(list);
        }
    }

    /// An op ended (it is out of the table of requests in flight already): a call stops waiting for its list (dropped
    /// when no call waits for it any more); an internal list hands its outcome to its calls and
    /// is not reported (`None`). Anything else passes `result` through.
    pub(super) fn header_op_finished(
        &mut self,
        op: &Op,
        handle: RequestHandle,
        result: Result<Response, RequestError>,
    ) -> Option<Result<Response, RequestError>> {
        if let Some(list) = op.headers.waiting {
            self.stop_waiting(handle, list);
        }
        let Some(waiters) = &op.headers.waiters else { return Some(result) };
        let resumed: Vec<RequestHandle> =
            waiters.iter().copied().filter(|&call| self.resume_call(call, handle, &result)).collect();
        // Back to the front of the queue, in the order they came.
        for &call in resumed.iter().rev() {
            self.in_flight.queue_first(call);
        }
        if !resumed.is_empty() {
            self.pump(self.now);
        }
        None
    }

    /// `call` no longer waits for `list`; a list nobody waits for is abandoned.
    fn stop_waiting(&mut self, call: RequestHandle, list: RequestHandle) {
        let Some(waiters) = self.in_flight.get_mut(list).and_then(|op| op.headers.waiters.as_mut()) else {
            return;
        };
        waiters.retain(|h| *h != call);
        if waiters.is_empty() {
            self.abandon(list, "no call waits for the tool list any more");
            self.finish(list, Err(RequestError::Cancelled));
        }
    }

    /// The list `list` that `call` waited for ended: the call is to go out again (returns
    /// true; the caller queues it) or ends here.
    fn resume_call(
        &mut self,
        call: RequestHandle,
        list: RequestHandle,
        result: &Result<Response, RequestError>,
    ) -> bool {
        let Some(op) = self.in_flight.get_mut(call) else { return false };
        if op.headers.waiting != Some(list) {
            return false;
        }
        op.headers.waiting = None;
        let Some(tool) = called_tool(op).map(str::to_owned) else { return false };
        let after_mismatch = op.headers.mismatch;
        let outcome = match result {
            Ok(Response::Tools(tools)) if after_mismatch && !tools.iter().any(|t| t.name == tool) => {
                Err(RequestError::UnknownTool { tool: tool.clone() })
            }
            Ok(_) => Ok(()),
            Err(e) if !after_mismatch && server_verdict(e) => {
                let detail = format!(
                    "listing the tools before calling {:?} failed ({e}); the call goes out without its Mcp-Param headers",
                    crate::text::sanitize(&tool, 100)
                );
                self.warn(Warning::Http { detail });
                Ok(())
            }
            Err(e) => Err(e.clone()),
        };
        match outcome {
            Ok(()) => {
                // The definition the call now goes out under (its dialect is checked on send).
                let schemas = self.tool_schemas.for_call(&tool);
                if let Some(op) = self.in_flight.get_mut(call) {
                    op.tool = schemas;
                }
                true
            }
            Err(e) => {
                self.finish(call, Err(e));
                false
            }
        }
    }
}
