//! Redirects end to end, over real sockets against the scripted server, on mcpwire-tokio and
//! mcpwire-blocking: same-origin `307`/`308` are followed by the core (the runtimes never follow
//! on their own) for the handshake and for a call, with body and credentials kept, and later
//! requests go straight to the final URL; a redirect to another origin ends the connection
//! with the typed error, and nothing at all reaches the other origin.

#![cfg(feature = "http")]

use std::time::Duration;

use mcp_tests::support::scripted_http::{modern_tool_server, Reply, ScriptedHttpServer, SeenRequest};
use mcpwire_core::{ClientError, RedirectRefusal, RequestError, ServerSpec};
use serde_json::json;

const AUTHORIZATION: &str = "Bearer secret-token";
const COOKIE: &str = "session=s3cr3t";

/// The other origin: it answers like an MCP server, and must never be asked.
fn other_origin() -> ScriptedHttpServer {
    ScriptedHttpServer::start(modern_tool_server("elsewhere"))
}

/// The server: `/old` redirects (308) to `/mcp`; there, a `tools/call` redirects (307) to
/// `/mcp/calls`; `/away` redirects (307) to `away` (another origin); the rest is a modern
/// server whose tools answer `ok`.
fn server(away: String) -> ScriptedHttpServer {
    let mcp = modern_tool_server("ok");
    ScriptedHttpServer::start(move |req: &SeenRequest| {
        let redirect = |status, location: &str| {
            Reply::fixed(status, &[("location", location), ("content-length", "0")], b"")
        };
        match (req.target.as_str(), req.json()["method"].as_str()) {
            ("/old", _) => redirect(308, "/mcp"),
            ("/mcp", Some("tools/call")) => redirect(307, "/mcp/calls"),
            ("/away", _) => redirect(307, &away),
            _ => mcp(req),
        }
    })
}

fn spec(url: &str) -> ServerSpec {
    ServerSpec::from_target("redirected", url)
        .expect("a URL")
        .header("Authorization", AUTHORIZATION)
        .header("Cookie", COOKIE)
        .request_timeout(Duration::from_secs(30))
}

/// What the server saw for two calls through `/old`: one request there, the call redirected
/// once with its body and credentials, the second call straight to the final URL.
fn check_followed(server: &ScriptedHttpServer) {
    let seen = server.requests();
    let targets: Vec<&str> = seen.iter().map(|r| r.target.as_str()).collect();
    assert_eq!(targets.iter().filter(|t| **t == "/old").count(), 1, "{targets:?}");
    assert_eq!(targets[0], "/old");
    for r in &seen {
        assert_eq!(r.header("authorization"), Some(AUTHORIZATION), "{}", r.target);
        assert_eq!(r.header("cookie"), Some(COOKIE), "{}", r.target);
    }
    assert_eq!(seen[0].body, seen[1].body, "the redirected probe keeps its body");
    let calls: Vec<&SeenRequest> = seen.iter().filter(|r| r.json()["method"] == "tools/call").collect();
    let call_targets: Vec<&str> = calls.iter().map(|r| r.target.as_str()).collect();
    assert_eq!(call_targets, ["/mcp", "/mcp/calls", "/mcp/calls"]);
    assert_eq!(calls[0].body, calls[1].body, "the redirected call keeps its body");
}

/// The error of a connection to `/away`, and nothing sent to the other origin.
fn check_refused(error: ClientError, other: &ScriptedHttpServer) {
    let ClientError::Request(RequestError::Redirect(refused)) = &error else {
        panic!("expected a refused redirect, got {error:?}");
    };
    assert_eq!((refused.status, refused.refusal), (307, RedirectRefusal::CrossOrigin));
    assert_eq!(refused.location.as_deref(), Some(other.url("/mcp").as_str()));
    assert!(error.to_string().contains(&format!("HTTP 307 redirect to {}", other.url("/mcp"))), "{error}");
    assert!(other.requests().is_empty(), "nothing reaches the other origin: {:?}", other.requests());
}

#[test]
fn redirects_on_tokio() {
    let rt =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("tokio");
    rt.block_on(async {
        let other = other_origin();
        let server = server(other.url("/mcp"));
        let build = |url: &str| {
            mcpwire_tokio::Client::builder()
                .http_client(
                    mcpwire_tokio::HttpClientConfig::default().proxy(mcpwire_tokio::ProxySetting::None),
                )
                .server(spec(url))
                .build()
                .expect("build")
        };
        let client = build(&server.url("/old"));
        for _ in 0..2 {
            assert_eq!(client.call_tool("t", json!({})).await.expect("call").text(), "ok");
        }
        client.close().await;
        check_followed(&server);
        let client = build(&server.url("/away"));
        let error = client.connect().await.into_result().expect_err("a cross-origin redirect");
        client.close().await;
        check_refused(error, &other);
    });
}

#[test]
fn redirects_on_blocking() {
    let other = other_origin();
    let server = server(other.url("/mcp"));
    let build = |url: &str| {
        mcpwire_blocking::Client::builder()
            .http_client(
                mcpwire_blocking::HttpClientConfig::default().proxy(mcpwire_blocking::ProxySetting::None),
            )
            .server(spec(url))
            .build()
            .expect("build")
    };
    let client = build(&server.url("/old"));
    for _ in 0..2 {
        assert_eq!(client.call_tool("t", json!({})).send().expect("call").text(), "ok");
    }
    client.close().send();
    check_followed(&server);
    let client = build(&server.url("/away"));
    let error = client.connect().send().into_result().expect_err("a cross-origin redirect");
    client.close().send();
    check_refused(error, &other);
}
