//! Roots the connection holds (`ConnectionConfig::roots`): `roots/list` answered without the
//! host, `Connection::set_roots` while connected (legacy: `notifications/roots/list_changed`
//! when `roots.listChanged` was declared; 2026-07-28: no notification, the next input request
//! gets the new list).

use serde_json::{json, Value};

use super::harness::*;
use mcpwire_core::types::Root;
use mcpwire_core::{ClientFeatures, CommandError, Event, ProtocolMode};

fn held(roots: &[(&str, &str)]) -> Vec<Root> {
    roots.iter().map(|(uri, name)| Root::named(*uri, *name)).collect()
}

fn harness(roots: Option<Vec<Root>>, list_changed: bool) -> Harness {
    Harness::with(ProtocolMode::Auto, |c| {
        c.features = ClientFeatures::default().roots(true).roots_list_changed(list_changed);
        c.roots = roots;
    })
}

fn ask_roots(h: &mut Harness, id: u64) -> Value {
    h.server_says(json!({"jsonrpc": "2.0", "id": id, "method": "roots/list"}));
    let sent = h.sent();
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_eq!(sent[0]["id"], json!(id));
    sent[0]["result"].clone()
}

fn no_host_request(h: &mut Harness) {
    assert!(h.take_event(|e| matches!(e, Event::ServerRequest { .. })).is_none(), "the host was not asked");
}

#[test]
fn legacy_roots_change_with_a_notification() {
    let mut h = harness(Some(held(&[("file:///a", "a")])), true);
    let r = h.request(mcpwire_core::Request::Connect);
    h.start();
    let probe = h.expect_sent("server/discover");
    h.reply_error(&probe, -32601, "Method not found", None);
    let init = h.expect_sent("initialize");
    assert_eq!(init["params"]["capabilities"]["roots"], json!({"listChanged": true}));
    h.reply(&init, init_result("2025-11-25", baseline_caps()));
    h.expect_sent("notifications/initialized");
    h.ok(r);
    h.take_connected();

    assert_eq!(ask_roots(&mut h, 1), json!({"roots": [{"uri": "file:///a", "name": "a"}]}));
    no_host_request(&mut h);

    let now = h.now;
    h.conn.set_roots(now, held(&[("file:///b", "b"), ("file:///c", "c")])).expect("held roots change");
    h.drain();
    assert_eq!(h.sent(), vec![json!({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"})]);
    assert_eq!(
        ask_roots(&mut h, 2),
        json!({"roots": [{"uri": "file:///b", "name": "b"}, {"uri": "file:///c", "name": "c"}]})
    );
    assert_eq!(h.conn.roots().map(<[Root]>::len), Some(2));

    // The same list again: nothing to tell.
    h.conn.set_roots(now, held(&[("file:///b", "b"), ("file:///c", "c")])).expect("unchanged");
    h.drain();
    assert!(h.sent().is_empty());
    no_host_request(&mut h);
}

#[test]
fn no_notification_without_list_changed() {
    let mut h = harness(Some(held(&[("file:///a", "a")])), false);
    h.connect_legacy();
    let now = h.now;
    h.conn.set_roots(now, Vec::new()).expect("held roots change");
    h.drain();
    assert!(h.sent().is_empty(), "roots.listChanged was not declared");
    assert_eq!(ask_roots(&mut h, 1), json!({"roots": []}));
}

#[test]
fn roots_set_before_connecting_are_the_ones_served() {
    let mut h = harness(Some(Vec::new()), true);
    let now = h.now;
    h.conn.set_roots(now, held(&[("file:///early", "early")])).expect("kept for later");
    h.drain();
    assert!(h.io().is_empty(), "nothing to send before the connection is up");
    h.connect_legacy();
    assert_eq!(ask_roots(&mut h, 1), json!({"roots": [{"uri": "file:///early", "name": "early"}]}));
}

#[test]
fn modern_servers_get_the_new_list_when_they_ask_again() {
    let mut h = harness(Some(held(&[("file:///a", "a")])), true);
    let r = h.request(mcpwire_core::Request::Connect);
    h.start();
    let probe = h.expect_sent("server/discover");
    let caps = &probe["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"];
    assert_eq!(caps["roots"], json!({}), "2026-07-28 roots have no listChanged: {caps}");
    h.reply(&probe, discover_ok());
    h.ok(r);
    h.take_connected();

    let ask = json!({"resultType": "input_required", "inputRequests": {"r": {"method": "roots/list"}},
                     "requestState": "s1"});
    let call1 = h.request(call("where", json!({})));
    let first = h.expect_sent("tools/call");
    h.reply(&first, ask.clone());
    let retry = h.expect_sent("tools/call");
    assert_eq!(retry["params"]["inputResponses"]["r"], json!({"roots": [{"uri": "file:///a", "name": "a"}]}));
    no_host_request(&mut h);
    h.reply(&retry, text_result("a"));
    h.ok(call1);

    let now = h.now;
    h.conn.set_roots(now, held(&[("file:///z", "z")])).expect("held roots change");
    h.drain();
    assert!(h.sent().is_empty(), "no notification on 2026-07-28");

    let call2 = h.request(call("where", json!({})));
    let first = h.expect_sent("tools/call");
    h.reply(&first, ask);
    let retry = h.expect_sent("tools/call");
    assert_eq!(retry["params"]["inputResponses"]["r"], json!({"roots": [{"uri": "file:///z", "name": "z"}]}));
    assert_eq!(retry["params"]["requestState"], json!("s1"));
    h.reply(&retry, text_result("z"));
    h.ok(call2);
}

#[test]
fn roots_answered_by_a_handler_cannot_be_set() {
    let mut h = harness(None, false);
    h.connect_legacy();
    let now = h.now;
    assert_eq!(h.conn.set_roots(now, Vec::new()), Err(CommandError::RootsNotManaged));
    assert_eq!(h.conn.roots(), None);
    // The handler still answers.
    h.server_says(json!({"jsonrpc": "2.0", "id": 1, "method": "roots/list"}));
    let (handle, _) = h.take_server_request();
    assert!(h.respond(handle, Ok(json!({"roots": []}))));
    h.close();
    let now = h.now;
    let mut held = harness(Some(Vec::new()), true);
    held.close();
    assert_eq!(held.conn.set_roots(now, Vec::new()), Err(CommandError::Closed));
}

#[test]
fn held_roots_refuse_params_that_do_not_decode() {
    let mut h = harness(Some(Vec::new()), true);
    h.connect_legacy();
    h.server_says(json!({"jsonrpc": "2.0", "id": 1, "method": "roots/list", "params": [1]}));
    let sent = h.sent();
    assert_eq!((&sent[0]["id"], &sent[0]["error"]["code"]), (&json!(1), &json!(-32602)), "{sent:?}");
    assert!(matches!(&h.warnings()[..], [mcpwire_core::Warning::ServerRequestRefused { .. }]));
    no_host_request(&mut h);
}
