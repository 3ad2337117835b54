//! List requests: pagination and its bounds, item decoding, caching and invalidation.

use serde_json::{json, Value};

use super::harness::*;
use mcpwire_core::{Event, ListKind, Notification, ProtocolMode, Request, RequestError, Response, Warning};

// ----- pagination ---------------------------------------------------------------------------

#[test]
fn pagination_follows_next_cursor_under_one_handle_with_new_wire_ids() {
    for legacy in [false, true] {
        let mut h = connected(legacy);
        let r = h.request(Request::ListTools);
        let p1 = h.expect_sent("tools/list");
        assert!(p1["params"].get("cursor").is_none());
        h.reply(&p1, tools_page(&["a", "b"], Some("c1")));
        assert!(!h.has_response(r));
        let p2 = h.expect_sent("tools/list");
        assert_eq!(p2["params"]["cursor"], json!("c1"));
        h.reply(&p2, tools_page(&["c"], Some("c2")));
        let p3 = h.expect_sent("tools/list");
        assert_eq!(p3["params"]["cursor"], json!("c2"));
        let ids: std::collections::BTreeSet<_> =
            [&p1, &p2, &p3].iter().map(|m| m["id"].to_string()).collect();
        assert_eq!(ids.len(), 3, "each page has its own wire id");
        for p in [&p1, &p2, &p3] {
            assert_eq!(has_modern_meta(p), !legacy, "{p}");
        }
        h.reply(&p3, tools_page(&["d"], None));
        assert_eq!(tool_names(h.ok(r)), vec!["a", "b", "c", "d"]);
        assert_eq!(h.conn.known_tools().map(<[_]>::len), Some(4));
        // An answer to an earlier page's id is late.
        h.reply(&p1, tools_page(&[], None));
        assert!(matches!(&h.warnings()[..], [Warning::LateResponse { .. }]));
        h.assert_quiet();
        h.assert_all_answered();
    }
}

#[test]
fn pagination_stops_on_a_repeated_cursor() {
    let mut h = connected(false);
    let r = h.request(Request::ListTools);
    let p1 = h.expect_sent("tools/list");
    h.reply(&p1, tools_page(&["a"], Some("same")));
    let p2 = h.expect_sent("tools/list");
    h.reply(&p2, tools_page(&["b"], Some("same")));
    let e = h.err(r);
    assert!(matches!(&e, RequestError::Pagination { detail } if detail.contains("repeated")), "{e:?}");
    h.assert_quiet();
    assert_eq!(h.conn.known_tools(), None);
}

#[test]
fn pagination_is_bounded_by_max_list_pages() {
    let mut h = Harness::with(ProtocolMode::Auto, |c| c.limits.max_list_pages = 2);
    h.connect_modern();
    // Exactly the bound: fine.
    let ok = h.request(Request::ListTools);
    let p = h.expect_sent("tools/list");
    h.reply(&p, tools_page(&["a"], Some("1")));
    let p = h.expect_sent("tools/list");
    h.reply(&p, tools_page(&["b"], None));
    assert_eq!(tool_names(h.ok(ok)), vec!["a", "b"]);
    // One more page wanted: stop.
    let r = h.request(Request::ListTools);
    let p = h.expect_sent("tools/list");
    h.reply(&p, tools_page(&["a"], Some("1")));
    let p = h.expect_sent("tools/list");
    h.reply(&p, tools_page(&["b"], Some("2")));
    let e = h.err(r);
    assert!(matches!(&e, RequestError::Pagination { detail } if detail.contains("2 pages")), "{e:?}");
    h.assert_quiet();
}

#[test]
fn pagination_is_bounded_by_max_list_items() {
    let mut h = Harness::with(ProtocolMode::Auto, |c| c.limits.max_list_items = 3);
    h.connect_modern();
    let ok = h.request(Request::ListTools);
    let p = h.expect_sent("tools/list");
    h.reply(&p, tools_page(&["a", "b"], Some("1")));
    let p = h.expect_sent("tools/list");
    h.reply(&p, tools_page(&["c"], None));
    assert_eq!(tool_names(h.ok(ok)).len(), 3);

    let r = h.request(Request::ListTools);
    let p = h.expect_sent("tools/list");
    h.reply(&p, tools_page(&["a", "b"], Some("1")));
    let p = h.expect_sent("tools/list");
    h.reply(&p, tools_page(&["c", "d"], Some("2")));
    let e = h.err(r);
    assert!(matches!(&e, RequestError::Pagination { detail } if detail.contains("3 items")), "{e:?}");
    h.assert_quiet();

    // A single oversize page is refused too.
    let r = h.request(Request::ListTools);
    let p = h.expect_sent("tools/list");
    h.reply(&p, tools_page(&["a", "b", "c", "d"], None));
    assert!(matches!(h.err(r), RequestError::Pagination { .. }));
}

#[test]
fn invalid_list_items_are_skipped_with_a_warning() {
    let mut h = connected(false);
    let r = h.request(Request::ListTools);
    let p = h.expect_sent("tools/list");
    h.reply(&p, json!({"tools": [tool("a"), {"name": "no-schema"}, 5, tool("c")]}));
    let events = h.events();
    assert_eq!(events.len(), 3, "{events:#?}");
    for ev in &events[..2] {
        assert!(matches!(ev, Event::Warning(Warning::InvalidListItem { list: "tools", .. })), "{ev:?}");
    }
    let Event::Response { handle, result: Ok(resp) } = events[2].clone() else { panic!("{:?}", events[2]) };
    assert_eq!(handle, r);
    assert_eq!(tool_names(resp), vec!["a", "c"]);
}

#[test]
fn malformed_list_pages_are_invalid_responses() {
    for bad in [json!({"tools": "no"}), json!({}), json!({"tools": [], "nextCursor": 7}), json!([1])] {
        let mut h = connected(true);
        let r = h.request(Request::ListTools);
        let p = h.expect_sent("tools/list");
        h.reply(&p, bad.clone());
        assert!(matches!(h.err(r), RequestError::InvalidResponse { .. }), "{bad}");
        h.assert_quiet();
    }
}

#[test]
fn every_list_kind_is_fetched_and_decoded() {
    let mut h = connected(false);
    let r = h.request(Request::ListPrompts);
    let p = h.expect_sent("prompts/list");
    h.reply(&p, json!({"prompts": [{"name": "p1"}], "nextCursor": "x"}));
    let p = h.expect_sent("prompts/list");
    h.reply(&p, json!({"prompts": [{"name": "p2"}]}));
    let Response::Prompts(ps) = h.ok(r) else { panic!() };
    assert_eq!(ps.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(), vec!["p1", "p2"]);

    let r = h.request(Request::ListResources);
    let p = h.expect_sent("resources/list");
    h.reply(&p, json!({"resources": [{"uri": "file:///a", "name": "a"}, {"name": "bad"}]}));
    assert!(matches!(&h.warnings()[..], [Warning::InvalidListItem { list: "resources", .. }]));
    let Response::Resources(rs) = h.ok(r) else { panic!() };
    assert_eq!(rs.len(), 1);

    let r = h.request(Request::ListResourceTemplates);
    let p = h.expect_sent("resources/templates/list");
    h.reply(&p, json!({"resourceTemplates": [{"uriTemplate": "file:///{x}", "name": "t"}]}));
    let Response::ResourceTemplates(ts) = h.ok(r) else { panic!() };
    assert_eq!(ts.len(), 1);
    h.assert_quiet();
    h.assert_all_answered();
}

// ----- caching ------------------------------------------------------------------------------

fn list_once(h: &mut Harness, names: &[&str]) -> Vec<String> {
    let r = h.request(Request::ListTools);
    let p = h.expect_sent("tools/list");
    h.reply(&p, tools_page(names, None));
    tool_names(h.ok(r))
}

#[test]
fn legacy_lists_with_list_changed_are_served_from_cache_until_invalidated() {
    let mut h = Harness::auto();
    h.connect_legacy_with("2025-11-25", json!({"tools": {"listChanged": true}}));
    assert_eq!(list_once(&mut h, &["a"]), vec!["a"]);

    // Served from the cache: answered at once, nothing written.
    let r = h.request(Request::ListTools);
    assert_eq!(tool_names(h.ok(r)), vec!["a"]);
    h.assert_quiet();
    assert_eq!(h.conn.in_flight(), 0);

    // The notification drops the cache before the host hears of it.
    h.notify("notifications/tools/list_changed", json!({}));
    assert_eq!(h.conn.known_tools(), None);
    assert_eq!(h.events(), vec![Event::Notification(Notification::ListChanged(ListKind::Tools))]);
    assert_eq!(list_once(&mut h, &["a", "b"]), vec!["a", "b"]);

    // Cached again; `refresh` bypasses it and refreshes it.
    let r = h.request(Request::ListTools);
    assert_eq!(tool_names(h.ok(r)).len(), 2);
    h.assert_quiet();
    let r = h.request_opts(Request::ListTools, opts().refresh(true));
    let p = h.expect_sent("tools/list");
    h.reply(&p, tools_page(&["c"], None));
    assert_eq!(tool_names(h.ok(r)), vec!["c"]);
    let r = h.request(Request::ListTools);
    assert_eq!(tool_names(h.ok(r)), vec!["c"]);
    h.assert_quiet();
    h.assert_all_answered();
}

#[test]
fn the_list_changed_event_follows_the_invalidation_in_one_batch() {
    // The server sends the notification and another message in one read: by the time the host
    // polls the notification, the cache is already gone.
    let mut h = Harness::auto();
    h.connect_legacy_with("2025-11-25", json!({"tools": {"listChanged": true}}));
    list_once(&mut h, &["a"]);
    let epoch = h.epoch.unwrap();
    h.conn.handle_stdout(
        h.now,
        epoch,
        b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\
          {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"data\":\"x\"}}\n",
    );
    let first = h.conn.poll_event();
    assert_eq!(first, Some(Event::Notification(Notification::ListChanged(ListKind::Tools))));
    assert_eq!(h.conn.known_tools(), None);
    h.conn.request(h.now, Request::ListTools, opts()).unwrap();
    let _ = h.conn.poll_event(); // the log message
    assert!(h.conn.poll_event().is_none(), "the list was not served from the cache");
    assert!(h.conn.poll_io().is_some(), "the list is fetched again");
}

#[test]
fn legacy_lists_without_list_changed_are_not_cached() {
    let mut h = Harness::auto();
    h.connect_legacy_with("2025-11-25", json!({"tools": {}, "prompts": {"listChanged": true}}));
    list_once(&mut h, &["a"]);
    list_once(&mut h, &["a"]);

    // Prompts promise notifications: cached; a resources change does not touch them.
    let r = h.request(Request::ListPrompts);
    let p = h.expect_sent("prompts/list");
    h.reply(&p, json!({"prompts": [{"name": "p"}]}));
    h.ok(r);
    h.notify("notifications/resources/list_changed", json!({}));
    h.events();
    let r = h.request(Request::ListPrompts);
    h.ok(r);
    h.assert_quiet();
    h.notify("notifications/prompts/list_changed", json!({}));
    assert_eq!(h.events(), vec![Event::Notification(Notification::ListChanged(ListKind::Prompts))]);
    h.request(Request::ListPrompts);
    h.expect_sent("prompts/list");
}

#[test]
fn resources_list_changed_drops_resources_and_templates() {
    let mut h = Harness::auto();
    h.connect_legacy_with("2025-11-25", json!({"resources": {"listChanged": true}}));
    for (req, method, key) in [
        (Request::ListResources, "resources/list", "resources"),
        (Request::ListResourceTemplates, "resources/templates/list", "resourceTemplates"),
    ] {
        let r = h.request(req.clone());
        let p = h.expect_sent(method);
        h.reply(&p, json!({ key: [] }));
        h.ok(r);
        let r = h.request(req);
        h.ok(r);
        h.assert_quiet();
    }
    h.notify("notifications/resources/list_changed", json!({}));
    h.events();
    h.request(Request::ListResources);
    h.expect_sent("resources/list");
    h.request(Request::ListResourceTemplates);
    h.expect_sent("resources/templates/list");
}

fn modern_list_with_ttl(h: &mut Harness, ttl: Option<Value>) {
    let r = h.request(Request::ListTools);
    let p = h.expect_sent("tools/list");
    let mut page = tools_page(&["a"], None);
    if let Some(t) = ttl {
        page["ttlMs"] = t;
    }
    h.reply(&p, page);
    h.ok(r);
}

#[test]
fn modern_lists_are_cached_for_their_ttl() {
    let mut h = connected(false);
    modern_list_with_ttl(&mut h, Some(json!(1000)));
    h.advance(ms(999));
    let r = h.request(Request::ListTools);
    assert_eq!(tool_names(h.ok(r)), vec!["a"]);
    h.assert_quiet();
    h.advance(ms(1));
    h.request(Request::ListTools);
    h.expect_sent("tools/list");
}

#[test]
fn modern_lists_with_zero_or_no_ttl_are_not_cached() {
    for ttl in [Some(json!(0)), None, Some(json!(-5)), Some(json!("1000"))] {
        let mut h = connected(false);
        modern_list_with_ttl(&mut h, ttl.clone());
        h.request(Request::ListTools);
        h.expect_sent("tools/list");
    }
}

#[test]
fn modern_list_ttl_is_the_smallest_of_its_pages() {
    let mut h = connected(false);
    let r = h.request(Request::ListTools);
    let p = h.expect_sent("tools/list");
    let mut page = tools_page(&["a"], Some("n"));
    page["ttlMs"] = json!(60_000);
    h.reply(&p, page);
    let p = h.expect_sent("tools/list");
    let mut page = tools_page(&["b"], None);
    page["ttlMs"] = json!(100);
    h.reply(&p, page);
    h.ok(r);
    h.advance(ms(99));
    let r = h.request(Request::ListTools);
    h.ok(r);
    h.advance(ms(1));
    h.request(Request::ListTools);
    h.expect_sent("tools/list");
}

#[test]
fn a_huge_ttl_does_not_overflow_the_clock() {
    let mut h = connected(false);
    modern_list_with_ttl(&mut h, Some(json!(1e300)));
    h.advance(secs(86_400 * 365));
    let r = h.request(Request::ListTools);
    assert_eq!(tool_names(h.ok(r)), vec!["a"]);
    h.assert_quiet();
}
