//! Multi-round-trip input (2026-07-28): a `tools/call`, `prompts/get` or `resources/read` may
//! answer `input_required` with requests for the host (elicitation, sampling, roots) and an
//! opaque `requestState`. The host's answers go back in a retry of the original request under
//! a new id, with `inputResponses` and the exact `requestState`; the caller sees only the
//! final result. A round that asks for nothing but carries a `requestState` is retried after
//! a paced wait ([`super::input_waits`]); the rounds one request may take are bounded by
//! [`Limits::max_input_rounds`](crate::Limits::max_input_rounds).

use std::time::Instant;

use serde_json::{Map, Value};

use super::input_waits::{InputResume, InputState, OutstandingInput};
use super::Connection;
use crate::error::{AnswerError, RequestError, Warning};
use crate::event::{Event, ServerRequestKind};
use crate::handle::{RequestHandle, ServerRequestHandle};
use crate::request::Request;
use crate::schema::elicitation::FormSchema;
use crate::types::HandlerError;

/// The input state of one request between rounds.
#[derive(Debug, Default)]
pub(super) struct InputRound {
    /// `input_required` answers received so far.
    pub(super) rounds: u32,
    /// Consecutive state-only rounds (they set the pace of the next wait).
    pub(super) paced: u32,
    /// When the paced wait under way (if one is) ends: its retry timer.
    pub(super) wait_until: Option<Instant>,
    /// Answers collected for the current round, by the server's key.
    responses: Map<String, Value>,
    /// Keys still waiting for the host.
    waiting: usize,
    /// The `requestState` to echo (absent: none is sent).
    state: Option<String>,
    /// Ready to be merged into the retry's params.
    pub(super) retry: Option<(Map<String, Value>, Option<String>)>,
}

/// A host request that belongs to a request's input round.
#[derive(Debug)]
pub(super) struct PendingInput {
    pub(super) op: RequestHandle,
    key: String,
    pub(super) kind: ServerRequestKind,
    /// Elicitation (form mode): the form the answer must match.
    form: Option<FormSchema>,
}

fn fail(detail: impl Into<String>) -> RequestError {
    RequestError::InvalidResponse { detail: detail.into() }
}

impl InputRound {
    /// The input of a resumed request, sent with its first attempt (a fresh budget).
    pub(super) fn resumed(state: InputState) -> Self {
        Self { retry: Some((state.responses, state.request_state)), ..Self::default() }
    }
}

impl Connection {
    /// The server answered `input_required`: ask the host, or, when it asked for nothing (a
    /// state only), retry after a paced wait.
    pub(super) fn on_input_required(&mut self, now: Instant, handle: RequestHandle, value: Value) {
        let Some(op) = self.ops.get_mut(&handle) else { return };
        let allowed = matches!(
            op.request,
            Request::CallTool { .. } | Request::GetPrompt { .. } | Request::ReadResource { .. }
        );
        if !allowed && op.task.is_none() {
            self.finish(
                handle,
                Err(fail("input_required is only allowed for tools/call, prompts/get and resources/read")),
            );
            return;
        }
        let round = op.input.get_or_insert_with(InputRound::default);
        round.rounds += 1;
        round.wait_until = None;
        let rounds = round.rounds;
        let state = match value.get("requestState") {
            None => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => {
                self.finish(handle, Err(fail("requestState is not a string")));
                return;
            }
        };
        let requests = match value.get("inputRequests") {
            None => Map::new(),
            Some(Value::Object(m)) => m.clone(),
            Some(_) => {
                self.finish(handle, Err(fail("inputRequests is not an object")));
                return;
            }
        };
        if requests.is_empty() && state.is_none() {
            self.finish(handle, Err(fail("input_required without inputRequests or requestState")));
            return;
        }
        if rounds > self.cfg.limits.max_input_rounds {
            self.input_budget_exhausted(handle, requests, state);
            return;
        }
        if requests.len() > self.cfg.limits.max_concurrent_server_requests {
            let limit = self.cfg.limits.max_concurrent_server_requests;
            self.finish(handle, Err(fail(format!("more than {limit} input requests in one round"))));
            return;
        }
        let mut asks = Vec::with_capacity(requests.len());
        for (key, request) in requests {
            let method = request.get("method").and_then(Value::as_str).unwrap_or_default();
            let kind = match method {
                "elicitation/create"
                    if self.cfg.features.elicitation_form || self.cfg.features.elicitation_url =>
                {
                    ServerRequestKind::Elicitation
                }
                "sampling/createMessage" if self.cfg.features.sampling => ServerRequestKind::Sampling,
                "roots/list" if self.cfg.features.roots => ServerRequestKind::Roots,
                other => {
                    let detail = format!(
                        "the server asked for {:?} input, which this client did not declare",
                        crate::text::sanitize(other, 100)
                    );
                    self.finish(handle, Err(fail(detail)));
                    return;
                }
            };
            let params = request.get("params").cloned().unwrap_or(Value::Object(Map::new()));
            let Some((request, form)) = self.prepare_input(handle, kind, params) else { return };
            asks.push((key, request, form));
        }
        let Some(round) = self.ops.get_mut(&handle).and_then(|op| op.input.as_mut()) else { return };
        round.responses = Map::new();
        round.waiting = asks.len();
        if asks.is_empty() {
            // Nothing to ask, so a state: "not yet, come back" after a paced wait.
            round.state = None;
            if let Some(state) = state {
                self.wait_for_input(now, handle, state);
            }
            return;
        }
        round.paced = 0;
        round.state = state;
        for (key, request, form) in asks {
            let server = ServerRequestHandle::new(self.counters.server.next());
            self.inputs.insert(server, PendingInput { op: handle, key, kind: request.kind, form });
            self.ask_host(now, server, request);
        }
    }

    /// One `input_required` past the budget: the request fails with what resuming it needs
    /// (a task's call, which cannot be resumed that way, with a task error).
    fn input_budget_exhausted(
        &mut self,
        handle: RequestHandle,
        requests: Map<String, Value>,
        request_state: Option<String>,
    ) {
        let Some(op) = self.ops.get(&handle) else { return };
        let budget = self.cfg.limits.max_input_rounds;
        if let Some(task) = &op.task {
            let detail = format!("the server asked for input more than {budget} times");
            let err = RequestError::Task { task_id: task.id.clone(), detail };
            self.finish(handle, Err(err));
            return;
        }
        let outstanding = requests
            .into_iter()
            .map(|(key, request)| OutstandingInput {
                key,
                method: request.get("method").and_then(Value::as_str).unwrap_or_default().to_owned(),
                params: request.get("params").cloned().unwrap_or(Value::Null),
            })
            .collect();
        let resume = InputResume { request: op.request.clone(), request_state, responses: Map::new() };
        let err =
            RequestError::InputBudgetExhausted { rounds: budget, outstanding, resume: Box::new(resume) };
        self.finish(handle, Err(err));
    }

    /// The host answered one input request.
    pub(super) fn answer_input(
        &mut self,
        now: Instant,
        handle: ServerRequestHandle,
        outcome: Result<Value, HandlerError>,
    ) -> Result<(), AnswerError> {
        let Some(pending) = self.inputs.get(&handle) else { return Err(AnswerError::Gone) };
        if let (Some(form), Ok(result)) = (&pending.form, &outcome) {
            form.check_result(result)?;
        }
        let Some(pending) = self.inputs.remove(&handle) else { return Err(AnswerError::Gone) };
        let op = pending.op;
        match outcome {
            Ok(value) => {
                let Some(round) = self.ops.get_mut(&op).and_then(|o| o.input.as_mut()) else { return Ok(()) };
                round.responses.insert(pending.key, value);
                round.waiting = round.waiting.saturating_sub(1);
                if round.waiting == 0 {
                    self.retry_with_input(now, op);
                }
            }
            Err(error) => {
                let method = pending.kind.method().to_owned();
                let detail = error.to_string();
                self.warn(Warning::HandlerFailed { method: method.clone(), detail: detail.clone() });
                if let Some(task) = self.ops.get_mut(&op).and_then(|o| o.task.as_mut()) {
                    // Inside a task the answers the other handlers produced are kept (they go
                    // in the next tasks/update); the failed request is asked again if the task
                    // still wants it, within the rounds bound.
                    task.forget_answer(&pending.key);
                    let Some(round) = self.ops.get_mut(&op).and_then(|o| o.input.as_mut()) else {
                        return Ok(());
                    };
                    round.waiting = round.waiting.saturating_sub(1);
                    if round.waiting == 0 {
                        if round.responses.is_empty() {
                            self.poll_task_later(now, op);
                        } else {
                            self.retry_with_input(now, op);
                        }
                    }
                    return Ok(());
                }
                self.finish(op, Err(RequestError::InputFailed { method, detail }));
            }
        }
        Ok(())
    }

    /// Every answer is in: send the request again (new id) with them and the state.
    fn retry_with_input(&mut self, now: Instant, handle: RequestHandle) {
        let Some(op) = self.ops.get_mut(&handle) else { return };
        let Some(round) = op.input.as_mut() else { return };
        round.retry = Some((std::mem::take(&mut round.responses), round.state.take()));
        if op.task.is_some() && op.sent.is_some() {
            // A task's poll is in flight: its answer sends the update (one message at a time).
            return;
        }
        op.sent = None;
        self.queue.push_front(handle);
        self.pump(now);
    }

    /// A request ended: its host requests still waiting are withdrawn.
    pub(super) fn drop_inputs(&mut self, handle: RequestHandle) {
        let gone: Vec<ServerRequestHandle> =
            self.inputs.iter().filter(|(_, p)| p.op == handle).map(|(h, _)| *h).collect();
        for h in gone {
            self.inputs.remove(&h);
            self.emit(Event::ServerRequestCancelled { handle: h });
        }
    }
}
