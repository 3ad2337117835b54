//! Multi-round-trip input (2026-07-28): a `tools/call`, `prompts/get` or `resources/read` may
//! answer `input_required` with requests for the host (elicitation, sampling, roots) and an
//! opaque `requestState`. The host's answers go back in a retry of the original request under
//! a new id, with `inputResponses` and the exact `requestState`; the caller sees only the
//! final result. A round that asks for nothing but carries a `requestState` is retried after
//! a paced wait ([`super::input_waits`]); the rounds one request may take are bounded by
//! [`Limits::max_input_rounds`](crate::Limits::max_input_rounds). A round this client will not
//! answer — past that budget, asking for a kind it did not declare
//! ([`RequestError::InputUndeclared`]), or with malformed `inputRequests`
//! ([`RequestError::InputMalformed`]) — stops the request with what resuming it needs
//! ([`RequestError::input_resume`]). Every input request of a round is noted for the
//! deprecation notices (roots, sampling) whether or not a handler serves it.

use std::time::Instant;

use serde_json::{Map, Value};

mod round;

use round::{parse_input_request, Answered, BadRound, RoundAsk};
pub(super) use round::{InputRound, PendingInput};

use super::Connection;
use crate::error::{AnswerError, RequestError, Warning};
use crate::event::{Event, ServerRequest};
use crate::handle::{RequestHandle, ServerRequestHandle};
use crate::input_round::{InputResume, OutstandingInput};
use crate::request::Request;
use crate::types::HandlerError;
use crate::types::ServerRequestKind;

fn fail(detail: impl Into<String>) -> RequestError {
    RequestError::InvalidResponse { detail: detail.into() }
}

/// Why a round's input requests cannot go to the host.
enum UnusableRound {
    /// The keys (sanitised) of entries that are not input requests.
    Malformed(Vec<String>),
    /// The methods (sanitised, sorted, each once) of kinds this client did not declare.
    Undeclared(Vec<String>),
}

impl Connection {
    /// The server answered `input_required`: ask the host, or, when it asked for nothing (a
    /// state only), retry after a paced wait.
    pub(super) fn on_input_required(&mut self, now: Instant, handle: RequestHandle, value: Value) {
        let Some(op) = self.in_flight.get_mut(handle) else { return };
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
        let rounds = op.input.get_or_insert_with(InputRound::default).next_round();
        let RoundAsk { state, requests } = match RoundAsk::read(&value) {
            Ok(ask) => ask,
            Err(BadRound::StateNotString) => {
                self.finish(handle, Err(fail("requestState is not a string")));
                return;
            }
            Err(BadRound::RequestsNotObject(state)) => {
                let detail = "inputRequests is not an object".to_owned();
                self.stop_round(handle, &Map::new(), state, detail.clone(), |outstanding, resume| {
                    RequestError::InputMalformed { detail, outstanding, resume }
                });
                return;
            }
            Err(BadRound::Empty) => {
                self.finish(handle, Err(fail("input_required without inputRequests or requestState")));
                return;
            }
        };
        if rounds > self.cfg.limits.max_input_rounds {
            let budget = self.cfg.limits.max_input_rounds;
            let detail = format!("the server asked for input more than {budget} times");
            self.stop_round(handle, &requests, state, detail, |outstanding, resume| {
                RequestError::InputBudgetExhausted { rounds: budget, outstanding, resume }
            });
            return;
        }
        if requests.len() > self.cfg.limits.max_concurrent_server_requests {
            let limit = self.cfg.limits.max_concurrent_server_requests;
            self.finish(handle, Err(fail(format!("more than {limit} input requests in one round"))));
            return;
        }
        let asks = match self.declared_inputs(&requests) {
            Ok(asks) => asks,
            Err(unusable) => {
                self.stop_unusable_round(handle, &requests, state, unusable);
                return;
            }
        };
        let mut prepared = Vec::with_capacity(asks.len());
        for (key, kind, params) in asks {
            match self.prepare_host_request(kind, params) {
                Ok((p, request)) => prepared.push((key, ServerRequest { kind: p.kind, request }, p.form)),
                Err(reason) => {
                    // A task's call keeps the refusal, without a way to resume.
                    let (outstanding, resume) = match self.round_resume(handle, &requests, state) {
                        Some((outstanding, resume)) => (outstanding, Some(resume)),
                        None => (Vec::new(), None),
                    };
                    let method = kind.method().to_owned();
                    let err = RequestError::InputRefused { method, reason, outstanding, resume };
                    self.finish(handle, Err(err));
                    return;
                }
            }
        }
        let asks = prepared;
        let Some(round) = self.in_flight.get_mut(handle).and_then(|op| op.input.as_mut()) else { return };
        if asks.is_empty() {
            // Nothing to ask, so a state: "not yet, come back" after a paced wait.
            round.state_only();
            if let Some(state) = state {
                self.wait_for_input(now, handle, state);
            }
            return;
        }
        round.ask(asks.len(), state);
        for (key, request, form) in asks {
            let server = ServerRequestHandle::new(self.counters.server.next());
            self.inputs.insert(server, PendingInput { op: handle, key, kind: request.kind, form });
            self.ask_host(now, server, request);
        }
    }

    /// The round's input requests as `(key, kind, params)`, each noted for the deprecation
    /// notices (whether or not a handler serves it); `Err` when one is malformed or of a kind
    /// this client did not declare.
    fn declared_inputs(
        &mut self,
        requests: &Map<String, Value>,
    ) -> Result<Vec<(String, ServerRequestKind, Value)>, UnusableRound> {
        let mut asks = Vec::with_capacity(requests.len());
        let mut malformed = Vec::new();
        let mut undeclared: Vec<String> = Vec::new();
        for (key, request) in requests {
            let Some((method, params)) = parse_input_request(request) else {
                malformed.push(crate::text::sanitize(key, 100));
                continue;
            };
            self.note_server_request(method, &params);
            match self.declared_input(method) {
                Some(kind) => asks.push((key.clone(), kind, params)),
                None => {
                    let method = crate::text::sanitize(method, 100);
                    if !undeclared.contains(&method) {
                        undeclared.push(method);
                    }
                }
            }
        }
        if !malformed.is_empty() {
            return Err(UnusableRound::Malformed(malformed));
        }
        if !undeclared.is_empty() {
            undeclared.sort_unstable();
            return Err(UnusableRound::Undeclared(undeclared));
        }
        Ok(asks)
    }

    /// Stops request `handle` at a round [`Self::declared_inputs`] refused (see
    /// [`Self::stop_round`]).
    fn stop_unusable_round(
        &mut self,
        handle: RequestHandle,
        requests: &Map<String, Value>,
        state: Option<String>,
        unusable: UnusableRound,
    ) {
        match unusable {
            UnusableRound::Malformed(keys) => {
                let detail = format!(
                    "input requests {} are not objects with a method string and object params",
                    keys.join(", ")
                );
                self.stop_round(handle, requests, state, detail.clone(), |outstanding, resume| {
                    RequestError::InputMalformed { detail, outstanding, resume }
                });
            }
            UnusableRound::Undeclared(methods) => {
                let detail = format!(
                    "the server asked for {} input, which this client did not declare",
                    methods.join(", ")
                );
                self.stop_round(handle, requests, state, detail, |outstanding, resume| {
                    RequestError::InputUndeclared { methods, outstanding, resume }
                });
            }
        }
    }

    /// The input kind `method` names, if this client declared it (has a handler for it).
    fn declared_input(&self, method: &str) -> Option<ServerRequestKind> {
        let features = &self.cfg.features;
        match method {
            "elicitation/create" if features.elicitation_form || features.elicitation_url => {
                Some(ServerRequestKind::Elicitation)
            }
            "sampling/createMessage" if features.sampling => Some(ServerRequestKind::Sampling),
            "roots/list" if features.roots => Some(ServerRequestKind::Roots),
            _ => None,
        }
    }

    /// A round this client will not answer (past the budget, undeclared or malformed input):
    /// the request fails with `stopped(outstanding, resume)` ([`Self::round_resume`]). A task's
    /// call cannot be resumed that way: it fails with a task error saying `detail`.
    fn stop_round(
        &mut self,
        handle: RequestHandle,
        requests: &Map<String, Value>,
        request_state: Option<String>,
        detail: String,
        stopped: impl FnOnce(Vec<OutstandingInput>, Box<InputResume>) -> RequestError,
    ) {
        let Some(op) = self.in_flight.get(handle) else { return };
        let err = match self.round_resume(handle, requests, request_state) {
            Some((outstanding, resume)) => stopped(outstanding, resume),
            None => match &op.task {
                Some(task) => RequestError::Task { task_id: task.id.clone(), detail },
                None => return,
            },
        };
        self.finish(handle, Err(err));
    }

    /// What resuming request `handle` after a round it stopped at needs: the round's input
    /// requests as far as they parse, and the original request with the round's
    /// `requestState`. `None` for a task's call (and a request that is gone).
    fn round_resume(
        &self,
        handle: RequestHandle,
        requests: &Map<String, Value>,
        request_state: Option<String>,
    ) -> Option<(Vec<OutstandingInput>, Box<InputResume>)> {
        let op = self.in_flight.get(handle).filter(|op| op.task.is_none())?;
        let outstanding = requests
            .iter()
            .filter_map(|(key, request)| {
                let (method, params) = parse_input_request(request)?;
                Some(OutstandingInput { key: key.clone(), method: method.to_owned(), params })
            })
            .collect();
        let resume = InputResume { request: op.request.clone(), request_state, responses: Map::new() };
        Some((outstanding, Box::new(resume)))
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
                let Some(round) = self.in_flight.get_mut(op).and_then(|o| o.input.as_mut()) else {
                    return Ok(());
                };
                if let Answered::AllIn { .. } = round.answered(pending.key, value) {
                    self.retry_with_input(now, op);
                }
            }
            Err(error) => {
                let method = pending.kind.method().to_owned();
                let detail = error.to_string();
                self.warn(Warning::HandlerFailed { method: method.clone(), detail: detail.clone() });
                if let Some(task) = self.in_flight.get_mut(op).and_then(|o| o.task.as_mut()) {
                    // Inside a task the answers the other handlers produced are kept (they go
                    // in the next tasks/update); the failed request is asked again if the task
                    // still wants it, within the rounds bound.
                    task.forget_answer(&pending.key);
                    let Some(round) = self.in_flight.get_mut(op).and_then(|o| o.input.as_mut()) else {
                        return Ok(());
                    };
                    match round.handler_failed() {
                        Answered::Waiting => {}
                        Answered::AllIn { any: false } => self.poll_task_later(now, op),
                        Answered::AllIn { any: true } => self.retry_with_input(now, op),
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
        let Some(op) = self.in_flight.get_mut(handle) else { return };
        let Some(round) = op.input.as_mut() else { return };
        round.prepare_retry();
        if op.task.is_some() && op.sent.is_some() {
            // A task's poll is in flight: its answer sends the update (one message at a time).
            return;
        }
        op.sent = None;
        self.in_flight.queue_first(handle);
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
