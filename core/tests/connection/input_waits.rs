//! Paced waits of state-only `input_required` answers (2026-07-28), the input budget and its
//! resumable error, the host stopping a wait, and resuming a stopped request.

use std::time::Duration;

use serde_json::{json, Map, Value};

use super::harness::*;
use mcpwire_core::{
    input_wait_delay, ClientFeatures, CommandError, Event, InputResume, InputState, InputWait, Limits,
    OutstandingInput, ProtocolMode, Request, RequestError, RequestHandle, RequestOptions,
};

/// A modern server, a client with a form elicitation handler, `rounds` as the input budget.
fn modern(rounds: u32) -> Harness {
    let mut h = Harness::with(ProtocolMode::Auto, |c| {
        c.features = ClientFeatures::default().elicitation_form(true);
        c.limits.max_input_rounds = rounds;
    });
    h.connect_modern();
    h
}

fn with_timeout(timeout: Duration) -> RequestOptions {
    RequestOptions::default().timeout(timeout)
}

fn not_yet(state: &str) -> Value {
    json!({"resultType": "input_required", "requestState": state})
}

fn ask(key: &str, state: Option<&str>) -> Value {
    let mut v = json!({"resultType": "input_required", "inputRequests": {key: {
        "method": "elicitation/create",
        "params": {"message": "Sure?", "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}}}
    }}});
    if let Some(s) = state {
        v["requestState"] = json!(s);
    }
    v
}

fn take_wait(h: &mut Harness) -> InputWait {
    match h.take_event(|e| matches!(e, Event::InputWait(_))) {
        Some(Event::InputWait(wait)) => wait,
        _ => panic!("no InputWait event; events: {:#?}", h.events()),
    }
}

/// Answers `msg` with a state-only `input_required` and checks the wait it starts: announced,
/// nothing sent before it ends, then the retry echoing the state. Returns the retry.
fn wait_round(
    h: &mut Harness,
    r: RequestHandle,
    msg: &Value,
    state: &str,
    round: u32,
    delay: Duration,
) -> Value {
    h.reply(msg, not_yet(state));
    assert!(!h.has_response(r), "round {round} failed the request: {:?}", h.events());
    let wait = take_wait(h);
    assert_eq!((wait.handle, wait.round, wait.delay, wait.state_len), (r, round, delay, state.len()));
    assert_eq!(h.next_timer_in(), Some(delay), "round {round}");
    h.advance(delay - ms(1));
    assert!(h.sent().is_empty(), "retried before the wait ended (round {round})");
    h.advance(ms(1));
    let retry = h.expect_sent("tools/call");
    assert_ne!(retry["id"], msg["id"]);
    assert_eq!(retry["params"]["requestState"], json!(state));
    assert_eq!(retry["params"]["arguments"], json!({"n": 1}));
    retry
}

#[test]
fn waits_grow_from_50_ms_and_cap_at_2_s() {
    let expected = [50, 100, 200, 400, 800, 1600, 2000, 2000, 2000];
    for (n, ms_) in expected.iter().enumerate() {
        assert_eq!(input_wait_delay(n as u32 + 1), ms(*ms_));
    }
    assert_eq!(input_wait_delay(u32::MAX), ms(2000));

    let mut h = modern(20);
    let r = h.request_opts(call("shed", json!({"n": 1})), with_timeout(secs(600)));
    let mut msg = h.expect_sent("tools/call");
    for (i, ms_) in expected.iter().enumerate() {
        let round = i as u32 + 1;
        msg = wait_round(&mut h, r, &msg, &format!("s{round}"), round, ms(*ms_));
    }
    let wait_total: u64 = expected.iter().sum();
    assert_eq!(h.elapsed(), ms(wait_total));
    h.reply(&msg, text_result("ready"));
    assert_eq!(h.ok(r).into_tool_result().unwrap().text(), "ready");
    h.assert_all_answered();
}

#[test]
fn a_round_with_input_requests_is_asked_at_once_and_resets_the_pace() {
    let mut h = modern(20);
    let r = h.request_opts(call("mixed", json!({"n": 1})), with_timeout(secs(600)));
    let msg = h.expect_sent("tools/call");
    let msg = wait_round(&mut h, r, &msg, "a", 1, ms(50));
    let msg = wait_round(&mut h, r, &msg, "b", 2, ms(100));
    // Real input: asked of the host at once, retried as soon as it is answered, no wait.
    h.reply(&msg, ask("q", Some("c")));
    assert!(h.take_event(|e| matches!(e, Event::InputWait(_))).is_none());
    let (q, _) = h.take_server_request();
    let before = h.elapsed();
    assert!(h.respond(q, Ok(json!({"action": "accept", "content": {"ok": true}}))));
    let retry = h.expect_sent("tools/call");
    assert_eq!(h.elapsed(), before);
    assert_eq!(retry["params"]["requestState"], json!("c"));
    assert_eq!(
        retry["params"]["inputResponses"],
        json!({"q": {"action": "accept", "content": {"ok": true}}})
    );
    // The next state-only round starts the pace again.
    let msg = wait_round(&mut h, r, &retry, "d", 4, ms(50));
    h.reply(&msg, text_result("done"));
    h.ok(r);
}

#[test]
fn a_wait_never_outlasts_the_request_timeout() {
    let mut h = modern(20);
    let r = h.request_opts(call("shed", json!({"n": 1})), with_timeout(secs(1)));
    let mut msg = h.expect_sent("tools/call");
    for (round, ms_) in [(1, 50), (2, 100), (3, 200), (4, 400)] {
        msg = wait_round(&mut h, r, &msg, "s", round, ms(ms_));
    }
    // At 750 ms, a wait of 800 ms would end past the 1 s deadline: the request times out now.
    assert_eq!(h.elapsed(), ms(750));
    h.reply(&msg, not_yet("s"));
    assert_eq!(h.err(r), RequestError::Timeout { after: secs(1) });
    assert!(h.take_event(|e| matches!(e, Event::InputWait(_))).is_none());
    assert!(h.sent().is_empty(), "nothing is in flight, so nothing to cancel");
    assert_eq!(h.next_timer_in(), None);
    h.assert_all_answered();

    // A wait ending exactly at the deadline is refused too (the deadline wins a tie).
    let r = h.request_opts(call("shed", json!({"n": 1})), with_timeout(ms(150)));
    let msg = h.expect_sent("tools/call");
    let msg = wait_round(&mut h, r, &msg, "s", 1, ms(50));
    h.reply(&msg, not_yet("s"));
    assert_eq!(h.err(r), RequestError::Timeout { after: ms(150) });
}

#[test]
fn cancelling_during_a_wait_sends_nothing() {
    let mut h = modern(20);
    let r = h.request(call("shed", json!({"n": 1})));
    let msg = h.expect_sent("tools/call");
    h.reply(&msg, not_yet("s1"));
    take_wait(&mut h);
    assert!(h.cancel(r));
    assert_eq!(h.err(r), RequestError::Cancelled);
    assert!(h.sent().is_empty(), "no notifications/cancelled: nothing was in flight");
    assert_eq!(h.next_timer_in(), None, "the wait's timer went with the request");
    h.advance(secs(5));
    assert!(h.sent().is_empty());
    assert!(!h.conn.cancel_input_wait(r));
    h.assert_all_answered();
}

#[test]
fn the_host_stopping_a_wait_fails_the_request_resumably() {
    let mut h = modern(20);
    let r = h.request(call("shed", json!({"n": 1})));
    let msg = h.expect_sent("tools/call");
    assert!(!h.conn.cancel_input_wait(r), "a request on the wire is not waiting");
    let msg = wait_round(&mut h, r, &msg, "s1", 1, ms(50));
    h.reply(&msg, not_yet("s2"));
    let wait = take_wait(&mut h);
    assert_eq!((wait.round, wait.method.as_str(), wait.target.as_deref()), (2, "tools/call", Some("shed")));
    assert!(wait.time_left.is_some_and(|left| left <= secs(60) && left > secs(59)));
    assert!(h.conn.cancel_input_wait(r));
    h.drain();
    let err = h.err(r);
    let expected = InputResume {
        request: call("shed", json!({"n": 1})),
        request_state: Some("s2".into()),
        responses: Map::new(),
    };
    assert_eq!(err, RequestError::InputWaitCancelled { rounds: 2, resume: Box::new(expected.clone()) });
    assert_eq!(err.input_resume(), Some(&expected));
    h.advance(secs(5));
    assert!(h.sent().is_empty());
    assert!(!h.conn.cancel_input_wait(r), "already ended");
    h.assert_all_answered();
}

#[test]
fn the_round_past_the_budget_fails_with_what_resuming_needs_and_resume_goes_on() {
    let mut h = modern(3);
    let r = h.request(call("book", json!({"n": 1})));
    let msg = h.expect_sent("tools/call");
    h.reply(&msg, ask("q1", Some("s1")));
    let (q, _) = h.take_server_request();
    h.respond(q, Ok(json!({"action": "accept", "content": {"ok": true}})));
    let msg = h.expect_sent("tools/call");
    let msg = wait_round(&mut h, r, &msg, "s2", 2, ms(50));
    let msg = wait_round(&mut h, r, &msg, "s3", 3, ms(100));
    h.reply(&msg, ask("q4", Some("s4")));
    assert!(
        h.take_event(|e| matches!(e, Event::ServerRequest { .. })).is_none(),
        "nothing asked past the budget"
    );
    let err = h.err(r);
    let RequestError::InputBudgetExhausted { rounds, outstanding, resume } = err.clone() else {
        panic!("expected InputBudgetExhausted, got {err:?}");
    };
    assert_eq!(rounds, 3);
    assert_eq!(
        outstanding,
        vec![OutstandingInput {
            key: "q4".into(),
            method: "elicitation/create".into(),
            params: ask("q4", None)["inputRequests"]["q4"]["params"].clone(),
        }]
    );
    assert_eq!(resume.request, call("book", json!({"n": 1})));
    assert_eq!(resume.request_state.as_deref(), Some("s4"));
    assert!(err.to_string().contains("more than 3 times"), "{err}");

    // Resume with the answer to the outstanding request: a fresh budget of 3 rounds.
    let answer = json!({"action": "accept", "content": {"ok": false}});
    let (request, state) = resume.answer("q4", answer.clone()).into_parts();
    let r2 = h.request_opts(request, RequestOptions::default().input_state(state));
    let first = h.expect_sent("tools/call");
    assert_ne!(first["id"], msg["id"]);
    assert_eq!(first["params"]["name"], "book");
    assert_eq!(first["params"]["requestState"], json!("s4"));
    assert_eq!(first["params"]["inputResponses"], json!({"q4": answer}));
    let mut msg = first;
    for (round, delay) in [(1, 50), (2, 100), (3, 200)] {
        msg = wait_round(&mut h, r2, &msg, "again", round, ms(delay));
    }
    h.reply(&msg, text_result("booked"));
    assert_eq!(h.ok(r2).into_tool_result().unwrap().text(), "booked");
    h.assert_all_answered();
}

#[test]
fn the_default_budget_is_ten_rounds_and_a_state_only_overrun_has_nothing_outstanding() {
    assert_eq!(Limits::default().max_input_rounds, 10);
    let mut h = modern(Limits::default().max_input_rounds);
    let r = h.request(call("shed", json!({"n": 1})));
    let mut msg = h.expect_sent("tools/call");
    for round in 1..=10 {
        msg = wait_round(&mut h, r, &msg, &format!("s{round}"), round, input_wait_delay(round));
    }
    h.reply(&msg, not_yet("s11"));
    match h.err(r) {
        RequestError::InputBudgetExhausted { rounds, outstanding, resume } => {
            assert_eq!(rounds, 10);
            assert!(outstanding.is_empty());
            assert_eq!(resume.request_state.as_deref(), Some("s11"));
        }
        other => panic!("expected InputBudgetExhausted, got {other:?}"),
    }
}

#[test]
fn resuming_is_only_for_input_requests_and_never_served_from_the_cache() {
    let mut h = modern(10);
    let state = InputState { request_state: Some("s".into()), responses: Map::new() };
    let opts = RequestOptions::default().input_state(state.clone());
    assert!(matches!(h.try_request(Request::ListTools, opts.clone()), Err(CommandError::InvalidArgument(_))));

    // A read whose result is cached is still sent when it resumes, and its answer is not kept.
    let read = Request::ReadResource { uri: "test://r".into() };
    let r = h.request(read.clone());
    let msg = h.expect_sent("resources/read");
    h.reply(&msg, json!({"contents": [{"uri": "test://r", "text": "v1"}], "ttlMs": 60000}));
    h.ok(r);
    let cached = h.request(read.clone());
    h.ok(cached);
    assert!(h.sent().is_empty(), "served from the cache");
    let resumed = h.request_opts(read.clone(), opts);
    let msg = h.expect_sent("resources/read");
    assert_eq!(msg["params"]["requestState"], json!("s"));
    assert_eq!(msg["params"]["inputResponses"], json!({}));
    h.reply(&msg, json!({"contents": [{"uri": "test://r", "text": "v2"}], "ttlMs": 60000}));
    h.ok(resumed);
    h.assert_all_answered();
}
