//! The async HTTP client's hooks: a configured proxy gets absolute-form requests, and a custom
//! `Connector` decides where streams go.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use mcp_core::ServerSpec;
use mcp_tests::scripted_http::{modern_tool_server, ScriptedHttpServer};
use serde_json::json;

/// A modern server (or proxy) that records each request's target and `Host`.
fn fixture(seen: Arc<Mutex<Vec<(String, String)>>>) -> ScriptedHttpServer {
    let server = modern_tool_server("ok");
    ScriptedHttpServer::start(move |req| {
        seen.lock().unwrap().push((req.target.clone(), req.header("host").unwrap_or("").to_owned()));
        server(req)
    })
}

fn run(url: &str, config: mcp_tokio::HttpClientConfig) -> String {
    run_with(url, mcp_tokio::Client::builder().http_client(config))
}

/// Like [`run`], on a builder already set up.
fn run_with(url: &str, builder: mcp_tokio::ClientBuilder) -> String {
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
    let config = mcp_tokio::HttpClientConfig::default().proxy(mcp_tokio::ProxySetting::Url(proxy.url("")));
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

impl mcp_tokio::Connector for ToFixture {
    fn connect(
        &self,
        _host: &str,
        _port: u16,
    ) -> mcp_tokio::BoxFuture<'static, std::io::Result<mcp_tokio::BoxedStream>> {
        self.opened.fetch_add(1, Ordering::SeqCst);
        let port = self.port;
        Box::pin(async move {
            let stream = async_net::TcpStream::connect(("127.0.0.1", port)).await?;
            Ok(Box::new(stream) as mcp_tokio::BoxedStream)
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
    let config = mcp_tokio::HttpClientConfig::default().proxy(mcp_tokio::ProxySetting::None);
    let builder = mcp_tokio::Client::builder().http_client(config).runtime_options(mcp_tokio::RuntimeOptions::new().connector(connector));
    assert_eq!(run_with("http://anywhere.invalid/mcp", builder), "ok");
    assert!(opened.load(Ordering::SeqCst) >= 2, "the probe and the call went through the connector");
    assert!(seen.lock().unwrap().iter().all(|(target, host)| target == "/mcp" && host == "anywhere.invalid"));
}
