//! Server requests to the host against real servers, written once for every runtime:
//! server-everything (2025-11-25) asks for URL-mode elicitation (`trigger-url-elicitation`,
//! listed only when the client declares `elicitation.url`; its request path and its `-32042`
//! error path), form elicitation answered with bare content or an unknown action, and
//! sampling; py-mcp-peer's `ask_url` does URL elicitation on 2026-07-28 (an `input_required`
//! round) and on 2025-11-25 (a request with `elicitationId`, then
//! `notifications/elicitation/complete`), and its `sample_weather` asks for sampling with tools
//! only when the client declares `sampling.tools`. The glue module `rt` needs `Client`, `build` and
//! `sync_handler`; `tests/tests/real_peers.rs` runs them on every runtime.

/// Defines `pub mod server_request_peer_checks` for the glue `rt`:
/// `define_server_request_peer_checks!(async, aw_async)` or `define_server_request_peer_checks!(,
/// aw_sync)`.
#[macro_export]
macro_rules! define_server_request_peer_checks {
    ($($kw:ident)? , $aw:ident) => {
/// The host-request checks against real peers, instantiated for this runtime.
#[allow(unused_imports)]
pub mod server_request_peer_checks {
    use super::rt;
    use std::sync::{Arc, Mutex};
    use std::time::Duration;
    use $crate::mcpwire_core::server_requests::Adjustment;
    use $crate::mcpwire_core::{
        ClientError, Era, Event, ProtocolMode, RequestError, ServerRequestKind, ServerSpec, Warning,
    };
    use $crate::mcpwire_core::types::ElicitResult;
    use $crate::mcpwire_host::ElicitationRequest;
    use $crate::serde_json::{json, Value};
    use $crate::support::{self, Events};

    macro_rules! aw {
        ($e:expr) => {
            $crate::$aw!($e)
        };
    }

    type Seen = $crate::support::Asked;
    use $crate::support::recording;

    fn everything() -> ServerSpec {
        support::peer_spec("server-everything", &[]).request_timeout(Duration::from_secs(30))
    }

    /// server-everything lists `trigger-url-elicitation` only to a client with a URL handler;
    /// the URL handler gets its request with `elicitationId`, and its answer reaches the server
    /// as consent only (content dropped, with a warning). The error path fails the call with
    /// `-32042` naming a URL elicitation; the retry goes through.
    pub $($kw)? fn everything_url_elicitation() {
        let form_only = rt::build(rt::Client::builder().server(everything())
            .elicitation_handler(rt::sync_handler(|_: ElicitationRequest| Ok(ElicitResult::decline()))))
            .expect("build");
        let names: Vec<String> =
            aw!(form_only.servers()[0].list_tools()).expect("list_tools").into_iter().map(|t| t.name).collect();
        assert!(names.iter().any(|n| n == "trigger-elicitation-request"), "{names:?}");
        assert!(!names.iter().any(|n| n == "trigger-url-elicitation"), "{names:?}");
        aw!(form_only.close());

        let seen: Seen = Default::default();
        let events = Events::new();
        let url = rt::sync_handler(recording(&seen, json!({"action": "accept", "content": {"leak": "x"}})));
        let client = rt::build(rt::Client::builder().server(everything()).elicitation_url_handler(url).on_event(events.hook()))
            .expect("build");
        let args = json!({"url": "https://example.com/connect", "elicitationId": "ev-1", "message": "Connect"});
        let r = aw!(client.call_tool("trigger-url-elicitation", args.clone())).expect("trigger-url-elicitation");
        let text = r.text();
        assert!(text.contains("User completed the URL elicitation flow") && text.contains("ev-1"), "{text}");
        assert!(!text.contains("leak"), "content reached the server: {text}");
        {
            let asked = seen.lock().unwrap().clone();
            assert_eq!(asked.len(), 1);
            assert_eq!(asked[0]["elicitationId"], json!("ev-1"));
            assert_eq!(asked[0]["url"], json!("https://example.com/connect"));
        }
        // The event hook may see the warning after the call returned.
        let dropped = |e: &Event| {
            matches!(e, Event::Warning(Warning::HostRequestAdjusted { adjustment: Adjustment::UrlContentDropped, .. }))
        };
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while !events.any(dropped) {
            assert!(std::time::Instant::now() < deadline, "no UrlContentDropped warning: {:?}", events.snapshot());
            aw!(rt::sleep(Duration::from_millis(10)));
        }

        let mut error_path = args;
        error_path["elicitationId"] = json!("ev-2");
        error_path["errorPath"] = json!(true);
        match aw!(client.call_tool("trigger-url-elicitation", error_path.clone())) {
            Err(ClientError::Request(RequestError::Rpc(e))) => {
                assert_eq!(e.code, -32042, "{e:?}");
                let listed = &e.data.as_ref().expect("data")["elicitations"][0];
                assert_eq!(listed["mode"], json!("url"), "{listed}");
                assert!(listed["elicitationId"].is_string(), "{listed}");
            }
            other => panic!("expected -32042, got {other:?}"),
        }
        let r = aw!(client.call_tool("trigger-url-elicitation", error_path)).expect("the retry");
        assert!(r.text().contains("ev-2"), "{}", r.text());
        assert_eq!(seen.lock().unwrap().len(), 2);
        aw!(client.close());
    }

    /// server-everything's form elicitation answered with an accept and with a cancel (typed
    /// answers; the client's leniency towards raw answers, a bare content or an unknown action,
    /// is covered by the core's tests), and its sampling request reaching the handler.
    pub $($kw)? fn everything_form_leniency_and_sampling() {
        let answers = Arc::new(Mutex::new(vec![
            ElicitResult::cancel(),
            ElicitResult::accept(json!({"name": "Ada", "check": true})),
        ]));
        let form = {
            let answers = answers.clone();
            rt::sync_handler(move |_: ElicitationRequest| {
                answers.lock().unwrap().pop().ok_or_else(|| "no answer left".into())
            })
        };
        let seen: Seen = Default::default();
        let sample = rt::sync_handler(recording(&seen, json!({"role": "assistant", "model": "test-model",
            "stopReason": "endTurn", "content": {"type": "text", "text": "sampled"}})));
        let events = Events::new();
        let builder = rt::Client::builder().server(everything()).elicitation_handler(form)
            .sampling_handler(sample).sampling_tools(true).on_event(events.hook());
        let client = rt::build(builder).expect("build");
        let r = aw!(client.call_tool("trigger-elicitation-request", json!({}))).expect("elicitation");
        let text = r.text();
        assert!(text.contains("User provided the requested information") && text.contains("- Name: Ada"), "{text}");
        let r = aw!(client.call_tool("trigger-elicitation-request", json!({}))).expect("elicitation");
        assert!(r.text().contains("User cancelled"), "{}", r.text());
        let r = aw!(client.call_tool("trigger-sampling-request", json!({"prompt": "hi", "maxTokens": 5})))
            .expect("sampling");
        assert!(r.text().contains("sampled"), "{}", r.text());
        let asked = seen.lock().unwrap().clone();
        assert_eq!(asked.len(), 1);
        assert_eq!(asked[0]["messages"][0]["role"], json!("user"));
        aw!(client.close());
    }

    /// py-mcp-peer's `ask_url` on 2026-07-28 (an `input_required` round, no `elicitationId`)
    /// and on 2025-11-25 (a request with `elicitationId`, whose completion notification becomes
    /// `Event::ElicitationComplete`). Either way the peer sees consent only.
    pub $($kw)? fn py_url_elicitation_both_eras() {
        for (mode, era) in [(ProtocolMode::Auto, Era::Modern), (ProtocolMode::Legacy, Era::Legacy)] {
            let seen: Seen = Default::default();
            let events = Events::new();
            let url = rt::sync_handler(recording(&seen, json!({"action": "accept", "content": {"leak": 1}})));
            let spec = support::peer_spec("py-mcp-peer", &[]).protocol(mode).request_timeout(Duration::from_secs(30));
            let client = rt::build(rt::Client::builder().server(spec).elicitation_url_handler(url).on_event(events.hook()))
                .expect("build");
            let info = aw!(client.connect()).into_result().expect("connect").remove(0);
            assert_eq!(info.era, era);
            let r = aw!(client.call_tool("ask_url", json!({}))).expect("ask_url");
            assert_eq!(r.text(), r#"url: {"action": "accept"}"#, "{era:?}: {:?}", r.raw());
            let asked = seen.lock().unwrap().clone();
            assert_eq!(asked.len(), 1, "{era:?}");
            assert_eq!(asked[0]["url"], json!("https://example.com/connect"));
            let id_removed = |e: &Event| matches!(e,
                Event::Warning(Warning::HostRequestAdjusted { adjustment: Adjustment::ElicitationIdRemoved, .. }));
            if era == Era::Modern {
                // The SDK leaves the 2025-11-25 field out itself on 2026-07-28 (our test server
                // sends it, `server_request_scenarios` checks that the client drops it).
                assert!(asked[0].get("elicitationId").is_none(), "{:?}", asked[0]);
            } else {
                assert_eq!(asked[0]["elicitationId"], json!("py-url-1"));
                assert!(!events.any(id_removed));
                let complete = Event::ElicitationComplete { elicitation_id: "py-url-1".into() };
                let deadline = std::time::Instant::now() + Duration::from_secs(10);
                while !events.any(|e| *e == complete) {
                    assert!(std::time::Instant::now() < deadline, "{:?}", events.snapshot());
                    aw!(rt::sleep(Duration::from_millis(20)));
                }
            }
            aw!(client.close());
        }
    }

    /// py-mcp-peer's `sample_weather` (the SDK's `Sample` with tools) on both eras: with
    /// `sampling_tools(true)` the handler gets the tools and a history it checked; without it
    /// the client does not declare `sampling.tools` and the SDK refuses to ask.
    pub $($kw)? fn py_sampling_with_tools_both_eras() {
        let answer = json!({"role": "assistant", "model": "test-model", "stopReason": "endTurn",
            "content": {"type": "text", "text": "18C and sunny"}});
        for mode in [ProtocolMode::Auto, ProtocolMode::Legacy] {
            for opt_in in [true, false] {
                let seen: Seen = Default::default();
                let spec = support::peer_spec("py-mcp-peer", &[]).protocol(mode).request_timeout(Duration::from_secs(30));
                let sample = rt::sync_handler(recording(&seen, answer.clone()));
                let builder = rt::Client::builder().server(spec).sampling_handler(sample).sampling_tools(opt_in);
                let client = rt::build(builder).expect("build");
                let r = aw!(client.call_tool("sample_weather", json!({})));
                if opt_in {
                    let r = r.unwrap_or_else(|e| panic!("{mode:?}: {e}"));
                    let text = r.text();
                    assert!(text.starts_with("sampled: ") && text.contains("18C and sunny"), "{mode:?}: {text}");
                    let asked = seen.lock().unwrap().clone();
                    assert_eq!(asked.len(), 1, "{mode:?}");
                    assert_eq!(asked[0]["tools"][0]["name"], json!("weather"));
                    assert_eq!(asked[0]["messages"].as_array().map(Vec::len), Some(3));
                } else {
                    let refused = match &r {
                        Err(_) => true,
                        Ok(result) => result.is_error,
                    };
                    assert!(refused, "{mode:?}: {r:?}");
                    assert!(seen.lock().unwrap().is_empty(), "{mode:?}");
                }
                aw!(client.close());
            }
        }
    }
}
    };
}

/// Generates one `#[test]` per host-request peer check: `all_server_request_peer_checks!(run)`.
#[macro_export]
macro_rules! all_server_request_peer_checks {
    ($run:path) => {
        $crate::scenario_tests!(server_request_peer_checks, $run;
            everything_url_elicitation, everything_form_leniency_and_sampling, py_url_elicitation_both_eras,
            py_sampling_with_tools_both_eras);
    };
}
