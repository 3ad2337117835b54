//! Listen streams (`subscriptions/listen`) over stdio and HTTP, and legacy resource
//! subscriptions: acknowledgments, routing by subscription id, the ack timeout, closing,
//! the graceful end, re-opening after a drop or a restart, and the era/capability rules.

use serde_json::{json, Value};

use super::harness::*;
use super::http_harness::*;
use mcpwire_core::{
    Event, Notification, Request, RequestError, RequestHandle, Response, SubscriptionFilter,
    SubscriptionUpdate, Warning,
};

fn listen(filter: SubscriptionFilter) -> Request {
    Request::listen(filter)
}

fn ack(id: &Value, notifications: Value) -> Value {
    json!({
        "jsonrpc": "2.0",
        "method": "notifications/subscriptions/acknowledged",
        "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": id}, "notifications": notifications},
    })
}

fn tagged(id: &Value, method: &str, mut params: Value) -> Value {
    params["_meta"] = json!({"io.modelcontextprotocol/subscriptionId": id});
    json!({"jsonrpc": "2.0", "method": method, "params": params})
}

impl Harness {
    fn updates(&mut self, h: RequestHandle) -> Vec<SubscriptionUpdate> {
        let mut out = Vec::new();
        while let Some(Event::Subscription { update, .. }) =
            self.take_event(|e| matches!(e, Event::Subscription { handle, .. } if *handle == h))
        {
            out.push(update);
        }
        out
    }

    fn take_ack(&mut self, h: RequestHandle) -> (SubscriptionFilter, SubscriptionFilter) {
        match self.updates(h).as_slice() {
            [SubscriptionUpdate::Acknowledged { granted, unsupported }] => {
                (granted.clone(), unsupported.clone())
            }
            other => panic!("expected one acknowledgment, got {other:?}"),
        }
    }
}

/// A modern stdio harness with an acknowledged listen for tools and `file:///a`.
fn listening() -> (Harness, RequestHandle, Value) {
    let mut h = connected(false);
    let l = h.request(listen(SubscriptionFilter::new().tools_list_changed().resource("file:///a")));
    let sent = h.expect_sent("subscriptions/listen");
    assert_eq!(
        sent["params"]["notifications"],
        json!({"toolsListChanged": true, "resourceSubscriptions": ["file:///a"]})
    );
    assert_modern_meta(&sent);
    let id = sent["id"].clone();
    h.server_says(ack(&id, json!({"toolsListChanged": true, "resourceSubscriptions": ["file:///a"]})));
    let (granted, unsupported) = h.take_ack(l);
    assert_eq!(granted, SubscriptionFilter::new().tools_list_changed().resource("file:///a"));
    assert!(unsupported.is_empty());
    h.assert_quiet();
    (h, l, id)
}

#[test]
fn listen_is_acknowledged_and_carries_its_notifications() {
    let (mut h, l, id) = listening();
    assert_eq!(h.next_timer_in(), None, "an acknowledged stream has no deadline");
    h.server_says(tagged(&id, "notifications/resources/updated", json!({"uri": "file:///a"})));
    h.server_says(tagged(&id, "notifications/tools/list_changed", json!({})));
    assert_eq!(
        h.updates(l),
        [
            SubscriptionUpdate::Notification(Notification::ResourceUpdated { uri: "file:///a".into() }),
            SubscriptionUpdate::Notification(Notification::ListChanged(mcpwire_core::ListKind::Tools)),
        ]
    );
    // An untagged notification is an ordinary one.
    h.notify("notifications/resources/updated", json!({"uri": "file:///b"}));
    assert!(matches!(h.events().as_slice(), [Event::Notification(Notification::ResourceUpdated { .. })]));
    h.assert_quiet();
    assert!(!h.has_response(l));
}

#[test]
fn a_list_changed_on_a_stream_drops_the_cache_first() {
    let (mut h, _l, id) = listening();
    let t = h.request(Request::ListTools);
    let page = h.expect_sent("tools/list");
    let mut result = tools_page(&["a"], None);
    result["ttlMs"] = json!(60_000);
    h.reply(&page, result);
    assert_eq!(tool_names(h.ok(t)), ["a"]);
    let cached = h.request(Request::ListTools);
    assert_eq!(tool_names(h.ok(cached)), ["a"]);
    h.server_says(tagged(&id, "notifications/tools/list_changed", json!({})));
    h.events();
    let again = h.request(Request::ListTools);
    h.expect_sent("tools/list");
    assert!(!h.has_response(again));
}

#[test]
fn unsupported_is_read_from_the_acknowledged_values() {
    let mut h = connected(false);
    let filter = SubscriptionFilter::new()
        .tools_list_changed()
        .prompts_list_changed()
        .resource("file:///a")
        .resource("file:///b");
    let l = h.request(listen(filter));
    let id = h.expect_sent("subscriptions/listen")["id"].clone();
    h.server_says(ack(&id, json!({"toolsListChanged": false, "promptsListChanged": true, "resourceSubscriptions": ["file:///b", 3]})));
    let (granted, unsupported) = h.take_ack(l);
    assert_eq!(granted, SubscriptionFilter::new().prompts_list_changed().resource("file:///b"));
    assert_eq!(unsupported, SubscriptionFilter::new().tools_list_changed().resource("file:///a"));
    assert!(!h.has_response(l), "a partial grant keeps an ordinary listen open");
}

#[test]
fn a_required_grant_that_is_partial_ends_the_stream() {
    let mut h = connected(false);
    let l = h.request(Request::Listen {
        filter: SubscriptionFilter::new().resource("file:///a"),
        require_all: true,
    });
    let id = h.expect_sent("subscriptions/listen")["id"].clone();
    h.server_says(ack(&id, json!({})));
    let cancel = h.expect_sent("notifications/cancelled");
    assert_eq!(cancel["params"]["requestId"], id);
    assert!(matches!(h.err(l), RequestError::SubscriptionRefused { .. }));
    // Late notifications of the closed stream are dropped quietly.
    h.server_says(tagged(&id, "notifications/resources/updated", json!({"uri": "file:///a"})));
    h.events();
    h.assert_quiet();
}

#[test]
fn the_ack_timeout_cancels_and_ends_the_listen() {
    let mut h = connected(false);
    let o = opts().timeout(secs(2));
    let l = h.request_opts(listen(SubscriptionFilter::new().tools_list_changed()), o);
    let id = h.expect_sent("subscriptions/listen")["id"].clone();
    h.advance(secs(2));
    let cancel = h.expect_sent("notifications/cancelled");
    assert_eq!(cancel["params"]["requestId"], id);
    assert_eq!(h.err(l), RequestError::Timeout { after: secs(2) });
}

#[test]
fn close_cancels_on_the_wire_and_drops_what_follows() {
    let (mut h, l, id) = listening();
    assert!(h.cancel(l));
    let cancel = h.expect_sent("notifications/cancelled");
    assert_eq!(cancel["params"]["requestId"], id);
    assert_eq!(h.err(l), RequestError::Cancelled);
    h.server_says(tagged(&id, "notifications/tools/list_changed", json!({})));
    assert!(h.warnings().is_empty());
    h.assert_quiet();
}

#[test]
fn a_graceful_end_is_validated() {
    let (mut h, l, id) = listening();
    h.server_says(json!({"jsonrpc": "2.0", "id": id, "result": {"resultType": "complete", "_meta": {"io.modelcontextprotocol/subscriptionId": id}}}));
    assert_eq!(h.ok(l), Response::ListenEnded);

    for (result, expected) in [
        (json!({"resultType": "input_required", "inputRequests": {}}), "input_required"),
        (json!({"resultType": "later"}), "later"),
    ] {
        let (mut h, l, id) = listening();
        h.server_says(json!({"jsonrpc": "2.0", "id": id, "result": result}));
        assert_eq!(h.err(l), RequestError::UnsupportedResultType { result_type: expected.into() });
    }
    let (mut h, l, id) = listening();
    h.server_says(json!({"jsonrpc": "2.0", "id": id, "result": 7}));
    assert!(matches!(h.err(l), RequestError::InvalidResponse { .. }));
}

#[test]
fn a_server_cancellation_ends_the_stream() {
    let (mut h, l, id) = listening();
    h.notify("notifications/cancelled", json!({"requestId": id, "reason": "shutting down"}));
    match h.err(l) {
        RequestError::StreamClosed { detail } => assert!(detail.contains("shutting down"), "{detail}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn unknown_subscription_ids_are_warned_about() {
    let (mut h, l, _id) = listening();
    h.server_says(tagged(&json!("nope"), "notifications/tools/list_changed", json!({})));
    assert!(matches!(h.warnings().as_slice(), [Warning::UnknownSubscription { .. }]));
    h.server_says(json!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged", "params": {"notifications": {}}}));
    assert!(matches!(h.warnings().as_slice(), [Warning::InvalidMessage { .. }]));
    assert!(h.updates(l).is_empty());
}

#[test]
fn a_process_exit_restarts_at_once_and_listens_again() {
    let (mut h, l, _id) = listening();
    h.advance(secs(5));
    h.exited(exit_code(1));
    h.eof();
    assert!(matches!(h.take_disconnected(), RequestError::TransportClosed { .. }));
    assert!(matches!(h.updates(l).as_slice(), [SubscriptionUpdate::Reconnecting { .. }]));
    // Restarted without a host request.
    h.start();
    h.modern_handshake(discover_ok());
    let again = h.expect_sent("subscriptions/listen");
    assert_eq!(
        again["params"]["notifications"],
        json!({"toolsListChanged": true, "resourceSubscriptions": ["file:///a"]})
    );
    let id = again["id"].clone();
    // The re-listen has its own acknowledgment deadline.
    assert_eq!(h.next_timer_in(), Some(h.conn.config().timeouts.request));
    h.server_says(ack(&id, json!({"toolsListChanged": true})));
    let (_, unsupported) = h.take_ack(l);
    assert_eq!(unsupported, SubscriptionFilter::new().resource("file:///a"));
    h.server_says(tagged(&id, "notifications/tools/list_changed", json!({})));
    assert_eq!(h.updates(l).len(), 1);
    assert!(!h.has_response(l));
}

#[test]
fn a_process_that_dies_right_after_the_listen_ends_it() {
    let (mut h, l, _id) = listening();
    h.advance(ms(200));
    h.exited(exit_code(1));
    h.eof();
    h.take_disconnected();
    assert!(matches!(h.err(l), RequestError::TransportClosed { .. }));
    assert!(h.io().is_empty(), "no restart for a listen that crashed its server");
}

#[test]
fn a_replacement_that_speaks_a_handshake_revision_ends_the_listen() {
    let (mut h, l, _id) = listening();
    h.advance(secs(5));
    h.exited(exit_code(1));
    h.eof();
    h.take_disconnected();
    h.start();
    h.legacy_handshake("2025-11-25", json!({}));
    assert!(matches!(h.err(l), RequestError::Unsupported { .. }));
}

#[test]
fn listen_and_resource_subscriptions_follow_the_era() {
    let mut h = connected(true);
    let l = h.request(listen(SubscriptionFilter::new().tools_list_changed()));
    assert!(matches!(h.err(l), RequestError::Unsupported { .. }));
    let s = h.request(Request::SubscribeResource { uri: "file:///a".into() });
    assert_eq!(
        h.err(s),
        RequestError::CapabilityMissing { capability: "resources.subscribe", method: "resources/subscribe" }
    );
    h.assert_quiet();

    let mut h = Harness::auto();
    let c = h.request(Request::Connect);
    h.start();
    h.legacy_handshake("2025-11-25", json!({"resources": {"subscribe": true}}));
    h.ok(c);
    let s = h.request(Request::SubscribeResource { uri: "file:///a".into() });
    let sent = h.expect_sent("resources/subscribe");
    assert_eq!(sent["params"], json!({"uri": "file:///a"}));
    h.reply(&sent, json!({}));
    assert_eq!(h.ok(s), Response::Empty);
    let u = h.request(Request::UnsubscribeResource { uri: "file:///a".into() });
    let sent = h.expect_sent("resources/unsubscribe");
    h.reply(&sent, json!({}));
    assert_eq!(h.ok(u), Response::Empty);

    let mut h = connected(false);
    let s = h.request(Request::SubscribeResource { uri: "file:///a".into() });
    assert!(matches!(h.err(s), RequestError::Unsupported { .. }));
}

// ----- HTTP -----------------------------------------------------------------------------------

fn http_listening() -> (Harness, RequestHandle, mcpwire_core::ExchangeId, Value) {
    let mut h = modern_http();
    let l = h.request(listen(SubscriptionFilter::new().resource("file:///a")));
    let post = h.expect_http("subscriptions/listen");
    assert_eq!(post.header("Mcp-Method"), Some("subscriptions/listen"));
    let id = post.json()["id"].clone();
    h.sse_open(post.id, &sse_message(None, &ack(&id, json!({"resourceSubscriptions": ["file:///a"]}))));
    h.take_ack(l);
    (h, l, post.id, id)
}

#[test]
fn http_listen_streams_its_notifications() {
    let (mut h, l, ex, id) = http_listening();
    let n = tagged(&id, "notifications/resources/updated", json!({"uri": "file:///a"}));
    h.body(ex, sse_message(None, &n).as_bytes());
    assert_eq!(
        h.updates(l),
        [SubscriptionUpdate::Notification(Notification::ResourceUpdated { uri: "file:///a".into() })]
    );
    // Closing the stream is the cancellation: no notification is posted.
    assert!(h.cancel(l));
    assert_eq!(h.aborted(), [ex]);
    assert!(h.started_http().is_empty());
    assert_eq!(h.err(l), RequestError::Cancelled);
}

#[test]
fn http_listen_reopens_after_a_drop_or_a_server_error() {
    let (mut h, l, ex, _id) = http_listening();
    h.end(ex);
    assert!(matches!(h.updates(l).as_slice(), [SubscriptionUpdate::Reconnecting { .. }]));
    assert!(h.started_http().is_empty(), "the re-open waits for its backoff");
    let wait = h.fire_next_timer();
    assert!(wait >= ms(750) && wait <= ms(1250), "{wait:?}");
    let again = h.expect_http("subscriptions/listen");
    h.respond_http(again.id, 503, &[], b"busy");
    assert!(matches!(
        h.updates(l).as_slice(),
        [SubscriptionUpdate::Reconnecting { reason: RequestError::TransientServer { status: 503, .. } }]
    ));
    let wait = h.fire_next_timer();
    assert!(wait >= ms(1500) && wait <= ms(2500), "backoff grows: {wait:?}");
    let third = h.expect_http("subscriptions/listen");
    let id = third.json()["id"].clone();
    h.sse_open(third.id, &sse_message(None, &ack(&id, json!({"resourceSubscriptions": ["file:///a"]}))));
    h.take_ack(l);
    assert!(!h.has_response(l));
}

#[test]
fn http_listen_refused_with_a_4xx_ends() {
    let (mut h, l, ex, _id) = http_listening();
    h.end(ex);
    h.updates(l);
    h.fire_next_timer();
    let again = h.expect_http("subscriptions/listen");
    h.respond_http(again.id, 403, &[], b"no");
    assert!(matches!(h.err(l), RequestError::Unauthorized { status: 403, .. }));
    let mut h = modern_http();
    let l = h.request(listen(SubscriptionFilter::new().tools_list_changed()));
    let post = h.expect_http("subscriptions/listen");
    h.respond_http(post.id, 404, &[], b"not here");
    assert!(matches!(h.err(l), RequestError::Http { status: 404, .. }));
}

#[test]
fn notifications_a_stream_did_not_ask_for_are_dropped_counted_and_warned_about_once() {
    let (mut h, l, id) = listening();
    let t = h.request(Request::ListTools);
    let page = h.expect_sent("tools/list");
    let mut result = tools_page(&["a"], None);
    result["ttlMs"] = json!(60_000);
    h.reply(&page, result);
    h.ok(t);
    h.events();
    // An unrequested URI, an unrequested list kind, a task id and methods a stream never
    // carries: each dropped, and the caches they would invalidate are kept.
    h.server_says(tagged(&id, "notifications/resources/updated", json!({"uri": "file:///b"})));
    h.server_says(tagged(&id, "notifications/prompts/list_changed", json!({})));
    h.server_says(tagged(&id, "notifications/tasks", json!({"taskId": "t9", "status": "working"})));
    h.server_says(tagged(&id, "notifications/message", json!({"level": "info", "data": "x"})));
    h.server_says(tagged(&id, "notifications/custom/thing", json!({"a": 1})));
    assert_eq!(
        h.warnings(),
        [Warning::UnrequestedNotification { method: "notifications/resources/updated".into() }],
        "one warning per stream"
    );
    let methods = [
        "notifications/resources/updated",
        "notifications/prompts/list_changed",
        "notifications/tasks",
        "notifications/message",
        "notifications/custom/thing",
    ];
    let expected: Vec<SubscriptionUpdate> = methods
        .iter()
        .zip(1..)
        .map(|(m, count)| SubscriptionUpdate::Unrequested { method: (*m).into(), count })
        .collect();
    assert_eq!(h.updates(l), expected);
    let cached = h.request(Request::ListTools);
    assert_eq!(tool_names(h.ok(cached)), ["a"], "a dropped notification invalidates nothing");
    // What was asked for still passes: the URI, a sub-resource of it, the list kind.
    h.server_says(tagged(&id, "notifications/resources/updated", json!({"uri": "file:///a"})));
    h.server_says(tagged(&id, "notifications/resources/updated", json!({"uri": "file:///a/part"})));
    h.server_says(tagged(&id, "notifications/tools/list_changed", json!({})));
    assert_eq!(
        h.updates(l),
        [
            SubscriptionUpdate::Notification(Notification::ResourceUpdated { uri: "file:///a".into() }),
            SubscriptionUpdate::Notification(Notification::ResourceUpdated { uri: "file:///a/part".into() }),
            SubscriptionUpdate::Notification(Notification::ListChanged(mcpwire_core::ListKind::Tools)),
        ]
    );
    h.server_says(tagged(&id, "notifications/prompts/list_changed", json!({})));
    assert!(h.warnings().is_empty(), "no second warning on the same stream");
    assert_eq!(
        h.updates(l),
        [SubscriptionUpdate::Unrequested { method: "notifications/prompts/list_changed".into(), count: 6 }]
    );
    // A second stream warns on its own first drop; untagged notifications are not filtered.
    let other = h.request(listen(SubscriptionFilter::new().prompts_list_changed()));
    let other_id = h.expect_sent("subscriptions/listen")["id"].clone();
    h.server_says(ack(&other_id, json!({"promptsListChanged": true})));
    h.take_ack(other);
    h.server_says(tagged(&other_id, "notifications/tools/list_changed", json!({})));
    assert!(matches!(h.warnings().as_slice(), [Warning::UnrequestedNotification { .. }]));
    assert_eq!(
        h.updates(other),
        [SubscriptionUpdate::Unrequested { method: "notifications/tools/list_changed".into(), count: 1 }]
    );
    h.notify("notifications/prompts/list_changed", json!({}));
    assert!(matches!(
        h.events().as_slice(),
        [Event::Notification(Notification::ListChanged(mcpwire_core::ListKind::Prompts))]
    ));
    h.assert_quiet();
}

#[test]
fn a_granted_extra_does_not_widen_the_stream_and_a_server_cancellation_still_ends_it() {
    let mut h = connected(false);
    let l = h.request(listen(SubscriptionFilter::new().task("t1")));
    let id = h.expect_sent("subscriptions/listen")["id"].clone();
    h.server_says(ack(&id, json!({"taskIds": ["t1"], "toolsListChanged": true})));
    h.take_ack(l);
    h.server_says(tagged(&id, "notifications/tools/list_changed", json!({})));
    h.server_says(tagged(&id, "notifications/tasks", json!({"taskId": "t1", "status": "working"})));
    let updates = h.updates(l);
    assert!(matches!(updates[0], SubscriptionUpdate::Unrequested { count: 1, .. }), "{updates:?}");
    assert!(
        matches!(&updates[1], SubscriptionUpdate::Notification(Notification::Other { method, .. }) if method == "notifications/tasks"),
        "{updates:?}"
    );
    h.warnings();
    h.server_says(tagged(&id, "notifications/cancelled", json!({"requestId": id, "reason": "bye"})));
    assert!(matches!(h.err(l), RequestError::StreamClosed { .. }));
}
