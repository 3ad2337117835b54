//! `mcp-bench soak`: load and soak runs of the client on every runtime, bounded and on
//! loopback only, each checking outcomes (never timing) and reporting figures (the table of
//! `docs/reliability.md`: update it after a full run).
//!
//! * load: C concurrent callers x M calls on one stdio and one HTTP server; every call is
//!   answered exactly once with its own caller's payload, no error; throughput, p50/p99.
//! * long: N sequential calls on a stdio server, RSS (`VmRSS`) sampled after a warm-up and at
//!   the end; the run fails when it grew by more than the limit (5 % by default).
//! * many: S stdio servers in one client, all connecting at once; each answers a call.
//! * restart: a stdio server that exits on every K-th `tools/call` (the test server's
//!   `--exit-after`) under C callers: every call ends with exactly one outcome, success or a
//!   typed `TransportClosed` (the client never re-sends a `tools/call`, checked against the
//!   server's record of what it received), and the client restarts the server and goes on.
//!
//! * faults: C callers on an HTTP server behind a fault-injecting proxy (resets, stalls,
//!   half-closes, drips, delayed heads, keep-alive connections reset between exchanges): every
//!   call ends once, answered or with a timeout, transport or HTTP error; no `tools/call` is
//!   re-sent; calls succeed again once the faults stop; descriptors and threads return to
//!   their baseline (see `soak_faults`). Not part of `--all`; `--minutes M` repeats its rounds.
//! * process: the same callers on a stdio test server that is stopped (SIGSTOP/SIGCONT),
//!   killed mid-write, closes its stdout, or stops reading stdin (see `soak_process`). Not part
//!   of `--all`.
//!
//! Every server is this binary. Load and long talk to cheap echo servers (`mcp-bench
//! soak-stdio-server` and `soak-http-server`, like the kit's mini servers), so they measure the
//! client; `--test-server` puts the bundled test server under load and long over stdio instead,
//! `--kit DIR` the comparison kit's `mini-stdio-server` / `mini-http-server`. Many and restart
//! always run the bundled test server (`mcp-bench __serve-mcp-test-server`), whose
//! `--exit-after` and `--record` the restart run needs.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Instant;

use mcpwire_core::{ClientError, RequestError};
use serde_json::{json, Value};

use crate::soak_report::{Report, Row};

/// A runtime family the soak drives the client on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rt {
    /// `mcpwire-tokio` on a multi-thread tokio runtime.
    Tokio,
    /// `mcpwire-tokio` on a current-thread tokio runtime (every caller a task on one thread).
    TokioCt,
    /// `mcpwire-smol` (callers on threads of their own, each driving its calls).
    Smol,
    /// `mcpwire-blocking`.
    Blocking,
}

impl Rt {
    /// Every family, in report order.
    pub const ALL: [Rt; 4] = [Rt::Tokio, Rt::TokioCt, Rt::Smol, Rt::Blocking];

    /// The family's name in flags and tables.
    pub fn name(self) -> &'static str {
        match self {
            Rt::Tokio => "tokio",
            Rt::TokioCt => "tokio-ct",
            Rt::Smol => "smol",
            Rt::Blocking => "blocking",
        }
    }

    fn parse(name: &str) -> Option<Rt> {
        Rt::ALL.into_iter().find(|rt| rt.name() == name)
    }
}

/// What `mcp-bench soak` runs, and how big.
#[derive(Debug, Clone)]
pub struct Options {
    /// Run the load part.
    pub load: bool,
    /// Run the long sequential part.
    pub long: bool,
    /// Run the many-servers part.
    pub many: bool,
    /// Run the restarting-server part.
    pub restart: bool,
    /// Run the fault part (not part of `--all`).
    pub faults: bool,
    /// Run the process-fault part (not part of `--all`).
    pub process: bool,
    /// The runtimes, in order.
    pub runtimes: Vec<Rt>,
    /// Load: concurrent callers.
    pub callers: usize,
    /// Load: calls per caller.
    pub caller_calls: usize,
    /// Long: sequential calls.
    pub sequential: usize,
    /// Long: the allowed RSS growth in percent (`None`: reported only).
    pub max_rss_growth: Option<f64>,
    /// Many: servers in one client.
    pub servers: usize,
    /// Restart: calls in all.
    pub restart_calls: usize,
    /// Restart: the server exits on every `exit_every`-th `tools/call`.
    pub exit_every: u64,
    /// Restart: concurrent callers.
    pub restart_callers: usize,
    /// Faults: concurrent callers.
    pub fault_callers: usize,
    /// Faults: calls per caller in each fault phase.
    pub fault_calls: usize,
    /// Faults: the share of connections given a fault, in percent.
    pub fault_percent: u8,
    /// Faults: the seed of the first round's fault plan (round `r` uses `seed + r`).
    pub fault_seed: u64,
    /// Faults: the client's request timeout, ms.
    pub fault_timeout_ms: u64,
    /// Faults: repeat rounds until this many minutes have passed (`None`: one round).
    pub fault_minutes: Option<f64>,
    /// Load and long over stdio on the bundled test server instead of the cheap echo server.
    pub test_server: bool,
    /// The comparison kit's binaries, for load and long (`None`: this binary's servers).
    pub kit: Option<PathBuf>,
    /// Append one JSON record per table row here.
    pub out: Option<PathBuf>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            load: false,
            long: false,
            many: false,
            restart: false,
            faults: false,
            process: false,
            runtimes: Rt::ALL.to_vec(),
            callers: 64,
            caller_calls: 1_000,
            sequential: 1_000_000,
            max_rss_growth: Some(5.0),
            servers: 100,
            restart_calls: 10_000,
            exit_every: 1_000,
            restart_callers: 8,
            fault_callers: 64,
            fault_calls: 200,
            fault_percent: 10,
            fault_seed: 1,
            fault_timeout_ms: 2_000,
            fault_minutes: None,
            test_server: false,
            kit: None,
            out: None,
        }
    }
}

/// The flags of `mcp-bench soak`.
pub const USAGE: &str =
    "mcp-bench soak [--all | --load --long --many --restart --faults --process] [--runtimes tokio,tokio-ct,smol,blocking]
                [--callers C] [--caller-calls M] [--sequential N] [--max-rss-growth PCT|off]
                [--servers S] [--restart-calls N] [--exit-every K] [--restart-callers C]
                [--fault-callers C] [--fault-calls N] [--fault-percent P] [--seed S]
                [--request-timeout-ms MS] [--minutes M]
                [--test-server | --kit DIR] [--out FILE.jsonl]";

/// Parses the flags after `soak`; an error names the flag at fault.
pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Options, String> {
    let mut opts = Options::default();
    let mut args = args.into_iter();
    fn count(flag: &str, value: Option<String>, min: usize) -> Result<usize, String> {
        let value = value.ok_or_else(|| format!("{flag} requires a value"))?;
        match value.replace('_', "").parse::<usize>() {
            Ok(n) if n >= min => Ok(n),
            _ => Err(format!("{flag} expects a whole number of at least {min}, got {value:?}")),
        }
    }
    while let Some(flag) = args.next() {
        match flag.as_str() {
            "--all" => (opts.load, opts.long, opts.many, opts.restart) = (true, true, true, true),
            "--load" => opts.load = true,
            "--long" => opts.long = true,
            "--many" => opts.many = true,
            "--restart" => opts.restart = true,
            "--faults" => opts.faults = true,
            "--process" => opts.process = true,
            "--runtimes" => {
                let list = args.next().ok_or("--runtimes requires a value")?;
                opts.runtimes = list
                    .split(',')
                    .map(|name| Rt::parse(name.trim()).ok_or(format!("unknown runtime {name:?}")))
                    .collect::<Result<_, _>>()?;
            }
            "--callers" => opts.callers = count(&flag, args.next(), 1)?,
            "--caller-calls" => opts.caller_calls = count(&flag, args.next(), 1)?,
            "--sequential" => opts.sequential = count(&flag, args.next(), 1)?,
            "--max-rss-growth" => {
                let value = args.next().ok_or("--max-rss-growth requires a value")?;
                opts.max_rss_growth = match value.as_str() {
                    "off" => None,
                    v => match v.trim_end_matches('%').parse::<f64>() {
                        Ok(pct) if pct.is_finite() && pct >= 0.0 => Some(pct),
                        _ => return Err(format!("--max-rss-growth expects a percentage or off, got {v:?}")),
                    },
                };
            }
            "--servers" => opts.servers = count(&flag, args.next(), 1)?,
            "--restart-calls" => opts.restart_calls = count(&flag, args.next(), 1)?,
            "--exit-every" => opts.exit_every = count(&flag, args.next(), 2)? as u64,
            "--restart-callers" => opts.restart_callers = count(&flag, args.next(), 1)?,
            "--fault-callers" => opts.fault_callers = count(&flag, args.next(), 1)?,
            "--fault-calls" => opts.fault_calls = count(&flag, args.next(), 1)?,
            "--fault-percent" => {
                let percent = count(&flag, args.next(), 0)?;
                opts.fault_percent = u8::try_from(percent)
                    .ok()
                    .filter(|p| *p <= 100)
                    .ok_or(format!("--fault-percent expects 0 to 100, got {percent}"))?;
            }
            "--seed" => opts.fault_seed = count(&flag, args.next(), 0)? as u64,
            "--request-timeout-ms" => opts.fault_timeout_ms = count(&flag, args.next(), 10)? as u64,
            "--minutes" => {
                let value = args.next().ok_or("--minutes requires a value")?;
                match value.parse::<f64>() {
                    Ok(m) if m.is_finite() && m > 0.0 => opts.fault_minutes = Some(m),
                    _ => return Err(format!("--minutes expects a positive number, got {value:?}")),
                }
            }
            "--test-server" => opts.test_server = true,
            "--kit" => opts.kit = Some(args.next().ok_or("--kit requires a folder")?.into()),
            "--out" => opts.out = Some(args.next().ok_or("--out requires a file")?.into()),
            other => return Err(format!("unknown flag {other:?}")),
        }
    }
    if !(opts.load || opts.long || opts.many || opts.restart || opts.faults || opts.process) {
        return Err(
            "choose the parts: --all, or any of --load --long --many --restart --faults --process".into()
        );
    }
    if opts.test_server && opts.kit.is_some() {
        return Err("--test-server and --kit both choose the load and long servers: pick one".into());
    }
    if opts.runtimes.is_empty() {
        return Err("--runtimes names no runtime".into());
    }
    Ok(opts)
}

/// A stdio server command line and the name of its echo tool's argument.
#[derive(Debug, Clone)]
pub struct StdioServer {
    /// The program and its arguments.
    pub argv: Vec<String>,
    /// `message` (the bundled test server) or `text` (the kit's mini servers).
    pub key: &'static str,
}

impl StdioServer {
    /// This server with extra arguments.
    pub fn with_args(&self, extra: &[String]) -> StdioServer {
        let mut argv = self.argv.clone();
        argv.extend_from_slice(extra);
        StdioServer { argv, key: self.key }
    }

    /// Its client configuration under `name`.
    pub fn spec(&self, name: &str) -> Result<mcpwire_core::ServerSpec, String> {
        let command =
            mcpwire_core::target::command_from_argv(self.argv.clone()).map_err(|e| e.to_string())?;
        Ok(mcpwire_core::ServerSpec::stdio(name, command))
    }
}

/// A loopback HTTP server process, stopped on drop.
#[derive(Debug)]
pub struct HttpServer {
    child: Child,
    /// Its MCP endpoint.
    pub url: String,
    /// The name of its echo tool's argument.
    pub key: &'static str,
}

impl HttpServer {
    /// Starts `argv` (which prints `listening 127.0.0.1:PORT` first) and reads its port.
    pub fn start(argv: &[String], key: &'static str) -> Result<HttpServer, String> {
        let mut child = Command::new(&argv[0])
            .args(&argv[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", argv[0]))?;
        let mut line = String::new();
        let read = BufReader::new(child.stdout.take().expect("piped stdout")).read_line(&mut line);
        let port =
            line.trim().strip_prefix("listening ").and_then(|a| a.rsplit(':').next()?.parse::<u16>().ok());
        match (read, port) {
            (Ok(_), Some(port)) => Ok(HttpServer { child, url: format!("http://127.0.0.1:{port}/mcp"), key }),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                Err(format!("{} did not say where it listens (said {line:?})", argv[0]))
            }
        }
    }

    /// Its client configuration under `name`.
    pub fn spec(&self, name: &str) -> Result<mcpwire_core::ServerSpec, String> {
        mcpwire_core::ServerSpec::from_target(name, &self.url).map_err(|e| e.to_string())
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The echo call's arguments for `payload`.
pub fn echo_args(key: &str, payload: &str) -> Value {
    json!({ key: payload })
}

/// What one caller's calls came to.
#[derive(Debug, Default)]
pub struct Tally {
    /// Answered with this caller's own payload.
    pub ok: usize,
    /// Answered, but with something else (another call's payload, or nothing).
    pub wrong: usize,
    /// The payloads of the calls that failed with `TransportClosed`.
    pub closed: Vec<String>,
    /// Other failures: how many, and the first few.
    pub other: usize,
    /// The first few failures and wrong answers, for the report.
    pub samples: Vec<String>,
    /// Per-call latency in µs.
    pub latencies: Vec<f64>,
}

impl Tally {
    fn note(&mut self, what: String) {
        if self.samples.len() < 3 {
            self.samples.push(what);
        }
    }

    /// Adds another caller's tally to this one.
    pub fn merge(&mut self, other: Tally) {
        self.ok += other.ok;
        self.wrong += other.wrong;
        self.closed.extend(other.closed);
        self.other += other.other;
        for s in other.samples {
            self.note(s);
        }
        self.latencies.extend(other.latencies);
    }

    /// Every outcome counted.
    pub fn outcomes(&self) -> usize {
        self.ok + self.wrong + self.closed.len() + self.other
    }
}

/// Makes `calls` calls one after another as caller `caller`, each with a payload of its own
/// (`{tag}-c{caller}-{i}`), and tallies the outcomes. `call` sends one payload and returns the
/// result's text. The blocking families pass `std::future::ready(..)` futures.
pub async fn caller<F, Fut>(tag: &str, caller: usize, calls: usize, mut call: F) -> Tally
where
    F: FnMut(String) -> Fut,
    Fut: std::future::Future<Output = Result<String, ClientError>>,
{
    let mut tally = Tally { latencies: Vec::with_capacity(calls), ..Tally::default() };
    for i in 0..calls {
        let payload = format!("{tag}-c{caller}-{i}");
        let started = Instant::now();
        let outcome = call(payload.clone()).await;
        tally.latencies.push(started.elapsed().as_secs_f64() * 1e6);
        match outcome {
            Ok(text) if text == payload => tally.ok += 1,
            Ok(text) => {
                tally.wrong += 1;
                tally.note(format!("{payload}: answered {text:?}"));
            }
            Err(ClientError::Request(RequestError::TransportClosed { detail, .. })) => {
                tally.note(format!("{payload}: transport closed: {detail}"));
                tally.closed.push(payload);
            }
            Err(e) => {
                tally.other += 1;
                tally.note(format!("{payload}: {e}"));
            }
        }
    }
    tally
}

/// Runs a blocking family's caller loop (each call is made synchronously inside `call`).
pub fn caller_sync(
    tag: &str,
    id: usize,
    calls: usize,
    mut call: impl FnMut(String) -> Result<String, ClientError>,
) -> Tally {
    futures_lite::future::block_on(caller(tag, id, calls, |payload| std::future::ready(call(payload))))
}

/// This process's resident set size in KiB (`VmRSS`), 0 where unknown.
pub fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
            line.split_whitespace().nth(1)?.parse().ok()
        })
        .unwrap_or(0)
}

/// Runs the chosen parts and prints the report; returns whether every check held.
pub fn run(opts: &Options) -> Result<bool, String> {
    let ours = std::env::current_exe().map_err(|e| format!("the path of mcp-bench: {e}"))?;
    let ours = ours.display().to_string();
    let bundled =
        StdioServer { argv: vec![ours.clone(), mcpwire_test_server::SERVE_ARG.to_owned()], key: "message" };
    let (fast_stdio, http_argv, http_key) = match &opts.kit {
        Some(kit) => {
            let at = |name: &str| kit.join(name).display().to_string();
            for name in ["mini-stdio-server", "mini-http-server"] {
                if !kit.join(name).exists() {
                    return Err(format!("{} is missing: build the kit first (bench/run does)", at(name)));
                }
            }
            let port = std::net::TcpListener::bind("127.0.0.1:0")
                .and_then(|l| l.local_addr())
                .map_err(|e| format!("no free port: {e}"))?
                .port();
            let stdio = StdioServer { argv: vec![at("mini-stdio-server")], key: "text" };
            (stdio, vec![at("mini-http-server"), port.to_string()], "text")
        }
        None => {
            let cheap = StdioServer { argv: vec![ours.clone(), "soak-stdio-server".into()], key: "message" };
            let stdio = if opts.test_server { bundled.clone() } else { cheap };
            (stdio, vec![ours.clone(), "soak-http-server".into(), "0".into()], "message")
        }
    };
    let mut report = Report::new(opts.out.clone())?;
    let started = Instant::now();
    if opts.long {
        report.section(format!(
            "long: {} sequential calls on stdio ({}), RSS (VmRSS of this process) after a warm-up and at the end",
            opts.sequential,
            server_name(&fast_stdio)
        ));
        for &rt in &opts.runtimes {
            report.add(crate::soak_runs::long(rt, &fast_stdio, opts));
        }
    }
    if opts.load {
        report.section(format!(
            "load: {} callers x {} calls (stdio: {}), each answered exactly once with its own payload",
            opts.callers,
            opts.caller_calls,
            server_name(&fast_stdio)
        ));
        let http = HttpServer::start(&http_argv, http_key)?;
        for &rt in &opts.runtimes {
            report.add(crate::soak_runs::load(
                rt,
                "stdio",
                |name| fast_stdio.spec(name),
                fast_stdio.key,
                opts,
            ));
            report.add(crate::soak_runs::load(rt, "http", |name| http.spec(name), http.key, opts));
        }
    }
    if opts.many {
        report.section(format!(
            "many: {} stdio servers (test server) in one client, connecting at once",
            opts.servers
        ));
        for &rt in &opts.runtimes {
            report.add(crate::soak_restart::many(rt, &bundled, opts));
        }
    }
    if opts.restart {
        report.section(format!(
            "restart: {} calls by {} callers; the test server exits on every {}th tools/call, unanswered",
            opts.restart_calls, opts.restart_callers, opts.exit_every
        ));
        for &rt in &opts.runtimes {
            report.add(crate::soak_restart::restart(rt, &bundled, opts));
        }
    }
    if opts.faults {
        let rounds = match opts.fault_minutes {
            Some(m) => format!("rounds for {m} min"),
            None => "one round".into(),
        };
        report.section(format!(
            "faults: {} callers x {} calls under faults ({} % of connections, seed {}), then {} each without, {rounds}; \
             request timeout {} ms; HTTP through the fault proxy",
            opts.fault_callers,
            opts.fault_calls,
            opts.fault_percent,
            opts.fault_seed,
            crate::soak_faults::RECOVERY_CALLS,
            opts.fault_timeout_ms
        ));
        let argv = vec![ours.clone(), "soak-http-server".into(), "0".into()];
        for &rt in &opts.runtimes {
            report.add(crate::soak_faults::faults(rt, &argv, opts));
        }
    }
    if opts.process {
        for &rt in &opts.runtimes {
            crate::soak_process::prime(rt, &bundled);
        }
        for scenario in crate::soak_process::SCENARIOS {
            report.section(format!(
                "process {scenario}: {} callers on the test server over stdio; request timeout {} ms",
                opts.fault_callers, opts.fault_timeout_ms
            ));
            for &rt in &opts.runtimes {
                report.add(crate::soak_process::process(rt, scenario, &bundled, opts));
            }
        }
    }
    let ok = report.finish(started.elapsed());
    let _ = std::io::stdout().flush();
    Ok(ok)
}

fn server_name(server: &StdioServer) -> String {
    match server.argv.get(1).map(String::as_str) {
        Some(mcpwire_test_server::SERVE_ARG) => "bundled test server".into(),
        Some(subcommand) => format!("mcp-bench {subcommand}"),
        None => server.argv[0].rsplit('/').next().unwrap_or_default().to_owned(),
    }
}

/// A row for a run that could not even start (no client, no server).
pub fn broken(part: &'static str, rt: Rt, transport: &'static str, why: String) -> Row {
    let mut row = Row::new(part, rt, transport);
    row.fail(why);
    row
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(args: &[&str]) -> Result<Options, String> {
        parse(args.iter().map(|s| s.to_string()))
    }

    #[test]
    fn parses_parts_and_sizes() {
        let o = parsed(&["--all"]).unwrap();
        assert!(o.load && o.long && o.many && o.restart);
        assert_eq!((o.callers, o.caller_calls, o.sequential, o.servers), (64, 1000, 1_000_000, 100));
        assert_eq!(o.max_rss_growth, Some(5.0));
        let o = parsed(&["--load", "--callers", "8", "--caller-calls", "50", "--runtimes", "smol,blocking"])
            .unwrap();
        assert!(o.load && !o.long && !o.many && !o.restart);
        assert_eq!((o.callers, o.caller_calls), (8, 50));
        assert_eq!(o.runtimes, vec![Rt::Smol, Rt::Blocking]);
        let o = parsed(&["--long", "--sequential", "20_000", "--max-rss-growth", "off"]).unwrap();
        assert_eq!((o.sequential, o.max_rss_growth), (20_000, None));
        assert_eq!(parsed(&["--long", "--max-rss-growth", "7.5%"]).unwrap().max_rss_growth, Some(7.5));
    }

    #[test]
    fn refuses_bad_flags() {
        assert!(parsed(&[]).is_err(), "no part chosen");
        assert!(parsed(&["--all", "--callers", "0"]).is_err());
        assert!(parsed(&["--all", "--callers"]).is_err());
        assert!(parsed(&["--all", "--exit-every", "1"]).is_err());
        assert!(parsed(&["--all", "--runtimes", "tokio,gevent"]).is_err());
        assert!(parsed(&["--all", "--max-rss-growth", "-1"]).is_err());
        assert!(parsed(&["--all", "--fast"]).is_err());
        assert!(parsed(&["--all", "--test-server", "--kit", "target/bench-kit/release"]).is_err());
    }

    #[test]
    fn a_caller_tallies_each_outcome_once() {
        let mut n = 0;
        let tally = caller_sync("t", 3, 4, |payload| {
            n += 1;
            match n {
                1 => Ok(payload),
                2 => Ok("someone else's".into()),
                3 => Err(ClientError::Request(RequestError::TransportClosed {
                    detail: "gone".into(),
                    source: None,
                })),
                _ => Err(ClientError::Closed),
            }
        });
        assert_eq!(
            (tally.ok, tally.wrong, tally.closed.clone(), tally.other),
            (1, 1, vec!["t-c3-2".to_owned()], 1)
        );
        assert_eq!(tally.outcomes(), 4);
        assert_eq!(tally.latencies.len(), 4);
    }
}
