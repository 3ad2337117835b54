//! The scenario suite (`mcp_tests::define_scenarios!`) on mcpwire-blocking: the same bodies as
//! the async runtimes, expanded as plain functions. Plus the blocking-only ways to cancel and
//! to run calls concurrently (a `CancelToken`, threads).

mod rt {
    use std::time::Duration;

    pub use mcp_tests::support::plain_handler as sync_handler;
    pub use mcp_tests::support::rest_of_iter as rest_of;
    pub use mcpwire_blocking::{connect, Client, ClientBuilder, ClientError, ListenOptions, Server};

    pub fn build(builder: ClientBuilder) -> Result<Client, ClientError> {
        builder.build()
    }

    pub fn sleep(d: Duration) {
        std::thread::sleep(d);
    }
}

fn run(scenario: impl FnOnce()) {
    scenario();
}

mcp_tests::define_scenarios!(, aw_sync);
mcp_tests::all_scenario_tests!(run);
mcp_tests::define_push_scenarios!(, aw_sync);
mcp_tests::all_push_scenario_tests!(run);
mcp_tests::define_meta_scenarios!(, aw_sync);
mcp_tests::all_meta_scenario_tests!(run);
mcp_tests::define_task_scenarios!(, aw_sync);
mcp_tests::all_task_scenario_tests!(run);
mcp_tests::define_server_request_scenarios!(, aw_sync);
mcp_tests::all_server_request_scenario_tests!(run);
mcp_tests::define_roots_scenarios!(, aw_sync);
mcp_tests::all_roots_scenario_tests!(run);
mcp_tests::define_input_wait_scenarios!(, aw_sync);
mcp_tests::all_input_wait_scenario_tests!(run);
mcp_tests::define_cache_scenarios!(, aw_sync);
mcp_tests::all_cache_scenario_tests!(run);
mcp_tests::define_catalog_scenarios!(, aw_sync);
mcp_tests::all_catalog_scenario_tests!(run);
mcp_tests::define_fan_out_scenarios!(, aw_sync);
mcp_tests::all_fan_out_scenario_tests!(run);
mcp_tests::define_oversize_scenarios!(, aw_sync);
mcp_tests::all_oversize_scenario_tests!(run);
#[cfg(feature = "oauth")]
mcp_tests::define_issuer_switch_scenarios!(, aw_sync);
#[cfg(feature = "oauth")]
mcp_tests::all_issuer_switch_scenario_tests!(run);
#[cfg(unix)]
mcp_tests::define_process_group_scenarios!(, aw_sync);
#[cfg(unix)]
mcp_tests::all_process_group_scenario_tests!(run);
#[cfg(feature = "oauth")]
mcp_tests::define_address_check_scenarios!(, aw_sync);
#[cfg(feature = "oauth")]
mcp_tests::all_address_check_scenario_tests!(run);
mcp_tests::define_blocking_callback_scenarios!();
mcp_tests::all_blocking_callback_scenario_tests!(run);

mod blocking_only {
    use std::time::{Duration, Instant};

    use mcp_tests::support;
    use mcpwire_blocking::CancelToken;
    use mcpwire_blocking::{ClientError, Request, RequestError};
    use serde_json::json;

    /// `Subscription::next_timeout` gives up with `Elapsed` while the stream goes on, then
    /// delivers what comes; a listener thread may call the same server while it reads.
    #[test]
    fn subscription_next_timeout_and_requests_from_the_reader() {
        let spec = support::spec(support::test_server(), "t", &["--protocol", "modern"]);
        let client = mcpwire_blocking::Client::builder().server(spec).build().expect("build");
        let server = client.servers()[0].clone();
        let sub = server
            .listen(mcpwire_blocking::SubscriptionFilter::new().resource("test://text"))
            .send()
            .expect("listen");
        assert_eq!(sub.next_timeout(Duration::from_millis(50)), Err(mcpwire_blocking::Elapsed));
        let reader = std::thread::spawn(move || {
            let n = sub.next_timeout(Duration::from_secs(10)).expect("a notification");
            // The reader asks the same server something while its stream is open.
            let echo = server.call_tool("echo", json!({"message": "from the reader"})).send().expect("echo");
            (n, echo.text())
        });
        let r = client.call_tool("touch_resource", json!({"uri": "test://text"})).send().expect("touch");
        assert_eq!(r.text(), "sent 1");
        let (n, text) = reader.join().expect("the reader thread");
        assert_eq!(n, Some(mcpwire_blocking::Notification::ResourceUpdated { uri: "test://text".into() }));
        assert_eq!(text, "from the reader");
        client.close().send();
    }

    /// A `CancelToken` cancelled from another thread ends the call with `Cancelled` and
    /// sends `notifications/cancelled` for it.
    #[test]
    fn cancel_token_cancels_request() {
        for proto in ["modern", "2025-11-25"] {
            let record = support::unique_temp_path("blocking-cancel");
            let record_str = record.to_str().expect("UTF-8 path").to_owned();
            let spec =
                support::spec(support::test_server(), "t", &["--protocol", proto, "--record", &record_str]);
            let client = mcpwire_blocking::Client::builder().server(spec).build().expect("build");
            client.connect().send().into_result().expect("connect");
            let token = CancelToken::new();
            let canceller = {
                let token = token.clone();
                std::thread::spawn(move || {
                    std::thread::sleep(Duration::from_millis(200));
                    token.cancel();
                })
            };
            let started = Instant::now();
            let request = Request::CallTool { name: "slow".into(), arguments: json!({"ms": 20000}) };
            let r = client.servers()[0].request(request).cancel_token(&token).send();
            canceller.join().expect("the canceller thread");
            assert!(
                matches!(r, Err(ClientError::Request(RequestError::Cancelled))),
                "{proto}: expected Cancelled, got {r:?}"
            );
            assert!(started.elapsed() < Duration::from_secs(5), "{proto}: {:?}", started.elapsed());
            let deadline = Instant::now() + Duration::from_secs(5);
            loop {
                let lines = support::json_lines(&record);
                let call =
                    lines.iter().find(|l| l["method"] == "tools/call" && l["params"]["name"] == "slow");
                let cancelled = call.is_some_and(|call| {
                    lines.iter().any(|l| {
                        l["method"] == "notifications/cancelled" && l["params"]["requestId"] == call["id"]
                    })
                });
                if cancelled {
                    break;
                }
                assert!(Instant::now() < deadline, "{proto}: no notifications/cancelled in {lines:?}");
                std::thread::sleep(Duration::from_millis(10));
            }
            let r = client.call_tool("echo", json!({"message": "after cancel"})).send().expect("echo");
            assert_eq!(r.text(), "after cancel");
            client.close().send();
            let _ = std::fs::remove_file(&record);
        }
    }

    /// Closing the client from one thread ends another thread's call in flight with
    /// `ClientError::Closed`.
    #[test]
    fn close_ends_calls_in_flight() {
        for proto in ["modern", "2025-11-25"] {
            let spec = support::spec(support::test_server(), "t", &["--protocol", proto]);
            let client = mcpwire_blocking::Client::builder().server(spec).build().expect("build");
            client.connect().send().into_result().expect("connect");
            let started = Instant::now();
            let slow = {
                let client = client.clone();
                std::thread::spawn(move || client.call_tool("slow", json!({"ms": 20000})).send())
            };
            std::thread::sleep(Duration::from_millis(200));
            client.close().send();
            match slow.join().expect("the slow thread") {
                Err(e) => assert_eq!(e, ClientError::Closed, "{proto}"),
                Ok(r) => panic!("{proto}: the slow call finished: {r:?}"),
            }
            assert!(started.elapsed() < Duration::from_secs(10), "{proto}: {:?}", started.elapsed());
        }
    }

    /// Many threads calling at once over one stdio server (one of them reads stdout for all
    /// while the others wait, and the lead passes on as callers come and go): every call gets
    /// its own answer.
    #[test]
    fn many_callers_each_get_their_answers() {
        let spec = support::spec(support::test_server(), "t", &[]);
        let client = mcpwire_blocking::Client::builder().server(spec).build().expect("build");
        client.connect().send().into_result().expect("connect");
        std::thread::scope(|scope| {
            for t in 0..8 {
                let client = &client;
                scope.spawn(move || {
                    for i in 0..50 {
                        let message = format!("t{t}-{i}");
                        let r = client.call_tool("echo", json!({"message": message})).send().expect("echo");
                        assert_eq!(r.text(), message);
                    }
                });
            }
        });
        client.close().send();
    }

    /// Calls from several threads share one server; a slow call does not hold up fast ones.
    #[test]
    fn concurrent_calls_from_threads() {
        for proto in ["modern", "2025-11-25"] {
            let spec = support::spec(support::test_server(), "t", &["--protocol", proto]);
            let client = mcpwire_blocking::Client::builder().server(spec).build().expect("build");
            client.connect().send().into_result().expect("connect");
            let slow = {
                let client = client.clone();
                std::thread::spawn(move || {
                    let r = client.call_tool("slow", json!({"ms": 1000})).send();
                    (r, Instant::now())
                })
            };
            std::thread::sleep(Duration::from_millis(100)); // let the slow call go out first
            let echoes: Vec<_> = (0..4)
                .map(|i| {
                    let client = client.clone();
                    std::thread::spawn(move || {
                        let text = client
                            .call_tool("echo", json!({"message": format!("m{i}")}))
                            .send()
                            .expect("echo")
                            .text();
                        (text, Instant::now())
                    })
                })
                .collect();
            let echoes: Vec<_> = echoes.into_iter().map(|t| t.join().expect("an echo thread")).collect();
            let (slow, slow_done) = slow.join().expect("the slow thread");
            assert_eq!(slow.expect("slow").text(), "slept 1000");
            for (i, (text, done)) in echoes.iter().enumerate() {
                assert_eq!(text, &format!("m{i}"));
                assert!(*done < slow_done, "{proto}: echo {i} waited for the slow call");
            }
            client.close().send();
        }
    }
}
