//! mcpwire-blocking's HTTP adapter (`mcpwire_blocking::http`) against the scripted server of
//! `mcp_tests::support::scripted_http`: streaming, no decompression, no redirects, exact headers,
//! abort, connect failures, keep-alive. Then the whole blocking client over HTTP against real
//! peers (`mcp_tests::define_http_peer_checks!`), which need `$MCP_PEERS` (see `real_peers.rs`).

#![cfg(feature = "http")]

use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use mcp_tests::support::scripted_http::{chunk, Reply, ScriptedHttpServer, Step};
use mcpwire_blocking::http::{HttpClient, HttpClientConfig, HttpExchange, HttpReport, ProxySetting};
use mcpwire_core::{HttpMethod, HttpRequest};

/// How long a test waits for any one report.
const PATIENCE: Duration = Duration::from_secs(10);

/// A client that ignores proxy variables of the machine running the tests.
fn client() -> HttpClient {
    HttpClient::new(&HttpClientConfig::default().proxy(ProxySetting::None)).expect("an HTTP client")
}

fn request(method: HttpMethod, url: &str, headers: &[(&str, &str)], body: &[u8]) -> HttpRequest {
    HttpRequest {
        method,
        url: url.to_owned(),
        headers: headers.iter().map(|(n, v)| ((*n).to_owned(), (*v).to_owned())).collect(),
        body: body.to_vec(),
        connect_timeout: Duration::from_secs(5),
        destination: mcpwire_core::Destination::Any,
    }
}

fn get(url: &str) -> HttpRequest {
    request(HttpMethod::Get, url, &[], b"")
}

/// Starts an exchange whose reports arrive on the returned channel.
fn start(client: &HttpClient, req: HttpRequest) -> (HttpExchange, Receiver<HttpReport>) {
    let (tx, rx) = mpsc::sync_channel(16);
    let exchange = client.start(req, move |r| tx.send(r).is_ok()).expect("start an exchange");
    (exchange, rx)
}

/// Every report of an exchange, through its `End` or `Failed`.
fn run(client: &HttpClient, req: HttpRequest) -> Vec<HttpReport> {
    let (_exchange, rx) = start(client, req);
    let mut out = Vec::new();
    loop {
        let r = rx.recv_timeout(PATIENCE).unwrap_or_else(|e| panic!("no end after {out:?}: {e}"));
        let last = matches!(r, HttpReport::End | HttpReport::Failed(_) | HttpReport::Refused(_));
        out.push(r);
        if last {
            return out;
        }
    }
}

/// The head, the body bytes and the chunk count of a successful exchange.
fn parts(reports: &[HttpReport]) -> (&mcpwire_core::HttpHead, Vec<u8>, usize) {
    let [HttpReport::Head(head), middle @ .., HttpReport::End] = reports else {
        panic!("expected head, body chunks, end: {reports:?}");
    };
    let mut body = Vec::new();
    for r in middle {
        let HttpReport::Body(b) = r else { panic!("expected only body chunks: {reports:?}") };
        body.extend_from_slice(b);
    }
    (head, body, middle.len())
}

#[test]
fn chunked_body_is_reported_piece_by_piece() {
    let pause = Duration::from_millis(150);
    let server = ScriptedHttpServer::start(move |_| {
        Reply::chunked(
            200,
            &[("content-type", "text/event-stream")],
            &[(Duration::ZERO, b"data: one\n\n"), (pause, b"data: two\n\n"), (pause, b"data: three\n\n")],
        )
    });
    let reports = run(&client(), get(&server.url("/sse")));
    let (head, body, chunks) = parts(&reports);
    assert_eq!(head.status, 200);
    assert_eq!(head.header("Content-Type"), Some("text/event-stream"));
    assert_eq!(body, b"data: one\n\ndata: two\n\ndata: three\n\n");
    assert!(chunks >= 3, "each delayed piece is its own report: {reports:?}");
}

/// A gzip body, `{"jsonrpc":"2.0"}` compressed.
const GZIP_BODY: [u8; 37] = [
    0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0xab, 0x56, 0xca, 0x2a, 0xce, 0xcf, 0x2b,
    0x2a, 0x48, 0x56, 0xb2, 0x52, 0x32, 0xd2, 0x33, 0x50, 0xaa, 0x05, 0x00, 0xc7, 0x1e, 0x3d, 0x2d, 0x11,
    0x00, 0x00, 0x00,
];

#[test]
fn gzip_bodies_arrive_compressed_and_accept_encoding_is_ours_alone() {
    let server = ScriptedHttpServer::start(|_| {
        Reply::fixed(200, &[("content-type", "application/json"), ("content-encoding", "gzip")], &GZIP_BODY)
    });
    let client = client();
    let reports = run(&client, get(&server.url("/mcp")));
    let (head, body, _) = parts(&reports);
    assert_eq!(head.header("content-encoding"), Some("gzip"));
    assert_eq!(head.header("content-length"), Some("37"), "the head is the wire's");
    assert_eq!(body, GZIP_BODY, "never decompressed");
    assert_eq!(server.requests()[0].header("accept-encoding"), None, "no Accept-Encoding of ureq's own");

    let req = request(HttpMethod::Get, &server.url("/mcp"), &[("Accept-Encoding", "gzip")], b"");
    let (_, body, _) = parts(&run(&client, req));
    assert_eq!(body, GZIP_BODY);
    assert_eq!(server.requests()[1].header("accept-encoding"), Some("gzip"));
}

#[test]
fn redirects_are_reported_not_followed() {
    let server = ScriptedHttpServer::start(|req| {
        if req.target == "/mcp" {
            Reply::fixed(302, &[("location", "/elsewhere")], b"")
        } else {
            Reply::fixed(200, &[], b"followed")
        }
    });
    let reports = run(&client(), request(HttpMethod::Post, &server.url("/mcp"), &[], b"{}"));
    let (head, body, _) = parts(&reports);
    assert_eq!(head.status, 302);
    assert_eq!(head.header("location"), Some("/elsewhere"));
    assert!(body.is_empty());
    assert_eq!(server.requests().len(), 1, "the redirect was not followed");
}

#[test]
fn error_statuses_are_responses() {
    let server = ScriptedHttpServer::start(|_| Reply::fixed(404, &[], b"not here"));
    let reports = run(&client(), get(&server.url("/mcp")));
    let (head, body, _) = parts(&reports);
    assert_eq!(head.status, 404);
    assert_eq!(body, b"not here");
}

#[test]
fn exactly_our_headers_are_sent() {
    let server = ScriptedHttpServer::start(|_| Reply::fixed(202, &[], b""));
    let headers = [
        ("Accept", "application/json, text/event-stream"),
        ("Content-Type", "application/json"),
        ("Mcp-Protocol-Version", "2025-06-18"),
        ("Authorization", "Bearer secret"),
        ("X-Repeated", "one"),
        ("X-Repeated", "two"),
    ];
    let body = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    let reports = run(&client(), request(HttpMethod::Post, &server.url("/mcp?x=1"), &headers, body));
    assert_eq!(parts(&reports).0.status, 202);
    let seen = &server.requests()[0];
    assert_eq!((seen.method.as_str(), seen.target.as_str()), ("POST", "/mcp?x=1"));
    assert_eq!(seen.body, body);
    let framing = ["host", "content-length", "transfer-encoding", "connection"];
    let extra: Vec<_> = seen
        .headers
        .iter()
        .filter(|(n, _)| !headers.iter().any(|(h, _)| h.eq_ignore_ascii_case(n)))
        .filter(|(n, _)| !framing.iter().any(|f| f.eq_ignore_ascii_case(n)))
        .collect();
    assert!(extra.is_empty(), "headers nobody asked for: {extra:?}");
    let ours: Vec<(String, &str)> = seen
        .headers
        .iter()
        .filter(|(n, _)| headers.iter().any(|(h, _)| h.eq_ignore_ascii_case(n)))
        .map(|(n, v)| (n.to_ascii_lowercase(), v.as_str()))
        .collect();
    let wanted: Vec<(String, &str)> = headers.iter().map(|(n, v)| (n.to_ascii_lowercase(), *v)).collect();
    assert_eq!(ours, wanted, "names, values and order");
    assert_eq!(seen.header("host"), Some(server.addr().to_string().as_str()));
    assert_eq!(seen.header("content-length"), Some(body.len().to_string().as_str()));
}

#[test]
fn get_and_delete_carry_no_body_framing() {
    let server = ScriptedHttpServer::start(|_| Reply::fixed(200, &[], b""));
    let client = client();
    run(&client, get(&server.url("/mcp")));
    run(&client, request(HttpMethod::Delete, &server.url("/mcp"), &[("Mcp-Session-Id", "s1")], b""));
    let seen = server.requests();
    assert_eq!(seen[0].method, "GET");
    assert_eq!(seen[1].method, "DELETE");
    assert_eq!(seen[1].header("mcp-session-id"), Some("s1"));
    for s in &seen {
        assert_eq!(s.header("content-length"), None, "{s:?}");
        assert_eq!(s.header("transfer-encoding"), None, "{s:?}");
    }
}

#[test]
fn abort_closes_an_endless_stream_and_silences_it() {
    let server = ScriptedHttpServer::start(|_| {
        Reply::endless(
            200,
            &[("content-type", "text/event-stream")],
            b": ping\n\n",
            Duration::from_millis(30),
        )
    });
    abort_and_check(&server);
}

/// The abort must wake a read that is blocked on a silent stream: the next chunk would come
/// only after a minute.
#[test]
fn abort_wakes_a_blocked_read() {
    let server =
        ScriptedHttpServer::start(|_| Reply::endless(200, &[], b": ping\n\n", Duration::from_secs(60)));
    abort_and_check(&server);
}

/// Starts a GET of an endless stream, aborts it after its first chunk, and checks that the
/// server sees the connection closed at once and that nothing but raced chunks is reported.
fn abort_and_check(server: &ScriptedHttpServer) {
    let (exchange, rx) = start(&client(), get(&server.url("/sse")));
    assert!(matches!(rx.recv_timeout(PATIENCE), Ok(HttpReport::Head(h)) if h.status == 200));
    assert!(matches!(rx.recv_timeout(PATIENCE), Ok(HttpReport::Body(_))));
    // Give the exchange thread time to block in its next read.
    std::thread::sleep(Duration::from_millis(300));
    let aborted_at = Instant::now();
    exchange.abort();
    let closed = server.wait_closed_by_peer(PATIENCE);
    assert_eq!(closed, [1], "the server saw the connection closed");
    assert!(aborted_at.elapsed() < Duration::from_secs(2), "closed promptly: {:?}", aborted_at.elapsed());
    // Reports already on their way may still be queued; after that, silence, and never an end.
    std::thread::sleep(Duration::from_millis(200));
    let raced: Vec<HttpReport> = rx.try_iter().collect();
    assert!(raced.iter().all(|r| matches!(r, HttpReport::Body(_))), "{raced:?}");
    std::thread::sleep(Duration::from_millis(300));
    assert!(rx.try_iter().next().is_none(), "nothing after the abort settled");
    assert!(exchange.is_done());
}

/// `/sse` streams `x` every `every` forever; anything else answers `ok`.
fn sse_or_ok(every: Duration) -> ScriptedHttpServer {
    ScriptedHttpServer::start(move |req| {
        if req.target == "/sse" {
            Reply::endless(200, &[], b"x", every)
        } else {
            Reply::fixed(200, &[], b"ok")
        }
    })
}

#[test]
fn an_aborted_connection_is_not_reused() {
    let server = sse_or_ok(Duration::from_millis(30));
    let client = client();
    let (exchange, rx) = start(&client, get(&server.url("/sse")));
    assert!(matches!(rx.recv_timeout(PATIENCE), Ok(HttpReport::Head(_))));
    drop(exchange); // dropping the handle aborts too
    assert_eq!(server.wait_closed_by_peer(PATIENCE), [1]);
    let (_, body, _) = parts(&run(&client, get(&server.url("/mcp"))));
    assert_eq!(body, b"ok");
    assert_eq!(server.accepts(), 2);
}

#[test]
fn connection_refused_fails_the_exchange() {
    let port = mcp_tests::support::http_peers::free_port();
    let reports = run(&client(), get(&format!("http://127.0.0.1:{port}/mcp")));
    let [HttpReport::Failed(error)] = &reports[..] else { panic!("{reports:?}") };
    // The operating system's verdict is kept, not only described.
    assert_eq!(error.kind(), std::io::ErrorKind::ConnectionRefused, "{error}");
}

#[test]
fn malformed_responses_fail_the_exchange() {
    let server =
        ScriptedHttpServer::start(|_| Reply::raw(vec![Step::Send(b"garbage\r\n\r\n".to_vec())]).then_close());
    let reports = run(&client(), get(&server.url("/mcp")));
    assert!(matches!(&reports[..], [HttpReport::Failed(_)]), "{reports:?}");
}

#[test]
fn a_body_cut_short_fails_after_its_bytes() {
    let server = ScriptedHttpServer::start(|_| {
        let head = b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n".to_vec();
        Reply::raw(vec![Step::Send(head), Step::Send(chunk(b"partial"))]).then_close()
    });
    let reports = run(&client(), get(&server.url("/mcp")));
    assert!(matches!(reports.first(), Some(HttpReport::Head(_))), "{reports:?}");
    assert!(matches!(reports.last(), Some(HttpReport::Failed(_))), "{reports:?}");
    let body: Vec<u8> = reports
        .iter()
        .filter_map(|r| if let HttpReport::Body(b) = r { Some(b.as_slice()) } else { None })
        .flatten()
        .copied()
        .collect();
    assert_eq!(body, b"partial");
}

#[test]
fn sequential_exchanges_share_one_connection() {
    let server = ScriptedHttpServer::start(|req| Reply::fixed(200, &[], req.target.as_bytes()));
    let client = client();
    let first = run(&client, request(HttpMethod::Post, &server.url("/one"), &[], b"1"));
    let second = run(&client, get(&server.url("/two")));
    assert_eq!(parts(&first).1, b"/one");
    assert_eq!(parts(&second).1, b"/two");
    assert_eq!(server.accepts(), 1, "keep-alive");
    let connections: Vec<usize> = server.requests().iter().map(|r| r.connection).collect();
    assert_eq!(connections, [1, 1]);
}

/// Aborting an exchange that already ended is a no-op, even when its connection now serves
/// another exchange.
#[test]
fn aborting_a_finished_exchange_spares_the_connections_next_user() {
    let server = sse_or_ok(Duration::from_millis(20));
    let client = client();
    let (first, rx) = start(&client, get(&server.url("/mcp")));
    let reports: Vec<HttpReport> = rx.iter().take(3).collect();
    assert!(matches!(reports.last(), Some(HttpReport::End)), "{reports:?}");
    let (second, rx) = start(&client, get(&server.url("/sse")));
    assert!(matches!(rx.recv_timeout(PATIENCE), Ok(HttpReport::Head(_))));
    first.abort();
    drop(first);
    for _ in 0..5 {
        assert!(matches!(rx.recv_timeout(PATIENCE), Ok(HttpReport::Body(_))));
    }
    assert_eq!(server.accepts(), 1, "the second exchange reused the first one's connection");
    assert!(server.wait_closed_by_peer(Duration::from_millis(100)).is_empty());
    drop(second);
    assert_eq!(server.wait_closed_by_peer(PATIENCE), [1]);
}

#[test]
fn bad_configuration_is_refused() {
    let bad_pem = HttpClientConfig::default()
        .root_certificate(b"-----BEGIN CERTIFICATE-----\nnot base64!\n-----END CERTIFICATE-----\n".to_vec());
    assert!(HttpClient::new(&bad_pem).is_err());
    let bad_proxy = HttpClientConfig::default().proxy(ProxySetting::Url("::not a url::".into()));
    assert!(HttpClient::new(&bad_proxy).is_err());
    let built = mcpwire_blocking::Client::builder()
        .server(mcpwire_core::ServerSpec::from_target("s", "http://127.0.0.1:1/mcp").expect("a URL spec"))
        .http_client(bad_proxy)
        .build();
    assert!(built.is_err());
}

/// The blocking client end to end over Streamable HTTP: `py-mcp-peer`, stateless, JSON
/// responses.
#[test]
fn blocking_client_calls_echo_over_http() {
    let args = ["streamable-http", "--port", "{port}", "--stateless", "--json"];
    let peer = mcp_tests::support::http_peers::HttpPeer::start("py-mcp-peer", &args, &[]);
    let spec = mcpwire_core::ServerSpec::from_target("py", &peer.url("/mcp"))
        .expect("a URL spec")
        .request_timeout(Duration::from_secs(30));
    let client = mcpwire_blocking::Client::builder()
        .server(spec)
        .http_client(HttpClientConfig::default().proxy(ProxySetting::None))
        .build()
        .expect("a client");
    let result = client.call_tool("echo", serde_json::json!({"message": "hi"}));
    let result = result.send().unwrap_or_else(|e| panic!("echo: {e}; peer stderr: {}", peer.stderr()));
    assert_eq!(result.text(), "hi");
    client.close().send();
}

/// HTTPS with the extra root certificates of `HttpClientConfig`, against the scripted server whose
/// certificate (for `127.0.0.1` and `localhost`) is signed by `tests/fixtures/tls/ca.pem`.
mod https {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::CertificateDer;

    use super::*;

    const ROOT: &[u8] = include_bytes!("../fixtures/tls/ca.pem");
    const SERVER_CERT: &[u8] = include_bytes!("../fixtures/tls/server.pem");
    const SERVER_KEY: &[u8] = include_bytes!("../fixtures/tls/server.key");

    /// Serves `hello` over HTTPS to every request; the base URL.
    fn serve() -> String {
        let fixture = ScriptedHttpServer::start_tls(SERVER_CERT, SERVER_KEY, |_| {
            Reply::stream(200, &[], std::iter::once(b"hello".to_vec())).then_close()
        });
        let url = fixture.url("");
        // The server serves until dropped; these tests end with the process.
        std::mem::forget(fixture);
        url
    }

    fn https_client(roots: Vec<Vec<u8>>) -> HttpClient {
        let mut config = HttpClientConfig::default().proxy(ProxySetting::None);
        for r in roots {
            config = config.root_certificate(r);
        }
        HttpClient::new(&config).expect("an HTTPS client")
    }

    #[test]
    fn an_extra_pem_root_is_trusted() {
        let url = serve();
        let reports = run(&https_client(vec![ROOT.to_vec()]), get(&format!("{url}/mcp")));
        let (head, body, _) = parts(&reports);
        assert_eq!(head.status, 200);
        assert_eq!(body, b"hello");
    }

    #[test]
    fn an_extra_der_root_is_trusted() {
        let url = serve();
        let der = CertificateDer::from_pem_slice(ROOT).expect("root").to_vec();
        let (_, body, _) = parts(&run(&https_client(vec![der]), get(&format!("{url}/mcp"))));
        assert_eq!(body, b"hello");
    }

    #[test]
    fn an_unknown_issuer_fails_the_exchange() {
        let url = serve();
        let reports = run(&https_client(Vec::new()), get(&format!("{url}/mcp")));
        let [HttpReport::Failed(detail)] = &reports[..] else { panic!("{reports:?}") };
        assert!(detail.to_string().to_lowercase().contains("certificate"), "{detail}");
    }
}

/// The checking resolver of `Destination::Public` requests: only the allowed addresses of a
/// name are handed to ureq (the loopback one, listed after a private one), a name with none
/// allowed is refused with a typed report naming the address and its class, and a request that
/// would go through a proxy is refused rather than sent unchecked.
#[test]
fn public_requests_connect_only_to_checked_addresses() {
    use mcpwire_core::address_class::AddressClass;
    use mcpwire_core::Destination;
    let server = ScriptedHttpServer::start(|_| Reply::fixed(200, &[], b"ok"));
    let port = server.addr().port();
    let private: std::net::IpAddr = "10.0.0.1".parse().unwrap();
    let config = HttpClientConfig::default()
        .proxy(ProxySetting::None)
        .resolve("mix.example.test", [private, "127.0.0.1".parse().unwrap()])
        .resolve("inside.example.test", [private]);
    let client = HttpClient::new(&config).expect("an HTTP client");
    let public =
        |url: &str, loopback: bool| HttpRequest { destination: Destination::Public { loopback }, ..get(url) };

    let reports = run(&client, public(&format!("http://mix.example.test:{port}/x"), true));
    let (head, body, _) = parts(&reports);
    assert_eq!((head.status, body.as_slice()), (200, &b"ok"[..]));

    for (url, loopback) in [
        (format!("http://inside.example.test:{port}/x"), true),
        (format!("http://mix.example.test:{port}/x"), false),
    ] {
        let reports = run(&client, public(&url, loopback));
        let [HttpReport::Refused(refusal)] = reports.as_slice() else {
            panic!("expected a refusal: {reports:?}")
        };
        assert_eq!((refusal.address, refusal.class), (private, AddressClass::Private), "{url}");
        assert!(refusal.url.contains("example.test"), "{refusal}");
    }
    assert_eq!(server.requests().len(), 1, "only the allowed request reached the server");

    let proxied =
        HttpClient::new(&config.clone().proxy(ProxySetting::Url("http://127.0.0.1:9".into()))).unwrap();
    let reports = run(&proxied, public(&format!("http://mix.example.test:{port}/x"), true));
    let [HttpReport::Failed(detail)] = reports.as_slice() else { panic!("expected a failure: {reports:?}") };
    assert!(detail.to_string().contains("proxy"), "{detail}");
}
