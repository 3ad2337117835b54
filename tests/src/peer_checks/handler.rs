//! Typed handlers and roots held by the client against server-everything (legacy 2025-11-25,
//! TypeScript SDK v1), written once for every runtime: its `get-roots-list` sees the client's
//! roots, and after `Client::set_roots` the `notifications/roots/list_changed` makes it ask
//! `roots/list` again (stdio and Streamable HTTP); its `trigger-sampling-request` reaches a
//! typed sampling handler, and a handler error with a code reaches it as that JSON-RPC error.
//! The glue module `rt` needs `Client`, `build`, `sleep` and `sync_handler`;
//! `tests/tests/real_peers.rs` runs them on every runtime.

/// Defines `pub mod handler_peer_checks` for the glue `rt`: `define_handler_peer_checks!(async,
/// aw_async)` or `define_handler_peer_checks!(, aw_sync)`.
#[macro_export]
macro_rules! define_handler_peer_checks {
    ($($kw:ident)? , $aw:ident) => {
/// The typed-handler and roots checks against real peers, instantiated for this runtime.
#[allow(unused_imports)]
pub mod handler_peer_checks {
    use super::rt;
    use std::sync::{Arc, Mutex};
    use std::time::{Duration, Instant};
    #[cfg(feature = "http")]
    use $crate::support::http_peers::HttpPeer;
    use $crate::mcpwire_core::types::{CreateMessageRequest, CreateMessageResult, Role};
    use $crate::mcpwire_core::{HandlerError, Root, ServerSpec};
    use $crate::mcpwire_host::SamplingRequest;
    use $crate::serde_json::json;
    use $crate::support;

    macro_rules! aw {
        ($e:expr) => {
            $crate::$aw!($e)
        };
    }

    /// The text of server-everything's `get-roots-list`.
    $($kw)? fn roots_text(client: &rt::Client) -> String {
        aw!(client.call_tool("get-roots-list", json!({}))).expect("get-roots-list").text()
    }

    /// The client's roots reach the server; `set_roots` sends `list_changed`, on which the
    /// server asks again and from then on lists the new roots.
    $($kw)? fn roots_change(spec: ServerSpec) {
        let first = Root::named("file:///work/first", "First");
        let client = rt::build(rt::Client::builder().server(spec).roots([first])).expect("build");
        let text = aw!(roots_text(&client));
        assert!(text.contains("(1 total)") && text.contains("file:///work/first"), "{text}");
        client
            .set_roots([Root::named("file:///work/second", "Second"), Root::new("file:///work/third")])
            .expect("held roots change");
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let text = aw!(roots_text(&client));
            if text.contains("(2 total)") {
                assert!(text.contains("file:///work/second") && text.contains("file:///work/third"), "{text}");
                assert!(text.contains("Unnamed Root") && !text.contains("file:///work/first"), "{text}");
                break;
            }
            assert!(Instant::now() < deadline, "the server never asked for the new roots: {text}");
            aw!(rt::sleep(Duration::from_millis(50)));
        }
        aw!(client.close());
    }

    pub $($kw)? fn everything_roots_change_stdio() {
        let spec = support::peer_spec("server-everything", &[]).request_timeout(Duration::from_secs(30));
        aw!(roots_change(spec));
    }

    #[cfg(feature = "http")]
    pub $($kw)? fn everything_roots_change_http() {
        let peer = HttpPeer::start("server-everything", &["streamableHttp"], &[("PORT", "{port}")]);
        let spec = ServerSpec::from_target("everything-http", &peer.url("/mcp"))
            .expect("a URL")
            .request_timeout(Duration::from_secs(30));
        aw!(roots_change(spec));
    }

    /// `trigger-sampling-request` reaches the typed handler (system prompt, max tokens, the
    /// prompt as a user text block); its answer reaches the tool's result; a handler error
    /// with a code reaches the server as that error.
    pub $($kw)? fn everything_typed_sampling() {
        let seen: Arc<Mutex<Vec<CreateMessageRequest>>> = Default::default();
        let record = seen.clone();
        let sample = rt::sync_handler(move |req: SamplingRequest| {
            record.lock().unwrap().push(req.request.clone());
            if req.last_text().contains("refuse") {
                return Err(HandlerError::with_code(-32001, "sampling refused by the host"));
            }
            Ok(CreateMessageResult::text(format!("typed answer to {}", req.server), "typed-model"))
        });
        let spec = support::peer_spec("server-everything", &[]).request_timeout(Duration::from_secs(30));
        let client = rt::build(rt::Client::builder().server(spec).sampling_handler(sample)).expect("build");
        let r = aw!(client.call_tool("trigger-sampling-request", json!({"prompt": "hello", "maxTokens": 42})))
            .expect("sampling");
        assert!(!r.is_error && r.text().contains("typed answer to server-everything"), "{:?}", r.raw());
        {
            let seen = seen.lock().unwrap();
            assert_eq!(seen.len(), 1);
            assert_eq!(seen[0].max_tokens, 42);
            assert_eq!(seen[0].system_prompt.as_deref(), Some("You are a helpful test server."));
            assert_eq!(seen[0].messages[0].role, Role::User);
            assert!(seen[0].last_text().contains("hello"), "{:?}", seen[0].messages);
        }
        let r = aw!(client.call_tool("trigger-sampling-request", json!({"prompt": "please refuse"})));
        let text = match r {
            Ok(r) => {
                assert!(r.is_error, "{:?}", r.raw());
                r.text()
            }
            Err(e) => e.to_string(),
        };
        assert!(text.contains("-32001") && text.contains("sampling refused by the host"), "{text}");
        assert_eq!(seen.lock().unwrap().len(), 2);
        aw!(client.close());
    }
}
    };
}

/// Generates one `#[test]` per check: `all_handler_peer_checks!(run)`.
#[macro_export]
macro_rules! all_handler_peer_checks {
    ($run:path) => {
        $crate::scenario_tests!(handler_peer_checks, $run; everything_roots_change_stdio, everything_typed_sampling);
        #[cfg(feature = "http")]
        $crate::scenario_tests!(handler_peer_checks, $run; everything_roots_change_http);
    };
}
