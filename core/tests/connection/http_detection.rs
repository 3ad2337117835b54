//! A failed HTTP transport detection: the typed error lists every transport tried (method,
//! URL, outcome) and, when every try got 404, the common endpoints to try; HTTP+SSE is only
//! reported as deprecated once the server served it.

use serde_json::json;

use mcpwire_core::mcp_servers::TransportKind;
use mcpwire_core::{
    AttemptOutcome, Deprecation, HttpMethod, Request, RequestError, TransportAttempt, Warning,
};

use crate::harness::{init_result, Harness};
use crate::http_harness::{http_config, result_for, sse_message};

/// Every transport of an auto-detected `url` answers `statuses` (Streamable HTTP's probe and
/// `initialize`, the HTTP+SSE GET, plain HTTP's `initialize`); returns the connect error.
fn detect(url: &str, statuses: [u16; 4]) -> (Harness, RequestError) {
    let mut cfg = http_config(url, &[]);
    cfg.deprecation_notices = Some(mcpwire_core::DeprecationNotices::PerConnection);
    let mut h = Harness::new(cfg);
    let c = h.request(Request::Connect);
    for (method, status) in ["server/discover", "initialize", "GET", "initialize"].into_iter().zip(statuses) {
        let sent = h.expect_http(method);
        h.respond_http(sent.id, status, &[("Content-Type", "text/plain")], b"Not Found");
    }
    let err = h.err(c);
    (h, err)
}

fn attempts(err: &RequestError) -> (&[TransportAttempt], &[String]) {
    match err {
        RequestError::NoTransport { attempts, suggestions } => (attempts, suggestions),
        other => panic!("expected NoTransport, got {other:?}"),
    }
}

fn deprecated_sse(w: &Warning) -> bool {
    matches!(w, Warning::Deprecated { what: Deprecation::HttpSseTransport, .. })
}

#[test]
fn every_try_is_listed_and_404_everywhere_suggests_the_common_endpoints() {
    let (mut h, err) = detect("http://srv.test:8080/", [404; 4]);
    let (tried, suggestions) = attempts(&err);
    let summary: Vec<(TransportKind, HttpMethod, &str, &AttemptOutcome)> =
        tried.iter().map(|a| (a.transport, a.method, a.url.as_str(), &a.outcome)).collect();
    let url = "http://srv.test:8080/";
    assert_eq!(
        summary,
        [
            (TransportKind::StreamableHttp, HttpMethod::Post, url, &AttemptOutcome::Status(404)),
            (TransportKind::Sse, HttpMethod::Get, url, &AttemptOutcome::Status(404)),
            (TransportKind::PlainHttp, HttpMethod::Post, url, &AttemptOutcome::Status(404)),
        ]
    );
    assert_eq!(suggestions, ["http://srv.test:8080/mcp", "http://srv.test:8080/sse"]);
    let text = err.to_string();
    for part in [
        "Streamable HTTP POST http://srv.test:8080/ -> HTTP 404",
        "HTTP+SSE GET http://srv.test:8080/ -> HTTP 404",
        "plain HTTP POST http://srv.test:8080/ -> HTTP 404",
        "try http://srv.test:8080/mcp or http://srv.test:8080/sse",
    ] {
        assert!(text.contains(part), "{part:?} missing from {text}");
    }
    assert!(!h.warnings().iter().any(deprecated_sse), "HTTP+SSE was only tried");
}

#[test]
fn the_suggestions_sit_below_the_path_and_need_404_everywhere() {
    let (_, err) = detect("http://srv.test/api/?key=1", [404; 4]);
    assert_eq!(attempts(&err).1, ["http://srv.test/api/mcp", "http://srv.test/api/sse"]);
    let (_, err) = detect("http://srv.test/api", [404, 405, 404, 400]);
    let (tried, suggestions) = attempts(&err);
    assert!(suggestions.is_empty(), "{suggestions:?}");
    let outcomes: Vec<u16> = tried.iter().map(|a| a.outcome.status()).collect();
    assert_eq!(outcomes, [405, 404, 400]);
    assert!(!err.to_string().contains("try http"), "{err}");
}

#[test]
fn a_json_rpc_error_and_a_stream_without_endpoint_are_listed_too() {
    let mut h = Harness::new(http_config("http://srv.test/", &[]));
    let c = h.request(Request::Connect);
    let probe = h.expect_http("server/discover");
    h.respond_http(probe.id, 404, &[], b"");
    let init = h.expect_http("initialize");
    let error =
        json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "no sessions here"}});
    h.respond_http(init.id, 400, &[("Content-Type", "application/json")], error.to_string().as_bytes());
    let stream = h.expect_http("GET");
    h.sse_open(stream.id, ": nothing\n\n");
    h.end(stream.id);
    let plain = h.expect_http("initialize");
    h.respond_http(plain.id, 404, &[], b"");
    let err = h.err(c);
    let (tried, suggestions) = attempts(&err);
    assert!(matches!(&tried[0].outcome, AttemptOutcome::Rpc { status: 400, error } if error.code == -32600));
    assert_eq!(tried[1].outcome, AttemptOutcome::NoAnswer { status: 200 });
    assert!(suggestions.is_empty());
    let text = err.to_string();
    assert!(text.contains("no sessions here") && text.contains("HTTP 200 without an answer"), "{text}");
}

#[test]
fn one_transport_configured_keeps_its_plain_error() {
    let mut h = Harness::new(http_config("http://srv.test/mcp", &[]));
    let c = h.request(Request::Connect);
    let probe = h.expect_http("server/discover");
    h.respond_http(probe.id, 404, &[], b"");
    let init = h.expect_http("initialize");
    h.respond_http(init.id, 404, &[], b"");
    assert!(matches!(h.err(c), RequestError::Http { status: 404, .. }));
}

#[test]
fn http_sse_is_reported_deprecated_once_the_server_serves_it() {
    let mut cfg = http_config("http://srv.test/", &[]);
    cfg.deprecation_notices = Some(mcpwire_core::DeprecationNotices::PerConnection);
    let mut h = Harness::new(cfg);
    let c = h.request(Request::Connect);
    let stream = h.refuse_streamable(404);
    h.sse_open(stream.id, ": opening\n\n");
    assert!(
        !h.warnings().iter().any(deprecated_sse),
        "an open stream without an endpoint is not HTTP+SSE yet"
    );
    h.body(stream.id, b"event: endpoint\ndata: /messages\n\n");
    assert_eq!(h.warnings().iter().filter(|w| deprecated_sse(w)).count(), 1);
    let init = h.expect_http("initialize");
    h.accepted(&init);
    let msg = result_for(&init.json(), init_result("2024-11-05", json!({})));
    h.body(stream.id, sse_message(None, &msg).as_bytes());
    h.ok(c);
}
