//! `Mcp-Param-*` headers and completion context against a real server, written once for every
//! runtime: py-mcp-peer (Python SDK) rejects a 2026-07-28 `tools/call` whose `x-mcp-header`
//! headers are missing or differ (`-32020`), and its `regional` tool answers with the header it
//! received; its `trip` prompt completes `city` from the `country` in `context.arguments`. The
//! glue module `rt` needs `Client` and `build`; `tests/tests/real_peers.rs` runs them.

/// Defines `pub mod header_peer_checks` for the glue `rt`: `define_header_peer_checks!(async,
/// aw_async)` or `define_header_peer_checks!(, aw_sync)`.
#[macro_export]
macro_rules! define_header_peer_checks {
    ($($kw:ident)? , $aw:ident) => {
/// The header and completion-context checks against real peers, instantiated for this runtime.
#[allow(unused_imports)]
pub mod header_peer_checks {
    use super::rt;
    use std::collections::BTreeMap;
    use std::time::Duration;
    #[cfg(feature = "http")]
    use $crate::support::http_peers::HttpPeer;
    use $crate::mcpwire_core::types::CompletionReference;
    use $crate::mcpwire_core::{Era, ProtocolMode, ServerSpec};
    use $crate::serde_json::json;
    use $crate::support;

    macro_rules! aw {
        ($e:expr) => {
            $crate::$aw!($e)
        };
    }

    #[cfg(feature = "http")]
    fn http_spec(name: &str, url: &str) -> ServerSpec {
        ServerSpec::from_target(name, url).expect("a valid URL").request_timeout(Duration::from_secs(30))
    }

    /// The first call of a tool the client has not listed yet carries its `Mcp-Param-*` header
    /// (the client lists the tools first); a value that is not plain ASCII goes out
    /// Base64-encoded and the server, which decodes and checks it, accepts the call.
    #[cfg(feature = "http")]
    pub $($kw)? fn py_first_call_carries_its_param_header() {
        let peer = HttpPeer::start("py-mcp-peer", &["streamable-http", "--port", "{port}", "--stateless", "--json"], &[]);
        let client = rt::build(rt::Client::builder().server(http_spec("py-hdr", &peer.url("/mcp"))))
            .expect("build the client");
        let server = &client.servers()[0];
        assert_eq!(aw!(server.connect()).expect("connect").era, Era::Modern);
        assert!(server.known_tools().is_none(), "no tool listed yet");
        let r = aw!(server.call_tool("regional", json!({"region": "eu-west1", "query": "q1"})))
            .unwrap_or_else(|e| panic!("regional: {e}; peer stderr: {}", peer.stderr()));
        assert!(!r.is_error, "{:?}", r.raw());
        assert_eq!(r.text(), "region=eu-west1 header=eu-west1 query=q1");
        let r = aw!(server.call_tool("regional", json!({"region": "Zürich", "query": "q2"}))).expect("regional");
        assert!(!r.is_error, "{:?}", r.raw());
        let text = r.text();
        assert!(text.starts_with("region=Zürich header==?base64?"), "{text}");
        aw!(client.close());
    }

    /// `complete_with` sends the arguments already chosen, and the peer's completions of the
    /// second argument follow the first; without context every candidate comes back.
    pub $($kw)? fn py_completion_with_context() {
        let cases = [
            ("py-modern", support::peer_spec("py-mcp-peer", &[]), Era::Modern),
            ("py-legacy", support::peer_spec("py-mcp-peer", &[]).protocol(ProtocolMode::Legacy), Era::Legacy),
        ];
        for (name, spec, era) in cases {
            let client = rt::build(rt::Client::builder().server(spec)).expect("build the client");
            let server = &client.servers()[0];
            assert_eq!(aw!(server.connect()).expect("connect").era, era, "{name}");
            let reference = CompletionReference::prompt("trip");
            let mut context = BTreeMap::new();
            context.insert("country".to_owned(), "France".to_owned());
            let c = aw!(server.complete(reference.clone(), "city", "L").context(context)).expect("complete_with");
            assert_eq!(c.values, ["Lyon", "Lille"], "{name}");
            let mut context = BTreeMap::new();
            context.insert("country".to_owned(), "Peru".to_owned());
            let c = aw!(server.complete(reference.clone(), "city", "").context(context)).expect("complete_with");
            assert_eq!(c.values, ["Lima", "Cusco"], "{name}");
            let c = aw!(server.complete(reference, "city", "L")).expect("complete");
            assert_eq!(c.values, ["Lyon", "Lille", "Lima"], "{name}");
            aw!(client.close());
        }
    }
}
    };
}

/// Generates the `#[test]`s of [`define_header_peer_checks!`]: `all_header_peer_checks!(run)`.
#[macro_export]
macro_rules! all_header_peer_checks {
    ($run:path) => {
        $crate::scenario_tests!(header_peer_checks, $run; py_completion_with_context);
        #[cfg(feature = "http")]
        $crate::scenario_tests!(header_peer_checks, $run; py_first_call_carries_its_param_header);
    };
}
