//! `Mcp-Param-*` headers kept in step with the tool definitions (2026-07-28 Streamable HTTP):
//! listing the tools before the first call, the one retry after a header mismatch (-32020),
//! and, alongside, the host's per-request `_meta` and completion context per revision.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use mcpwire_core::types::CompletionReference;
use mcpwire_core::{
    CacheKey, Event, ProtocolMode, Request, RequestError, RequestMetaContext, RequestOptions, Response,
    Warning, MODERN_VERSION,
};

use crate::harness::{call, config, ms, secs, text_result, tool, Harness};
use crate::http_harness::{error_for, http_config, legacy_http, Sent};

/// A tool whose `region` argument is carried in `Mcp-Param-{header}`.
fn region_tool(header: &str) -> Value {
    json!({"name": "query", "inputSchema": {"type": "object", "properties": {
        "region": {"type": "string", "x-mcp-header": header},
        "sql": {"type": "string"},
    }}})
}

fn query_call() -> Request {
    call("query", json!({"region": "eu-west1", "sql": "select 1"}))
}

/// A modern HTTP harness, connected, no tool known yet.
fn modern() -> Harness {
    let mut h = Harness::new(http_config("http://srv.test/mcp", &[]));
    let c = h.request(Request::Connect);
    h.http_connect_modern();
    h.ok(c);
    h
}

/// A modern harness that knows `tools` from a list kept for `ttl_ms`.
fn modern_knowing(tools: Value, ttl_ms: u64) -> Harness {
    let mut h = modern();
    let r = h.request(Request::ListTools);
    let list = h.expect_http("tools/list");
    h.reply_http(&list, json!({"tools": tools, "ttlMs": ttl_ms, "cacheScope": "public"}));
    h.ok(r);
    h
}

/// Answers `sent` with a 400 carrying a -32020 error.
fn mismatch(h: &mut Harness, sent: &Sent, message: &str) {
    let body = error_for(&sent.json(), -32020, message);
    h.respond_http(sent.id, 400, &[("Content-Type", "application/json")], body.to_string().as_bytes());
}

fn param_headers(sent: &Sent) -> Vec<(String, String)> {
    let mut out: Vec<_> = sent
        .req
        .headers
        .iter()
        .filter(|(n, _)| n.to_ascii_lowercase().starts_with("mcp-param-"))
        .cloned()
        .collect();
    out.sort();
    out
}

fn text_of(r: Response) -> String {
    match r {
        Response::ToolResult(t) => t.text(),
        other => panic!("expected a tool result, got {other:?}"),
    }
}

#[test]
fn a_mismatch_refreshes_the_list_and_retries_once_with_the_new_headers() {
    let mut h = modern_knowing(json!([region_tool("Region")]), 60_000);
    let t = h.request(query_call());
    let first = h.expect_http("tools/call");
    assert_eq!(param_headers(&first), vec![("Mcp-Param-Region".into(), "eu-west1".into())]);
    h.advance(ms(10));
    mismatch(&mut h, &first, "Header mismatch: Mcp-Param-Zone is missing");
    // The cached list is fresh, yet the definitions are fetched again.
    let list = h.expect_http("tools/list");
    assert!(!h.has_response(t));
    h.reply_http(&list, json!({"tools": [region_tool("Zone")], "ttlMs": 60_000, "cacheScope": "public"}));
    let retry = h.expect_http("tools/call");
    assert_ne!(retry.json()["id"], first.json()["id"], "the retry has a new id");
    assert_eq!(retry.json()["params"], first.json()["params"], "the same call");
    assert_eq!(param_headers(&retry), vec![("Mcp-Param-Zone".into(), "eu-west1".into())]);
    h.reply_http(&retry, text_result("rows"));
    assert_eq!(text_of(h.ok(t)), "rows");
    // The refreshed definitions replaced the cached ones.
    let info = h.conn.cache_info(h.now, CacheKey::Tools).expect("cached");
    assert_eq!(info.age, ms(0));
    let known = h.conn.known_tools().expect("known");
    assert_eq!(known[0].input_schema["properties"]["region"]["x-mcp-header"], json!("Zone"));
    // A later call goes out with the new header at once.
    let again = h.request(query_call());
    let sent = h.expect_http("tools/call");
    assert_eq!(param_headers(&sent), vec![("Mcp-Param-Zone".into(), "eu-west1".into())]);
    h.reply_http(&sent, text_result("ok"));
    h.ok(again);
    h.assert_all_answered();
}

#[test]
fn a_second_mismatch_is_a_typed_error_carrying_the_server_message() {
    let mut h = modern_knowing(json!([region_tool("Region")]), 0);
    let t = h.request(query_call());
    let first = h.expect_http("tools/call");
    mismatch(&mut h, &first, "first");
    let list = h.expect_http("tools/list");
    h.reply_http(&list, json!({"tools": [region_tool("Region")]}));
    let retry = h.expect_http("tools/call");
    mismatch(&mut h, &retry, "Header mismatch: Mcp-Param-Region does not match");
    match h.err(t) {
        RequestError::HeaderMismatch { tool, error } => {
            assert_eq!(tool, "query");
            assert_eq!(error.code, -32020);
            assert_eq!(error.message, "Header mismatch: Mcp-Param-Region does not match");
        }
        other => panic!("expected HeaderMismatch, got {other:?}"),
    }
    assert!(h.started_http().is_empty(), "retried once only");
    h.assert_all_answered();
}

#[test]
fn a_tool_gone_from_the_refreshed_list_is_not_retried() {
    let mut h = modern_knowing(json!([region_tool("Region"), tool("other")]), 0);
    let t = h.request(query_call());
    let first = h.expect_http("tools/call");
    mismatch(&mut h, &first, "mismatch");
    let list = h.expect_http("tools/list");
    h.reply_http(&list, json!({"tools": [tool("other")]}));
    assert!(matches!(h.err(t), RequestError::UnknownTool { tool } if tool == "query"));
    assert!(h.started_http().is_empty());
    h.assert_all_answered();
}

#[cfg(feature = "schema")]
#[test]
fn a_refreshed_definition_in_an_unreadable_dialect_stops_the_retry() {
    let mut h = modern_knowing(json!([region_tool("Region")]), 0);
    let t = h.request(query_call());
    let first = h.expect_http("tools/call");
    mismatch(&mut h, &first, "mismatch");
    let list = h.expect_http("tools/list");
    let mut refreshed = region_tool("Zone");
    refreshed["inputSchema"]["$schema"] = json!("https://example.com/schemas/house-dialect");
    h.reply_http(&list, json!({"tools": [refreshed]}));
    match h.err(t) {
        RequestError::ToolSchema { tool, which, .. } => {
            assert_eq!((tool.as_str(), which), ("query", "inputSchema"))
        }
        other => panic!("expected ToolSchema, got {other:?}"),
    }
    assert!(h.started_http().is_empty(), "the call is not sent again");
    assert!(h.warnings().iter().any(|w| matches!(w, Warning::ToolSchema { .. })));
}

#[test]
fn a_failed_refresh_fails_the_call_with_its_error() {
    let mut h = modern_knowing(json!([region_tool("Region")]), 0);
    let t = h.request(query_call());
    let first = h.expect_http("tools/call");
    mismatch(&mut h, &first, "mismatch");
    let list = h.expect_http("tools/list");
    let body = error_for(&list.json(), -32603, "list broke");
    h.respond_http(list.id, 500, &[("Content-Type", "application/json")], body.to_string().as_bytes());
    assert!(matches!(h.err(t), RequestError::Rpc(e) if e.message == "list broke"));
    assert!(h.started_http().is_empty());
    h.assert_all_answered();
}

#[test]
fn the_refresh_and_retry_stay_within_the_call_timeout() {
    let mut h = modern_knowing(json!([region_tool("Region")]), 0);
    let opts = RequestOptions::default().timeout(secs(2));
    let t = h.request_opts(query_call(), opts);
    let first = h.expect_http("tools/call");
    h.advance(ms(500));
    mismatch(&mut h, &first, "mismatch");
    let list = h.expect_http("tools/list");
    assert_eq!(h.next_timer_in(), Some(ms(1500)), "the call's own deadline, not a new one");
    h.fire_next_timer();
    assert!(matches!(h.err(t), RequestError::Timeout { after } if after == secs(2)));
    assert_eq!(h.aborted(), vec![list.id], "the list is dropped with the call");
    assert!(h.started_http().is_empty());
    h.assert_all_answered();
}

#[test]
fn cancelling_a_call_waiting_for_its_refresh_drops_the_list() {
    let mut h = modern_knowing(json!([region_tool("Region")]), 0);
    let t = h.request(query_call());
    let first = h.expect_http("tools/call");
    mismatch(&mut h, &first, "mismatch");
    let list = h.expect_http("tools/list");
    assert!(h.cancel(t));
    assert!(matches!(h.err(t), RequestError::Cancelled));
    assert_eq!(h.aborted(), vec![list.id]);
    // A late answer for the dropped list changes nothing.
    h.reply_http(&list, json!({"tools": []}));
    assert!(h.started_http().is_empty());
    h.assert_all_answered();
}

#[test]
fn the_first_call_of_an_unknown_tool_lists_first_and_carries_its_headers() {
    let mut h = modern();
    let a = h.request(query_call());
    let b = h.request(call("query", json!({"region": "us-east1"})));
    // One list for both calls, then both calls, each with its header.
    let list = h.expect_http("tools/list");
    assert!(!h.has_response(a) && !h.has_response(b));
    h.reply_http(&list, json!({"tools": [region_tool("Region")]}));
    let calls = h.started_http();
    assert_eq!(calls.len(), 2, "{calls:#?}");
    assert_eq!(param_headers(&calls[0]), vec![("Mcp-Param-Region".into(), "eu-west1".into())]);
    assert_eq!(param_headers(&calls[1]), vec![("Mcp-Param-Region".into(), "us-east1".into())]);
    for (sent, handle) in calls.iter().zip([a, b]) {
        h.reply_http(sent, text_result("ok"));
        h.ok(handle);
    }
    assert!(h.conn.known_tools().is_some());
    // Known now: the next call goes out at once.
    let c = h.request(query_call());
    let sent = h.expect_http("tools/call");
    h.reply_http(&sent, text_result("ok"));
    h.ok(c);
    h.assert_all_answered();
}

#[test]
fn the_list_before_the_first_call_is_cached_by_its_ttl() {
    let mut h = modern();
    let t = h.request(query_call());
    let list = h.expect_http("tools/list");
    h.reply_http(&list, json!({"tools": [region_tool("Region")], "ttlMs": 60_000, "cacheScope": "public"}));
    let sent = h.expect_http("tools/call");
    h.reply_http(&sent, text_result("ok"));
    h.ok(t);
    let r = h.request(Request::ListTools);
    assert_eq!(h.conn.known_tools().map(<[_]>::len), Some(1));
    assert!(matches!(h.ok(r), Response::Tools(t) if t.len() == 1));
    assert!(h.started_http().is_empty(), "served from the cache");
}

#[test]
fn a_first_list_refused_by_the_server_lets_the_call_go_out_without_headers() {
    let mut h = modern();
    let t = h.request(query_call());
    let list = h.expect_http("tools/list");
    let body = error_for(&list.json(), -32603, "cannot list");
    h.respond_http(list.id, 500, &[("Content-Type", "application/json")], body.to_string().as_bytes());
    let sent = h.expect_http("tools/call");
    assert!(param_headers(&sent).is_empty());
    assert!(h.warnings().iter().any(|w| matches!(w, Warning::Http { detail } if detail.contains("query"))));
    h.reply_http(&sent, text_result("ok"));
    h.ok(t);
    h.assert_all_answered();
}

#[test]
fn no_list_first_on_stdio_nor_on_a_legacy_session_and_a_legacy_32020_is_plain() {
    // Modern over stdio: no headers, so no list.
    let mut h = Harness::new(config(ProtocolMode::Auto));
    h.connect_modern();
    let t = h.request(query_call());
    let sent = h.expect_sent("tools/call");
    h.reply_error(&sent, -32020, "mismatch", None);
    assert!(matches!(h.err(t), RequestError::Rpc(e) if e.code == -32020));
    assert!(h.sent().is_empty(), "no refresh on stdio");

    // A legacy Streamable HTTP session.
    let (mut h, _listen) = legacy_http();
    let t = h.request(query_call());
    let sent = h.expect_http("tools/call");
    assert!(param_headers(&sent).is_empty());
    mismatch(&mut h, &sent, "mismatch");
    assert!(matches!(h.err(t), RequestError::Rpc(e) if e.code == -32020));
    assert!(h.started_http().is_empty());
}

#[test]
fn provided_meta_reaches_the_request_but_never_the_reserved_keys() {
    let mut h = Harness::new({
        let mut cfg = http_config("http://srv.test/mcp", &[]);
        let mut static_meta = Map::new();
        static_meta.insert("com.example/tenant".into(), json!("static"));
        static_meta.insert("com.example/static-only".into(), json!(1));
        cfg.request_meta = static_meta;
        cfg
    });
    let c = h.request(Request::Connect);
    h.http_connect_modern();
    h.ok(c);
    let request = Request::get_prompt("greet", Map::new());
    let ctx = RequestMetaContext::new("srv", &request);
    assert_eq!((ctx.server, ctx.method, ctx.name), ("srv", "prompts/get", Some("greet")));
    let mut provided = Map::new();
    provided.insert("traceparent".into(), json!("00-abc-def-01"));
    provided.insert("com.example/tenant".into(), json!("provided"));
    provided.insert("com.example/own".into(), json!("provided"));
    provided.insert("progressToken".into(), json!("forged"));
    provided.insert("io.modelcontextprotocol/protocolVersion".into(), json!("1999-01-01"));
    let mut own = Map::new();
    own.insert("com.example/own".into(), json!("request"));
    let mut opts = RequestOptions::default().meta(own);
    opts.provide_meta(provided);
    let r = h.request_opts(request, opts);
    let sent = h.expect_http("prompts/get");
    let meta = sent.json()["params"]["_meta"].clone();
    assert_eq!(meta["traceparent"], json!("00-abc-def-01"));
    assert_eq!(meta["com.example/tenant"], json!("provided"), "over the static map");
    assert_eq!(meta["com.example/static-only"], json!(1));
    assert_eq!(meta["com.example/own"], json!("request"), "under the request's own");
    assert!(meta.get("progressToken").is_none(), "{meta}");
    assert_eq!(meta["io.modelcontextprotocol/protocolVersion"], json!(MODERN_VERSION));
    h.reply_http(&sent, json!({"messages": []}));
    h.ok(r);
}

fn completion(context: bool) -> Request {
    let reference = CompletionReference::prompt("trip");
    if !context {
        return Request::complete(reference, "city", "Par");
    }
    let mut ctx = BTreeMap::new();
    ctx.insert("country".to_owned(), "France".to_owned());
    mcpwire_core::calls::Call::into_request(
        mcpwire_core::calls::Complete::new(reference, "city", "Par").with_context(ctx),
    )
}

/// Sends a completion with context to a stdio server on `version` and returns its params.
fn completion_params(version: &str) -> Value {
    let mut h = Harness::new(config(ProtocolMode::Auto));
    if version == MODERN_VERSION {
        h.connect_modern();
    } else {
        h.connect_legacy_with(version, json!({"completions": {}, "prompts": {}}));
    }
    let r = h.request(completion(true));
    let sent = h.expect_sent("completion/complete");
    h.reply(&sent, json!({"completion": {"values": ["Paris"]}}));
    h.ok(r);
    sent["params"].clone()
}

#[test]
fn completion_context_goes_to_2025_06_18_and_later_only() {
    for version in [MODERN_VERSION, "2025-11-25", "2025-06-18"] {
        let params = completion_params(version);
        assert_eq!(params["context"], json!({"arguments": {"country": "France"}}), "{version}");
        assert_eq!(params["argument"], json!({"name": "city", "value": "Par"}));
    }
    for version in ["2025-03-26", "2024-11-05"] {
        let params = completion_params(version);
        assert!(params.get("context").is_none(), "{version}: {params}");
        assert_eq!(params["ref"], json!({"type": "ref/prompt", "name": "trip"}));
    }
    // Without context, none is sent.
    let mut h = Harness::new(config(ProtocolMode::Auto));
    h.connect_modern();
    let r = h.request(completion(false));
    let sent = h.expect_sent("completion/complete");
    assert!(sent["params"].get("context").is_none());
    h.reply(&sent, json!({"completion": {"values": []}}));
    h.ok(r);
}

#[test]
fn a_completion_context_value_must_be_a_string() {
    let mut h = Harness::new(config(ProtocolMode::Auto));
    let mut ctx = Map::new();
    ctx.insert("count".into(), json!(3));
    let request = Request::Complete {
        reference: CompletionReference::prompt("trip"),
        argument: "city".into(),
        value: "P".into(),
        context: Some(ctx),
    };
    assert!(matches!(
        h.try_request(request, RequestOptions::default()),
        Err(mcpwire_core::CommandError::InvalidArgument(m)) if m.contains("count")
    ));
    assert!(h.events().iter().all(|e| !matches!(e, Event::Response { .. })));
}

#[test]
fn request_meta_context_names_what_the_request_is_about() {
    let cases = [
        (query_call(), "tools/call", Some("query")),
        (Request::read_resource("file:///a"), "resources/read", Some("file:///a")),
        (completion(false), "completion/complete", Some("trip")),
        (Request::ListTools, "tools/list", None),
        (Request::Ping, "ping", None),
        (Request::Custom { method: "x/y".into(), params: Value::Null }, "x/y", None),
    ];
    for (request, method, name) in cases {
        let ctx = RequestMetaContext::new("s", &request);
        assert_eq!((ctx.method, ctx.name), (method, name), "{request:?}");
    }
}
