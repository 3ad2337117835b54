//! Keep-alive on every family: sequential calls share one connection, and a pooled
//! connection the server closed while idle (without announcing it) is noticed before the
//! next request goes out, which then opens a new one and succeeds.

#![cfg(feature = "http")]

use std::time::Duration;

use mcp_tests::support::scripted_http::{ScriptedHttpServer, SeenRequest, Step};
use mcpwire_core::ServerSpec;
use serde_json::json;

/// A modern server answering every request on a kept-alive connection; with `hang_up`, it
/// closes the connection after each answer without saying so first.
fn server(hang_up: bool) -> ScriptedHttpServer {
    ScriptedHttpServer::start(move |req: &SeenRequest| {
        let request = req.json();
        let result = match request["method"].as_str() {
            Some("server/discover") => json!({"resultType": "complete",
                "supportedVersions": [mcpwire_core::MODERN_VERSION], "capabilities": {"tools": {}},
                "ttlMs": 0, "cacheScope": "private"}),
            Some("tools/list") => json!({"resultType": "complete",
                "tools": [{"name": "t", "inputSchema": {"type": "object"}}]}),
            _ => json!({"resultType": "complete", "content": [{"type": "text", "text": "ok"}]}),
        };
        let body = json!({"jsonrpc": "2.0", "id": request["id"], "result": result}).to_string();
        let response = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        );
        let mut reply =
            mcp_tests::support::scripted_http::Reply::raw(vec![Step::Send(response.into_bytes())]);
        reply.close = hang_up;
        reply
    })
}

fn spec(server: &ScriptedHttpServer) -> ServerSpec {
    ServerSpec::from_target("kept", &server.url("/mcp")).expect("a target")
}

/// Three calls (the tools are listed first, so each call is one request); before each, the
/// server's close of the previous connection has happened, and nothing else: no pause lets
/// the client's reactor report the close first, the client must ask the socket itself
/// (without that check, 26 of 30 runs lost a request). (A request sent right after an answer
/// on a connection the server is closing unannounced races the close; no client can tell,
/// so the test does not do that.)
const CALLS: usize = 3;

/// With `hang_up`, waits until the server closed the connection of each of the `answered`
/// requests so far.
fn settle(server: &ScriptedHttpServer, hang_up: bool, answered: usize) {
    // discover and tools/list before the calls
    let answered = answered + 1;
    if hang_up {
        assert!(
            server.wait_server_closes(answered, Duration::from_secs(10)),
            "the server closed its connections"
        );
    }
}

fn check(server: &ScriptedHttpServer, hang_up: bool) {
    let calls = server.requests().iter().filter(|r| r.json()["method"] == "tools/call").count();
    assert_eq!(calls, CALLS, "each call went out once");
    if hang_up {
        assert!(server.accepts() > CALLS, "a new connection per call: {} accepts", server.accepts());
    } else {
        assert_eq!(server.accepts(), 1, "one connection for everything");
    }
}

#[test]
fn blocking() {
    for hang_up in [false, true] {
        let server = server(hang_up);
        let config =
            mcpwire_blocking::HttpClientConfig::default().proxy(mcpwire_blocking::ProxySetting::None);
        let client =
            mcpwire_blocking::Client::builder().http_client(config).server(spec(&server)).build().unwrap();
        client.connect().send().into_result().expect("connect");
        settle(&server, hang_up, 0);
        client.list_tools().send().into_result().expect("list");
        for call in 0..CALLS {
            settle(&server, hang_up, call + 1);
            assert_eq!(client.call_tool("t", json!({})).send().expect("a call").text(), "ok");
        }
        client.close().send();
        check(&server, hang_up);
    }
}

#[test]
fn tokio() {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    for hang_up in [false, true] {
        let server = server(hang_up);
        rt.block_on(async {
            let config = mcpwire_tokio::HttpClientConfig::default().proxy(mcpwire_tokio::ProxySetting::None);
            let builder = mcpwire_tokio::Client::builder().http_client(config).server(spec(&server));
            let client = builder.build().unwrap();
            client.connect().await.into_result().expect("connect");
            settle(&server, hang_up, 0);
            client.list_tools().await.into_result().expect("list");
            for call in 0..CALLS {
                settle(&server, hang_up, call + 1);
                assert_eq!(client.call_tool("t", json!({})).await.expect("a call").text(), "ok");
            }
            client.close().await;
        });
        check(&server, hang_up);
    }
}

#[test]
fn smol() {
    for hang_up in [false, true] {
        let server = server(hang_up);
        smol::block_on(async {
            let config = mcpwire_smol::HttpClientConfig::default().proxy(mcpwire_smol::ProxySetting::None);
            let builder = mcpwire_smol::Client::builder().http_client(config).server(spec(&server));
            let client = builder.build().unwrap();
            client.connect().await.into_result().expect("connect");
            settle(&server, hang_up, 0);
            client.list_tools().await.into_result().expect("list");
            for call in 0..CALLS {
                settle(&server, hang_up, call + 1);
                assert_eq!(client.call_tool("t", json!({})).await.expect("a call").text(), "ok");
            }
            client.close().await;
        });
        check(&server, hang_up);
    }
}
