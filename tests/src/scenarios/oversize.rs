//! Oversize responses, written once for every runtime: a response over `max_message_bytes`
//! fails its call at once with `RequestError::ResponseTooLarge` naming the limit, well before
//! the call's timeout, and the connection keeps working. On stdio against `mcp-test-server
//! --big-tool` (its `big {bytes}` tool), in both eras; on HTTP against a scripted server whose
//! `big` answers as a JSON body with `Content-Length`, as a chunked JSON body, and as an SSE
//! event naming its id first or last. The glue module `rt` is the one described in
//! `scenarios.rs`.

/// Defines `pub mod oversize_scenarios` for the glue `rt`:
/// `define_oversize_scenarios!(async, aw_async)` or `define_oversize_scenarios!(, aw_sync)`.
#[macro_export]
macro_rules! define_oversize_scenarios {
    ($($kw:ident)? , $aw:ident) => {
/// The oversize scenarios, instantiated for this runtime.
#[allow(unused_imports)]
pub mod oversize_scenarios {
    use super::rt;
    use std::time::{Duration, Instant};
    use $crate::mcpwire_core::{ClientError, Limits, RequestError, ServerSpec};
    #[cfg(feature = "http")]
    use $crate::support::scripted_http::{Reply, ScriptedHttpServer, SeenRequest};
    use $crate::serde_json::{json, Value};
    use $crate::support;

    macro_rules! aw {
        ($e:expr) => {
            $crate::$aw!($e)
        };
    }

    /// The client's limit: 256 KiB.
    const LIMIT: usize = 256 * 1024;
    /// What `big` answers: 4 MiB of text.
    const BIG: usize = 4 * 1024 * 1024;
    /// The calls' timeout; a too-large answer must fail long before it.
    const TIMEOUT: Duration = Duration::from_secs(30);

    fn limits() -> Limits {
        Limits::default().max_message_bytes(LIMIT)
    }

    /// The call failed as too large, naming the limit, and quickly.
    fn assert_too_large<T: std::fmt::Debug>(what: &str, r: Result<T, ClientError>, started: Instant) {
        match r {
            Err(ClientError::Request(RequestError::ResponseTooLarge { limit, seen_at_least, detail })) => {
                assert_eq!(limit, LIMIT, "{what}: {detail}");
                assert!(seen_at_least > LIMIT, "{what}: {seen_at_least} ({detail})");
                assert!(detail.contains(&LIMIT.to_string()), "{what}: {detail}");
            }
            other => panic!("{what}: expected ResponseTooLarge, got {other:?}"),
        }
        let took = started.elapsed();
        assert!(took < Duration::from_secs(10), "{what}: took {took:?} (timeout {TIMEOUT:?})");
    }

    pub $($kw)? fn oversize_stdio_fails_fast() {
        for proto in ["modern", "2025-11-25"] {
            let spec = support::spec(support::test_server(), "t", &["--protocol", proto, "--big-tool"])
                .limits(limits())
                .request_timeout(TIMEOUT);
            let client = rt::build(rt::Client::builder().server(spec)).expect("build the client");
            aw!(client.connect()).into_result().expect("connect");
            let started = Instant::now();
            let r = aw!(client.call_tool("big", json!({"bytes": BIG})));
            assert_too_large(proto, r, started);
            // The same process goes on serving: a small answer, then an echo.
            let small = aw!(client.call_tool("big", json!({"bytes": 1000}))).expect("a small big");
            assert_eq!(small.text().len(), 1000, "{proto}");
            let echo = aw!(client.call_tool("echo", json!({"message": "after"}))).expect("echo");
            assert_eq!(echo.text(), "after", "{proto}");
            aw!(client.close());
        }
    }

    /// A modern HTTP server whose `big {mode}` answers 4 MiB in the given way; `echo` echoes.
    #[cfg(feature = "http")]
    fn big_server(req: &SeenRequest) -> Reply {
        let request = req.json();
        let id = request["id"].clone();
        let answer = |result: Value| Reply::json(&json!({"jsonrpc": "2.0", "id": id, "result": result}));
        match request["method"].as_str() {
            Some("server/discover") => {
                return answer(json!({"resultType": "complete",
                    "supportedVersions": [$crate::mcpwire_core::MODERN_VERSION], "capabilities": {"tools": {}},
                    "ttlMs": 0, "cacheScope": "private"}))
            }
            Some("tools/list") => {
                let schema = json!({"type": "object"});
                return answer(json!({"resultType": "complete", "tools": [
                    {"name": "big", "inputSchema": schema}, {"name": "echo", "inputSchema": schema}]}))
            }
            _ => {}
        }
        let args = &request["params"]["arguments"];
        let text_result = |text: &str| json!({"resultType": "complete", "content": [{"type": "text", "text": text}]});
        if request["params"]["name"] == "echo" {
            return answer(text_result(args["message"].as_str().unwrap_or("")));
        }
        let result = text_result(&"x".repeat(BIG));
        let json_ct = [("content-type", "application/json")];
        let sse_ct = [("content-type", "text/event-stream")];
        let in_pieces = |bytes: Vec<u8>| bytes.chunks(64 * 1024).map(<[u8]>::to_vec).collect::<Vec<_>>().into_iter();
        match args["mode"].as_str().unwrap_or("") {
            "length" => answer(result),
            "chunked" => {
                let body = json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string().into_bytes();
                Reply::stream(200, &json_ct, in_pieces(body))
            }
            "sse" => {
                let message = json!({"jsonrpc": "2.0", "id": id, "result": result});
                Reply::stream(200, &sse_ct, in_pieces(format!("event: message\ndata: {message}\n\n").into_bytes()))
            }
            // The TypeScript SDK's order: the id comes last.
            _ => {
                let message = format!(r#"{{"result":{result},"jsonrpc":"2.0","id":{id}}}"#);
                Reply::stream(200, &sse_ct, in_pieces(format!("event: message\ndata: {message}\n\n").into_bytes()))
            }
        }
    }

    #[cfg(feature = "http")]
    pub $($kw)? fn oversize_http_fails_fast() {
        let server = ScriptedHttpServer::start(big_server);
        let spec = ServerSpec::from_target("h", &server.url("/mcp"))
            .expect("an HTTP target")
            .limits(limits())
            .request_timeout(TIMEOUT);
        let client = rt::build(rt::Client::builder().server(spec)).expect("build the client");
        aw!(client.connect()).into_result().expect("connect");
        for mode in ["length", "chunked", "sse", "sse_id_last"] {
            let started = Instant::now();
            let r = aw!(client.call_tool("big", json!({"mode": mode})));
            assert_too_large(mode, r, started);
            let echo = aw!(client.call_tool("echo", json!({"message": mode}))).expect("echo");
            assert_eq!(echo.text(), mode);
        }
        aw!(client.close());
    }
}
    };
}

/// Generates the oversize scenario tests: `all_oversize_scenario_tests!(run)`.
#[macro_export]
macro_rules! all_oversize_scenario_tests {
    ($run:path) => {
        $crate::scenario_tests!(oversize_scenarios, $run; oversize_stdio_fails_fast);
        #[cfg(feature = "http")]
        $crate::scenario_tests!(oversize_scenarios, $run; oversize_http_fails_fast);
    };
}
