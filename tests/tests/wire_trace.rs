//! `ClientBuilder::wire_trace` on tokio: over stdio against the bundled test server, the
//! callback sees the process start, the handshake, the `tools/call` and its answer, and the
//! exit; over HTTP against a scripted server, the requests, status lines and messages, with
//! the bearer token set as a header never shown. Every family gets the option from
//! `mcpwire_host`'s one builder.

use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use serde_json::{json, Value};

use mcp_tests::support::{spec, test_server};
use mcpwire_tokio::{Client, WireRecord};

type Seen = Arc<Mutex<Vec<(String, SystemTime, WireRecord)>>>;

fn traced_client(spec: mcpwire_tokio::ServerSpec) -> (Client, Seen) {
    let seen: Seen = Arc::default();
    let record = seen.clone();
    let client = Client::builder()
        .server(spec)
        .wire_trace(move |server, at, r| record.lock().unwrap().push((server.to_owned(), at, r.clone())))
        .build()
        .expect("a client");
    (client, seen)
}

fn messages(seen: &Seen, dir: &str) -> Vec<Value> {
    seen.lock()
        .unwrap()
        .iter()
        .filter_map(|(_, _, r)| match r {
            WireRecord::Sent { message, .. } if dir == "send" => Some(message),
            WireRecord::Received { message, .. } if dir == "recv" => Some(message),
            _ => None,
        })
        .map(|m| serde_json::from_str(m).expect("a JSON message"))
        .collect()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("a runtime")
}

#[test]
fn stdio_trace_has_the_process_the_handshake_and_the_call() {
    runtime().block_on(async {
        let before = SystemTime::now();
        let (client, seen) = traced_client(spec(test_server(), "t", &[]));
        let result = client.call_tool("echo", json!({"message": "traced"})).await.expect("echo");
        assert_eq!(result.text(), "traced");
        client.close().await;

        let records = seen.lock().unwrap().clone();
        assert!(records.iter().all(|(server, at, _)| server == "t" && *at >= before));
        assert!(
            matches!(&records[0].2, WireRecord::ProcessStart { program, .. } if program == test_server()),
            "{records:#?}"
        );
        assert!(matches!(records.last().map(|r| &r.2), Some(WireRecord::ProcessExit { .. })), "{records:#?}");
        let sent = messages(&seen, "send");
        let first = sent[0]["method"].as_str().unwrap_or_default();
        assert!(first == "server/discover" || first == "initialize", "{sent:#?}");
        let call = sent.iter().find(|m| m["method"] == "tools/call").expect("the call is traced");
        assert_eq!(call["params"]["arguments"]["message"], "traced");
        let answer = messages(&seen, "recv").into_iter().find(|m| m["id"] == call["id"]).expect("its answer");
        assert!(answer["result"].to_string().contains("traced"), "{answer}");
    });
}

#[cfg(feature = "http")]
#[test]
fn http_trace_has_status_lines_and_never_the_token() {
    use mcp_tests::support::scripted_http::{call_stream_server, ScriptedHttpServer};

    let server = ScriptedHttpServer::start(call_stream_server);
    runtime().block_on(async {
        let spec = mcpwire_tokio::ServerSpec::from_target("web", &server.url("/mcp"))
            .expect("a target")
            .header("Authorization", "Bearer sekrit-token-42");
        let (client, seen) = traced_client(spec);
        let result = client.call_tool("echo", json!({"message": "over http"})).await.expect("echo");
        assert_eq!(result.text(), "over http");
        client.close().await;

        let text = format!("{:?}", seen.lock().unwrap());
        assert!(!text.contains("sekrit-token-42"), "{text}");
        assert!(
            server.requests().iter().all(|r| r.header("authorization") == Some("Bearer sekrit-token-42")),
            "the token was sent"
        );
        let records: Vec<WireRecord> = seen.lock().unwrap().iter().map(|(_, _, r)| r.clone()).collect();
        let posts = records
            .iter()
            .filter(|r| matches!(r, WireRecord::HttpRequest { method: mcpwire_tokio::HttpMethod::Post, .. }))
            .count();
        let statuses =
            records.iter().filter(|r| matches!(r, WireRecord::HttpResponse { status: 200, .. })).count();
        assert!(posts >= 2 && statuses >= 2, "{records:#?}");
        assert!(records.iter().any(|r| matches!(r, WireRecord::HttpRequest { headers, .. }
            if headers.iter().any(|(n, v)| n.eq_ignore_ascii_case("authorization") && v == "***"))));
        let call =
            messages(&seen, "send").into_iter().find(|m| m["method"] == "tools/call").expect("the call");
        let answer = messages(&seen, "recv").into_iter().find(|m| m["id"] == call["id"]).expect("its answer");
        assert!(answer["result"].to_string().contains("over http"), "{answer}");
    });
}
