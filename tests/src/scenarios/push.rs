//! Push scenarios against `mcp-test-server`, written once for every runtime: listen streams
//! (acknowledgment, delivery, close, graceful and invalid ends, ack timeout, restart, a flood
//! against the queue bounds) and resource subscriptions in both eras (renewed after a restart,
//! dropped when the restarted server refuses them). The glue module `rt` is
//! the one described in `scenarios.rs`.

/// Defines `pub mod push_scenarios` for the glue `rt`: `define_push_scenarios!(async, aw_async)`
/// or `define_push_scenarios!(, aw_sync)`.
#[macro_export]
macro_rules! define_push_scenarios {
    ($($kw:ident)? , $aw:ident) => {
/// The push scenarios, instantiated for this runtime.
#[allow(unused_imports)]
pub mod push_scenarios {
    use super::rt;
    use std::time::{Duration, Instant};
    use $crate::mcpwire_core::{
        ClientError, Event, ListKind, Notification, QueueLimits, RequestError, SubscriptionFilter,
        SubscriptionUpdate,
    };
    use $crate::serde_json::json;
    use $crate::support::{self, Events};

    macro_rules! aw {
        ($e:expr) => {
            $crate::$aw!($e)
        };
    }

    fn client_with(args: &[&str], events: &Events) -> rt::Client {
        let spec = support::spec(support::test_server(), "t", args);
        rt::build(rt::Client::builder().server(spec).on_event(events.hook())).expect("build the client")
    }

    fn updated(uri: &str) -> Notification {
        Notification::ResourceUpdated { uri: uri.to_owned() }
    }

    fn request_error<T: std::fmt::Debug>(r: Result<T, ClientError>) -> RequestError {
        match r {
            Err(ClientError::Request(e)) => e,
            other => panic!("expected a request error, got {other:?}"),
        }
    }

    /// Polls `cond` every 10 ms for up to 10 s; panics with `what` if it never holds.
    $($kw)? fn wait_until(what: &str, cond: impl Fn() -> bool) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while !cond() {
            assert!(Instant::now() < deadline, "timed out waiting for {what}");
            aw!(rt::sleep(Duration::from_millis(10)));
        }
    }

    /// A listen is acknowledged with what the server can honour, carries its notifications
    /// (also seen by the event hook, as notifications), and delivers nothing once closed.
    pub $($kw)? fn listen_delivers_and_closes() {
        let events = Events::new();
        let client = client_with(&["--protocol", "modern"], &events);
        let server = client.server("t").expect("server t");
        let filter =
            SubscriptionFilter::new().tools_list_changed().resource("test://text").resource("test://nope");
        let sub = aw!(server.listen(filter)).expect("listen");
        assert_eq!(sub.acknowledged(), Some(SubscriptionFilter::new().tools_list_changed().resource("test://text")));
        assert_eq!(sub.unsupported(), SubscriptionFilter::new().resource("test://nope"));
        assert!(sub.is_active());
        let r = aw!(client.call_tool("touch_resource", json!({"uri": "test://text"}))).expect("touch");
        assert_eq!(r.text(), "sent 1");
        assert_eq!(aw!(sub.next()), Some(updated("test://text")));
        aw!(client.call_tool("change_list", json!({"kind": "tools"}))).expect("change_list");
        assert_eq!(aw!(sub.next()), Some(Notification::ListChanged(ListKind::Tools)));
        aw!(wait_until("the update as an event", || events.any(|e| matches!(e, Event::Notification(n) if *n == updated("test://text")))));
        aw!(wait_until("the acknowledgment as an event", || events.any(|e| matches!(e, Event::Subscription { update: SubscriptionUpdate::Acknowledged { .. }, .. }))));
        sub.close();
        assert!(!sub.is_active());
        let r = aw!(client.call_tool("touch_resource", json!({"uri": "test://text"}))).expect("touch");
        assert_eq!(r.text(), "sent 0", "the server got the cancellation before the next call");
        assert_eq!(aw!(sub.next()), None);
        assert_eq!(sub.ended(), Some(Err(ClientError::Request(RequestError::Cancelled))));
        aw!(client.close());
    }

    /// The server ending a listen: a completed result is a graceful end; `input_required` is
    /// not a valid end and fails the stream.
    pub $($kw)? fn listen_ends_from_the_server() {
        let events = Events::new();
        let client = client_with(&["--protocol", "modern"], &events);
        let server = client.server("t").expect("server t");
        let sub = aw!(server.listen(SubscriptionFilter::new().tools_list_changed())).expect("listen");
        aw!(client.call_tool("end_listens", json!({}))).expect("end_listens");
        assert_eq!(aw!(sub.next()), None);
        assert_eq!(sub.ended(), Some(Ok(())));
        // Read as a `Stream` (async) or an `Iterator` (blocking): what came, then the end.
        let sub = aw!(server.listen(SubscriptionFilter::new().resource("test://text"))).expect("listen");
        aw!(client.call_tool("touch_resource", json!({"uri": "test://text"}))).expect("touch");
        aw!(client.call_tool("touch_resource", json!({"uri": "test://text"}))).expect("touch");
        aw!(client.call_tool("end_listens", json!({}))).expect("end_listens");
        assert_eq!(aw!(rt::rest_of(sub)), [updated("test://text"), updated("test://text")]);
        let sub = aw!(server.listen(SubscriptionFilter::new().tools_list_changed())).expect("listen");
        aw!(client.call_tool("end_listens", json!({"resultType": "input_required"}))).expect("end_listens");
        assert_eq!(aw!(sub.next()), None);
        let ended = sub.ended().expect("ended");
        assert!(
            matches!(&ended, Err(ClientError::Request(RequestError::UnsupportedResultType { result_type })) if result_type == "input_required"),
            "{ended:?}"
        );
        aw!(client.close());
    }

    /// Listening needs a 2026-07-28 server; one that never acknowledges is given up on after
    /// the acknowledgment timeout.
    pub $($kw)? fn listen_refusals_and_ack_timeout() {
        let events = Events::new();
        let legacy = client_with(&["--protocol", "2025-11-25"], &events);
        let server = legacy.server("t").expect("server t");
        let e = request_error(aw!(server.listen(SubscriptionFilter::new().tools_list_changed())));
        assert!(matches!(e, RequestError::Unsupported { .. }), "{e:?}");
        aw!(legacy.close());

        let silent = client_with(&["--protocol", "modern", "--listen-no-ack"], &events);
        let server = silent.server("t").expect("server t");
        let opts = rt::ListenOptions::default().ack_timeout(Duration::from_millis(300));
        let e = request_error(aw!(server.listen(SubscriptionFilter::new().tools_list_changed()).options(opts)));
        assert_eq!(e, RequestError::Timeout { after: Duration::from_millis(300) });
        aw!(silent.close());
    }

    /// A server process that exits while a listen is open is restarted at once, and the
    /// listen is sent again and acknowledged anew.
    pub $($kw)? fn listen_survives_a_restart() {
        let events = Events::new();
        let client = client_with(&["--protocol", "modern"], &events);
        let server = client.server("t").expect("server t");
        let sub = aw!(server.listen(SubscriptionFilter::new().resource("test://text"))).expect("listen");
        // A process must keep its listens a moment to be trusted with them again.
        aw!(rt::sleep(Duration::from_millis(1100)));
        let _ = aw!(client.call_tool("crash", json!({"code": 4, "answerFirst": true})));
        let acks = || {
            let acked = |e: &Event| matches!(e, Event::Subscription { update: SubscriptionUpdate::Acknowledged { .. }, .. });
            events.snapshot().iter().filter(|(_, e)| acked(e)).count()
        };
        aw!(wait_until("the re-listen", || acks() >= 2));
        assert!(
            events.any(|e| matches!(e, Event::Subscription { update: SubscriptionUpdate::Reconnecting { .. }, .. })),
            "{:#?}",
            events.snapshot()
        );
        assert!(sub.is_active());
        let r = aw!(client.call_tool("touch_resource", json!({"uri": "test://text"}))).expect("touch");
        assert_eq!(r.text(), "sent 1");
        assert_eq!(aw!(sub.next()), Some(updated("test://text")));
        aw!(client.close());
    }

    /// 100,000 notifications on a stream nobody reads stay within the queue's bounds, and
    /// what was dropped is counted.
    pub $($kw)? fn listen_flood_is_bounded() {
        let events = Events::new();
        let client = client_with(&["--protocol", "modern"], &events);
        let server = client.server("t").expect("server t");
        let queue = QueueLimits::default().max_items(256).max_bytes(8 * 1024);
        let opts = rt::ListenOptions::default().queue(queue);
        let filter = SubscriptionFilter::new().resource("test://text").resource("test://blob");
        let sub = aw!(server.listen(filter).options(opts)).expect("listen");
        aw!(client.call_tool("touch_resource", json!({"uri": "test://blob"}))).expect("touch");
        let r = aw!(client.call_tool("flood", json!({"uri": "test://text", "count": 100000}))).expect("flood");
        assert_eq!(r.text(), "sent 100000");
        assert!(sub.pending() <= 256 && sub.pending_bytes() <= 8 * 1024, "{} {}", sub.pending(), sub.pending_bytes());
        assert_eq!(sub.dropped() + sub.pending() as u64, 100_001);
        // The one notice about the quiet resource survived the flood about the busy one.
        let mut seen = Vec::new();
        while sub.pending() > 0 {
            seen.push(aw!(sub.next()).expect("a queued notification"));
        }
        assert_eq!(seen.iter().filter(|n| **n == updated("test://blob")).count(), 1);
        aw!(client.close());
    }

    /// `subscribe_resource` in both eras: confirmed by the server, updates reach the event
    /// hook, `unsubscribe_resource` stops them; an unknown resource is refused.
    pub $($kw)? fn resource_subscriptions_in_both_eras() {
        for proto in ["modern", "2025-11-25"] {
            let events = Events::new();
            let client = client_with(&["--protocol", proto], &events);
            let server = client.server("t").expect("server t");
            aw!(server.subscribe_resource("test://text")).expect("subscribe");
            assert_eq!(server.subscribed_resources(), ["test://text"]);
            aw!(client.call_tool("touch_resource", json!({"uri": "test://text"}))).expect("touch");
            let seen = |events: &Events| {
                events.snapshot().iter().filter(|(_, e)| matches!(e, Event::Notification(n) if *n == updated("test://text"))).count()
            };
            aw!(wait_until("the update as an event", || seen(&events) >= 1));
            assert_eq!(seen(&events), 1, "{proto}");
            aw!(server.unsubscribe_resource("test://text")).expect("unsubscribe");
            assert!(server.subscribed_resources().is_empty());
            let r = aw!(client.call_tool("touch_resource", json!({"uri": "test://text"}))).expect("touch");
            assert_eq!(r.text(), "sent 0", "{proto}");
            assert_eq!(seen(&events), 1, "{proto}");
            let e = request_error(aw!(server.subscribe_resource("test://missing")));
            match proto {
                "modern" => assert!(matches!(e, RequestError::SubscriptionRefused { .. }), "{e:?}"),
                _ => assert_eq!(e.rpc().map(|r| r.code), Some(-32002), "{e:?}"),
            }
            assert!(server.subscribed_resources().is_empty());
            aw!(client.close());
        }
        let events = Events::new();
        let client = client_with(&["--protocol", "2025-11-25", "--no-subscribe"], &events);
        let server = client.server("t").expect("server t");
        let e = request_error(aw!(server.subscribe_resource("test://text")));
        assert_eq!(
            e,
            RequestError::CapabilityMissing { capability: "resources.subscribe", method: "resources/subscribe" }
        );
        aw!(client.close());
    }

    /// How many `notifications/resources/updated` for `uri` the event hook saw.
    fn updates_seen(events: &Events, uri: &str) -> usize {
        events.snapshot().iter().filter(|(_, e)| matches!(e, Event::Notification(n) if *n == updated(uri))).count()
    }

    /// A handshake server that crashes is restarted by the next request and gets its
    /// subscriptions again first: the update that request triggers arrives, and
    /// `subscribed_resources()` still lists the subscription.
    pub $($kw)? fn resource_subscriptions_survive_a_restart() {
        let events = Events::new();
        let client = client_with(&["--protocol", "2025-11-25"], &events);
        let server = client.server("t").expect("server t");
        aw!(server.subscribe_resource("test://text")).expect("subscribe");
        aw!(server.subscribe_resource("test://blob")).expect("subscribe");
        aw!(server.unsubscribe_resource("test://blob")).expect("unsubscribe");
        let e = request_error(aw!(client.call_tool("crash", json!({}))));
        assert!(e.is_transport(), "{e:?}");
        let r = aw!(client.call_tool("touch_resource", json!({"uri": "test://text"}))).expect("touch");
        assert_eq!(r.text(), "sent 1", "the restarted process knows the subscription");
        // The hook runs outside the engine lock: it may see the update after the call returned.
        aw!(wait_until("the update as an event", || updates_seen(&events, "test://text") >= 1));
        assert_eq!(updates_seen(&events, "test://text"), 1);
        let r = aw!(client.call_tool("touch_resource", json!({"uri": "test://blob"}))).expect("touch");
        assert_eq!(r.text(), "sent 0", "an unsubscribed resource is not renewed");
        assert_eq!(server.subscribed_resources(), ["test://text"]);
        assert!(!events.any(|e| matches!(e, Event::ResourceSubscriptionDropped { .. })));
        aw!(client.close());
    }

    /// A restarted process that no longer declares `resources.subscribe` drops the
    /// subscription: the event hook sees why, and `subscribed_resources()` follows.
    pub $($kw)? fn a_refused_renewal_drops_the_subscription() {
        let marker = support::TempDir::new("no-subscribe");
        let flag = marker.path().join("next-process-refuses");
        let flag_str = flag.to_str().expect("UTF-8 path").to_owned();
        let events = Events::new();
        let client = client_with(&["--protocol", "2025-11-25", "--no-subscribe-if-exists", &flag_str], &events);
        let server = client.server("t").expect("server t");
        aw!(server.subscribe_resource("test://text")).expect("subscribe");
        marker.write("next-process-refuses", b"");
        let e = request_error(aw!(client.call_tool("crash", json!({}))));
        assert!(e.is_transport(), "{e:?}");
        let r = aw!(client.call_tool("touch_resource", json!({"uri": "test://text"}))).expect("touch");
        assert_eq!(r.text(), "sent 0");
        aw!(wait_until("the dropped subscription as an event", || {
            events.any(|e| matches!(e, Event::ResourceSubscriptionDropped { .. }))
        }));
        let dropped: Vec<_> = events
            .snapshot()
            .into_iter()
            .filter_map(|(_, e)| match e {
                Event::ResourceSubscriptionDropped { uri, reason } => Some((uri, reason)),
                _ => None,
            })
            .collect();
        assert_eq!(
            dropped,
            [(
                "test://text".to_owned(),
                RequestError::CapabilityMissing { capability: "resources.subscribe", method: "resources/subscribe" }
            )]
        );
        assert!(server.subscribed_resources().is_empty());
        aw!(client.close());
    }
}
    };
}

/// Generates the `#[test]`s of [`define_push_scenarios!`]: `all_push_scenario_tests!(run)`.
#[macro_export]
macro_rules! all_push_scenario_tests {
    ($run:path) => {
        $crate::scenario_tests!(push_scenarios, $run;
            listen_delivers_and_closes, listen_ends_from_the_server, listen_refusals_and_ack_timeout,
            listen_survives_a_restart, listen_flood_is_bounded, resource_subscriptions_in_both_eras,
            resource_subscriptions_survive_a_restart, a_refused_renewal_drops_the_subscription);
    };
}
