//! Proxies on every runtime, against a real tunnelling proxy on loopback
//! ([`mcp_tests::support::tunnel_proxy`]): SOCKS5 with a user name and password, SOCKS5h (the proxy
//! resolves the name) and SOCKS5 (the client does), SOCKS4 and SOCKS4a, and an `https://` proxy
//! (TLS to the proxy, then TLS to the server inside the tunnel). Each test checks the tool
//! call's answer and the destination the proxy was asked for.

#![cfg(feature = "http")]

use mcp_tests::support::scripted_http::{modern_tool_server, ScriptedHttpServer};
use mcp_tests::support::tunnel_proxy::{ProxyProtocol, TunnelProxy};
use mcpwire_core::{ClientError, ServerSpec};
use serde_json::json;

const CA: &[u8] = include_bytes!("../fixtures/tls/ca.pem");
const CERT: &[u8] = include_bytes!("../fixtures/tls/server.pem");
const KEY: &[u8] = include_bytes!("../fixtures/tls/server.key");

/// The runtimes under test.
#[derive(Debug, Clone, Copy)]
enum Runtime {
    Tokio,
    Smol,
    Blocking,
}

const ASYNC: [Runtime; 2] = [Runtime::Tokio, Runtime::Smol];
const ALL: [Runtime; 3] = [Runtime::Tokio, Runtime::Smol, Runtime::Blocking];

/// How `mcp.test` is resolved by the client.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Names {
    /// Not at all: only the proxy can (a name given to `HttpClientConfig::resolve` is
    /// connected to at its configured address, through a proxy too).
    ByTheProxy,
    /// As 127.0.0.1, without DNS (`HttpClientConfig::resolve`).
    Configured,
}

/// One `hello` call to `url` through `proxy` (a proxy URL), trusting the test CA: the tool's
/// text.
fn call(runtime: Runtime, url: &str, proxy: &str, names: Names) -> Result<String, ClientError> {
    let spec = ServerSpec::from_target("proxied", url)?;
    let mut config = mcpwire_host::HttpClientConfig::default()
        .proxy(mcpwire_host::ProxySetting::Url(proxy.to_owned()))
        .root_certificate(CA);
    if names == Names::Configured {
        config = config.resolve("mcp.test", ["127.0.0.1".parse().unwrap()]);
    }
    match runtime {
        Runtime::Tokio => {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
            rt.block_on(async {
                let client = mcpwire_tokio::Client::builder().server(spec).http_client(config).build()?;
                let result = client.call_tool("hello", json!({})).await.map(|r| r.text());
                client.close().await;
                result
            })
        }
        Runtime::Smol => smol::block_on(async {
            let client = mcpwire_smol::Client::builder().server(spec).http_client(config).build()?;
            let result = client.call_tool("hello", json!({})).await.map(|r| r.text());
            client.close().await;
            result
        }),
        Runtime::Blocking => {
            let client = mcpwire_blocking::Client::builder().server(spec).http_client(config).build()?;
            let result = client.call_tool("hello", json!({})).send().map(|r| r.text());
            client.close().send();
            result
        }
    }
}

fn plain_server() -> ScriptedHttpServer {
    ScriptedHttpServer::start(modern_tool_server("proxied"))
}

#[test]
fn socks5h_with_credentials_hands_the_name_to_the_proxy() {
    let server = plain_server();
    let credentials = Some(("alice".to_owned(), "s3cret:pw".to_owned()));
    let proxy = TunnelProxy::start(ProxyProtocol::Socks5 { credentials });
    let url = format!("http://mcp.test:{}/mcp", server.addr().port());
    let proxy_url = proxy.url("socks5h").replace("://", "://alice:s3cret%3Apw@");
    for runtime in ALL {
        let text =
            call(runtime, &url, &proxy_url, Names::ByTheProxy).unwrap_or_else(|e| panic!("{runtime:?}: {e}"));
        assert_eq!(text, "proxied");
    }
    let expected = format!("mcp.test:{} as alice", server.addr().port());
    assert!(proxy.tunnels().iter().all(|t| *t == expected), "{:?}", proxy.tunnels());
    assert!(proxy.tunnels().len() >= ALL.len());

    // Wrong or missing credentials: the call fails, naming why.
    let wrong = proxy.url("socks5h").replace("://", "://alice:nope@");
    for runtime in ASYNC {
        let err = call(runtime, &url, &wrong, Names::ByTheProxy).expect_err("a refused password");
        assert!(err.to_string().contains("refused the user name and password"), "{runtime:?}: {err}");
        let err = call(runtime, &url, &proxy.url("socks5h"), Names::ByTheProxy).expect_err("no credentials");
        assert!(err.to_string().contains("authentication methods"), "{runtime:?}: {err}");
    }
}

#[test]
fn socks5_resolves_the_name_in_the_client() {
    let server = plain_server();
    let proxy = TunnelProxy::start(ProxyProtocol::Socks5 { credentials: None });
    let url = format!("http://mcp.test:{}/mcp", server.addr().port());
    for runtime in ASYNC {
        let text = call(runtime, &url, &proxy.url("socks5"), Names::Configured).expect("through SOCKS5");
        assert_eq!(text, "proxied");
    }
    let expected = format!("127.0.0.1:{}", server.addr().port());
    assert!(proxy.tunnels().iter().all(|t| *t == expected), "{:?}", proxy.tunnels());
}

#[test]
fn socks4_and_socks4a() {
    let server = plain_server();
    let proxy = TunnelProxy::start(ProxyProtocol::Socks4);
    let port = server.addr().port();
    let url = format!("http://mcp.test:{port}/mcp");
    for runtime in ASYNC {
        let by_name = call(runtime, &url, &proxy.url("socks4a"), Names::ByTheProxy).expect("through SOCKS4a");
        assert_eq!(by_name, "proxied");
        let with_user = proxy.url("socks4").replace("://", "://bob@");
        let by_address = call(runtime, &url, &with_user, Names::Configured).expect("through SOCKS4");
        assert_eq!(by_address, "proxied");
    }
    let tunnels = proxy.tunnels();
    assert!(tunnels.contains(&format!("mcp.test:{port}")), "{tunnels:?}");
    assert!(tunnels.contains(&format!("127.0.0.1:{port} as bob")), "{tunnels:?}");
}

#[test]
fn an_https_proxy_tunnels_tls_inside_tls() {
    let server = ScriptedHttpServer::start_tls(CERT, KEY, modern_tool_server("proxied"));
    let url = server.url("/mcp");
    let proxy = TunnelProxy::start(ProxyProtocol::Connect { tls: Some((CERT.to_vec(), KEY.to_vec())) });
    for runtime in ALL {
        let text = call(runtime, &url, &proxy.url("https"), Names::ByTheProxy)
            .unwrap_or_else(|e| panic!("{runtime:?}: {e}"));
        assert_eq!(text, "proxied");
    }
    let expected = format!("localhost:{}", server.addr().port());
    assert!(proxy.tunnels().iter().all(|t| *t == expected), "{:?}", proxy.tunnels());
}

/// An `http://` server through an `https://` proxy: absolute-form requests over TLS to the
/// proxy (here a scripted HTTPS server standing in for it, answering as the MCP server).
#[test]
fn an_https_proxy_gets_absolute_form_requests_over_tls() {
    let proxy = ScriptedHttpServer::start_tls(CERT, KEY, modern_tool_server("proxied"));
    let proxy_url = format!("https://localhost:{}", proxy.addr().port());
    for runtime in ASYNC {
        let text = call(runtime, "http://mcp.invalid/mcp", &proxy_url, Names::ByTheProxy)
            .expect("through the proxy");
        assert_eq!(text, "proxied");
    }
    let targets: Vec<String> = proxy.requests().iter().map(|r| r.target.clone()).collect();
    assert!(!targets.is_empty() && targets.iter().all(|t| t == "http://mcp.invalid/mcp"), "{targets:?}");
}
