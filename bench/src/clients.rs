//! `mcp-bench client`: this project's client in the shape of the comparison kit's clients.
//!
//! Connects (spawn or first HTTP exchange, handshake, `tools/list`), makes N echo
//! `tools/call`s, closes, and prints one `RESULT {json}` line with the in-process figures:
//! the same fields as the kit's `rmcp-bench`, so the comparison driver reads every client alike.
//! With `callers > 1`, that many callers each make N calls at once, and the line adds the
//! p50/p99 call latency.

use std::time::{Duration, Instant};

use mcp_core::target::command_from_argv;
use mcp_core::ServerSpec;
use serde_json::{json, Value};

use crate::usage::{allocations, cpu_now, cpu_since, peak_rss_kib};

/// The runtimes a client run can use.
pub const RUNTIMES: [&str; 4] = ["tokio", "tokio-ct", "smol", "blocking"];

/// One client run: where, how many calls, how many concurrent callers.
#[derive(Debug, Clone)]
pub struct Plan {
    /// `stdio` (target = server argv) or `http` (target = one URL).
    pub transport: String,
    /// The server command line (stdio) or URL (http).
    pub target: Vec<String>,
    /// Calls per caller.
    pub calls: usize,
    /// Concurrent callers (1: sequential).
    pub callers: usize,
}

impl Plan {
    fn spec(&self) -> ServerSpec {
        match self.transport.as_str() {
            "stdio" => {
                ServerSpec::stdio("bench", command_from_argv(self.target.clone()).expect("a server command"))
            }
            "http" => ServerSpec::from_target("bench", &self.target[0]).expect("a server URL"),
            other => panic!("unknown transport {other:?} (stdio or http)"),
        }
    }
}

/// What a client run measured.
#[derive(Debug, Default)]
struct Figures {
    connect_list: Duration,
    calls_wall: Duration,
    calls_cpu: Duration,
    close: Duration,
    /// Heap allocations during the calls (whole process).
    allocs: u64,
    /// Per-call latencies in µs (concurrent runs only).
    latencies: Vec<f64>,
}

fn echo_args() -> Value {
    json!({"text": "hello world"})
}

fn check(text: String) {
    assert_eq!(text, "hello world", "the echo tool answered something else");
}

/// Runs the plan on `runtime` and prints its `RESULT` line.
pub fn run(runtime: &str, plan: &Plan) {
    let figures = match runtime {
        "tokio" => on_tokio(plan, tokio::runtime::Builder::new_multi_thread()),
        "tokio-ct" => on_tokio(plan, tokio::runtime::Builder::new_current_thread()),
        "smol" => on_smol(plan),
        "blocking" => on_blocking(plan),
        other => panic!("unknown runtime {other:?} (one of {RUNTIMES:?})"),
    };
    print_result(runtime, plan, figures);
}

fn on_tokio(plan: &Plan, mut builder: tokio::runtime::Builder) -> Figures {
    let rt = builder.enable_all().build().expect("a tokio runtime");
    rt.block_on(async {
        let t0 = Instant::now();
        let client = mcp_tokio::Client::builder()
            .server(plan.spec())
            .build(mcp_tokio::TokioRuntime::current())
            .expect("build");
        client.list_tools().await.expect("list tools");
        let connect_list = t0.elapsed();
        let (cpu0, t1, a0) = (cpu_now(), Instant::now(), allocations());
        let mut latencies = Vec::new();
        if plan.callers > 1 {
            let tasks: Vec<_> = (0..plan.callers)
                .map(|_| {
                    let (client, n) = (client.clone(), plan.calls);
                    tokio::spawn(async move {
                        let mut lat = Vec::with_capacity(n);
                        for _ in 0..n {
                            let t = Instant::now();
                            check(client.call_tool("echo", echo_args()).await.expect("call").text());
                            lat.push(t.elapsed().as_secs_f64() * 1e6);
                        }
                        lat
                    })
                })
                .collect();
            for task in tasks {
                latencies.extend(task.await.expect("a caller task"));
            }
        } else {
            for _ in 0..plan.calls {
                check(client.call_tool("echo", echo_args()).await.expect("call").text());
            }
        }
        let (calls_wall, calls_cpu, allocs) = (t1.elapsed(), cpu_since(cpu0), allocations() - a0);
        let t2 = Instant::now();
        client.close().await;
        Figures { connect_list, calls_wall, calls_cpu, close: t2.elapsed(), allocs, latencies }
    })
}

fn on_smol(plan: &Plan) -> Figures {
    // `smol::block_on`: the caller's thread drives the reactor while it waits.
    use async_io::block_on;
    let t0 = Instant::now();
    let client =
        mcp_smol::Client::builder().server(plan.spec()).build(mcp_smol::SmolRuntime::new()).expect("build");
    block_on(client.list_tools()).expect("list tools");
    let connect_list = t0.elapsed();
    let (cpu0, t1, a0) = (cpu_now(), Instant::now(), allocations());
    let mut latencies = Vec::new();
    if plan.callers > 1 {
        // smol needs no executor for callers: each caller thread awaits its own calls.
        latencies =
            on_threads(plan, || check(block_on(client.call_tool("echo", echo_args())).expect("call").text()));
    } else {
        block_on(async {
            for _ in 0..plan.calls {
                check(client.call_tool("echo", echo_args()).await.expect("call").text());
            }
        });
    }
    let (calls_wall, calls_cpu, allocs) = (t1.elapsed(), cpu_since(cpu0), allocations() - a0);
    let t2 = Instant::now();
    block_on(client.close());
    Figures { connect_list, calls_wall, calls_cpu, close: t2.elapsed(), allocs, latencies }
}

fn on_blocking(plan: &Plan) -> Figures {
    let t0 = Instant::now();
    let client = mcp_blocking::Client::builder().server(plan.spec()).build().expect("build");
    client.list_tools().expect("list tools");
    let connect_list = t0.elapsed();
    let (cpu0, t1, a0) = (cpu_now(), Instant::now(), allocations());
    let mut latencies = Vec::new();
    if plan.callers > 1 {
        latencies = on_threads(plan, || check(client.call_tool("echo", echo_args()).expect("call").text()));
    } else {
        for _ in 0..plan.calls {
            check(client.call_tool("echo", echo_args()).expect("call").text());
        }
    }
    let (calls_wall, calls_cpu, allocs) = (t1.elapsed(), cpu_since(cpu0), allocations() - a0);
    let t2 = Instant::now();
    client.close();
    Figures { connect_list, calls_wall, calls_cpu, close: t2.elapsed(), allocs, latencies }
}

/// Runs `plan.callers` threads of `plan.calls` calls each; the per-call latencies in µs.
fn on_threads(plan: &Plan, call: impl Fn() + Send + Sync) -> Vec<f64> {
    std::thread::scope(|scope| {
        let threads: Vec<_> = (0..plan.callers)
            .map(|_| {
                scope.spawn(|| {
                    (0..plan.calls)
                        .map(|_| {
                            let t = Instant::now();
                            call();
                            t.elapsed().as_secs_f64() * 1e6
                        })
                        .collect::<Vec<f64>>()
                })
            })
            .collect();
        threads.into_iter().flat_map(|t| t.join().expect("a caller thread")).collect()
    })
}

/// The `q` quantile of sorted values (0 when empty).
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    sorted[((sorted.len() - 1) as f64 * q) as usize]
}

fn print_result(runtime: &str, plan: &Plan, mut f: Figures) {
    f.latencies.sort_by(f64::total_cmp);
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    let line = json!({
        "client": format!("mcp-{runtime}"),
        "rt": runtime,
        "transport": plan.transport,
        "n": plan.calls,
        "callers": plan.callers,
        "connect_list_us": us(f.connect_list),
        "calls_wall_us": us(f.calls_wall),
        "calls_cpu_us": us(f.calls_cpu),
        "close_us": us(f.close),
        "maxrss_kb": peak_rss_kib(),
        "allocs_per_call": f.allocs as f64 / (plan.calls * plan.callers).max(1) as f64,
        "p50_us": quantile(&f.latencies, 0.5),
        "p99_us": quantile(&f.latencies, 0.99),
    });
    println!("RESULT {line}");
}
