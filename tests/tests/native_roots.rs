//! The operating system's trusted roots (feature `native-roots`): rustls-native-certs reads
//! `SSL_CERT_FILE` in place of the system store when it is set, so pointing it at the test CA
//! makes that CA the "system" root. A client with the webpki roots off then trusts the test
//! server through the OS store alone, on the async and the blocking HTTP clients, and refuses it
//! with the OS roots off too (nothing trusted: a configuration error when the client is built).
//!
//! This file holds one test: it sets the variable for its whole process.

#![cfg(feature = "native-roots")]

use mcp_tests::support::scripted_http::{modern_tool_server, ScriptedHttpServer};
use mcpwire_core::{ClientError, ServerSpec};
use serde_json::json;

const CERT: &[u8] = include_bytes!("../fixtures/tls/server.pem");
const KEY: &[u8] = include_bytes!("../fixtures/tls/server.key");

fn call_tokio(url: &str, config: mcpwire_host::HttpClientConfig) -> Result<String, ClientError> {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
    rt.block_on(async {
        let spec = ServerSpec::from_target("tls", url)?;
        let client = mcpwire_tokio::Client::builder().server(spec).http_client(config).build()?;
        let result = client.call_tool("hello", json!({})).await.map(|r| r.text());
        client.close().await;
        result
    })
}

fn call_blocking(url: &str, config: mcpwire_host::HttpClientConfig) -> Result<String, ClientError> {
    let spec = ServerSpec::from_target("tls", url)?;
    let client = mcpwire_blocking::Client::builder().server(spec).http_client(config).build()?;
    let result = client.call_tool("hello", json!({})).send().map(|r| r.text());
    client.close().send();
    result
}

#[test]
fn the_operating_systems_roots_are_trusted_when_asked() {
    let ca = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/tls/ca.pem");
    std::env::set_var("SSL_CERT_FILE", ca);
    std::env::remove_var("SSL_CERT_DIR");
    let server = ScriptedHttpServer::start_tls(CERT, KEY, modern_tool_server("trusted by the OS"));
    let url = server.url("/mcp");
    let os_only = || {
        mcpwire_host::HttpClientConfig::default().proxy(mcpwire_host::ProxySetting::None).webpki_roots(false)
    };
    assert!(os_only().native_roots, "on by default with the feature");
    assert_eq!(call_tokio(&url, os_only()).expect("async, OS roots"), "trusted by the OS");
    assert_eq!(call_blocking(&url, os_only()).expect("blocking, OS roots"), "trusted by the OS");

    // The webpki roots alone do not know the test CA.
    let webpki_only =
        mcpwire_host::HttpClientConfig::default().proxy(mcpwire_host::ProxySetting::None).native_roots(false);
    let err = call_tokio(&url, webpki_only.clone()).expect_err("async, webpki roots only");
    assert!(err.to_string().contains("certificate"), "{err}");
    let err = call_blocking(&url, webpki_only).expect_err("blocking, webpki roots only");
    assert!(err.to_string().to_lowercase().contains("certificate"), "{err}");

    // Nothing trusted at all is the builder's error.
    for built in
        [call_tokio(&url, os_only().native_roots(false)), call_blocking(&url, os_only().native_roots(false))]
    {
        let Err(ClientError::Config(why)) = built else { panic!("{built:?}") };
        assert!(why.contains("no trusted root"), "{why}");
    }
}
