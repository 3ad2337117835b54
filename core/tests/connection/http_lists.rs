//! Legacy list caching over HTTP: a list is cached on a `listChanged` promise only while the
//! server has a channel to keep it (the GET stream of Streamable HTTP, the HTTP+SSE stream);
//! plain HTTP and a refused or abandoned GET stream leave nothing to invalidate the cache.

use serde_json::json;

use mcpwire_core::mcp_servers::TransportKind;
use mcpwire_core::{ProtocolMode, Request, Warning};

use crate::harness::{init_result, tool_names, tools_page, Harness};
use crate::http_harness::{http_config, legacy_http};

/// Lists tools once; returns whether the request reached the server.
fn list_tools(h: &mut Harness) -> bool {
    let r = h.request(Request::ListTools);
    let sent = h.started_http();
    match sent.as_slice() {
        [] => {
            assert_eq!(tool_names(h.ok(r)), vec!["a"]);
            false
        }
        [one] => {
            assert_eq!(one.method(), "tools/list");
            h.reply_http(one, tools_page(&["a"], None));
            assert_eq!(tool_names(h.ok(r)), vec!["a"]);
            true
        }
        more => panic!("one tools/list expected, got {more:#?}"),
    }
}

#[test]
fn with_an_open_get_stream_the_promise_is_cached_on() {
    let (mut h, _listen) = legacy_http();
    assert!(list_tools(&mut h));
    assert!(!list_tools(&mut h), "served from the cache");
}

#[test]
fn plain_http_lists_are_never_cached() {
    let mut cfg = http_config("http://srv.test/rpc", &[TransportKind::PlainHttp]);
    cfg.protocol = ProtocolMode::Legacy;
    let mut h = Harness::new(cfg);
    let c = h.request(Request::Connect);
    let init = h.expect_http("initialize");
    h.reply_http(&init, init_result("2025-06-18", json!({"tools": {"listChanged": true}})));
    let initialized = h.expect_http("notifications/initialized");
    h.accepted(&initialized);
    h.take_connected();
    h.ok(c);
    assert!(list_tools(&mut h));
    assert!(list_tools(&mut h), "no channel for list_changed: asked again");
}

#[test]
fn a_refused_get_stream_means_lists_are_not_cached() {
    let mut h = Harness::new(http_config("http://srv.test/mcp", &[]));
    let c = h.request(Request::Connect);
    let listen = h.http_connect_legacy();
    h.respond_http(listen.id, 405, &[], b"");
    h.ok(c);
    assert!(list_tools(&mut h));
    assert!(list_tools(&mut h), "no GET stream: asked again");
}

#[test]
fn giving_up_the_get_stream_drops_the_lists_cached_on_it() {
    let (mut h, listen) = legacy_http();
    assert!(list_tools(&mut h));
    assert!(!list_tools(&mut h));
    h.end(listen.id);
    // Every reconnection fails until the client gives the stream up.
    while h.next_timer_in().is_some() {
        h.fire_next_timer();
        let again = h.expect_http("GET");
        h.http_fail(again.id, "connection refused");
    }
    assert!(h.warnings().iter().any(|w| matches!(w, Warning::Http { detail } if detail.contains("gave up"))));
    assert!(list_tools(&mut h), "the cached list was dropped");
    assert!(list_tools(&mut h), "and is not cached again");
}

#[test]
fn a_reconnecting_get_stream_still_keeps_the_cache() {
    let (mut h, listen) = legacy_http();
    assert!(list_tools(&mut h));
    h.end(listen.id);
    assert!(!list_tools(&mut h), "a stream being reopened (Last-Event-ID) can still deliver list_changed");
}
