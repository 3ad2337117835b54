//! `mcp-bench compare`: this project's clients and the kit's (raw floors, rmcp on both tokio
//! runtimes) against the kit's cheap servers, interleaved in one run, as ratio tables.
//!
//! Every (client, transport) configuration runs once per round, rounds in a shuffled order;
//! each run is a process of its own (pinned with `taskset -c CORE` when `--pin` is given, the
//! stdio server inheriting the pin) that prints one `RESULT` line. The tables give medians.
//! Three phases: sequential calls (CPU and wall per call, allocations, peak RSS), concurrent
//! callers (throughput, p50/p99 latency) and connect (spawn, handshake, list, close; N = 0).
//! With `--sdks`, the TypeScript and Python SDK clients run in every phase too (`sdks`).

mod sdks;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Instant;

use serde_json::Value;

use mcp_bench::clients::{binary_of, RUNTIMES};

pub use sdks::Sdks;

/// Where the comparison programs are and how to run them.
#[derive(Debug, Clone)]
pub struct Options {
    /// The folder holding the kit's release binaries (`mini-stdio-server`, `rmcp-bench`, ...).
    pub kit_bin: PathBuf,
    /// Sequential calls per run.
    pub calls: usize,
    /// Rounds (each configuration once per round).
    pub rounds: usize,
    /// Concurrent callers and calls per caller of the concurrency phase (0 callers: skipped).
    pub callers: usize,
    /// Calls per concurrent caller.
    pub caller_calls: usize,
    /// Pin every run to this core (`taskset -c`).
    pub pin: Option<usize>,
    /// Append every run's record (JSON lines) here.
    pub out: Option<PathBuf>,
    /// The TypeScript and Python SDK clients too (`--sdks`), with their own N.
    pub sdks: Option<Sdks>,
}

/// One runnable configuration.
#[derive(Debug, Clone)]
struct Config {
    label: String,
    transport: &'static str,
    argv: Vec<String>,
    env: Vec<(&'static str, String)>,
}

/// One run's figures (its `RESULT` line plus the whole-process wall time).
#[derive(Debug, Clone)]
struct Record {
    label: String,
    transport: &'static str,
    phase: &'static str,
    result: Value,
    process_wall_us: f64,
}

impl Record {
    fn field(&self, name: &str) -> f64 {
        self.result[name].as_f64().unwrap_or(f64::NAN)
    }
}

struct Programs {
    ours: PathBuf,
    kit: PathBuf,
}

impl Programs {
    fn kit(&self, name: &str) -> String {
        self.kit.join(name).display().to_string()
    }

    /// This project's client binary for `runtime` (next to `mcp-bench`).
    fn ours(&self, runtime: &str) -> PathBuf {
        self.ours.with_file_name(binary_of(runtime))
    }

    fn configs(&self, transport: &'static str, n: usize, url: &str, port: u16) -> Vec<Config> {
        let n = n.to_string();
        let ours = |rt: &str| self.ours(rt).display().to_string();
        let server = vec![self.kit("mini-stdio-server")];
        let cfg = |label: &str, argv: Vec<String>, env: Vec<(&'static str, String)>| Config {
            label: label.to_owned(),
            transport,
            argv,
            env,
        };
        let mut out = Vec::new();
        let with = |mut head: Vec<String>, tail: &[String]| {
            head.extend_from_slice(tail);
            head
        };
        if transport == "stdio" {
            let raw = with(vec![self.kit("raw-stdio-client"), n.clone()], &server);
            out.push(cfg("raw", raw.clone(), vec![]));
            out.push(cfg("raw-json", raw, vec![("RAW_JSON", "1".into())]));
            let rmcp = with(vec![self.kit("rmcp-bench"), "stdio".into(), n.clone()], &server);
            out.push(cfg("rmcp", rmcp.clone(), vec![("RT", "multi".into())]));
            out.push(cfg("rmcp-task", rmcp.clone(), vec![("RT", "multi".into()), ("TASK", "1".into())]));
            out.push(cfg("rmcp-ct", rmcp, vec![("RT", "current".into())]));
            for rt in RUNTIMES {
                let argv = with(vec![ours(rt), rt.into(), "stdio".into(), n.clone()], &server);
                out.push(cfg(&format!("mcpwire-{rt}"), argv, vec![]));
            }
        } else {
            out.push(cfg("raw", vec![self.kit("raw-http-client"), n.clone(), port.to_string()], vec![]));
            let rmcp = vec![self.kit("rmcp-bench"), "http".into(), n.clone(), url.into()];
            out.push(cfg("rmcp", rmcp.clone(), vec![("RT", "multi".into())]));
            let pooled = with(rmcp, &["pooled".to_owned()]);
            out.push(cfg("rmcp-pooled", pooled.clone(), vec![("RT", "multi".into())]));
            out.push(cfg("rmcp-pooled-ct", pooled, vec![("RT", "current".into())]));
            for rt in RUNTIMES {
                let argv = vec![ours(rt), rt.into(), "http".into(), n.clone(), url.into()];
                out.push(cfg(&format!("mcpwire-{rt}"), argv, vec![]));
            }
        }
        out
    }
}

/// The kit's HTTP server, stopped on drop.
struct HttpServer {
    child: Child,
    port: u16,
}

impl HttpServer {
    fn start(program: &str, pin: Option<usize>) -> Self {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let mut child = pinned(&[program.to_owned(), port.to_string()], pin)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {program}: {e}"));
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("the server's first line");
        assert!(line.starts_with("listening"), "{program} said {line:?}");
        Self { child, port }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn pinned(argv: &[String], pin: Option<usize>) -> Command {
    match pin {
        Some(core) => {
            let mut cmd = Command::new("taskset");
            cmd.arg("-c").arg(core.to_string()).args(argv);
            cmd
        }
        None => {
            let mut cmd = Command::new(&argv[0]);
            cmd.args(&argv[1..]);
            cmd
        }
    }
}

fn run_one(config: &Config, phase: &'static str, extra_env: &[(&str, String)], pin: Option<usize>) -> Record {
    let mut cmd = pinned(&config.argv, pin);
    for (k, v) in config.env.iter().chain(extra_env) {
        cmd.env(k, v);
    }
    let started = Instant::now();
    let output =
        cmd.stderr(Stdio::inherit()).output().unwrap_or_else(|e| panic!("cannot run {:?}: {e}", config.argv));
    let process_wall_us = started.elapsed().as_secs_f64() * 1e6;
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{} ({}) failed: {}\n{stdout}",
        config.label,
        config.transport,
        output.status
    );
    let line = stdout.lines().find_map(|l| l.strip_prefix("RESULT ")).unwrap_or_else(|| {
        panic!("{} ({}) printed no RESULT line:\n{stdout}", config.label, config.transport)
    });
    let result: Value =
        serde_json::from_str(line).unwrap_or_else(|e| panic!("bad RESULT line {line:?}: {e}"));
    Record { label: config.label.clone(), transport: config.transport, phase, result, process_wall_us }
}

/// A deterministic shuffle (xorshift), different for every round.
fn shuffled<T: Clone>(items: &[T], round: usize) -> Vec<T> {
    let mut v = items.to_vec();
    let mut state = 0x9E37_79B9_7F4A_7C15u64 ^ (round as u64 + 1).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    for i in (1..v.len()).rev() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        v.swap(i, (state % (i as u64 + 1)) as usize);
    }
    v
}

fn median(mut v: Vec<f64>) -> f64 {
    v.retain(|x| x.is_finite());
    v.sort_by(f64::total_cmp);
    if v.is_empty() {
        f64::NAN
    } else {
        v[v.len() / 2]
    }
}

/// Medians of one configuration's runs in one phase.
#[derive(Debug, Clone, Copy)]
struct Summary {
    cpu: f64,
    cpu_min: f64,
    cpu_max: f64,
    wall: f64,
    rss_mib: f64,
    allocs: f64,
    connect_ms: f64,
    process_ms: f64,
    p50: f64,
    p99: f64,
    throughput: f64,
}

fn summarize(records: &[Record], phase: &str) -> BTreeMap<(&'static str, String), Summary> {
    let mut groups: BTreeMap<(&'static str, String), Vec<&Record>> = BTreeMap::new();
    for r in records.iter().filter(|r| r.phase == phase) {
        groups.entry((r.transport, r.label.clone())).or_default().push(r);
    }
    groups
        .into_iter()
        .map(|(key, runs)| {
            let calls = |r: &Record| r.field("n") * r.field("callers").max(1.0);
            let per_call =
                |name: &str| runs.iter().map(|r| r.field(name) / calls(r).max(1.0)).collect::<Vec<f64>>();
            let cpus = per_call("calls_cpu_us");
            let finite: Vec<f64> = cpus.iter().copied().filter(|x| x.is_finite()).collect();
            let pick = |name: &str| median(runs.iter().map(|r| r.field(name)).collect());
            let summary = Summary {
                cpu: median(cpus.clone()),
                cpu_min: finite.iter().copied().fold(f64::INFINITY, f64::min),
                cpu_max: finite.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                wall: median(per_call("calls_wall_us")),
                rss_mib: pick("maxrss_kb") / 1024.0,
                allocs: pick("allocs_per_call"),
                connect_ms: median(
                    runs.iter()
                        .map(|r| (r.field("connect_list_us") + r.field("close_us").max(0.0)) / 1e3)
                        .collect(),
                ),
                process_ms: median(runs.iter().map(|r| r.process_wall_us / 1e3).collect()),
                p50: pick("p50_us"),
                p99: pick("p99_us"),
                throughput: median(
                    runs.iter().map(|r| calls(r) / (r.field("calls_wall_us") / 1e6)).collect(),
                ),
            };
            (key, summary)
        })
        .collect()
}

fn get<'a>(
    s: &'a BTreeMap<(&'static str, String), Summary>,
    transport: &'static str,
    label: &str,
) -> Option<&'a Summary> {
    s.get(&(transport, label.to_owned()))
}

/// Runs every phase and prints the tables.
pub fn run(ours: &Path, opts: &Options) {
    let programs = Programs { ours: ours.to_owned(), kit: opts.kit_bin.clone() };
    for name in [
        "mini-stdio-server",
        "mini-http-server",
        "raw-stdio-client",
        "raw-threads-stdio-client",
        "raw-http-client",
        "rmcp-bench",
    ] {
        let path = opts.kit_bin.join(name);
        assert!(path.exists(), "{} is missing: build the kit first (bench/run does)", path.display());
    }
    for rt in RUNTIMES {
        let path = programs.ours(rt);
        assert!(
            path.exists(),
            "{} is missing: build mcp-bench's binaries first (bench/run does)",
            path.display()
        );
    }
    let server = HttpServer::start(&programs.kit("mini-http-server"), opts.pin);
    let url = format!("http://127.0.0.1:{}/mcp", server.port);
    let mut records = Vec::new();
    let mut out = opts.out.as_ref().map(|p| {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(p)
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
    });
    let mut keep = |r: Record, records: &mut Vec<Record>| {
        if let Some(f) = out.as_mut() {
            let line = serde_json::json!({"label": r.label, "transport": r.transport, "phase": r.phase,
                "process_wall_us": r.process_wall_us, "result": r.result});
            let _ = writeln!(f, "{line}");
        }
        records.push(r);
    };

    let mut sequential = programs.configs("stdio", opts.calls, &url, server.port);
    sequential.extend(programs.configs("http", opts.calls, &url, server.port));
    let mut connect = programs.configs("stdio", 0, &url, server.port);
    connect.extend(programs.configs("http", 0, &url, server.port));
    connect.retain(|c| !c.label.starts_with("raw"));
    if let Some(sdks) = &opts.sdks {
        let stdio_server = [programs.kit("mini-stdio-server")];
        let targets: [(&'static str, &[String]); 2] =
            [("stdio", &stdio_server), ("http", std::slice::from_ref(&url))];
        for (transport, target) in targets {
            sequential.extend(sdks.configs(transport, sdks.calls, target));
            connect.extend(sdks.configs(transport, 0, target));
        }
    }
    let mut concurrent: Vec<Config> = programs
        .configs("stdio", opts.caller_calls, &url, server.port)
        .into_iter()
        .chain(programs.configs("http", opts.caller_calls, &url, server.port))
        // Not the sequential raw floors, nor rmcp's unpooled HTTP client.
        .filter(|c| {
            let unpooled_rmcp = c.transport == "http" && c.label == "rmcp";
            !c.label.starts_with("raw") && !unpooled_rmcp
        })
        .collect();
    // The floor of a client whose concurrent callers are threads (as mcpwire-blocking's are).
    concurrent.push(Config {
        label: "raw-threads".to_owned(),
        transport: "stdio",
        argv: vec![
            programs.kit("raw-threads-stdio-client"),
            opts.caller_calls.to_string(),
            programs.kit("mini-stdio-server"),
        ],
        env: vec![],
    });
    if let Some(sdks) = &opts.sdks {
        concurrent.extend(sdks.configs("stdio", sdks.caller_calls, &[programs.kit("mini-stdio-server")]));
        concurrent.extend(sdks.configs("http", sdks.caller_calls, std::slice::from_ref(&url)));
    }
    let callers_env = [("CALLERS", opts.callers.to_string())];
    let mut order: Vec<(&Config, &'static str)> = Vec::new();
    for round in 0..opts.rounds {
        order.clear();
        order.extend(sequential.iter().map(|c| (c, "sequential")));
        order.extend(connect.iter().map(|c| (c, "connect")));
        if opts.callers > 1 {
            order.extend(concurrent.iter().map(|c| (c, "concurrent")));
        }
        for (config, phase) in shuffled(&order, round) {
            let env: &[(&str, String)] = if phase == "concurrent" { &callers_env } else { &[] };
            let record = run_one(config, phase, env, opts.pin);
            keep(record, &mut records);
        }
        eprintln!("round {} of {} done", round + 1, opts.rounds);
    }
    drop(server);
    report(&records, opts);
}

fn report(records: &[Record], opts: &Options) {
    let seq = summarize(records, "sequential");
    let con = summarize(records, "concurrent");
    let connect = summarize(records, "connect");
    let pin = opts.pin.map_or("not pinned".to_owned(), |c| format!("pinned to core {c}"));
    println!("{} sequential echo calls x {} rounds, {pin}; medians (cpu min-max)", opts.calls, opts.rounds);
    if let Some(sdks) = &opts.sdks {
        println!(
            "SDK clients ({}): {} sequential calls, {} per concurrent caller, each after {} untimed warm-up calls",
            sdks::LABELS.join(", "),
            sdks.calls,
            sdks.caller_calls,
            sdks.warmup
        );
    }
    for transport in ["stdio", "http"] {
        let (base, floor) =
            if transport == "stdio" { ("rmcp-ct", "raw-json") } else { ("rmcp-pooled-ct", "raw") };
        println!("\n{transport}: client CPU and wall per call; ratios to {base} and to the {floor} floor");
        println!(
            "{:<18} {:>18} {:>9} {:>9} {:>9} {:>9} {:>9} {:>10} {:>10}",
            "client",
            "cpu µs (min-max)",
            "wall µs",
            "cpu x",
            "wall x",
            "floor x",
            "allocs",
            "rss MiB",
            "connect ms"
        );
        let (Some(b), Some(fl)) = (get(&seq, transport, base), get(&seq, transport, floor)) else { continue };
        for ((t, label), s) in seq.iter().filter(|((t, _), _)| *t == transport) {
            let c = get(&connect, t, label).map_or(f64::NAN, |c| c.connect_ms);
            let allocs = if s.allocs.is_finite() { format!("{:.1}", s.allocs) } else { "-".into() };
            println!(
                "{label:<18} {:>18} {:>9.1} {:>9.2} {:>9.2} {:>9.2} {allocs:>9} {:>10.1} {c:>10.2}",
                format!("{:.1} ({:.1}-{:.1})", s.cpu, s.cpu_min, s.cpu_max),
                s.wall,
                s.cpu / b.cpu,
                s.wall / b.wall,
                s.cpu / fl.cpu,
                s.rss_mib,
            );
        }
    }
    if opts.callers > 1 {
        let sdk_calls =
            opts.sdks.as_ref().map_or(String::new(), |s| format!(" (SDK clients: {})", s.caller_calls));
        println!(
            "\n{} callers x {} calls{sdk_calls}: throughput and call latency",
            opts.callers, opts.caller_calls
        );
        println!(
            "{:<8} {:<18} {:>12} {:>9} {:>9} {:>9} {:>10}",
            "", "client", "calls/s", "p50 µs", "p99 µs", "cpu µs", "rss MiB"
        );
        for ((t, label), s) in &con {
            println!(
                "{t:<8} {label:<18} {:>12.0} {:>9.1} {:>9.1} {:>9.1} {:>10.1}",
                s.throughput, s.p50, s.p99, s.cpu, s.rss_mib
            );
        }
    }
    println!("\nwhole process, N = 0 (spawn or first exchange, handshake, list, close)");
    for ((t, label), s) in &connect {
        println!(
            "{t:<8} {label:<18} {:>8.2} ms in-process, {:>8.2} ms whole process",
            s.connect_ms, s.process_ms
        );
    }
    targets(&seq, &con, &connect);
}

/// The targets, each as measured / goal (reported, never asserted).
fn targets(
    seq: &BTreeMap<(&'static str, String), Summary>,
    con: &BTreeMap<(&'static str, String), Summary>,
    connect: &BTreeMap<(&'static str, String), Summary>,
) {
    println!("\ntargets (ratio, goal):");
    let line = |what: String, ratio: f64, goal: f64| {
        let verdict = if ratio.is_nan() {
            "n/a"
        } else if ratio <= goal {
            "meets"
        } else {
            "misses"
        };
        println!("  {what:<64} {ratio:>6.2} (<= {goal:<4}) {verdict}");
    };
    let cpu = |t: &'static str, l: &str| get(seq, t, l).map_or(f64::NAN, |s| s.cpu);
    let wall = |t: &'static str, l: &str| get(seq, t, l).map_or(f64::NAN, |s| s.wall);
    let best_rmcp_wall = wall("stdio", "rmcp").min(wall("stdio", "rmcp-ct"));
    for rt in RUNTIMES {
        let me = format!("mcpwire-{rt}");
        line(format!("stdio cpu {me} / rmcp-ct"), cpu("stdio", &me) / cpu("stdio", "rmcp-ct"), 0.5);
        line(format!("stdio cpu {me} / raw-json"), cpu("stdio", &me) / cpu("stdio", "raw-json"), 3.0);
        line(format!("stdio wall {me} / best rmcp"), wall("stdio", &me) / best_rmcp_wall, 0.8);
        let pooled = cpu("http", "rmcp-pooled").min(cpu("http", "rmcp-pooled-ct"));
        line(format!("http cpu {me} / best rmcp-pooled"), cpu("http", &me) / pooled, 0.6);
    }
    line(
        "stdio cpu mcpwire-tokio / rmcp (both multi-thread, block_on)".into(),
        cpu("stdio", "mcpwire-tokio") / cpu("stdio", "rmcp"),
        0.5,
    );
    line(
        "stdio cpu mcpwire-tokio-task / rmcp-task (both in a task)".into(),
        cpu("stdio", "mcpwire-tokio-task") / cpu("stdio", "rmcp-task"),
        0.5,
    );
    for multi in ["mcpwire-tokio", "mcpwire-tokio-task"] {
        line(
            format!("stdio cpu {multi} (multi-thread) / mcpwire-tokio-ct"),
            cpu("stdio", multi) / cpu("stdio", "mcpwire-tokio-ct"),
            1.2,
        );
        if let Some(s) = get(seq, "stdio", multi) {
            line(format!("stdio cpu {multi} max/min over rounds (bimodality)"), s.cpu_max / s.cpu_min, 1.2);
        }
    }
    for t in ["stdio", "http"] {
        let rmcp = ["rmcp", "rmcp-task", "rmcp-ct", "rmcp-pooled", "rmcp-pooled-ct"]
            .iter()
            .filter_map(|l| get(con, t, l))
            .map(|s| s.throughput)
            .fold(f64::NAN, f64::max);
        for rt in RUNTIMES {
            let me = format!("mcpwire-{rt}");
            if let Some(ours) = get(con, t, &me) {
                line(format!("{t} concurrent throughput best rmcp / {me}"), rmcp / ours.throughput, 1.0);
            }
        }
        let rmcp_label = if t == "stdio" { "rmcp" } else { "rmcp-pooled" };
        if let (Some(o), Some(r)) = (get(seq, t, "mcpwire-tokio"), get(seq, t, rmcp_label)) {
            line(format!("{t} peak RSS mcpwire-tokio / {rmcp_label}"), o.rss_mib / r.rss_mib, 1.0);
        }
        if let (Some(o), Some(r)) = (get(connect, t, "mcpwire-tokio"), get(connect, t, rmcp_label)) {
            line(
                format!("{t} connect+list+close mcpwire-tokio / {rmcp_label}"),
                o.connect_ms / r.connect_ms,
                1.0,
            );
        }
    }
}
