//! Cached results: `resources/read` per URI, `cacheScope` and the credential a result is bound
//! to, the effective `_meta` as part of the key, stale results served when a re-fetch fails
//! transiently over HTTP, `server/discover` freshness, `cache_info` / `clear_cache`, and the
//! restart of a page sequence whose cursor the server refused.

use serde_json::{json, Value};

use super::harness::*;
use super::http_harness::*;
use mcpwire_core::{
    CacheInfo, CacheKey, CacheScope, CommandError, Event, ProtocolMode, Request, RequestError,
    RequestOptions, Response, SubscriptionFilter, TransportConfig, Warning, MODERN_VERSION,
};

// ----- helpers ------------------------------------------------------------------------------

fn read(uri: &str) -> Request {
    Request::read_resource(uri)
}

/// A `resources/read` result with optional caching hints.
fn contents(uri: &str, text: &str, ttl: Option<Value>, scope: Option<&str>) -> Value {
    let mut v = json!({"contents": [{"uri": uri, "text": text}]});
    if let Some(t) = ttl {
        v["ttlMs"] = t;
    }
    if let Some(s) = scope {
        v["cacheScope"] = json!(s);
    }
    v
}

fn text_of(r: Response) -> String {
    match r {
        Response::Resource(r) => r.contents[0].as_text().expect("text contents").to_owned(),
        other => panic!("expected resource contents, got {other:?}"),
    }
}

fn with_meta(meta: Value) -> RequestOptions {
    let mut o = opts();
    o.meta = meta.as_object().cloned();
    o
}

fn refresh() -> RequestOptions {
    opts().refresh(true)
}

fn stale_warnings(h: &mut Harness) -> Vec<(&'static str, String)> {
    h.warnings()
        .into_iter()
        .filter_map(|w| match w {
            Warning::StaleCacheServed { method, detail } => Some((method, detail)),
            _ => None,
        })
        .collect()
}

impl Harness {
    /// stdio: reads `uri`; answers with `result` if the request reaches the server. Returns
    /// the text and whether it was fetched.
    fn read_stdio(&mut self, uri: &str, o: RequestOptions, result: Value) -> (String, bool) {
        let r = self.request_opts(read(uri), o);
        let sent = self.sent();
        match sent.as_slice() {
            [] => (text_of(self.ok(r)), false),
            [one] => {
                assert_eq!(one["method"], json!("resources/read"));
                assert_eq!(one["params"]["uri"], json!(uri));
                self.reply(one, result);
                (text_of(self.ok(r)), true)
            }
            more => panic!("one resources/read expected, got {more:#?}"),
        }
    }

    /// HTTP: reads `uri`; answers with `result` if the request reaches the server. Returns the
    /// text and the Authorization values it went out with (`None`: served from the cache).
    fn read_http(&mut self, uri: &str, result: Value) -> (String, Option<Vec<String>>) {
        let r = self.request(read(uri));
        let sent = self.started_http();
        match sent.as_slice() {
            [] => (text_of(self.ok(r)), None),
            [one] => {
                assert_eq!(one.method(), "resources/read");
                let auth = one
                    .req
                    .headers
                    .iter()
                    .filter(|(n, _)| n.eq_ignore_ascii_case("authorization"))
                    .map(|(_, v)| v.clone())
                    .collect();
                self.reply_http(one, result);
                (text_of(self.ok(r)), Some(auth))
            }
            more => panic!("one resources/read expected, got {more:#?}"),
        }
    }

    fn set_auth(&mut self, value: Option<&str>) {
        self.conn.set_authorization(self.now, value.map(str::to_owned)).expect("a valid header value");
        self.drain();
    }

    fn info(&self, key: CacheKey) -> Option<CacheInfo> {
        self.conn.cache_info(self.now, key)
    }
}

/// A modern HTTP harness whose configuration sends `Authorization: <auth>`.
fn modern_http_with(auth: Option<&str>, retries: u32) -> Harness {
    let mut cfg = http_config("http://srv.test/mcp", &[]);
    if let TransportConfig::Http(http) = &mut cfg.transport {
        if let Some(a) = auth {
            http.headers.push(("authorization".into(), a.into()));
        }
        http.retries = retries;
    }
    let mut h = Harness::new(cfg);
    let c = h.request(Request::Connect);
    h.http_connect_modern();
    h.ok(c);
    h
}

/// Lists tools over HTTP with a TTL; the list is `names`.
fn http_list(h: &mut Harness, names: &[&str], ttl: u64) {
    let r = h.request(Request::ListTools);
    let p = h.expect_http("tools/list");
    let mut page = tools_page(names, None);
    page["ttlMs"] = json!(ttl);
    page["cacheScope"] = json!("public");
    h.reply_http(&p, page);
    h.ok(r);
}

// ----- resources/read -----------------------------------------------------------------------

#[test]
fn reads_with_a_positive_ttl_are_cached_per_uri_while_fresh() {
    let mut h = connected(false);
    let a = contents("file:///a", "A1", Some(json!(1000)), Some("public"));
    assert_eq!(h.read_stdio("file:///a", opts(), a), ("A1".into(), true));
    // Another URI is another entry.
    let b = contents("file:///b", "B1", Some(json!(1000)), None);
    assert_eq!(h.read_stdio("file:///b", opts(), b), ("B1".into(), true));
    h.advance(ms(999));
    assert_eq!(h.read_stdio("file:///a", opts(), json!(null)), ("A1".into(), false));
    assert_eq!(h.read_stdio("file:///b", opts(), json!(null)), ("B1".into(), false));
    h.assert_quiet();
    h.advance(ms(1));
    let a = contents("file:///a", "A2", Some(json!(1000)), None);
    assert_eq!(h.read_stdio("file:///a", opts(), a), ("A2".into(), true), "stale: fetched again");
    h.assert_all_answered();
}

#[test]
fn reads_without_a_positive_ttl_or_from_legacy_servers_are_not_cached() {
    for ttl in [None, Some(json!(0)), Some(json!(-5)), Some(json!("1000"))] {
        let mut h = connected(false);
        let v = contents("file:///a", "A", ttl.clone(), Some("public"));
        assert!(h.read_stdio("file:///a", opts(), v.clone()).1);
        assert!(h.read_stdio("file:///a", opts(), v).1, "ttl {ttl:?}: fetched again");
    }
    let mut h = connected(true);
    let v = contents("file:///a", "A", Some(json!(60_000)), Some("public"));
    assert!(h.read_stdio("file:///a", opts(), v.clone()).1);
    assert!(h.read_stdio("file:///a", opts(), v).1, "legacy results are never cached");
    assert_eq!(h.info(CacheKey::Read("file:///a".into())), None);
}

#[test]
fn refresh_bypasses_a_fresh_read_and_replaces_it() {
    let mut h = connected(false);
    let v = |t: &str| contents("file:///a", t, Some(json!(60_000)), None);
    h.read_stdio("file:///a", opts(), v("old"));
    assert_eq!(h.read_stdio("file:///a", refresh(), v("new")), ("new".into(), true));
    assert_eq!(h.read_stdio("file:///a", opts(), json!(null)), ("new".into(), false));
    // A refresh answered without a TTL drops the entry.
    let uncached = contents("file:///a", "plain", None, None);
    assert_eq!(h.read_stdio("file:///a", refresh(), uncached.clone()), ("plain".into(), true));
    assert!(h.read_stdio("file:///a", opts(), uncached).1);
}

#[test]
fn resources_updated_drops_that_uri_whether_tagged_or_not() {
    let mut h = connected(false);
    let v = |uri: &str| contents(uri, uri, Some(json!(60_000)), None);
    for uri in ["file:///a", "file:///b"] {
        h.read_stdio(uri, opts(), v(uri));
    }
    h.notify("notifications/resources/updated", json!({"uri": "file:///a"}));
    h.events();
    assert!(h.read_stdio("file:///a", opts(), v("file:///a")).1, "updated: fetched again");
    assert!(!h.read_stdio("file:///b", opts(), json!(null)).1, "another URI is kept");

    // The same notification delivered on a listen stream.
    let l = h.request(Request::listen(SubscriptionFilter::new().resource("file:///b")));
    let sent = h.expect_sent("subscriptions/listen");
    let id = sent["id"].clone();
    let tag = json!({"io.modelcontextprotocol/subscriptionId": id});
    h.notify(
        "notifications/subscriptions/acknowledged",
        json!({"_meta": tag, "notifications": {"resourceSubscriptions": ["file:///b"]}}),
    );
    h.notify("notifications/resources/updated", json!({"_meta": tag, "uri": "file:///b"}));
    h.events();
    assert!(h.read_stdio("file:///b", opts(), v("file:///b")).1, "updated on a stream: fetched again");
    assert!(!h.read_stdio("file:///a", opts(), json!(null)).1);
    h.cancel(l);
}

#[test]
fn resources_list_changed_and_a_restart_drop_every_read() {
    let mut h = connected(false);
    let v = |uri: &str| contents(uri, uri, Some(json!(60_000)), None);
    h.read_stdio("file:///a", opts(), v("file:///a"));
    h.read_stdio("file:///b", opts(), v("file:///b"));
    h.notify("notifications/resources/list_changed", json!({}));
    h.events();
    assert!(h.read_stdio("file:///a", opts(), v("file:///a")).1);
    assert!(h.read_stdio("file:///b", opts(), v("file:///b")).1);
    // A tools change leaves reads alone.
    h.notify("notifications/tools/list_changed", json!({}));
    h.events();
    assert!(!h.read_stdio("file:///a", opts(), json!(null)).1);
    // The process goes away: everything it answered is gone.
    h.exited(exit_code(1));
    h.eof();
    h.events();
    let r = h.request(read("file:///a"));
    h.start();
    h.modern_handshake(discover_ok());
    let sent = h.expect_sent("resources/read");
    h.reply(&sent, v("file:///a"));
    h.ok(r);
}

#[test]
fn results_of_multi_round_trip_retries_are_not_cached() {
    let mut h = Harness::with(ProtocolMode::Auto, |c| c.features.elicitation_form = true);
    h.connect_modern();
    let r = h.request(read("file:///a"));
    let first = h.expect_sent("resources/read");
    let schema = json!({"type": "object", "properties": {"ok": {"type": "boolean"}}});
    h.reply(
        &first,
        json!({"resultType": "input_required", "inputRequests": {"q": {"method": "elicitation/create",
            "params": {"message": "ok?", "requestedSchema": schema}}}}),
    );
    let (q, _) = h.take_server_request();
    assert!(h.respond(q, Ok(json!({"action": "accept", "content": {"ok": true}}))));
    let retry = h.expect_sent("resources/read");
    h.reply(&retry, contents("file:///a", "A", Some(json!(60_000)), Some("public")));
    h.ok(r);
    assert_eq!(h.info(CacheKey::Read("file:///a".into())), None);
    assert!(h.read_stdio("file:///a", opts(), contents("file:///a", "A", None, None)).1);
}

// ----- cacheScope and the credential --------------------------------------------------------

#[test]
fn private_reads_are_bound_to_the_authorization_they_went_out_with() {
    let mut h = modern_http_with(Some("Bearer A"), 0);
    let v = |t: &str, scope: Option<&str>| contents("file:///a", t, Some(json!(60_000)), scope);
    let (text, auth) = h.read_http("file:///a", v("for A", Some("private")));
    assert_eq!((text.as_str(), auth), ("for A", Some(vec!["Bearer A".to_owned()])));
    assert_eq!(h.read_http("file:///a", json!(null)), ("for A".into(), None));

    // Another credential: the private entry is not served; the set header replaces the
    // configured one.
    h.set_auth(Some("Bearer B"));
    let (text, auth) = h.read_http("file:///a", v("for B", None));
    assert_eq!((text.as_str(), auth), ("for B", Some(vec!["Bearer B".to_owned()])));
    assert_eq!(h.read_http("file:///a", json!(null)), ("for B".into(), None));

    // No credential is a credential of its own.
    h.set_auth(None);
    let (text, auth) = h.read_http("file:///a", v("anonymous", Some("shared-with-friends")));
    assert_eq!((text.as_str(), auth), ("anonymous", Some(vec![])));
    let info = h.info(CacheKey::Read("file:///a".into())).expect("cached for no credential");
    assert_eq!(info.scope, CacheScope::Private, "an unknown scope is private");

    // Back to A: its own entry is still there.
    h.set_auth(Some("Bearer A"));
    assert_eq!(h.read_http("file:///a", json!(null)), ("for A".into(), None));
    h.assert_all_answered();
}

#[test]
fn public_results_are_served_whatever_the_credential() {
    let mut h = modern_http_with(Some("Bearer A"), 0);
    let public = contents("file:///p", "shared", Some(json!(60_000)), Some("public"));
    assert!(h.read_http("file:///p", public).1.is_some());
    for auth in [Some("Bearer B"), None, Some("Bearer A")] {
        h.set_auth(auth);
        assert_eq!(h.read_http("file:///p", json!(null)), ("shared".into(), None), "{auth:?}");
        let info = h.info(CacheKey::Read("file:///p".into())).expect("public entry");
        assert_eq!(info.scope, CacheScope::Public);
    }
    // Lists too: a public list is shared, a private one is not.
    http_list(&mut h, &["t"], 60_000);
    h.set_auth(Some("Bearer C"));
    let r = h.request(Request::ListTools);
    assert!(h.started_http().is_empty());
    assert_eq!(tool_names(h.ok(r)), ["t"]);
    let r = h.request(Request::ListPrompts);
    let p = h.expect_http("prompts/list");
    h.reply_http(&p, json!({"prompts": [], "ttlMs": 60_000, "cacheScope": "private"}));
    h.ok(r);
    h.set_auth(Some("Bearer D"));
    h.request(Request::ListPrompts);
    h.expect_http("prompts/list");
}

#[test]
fn a_list_is_public_only_when_every_page_says_so() {
    let mut h = connected(false);
    let r = h.request(Request::ListTools);
    let p = h.expect_sent("tools/list");
    let mut page = tools_page(&["a"], Some("c1"));
    page["ttlMs"] = json!(60_000);
    page["cacheScope"] = json!("public");
    h.reply(&p, page);
    let p = h.expect_sent("tools/list");
    let mut page = tools_page(&["b"], None);
    page["ttlMs"] = json!(60_000);
    h.reply(&p, page);
    h.ok(r);
    assert_eq!(h.info(CacheKey::Tools).map(|i| i.scope), Some(CacheScope::Private));
}

#[test]
fn stdio_has_one_credential_and_set_authorization_refuses_control_characters() {
    let mut h = connected(false);
    let v = contents("file:///a", "A", Some(json!(60_000)), Some("private"));
    h.read_stdio("file:///a", opts(), v);
    h.set_auth(Some("Bearer elsewhere"));
    assert!(!h.read_stdio("file:///a", opts(), json!(null)).1, "stdio sends no Authorization");
    let e = h.conn.set_authorization(h.now, Some("Bearer x\r\nX-Evil: 1".into())).unwrap_err();
    assert!(matches!(e, CommandError::InvalidArgument(_)), "{e:?}");
}

#[test]
fn set_authorization_applies_to_every_later_http_request() {
    let mut h = modern_http_with(Some("Bearer configured"), 0);
    h.set_auth(Some("Bearer new"));
    h.know_tools(json!([]));
    let r = h.request(call("echo", json!({})));
    let sent = h.expect_http("tools/call");
    assert_eq!(sent.header_count("Authorization"), 1);
    assert_eq!(sent.header("authorization"), Some("Bearer new"));
    h.reply_http(&sent, text_result("ok"));
    h.ok(r);
    h.set_auth(None);
    let r = h.request(call("echo", json!({})));
    let sent = h.expect_http("tools/call");
    assert_eq!(sent.header_count("Authorization"), 0);
    h.reply_http(&sent, text_result("ok"));
    h.ok(r);
}

// ----- _meta --------------------------------------------------------------------------------

#[test]
fn the_effective_meta_is_part_of_the_key() {
    let mut h = Harness::with(ProtocolMode::Auto, |c| {
        c.request_meta = json!({"tenant": "t1"}).as_object().cloned().unwrap();
    });
    h.connect_modern();
    let v = |t: &str| contents("file:///a", t, Some(json!(60_000)), Some("public"));
    let (_, fetched) = h.read_stdio("file:///a", with_meta(json!({"a": 1, "b": {"x": 1, "y": 2}})), v("ab"));
    assert!(fetched);
    // The same _meta in another key order, with a progress token on top: served.
    let same = with_meta(json!({"b": {"y": 2, "x": 1}, "a": 1})).progress(true);
    assert_eq!(h.read_stdio("file:///a", same, json!(null)), ("ab".into(), false));
    // The static _meta restated with the same value: the same effective _meta.
    let restated = with_meta(json!({"tenant": "t1", "a": 1, "b": {"x": 1, "y": 2}}));
    assert!(!h.read_stdio("file:///a", restated, json!(null)).1);
    // Other _meta: other entries.
    assert_eq!(h.read_stdio("file:///a", with_meta(json!({"a": 1})), v("a")), ("a".into(), true));
    assert_eq!(h.read_stdio("file:///a", opts(), v("none")), ("none".into(), true));
    let other_tenant = with_meta(json!({"tenant": "t2", "a": 1, "b": {"x": 1, "y": 2}}));
    assert!(h.read_stdio("file:///a", other_tenant, v("t2")).1);
    // Each is still served to its own _meta.
    assert_eq!(h.read_stdio("file:///a", with_meta(json!({"a": 1})), json!(null)), ("a".into(), false));
    assert_eq!(h.read_stdio("file:///a", opts(), json!(null)), ("none".into(), false));
    // The protocol envelope (here a log level) is not part of the key.
    let r = h.request(Request::SetLogLevel(mcpwire_core::types::LoggingLevel::Debug));
    h.ok(r);
    assert_eq!(h.read_stdio("file:///a", opts(), json!(null)), ("none".into(), false));
}

#[test]
fn lists_are_keyed_by_meta_too() {
    let mut h = connected(false);
    let list = |h: &mut Harness, o: RequestOptions| -> bool {
        let r = h.request_opts(Request::ListTools, o);
        let sent = h.sent();
        if let [p] = sent.as_slice() {
            let mut page = tools_page(&["a"], None);
            page["ttlMs"] = json!(60_000);
            h.reply(p, page);
        }
        h.ok(r);
        !sent.is_empty()
    };
    assert!(list(&mut h, opts()));
    assert!(!list(&mut h, opts()));
    assert!(list(&mut h, with_meta(json!({"k": "v"}))));
    assert!(!list(&mut h, with_meta(json!({"k": "v"}))));
    assert!(!list(&mut h, opts()));
}

// ----- stale results ------------------------------------------------------------------------

#[test]
fn a_stale_list_is_served_when_the_refetch_fails_with_5xx_or_in_transport() {
    let mut h = modern_http_with(None, 0);
    http_list(&mut h, &["a"], 1000);
    h.advance(ms(1000));
    assert!(!h.info(CacheKey::Tools).expect("a stale entry is kept").fresh);

    let r = h.request(Request::ListTools);
    let p = h.expect_http("tools/list");
    h.respond_http(p.id, 503, &[], b"busy");
    assert_eq!(tool_names(h.ok(r)), ["a"]);
    let served = stale_warnings(&mut h);
    assert!(matches!(served.as_slice(), [("tools/list", d)] if d.contains("503")), "{served:?}");

    let r = h.request(Request::ListTools);
    let p = h.expect_http("tools/list");
    h.http_fail(p.id, "connection reset");
    assert_eq!(tool_names(h.ok(r)), ["a"]);
    assert!(matches!(stale_warnings(&mut h).as_slice(), [("tools/list", d)] if d.contains("reset")));

    // A successful re-fetch replaces it.
    http_list(&mut h, &["b"], 1000);
    let r = h.request(Request::ListTools);
    assert_eq!(tool_names(h.ok(r)), ["b"]);
    h.assert_quiet();
}

#[test]
fn a_stale_read_is_served_after_the_retries_and_only_to_its_credential() {
    let mut h = modern_http_with(Some("Bearer A"), 1);
    let v = contents("file:///a", "old", Some(json!(1000)), None);
    h.read_http("file:///a", v);
    h.advance(ms(1000));
    let r = h.request(read("file:///a"));
    let p = h.expect_http("resources/read");
    h.respond_http(p.id, 502, &[], b"");
    assert!(!h.has_response(r), "retried first");
    h.fire_next_timer();
    let p = h.expect_http("resources/read");
    h.respond_http(p.id, 502, &[], b"");
    assert_eq!(text_of(h.ok(r)), "old");
    let served = stale_warnings(&mut h);
    assert!(matches!(served.as_slice(), [("resources/read", d)] if d.contains("file:///a")), "{served:?}");

    // Another credential never gets A's private copy.
    h.set_auth(Some("Bearer B"));
    let r = h.request(read("file:///a"));
    let p = h.expect_http("resources/read");
    h.respond_http(p.id, 503, &[], b"");
    h.fire_next_timer();
    let p = h.expect_http("resources/read");
    h.respond_http(p.id, 503, &[], b"");
    assert!(matches!(h.err(r), RequestError::TransientServer { status: 503, .. }));
    assert!(stale_warnings(&mut h).is_empty());
}

#[test]
fn no_stale_result_after_a_refusal_an_rpc_error_or_for_a_refresh() {
    let mut h = modern_http_with(None, 0);
    http_list(&mut h, &["a"], 1000);
    h.advance(ms(1000));

    let r = h.request(Request::ListTools);
    let p = h.expect_http("tools/list");
    h.respond_http(p.id, 401, &[("WWW-Authenticate", "Bearer realm=\"x\"")], b"");
    assert!(matches!(h.err(r), RequestError::Unauthorized { status: 401, .. }));

    let r = h.request(Request::ListTools);
    let p = h.expect_http("tools/list");
    h.json_reply(&p, &error_for(&p.json(), -32603, "internal"));
    assert!(matches!(h.err(r), RequestError::Rpc(e) if e.code == -32603));

    let r = h.request_opts(Request::ListTools, refresh());
    let p = h.expect_http("tools/list");
    h.respond_http(p.id, 503, &[], b"");
    assert!(matches!(h.err(r), RequestError::TransientServer { .. }));
    assert!(stale_warnings(&mut h).is_empty());
    h.assert_quiet();
}

#[test]
fn stdio_does_not_serve_stale_results() {
    let mut h = connected(false);
    h.read_stdio("file:///a", opts(), contents("file:///a", "A", Some(json!(1000)), None));
    h.advance(ms(1000));
    let r = h.request(read("file:///a"));
    h.expect_sent("resources/read");
    h.exited(exit_code(1));
    h.eof();
    assert!(matches!(h.err(r), RequestError::TransportClosed { .. }));
    assert!(stale_warnings(&mut h).is_empty());
}

// ----- server/discover ----------------------------------------------------------------------

fn discover_with(caps: Value, ttl: Value, scope: &str) -> Value {
    let mut d = discover(&[MODERN_VERSION], caps, 0);
    d["ttlMs"] = ttl;
    d["cacheScope"] = json!(scope);
    d
}

#[test]
fn discover_answers_while_fresh_and_asks_again_when_stale() {
    let mut h = Harness::auto();
    let first = h.connect_modern_with(discover_with(json!({"tools": {}}), json!(1000), "public"));
    let info = h.info(CacheKey::Discover).expect("recorded");
    assert_eq!((info.ttl_ms, info.scope, info.fresh), (Some(1000), CacheScope::Public, true));

    let d = h.request(Request::Discover);
    assert_eq!(h.ok(d), Response::Connected(Box::new(first.clone())));
    h.assert_quiet();

    h.advance(ms(1000));
    let d = h.request(Request::Discover);
    let sent = h.expect_sent("server/discover");
    assert_modern_meta(&sent);
    h.reply(&sent, discover_with(json!({"prompts": {"listChanged": true}}), json!(5000), "private"));
    let updated = h.take_connected();
    assert!(updated.capabilities.prompts().is_some() && updated.capabilities.tools().is_none());
    assert_eq!((updated.era, updated.transport), (first.era, first.transport));
    assert_eq!(h.ok(d), Response::Connected(Box::new(updated.clone())));
    assert_eq!(h.conn.server_info(), Some(&updated));
    let info = h.info(CacheKey::Discover).expect("recorded");
    assert_eq!(
        (info.ttl_ms, info.scope, info.fresh, info.age),
        (Some(5000), CacheScope::Private, true, ms(0))
    );

    // Fresh again: answered with the new info, nothing sent.
    let d = h.request(Request::Discover);
    assert_eq!(h.ok(d), Response::Connected(Box::new(updated)));
    // `refresh` asks anyway.
    let d = h.request_opts(Request::Discover, refresh());
    let sent = h.expect_sent("server/discover");
    h.reply(&sent, discover_with(json!({}), json!(5000), "public"));
    h.take_connected();
    h.ok(d);
    h.assert_quiet();
    h.assert_all_answered();
}

#[test]
fn an_absent_zero_negative_or_malformed_discover_ttl_is_stale_at_once() {
    for ttl in [Value::Null, json!(0), json!(-1), json!("60000")] {
        let mut h = Harness::auto();
        let mut d = discover(&[MODERN_VERSION], json!({}), 0);
        match &ttl {
            Value::Null => {
                d.as_object_mut().unwrap().remove("ttlMs");
            }
            t => d["ttlMs"] = t.clone(),
        }
        h.connect_modern_with(d.clone());
        assert_eq!(h.info(CacheKey::Discover).map(|i| (i.ttl_ms, i.fresh)), Some((Some(0), false)), "{ttl}");
        let r = h.request(Request::Discover);
        let sent = h.expect_sent("server/discover");
        h.reply(&sent, d);
        h.take_connected();
        h.ok(r);
    }
}

#[test]
fn a_legacy_discover_is_the_initialize_answer() {
    let mut h = Harness::auto();
    let info = h.connect_legacy_with("2025-11-25", json!({"tools": {}}));
    let d = h.request(Request::Discover);
    assert_eq!(h.ok(d), Response::Connected(Box::new(info)));
    h.assert_quiet();
    assert_eq!(h.info(CacheKey::Discover), None);
}

#[test]
fn a_discover_before_connecting_connects_first() {
    let mut h = Harness::auto();
    let d = h.request(Request::Discover);
    h.start();
    let info = h.modern_handshake(discover_with(json!({"tools": {}}), json!(60_000), "private"));
    assert_eq!(h.ok(d), Response::Connected(Box::new(info)));
    h.assert_quiet();
}

#[test]
fn a_rediscover_that_drops_our_version_or_fails_changes_nothing() {
    let mut h = Harness::auto();
    let info = h.connect_modern();
    let d = h.request(Request::Discover);
    let sent = h.expect_sent("server/discover");
    h.reply(&sent, discover(&["2099-01-01"], json!({}), 60_000));
    assert!(matches!(h.err(d), RequestError::NoCommonVersion { .. }));
    let d = h.request(Request::Discover);
    let sent = h.expect_sent("server/discover");
    h.reply_error(&sent, -32603, "internal", None);
    assert!(matches!(h.err(d), RequestError::Rpc(_)));
    assert_eq!(h.conn.server_info(), Some(&info));
    h.assert_quiet();
}

#[test]
fn a_private_discover_is_stale_for_another_credential_and_served_stale_over_http() {
    let mut h = Harness::new(http_config("http://srv.test/mcp", &[]));
    let c = h.request(Request::Connect);
    let probe = h.expect_http("server/discover");
    h.reply_http(&probe, discover_with(json!({"tools": {}}), json!(60_000), "private"));
    let info = h.take_connected();
    h.ok(c);
    let d = h.request(Request::Discover);
    assert!(h.started_http().is_empty());
    h.ok(d);
    h.set_auth(Some("Bearer other"));
    assert_eq!(h.info(CacheKey::Discover), None, "not this credential's");
    let d = h.request(Request::Discover);
    let sent = h.expect_http("server/discover");
    assert_eq!(sent.header("Authorization"), Some("Bearer other"));
    h.respond_http(sent.id, 500, &[], b"");
    assert_eq!(h.ok(d), Response::Connected(Box::new(info)));
    assert!(matches!(stale_warnings(&mut h).as_slice(), [("server/discover", _)]));
}

// ----- cache_info / clear_cache -------------------------------------------------------------

#[test]
fn cache_info_reports_ttl_scope_age_and_freshness() {
    let mut h = connected(false);
    assert_eq!(h.info(CacheKey::Tools), None);
    let r = h.request(Request::ListTools);
    let p = h.expect_sent("tools/list");
    let mut page = tools_page(&["a"], None);
    page["ttlMs"] = json!(1000);
    page["cacheScope"] = json!("public");
    h.reply(&p, page);
    h.ok(r);
    let want = CacheInfo { ttl_ms: Some(1000), scope: CacheScope::Public, age: ms(0), fresh: true };
    assert_eq!(h.info(CacheKey::Tools), Some(want));
    h.advance(ms(400));
    assert_eq!(h.info(CacheKey::Tools).map(|i| (i.age, i.fresh)), Some((ms(400), true)));
    h.advance(ms(600));
    assert_eq!(h.info(CacheKey::Tools).map(|i| (i.age, i.fresh)), Some((ms(1000), false)));
    assert_eq!(h.info(CacheKey::Prompts), None);
    assert_eq!(h.info(CacheKey::Resources), None);
    assert_eq!(h.info(CacheKey::ResourceTemplates), None);

    h.read_stdio("file:///a", opts(), contents("file:///a", "A", Some(json!(5000)), None));
    let info = h.info(CacheKey::Read("file:///a".into())).expect("read cached");
    assert_eq!((info.ttl_ms, info.scope, info.fresh), (Some(5000), CacheScope::Private, true));
    assert_eq!(h.info(CacheKey::Read("file:///b".into())), None);
    // Only default-option entries are reported.
    h.read_stdio(
        "file:///m",
        with_meta(json!({"k": 1})),
        contents("file:///m", "M", Some(json!(5000)), None),
    );
    assert_eq!(h.info(CacheKey::Read("file:///m".into())), None);

    h.conn.clear_cache();
    assert_eq!(h.info(CacheKey::Tools), None);
    assert_eq!(h.info(CacheKey::Read("file:///a".into())), None);
    assert_eq!(h.info(CacheKey::Discover), None);
    assert!(h.read_stdio("file:///a", opts(), contents("file:///a", "A", None, None)).1);
    let d = h.request(Request::Discover);
    let sent = h.expect_sent("server/discover");
    h.reply(&sent, discover_ok());
    h.take_connected();
    h.ok(d);
}

#[test]
fn legacy_lists_report_no_ttl() {
    let mut h = Harness::auto();
    h.connect_legacy_with("2025-11-25", json!({"tools": {"listChanged": true}}));
    let r = h.request(Request::ListTools);
    let p = h.expect_sent("tools/list");
    h.reply(&p, tools_page(&["a"], None));
    h.ok(r);
    let info = h.info(CacheKey::Tools).expect("kept on the listChanged promise");
    assert_eq!((info.ttl_ms, info.scope, info.fresh), (None, CacheScope::Private, true));
    h.advance(secs(3600));
    assert!(h.info(CacheKey::Tools).unwrap().fresh);
    h.conn.clear_cache();
    h.request(Request::ListTools);
    h.expect_sent("tools/list");
}

#[test]
fn max_cache_entries_drops_the_oldest_and_zero_turns_caching_off() {
    let mut h = Harness::with(ProtocolMode::Auto, |c| c.limits.max_cache_entries = 2);
    h.connect_modern();
    let v = |uri: &str| contents(uri, uri, Some(json!(60_000)), None);
    for uri in ["file:///1", "file:///2", "file:///3"] {
        h.read_stdio(uri, opts(), v(uri));
        h.advance(ms(1));
    }
    assert_eq!(h.info(CacheKey::Read("file:///1".into())), None, "the oldest was dropped");
    assert!(h.info(CacheKey::Read("file:///2".into())).is_some());
    assert!(h.info(CacheKey::Read("file:///3".into())).is_some());

    let mut h = Harness::with(ProtocolMode::Auto, |c| c.limits.max_cache_entries = 0);
    h.connect_modern();
    h.read_stdio("file:///1", opts(), v("file:///1"));
    assert!(h.read_stdio("file:///1", opts(), v("file:///1")).1);
}

// ----- a refused cursor ---------------------------------------------------------------------

#[test]
fn a_refused_cursor_restarts_the_list_once_from_the_first_page() {
    let mut h = connected(false);
    // A cached copy exists (stale), then the re-fetch meets a dead cursor.
    let mut page = tools_page(&["old"], None);
    page["ttlMs"] = json!(1000);
    let r = h.request(Request::ListTools);
    let p = h.expect_sent("tools/list");
    h.reply(&p, page);
    h.ok(r);
    h.advance(ms(1000));

    let r = h.request(Request::ListTools);
    let p = h.expect_sent("tools/list");
    h.reply(&p, tools_page(&["a"], Some("c1")));
    let p = h.expect_sent("tools/list");
    assert_eq!(p["params"]["cursor"], json!("c1"));
    h.reply_error(&p, -32602, "Invalid cursor", None);
    assert_eq!(h.info(CacheKey::Tools), None, "the cached pages of that list are dropped");
    let p = h.expect_sent("tools/list");
    assert!(p["params"].get("cursor").is_none(), "from the first page: {p}");
    h.reply(&p, tools_page(&["x"], Some("c2")));
    let p = h.expect_sent("tools/list");
    h.reply(&p, tools_page(&["y"], None));
    assert_eq!(tool_names(h.ok(r)), ["x", "y"], "pages of the dead sequence are not mixed in");
    h.assert_quiet();
}

#[test]
fn a_second_refused_cursor_fails_with_the_rpc_error() {
    let mut h = connected(false);
    let r = h.request(Request::ListResources);
    for _ in 0..2 {
        let p = h.expect_sent("resources/list");
        h.reply(&p, json!({"resources": [], "nextCursor": "c"}));
        let p = h.expect_sent("resources/list");
        assert_eq!(p["params"]["cursor"], json!("c"));
        h.reply_error(&p, -32602, "Invalid cursor", None);
    }
    assert!(matches!(h.err(r), RequestError::Rpc(e) if e.code == -32602));
    h.assert_quiet();
}

#[test]
fn a_32602_on_the_first_page_is_just_an_error() {
    let mut h = connected(false);
    let r = h.request(Request::ListTools);
    let p = h.expect_sent("tools/list");
    h.reply_error(&p, -32602, "bad", None);
    assert!(matches!(h.err(r), RequestError::Rpc(e) if e.code == -32602));
    let r = h.request(read("file:///a"));
    let p = h.expect_sent("resources/read");
    h.reply_error(&p, -32602, "Resource not found", None);
    assert!(matches!(h.err(r), RequestError::Rpc(_)));
    h.assert_quiet();
}

#[test]
fn the_events_of_a_rediscover_come_before_its_response() {
    let mut h = connected(false);
    let d = h.request(Request::Discover);
    let sent = h.expect_sent("server/discover");
    h.reply(&sent, discover_ok());
    let events = h.events();
    assert!(
        matches!(events.as_slice(), [Event::Connected(_), Event::Response { handle, .. }] if *handle == d)
    );
}
