//! This project's client in the shape of the comparison kit's clients, one binary per runtime
//! family (`mcp-bench-tokio`, `mcp-bench-smol`, `mcp-bench-blocking`: each links only its own
//! runtime, as a user's program would, so peak RSS and start-up compare fairly with rmcp's).
//!
//! Connects (spawn or first HTTP exchange, handshake, `tools/list`), makes N echo
//! `tools/call`s, closes, and prints one `RESULT {json}` line with the in-process figures:
//! the same fields as the kit's `rmcp-bench`, so the comparison driver reads every client alike.
//! With `callers > 1`, that many callers each make N calls at once, and the line adds the
//! p50/p99 call latency.

use std::future::IntoFuture;
use std::time::{Duration, Instant};

use mcpwire_core::target::command_from_argv;
use mcpwire_core::ServerSpec;
use serde_json::{json, Value};

use crate::usage::{allocations, cpu_now, cpu_since, peak_rss_kib};

/// The runtimes a client run can use: `tokio` is a multi-thread runtime called from `block_on`
/// (as `#[tokio::main]` does), `tokio-task` the same runtime with the calls made inside a spawned
/// task, `tokio-ct` a current-thread runtime.
pub const RUNTIMES: [&str; 5] = ["tokio", "tokio-task", "tokio-ct", "smol", "blocking"];

/// The binary (next to `mcp-bench`) that runs `runtime`.
pub fn binary_of(runtime: &str) -> &'static str {
    match runtime {
        "smol" => "mcp-bench-smol",
        "blocking" => "mcp-bench-blocking",
        _ => "mcp-bench-tokio",
    }
}

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
pub struct Figures {
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

/// The body of a per-runtime binary: reads `RUNTIME stdio|http N TARGET...` (and `CALLERS=C`
/// from the environment, as the kit's clients do), runs the plan with `run` and prints its
/// `RESULT` line. `run` answers `None` for a runtime its binary does not link.
pub fn client_main(run: fn(&str, &Plan) -> Option<Figures>) {
    let usage = || -> ! {
        eprintln!("usage: {} RUNTIME stdio|http N TARGET... (RUNTIME: one of {RUNTIMES:?})", binary_name());
        std::process::exit(2)
    };
    let mut args = std::env::args().skip(1);
    let (Some(runtime), Some(transport), Some(calls)) = (args.next(), args.next(), args.next()) else {
        usage()
    };
    let Ok(calls) = calls.parse() else { usage() };
    let target: Vec<String> = args.collect();
    if target.is_empty() {
        usage();
    }
    let callers = std::env::var("CALLERS").ok().and_then(|c| c.parse().ok()).unwrap_or(1usize).max(1);
    let plan = Plan { transport, target, calls, callers };
    match run(&runtime, &plan) {
        Some(figures) => print_result(&runtime, &plan, figures),
        None => usage(),
    }
}

fn binary_name() -> String {
    std::env::args().next().unwrap_or_default()
}

/// The tokio runtimes: `tokio`, `tokio-task` and `tokio-ct`.
pub fn run_tokio(runtime: &str, plan: &Plan) -> Option<Figures> {
    Some(match runtime {
        "tokio" => on_tokio(plan, tokio::runtime::Builder::new_multi_thread(), false),
        "tokio-task" => on_tokio(plan, tokio::runtime::Builder::new_multi_thread(), true),
        "tokio-ct" => on_tokio(plan, tokio::runtime::Builder::new_current_thread(), false),
        _ => return None,
    })
}

/// smol: the caller's thread drives the reactor; concurrent callers are tasks of one executor.
pub fn run_smol(runtime: &str, plan: &Plan) -> Option<Figures> {
    (runtime == "smol").then(|| on_smol(plan))
}

/// The blocking client: concurrent callers are threads.
pub fn run_blocking(runtime: &str, plan: &Plan) -> Option<Figures> {
    (runtime == "blocking").then(|| on_blocking(plan))
}

/// On a runtime from `builder`, called from `block_on`, or from a spawned task when `in_task`.
fn on_tokio(plan: &Plan, mut builder: tokio::runtime::Builder, in_task: bool) -> Figures {
    let rt = builder.enable_all().build().expect("a tokio runtime");
    let run = tokio_run(plan.clone());
    if in_task {
        rt.block_on(async { tokio::spawn(run).await.expect("the calling task") })
    } else {
        rt.block_on(run)
    }
}

async fn tokio_run(plan: Plan) -> Figures {
    let t0 = Instant::now();
    let client = mcpwire_tokio::Client::builder().server(plan.spec()).build().expect("build");
    client.list_tools().await.into_result().expect("list tools");
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
}

fn on_smol(plan: &Plan) -> Figures {
    // `smol::block_on`: the caller's thread drives the reactor while it waits.
    use async_io::block_on;
    let t0 = Instant::now();
    let client = mcpwire_smol::Client::builder().server(plan.spec()).build().expect("build");
    block_on(client.list_tools().into_future()).into_result().expect("list tools");
    let connect_list = t0.elapsed();
    let (cpu0, t1, a0) = (cpu_now(), Instant::now(), allocations());
    let mut latencies = Vec::new();
    if plan.callers > 1 {
        // The callers are tasks of one executor on this thread, as rmcp's are tokio tasks.
        let executor = async_executor::LocalExecutor::new();
        let tasks: Vec<_> = (0..plan.callers)
            .map(|_| {
                executor.spawn(async {
                    let mut lat = Vec::with_capacity(plan.calls);
                    for _ in 0..plan.calls {
                        let t = Instant::now();
                        check(client.call_tool("echo", echo_args()).await.expect("call").text());
                        lat.push(t.elapsed().as_secs_f64() * 1e6);
                    }
                    lat
                })
            })
            .collect();
        block_on(executor.run(async {
            for task in tasks {
                latencies.extend(task.await);
            }
        }));
    } else {
        block_on(async {
            for _ in 0..plan.calls {
                check(client.call_tool("echo", echo_args()).await.expect("call").text());
            }
        });
    }
    let (calls_wall, calls_cpu, allocs) = (t1.elapsed(), cpu_since(cpu0), allocations() - a0);
    let t2 = Instant::now();
    block_on(client.close().into_future());
    Figures { connect_list, calls_wall, calls_cpu, close: t2.elapsed(), allocs, latencies }
}

fn on_blocking(plan: &Plan) -> Figures {
    let t0 = Instant::now();
    let client = mcpwire_blocking::Client::builder().server(plan.spec()).build().expect("build");
    client.list_tools().send().into_result().expect("list tools");
    let connect_list = t0.elapsed();
    let (cpu0, t1, a0) = (cpu_now(), Instant::now(), allocations());
    let mut latencies = Vec::new();
    if plan.callers > 1 {
        latencies =
            on_threads(plan, || check(client.call_tool("echo", echo_args()).send().expect("call").text()));
    } else {
        for _ in 0..plan.calls {
            check(client.call_tool("echo", echo_args()).send().expect("call").text());
        }
    }
    let (calls_wall, calls_cpu, allocs) = (t1.elapsed(), cpu_since(cpu0), allocations() - a0);
    let t2 = Instant::now();
    client.close().send();
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
        "client": format!("mcpwire-{runtime}"),
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
