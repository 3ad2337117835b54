//! Task polling, for both task surfaces:
//!
//! - the 2026-07-28 tasks extension (`io.modelcontextprotocol/tasks`): a `tools/call` the server
//!   answers with `resultType: "task"` becomes a task the core polls with `tasks/get` at the
//!   server's pace (bounded), answering `input_required` through the host's handlers with
//!   `tasks/update`, until the task completes (its inlined result is the call's result), fails
//!   (its JSON-RPC error), is cancelled, or outlives its `ttlMs`;
//! - 2025-11-25: a call of a tool whose `execution.taskSupport` is `"required"` (on a server
//!   declaring `tasks.requests.tools.call`) goes out task-augmented; the `CreateTaskResult`
//!   is polled with `tasks/get` (`pollInterval`, `ttl`), and once the task is terminal or needs
//!   input (which the server asks for with ordinary requests the host's handlers answer),
//!   `tasks/result` fetches the call's result.
//!
//! A status notification (`notifications/tasks`, `notifications/tasks/status`) with the same
//! task id short-cuts the wait. Cancelling the call (or its timeout) sends `tasks/cancel`. The
//! caller sees only the call's outcome.
//!
//! Polls go out under the call's own handle with new wire ids, like multi-round-trip retries;
//! [`Connection::build`](super::Connection) asks [`Connection::task_request`] what to send.

use std::time::Instant;

use serde_json::{Map, Value};

use super::{Connection, Outgoing, WireUse};
use crate::error::RequestError;
use crate::handle::RequestHandle;
use crate::request::Request;
use crate::timers::Timer;

mod state;

use state::{NextPoll, TaskStep, MAX_TASK_ID};
pub(super) use state::{SeenTaskIds, TaskState};

fn invalid(detail: impl Into<String>) -> RequestError {
    RequestError::InvalidResponse { detail: detail.into() }
}

impl Connection {
    /// `resultType: "task"` (2026-07-28) or a `CreateTaskResult` (2025-11-25, `legacy`: the
    /// task object inside it) answered a request: start polling it (only `tools/call` may).
    pub(super) fn on_task_created(
        &mut self,
        now: Instant,
        handle: RequestHandle,
        value: Value,
        legacy: bool,
    ) {
        let Some(op) = self.in_flight.get(handle) else { return };
        let as_task = matches!(op.request, Request::CallToolAsTask { .. });
        if !(as_task || matches!(op.request, Request::CallTool { .. })) || op.task.is_some() {
            self.finish(handle, Err(invalid("a task result for a request that cannot become a task")));
            return;
        }
        let id = match value.get("taskId").and_then(Value::as_str) {
            Some(id) if !id.is_empty() && id.len() <= MAX_TASK_ID => id.to_owned(),
            _ => {
                self.finish(handle, Err(invalid("a task result without a valid taskId")));
                return;
            }
        };
        if !self.task_ids.remember(&id) {
            let detail = "the server reused the id of an earlier task for a new one".to_owned();
            self.finish(handle, Err(RequestError::Task { task_id: id, detail }));
            return;
        }
        if as_task {
            let started = crate::types::Task::from_value(value)
                .map(|t| crate::response::Response::TaskStarted(Box::new(t)))
                .map_err(|e| invalid(e.to_string()));
            self.finish(handle, started);
            return;
        }
        let task = TaskState::created(id, &value, legacy, now);
        if let Some(op) = self.in_flight.get_mut(handle) {
            op.task = Some(task);
        }
        self.on_task_status(now, handle, value);
    }

    /// What a task's status says: poll again, ask the host for input, or end the call.
    pub(super) fn on_task_status(&mut self, now: Instant, handle: RequestHandle, task: Value) {
        let Some(state) = self.in_flight.get_mut(handle).and_then(|op| op.task.as_mut()) else { return };
        let step = state.on_status(&task);
        // The latest status sets the pace: a poll armed before it (after a failed input
        // handler, while this answer was on its way) is dropped.
        self.timers.clear(Timer::Retry(handle));
        match step {
            TaskStep::PollNow => self.poll_task_now(now, handle),
            TaskStep::PollLater => self.poll_task_later(now, handle),
            TaskStep::Input => self.on_task_input(now, handle, &task),
            TaskStep::Completed(result) => {
                if let Some(op) = self.in_flight.get_mut(handle) {
                    op.task = None;
                }
                self.on_op_result(now, handle, result);
            }
            TaskStep::Failed(err) => self.finish(handle, Err(err)),
        }
    }

    /// Sends the task's next message now, unless one is in flight (its answer moves on).
    fn poll_task_now(&mut self, now: Instant, handle: RequestHandle) {
        self.timers.clear(Timer::Retry(handle));
        if self.in_flight.requeue_unsent(handle) {
            self.pump(now);
        }
    }

    /// Schedules the next `tasks/get`, unless the task outlived its lifetime.
    pub(super) fn poll_task_later(&mut self, now: Instant, handle: RequestHandle) {
        let Some(op) = self.in_flight.get(handle) else { return };
        let Some(task) = op.task.as_ref() else { return };
        let answers_waiting = op.input.as_ref().is_some_and(|r| r.retry.is_some());
        let at = match task.next_poll(now, answers_waiting) {
            NextPoll::Now => return self.poll_task_now(now, handle),
            NextPoll::Expired(err) => {
                self.abandon(handle, "task expired");
                return self.finish(handle, Err(err));
            }
            NextPoll::At(at) => at,
        };
        // A poll that keeps hearing "working" keeps the call alive when the host asked for
        // its timeout to reset on progress.
        if op.opts.reset_timeout_on_progress {
            if let Some(deadline) = op.deadline(now) {
                self.timers.set(Timer::Request(handle), deadline);
            }
        }
        self.timers.set(Timer::Retry(handle), at);
    }

    /// `input_required`: the host answers the requests it has not answered yet; the answers go
    /// back in `tasks/update` (then polling goes on).
    fn on_task_input(&mut self, now: Instant, handle: RequestHandle, task: &Value) {
        let Some(state) = self.in_flight.get(handle).and_then(|op| op.task.as_ref()) else { return };
        let Some(fresh) = state.unanswered(task) else {
            self.finish(handle, Err(invalid("an input_required task without inputRequests")));
            return;
        };
        let waiting = self.inputs.values().any(|p| p.op == handle);
        if fresh.is_empty() || waiting {
            // Answered already (the server has not caught up yet), or being answered.
            self.poll_task_later(now, handle);
            return;
        }
        if let Some(state) = self.in_flight.get_mut(handle).and_then(|op| op.task.as_mut()) {
            state.mark_answered(fresh.keys().cloned());
        }
        let mut round = Map::new();
        round.insert("inputRequests".into(), Value::Object(fresh));
        self.on_input_required(now, handle, Value::Object(round));
    }

    /// The method and params of a task's next message, and whether it is a 2026-07-28 one
    /// (see [`TaskState::next_message`]); `None` when `handle` is not a task.
    pub(super) fn task_request(
        &mut self,
        handle: RequestHandle,
    ) -> Option<(&'static str, Map<String, Value>, bool)> {
        let op = self.in_flight.get_mut(handle)?;
        let task = op.task.as_mut()?;
        // The answers of an input round the task asked for go out in its next message.
        let fresh = op.input.as_mut().and_then(|round| round.retry.take()).map(|(responses, _)| responses);
        let (method, params) = task.next_message(fresh);
        Some((method, params, !task.legacy))
    }

    /// A task message was answered: `tasks/get` with the task's status, `tasks/update` with an
    /// acknowledgment (then polling goes on at once).
    pub(super) fn on_task_response(
        &mut self,
        now: Instant,
        handle: RequestHandle,
        method: &str,
        value: Value,
    ) {
        match method {
            "tasks/update" => {
                if let Some(task) = self.in_flight.get_mut(handle).and_then(|op| op.task.as_mut()) {
                    task.update_acknowledged();
                }
                self.poll_task_now(now, handle);
                return;
            }
            "tasks/result" => {
                if let Some(op) = self.in_flight.get_mut(handle) {
                    op.task = None;
                }
                self.on_op_result(now, handle, value);
                return;
            }
            _ => {}
        }
        self.on_task_status(now, handle, value);
    }

    /// Whether a 2025-11-25 `tools/call` goes out task-augmented: the server declares
    /// `tasks.requests.tools.call` and the tool (as last listed) requires it.
    pub(super) fn legacy_task_required(&self, tool: &str) -> bool {
        let Some(info) = self.server_info() else { return false };
        // Member by member: a JSON pointer would allocate each of its tokens, on every call.
        let declared = info
            .capabilities
            .raw()
            .get("tasks")
            .and_then(|t| t.get("requests"))
            .and_then(|r| r.get("tools"))
            .and_then(|t| t.get("call"))
            .is_some_and(|v| !v.is_null());
        declared
            && self
                .known_tools()
                .and_then(|tools| tools.iter().find(|t| t.name == tool))
                .is_some_and(|t| t.task_support() == Some("required"))
    }

    /// `notifications/tasks` / `notifications/tasks/status` naming a task a call waits for:
    /// its status, at once.
    pub(super) fn on_task_notification(&mut self, now: Instant, params: &Value) {
        let Some(id) = params.get("taskId").and_then(Value::as_str) else { return };
        let found = self
            .in_flight
            .iter()
            .find(|(_, op)| op.task.as_ref().is_some_and(|t| t.id == id))
            .map(|(h, _)| h);
        let Some(handle) = found else { return };
        let terminal = matches!(
            params.get("status").and_then(Value::as_str),
            Some("completed" | "failed" | "cancelled" | "input_required")
        );
        if terminal {
            self.on_task_status(now, handle, params.clone());
        }
    }

    /// Tells the server a task is no longer wanted (`tasks/cancel`; its answer is not awaited).
    /// Returns false when `handle` is not a task.
    pub(super) fn cancel_task(&mut self, handle: RequestHandle) -> bool {
        let Some(id) = self.in_flight.get(handle).and_then(|op| op.task.as_ref()).map(|t| t.id.clone())
        else {
            return false;
        };
        // Only a ready session can carry it (a task of an expired session is gone with it).
        let Some(epoch) = self.current_epoch().filter(|_| self.server_info().is_some()) else { return true };
        let mut params = Map::new();
        params.insert("taskId".into(), Value::String(id));
        if let Some(info) = self.server_info() {
            let legacy_task =
                self.in_flight.get(handle).and_then(|op| op.task.as_ref()).is_some_and(|t| t.legacy);
            if info.era == crate::era::Era::Modern && !legacy_task {
                params.insert(
                    "_meta".into(),
                    Value::Object(super::handshake::modern_meta(&self.cfg.client_info, &self.cfg.features)),
                );
            }
        }
        let wire = self.next_wire_id();
        self.in_flight.bind(wire.clone(), WireUse::Fire);
        self.send(
            epoch,
            Outgoing::Request {
                id: wire,
                method: "tasks/cancel".into(),
                params: Some(Value::Object(params)),
            },
        );
        true
    }
}

impl Connection {
    /// The task of a 2025-11-25 `CreateTaskResult` answering a task-augmented `tools/call`.
    pub(super) fn legacy_task_created(&self, handle: RequestHandle, value: &Value) -> Option<Value> {
        let op = self.in_flight.get(handle)?;
        let task = value.get("task").filter(|t| t.is_object())?;
        let is_call = matches!(op.request, Request::CallTool { .. } | Request::CallToolAsTask { .. });
        (is_call
            && op.task.is_none()
            && value.get("content").is_none()
            && self.era() == Some(crate::era::Era::Legacy))
        .then(|| task.clone())
    }
}

impl Connection {
    /// `Request::TaskResult` going out for the first time: it is polled as a task.
    pub(super) fn start_task_wait(&mut self, handle: RequestHandle, era: crate::era::Era) {
        let Some(op) = self.in_flight.get_mut(handle) else { return };
        let Request::TaskResult { task_id, .. } = &op.request else { return };
        if op.task.is_none() {
            op.task = Some(TaskState::waited_for(task_id.clone(), era == crate::era::Era::Legacy));
        }
    }

    /// Why a task request cannot go to a server of this era, if it cannot (the task
    /// capabilities are checked by `gating.rs`).
    pub(super) fn task_refusal(&self, request: &Request, era: crate::era::Era) -> Option<&'static str> {
        match request {
            Request::ListTasks if era == crate::era::Era::Modern => {
                Some("tasks/list does not exist in the 2026-07-28 tasks extension")
            }
            _ => None,
        }
    }
}
