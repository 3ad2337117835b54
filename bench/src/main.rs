//! `mcp-bench`: N sequential `tools/call` echo round trips over stdio to the bundled test
//! server, on each runtime, against a raw-pipe floor (pre-serialized request lines written and
//! reply lines read, no JSON work). Reports client CPU time and wall time per call, and each
//! runtime's ratio to the floor measured in the same run. Rounds are interleaved.
//!
//! ```text
//! cargo build --release -p mcp-tests -p mcp-bench
//! target/release/mcp-bench [N] [ROUNDS]      # defaults: 5000 calls, 3 rounds
//! MCP_BENCH_SERVER=/path/to/mini-stdio-server target/release/mcp-bench   # clients on another server
//! ```
//!
//! The floor always runs against the bundled server; with `MCP_BENCH_SERVER` compare the
//! clients with that kit's own floor (e.g. `raw-stdio-client`) from the same session.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use cpu_time::ProcessTime;
use serde_json::json;

#[derive(Clone, Copy, Default)]
struct Sample {
    cpu: Duration,
    wall: Duration,
}

fn server_path() -> PathBuf {
    let exe = std::env::current_exe().expect("current exe");
    let path = exe.with_file_name("mcp-test-server");
    if !path.exists() {
        eprintln!(
            "error: {} not found; run `cargo build --release -p mcp-tests -p mcp-bench`",
            path.display()
        );
        std::process::exit(1);
    }
    path
}

/// The clients' target: the bundled server in modern mode, or `MCP_BENCH_SERVER` (any stdio
/// server with an `echo` tool, e.g. the shared kit's `mini-stdio-server`, for side-by-side runs).
fn target(server: &Path) -> String {
    std::env::var("MCP_BENCH_SERVER").unwrap_or_else(|_| format!("{} --protocol modern", server.display()))
}

/// The floor: the same server, requests pre-serialized, replies read as lines, no parsing.
fn raw_floor(server: &Path, n: usize) -> Sample {
    let mut child = Command::new(server)
        .args(["--protocol", "modern"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn test server");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let lines: Vec<Vec<u8>> = (0..n)
        .map(|i| {
            let msg = json!({"jsonrpc":"2.0","id":i + 1,"method":"tools/call","params":{
                "name":"echo","arguments":{"message":"hello"},
                "_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",
                         "io.modelcontextprotocol/clientCapabilities":{}}}});
            let mut v = serde_json::to_vec(&msg).expect("json");
            v.push(b'\n');
            v
        })
        .collect();
    let mut reply = Vec::with_capacity(4096);
    let (cpu0, wall0) = (ProcessTime::now(), Instant::now());
    for line in &lines {
        stdin.write_all(line).expect("write");
        stdin.flush().expect("flush");
        reply.clear();
        stdout.read_until(b'\n', &mut reply).expect("read");
    }
    let sample = Sample { cpu: cpu0.elapsed(), wall: wall0.elapsed() };
    drop(stdin);
    let _ = child.wait();
    sample
}

fn tokio_client(server: &Path, n: usize) -> Sample {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("rt");
    rt.block_on(async {
        let client = mcp_tokio::connect(&target(server)).await.expect("connect");
        let (cpu0, wall0) = (ProcessTime::now(), Instant::now());
        for _ in 0..n {
            client.call_tool("echo", json!({"message": "hello"})).await.expect("call");
        }
        let sample = Sample { cpu: cpu0.elapsed(), wall: wall0.elapsed() };
        client.close().await;
        sample
    })
}

fn smol_client(server: &Path, n: usize) -> Sample {
    futures_lite::future::block_on(async {
        let client = mcp_smol::connect(&target(server)).await.expect("connect");
        let (cpu0, wall0) = (ProcessTime::now(), Instant::now());
        for _ in 0..n {
            client.call_tool("echo", json!({"message": "hello"})).await.expect("call");
        }
        let sample = Sample { cpu: cpu0.elapsed(), wall: wall0.elapsed() };
        client.close().await;
        sample
    })
}

fn blocking_client(server: &Path, n: usize) -> Sample {
    let client = mcp_blocking::connect(&target(server)).expect("connect");
    let (cpu0, wall0) = (ProcessTime::now(), Instant::now());
    for _ in 0..n {
        client.call_tool("echo", json!({"message": "hello"})).expect("call");
    }
    let sample = Sample { cpu: cpu0.elapsed(), wall: wall0.elapsed() };
    client.close();
    sample
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(5000);
    let rounds: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(3);
    let server = server_path();
    type Runner = fn(&Path, usize) -> Sample;
    let runners: [(&str, Runner); 4] = [
        ("raw-pipe floor", raw_floor),
        ("mcp-tokio", tokio_client),
        ("mcp-smol", smol_client),
        ("mcp-blocking", blocking_client),
    ];
    let mut samples: Vec<Vec<Sample>> = vec![Vec::new(); runners.len()];
    for round in 0..rounds {
        // Rotate the order each round so no runner always goes first.
        for k in 0..runners.len() {
            let i = (k + round) % runners.len();
            samples[i].push((runners[i].1)(&server, n));
        }
    }
    let per_call = |d: Duration| d.as_secs_f64() * 1e6 / n as f64;
    let floor_cpu = per_call(median(samples[0].iter().map(|s| s.cpu).collect()));
    let floor_wall = per_call(median(samples[0].iter().map(|s| s.wall).collect()));
    println!("{n} sequential echo calls x {rounds} rounds (medians), client process only");
    println!(
        "{:<16} {:>12} {:>12} {:>10} {:>10}",
        "client", "cpu µs/call", "wall µs/call", "cpu ratio", "wall ratio"
    );
    for (i, (name, _)) in runners.iter().enumerate() {
        let cpu = per_call(median(samples[i].iter().map(|s| s.cpu).collect()));
        let wall = per_call(median(samples[i].iter().map(|s| s.wall).collect()));
        println!("{name:<16} {cpu:>12.1} {wall:>12.1} {:>10.2} {:>10.2}", cpu / floor_cpu, wall / floor_wall);
    }
}
