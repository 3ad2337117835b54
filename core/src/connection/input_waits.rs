//! Paced waits, the input budget and resumption of multi-round-trip input (2026-07-28).
//!
//! An `input_required` answer with a `requestState` and no `inputRequests` is the server
//! saying "not yet, come back" (load shedding, or an interaction happening elsewhere, such as
//! a URL elicitation). The retry then goes out after a wait that grows ([`FIRST_INPUT_WAIT`],
//! doubling, at most [`MAX_INPUT_WAIT`]; deterministic, no jitter) and never outlasts the
//! request's own timeout: a wait that would end at or after the deadline fails the request with
//! [`RequestError::Timeout`] at once. Each wait is announced as an [`Event::InputWait`] the
//! host may answer with [`Connection::cancel_input_wait`].
//!
//! Every `input_required` answer counts against the budget
//! ([`Limits::max_input_rounds`](crate::Limits::max_input_rounds)); the one past it fails the
//! request with [`RequestError::InputBudgetExhausted`], which carries an [`InputResume`]: the
//! original request and the server's last `requestState`, for the host to go on later with a
//! fresh budget ([`RequestOptions::input_state`](crate::RequestOptions::input_state)). A round
//! asking for undeclared or malformed input stops the same way
//! ([`RequestError::InputUndeclared`], [`RequestError::InputMalformed`]).

use std::time::{Duration, Instant};

use serde_json::{Map, Value};

use super::Connection;
use crate::error::{CommandError, RequestError};
use crate::event::Event;
use crate::handle::RequestHandle;
use crate::request::{Request, RequestOptions};
use crate::timers::Timer;

/// The wait before the first state-only retry of a request.
pub const FIRST_INPUT_WAIT: Duration = Duration::from_millis(50);
/// The longest wait between state-only retries.
pub const MAX_INPUT_WAIT: Duration = Duration::from_secs(2);

/// The wait before the `n`-th consecutive state-only retry (1-based): 50 ms, doubling, at most
/// 2 s.
pub fn input_wait_delay(n: u32) -> Duration {
    let doublings = n.saturating_sub(1).min(16);
    FIRST_INPUT_WAIT.saturating_mul(1u32 << doublings).min(MAX_INPUT_WAIT)
}

/// One paced wait before a state-only retry, as announced by [`Event::InputWait`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputWait {
    /// The request that waits.
    pub handle: RequestHandle,
    /// Its method (`tools/call`, `prompts/get` or `resources/read`).
    pub method: String,
    /// The tool or prompt name, or the resource URI.
    pub target: Option<String>,
    /// The input round this wait follows (1-based; counts every `input_required` answer).
    pub round: u32,
    /// How long the client waits before retrying.
    pub delay: Duration,
    /// The length of the opaque `requestState` that the retry echoes.
    pub state_len: usize,
    /// Time left before the request's timeout when the wait started (`None`: no deadline).
    pub time_left: Option<Duration>,
}

/// What the host's input-wait hook decides about one wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum InputWaitDecision {
    /// Wait, then retry (the default).
    #[default]
    Continue,
    /// Stop: the request fails with [`RequestError::InputWaitCancelled`] (resumable).
    Cancel,
}

/// The input a request's first attempt carries when it resumes a multi-round-trip exchange:
/// the server's `requestState` (echoed verbatim) and `inputResponses`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct InputState {
    /// The last `requestState` the server gave, if any.
    pub request_state: Option<String>,
    /// Answers by the server's `inputRequests` keys (empty: an empty `inputResponses`).
    pub responses: Map<String, Value>,
}

/// Where a multi-round-trip request stopped, to go on from there (a host's `Server::resume`,
/// or [`Connection::request`] with [`RequestOptions::input_state`]).
#[derive(Debug, Clone, PartialEq)]
pub struct InputResume {
    /// The original request (`tools/call`, `prompts/get` or `resources/read`).
    pub request: Request,
    /// The last `requestState` the server gave, if any.
    pub request_state: Option<String>,
    /// Answers to send with the retry, by the server's keys (for the
    /// [`OutstandingInput`] of a budget error, say); empty: none.
    pub responses: Map<String, Value>,
}

impl InputResume {
    /// Adds the answer to input request `key`.
    #[must_use]
    pub fn answer(mut self, key: impl Into<String>, value: Value) -> Self {
        self.responses.insert(key.into(), value);
        self
    }

    /// The request and the input its first attempt carries.
    pub fn into_parts(self) -> (Request, InputState) {
        let state = InputState { request_state: self.request_state, responses: self.responses };
        (self.request, state)
    }
}

/// An input request the server asked for that was not answered (the round past the budget).
#[derive(Debug, Clone, PartialEq)]
pub struct OutstandingInput {
    /// The server's key for it.
    pub key: String,
    /// Its method (`elicitation/create`, `sampling/createMessage`, `roots/list`, ...).
    pub method: String,
    /// Its params, as sent.
    pub params: Value,
}

/// Whether a request may carry [`RequestOptions::input_state`].
pub(super) fn check_resume(request: &Request, opts: &RequestOptions) -> Result<(), CommandError> {
    let resumable = matches!(
        request,
        Request::CallTool { .. } | Request::GetPrompt { .. } | Request::ReadResource { .. }
    );
    if opts.input_state.is_some() && !resumable {
        let detail = "input_state is only for tools/call, prompts/get and resources/read";
        return Err(CommandError::InvalidArgument(detail.into()));
    }
    Ok(())
}

impl Connection {
    /// A state-only `input_required`: the retry goes out after a paced wait, unless the wait
    /// would outlast the request (then it times out now).
    pub(super) fn wait_for_input(&mut self, now: Instant, handle: RequestHandle, state: String) {
        let deadline = self.timers.at(Timer::Request(handle));
        let Some(op) = self.ops.get_mut(&handle) else { return };
        let Some(round) = op.input.as_mut() else { return };
        round.paced += 1;
        let delay = input_wait_delay(round.paced);
        // A wait ending at (or, unrepresentable, past) the deadline would outlast the request.
        let at = match now.checked_add(delay) {
            Some(at) if deadline.is_none_or(|d| at < d) => at,
            _ => {
                self.on_request_timeout(handle);
                return;
            }
        };
        let wait = InputWait {
            handle,
            method: op.request.method().to_owned(),
            target: op.request.target().map(str::to_owned),
            round: round.rounds,
            delay,
            state_len: state.len(),
            time_left: deadline.map(|d| d.saturating_duration_since(now)),
        };
        round.wait_until = Some(at);
        round.retry = Some((Map::new(), Some(state)));
        self.timers.set(Timer::Retry(handle), at);
        self.emit(Event::InputWait(wait));
    }

    /// The host decided to stop request `handle` during a paced input wait (its
    /// [`Event::InputWait`]): it fails with [`RequestError::InputWaitCancelled`], which carries
    /// what [`RequestOptions::input_state`] needs to go on later. Nothing is sent (nothing is
    /// in flight during a wait). Returns false, doing nothing, when the request is not waiting.
    pub fn cancel_input_wait(&mut self, handle: RequestHandle) -> bool {
        let armed = self.timers.at(Timer::Retry(handle));
        let Some(op) = self.ops.get(&handle) else { return false };
        // The retry timer is the wait's own (not an HTTP retry's backoff after the wait).
        let Some(round) = op.input.as_ref().filter(|r| armed.is_some() && r.wait_until == armed) else {
            return false;
        };
        let request_state = round.retry.as_ref().and_then(|(_, state)| state.clone());
        let resume = InputResume { request: op.request.clone(), request_state, responses: Map::new() };
        let err = RequestError::InputWaitCancelled { rounds: round.rounds, resume: Box::new(resume) };
        self.finish(handle, Err(err));
        true
    }
}
