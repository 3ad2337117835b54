//! Paced input waits against a real server, written once for every runtime: py-mcp-peer's
//! `not_ready_twice` (Python SDK, 2026-07-28) answers `input_required` with only a
//! `requestState` (sealed by the SDK) twice before its result. Over stdio and over stateless
//! Streamable HTTP the call succeeds after two waits seen by the host's hook; with a budget of
//! one round it fails resumably, and resuming with the SDK's sealed state finishes it. The glue
//! module `rt` needs `Client` and `build`; `tests/tests/real_peers.rs` runs them on every
//! runtime.

/// Defines `pub mod input_wait_peer_checks` for the glue `rt`:
/// `define_input_wait_peer_checks!(async, aw_async)` or `define_input_wait_peer_checks!(,
/// aw_sync)`.
#[macro_export]
macro_rules! define_input_wait_peer_checks {
    ($($kw:ident)? , $aw:ident) => {
/// The input-wait checks against real peers, instantiated for this runtime.
#[allow(unused_imports)]
pub mod input_wait_peer_checks {
    use super::rt;
    use std::sync::{Arc, Mutex};
    use std::time::Duration;
    #[cfg(feature = "http")]
    use $crate::support::http_peers::HttpPeer;
    use $crate::mcpwire_core::{ClientError, Era, InputWait, InputWaitDecision, ProtocolMode, RequestError, ServerSpec};
    use $crate::serde_json::json;
    use $crate::support;

    macro_rules! aw {
        ($e:expr) => {
            $crate::$aw!($e)
        };
    }

    type Waits = Arc<Mutex<Vec<InputWait>>>;

    fn client(spec: ServerSpec, waits: &Waits) -> rt::Client {
        let spec = spec.protocol(ProtocolMode::Auto).request_timeout(Duration::from_secs(30));
        let waits = waits.clone();
        let builder = rt::Client::builder().server(spec).on_input_wait(move |_: &str, wait: &InputWait| {
            waits.lock().unwrap().push(wait.clone());
            InputWaitDecision::Continue
        });
        rt::build(builder).expect("build")
    }

    /// Two "not yet" answers, two paced waits the hook saw, then the result; then the same with
    /// a budget of one round: a resumable error, and `resume` with the sealed state succeeds.
    $($kw)? fn not_ready_twice(peer: &str, spec: impl Fn() -> ServerSpec) {
        let waits: Waits = Default::default();
        let c = client(spec(), &waits);
        let info = aw!(c.connect()).into_result().expect("connect").remove(0);
        assert_eq!(info.era, Era::Modern, "{peer}");
        let r = aw!(c.call_tool("not_ready_twice", json!({}))).unwrap_or_else(|e| panic!("{peer}: {e}"));
        assert_eq!(r.text(), "ready after 2 waits", "{peer}: {:?}", r.raw());
        {
            let seen = waits.lock().unwrap();
            let summary: Vec<(u32, u128)> = seen.iter().map(|w| (w.round, w.delay.as_millis())).collect();
            assert_eq!(summary, [(1, 50), (2, 100)], "{peer}");
            for w in seen.iter() {
                assert_eq!((w.method.as_str(), w.target.as_deref()), ("tools/call", Some("not_ready_twice")));
                assert!(w.state_len > 0, "{peer}: {w:?}");
            }
        }
        aw!(c.close());

        let waits: Waits = Default::default();
        let c = client(spec().max_input_rounds(1), &waits);
        let resume = match aw!(c.call_tool("not_ready_twice", json!({}))) {
            Err(ClientError::Request(RequestError::InputBudgetExhausted { rounds, outstanding, resume })) => {
                assert_eq!(rounds, 1, "{peer}");
                assert!(outstanding.is_empty(), "{peer}: {outstanding:?}");
                assert!(resume.request_state.is_some(), "{peer}");
                resume
            }
            other => panic!("{peer}: expected InputBudgetExhausted, got {other:?}"),
        };
        let r = aw!(c.servers()[0].resume(*resume)).unwrap_or_else(|e| panic!("{peer}: resume: {e}"));
        assert_eq!(r.into_tool_result().expect("a tool result").text(), "ready after 2 waits", "{peer}");
        assert_eq!(waits.lock().unwrap().len(), 1, "{peer}: one wait before the budget ran out");
        aw!(c.close());
    }

    /// py-mcp-peer over stdio.
    pub $($kw)? fn py_not_ready_twice_stdio() {
        aw!(not_ready_twice("py-mcp-peer stdio", || support::peer_spec("py-mcp-peer", &[])));
    }

    /// py-mcp-peer over stateless Streamable HTTP with JSON responses.
    #[cfg(feature = "http")]
    pub $($kw)? fn py_not_ready_twice_http() {
        let args = ["streamable-http", "--port", "{port}", "--stateless", "--json"];
        let peer = HttpPeer::start("py-mcp-peer", &args, &[]);
        let url = peer.url("/mcp");
        let spec = || ServerSpec::from_target("py-http", &url).expect("a valid URL");
        aw!(not_ready_twice("py-mcp-peer http", spec));
    }
}
    };
}

/// Generates one `#[test]` per input-wait peer check: `all_input_wait_peer_checks!(run)`.
#[macro_export]
macro_rules! all_input_wait_peer_checks {
    ($run:path) => {
        $crate::scenario_tests!(input_wait_peer_checks, $run; py_not_ready_twice_stdio);
        #[cfg(feature = "http")]
        $crate::scenario_tests!(input_wait_peer_checks, $run; py_not_ready_twice_http);
    };
}
