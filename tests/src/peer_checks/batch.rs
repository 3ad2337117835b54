//! Batch and streaming tool calls against real servers, written once for every runtime:
//! server-everything (legacy) and py-mcp-peer (2026-07-28) in one client. The glue module `rt`
//! needs `Client`, `build`, `collect_stream` (the runtime's way to read a `ToolCallStream` to its
//! end); `tests/tests/real_peers.rs` runs them on every runtime.

/// Defines `pub mod batch_peer_checks` for the glue `rt`: `define_batch_peer_checks!(async,
/// aw_async)` or `define_batch_peer_checks!(, aw_sync)`.
#[macro_export]
macro_rules! define_batch_peer_checks {
    ($($kw:ident)? , $aw:ident) => {
/// The batch and streaming checks against real peers, instantiated for this runtime.
#[allow(unused_imports)]
pub mod batch_peer_checks {
    use super::rt;
    use std::time::Duration;
    use $crate::mcpwire_core::ClientError;
    use $crate::serde_json::json;
    use $crate::support;

    macro_rules! aw {
        ($e:expr) => {
            $crate::$aw!($e)
        };
    }

    fn client() -> rt::Client {
        let everything = support::peer_spec("server-everything", &[]).request_timeout(Duration::from_secs(30));
        let py = support::peer_spec("py-mcp-peer", &[]).request_timeout(Duration::from_secs(30));
        rt::build(rt::Client::builder().server(everything).server(py)).expect("build the client")
    }

    /// A batch across both servers: one outcome per call in the order given, a failing call
    /// among them (an unknown tool) does not stop the others, and calls pinned to a server run
    /// there.
    pub $($kw)? fn batch_across_servers() {
        let client = client();
        let (everything, py) = (client.servers()[0].name().to_owned(), client.servers()[1].name().to_owned());
        let mut calls = Vec::new();
        for i in 0..6 {
            let server = if i % 2 == 0 { &everything } else { &py };
            calls.push(rt::ToolCall::new("echo", json!({"message": format!("m{i}")})).on(server.clone()));
        }
        calls.push(rt::ToolCall::new("no-such-tool-anywhere", json!({})));
        calls.push(rt::ToolCall::new("get-sum", json!({"a": 2, "b": 5})));
        let outcomes = aw!(client.call_tools(calls).concurrency(3));
        assert_eq!(outcomes.len(), 8);
        for (i, outcome) in outcomes[..6].iter().enumerate() {
            let result = outcome.as_ref().unwrap_or_else(|e| panic!("call {i}: {e}"));
            assert!(result.text().contains(&format!("m{i}")), "call {i}: {:?}", result.raw());
        }
        assert!(matches!(outcomes[6], Err(ClientError::Route(_))), "{:?}", outcomes[6]);
        assert!(outcomes[7].as_ref().expect("get-sum").text().contains('7'), "{:?}", outcomes[7]);
        aw!(client.close());
    }

    /// A streaming call of server-everything's long-running operation yields each progress
    /// notification, then the result, then ends.
    pub $($kw)? fn streaming_progress_then_result() {
        let client = client();
        let stream = client.call_tool("trigger-long-running-operation", json!({"duration": 0.6, "steps": 3})).stream();
        let (progress, outcome) = aw!(rt::collect_stream(stream));
        assert_eq!(progress.len(), 3, "{progress:?}");
        assert!(progress.windows(2).all(|w| w[0].progress < w[1].progress), "{progress:?}");
        let result = outcome.expect("the result");
        assert!(!result.is_error, "{:?}", result.raw());
        // A failing call ends the stream with its error.
        let server = client.server(client.servers()[1].name()).expect("py-mcp-peer");
        let stream = server.call_tool("no-such-tool", json!({})).stream();
        let (progress, outcome) = aw!(rt::collect_stream(stream));
        assert!(progress.is_empty());
        let failed = match outcome {
            Ok(result) => result.is_error,
            Err(_) => true,
        };
        assert!(failed, "an unknown tool fails");
        aw!(client.close());
    }
}
    };
}

/// Generates the `#[test]`s of [`define_batch_peer_checks!`].
#[macro_export]
macro_rules! all_batch_peer_checks {
    ($run:path) => {
        $crate::scenario_tests!(batch_peer_checks, $run; batch_across_servers, streaming_progress_then_result);
    };
}
