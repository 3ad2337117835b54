//! HTTPS: the async client's TLS (rustls, webpki roots) trusts a server whose certificate is
//! signed by a root added through `HttpClientConfig`, refuses it without that root, and keeps
//! a TLS connection alive across exchanges.
//!
//! `tests/fixtures/tls`: a test CA (`ca.pem`, its key discarded) and a `localhost` /
//! `127.0.0.1` server certificate valid until 2126, made with `openssl` from `ca.cnf` and
//! `server.cnf` (EC P-256).

#![cfg(feature = "http")]

use mcp_tests::support::scripted_http::{modern_tool_server, ScriptedHttpServer};
use mcpwire_core::{ClientError, ServerSpec};
use serde_json::json;

const CA: &[u8] = include_bytes!("../fixtures/tls/ca.pem");
const CERT: &[u8] = include_bytes!("../fixtures/tls/server.pem");
const KEY: &[u8] = include_bytes!("../fixtures/tls/server.key");

fn fixture() -> ScriptedHttpServer {
    ScriptedHttpServer::start_tls(CERT, KEY, modern_tool_server("over tls"))
}

async fn call(url: &str, config: mcpwire_tokio::HttpClientConfig) -> Result<String, ClientError> {
    let spec = ServerSpec::from_target("tls", url)?;
    let client = mcpwire_tokio::Client::builder().server(spec).http_client(config).build()?;
    let r = client.call_tool("hello", json!({})).await.map(|r| r.text());
    client.close().await;
    r
}

#[test]
fn a_configured_root_is_trusted_and_required() {
    let server = fixture();
    let url = server.url("/mcp");
    assert!(url.starts_with("https://localhost:"));
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    rt.block_on(async {
        let trusted = mcpwire_tokio::HttpClientConfig::default().root_certificate(CA);
        assert_eq!(call(&url, trusted).await.expect("TLS with the test root"), "over tls");
        let err = call(&url, mcpwire_tokio::HttpClientConfig::default()).await.expect_err("untrusted");
        assert!(err.to_string().contains("certificate"), "{err}");
        // A root that is not a certificate is a configuration error at build time.
        let bad = mcpwire_tokio::HttpClientConfig::default()
            .root_certificate(&b"-----BEGIN CERTIFICATE-----\nnope\n"[..]);
        let spec = ServerSpec::from_target("tls", &url).unwrap();
        let built = mcpwire_tokio::Client::builder().server(spec).http_client(bad).build();
        assert!(matches!(built, Err(ClientError::Config(_))), "{built:?}");
    });
}

/// Keep-alive over TLS: the pool's check of a connection's socket (a non-blocking peek under
/// the TLS layer) finds the connection idle after each answer, so every call reuses it.
#[test]
fn tls_connections_are_kept_alive() {
    let answer = modern_tool_server("over tls");
    let server = ScriptedHttpServer::start_tls(CERT, KEY, move |req| {
        let mut reply = answer(req);
        reply.close = false;
        reply
    });
    let spec = ServerSpec::from_target("tls", &server.url("/mcp")).unwrap();
    let config = mcpwire_tokio::HttpClientConfig::default().root_certificate(CA);
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let client = mcpwire_tokio::Client::builder().server(spec).http_client(config).build();
        let client = client.unwrap();
        for _ in 0..3 {
            assert_eq!(client.call_tool("hello", json!({})).await.expect("a call").text(), "over tls");
        }
        client.close().await;
    });
    assert_eq!(server.accepts(), 1, "one TLS connection for every exchange");
}
