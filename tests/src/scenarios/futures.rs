//! Scenarios that need futures (dropping one mid-flight, running several at once), for the
//! async runtimes only. The glue module `rt` is the one described in `scenarios.rs`.

/// Scenarios that only make sense with futures (dropping one mid-flight, running several at
/// once): `define_async_scenarios!()` defines `pub mod async_scenarios` for the glue `rt`.
#[macro_export]
macro_rules! define_async_scenarios {
    () => {
/// Scenarios that need futures, instantiated for this runtime.
pub mod async_scenarios {
    use super::rt;
    use std::future::IntoFuture;
    use std::sync::{Arc, Mutex};
    use std::time::{Duration, Instant};
    use $crate::futures_lite::future;
    use $crate::serde_json::{json, Value};
    use $crate::support;

    /// Dropping a call future mid-flight sends `notifications/cancelled` for it.
    pub async fn drop_cancels_request() {
        for proto in ["modern", "2025-11-25"] {
            let record = support::unique_temp_path("cancel-record");
            let record_str = record.to_str().expect("UTF-8 path").to_owned();
            let spec = support::spec(support::test_server(), "t", &["--protocol", proto, "--record", &record_str]);
            let client = rt::build(rt::Client::builder().server(spec)).expect("build");
            client.connect().await.into_result().expect("connect");
            let slow = async { Some(client.call_tool("slow", json!({"ms": 20000})).await) };
            let gave_up = async {
                rt::sleep(Duration::from_millis(300)).await;
                None
            };
            assert!(future::or(slow, gave_up).await.is_none(), "the slow call finished early");
            // The dropped future's request must be cancelled on the wire.
            let cancelled = |lines: &[Value]| {
                let id = lines.iter().find(|l| l["method"] == "tools/call" && l["params"]["name"] == "slow")?;
                let id = id["id"].clone();
                let is_cancel =
                    |l: &&Value| l["method"] == "notifications/cancelled" && l["params"]["requestId"] == id;
                lines.iter().find(is_cancel).cloned()
            };
            let deadline = Instant::now() + Duration::from_secs(5);
            let line = loop {
                if let Some(line) = cancelled(&support::json_lines(&record)) {
                    break line;
                }
                let lines = support::json_lines(&record);
                assert!(Instant::now() < deadline, "{proto}: no notifications/cancelled in {lines:?}");
                rt::sleep(Duration::from_millis(10)).await;
            };
            assert!(line.get("id").is_none(), "a notification has no id: {line}");
            let r = client.call_tool("echo", json!({"message": "after cancel"})).await.expect("echo");
            assert_eq!(r.text(), "after cancel");
            client.close().await;
            let _ = std::fs::remove_file(&record);
        }
    }

    /// A fast call is not held up by a slow one on the same server.
    pub async fn concurrent_calls() {
        for proto in ["modern", "2025-11-25"] {
            let spec = support::spec(support::test_server(), "t", &["--protocol", proto]);
            let client = rt::build(rt::Client::builder().server(spec)).expect("build");
            client.connect().await.into_result().expect("connect");
            let order = Arc::new(Mutex::new(Vec::new()));
            let slow = async {
                let r = client.call_tool("slow", json!({"ms": 1000})).await;
                order.lock().unwrap().push("slow");
                r
            };
            let fast = async {
                let mut texts = Vec::new();
                for i in 0..5 {
                    let r = client.call_tool("echo", json!({"message": format!("m{i}")})).await;
                    texts.push(r.expect("echo").text());
                }
                order.lock().unwrap().push("echoes");
                texts
            };
            let (slow, texts) = future::zip(slow, fast).await;
            assert_eq!(slow.expect("slow").text(), "slept 1000");
            assert_eq!(texts, ["m0", "m1", "m2", "m3", "m4"]);
            assert_eq!(*order.lock().unwrap(), ["echoes", "slow"], "{proto}");
            client.close().await;
        }
    }

    /// Callers on several threads share one stdio server (each reads the server's stdout
    /// itself while it waits, see mcpwire-async): every caller gets its own answers, and a reply
    /// that comes after the other callers finished (when only the reader task reads) still
    /// reaches its caller.
    pub async fn callers_on_threads() {
        let spec = support::spec(support::test_server(), "t", &[]);
        let client = rt::build(rt::Client::builder().server(spec)).expect("build");
        client.connect().await.into_result().expect("connect");
        let started = Instant::now();
        std::thread::scope(|scope| {
            let slow = scope.spawn(|| future::block_on(client.call_tool("slow", json!({"ms": 1500})).into_future()));
            let echoes: Vec<_> = (0..4)
                .map(|t| {
                    let client = &client;
                    scope.spawn(move || {
                        for i in 0..25 {
                            let message = format!("t{t}-{i}");
                            let r = future::block_on(client.call_tool("echo", json!({"message": message})).into_future());
                            assert_eq!(r.expect("echo").text(), message);
                        }
                    })
                })
                .collect();
            for e in echoes {
                e.join().expect("an echo thread");
            }
            assert!(!slow.is_finished(), "the echoes waited for the slow call");
            let slow = slow.join().expect("the slow thread");
            assert_eq!(slow.expect("slow").text(), "slept 1500");
        });
        assert!(started.elapsed() < Duration::from_secs(10), "took {:?}", started.elapsed());
        client.close().await;
    }

    /// Closing the client ends a call in flight with `ClientError::Closed`, the same error a
    /// call made after the close gets.
    pub async fn close_ends_calls_in_flight() {
        for proto in ["modern", "2025-11-25"] {
            let spec = support::spec(support::test_server(), "t", &["--protocol", proto]);
            let client = rt::build(rt::Client::builder().server(spec)).expect("build");
            client.connect().await.into_result().expect("connect");
            let started = Instant::now();
            let slow = client.call_tool("slow", json!({"ms": 20000})).into_future();
            let closer = async {
                rt::sleep(Duration::from_millis(200)).await;
                client.close().await;
            };
            let (slow, ()) = future::zip(slow, closer).await;
            match slow {
                Err(e) => assert!(e.is_closed(), "{proto}: expected Closed, got {e:?}"),
                Ok(r) => panic!("{proto}: the slow call finished: {r:?}"),
            }
            assert!(started.elapsed() < Duration::from_secs(10), "{proto}: {:?}", started.elapsed());
        }
    }
}
    };
}

/// Generates the `#[test]`s of [`define_async_scenarios!`].
#[macro_export]
macro_rules! all_async_scenario_tests {
    ($run:path) => {
        $crate::scenario_tests!(async_scenarios, $run; drop_cancels_request, concurrent_calls, callers_on_threads, close_ends_calls_in_flight);
    };
}
