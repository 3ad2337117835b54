//! Paced waits, the input budget and resumption of multi-round-trip input (2026-07-28).
//!
//! An `input_required` answer with a `requestState` and no `inputRequests` is the server
//! saying "not yet, come back" (load shedding, or an interaction happening elsewhere, such as
//! a URL elicitation). The retry then goes out after a wait that grows ([`FIRST_INPUT_WAIT`](crate::FIRST_INPUT_WAIT),
//! doubling, at most [`MAX_INPUT_WAIT`](crate::input_round::MAX_INPUT_WAIT); deterministic, no jitter) and never outlasts the
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

use std::time::Instant;

use serde_json::Map;

use super::Connection;
use crate::error::{CommandError, RequestError};
use crate::event::Event;
use crate::handle::RequestHandle;
use crate::input_round::{input_wait_delay, InputResume, InputWait};
use crate::request::{Request, RequestOptions};
use crate::timers::Timer;

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
        let Some(op) = self.in_flight.get_mut(handle) else { return };
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

    /// The work of [`Connection::cancel_input_wait`].
    pub(super) fn stop_input_wait(&mut self, handle: RequestHandle) -> bool {
        let armed = self.timers.at(Timer::Retry(handle));
        let Some(op) = self.in_flight.get(handle) else { return false };
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
