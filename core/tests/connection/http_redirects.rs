//! HTTP redirects against a scripted server: same-origin `307`/`308` followed for every method
//! with the method, body and headers kept and the final URL remembered; the chain bounded and
//! loop-free; every other redirect (another origin, `301`/`302`/`303`, no `Location`) refused
//! with a typed error, and credentials never sent off the origin.

use serde_json::json;

use mcpwire_core::mcp_servers::TransportKind;
use mcpwire_core::{
    ClientError, ConnectionConfig, HttpMethod, RedirectError, RedirectRefusal, Request, RequestError,
    MAX_REDIRECTS,
};

use crate::harness::{discover_ok, init_result, secs, Harness};
use crate::http_harness::{http_config, legacy_http, modern_http, result_for, sse_message, Sent};

/// The configured credentials a redirect must never carry off the origin.
const CREDENTIALS: [(&str, &str); 3] =
    [("Authorization", "Bearer secret-token"), ("Cookie", "session=s3cr3t"), ("X-Api-Key", "k-123")];

/// A configuration for `url` (Streamable HTTP) with the credentials of [`CREDENTIALS`].
fn config_with_credentials(url: &str) -> ConnectionConfig {
    let mut cfg = http_config(url, &[TransportKind::StreamableHttp]);
    if let mcpwire_core::TransportConfig::Http(http) = &mut cfg.transport {
        http.headers = CREDENTIALS.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect();
    }
    cfg
}

/// Answers `sent` with a redirect of `status` to `location`; returns the exchange that follows
/// it, after checking the first was aborted.
fn redirect(h: &mut Harness, sent: &Sent, status: u16, location: &str) -> Sent {
    h.head(sent.id, status, &[("Location", location), ("Content-Length", "0")]);
    assert!(h.aborted().contains(&sent.id), "the redirect's own exchange is closed");
    let mut started = h.started_http();
    assert_eq!(started.len(), 1, "one exchange follows the redirect: {started:#?}");
    started.remove(0)
}

/// `sent` again at `url`: same method, headers and body.
fn assert_resent(again: &Sent, sent: &Sent, url: &str) {
    assert_eq!(again.req.url, url);
    assert_eq!(again.req.method, sent.req.method);
    assert_eq!(again.req.headers, sent.req.headers);
    assert_eq!(again.req.body, sent.req.body);
}

/// The redirect error a request ended with.
fn refused(err: RequestError) -> RedirectError {
    match err {
        RequestError::Redirect(e) => e,
        other => panic!("expected a refused redirect, got {other:?}"),
    }
}

#[test]
fn a_307_on_post_is_followed_with_body_and_headers_and_the_final_url_is_remembered() {
    let mut h = Harness::new(config_with_credentials("http://srv.test/mcp/"));
    let c = h.request(Request::Connect);
    let probe = h.expect_http("server/discover");
    let again = redirect(&mut h, &probe, 307, "http://srv.test/mcp");
    assert_resent(&again, &probe, "http://srv.test/mcp");
    for (name, value) in CREDENTIALS {
        assert_eq!(again.header(name), Some(value), "{name} stays on the origin");
    }
    h.reply_http(&again, discover_ok());
    h.take_connected();
    h.ok(c);
    // Later requests go straight to the final URL.
    let t = h.request(Request::ListTools);
    let list = h.expect_http("tools/list");
    assert_eq!(list.req.url, "http://srv.test/mcp");
    h.reply_http(&list, json!({"tools": []}));
    h.ok(t);
}

#[test]
fn a_308_on_post_is_followed_for_a_request_of_the_host() {
    let mut h = modern_http();
    let t = h.request(Request::ListPrompts);
    let sent = h.expect_http("prompts/list");
    let again = redirect(&mut h, &sent, 308, "/v2/mcp?tenant=a");
    assert_resent(&again, &sent, "http://srv.test/v2/mcp?tenant=a");
    let again2 = redirect(&mut h, &again, 307, "next");
    assert_resent(&again2, &sent, "http://srv.test/v2/next");
    h.reply_http(&again2, json!({"prompts": []}));
    h.ok(t);
    // The chain started at the configured URL: later requests go to where it ended.
    h.request(Request::ListResources);
    assert_eq!(h.expect_http("resources/list").req.url, "http://srv.test/v2/next");
}

#[test]
fn a_307_on_the_http_sse_stream_get_is_followed() {
    let mut h = Harness::new(http_config("http://srv.test/sse/", &[TransportKind::Sse]));
    let c = h.request(Request::Connect);
    let stream = h.expect_http("GET");
    let again = redirect(&mut h, &stream, 307, "/sse");
    assert_resent(&again, &stream, "http://srv.test/sse");
    assert_eq!(again.header("Accept"), Some("text/event-stream"));
    h.sse_open(again.id, "event: endpoint\ndata: /messages?s=1\n\n");
    let init = h.expect_http("initialize");
    assert_eq!(init.req.url, "http://srv.test/messages?s=1");
    // The HTTP+SSE POST endpoint redirects too.
    let init_again = redirect(&mut h, &init, 307, "/messages/?s=1");
    assert_resent(&init_again, &init, "http://srv.test/messages/?s=1");
    h.accepted(&init_again);
    let msg = result_for(&init.json(), init_result("2024-11-05", json!({})));
    h.body(again.id, sse_message(None, &msg).as_bytes());
    h.ok(c);
    h.take_connected();
    let initialized = h.expect_http("notifications/initialized");
    assert_eq!(initialized.req.url, "http://srv.test/messages/?s=1", "the endpoint's final URL is kept");
}

#[test]
fn a_308_on_the_legacy_get_stream_and_the_close_delete_are_followed() {
    let (mut h, listen) = legacy_http();
    // The GET stream drops; its reconnection is redirected.
    h.end(listen.id);
    h.fire_next_timer();
    let get = h.expect_http("GET");
    let again = redirect(&mut h, &get, 308, "http://srv.test/mcp/stream");
    assert_resent(&again, &get, "http://srv.test/mcp/stream");
    assert_eq!(again.header("Mcp-Session-Id"), Some("sess-1"));
    h.sse_open(again.id, ": open\n\n");
    h.close();
    let delete = h.expect_http("DELETE");
    assert!(h.aborted().contains(&again.id), "closing aborts the redirected GET stream");
    let delete_again = redirect(&mut h, &delete, 307, "/mcp/end");
    assert_resent(&delete_again, &delete, "http://srv.test/mcp/end");
    assert_eq!(delete_again.req.method, HttpMethod::Delete);
    assert!(!h.conn.is_closed(), "waits for the redirected DELETE");
    h.respond_http(delete_again.id, 200, &[], b"");
    assert!(h.conn.is_closed());
}

#[test]
fn the_sixth_redirect_in_a_row_is_refused() {
    let mut h = modern_http();
    let t = h.request(Request::ListTools);
    let mut sent = h.expect_http("tools/list");
    for hop in 1..=MAX_REDIRECTS {
        sent = redirect(&mut h, &sent, 307, &format!("/hop{hop}"));
    }
    h.head(sent.id, 307, &[("Location", "/hop6")]);
    assert!(h.started_http().is_empty(), "no seventh request");
    let err = refused(h.err(t));
    assert_eq!((err.status, err.refusal), (307, RedirectRefusal::TooMany));
    assert_eq!(err.location.as_deref(), Some("http://srv.test/hop6"));
}

#[test]
fn a_redirect_loop_is_refused() {
    let mut h = modern_http();
    let t = h.request(Request::ListTools);
    let a = h.expect_http("tools/list");
    let b = redirect(&mut h, &a, 307, "/b");
    h.head(b.id, 308, &[("Location", "/mcp")]);
    assert!(h.started_http().is_empty());
    let err = refused(h.err(t));
    assert_eq!((err.status, err.refusal), (308, RedirectRefusal::Loop));
    assert!(err.to_string().contains("redirect loop"), "{err}");
}

#[test]
fn a_redirect_to_another_origin_is_refused_and_sends_no_credentials_there() {
    for location in
        ["http://evil.test/mcp", "https://srv.test/mcp", "http://srv.test:8080/mcp", "//evil.test/x"]
    {
        let mut h = Harness::new(config_with_credentials("http://srv.test/mcp"));
        let c = h.request(Request::Connect);
        let probe = h.expect_http("server/discover");
        h.head(probe.id, 307, &[("Location", location)]);
        assert!(h.started_http().is_empty(), "{location}: nothing is sent to another origin");
        let err = refused(h.err(c));
        assert_eq!((err.status, err.refusal), (307, RedirectRefusal::CrossOrigin), "{location}");
        let text = ClientError::Request(RequestError::Redirect(err.clone())).to_string();
        assert!(text.contains("307") && text.contains("origin"), "{text}");
    }
    // The Location is named, its credentials redacted and its length capped.
    let mut h = modern_http();
    let t = h.request(Request::ListTools);
    let sent = h.expect_http("tools/list");
    let long = format!("http://evil.test/cb?access_token=abc&pad={}", "x".repeat(500));
    h.head(sent.id, 308, &[("Location", &long)]);
    let err = refused(h.err(t));
    let named = err.location.clone().expect("the Location");
    assert!(named.starts_with("http://evil.test/cb?access_token=***"), "{named}");
    assert!(named.ends_with("[truncated]") && named.chars().count() < 220, "{named}");
    assert!(err.to_string().contains("HTTP 308 redirect to http://evil.test/cb"), "{err}");
}

#[test]
fn redirects_other_than_307_and_308_are_refused() {
    for status in [301, 302, 303, 304] {
        let mut h = modern_http();
        let t = h.request(Request::ListTools);
        let sent = h.expect_http("tools/list");
        h.head(sent.id, status, &[("Location", "/elsewhere")]);
        assert!(h.started_http().is_empty(), "{status} is not followed");
        let err = refused(h.err(t));
        assert_eq!((err.status, err.refusal), (status, RedirectRefusal::Status));
        assert_eq!(err.location.as_deref(), Some("http://srv.test/elsewhere"));
        assert!(err.to_string().contains(&format!("HTTP {status} redirect")), "{err}");
    }
}

#[test]
fn a_redirect_without_a_usable_location_is_refused() {
    for (headers, want) in [
        (vec![], RedirectRefusal::MissingLocation),
        (vec![("Location", "ftp://srv.test/mcp")], RedirectRefusal::InvalidLocation),
    ] {
        let mut h = modern_http();
        let t = h.request(Request::ListTools);
        let sent = h.expect_http("tools/list");
        h.head(sent.id, 307, &headers);
        assert!(h.started_http().is_empty());
        assert_eq!(refused(h.err(t)).refusal, want);
    }
}

#[test]
fn a_refused_redirect_on_the_get_stream_gives_the_stream_up_with_the_reason() {
    let (mut h, listen) = legacy_http();
    h.end(listen.id);
    h.fire_next_timer();
    let get = h.expect_http("GET");
    h.head(get.id, 302, &[("Location", "/login")]);
    let warnings: Vec<String> = h.warnings().iter().map(ToString::to_string).collect();
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("refused the event stream (HTTP 302 redirect to http://srv.test/login")),
        "{warnings:?}"
    );
    h.advance(secs(60));
    assert!(h.started_http().is_empty(), "the stream is given up");
}
