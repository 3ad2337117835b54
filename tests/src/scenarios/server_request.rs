//! Host-request scenarios against `mcp-test-server --host-asks`, written once for every runtime:
//! URL-mode elicitation (the URL handler, consent-only answers, `elicitationId` kept on
//! 2025-11-25 with its completion event, dropped on 2026-07-28) and sampling with tools (the
//! `sampling_tools` opt-in, histories refused before the handler). The glue module `rt` is the
//! one described in `scenarios.rs`.

/// Defines `pub mod server_request_scenarios` for the glue `rt`:
/// `define_server_request_scenarios!(async, aw_async)` or `define_server_request_scenarios!(,
/// aw_sync)`.
#[macro_export]
macro_rules! define_server_request_scenarios {
    ($($kw:ident)? , $aw:ident) => {
/// The host-request scenarios, instantiated for this runtime.
#[allow(unused_imports)]
pub mod server_request_scenarios {
    use super::rt;
    use std::sync::{Arc, Mutex};
    use $crate::mcpwire_core::server_requests::{Adjustment, Refusal};
    use $crate::mcpwire_core::{ClientError, Event, RequestError, ServerRequestKind, Warning};
    use $crate::serde_json::{json, Value};
    use $crate::support::{self, Events};

    macro_rules! aw {
        ($e:expr) => {
            $crate::$aw!($e)
        };
    }

    type Seen = $crate::support::Asked;

    /// Polls `cond` every 10 ms for up to 10 s (the event hook runs after the call that
    /// delivered its event may have returned); panics with `what` if it never holds.
    $($kw)? fn wait_until(what: &str, cond: impl Fn() -> bool) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while !cond() {
            assert!(std::time::Instant::now() < deadline, "timed out waiting for {what}");
            aw!(rt::sleep(std::time::Duration::from_millis(10)));
        }
    }
    use $crate::support::recording;

    fn builder(proto: &str, events: &Events) -> rt::ClientBuilder {
        let spec = support::spec(support::test_server(), "t", &["--protocol", proto, "--host-asks"]);
        rt::Client::builder().server(spec).on_event(events.hook())
    }

    fn text_after(text: &str, prefix: &str) -> Value {
        let rest = text.strip_prefix(prefix).unwrap_or_else(|| panic!("{text:?} does not start with {prefix:?}"));
        $crate::serde_json::from_str(rest).expect("JSON after the prefix")
    }

    /// URL elicitation on both eras: the URL handler (not the form one) is asked; its answer
    /// reaches the server as consent only; 2025-11-25 keeps `elicitationId` and reports the
    /// completion, 2026-07-28 drops the id with a warning.
    pub $($kw)? fn url_elicitation_both_eras() {
        for proto in ["2025-11-25", "modern"] {
            let (url_seen, form_seen): (Seen, Seen) = Default::default();
            let events = Events::new();
            let url = rt::sync_handler(recording(&url_seen, json!({"action": "accept", "content": {"leak": 1}, "_meta": {"k": "v"}})));
            let form = rt::sync_handler(recording(&form_seen, json!({"action": "decline"})));
            let b = builder(proto, &events).elicitation_url_handler(url).elicitation_handler(form);
            let client = rt::build(b).expect("build");
            let r = aw!(client.call_tool("elicit_url", json!({"id": "e-42"}))).expect("elicit_url");
            assert_eq!(
                text_after(&r.text(), "elicitation: "),
                json!({"action": "accept", "_meta": {"k": "v"}}),
                "{proto}"
            );
            assert!(form_seen.lock().unwrap().is_empty(), "{proto}: the form handler was not asked");
            let asked = url_seen.lock().unwrap().clone();
            assert_eq!(asked.len(), 1, "{proto}");
            assert_eq!(asked[0]["url"], json!("https://example.com/connect"));
            let dropped = |e: &Event| {
                matches!(e, Event::Warning(Warning::HostRequestAdjusted { adjustment: Adjustment::UrlContentDropped, .. }))
            };
            aw!(wait_until(&format!("{proto}: the UrlContentDropped warning"), || events.any(dropped)));
            if proto == "modern" {
                assert!(asked[0].get("elicitationId").is_none(), "{:?}", asked[0]);
                aw!(wait_until("the ElicitationIdRemoved warning", || events.any(|e| matches!(e,
                    Event::Warning(Warning::HostRequestAdjusted { adjustment: Adjustment::ElicitationIdRemoved, .. })))));
            } else {
                assert_eq!(asked[0]["elicitationId"], json!("e-42"));
                // The server sends the completion before its answer.
                let complete = Event::ElicitationComplete { elicitation_id: "e-42".into() };
                aw!(wait_until("the elicitation's completion", || events.any(|e| *e == complete)));
            }
            aw!(client.close());
        }
    }

    /// Without a URL handler, URL elicitation is refused: -32602 to a 2025-11-25 server, a
    /// typed, resumable `InputRefused` on 2026-07-28; the form handler is never asked.
    pub $($kw)? fn url_elicitation_without_its_handler() {
        let seen: Seen = Default::default();
        let events = Events::new();
        let client = rt::build(builder("2025-11-25", &events).elicitation_handler(rt::sync_handler(recording(&seen, json!({})))))
            .expect("build");
        let r = aw!(client.call_tool("elicit_url", json!({}))).expect("elicit_url");
        let error = text_after(&r.text(), "elicitation: ");
        assert_eq!(error["code"], json!(-32602), "{error}");
        aw!(client.close());

        let client = rt::build(builder("modern", &events).elicitation_handler(rt::sync_handler(recording(&seen, json!({})))))
            .expect("build");
        match aw!(client.call_tool("elicit_url", json!({}))) {
            Err(ClientError::Request(RequestError::InputRefused { reason, resume, .. })) => {
                assert_eq!(reason, Refusal::UnsupportedMode { mode: "url" });
                let resume = resume.expect("resumable");
                assert_eq!(resume.request_state.as_deref(), Some("host-asks"));
            }
            other => panic!("{other:?}"),
        }
        assert!(seen.lock().unwrap().is_empty());
        aw!(client.close());
    }

    /// Sampling with tools: refused without `sampling_tools(true)`; with it, the handler gets
    /// the tools; an unanswered tool use is refused before the handler either way.
    pub $($kw)? fn sampling_with_tools_opt_in() {
        let answer = json!({"role": "assistant", "model": "m", "stopReason": "endTurn",
            "content": {"type": "text", "text": "18C in Paris"}});
        for proto in ["2025-11-25", "modern"] {
            let seen: Seen = Default::default();
            let events = Events::new();
            let client = rt::build(builder(proto, &events).sampling_handler(rt::sync_handler(recording(&seen, answer.clone()))))
                .expect("build");
            match aw!(client.call_tool("sample_tools", json!({}))) {
                Ok(r) => {
                    assert_eq!(proto, "2025-11-25");
                    assert_eq!(text_after(&r.text(), "sampling: ")["code"], json!(-32602), "{}", r.text());
                }
                Err(ClientError::Request(RequestError::InputRefused { reason, .. })) => {
                    assert_eq!(proto, "modern");
                    assert_eq!(reason, Refusal::ToolsNotDeclared);
                }
                Err(other) => panic!("{proto}: {other:?}"),
            }
            assert!(seen.lock().unwrap().is_empty(), "{proto}");
            aw!(client.close());

            let b = builder(proto, &events).sampling_handler(rt::sync_handler(recording(&seen, answer.clone()))).sampling_tools(true);
            let client = rt::build(b).expect("build");
            let r = aw!(client.call_tool("sample_tools", json!({"includeContext": "thisServer"}))).expect("sample_tools");
            assert_eq!(text_after(&r.text(), "sampling: "), answer, "{proto}");
            {
                let asked = seen.lock().unwrap().clone();
                assert_eq!(asked.len(), 1, "{proto}");
                assert_eq!(asked[0]["tools"][0]["name"], json!("weather"));
                assert_eq!(asked[0]["includeContext"], json!("none"), "no sampling_context opt-in");
            }
            let bad = aw!(client.call_tool("sample_tools", json!({"history": "unanswered"})));
            match bad {
                Ok(r) => {
                    assert_eq!(proto, "2025-11-25");
                    let error = text_after(&r.text(), "sampling: ");
                    assert_eq!(error["code"], json!(-32602), "{error}");
                }
                Err(ClientError::Request(RequestError::InputRefused { reason: Refusal::Sampling(_), .. })) => {
                    assert_eq!(proto, "modern");
                }
                Err(other) => panic!("{proto}: {other:?}"),
            }
            assert_eq!(seen.lock().unwrap().len(), 1, "{proto}: the handler was not asked again");
            aw!(client.close());
        }
    }

    /// 2026-07-28 input of a kind the client has no handler for stops the call with what
    /// resuming needs (the round's request and state); answering the outstanding request in
    /// the resume completes the original call.
    pub $($kw)? fn undeclared_input_is_resumable() {
        let events = Events::new();
        let client = rt::build(builder("modern", &events)).expect("build");
        let resume = match aw!(client.call_tool("sample_tools", json!({}))) {
            Err(ClientError::Request(e @ RequestError::InputUndeclared { .. })) => {
                let RequestError::InputUndeclared { methods, outstanding, .. } = &e else { unreachable!() };
                assert_eq!(methods, &["sampling/createMessage"]);
                assert_eq!(outstanding.len(), 1);
                assert_eq!((outstanding[0].key.as_str(), outstanding[0].method.as_str()), ("ask", "sampling/createMessage"));
                assert_eq!(outstanding[0].params["tools"][0]["name"], json!("weather"));
                e.input_resume().cloned().expect("resumable")
            }
            other => panic!("expected InputUndeclared, got {other:?}"),
        };
        assert_eq!(resume.request_state.as_deref(), Some("host-asks"));
        let answer = json!({"role": "assistant", "model": "m", "content": {"type": "text", "text": "18C"}});
        let r = aw!(client.servers()[0].resume(resume.answer("ask", answer.clone()))).expect("resume");
        assert_eq!(text_after(&r.into_tool_result().expect("a tool result").text(), "sampling: "), answer);
        aw!(client.close());
    }
}
    };
}

/// Generates one `#[test]` per host-request scenario: `all_server_request_scenario_tests!(run)`.
#[macro_export]
macro_rules! all_server_request_scenario_tests {
    ($run:path) => {
        $crate::scenario_tests!(server_request_scenarios, $run;
            url_elicitation_both_eras, url_elicitation_without_its_handler, sampling_with_tools_opt_in,
            undeclared_input_is_resumable);
    };
}
