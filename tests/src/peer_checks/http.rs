//! The real-peer checks over HTTP (Streamable HTTP in both eras, HTTP+SSE, and the transport
//! fallback), written once for every runtime like [`crate::define_peer_checks!`], whose helpers
//! (`start`, `echo_and_add`, ...) they reuse: a test file calls both macros in the same module.

/// Defines `pub mod http_peer_checks` for the runtime glue module `rt` of the calling module
/// (which must also have `peer_checks` from [`crate::define_peer_checks!`]).
#[macro_export]
macro_rules! define_http_peer_checks {
    ($($kw:ident)? , $aw:ident) => {
        $crate::define_http_peer_checks!(@impl [$($kw)?] $aw $);
    };
    (@impl [$($kw:ident)?] $aw:ident $d:tt) => {
/// The real-peer checks over HTTP, instantiated for this runtime.
#[allow(unused_imports, clippy::needless_borrows_for_generic_args)]
pub mod http_peer_checks {
    use super::peer_checks::{echo_and_add, prompt_text, read_text, start};
    use super::rt;
    use std::time::Duration;
    use $crate::support::http_peers::HttpPeer;
    use $crate::mcpwire_core::TransportConfig;
    use $crate::mcpwire_core::mcp_servers::TransportKind;
    use $crate::mcpwire_core::{Era, ProtocolMode, ServerSpec};
    use $crate::serde_json::json;
    use $crate::support::ProgressLog;

    macro_rules! aw {
        ($d e:expr) => {
            $crate::$aw!($d e)
        };
    }

    /// A spec for `url` with a patient timeout, in `mode`.
    fn spec(name: &str, url: &str, mode: ProtocolMode) -> ServerSpec {
        ServerSpec::from_target(name, url)
            .expect("a valid URL")
            .protocol(mode)
            .request_timeout(Duration::from_secs(30))
    }

    /// The same, trying every HTTP transport in the automatic order (for the fallback).
    fn spec_auto(name: &str, url: &str) -> ServerSpec {
        let mut s = spec(name, url, ProtocolMode::Auto);
        if let TransportConfig::Http(http) = &mut s.config.transport {
            http.kinds = vec![TransportKind::StreamableHttp, TransportKind::Sse, TransportKind::PlainHttp];
        }
        s
    }

    fn assert_transport(info: &$crate::mcpwire_core::ServerInfo, kind: TransportKind, peer: &HttpPeer) {
        assert_eq!(info.transport, kind, "{info:?}; peer stderr: {}", peer.stderr());
    }

    /// Connects to `peer` at `path` in `mode`, checks the era, tools and transport.
    $($kw)? fn open(
        peer: &HttpPeer,
        name: &str,
        path: &str,
        mode: ProtocolMode,
        (era, kind): (Era, TransportKind),
        tools: &[&str],
    ) -> rt::Client {
        let (client, info, _) = aw!(start(spec(name, &peer.url(path), mode), era, tools));
        assert_transport(&info, kind, peer);
        client
    }

    /// Progress over a response stream: `slow` (py) reports each step.
    $($kw)? fn slow_with_progress(client: &rt::Client) {
        let log = ProgressLog::new();
        let s = &client.servers()[0];
        let r = aw!(s.call_tool("slow", json!({"steps": 3})).on_progress(log.callback()))
            .expect("slow with progress");
        assert_eq!(r.text(), "done after 3 steps", "{:?}", r.raw());
        let seen: Vec<f64> = log.snapshot().iter().map(|p| p.progress).collect();
        assert_eq!(seen, [1.0, 2.0, 3.0]);
    }

    pub $($kw)? fn everything_streamable() {
        let peer = HttpPeer::start("server-everything", &["streamableHttp"], &[("PORT", "{port}")]);
        let tools = ["echo", "get-sum", "trigger-long-running-operation"];
        let s = spec("everything-http", &peer.url("/mcp"), ProtocolMode::Auto);
        let (client, info, _) = aw!(start(s, Era::Legacy, &tools));
        assert_transport(&info, TransportKind::StreamableHttp, &peer);
        let r = aw!(client.call_tool("echo", json!({"message": "over http"}))).expect("echo");
        assert_eq!(r.text(), "Echo: over http");
        let log = ProgressLog::new();
        let server = &client.servers()[0];
        let args = json!({"duration": 0.3, "steps": 3});
        let r = aw!(server.call_tool("trigger-long-running-operation", args).on_progress(log.callback()))
        .expect("long-running operation");
        assert!(r.text().contains("Steps: 3"), "{:?}", r.raw());
        let seen: Vec<f64> = log.snapshot().iter().map(|p| p.progress).collect();
        assert_eq!(seen, [1.0, 2.0, 3.0]);
        aw!(prompt_text(&client, "args-prompt", json!({"city": "Paris"}), "Paris"));
        aw!(client.close());
    }

    pub $($kw)? fn everything_sse() {
        let peer = HttpPeer::start("server-everything", &["sse"], &[("PORT", "{port}")]);
        let client = aw!(open(&peer, "everything-sse", "/sse", ProtocolMode::Auto, (Era::Legacy, TransportKind::Sse), &["echo", "get-sum"]));
        let r = aw!(client.call_tool("echo", json!({"message": "over sse"}))).expect("echo");
        assert_eq!(r.text(), "Echo: over sse");
        let r = aw!(client.call_tool("get-sum", json!({"a": 20, "b": 22}))).expect("get-sum");
        assert!(r.text().ends_with(" is 42."), "{:?}", r.raw());
        aw!(client.close());
    }

    /// Streamable HTTP, then `initialize`, then HTTP+SSE: the SSE endpoint answers 404 to the
    /// POSTs, so the client ends on HTTP+SSE.
    pub $($kw)? fn everything_fallback_to_sse() {
        let peer = HttpPeer::start("server-everything", &["sse"], &[("PORT", "{port}")]);
        let (client, info, _) = aw!(start(spec_auto("everything-auto", &peer.url("/sse")), Era::Legacy, &["echo"]));
        assert_transport(&info, TransportKind::Sse, &peer);
        let r = aw!(client.call_tool("echo", json!({"message": "fell back"}))).expect("echo");
        assert_eq!(r.text(), "Echo: fell back");
        aw!(client.close());
    }

    pub $($kw)? fn py_streamable_modern() {
        let peer = HttpPeer::start("py-mcp-peer", &["streamable-http", "--port", "{port}"], &[]);
        let client = aw!(open(&peer, "py-http", "/mcp", ProtocolMode::Auto, (Era::Modern, TransportKind::StreamableHttp), &["echo", "add", "slow"]));
        aw!(echo_and_add(&client, "py-http", ""));
        aw!(slow_with_progress(&client));
        aw!(read_text(&client, "peer://hello", "hello resource"));
        aw!(client.close());
    }

    /// Multi-round-trip input against a real server: `ask_name` answers `input_required` with
    /// an elicitation (2026-07-28) or sends `elicitation/create` (legacy session); either way the
    /// host's handler answers and the call returns the greeting.
    pub $($kw)? fn py_ask_name_both_eras() {
        let peer = HttpPeer::start("py-mcp-peer", &["streamable-http", "--port", "{port}"], &[]);
        for (mode, era) in [(ProtocolMode::Auto, Era::Modern), (ProtocolMode::Legacy, Era::Legacy)] {
            let builder = rt::Client::builder()
                .server(spec("py-ask", &peer.url("/mcp"), mode))
                .elicitation_handler(rt::sync_handler(|_: $crate::mcpwire_host::ElicitationRequest| {
                    Ok($crate::mcpwire_core::types::ElicitResult::accept(json!({"name": "Ada"})))
                }));
            let client = rt::build(builder).expect("build the client");
            let info = aw!(client.connect()).into_result().expect("connect").remove(0);
            assert_eq!(info.era, era);
            let r = aw!(client.call_tool("ask_name", json!({}))).expect("ask_name");
            assert_eq!(r.text(), "Hello, Ada!", "{era:?}: {:?}", r.raw());
            aw!(client.close());
        }
    }

    pub $($kw)? fn py_stateless_json_modern() {
        let args = ["streamable-http", "--port", "{port}", "--stateless", "--json"];
        let peer = HttpPeer::start("py-mcp-peer", &args, &[]);
        let client = aw!(open(&peer, "py-json", "/mcp", ProtocolMode::Auto, (Era::Modern, TransportKind::StreamableHttp), &["echo", "add"]));
        aw!(echo_and_add(&client, "py-json", ""));
        aw!(prompt_text(&client, "greet", json!({"name": "Ada"}), "Please greet Ada."));
        aw!(client.close());
    }

    /// The stateful server in the legacy era: `Mcp-Session-Id`, SSE responses, GET stream.
    pub $($kw)? fn py_streamable_legacy_session() {
        let peer = HttpPeer::start("py-mcp-peer", &["streamable-http", "--port", "{port}"], &[]);
        let client = aw!(open(&peer, "py-legacy", "/mcp", ProtocolMode::Legacy, (Era::Legacy, TransportKind::StreamableHttp), &["echo", "add", "slow"]));
        aw!(echo_and_add(&client, "py-legacy", ""));
        aw!(slow_with_progress(&client));
        aw!(client.close());
    }

    pub $($kw)? fn py_sse() {
        let peer = HttpPeer::start("py-mcp-peer", &["sse", "--port", "{port}"], &[]);
        let client = aw!(open(&peer, "py-sse", "/sse", ProtocolMode::Auto, (Era::Legacy, TransportKind::Sse), &["echo", "add"]));
        aw!(echo_and_add(&client, "py-sse", ""));
        aw!(client.close());
    }

    pub $($kw)? fn fastmcp_streamable_and_sse() {
        let peer = HttpPeer::start("fastmcp-echo-peer", &["--port", "{port}"], &[]);
        let client = aw!(open(&peer, "fastmcp-http", "/mcp", ProtocolMode::Auto, (Era::Modern, TransportKind::StreamableHttp), &["echo", "add"]));
        aw!(echo_and_add(&client, "fastmcp-http", ""));
        aw!(client.close());
        drop(peer);
        let peer = HttpPeer::start("fastmcp-echo-peer", &["--transport", "sse", "--port", "{port}"], &[]);
        let client = aw!(open(&peer, "fastmcp-sse", "/sse", ProtocolMode::Auto, (Era::Legacy, TransportKind::Sse), &["echo", "add"]));
        aw!(echo_and_add(&client, "fastmcp-sse", ""));
        aw!(client.close());
    }

    /// Servers reached through the other spelling of their path: FastMCP and the Python SDK
    /// (Starlette) answer `/mcp/` with a `307` to `/mcp`, and the Python SDK's HTTP+SSE server
    /// `/sse/` with a `307` to `/sse`. The client follows each (POST and GET), and only its
    /// first request goes to the redirecting URL: the peers' access logs (uvicorn's, on
    /// stdout) show one `307`.
    pub $($kw)? fn redirected_paths() {
        let cases: [(&str, &[&str], &str, (Era, TransportKind)); 3] = [
            ("fastmcp-echo-peer", &["--port", "{port}"], "/mcp/", (Era::Modern, TransportKind::StreamableHttp)),
            ("py-mcp-peer", &["streamable-http", "--port", "{port}"], "/mcp/", (Era::Modern, TransportKind::StreamableHttp)),
            ("py-mcp-peer", &["sse", "--port", "{port}"], "/sse/", (Era::Legacy, TransportKind::Sse)),
        ];
        for (name, args, path, verdict) in cases {
            let peer = HttpPeer::start(name, args, &[]);
            let client = aw!(open(&peer, name, path, ProtocolMode::Auto, verdict, &["echo", "add"]));
            aw!(echo_and_add(&client, name, ""));
            aw!(client.close());
            let log = peer.stdout();
            let method = if verdict.1 == TransportKind::Sse { "GET" } else { "POST" };
            let redirected = format!("\"{method} {path} HTTP/1.1\" 307");
            let count = log.lines().filter(|l| l.contains(&redirected)).count();
            assert_eq!(count, 1, "{name} {path}: one redirect, then the final URL: {log}");
        }
    }

    /// Modern mode against a server that only speaks the handshake revisions, on Streamable
    /// HTTP and on HTTP+SSE: a typed refusal, and nothing legacy sent (the SSE stream is not
    /// even opened).
    pub $($kw)? fn everything_refused_in_modern_mode() {
        use $crate::mcpwire_core::{ClientError, RequestError};
        for (args, path) in [("streamableHttp", "/mcp"), ("sse", "/sse")] {
            let peer = HttpPeer::start("server-everything", &[args], &[("PORT", "{port}")]);
            let client = rt::build(rt::Client::builder().server(spec("modern-only", &peer.url(path), ProtocolMode::Modern)))
                .expect("build the client");
            let e = aw!(client.connect()).into_result().expect_err("a legacy-only server in modern mode");
            assert!(matches!(e, ClientError::Request(RequestError::ModernRequired { .. })), "{path}: {e:?}");
            aw!(client.close());
        }
    }

    /// A legacy server without a GET stream (ts-v2-peer answers 405) cannot send
    /// `list_changed`, so its `listChanged` promise is not cached on: a tool added by `bump`
    /// shows in the next `tools/list`.
    pub $($kw)? fn ts_v2_legacy_lists_are_not_cached_without_a_stream() {
        let peer = HttpPeer::start("ts-v2-peer", &["http", "--port", "{port}"], &[]);
        let client = aw!(open(&peer, "ts-v2-lists", "/mcp", ProtocolMode::Legacy, (Era::Legacy, TransportKind::StreamableHttp), &["echo", "bump"]));
        let before = aw!(client.list_tools()).into_result().expect("tools/list").len();
        aw!(client.call_tool("bump", json!({}))).expect("bump");
        let after: Vec<String> = aw!(client.list_tools()).into_result().expect("tools/list").into_iter().map(|t| t.tool.name).collect();
        assert_eq!(after.len(), before + 1, "{after:?}");
        assert!(after.iter().any(|n| n == "extra-1"), "{after:?}");
        aw!(client.close());
    }

    /// The TS SDK v2 server: modern, and statelessly legacy (its GET and DELETE answer 405).
    pub $($kw)? fn ts_v2_both_eras() {
        let peer = HttpPeer::start("ts-v2-peer", &["http", "--port", "{port}"], &[]);
        let client = aw!(open(&peer, "ts-v2-http", "/mcp", ProtocolMode::Auto, (Era::Modern, TransportKind::StreamableHttp), &["echo", "add"]));
        aw!(echo_and_add(&client, "ts-v2-http", ""));
        aw!(client.close());
        let client = aw!(open(&peer, "ts-v2-legacy", "/mcp", ProtocolMode::Legacy, (Era::Legacy, TransportKind::StreamableHttp), &["echo", "add"]));
        aw!(echo_and_add(&client, "ts-v2-legacy", ""));
        aw!(client.close());
    }
}
    };
}
