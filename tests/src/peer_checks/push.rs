//! Push against real servers, written once for every runtime: `subscriptions/listen` on the
//! 2026-07-28 peers that serve it (ts-v2-peer and py-mcp-peer, over stdio and HTTP, updates
//! triggered by their `touch` / `bump` tools), its refusal by one that does not
//! (fastmcp-echo-peer), and legacy `resources/subscribe` (server-everything, py-mcp-peer; renewed
//! on py-mcp-peer's restarted process).
//! The glue module `rt` needs `Client`, `build` and `sleep`; `tests/tests/real_peers.rs` runs
//! them on every runtime.

/// Defines `pub mod push_peer_checks` for the glue `rt`: `define_push_peer_checks!(async,
/// aw_async)` or `define_push_peer_checks!(, aw_sync)`.
#[macro_export]
macro_rules! define_push_peer_checks {
    ($($kw:ident)? , $aw:ident) => {
/// The push checks against real peers, instantiated for this runtime.
#[allow(unused_imports)]
pub mod push_peer_checks {
    use super::rt;
    use std::time::{Duration, Instant};
    #[cfg(feature = "http")]
    use $crate::support::http_peers::HttpPeer;
    use $crate::mcpwire_core::{
        ClientError, Era, Event, ListKind, Notification, ProtocolMode, RequestError, ServerSpec,
        SubscriptionFilter,
    };
    use $crate::serde_json::json;
    use $crate::support::{self, Events};

    macro_rules! aw {
        ($e:expr) => {
            $crate::$aw!($e)
        };
    }

    fn stdio(name: &str, args: &[&str]) -> ServerSpec {
        support::peer_spec(name, args).request_timeout(Duration::from_secs(30))
    }

    #[cfg(feature = "http")]
    fn http(peer: &HttpPeer) -> ServerSpec {
        ServerSpec::from_target("peer", &peer.url("/mcp")).expect("a URL").request_timeout(Duration::from_secs(30))
    }

    fn new_client(spec: ServerSpec, events: &Events) -> rt::Client {
        rt::build(rt::Client::builder().server(spec).on_event(events.hook())).expect("build the client")
    }

    fn updated(uri: &str) -> Notification {
        Notification::ResourceUpdated { uri: uri.to_owned() }
    }

    /// Polls `cond` every 20 ms for up to 20 s; panics with `what` if it never holds.
    $($kw)? fn wait_until(what: &str, cond: impl Fn() -> bool) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while !cond() {
            assert!(Instant::now() < deadline, "timed out waiting for {what}");
            aw!(rt::sleep(Duration::from_millis(20)));
        }
    }

    /// A listen for `peer://hello` and tool-list changes: acknowledged, `touch` delivers the
    /// update, `bump` (when the peer has it) the list change; then `subscribe_resource` on the
    /// same server, whose update reaches the event hook.
    $($kw)? fn listen_and_touch(spec: ServerSpec, bump: bool) {
        let name = spec.name.clone();
        let events = Events::new();
        let client = new_client(spec, &events);
        let server = client.server(&name).expect("the server");
        let info = aw!(server.connect()).expect("connect");
        assert_eq!(info.era, Era::Modern, "{name}");
        let filter = SubscriptionFilter::new().tools_list_changed().resource("peer://hello");
        let sub = aw!(server.listen(filter)).unwrap_or_else(|e| panic!("{name}: listen: {e}"));
        let granted = sub.acknowledged().expect("acknowledged");
        assert_eq!(granted.resource_subscriptions, ["peer://hello"], "{name}: {granted:?}");
        assert!(sub.is_active());
        aw!(client.call_tool("touch", json!({"uri": "peer://hello"}))).expect("touch");
        assert_eq!(aw!(sub.next()), Some(updated("peer://hello")), "{name}");
        if bump {
            aw!(client.call_tool("bump", json!({}))).expect("bump");
            assert_eq!(aw!(sub.next()), Some(Notification::ListChanged(ListKind::Tools)), "{name}");
        }
        sub.close();
        assert!(!sub.is_active());
        aw!(server.subscribe_resource("peer://hello")).unwrap_or_else(|e| panic!("{name}: subscribe: {e}"));
        aw!(client.call_tool("touch", json!({"uri": "peer://hello"}))).expect("touch");
        let seen = || events.any(|e| matches!(e, Event::Notification(n) if *n == updated("peer://hello")));
        aw!(wait_until("the update of the resource subscription", seen));
        aw!(server.unsubscribe_resource("peer://hello")).expect("unsubscribe");
        aw!(client.close());
    }

    /// ts-v2-peer over stdio.
    pub $($kw)? fn ts_listen_stdio() {
        aw!(listen_and_touch(stdio("ts-v2-peer", &["stdio"]), true));
    }

    /// ts-v2-peer over Streamable HTTP.
    #[cfg(feature = "http")]
    pub $($kw)? fn ts_listen_http() {
        let peer = HttpPeer::start("ts-v2-peer", &["http", "--port", "{port}"], &[]);
        aw!(listen_and_touch(http(&peer), true));
    }

    /// py-mcp-peer over stdio.
    pub $($kw)? fn py_listen_stdio() {
        aw!(listen_and_touch(stdio("py-mcp-peer", &[]), false));
    }

    /// py-mcp-peer over stateful and stateless Streamable HTTP.
    #[cfg(feature = "http")]
    pub $($kw)? fn py_listen_http() {
        let peer = HttpPeer::start("py-mcp-peer", &["streamable-http", "--port", "{port}"], &[]);
        aw!(listen_and_touch(http(&peer), false));
        let peer =
            HttpPeer::start("py-mcp-peer", &["streamable-http", "--port", "{port}", "--stateless", "--json"], &[]);
        aw!(listen_and_touch(http(&peer), false));
    }

    /// A modern server without `subscriptions/listen` refuses it with a typed JSON-RPC error.
    $($kw)? fn refuses_listen(spec: ServerSpec) {
        let events = Events::new();
        let client = new_client(spec, &events);
        let server = &client.servers()[0];
        match aw!(server.listen(SubscriptionFilter::new().tools_list_changed())) {
            Err(ClientError::Request(RequestError::Rpc(e))) => assert_eq!(e.code, -32601),
            other => panic!("expected -32601, got {other:?}"),
        }
        aw!(client.close());
    }

    /// FastMCP over stdio refuses a listen.
    pub $($kw)? fn fastmcp_refuses_listen() {
        aw!(refuses_listen(stdio("fastmcp-echo-peer", &["--transport", "stdio"])));
    }

    /// FastMCP over HTTP refuses a listen (a 404 carrying the error).
    #[cfg(feature = "http")]
    pub $($kw)? fn fastmcp_refuses_listen_http() {
        let peer = HttpPeer::start("fastmcp-echo-peer", &["--port", "{port}"], &[]);
        aw!(refuses_listen(http(&peer)));
    }

    /// Legacy `resources/subscribe`: server-everything sends updates for subscribed URIs once
    /// `toggle-subscriber-updates` is on; py-mcp-peer on a handshake revision when touched.
    pub $($kw)? fn legacy_subscriptions() {
        let events = Events::new();
        let client = new_client(stdio("server-everything", &[]), &events);
        let server = &client.servers()[0];
        let uri = "demo://resource/static/document/architecture.md";
        aw!(server.subscribe_resource(uri)).expect("subscribe");
        assert_eq!(server.info().expect("connected").era, Era::Legacy);
        aw!(client.call_tool("toggle-subscriber-updates", json!({}))).expect("toggle on");
        aw!(wait_until("server-everything's update", || events.any(|e| matches!(e, Event::Notification(n) if *n == updated(uri)))));
        aw!(client.call_tool("toggle-subscriber-updates", json!({}))).expect("toggle off");
        aw!(server.unsubscribe_resource(uri)).expect("unsubscribe");
        aw!(client.close());

        let events = Events::new();
        let client = new_client(stdio("py-mcp-peer", &[]).protocol(ProtocolMode::Legacy), &events);
        let server = &client.servers()[0];
        aw!(server.subscribe_resource("peer://hello")).expect("subscribe");
        aw!(client.call_tool("touch", json!({"uri": "peer://hello"}))).expect("touch");
        aw!(wait_until("py-mcp-peer's update", || events.any(|e| matches!(e, Event::Notification(n) if *n == updated("peer://hello")))));
        aw!(client.close());
    }

    /// A legacy subscription outlives its process: py-mcp-peer (handshake revision, stdio) is
    /// killed after `resources/subscribe`; the next request restarts it, the subscription is
    /// sent again first, and the new process's `touch` reaches the event hook.
    pub $($kw)? fn legacy_subscription_survives_a_restart() {
        // `--host` is ignored over stdio: it only puts a marker on the process's command line.
        let marker = support::unique_temp_path("py-resubscribe");
        let marker = marker.to_str().expect("UTF-8 path").to_owned();
        let spec = stdio("py-mcp-peer", &["stdio", "--host", &marker]).protocol(ProtocolMode::Legacy);
        let events = Events::new();
        let client = new_client(spec, &events);
        let server = &client.servers()[0];
        aw!(server.subscribe_resource("peer://hello")).expect("subscribe");
        let pids = support::processes_with_marker(&marker);
        assert_eq!(pids.len(), 1, "the peer runs: {pids:?}");
        let killed = std::process::Command::new("kill").arg("-9").arg(pids[0].to_string()).status();
        assert!(killed.as_ref().is_ok_and(|s| s.success()), "kill the peer: {killed:?}");
        aw!(wait_until("the peer's exit", || events.any(|e| matches!(e, Event::Disconnected { .. }))));
        aw!(client.call_tool("touch", json!({"uri": "peer://hello"}))).expect("touch on the new process");
        aw!(wait_until("the update on the new process", || events.any(|e| matches!(e, Event::Notification(n) if *n == updated("peer://hello")))));
        assert_eq!(server.subscribed_resources(), ["peer://hello"]);
        assert!(!events.any(|e| matches!(e, Event::ResourceSubscriptionDropped { .. })));
        aw!(client.close());
    }
}
    };
}

/// Generates the `#[test]`s of [`define_push_peer_checks!`].
#[macro_export]
macro_rules! all_push_peer_checks {
    ($run:path) => {
        $crate::scenario_tests!(push_peer_checks, $run;
            ts_listen_stdio, py_listen_stdio, fastmcp_refuses_listen, legacy_subscriptions,
            legacy_subscription_survives_a_restart);
        #[cfg(feature = "http")]
        $crate::scenario_tests!(push_peer_checks, $run; ts_listen_http, py_listen_http, fastmcp_refuses_listen_http);
    };
}
