//! A gzip bomb (1 GiB of zeros, about 1 MiB compressed) served over Streamable HTTP ends in a
//! response-too-large error, and the client's memory stays far below the bomb's size.
//!
//! Alone in its test binary so the process's peak memory is this test's.

#![cfg(feature = "http")]

use std::io::Write;

use mcp_tests::support::scripted_http::{modern_tool_server, Reply, ScriptedHttpServer};
use mcpwire_core::{ClientError, RequestError, ServerSpec};
use serde_json::json;

const MIB: u64 = 1024 * 1024;

/// Peak resident memory of this process, from `/proc/self/status` (Linux).
fn peak_rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).expect("VmHWM");
    let kib: u64 = line.split_whitespace().nth(1).and_then(|n| n.parse().ok()).expect("a number");
    kib * 1024
}

/// One gzip member of 1 MiB of zeros; 1024 of them concatenated inflate to 1 GiB.
fn bomb_member() -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    enc.write_all(&vec![0u8; MIB as usize]).expect("compress");
    enc.finish().expect("compress")
}

#[test]
fn a_gzip_bomb_is_refused_within_the_cap() {
    let member = bomb_member();
    let discover = modern_tool_server("");
    let fixture = ScriptedHttpServer::start(move |req| match req.json()["method"].as_str() {
        Some("server/discover") => discover(req),
        // tools/call: a JSON body (capped by max_message_bytes); anything else an event
        // stream, whose endless line is skipped, so the decompression cap
        // (max_decompressed_body_bytes) is what stops it.
        method => {
            let content_type =
                if method == Some("tools/call") { "application/json" } else { "text/event-stream" };
            let headers = [("Content-Type", content_type), ("Content-Encoding", "gzip")];
            Reply::stream(200, &headers, std::iter::repeat_n(member.clone(), 1024)).then_close()
        }
    });
    let before = peak_rss();
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let outcome = runtime.block_on(async {
        let spec = ServerSpec::from_target("bomb", &fixture.url("/mcp")).unwrap();
        let client = mcpwire_tokio::Client::builder().server(spec).build().unwrap();
        let json_body = client.call_tool("inflate", json!({})).await.map(|_| ());
        // (`tools/list`: the server declares `tools` only, and undeclared requests are not sent.)
        let event_stream = client.servers()[0].list_tools().await.map(|_| ());
        client.close().await;
        [json_body, event_stream]
    });
    for (what, outcome) in ["JSON", "event stream"].iter().zip(outcome) {
        match outcome {
            Err(ClientError::Request(RequestError::ResponseTooLarge { detail, .. })) => {
                println!("{what}: {detail}");
                assert!(detail.contains("bytes"), "{detail}")
            }
            other => panic!("{what}: expected ResponseTooLarge, got {other:?}"),
        }
    }
    let grown = peak_rss().saturating_sub(before);
    println!("peak memory grew by {} MiB while refusing a 1024 MiB bomb", grown / MIB);
    // The JSON body cap (16 MiB) stops it; the decompression cap (64 MiB) bounds any body.
    assert!(grown < 96 * MIB, "peak memory grew by {} MiB", grown / MIB);
}
