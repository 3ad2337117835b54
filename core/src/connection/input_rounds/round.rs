//! One request's input between rounds (2026-07-28 `input_required`): how many rounds it took,
//! the answers collected for the current one and how many are still awaited, the
//! `requestState` to echo, and what its retry carries; plus what a round's `input_required`
//! result holds, read and checked, and the host requests that belong to a round.

use std::time::Instant;

use serde_json::{Map, Value};

use crate::handle::RequestHandle;
use crate::request::InputState;
use crate::schema::elicitation::FormSchema;
use crate::types::ServerRequestKind;

/// The input state of one request between rounds.
#[derive(Debug, Default)]
pub(in crate::connection) struct InputRound {
    /// `input_required` answers received so far.
    pub(in crate::connection) rounds: u32,
    /// Consecutive state-only rounds (they set the pace of the next wait).
    pub(in crate::connection) paced: u32,
    /// When the paced wait under way (if one is) ends: its retry timer.
    pub(in crate::connection) wait_until: Option<Instant>,
    /// Answers collected for the current round, by the server's key.
    responses: Map<String, Value>,
    /// Keys still waiting for the host.
    waiting: usize,
    /// The `requestState` to echo (absent: none is sent).
    state: Option<String>,
    /// Ready to be merged into the retry's params: the answers and the `requestState`.
    pub(in crate::connection) retry: Option<(Map<String, Value>, Option<String>)>,
}

/// A host request that belongs to a request's input round.
#[derive(Debug)]
pub(in crate::connection) struct PendingInput {
    /// The request whose round it belongs to.
    pub(in crate::connection) op: RequestHandle,
    /// Its key in the round's `inputRequests`.
    pub(super) key: String,
    pub(in crate::connection) kind: ServerRequestKind,
    /// Elicitation (form mode): the form the answer must match.
    pub(super) form: Option<FormSchema>,
}

/// What an `input_required` result holds: its `requestState` and `inputRequests` (empty when
/// absent).
#[derive(Debug, PartialEq)]
pub(super) struct RoundAsk {
    pub(super) state: Option<String>,
    pub(super) requests: Map<String, Value>,
}

/// Why an `input_required` result cannot be read.
#[derive(Debug, PartialEq)]
pub(super) enum BadRound {
    /// `requestState` is not a string.
    StateNotString,
    /// `inputRequests` is not an object (the state, if it is one, is kept for resuming).
    RequestsNotObject(Option<String>),
    /// Neither input requests nor a state.
    Empty,
}

/// What an answer (or a failed handler) leaves of the round.
#[derive(Debug, PartialEq)]
pub(super) enum Answered {
    /// Other answers are still awaited.
    Waiting,
    /// Every answer is in; `any` when at least one of them succeeded.
    AllIn { any: bool },
}

impl RoundAsk {
    /// Reads an `input_required` result.
    pub(super) fn read(value: &Value) -> Result<Self, BadRound> {
        let state = match value.get("requestState") {
            None => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => return Err(BadRound::StateNotString),
        };
        let requests = match value.get("inputRequests") {
            None => Map::new(),
            Some(Value::Object(m)) => m.clone(),
            Some(_) => return Err(BadRound::RequestsNotObject(state)),
        };
        if requests.is_empty() && state.is_none() {
            return Err(BadRound::Empty);
        }
        Ok(Self { state, requests })
    }
}

/// One entry of `inputRequests`: its method and params (absent params read as `{}`), or
/// `None` when it is not an object with a method string and object params.
pub(super) fn parse_input_request(request: &Value) -> Option<(&str, Value)> {
    let method = request.get("method")?.as_str()?;
    match request.get("params") {
        None => Some((method, Value::Object(Map::new()))),
        Some(params @ Value::Object(_)) => Some((method, params.clone())),
        Some(_) => None,
    }
}

impl InputRound {
    /// The input of a resumed request, sent with its first attempt (a fresh budget).
    pub(in crate::connection) fn resumed(state: InputState) -> Self {
        Self { retry: Some((state.responses, state.request_state)), ..Self::default() }
    }

    /// The server asked for input again: returns how many rounds it took so far (a paced wait
    /// under way is over).
    pub(super) fn next_round(&mut self) -> u32 {
        self.rounds += 1;
        self.wait_until = None;
        self.rounds
    }

    /// The host is asked `asks` input requests; their answers go back with `state`.
    pub(super) fn ask(&mut self, asks: usize, state: Option<String>) {
        self.responses = Map::new();
        self.waiting = asks;
        self.paced = 0;
        self.state = state;
    }

    /// A round that asks for nothing but a state (a paced wait follows).
    pub(super) fn state_only(&mut self) {
        self.responses = Map::new();
        self.waiting = 0;
        self.state = None;
    }

    /// The host answered the input request of `key`.
    pub(super) fn answered(&mut self, key: String, value: Value) -> Answered {
        self.responses.insert(key, value);
        self.one_less()
    }

    /// A handler failed on one input request (inside a task, which asks again if it still
    /// wants it).
    pub(super) fn handler_failed(&mut self) -> Answered {
        self.one_less()
    }

    fn one_less(&mut self) -> Answered {
        self.waiting = self.waiting.saturating_sub(1);
        if self.waiting == 0 {
            Answered::AllIn { any: !self.responses.is_empty() }
        } else {
            Answered::Waiting
        }
    }

    /// Every answer is in: the retry carries them and the state.
    pub(super) fn prepare_retry(&mut self) {
        self.retry = Some((std::mem::take(&mut self.responses), self.state.take()));
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn an_input_required_result_is_read_or_refused() {
        let ask = RoundAsk::read(&json!({"requestState": "s", "inputRequests": {"a": {}}})).expect("a round");
        assert_eq!((ask.state.as_deref(), ask.requests.len()), (Some("s"), 1));
        let state_only = RoundAsk::read(&json!({"requestState": "s"})).expect("a round");
        assert!(state_only.requests.is_empty());
        assert_eq!(RoundAsk::read(&json!({"requestState": 3})), Err(BadRound::StateNotString));
        assert_eq!(
            RoundAsk::read(&json!({"requestState": "s", "inputRequests": []})),
            Err(BadRound::RequestsNotObject(Some("s".into())))
        );
        assert_eq!(RoundAsk::read(&json!({})), Err(BadRound::Empty));
        assert_eq!(RoundAsk::read(&json!({"inputRequests": {}})), Err(BadRound::Empty));
    }

    #[test]
    fn input_requests_need_a_method_and_object_params() {
        assert_eq!(parse_input_request(&json!({"method": "roots/list"})), Some(("roots/list", json!({}))));
        assert_eq!(
            parse_input_request(&json!({"method": "m", "params": {"x": 1}})),
            Some(("m", json!({"x": 1})))
        );
        assert_eq!(parse_input_request(&json!({"method": "m", "params": []})), None);
        assert_eq!(parse_input_request(&json!({"params": {}})), None);
    }

    #[test]
    fn a_round_retries_with_every_answer_and_its_state() {
        let mut round = InputRound::default();
        assert_eq!((round.next_round(), round.next_round()), (1, 2));
        round.paced = 3;
        round.ask(2, Some("s".into()));
        assert_eq!(round.paced, 0);
        assert_eq!(round.answered("a".into(), json!(1)), Answered::Waiting);
        assert_eq!(round.answered("b".into(), json!(2)), Answered::AllIn { any: true });
        round.prepare_retry();
        let (responses, state) = round.retry.take().expect("a retry");
        assert_eq!((responses.len(), state.as_deref()), (2, Some("s")));
        // A round whose every handler failed has nothing to send.
        round.ask(1, None);
        assert_eq!(round.handler_failed(), Answered::AllIn { any: false });
    }
}
