//! Oversize responses from real servers, written once for every runtime: the `big(size)` tool
//! of py-mcp-peer (Python SDK: it writes `id` before `result`) and of ts-v2-peer (TypeScript
//! SDK v2: `result` first, `id` last) answers 4 MiB to a client whose `max_message_bytes` is
//! 256 KiB. The call fails at once with `RequestError::ResponseTooLarge` naming the limit, far
//! within its 30 s timeout, and the same connection then answers an echo. Over stdio, over
//! Streamable HTTP with SSE responses (py-mcp-peer in a legacy session, ts-v2-peer with
//! `--response sse`) and with JSON bodies (with a `Content-Length` from py-mcp-peer, streamed
//! from ts-v2-peer).
//! The glue module `rt` needs `Client` and `build`; `tests/tests/real_peers.rs` runs them on
//! every runtime.

/// Defines `pub mod oversize_peer_checks` for the glue `rt`:
/// `define_oversize_peer_checks!(async, aw_async)` or `define_oversize_peer_checks!(, aw_sync)`.
#[macro_export]
macro_rules! define_oversize_peer_checks {
    ($($kw:ident)? , $aw:ident) => {
/// The oversize checks against real peers, instantiated for this runtime.
#[allow(unused_imports)]
pub mod oversize_peer_checks {
    use super::rt;
    use std::time::{Duration, Instant};
    #[cfg(feature = "http")]
    use $crate::support::http_peers::HttpPeer;
    use $crate::mcpwire_core::{ClientError, Limits, ProtocolMode, RequestError, ServerSpec};
    use $crate::serde_json::json;
    use $crate::support;

    macro_rules! aw {
        ($e:expr) => {
            $crate::$aw!($e)
        };
    }

    const LIMIT: usize = 256 * 1024;
    const TIMEOUT: Duration = Duration::from_secs(30);

    /// `big` of 4 MiB fails fast and typed; the connection then answers an echo.
    $($kw)? fn big_fails_fast(peer: &str, spec: ServerSpec) {
        let spec = spec.limits(Limits::default().max_message_bytes(LIMIT)).request_timeout(TIMEOUT);
        let client = rt::build(rt::Client::builder().server(spec)).expect("build the client");
        aw!(client.connect()).into_result().unwrap_or_else(|e| panic!("{peer}: connect: {e}"));
        let started = Instant::now();
        match aw!(client.call_tool("big", json!({"size": 4 * 1024 * 1024}))) {
            Err(ClientError::Request(RequestError::ResponseTooLarge { limit, seen_at_least, detail })) => {
                println!("{peer}: {detail}");
                assert_eq!(limit, LIMIT, "{peer}: {detail}");
                assert!(seen_at_least > LIMIT, "{peer}: {seen_at_least}");
            }
            other => panic!("{peer}: expected ResponseTooLarge, got {other:?}"),
        }
        let took = started.elapsed();
        assert!(took < Duration::from_secs(10), "{peer}: took {took:?} (timeout {TIMEOUT:?})");
        let small = aw!(client.call_tool("big", json!({"size": 1000}))).unwrap_or_else(|e| panic!("{peer}: {e}"));
        assert_eq!(small.text().len(), 1000, "{peer}");
        let echo = aw!(client.call_tool("echo", json!({"message": "after"}))).unwrap_or_else(|e| panic!("{peer}: {e}"));
        assert_eq!(echo.text(), "after", "{peer}");
        aw!(client.close());
    }

    #[cfg(feature = "http")]
    fn http_spec(name: &str, peer: &HttpPeer) -> ServerSpec {
        ServerSpec::from_target(name, &peer.url("/mcp")).expect("a valid URL")
    }

    /// py-mcp-peer over stdio (the id comes first).
    pub $($kw)? fn py_big_stdio() {
        aw!(big_fails_fast("py-mcp-peer stdio", support::peer_spec("py-mcp-peer", &[])));
    }

    /// ts-v2-peer over stdio (the id comes last).
    pub $($kw)? fn ts_v2_big_stdio() {
        aw!(big_fails_fast("ts-v2-peer stdio", support::peer_spec("ts-v2-peer", &["stdio"])));
    }

    /// py-mcp-peer over Streamable HTTP with a legacy session, which answers as SSE events.
    #[cfg(feature = "http")]
    pub $($kw)? fn py_big_http_sse() {
        let peer = HttpPeer::start("py-mcp-peer", &["streamable-http", "--port", "{port}"], &[]);
        let spec = http_spec("py-sse", &peer).protocol(ProtocolMode::Legacy);
        aw!(big_fails_fast("py-mcp-peer http sse", spec));
    }

    /// py-mcp-peer over stateless Streamable HTTP, answers as JSON bodies.
    #[cfg(feature = "http")]
    pub $($kw)? fn py_big_http_json() {
        let args = ["streamable-http", "--port", "{port}", "--stateless", "--json"];
        let peer = HttpPeer::start("py-mcp-peer", &args, &[]);
        aw!(big_fails_fast("py-mcp-peer http json", http_spec("py-json", &peer)));
    }

    /// ts-v2-peer over Streamable HTTP, answering as a JSON body (streamed, no length).
    #[cfg(feature = "http")]
    pub $($kw)? fn ts_v2_big_http() {
        let peer = HttpPeer::start("ts-v2-peer", &["http", "--port", "{port}"], &[]);
        aw!(big_fails_fast("ts-v2-peer http", http_spec("ts-http", &peer)));
    }

    /// ts-v2-peer over Streamable HTTP, answering as an SSE event (the id comes last).
    #[cfg(feature = "http")]
    pub $($kw)? fn ts_v2_big_http_sse() {
        let peer = HttpPeer::start("ts-v2-peer", &["http", "--port", "{port}", "--response", "sse"], &[]);
        aw!(big_fails_fast("ts-v2-peer http sse", http_spec("ts-sse", &peer)));
    }
}
    };
}

/// Generates one `#[test]` per oversize peer check: `all_oversize_peer_checks!(run)`.
#[macro_export]
macro_rules! all_oversize_peer_checks {
    ($run:path) => {
        $crate::scenario_tests!(oversize_peer_checks, $run; py_big_stdio, ts_v2_big_stdio);
        #[cfg(feature = "http")]
        $crate::scenario_tests!(oversize_peer_checks, $run;
            py_big_http_sse, py_big_http_json, ts_v2_big_http, ts_v2_big_http_sse);
    };
}
