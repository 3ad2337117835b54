//! Paced input waits against `mcp-test-server --protocol modern --input-waits`, written once for
//! every runtime: `not_yet` says "not yet" (a state-only `input_required`) a few times before
//! answering, `never_ready` never stops. The waits grow and reach the host's `on_input_wait`
//! hook; the hook can stop a request, and a stopped or over-budget request resumes with
//! `Server::resume`; a wait never outlasts the request's timeout. The glue module `rt` is the
//! one described in `scenarios.rs`.

/// Defines `pub mod input_wait_scenarios` for the glue `rt`:
/// `define_input_wait_scenarios!(async, aw_async)` or `define_input_wait_scenarios!(,
/// aw_sync)`.
#[macro_export]
macro_rules! define_input_wait_scenarios {
    ($($kw:ident)? , $aw:ident) => {
/// The input-wait scenarios, instantiated for this runtime.
#[allow(unused_imports)]
pub mod input_wait_scenarios {
    use super::rt;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, Mutex};
    use std::time::Duration;
    use $crate::mcpwire_core::{
        ClientError, Event, InputWait, InputWaitDecision, RequestError, RequestOptions, ServerSpec,
    };
    use $crate::serde_json::json;
    use $crate::support::{self, Events};

    macro_rules! aw {
        ($e:expr) => {
            $crate::$aw!($e)
        };
    }

    type Waits = Arc<Mutex<Vec<(String, InputWait)>>>;

    /// Polls `cond` every 10 ms for up to 10 s (the event hook runs after the call that
    /// delivered its event may have returned); panics with `what` if it never holds.
    $($kw)? fn wait_until(what: &str, cond: impl Fn() -> bool) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while !cond() {
            assert!(std::time::Instant::now() < deadline, "timed out waiting for {what}");
            aw!(rt::sleep(std::time::Duration::from_millis(10)));
        }
    }

    fn spec() -> ServerSpec {
        support::spec(support::test_server(), "t", &["--protocol", "modern", "--input-waits"])
    }

    /// A hook recording every wait, cancelling those of round `cancel_round` while `cancelling`.
    fn hook(
        waits: &Waits,
        cancel_round: u32,
        cancelling: &Arc<AtomicBool>,
    ) -> impl Fn(&str, &InputWait) -> InputWaitDecision + Send + Sync + 'static {
        let (waits, cancelling) = (waits.clone(), cancelling.clone());
        move |server: &str, wait: &InputWait| {
            waits.lock().unwrap().push((server.to_owned(), wait.clone()));
            if wait.round == cancel_round && cancelling.load(Ordering::SeqCst) {
                InputWaitDecision::Cancel
            } else {
                InputWaitDecision::Continue
            }
        }
    }

    fn delays(waits: &Waits) -> Vec<u64> {
        waits.lock().unwrap().iter().map(|(_, w)| w.delay.as_millis() as u64).collect()
    }

    /// Three "not yet" answers: three paced waits (50, 100, 200 ms) seen by the hook and as
    /// events, then the result.
    pub $($kw)? fn paced_waits_reach_the_hook_then_the_call_succeeds() {
        let waits: Waits = Default::default();
        let events = Events::new();
        let builder = rt::Client::builder()
            .server(spec())
            .on_input_wait(hook(&waits, 0, &Arc::new(AtomicBool::new(false))))
            .on_event(events.hook());
        let client = rt::build(builder).expect("build");
        let started = std::time::Instant::now();
        let r = aw!(client.call_tool("not_yet", json!({"times": 3}))).expect("not_yet");
        assert_eq!(r.text(), "ready after 3 waits");
        assert!(started.elapsed() >= Duration::from_millis(350), "{:?}", started.elapsed());
        aw!(wait_until("three waits seen by the hook", || delays(&waits).len() >= 3));
        assert_eq!(delays(&waits), [50, 100, 200]);
        for (i, (server, wait)) in waits.lock().unwrap().iter().enumerate() {
            assert_eq!(server, "t");
            assert_eq!(wait.round, i as u32 + 1);
            assert_eq!((wait.method.as_str(), wait.target.as_deref()), ("tools/call", Some("not_yet")));
            assert_eq!(wait.state_len, "not-yet:1".len());
        }
        let seen = || events.snapshot().into_iter().filter(|(_, e)| matches!(e, Event::InputWait(_))).count();
        aw!(wait_until("three InputWait events", || seen() >= 3));
        assert_eq!(seen(), 3);
        aw!(client.close());
    }

    /// The hook stops the call at its second wait (a resumable error); resuming goes on from
    /// the state the server gave last and succeeds.
    pub $($kw)? fn the_hook_stops_a_call_and_resume_finishes_it() {
        let waits: Waits = Default::default();
        let cancelling = Arc::new(AtomicBool::new(true));
        let builder = rt::Client::builder().server(spec()).on_input_wait(hook(&waits, 2, &cancelling));
        let client = rt::build(builder).expect("build");
        let resume = match aw!(client.call_tool("not_yet", json!({"times": 3}))) {
            Err(ClientError::Request(RequestError::InputWaitCancelled { rounds, resume })) => {
                assert_eq!(rounds, 2);
                assert_eq!(resume.request_state.as_deref(), Some("not-yet:2"));
                resume
            }
            other => panic!("expected InputWaitCancelled, got {other:?}"),
        };
        cancelling.store(false, Ordering::SeqCst);
        let r = aw!(client.servers()[0].resume(*resume)).expect("resume");
        assert_eq!(r.into_tool_result().expect("a tool result").text(), "ready after 3 waits");
        // One more wait after resuming, at the start of the pace again.
        aw!(wait_until("the wait after resuming", || delays(&waits).len() >= 3));
        assert_eq!(delays(&waits), [50, 100, 50]);
        aw!(client.close());
    }

    /// Past the input budget the call fails with what resuming needs; the resumed call has a
    /// fresh budget.
    pub $($kw)? fn an_exhausted_budget_is_resumable() {
        let client = rt::build(rt::Client::builder().server(spec().max_input_rounds(2))).expect("build");
        match aw!(client.call_tool("never_ready", json!({}))) {
            Err(ClientError::Request(RequestError::InputBudgetExhausted { rounds, outstanding, resume })) => {
                assert_eq!(rounds, 2);
                assert!(outstanding.is_empty());
                assert_eq!(resume.request_state.as_deref(), Some("never:3"));
            }
            other => panic!("expected InputBudgetExhausted, got {other:?}"),
        }
        let resume = match aw!(client.call_tool("not_yet", json!({"times": 4}))) {
            Err(ClientError::Request(e @ RequestError::InputBudgetExhausted { .. })) => {
                e.input_resume().cloned().expect("resumable")
            }
            other => panic!("expected InputBudgetExhausted, got {other:?}"),
        };
        assert_eq!(resume.request_state.as_deref(), Some("not-yet:3"));
        let r = aw!(client.servers()[0].resume(resume)).expect("resume");
        assert_eq!(r.into_tool_result().expect("a tool result").text(), "ready after 4 waits");
        aw!(client.close());
    }

    /// A server that never gets ready: the call times out within its own timeout, never later.
    pub $($kw)? fn waits_never_outlast_the_timeout() {
        let client = rt::build(rt::Client::builder().server(spec().max_input_rounds(50))).expect("build");
        aw!(client.connect()).into_result().expect("connect");
        let opts = RequestOptions::default().timeout(Duration::from_millis(500));
        let started = std::time::Instant::now();
        match aw!(client.servers()[0].call_tool("never_ready", json!({})).options(opts)) {
            Err(ClientError::Request(RequestError::Timeout { after })) => {
                assert_eq!(after, Duration::from_millis(500))
            }
            other => panic!("expected a timeout, got {other:?}"),
        }
        assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
        aw!(client.close());
    }
}
    };
}

/// Generates one `#[test]` per input-wait scenario: `all_input_wait_scenario_tests!(run)`.
#[macro_export]
macro_rules! all_input_wait_scenario_tests {
    ($run:path) => {
        $crate::scenario_tests!(input_wait_scenarios, $run;
            paced_waits_reach_the_hook_then_the_call_succeeds, the_hook_stops_a_call_and_resume_finishes_it,
            an_exhausted_budget_is_resumable, waits_never_outlast_the_timeout);
    };
}
