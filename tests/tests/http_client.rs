//! The async HTTP client's hooks: a configured proxy gets absolute-form requests, and a custom
//! `Connector` decides where streams go.

#![cfg(feature = "http")]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use mcp_tests::support::scripted_http::{modern_tool_server, ScriptedHttpServer};
use mcpwire_core::ServerSpec;
use serde_json::json;

/// A modern server (or proxy) that records each request's target and `Host`.
fn fixture(seen: Arc<Mutex<Vec<(String, String)>>>) -> ScriptedHttpServer {
    let server = modern_tool_server("ok");
    ScriptedHttpServer::start(move |req| {
        seen.lock().unwrap().push((req.target.clone(), req.header("host").unwrap_or("").to_owned()));
        server(req)
    })
}

fn run(url: &str, config: mcpwire_tokio::HttpClientConfig) -> String {
    run_with(url, mcpwire_tokio::Client::builder().http_client(config))
}

/// Like [`run`], on a builder already set up.
fn run_with(url: &str, builder: mcpwire_tokio::ClientBuilder) -> String {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    rt.block_on(async {
        let spec = ServerSpec::from_target("hooked", url).unwrap();
        let client = builder.server(spec).build().unwrap();
        let text = client.call_tool("t", json!({})).await.expect("call through the hook").text();
        client.close().await;
        text
    })
}

#[test]
fn a_configured_proxy_gets_absolute_form_requests() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let proxy = fixture(seen.clone());
    let config =
        mcpwire_tokio::HttpClientConfig::default().proxy(mcpwire_tokio::ProxySetting::Url(proxy.url("")));
    assert_eq!(run("http://mcp.example.invalid:8080/mcp", config), "ok");
    let seen = seen.lock().unwrap().clone();
    assert!(!seen.is_empty());
    for (target, host) in seen {
        assert_eq!(target, "http://mcp.example.invalid:8080/mcp");
        assert_eq!(host, "mcp.example.invalid:8080");
    }
}

/// Sends every stream to one local port, counting connections.
struct ToFixture {
    port: u16,
    opened: Arc<AtomicUsize>,
}

impl mcpwire_tokio::Connector for ToFixture {
    fn connect(
        &self,
        _host: &str,
        _port: u16,
    ) -> mcpwire_tokio::BoxFuture<'static, std::io::Result<mcpwire_tokio::BoxedStream>> {
        self.opened.fetch_add(1, Ordering::SeqCst);
        let port = self.port;
        Box::pin(async move {
            let stream = async_net::TcpStream::connect(("127.0.0.1", port)).await?;
            Ok(Box::new(stream) as mcpwire_tokio::BoxedStream)
        })
    }
}

#[test]
fn a_custom_connector_opens_the_streams() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let server = fixture(seen.clone());
    let port = server.addr().port();
    let opened = Arc::new(AtomicUsize::new(0));
    let connector = Arc::new(ToFixture { port, opened: opened.clone() });
    let config = mcpwire_tokio::HttpClientConfig::default().proxy(mcpwire_tokio::ProxySetting::None);
    let builder = mcpwire_tokio::Client::builder()
        .http_client(config)
        .runtime_options(mcpwire_tokio::RuntimeOptions::new().connector(connector));
    assert_eq!(run_with("http://anywhere.invalid/mcp", builder), "ok");
    assert!(opened.load(Ordering::SeqCst) >= 2, "the probe and the call went through the connector");
    assert!(seen.lock().unwrap().iter().all(|(target, host)| target == "/mcp" && host == "anywhere.invalid"));
}

/// The OAuth flow's fetches meet the same hooks, and the address rule is kept through them.
#[cfg(feature = "oauth")]
mod oauth_fetches {
    use super::*;

    /// Records each stream asked for (`host:port`) and opens it to that port on 127.0.0.1, whatever
    /// the host: an address outside the rule would be reached too, so only the check keeps it out.
    struct Recording {
        asked: Arc<Mutex<Vec<String>>>,
    }

    impl mcpwire_tokio::Connector for Recording {
        fn connect(
            &self,
            host: &str,
            port: u16,
        ) -> mcpwire_tokio::BoxFuture<'static, std::io::Result<mcpwire_tokio::BoxedStream>> {
            self.asked.lock().unwrap().push(format!("{host}:{port}"));
            Box::pin(async move {
                let stream = async_net::TcpStream::connect(("127.0.0.1", port)).await?;
                Ok(Box::new(stream) as mcpwire_tokio::BoxedStream)
            })
        }
    }

    const PRIVATE: std::net::IpAddr = std::net::IpAddr::V4(std::net::Ipv4Addr::new(10, 0, 0, 1));
    const LOOPBACK: std::net::IpAddr = std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST);

    /// A loopback MCP server whose authorization server's name resolves to a private and a
    /// loopback address: the OAuth fetches connect only to the checked (loopback) one, never to
    /// the private one listed first, and the flow completes.
    #[test]
    fn a_name_with_mixed_addresses_is_connected_to_only_at_the_checked_ones() {
        use mcp_tests::scenarios::address_check::{protected_server, NAMES_CA, NAMES_CERT, NAMES_KEY};
        let auth = ScriptedHttpServer::start_tls(NAMES_CERT, NAMES_KEY, protected_server("https", None));
        let issuer = format!("https://mcp.example.test:{}", auth.addr().port());
        let server = ScriptedHttpServer::start(protected_server("http", Some(&issuer)));
        let asked = Arc::new(Mutex::new(Vec::new()));
        let config = mcpwire_tokio::HttpClientConfig::default()
            .proxy(mcpwire_tokio::ProxySetting::None)
            .root_certificate(NAMES_CA)
            .resolve("mcp.example.test", [PRIVATE, LOOPBACK]);
        let spec = ServerSpec::from_target("mixed", &server.url("/mcp"))
            .unwrap()
            .oauth(mcpwire_tokio::auth::OAuthOptions::client_credentials(&issuer, "svc", "s3cret"));
        let builder = mcpwire_tokio::Client::builder().http_client(config).runtime_options(
            mcpwire_tokio::RuntimeOptions::new().connector(Arc::new(Recording { asked: asked.clone() })),
        );
        let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        rt.block_on(async {
            let client = builder.server(spec).build().unwrap();
            let text =
                client.call_tool("t", json!({})).await.expect("signed in through the checked address").text();
            assert_eq!(text, "signed in");
            client.close().await;
        });
        let asked = asked.lock().unwrap().clone();
        assert!(asked.contains(&format!("127.0.0.1:{}", auth.addr().port())), "{asked:?}");
        assert!(
            !asked.iter().any(|a| a.starts_with("10.")),
            "the private address was never connected to: {asked:?}"
        );
    }

    /// Through a proxy, an OAuth fetch is tunnelled (`CONNECT`) to the address the client checked,
    /// not to the name (which the proxy would resolve unchecked); a name with no allowed address
    /// is refused before the proxy is asked anything.
    #[test]
    fn an_oauth_fetch_through_a_proxy_tunnels_to_the_checked_address() {
        let tunnels = Arc::new(Mutex::new(Vec::new()));
        let seen = tunnels.clone();
        let proxy = ScriptedHttpServer::start(move |req| {
            if req.method == "CONNECT" {
                seen.lock().unwrap().push(req.target.clone());
                return mcp_tests::support::scripted_http::Reply::fixed(403, &[], b"").then_close();
            }
            let hint = r#"Bearer resource_metadata="https://meta.example.test/.well-known/oauth-protected-resource/mcp""#;
            mcp_tests::support::scripted_http::Reply::fixed(401, &[("www-authenticate", hint)], b"")
        });
        let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        let call = |addresses: Vec<std::net::IpAddr>| {
            let config = mcpwire_tokio::HttpClientConfig::default()
                .proxy(mcpwire_tokio::ProxySetting::Url(proxy.url("")))
                .resolve("meta.example.test", addresses);
            let options = mcpwire_tokio::auth::OAuthOptions::client_credentials(
                "https://as.example.test",
                "svc",
                "s3cret",
            );
            let spec = ServerSpec::from_target("proxied", "http://127.0.0.1:9/mcp").unwrap().oauth(options);
            rt.block_on(async {
                let client =
                    mcpwire_tokio::Client::builder().http_client(config).server(spec).build().unwrap();
                let err = client.call_tool("t", json!({})).await.expect_err("no metadata");
                client.close().await;
                err
            })
        };
        call(vec![PRIVATE, LOOPBACK]);
        assert_eq!(*tunnels.lock().unwrap(), ["127.0.0.1:443"], "tunnelled to the checked address only");
        tunnels.lock().unwrap().clear();
        let err = call(vec![PRIVATE]);
        assert!(
            matches!(
                err.request_error(),
                Some(mcpwire_core::RequestError::AuthorizationFailed {
                    oauth: Some(mcpwire_core::oauth::OAuthError::UnsafeAddress { .. }),
                    ..
                })
            ),
            "{err:?}"
        );
        assert!(tunnels.lock().unwrap().is_empty(), "refused before any tunnel");
    }
}
