//! Multi-round-trip input (2026-07-28) as data: the paced wait before a state-only retry
//! ([`InputWait`], announced as an event), where a request stopped ([`InputResume`], carried by
//! the errors that end it) and what was left unanswered ([`OutstandingInput`]). The logic is
//! the connection's (`connection/input_waits.rs`, `connection/input_rounds.rs`).

use std::time::Duration;

use serde_json::{Map, Value};

use crate::handle::RequestHandle;
use crate::request::{InputState, Request};

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

/// One paced wait before a state-only retry, as announced by [`Event::InputWait`](crate::Event::InputWait).
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
    /// Stop: the request fails with [`RequestError::InputWaitCancelled`](crate::RequestError::InputWaitCancelled) (resumable).
    Cancel,
}

/// Where a multi-round-trip request stopped, to go on from there (a host's `Server::resume`,
/// or [`Connection::request`](crate::Connection::request) with [`RequestOptions::input_state`](crate::RequestOptions::input_state)).
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
