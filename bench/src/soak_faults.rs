//! The fault soak (`mcp-bench soak --faults`): 64 callers (by default) on each runtime family
//! make a mix of `tools/call`, `tools/list`, `prompts/list`, `resources/list` and
//! `resources/read` through the fault proxy of `mcp-tests` to the soak's loopback HTTP server,
//! while the proxy injects faults into a seeded random share of the connections: resets
//! mid-response, stalls past the request timeout, half-closes both ways, byte-by-byte drips,
//! accept-then-close, delayed heads, and kept-alive connections reset right after a response.
//!
//! Each round is a fault phase, then a recovery phase with the faults off. The run checks
//! outcomes, never timing: every call ends exactly once; under faults with its answer, a
//! timeout, a transport error or an HTTP error status (anything else, or a wrong answer, fails
//! the run); after the faults, every call succeeds; the server's record of what it received
//! shows no `tools/call` twice (the client never re-sends one) and every answered one; and this
//! process's descriptors and threads are back to their baseline (taken after a warm-up) once
//! the faults stop, with RSS reported (start, peak, end). A call that never returns ends the run
//! through a watchdog.

use std::collections::{BTreeMap, HashSet};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp_tests::support::faults::{Fault, FaultProxy, Plan};
use mcpwire_core::{ClientError, ServerSpec};
use serde_json::Value;

use crate::soak::{broken, HttpServer, Options, Rt};
use crate::soak_faults_runs::callers;
use crate::soak_leaks::{added, open_files, settle, PeakSampler, Usage};
use crate::soak_report::Row;
use crate::soak_watchdog::{InFlight, Watchdog};

/// The resource the mix reads.
pub const RESOURCE: &str = "soak://text";

/// Calls per caller before the baseline (pools and threads warmed).
const WARM_CALLS: usize = 8;

/// Calls per caller after each fault phase, with the faults off.
pub const RECOVERY_CALLS: usize = 8;

/// How long descriptors and threads may take to return to the baseline (the blocking
/// runtime's idle HTTP workers leave after 10 s).
const SETTLE: Duration = Duration::from_secs(30);

/// One operation of the mix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `tools/call` of `echo` with the call's own payload.
    Call,
    /// `tools/list`.
    ListTools,
    /// `prompts/list`.
    ListPrompts,
    /// `resources/list`.
    ListResources,
    /// `resources/read` of [`RESOURCE`].
    Read,
    /// `tools/call` of the test server's `big` (`--big-tool`), [`BIG_BYTES`] of text.
    Big,
}

/// The size of the `big` answer [`Op::Big`] asks for.
pub const BIG_BYTES: usize = 4 * 1024 * 1024;

/// Which operation caller `id` makes as its `i`-th call.
pub type Mix = fn(usize, usize) -> Op;

/// The HTTP mix: [`Op::of`]`(id + i)`.
pub fn mixed(id: usize, i: usize) -> Op {
    Op::of(id + i)
}

impl Op {
    /// The `i`-th operation: half are tool calls, the rest one of each other kind in turn.
    pub fn of(i: usize) -> Op {
        match i % 8 {
            1 => Op::ListTools,
            3 => Op::ListPrompts,
            5 => Op::ListResources,
            7 => Op::Read,
            _ => Op::Call,
        }
    }

    /// The answer's text when the call succeeds (for [`Op::Big`], its length).
    pub fn expected(self, payload: &str) -> String {
        match self {
            Op::Big => BIG_BYTES.to_string(),
            other => other.expected_text(payload).to_owned(),
        }
    }

    fn expected_text(self, payload: &str) -> &str {
        match self {
            Op::Big => "",
            Op::Call => payload,
            Op::ListTools => "echo",
            Op::ListPrompts => "greet",
            Op::ListResources => RESOURCE,
            Op::Read => "soak",
        }
    }
}

/// What calls came to.
#[derive(Debug, Default)]
pub struct Outcomes {
    /// Answered with the expected text.
    pub ok: usize,
    /// Answered with something else.
    pub wrong: usize,
    /// Timed out.
    pub timeouts: usize,
    /// Failed in transport.
    pub transport: usize,
    /// Failed with an HTTP error status.
    pub http: usize,
    /// Failed otherwise.
    pub other: usize,
    /// The payloads of the tool calls made, and of those answered.
    pub tool_calls: Vec<String>,
    /// The payloads of the tool calls answered.
    pub answered_calls: Vec<String>,
    /// The first few unexpected outcomes.
    pub samples: Vec<String>,
    /// The first few failures of any kind.
    pub errors: Vec<String>,
}

impl Outcomes {
    /// Every outcome counted.
    pub fn total(&self) -> usize {
        self.ok + self.wrong + self.timeouts + self.transport + self.http + self.other
    }

    /// Calls that failed, any way.
    pub fn failed(&self) -> usize {
        self.total() - self.ok
    }

    fn note(&mut self, what: String) {
        if self.samples.len() < 3 {
            self.samples.push(what);
        }
    }

    /// Counts one call's outcome.
    pub fn count(&mut self, op: Op, payload: &str, outcome: Result<String, ClientError>) {
        if matches!(op, Op::Call | Op::Big) {
            self.tool_calls.push(payload.to_owned());
        }
        if let (Err(e), true) = (&outcome, self.errors.len() < 3) {
            self.errors.push(format!("{payload} ({op:?}): {e}"));
        }
        match outcome {
            Ok(text) if text == op.expected(payload) => {
                self.ok += 1;
                if matches!(op, Op::Call | Op::Big) {
                    self.answered_calls.push(payload.to_owned());
                }
            }
            Ok(text) => {
                self.wrong += 1;
                self.note(format!("{payload} ({op:?}) answered {text:?}"));
            }
            Err(e) if e.is_timeout() => self.timeouts += 1,
            Err(e) if e.is_transport() => self.transport += 1,
            Err(e) if e.http_status().is_some() => self.http += 1,
            Err(e) => {
                self.other += 1;
                self.note(format!("{payload} ({op:?}): {e}"));
            }
        }
    }

    /// Adds another's outcomes to these.
    pub fn merge(&mut self, other: Outcomes) {
        self.ok += other.ok;
        self.wrong += other.wrong;
        self.timeouts += other.timeouts;
        self.transport += other.transport;
        self.http += other.http;
        self.other += other.other;
        self.tool_calls.extend(other.tool_calls);
        self.answered_calls.extend(other.answered_calls);
        for sample in other.samples {
            self.note(sample);
        }
        let room = 3usize.saturating_sub(self.errors.len());
        self.errors.extend(other.errors.into_iter().take(room));
    }

    /// Several callers' outcomes as one.
    pub fn merged(all: Vec<Outcomes>) -> Outcomes {
        let mut merged = Outcomes::default();
        for outcomes in all {
            merged.merge(outcomes);
        }
        merged
    }
}

/// Makes `calls` calls one after another as caller `id` (operation `mix(id, i)`, payload
/// `{tag}-c{id}-{i}`), each registered in `flight` while it runs, and counts the outcomes.
pub async fn fault_caller<F, Fut>(
    flight: &InFlight,
    (tag, mix): (&str, Mix),
    id: usize,
    calls: usize,
    mut perform: F,
) -> Outcomes
where
    F: FnMut(Op, String) -> Fut,
    Fut: std::future::Future<Output = Result<String, ClientError>>,
{
    let mut outcomes = Outcomes::default();
    for i in 0..calls {
        let (op, payload) = (mix(id, i), format!("{tag}-c{id}-{i}"));
        let ticket = flight.start(format!("{payload} ({op:?})"));
        let outcome = perform(op, payload.clone()).await;
        drop(ticket);
        outcomes.count(op, &payload, outcome);
    }
    outcomes
}

/// The faults drawn from, their durations scaled to the request timeout: the stall outlasts
/// it, the delayed head and the drip do not.
pub fn menu(timeout: Duration) -> Vec<Fault> {
    vec![
        Fault::AcceptThenClose,
        Fault::Reset { at: 600 },
        Fault::Stall { at: 600, stall: timeout + timeout / 2 },
        Fault::HalfCloseToClient { at: 600 },
        Fault::HalfCloseToServer { at: 600 },
        Fault::Drip { pause: Duration::from_millis(1) },
        Fault::DelayHead { delay: timeout / 4 },
        Fault::ResetAfterFirstResponse,
    ]
}

/// Everything a run gathered, for [`judge`].
#[derive(Debug, Default)]
struct Run {
    warm: Outcomes,
    faulty: Outcomes,
    recovered: Outcomes,
    rounds: usize,
    ledger: Ledger,
    connections: usize,
    injected: BTreeMap<&'static str, usize>,
    start: Usage,
    peak: Usage,
    end: Usage,
    /// The descriptors open at the end that were not at the start.
    extra_files: Vec<String>,
    wall: Duration,
}

/// One runtime's fault run against a fresh `soak-http-server` (`http_argv`).
pub fn faults(rt: Rt, http_argv: &[String], opts: &Options) -> Row {
    let record =
        std::env::temp_dir().join(format!("mcp-bench-faults-{}-{}.jsonl", std::process::id(), rt.name()));
    let _ = std::fs::remove_file(&record);
    let mut argv = http_argv.to_vec();
    argv.extend(["--record".to_owned(), record.display().to_string()]);
    let run = run(rt, &argv, &record, opts);
    let _ = std::fs::remove_file(&record);
    match run {
        Ok(run) => judge(rt, opts, &run),
        Err(why) => broken("faults", rt, "http", why),
    }
}

fn run(rt: Rt, argv: &[String], record: &std::path::Path, opts: &Options) -> Result<Run, String> {
    let server = HttpServer::start(argv, "message")?;
    let upstream: SocketAddr = server
        .url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .parse()
        .map_err(|e| format!("the server's address in {}: {e}", server.url))?;
    let proxy = FaultProxy::start(upstream, Plan::pass()).map_err(|e| format!("the fault proxy: {e}"))?;
    let timeout = Duration::from_millis(opts.fault_timeout_ms);
    let spec = ServerSpec::from_target("faults", &proxy.url("/mcp"))
        .map_err(|e| e.to_string())?
        .request_timeout(timeout)
        .connect_timeout(timeout)
        .retries(1);
    let flight = Arc::new(InFlight::default());
    let clients = callers(rt, spec, opts.fault_callers, flight.clone())?;
    let _watchdog =
        Watchdog::start(format!("faults {}", rt.name()), flight, timeout * 4 + Duration::from_secs(30));
    let mut run = Run::default();
    run.warm = run.ledger.settle(record, clients.run("warm", WARM_CALLS, mixed)?)?;
    // The connections the warm-up opened beyond the pool's idle ones close meanwhile.
    let quiet = Instant::now() + Duration::from_secs(5);
    while proxy.open_connections() > 8 && Instant::now() < quiet {
        std::thread::sleep(Duration::from_millis(20));
    }
    run.start = Usage::now();
    let files = open_files();
    let sampler = PeakSampler::start(run.start);
    let started = Instant::now();
    loop {
        let seed = opts.fault_seed.wrapping_add(run.rounds as u64);
        proxy.set_plan(Plan::seeded(seed, opts.fault_percent, menu(timeout)));
        let faulty = clients.run(&format!("f{}", run.rounds), opts.fault_calls, mixed)?;
        proxy.set_plan(Plan::pass());
        run.faulty.merge(run.ledger.settle(record, faulty)?);
        let recovered = clients.run(&format!("r{}", run.rounds), RECOVERY_CALLS, mixed)?;
        run.recovered.merge(run.ledger.settle(record, recovered)?);
        run.rounds += 1;
        if opts.fault_minutes.is_none_or(|m| started.elapsed().as_secs_f64() >= m * 60.0) {
            break;
        }
    }
    run.wall = started.elapsed();
    // The sampler's own thread is not part of the end figure.
    run.peak = sampler.finish();
    run.end = settle(run.start, SETTLE, |pause| clients.idle(pause));
    run.extra_files = added(&files, &open_files());
    run.peak = run.peak.max(run.end);
    clients.close();
    let counts = proxy.counts();
    drop(proxy);
    drop(server);
    (run.connections, run.injected) = (counts.connections, counts.injected);
    Ok(run)
}

/// The server's record checked phase by phase, so that nothing of it is kept in memory (the
/// RSS figures are the client's, not the ledger's): after each phase, when no call is in
/// flight, the record is read and emptied, and its `tools/call` payloads compared with the
/// phase's calls (payloads are unique to their phase).
#[derive(Debug, Default)]
struct Ledger {
    /// Tool calls made.
    made: usize,
    /// Tool calls the server received.
    received: usize,
    /// Tool calls received more than once, and the first few.
    duplicated: usize,
    duplicated_samples: Vec<String>,
    /// Tool calls answered but not received, received but not made, and the first few.
    unanswered: usize,
    strangers: usize,
    mismatch_samples: Vec<String>,
}

impl Ledger {
    /// Checks one phase's calls against what the record holds now, then empties the record;
    /// gives back the phase's outcomes without their payload lists.
    fn settle(&mut self, record: &std::path::Path, mut phase: Outcomes) -> Result<Outcomes, String> {
        let text = std::fs::read_to_string(record)
            .map_err(|e| format!("the server's record {}: {e}", record.display()))?;
        std::fs::File::options()
            .write(true)
            .open(record)
            .and_then(|f| f.set_len(0))
            .map_err(|e| format!("emptying the server's record: {e}"))?;
        let mut received = HashSet::new();
        for msg in text.lines().filter_map(|line| serde_json::from_str::<Value>(line).ok()) {
            if msg["method"] != "tools/call" || msg.get("id").is_none() {
                continue;
            }
            let payload = msg["params"]["arguments"]["message"].as_str().unwrap_or("<no payload>").to_owned();
            self.received += 1;
            if !received.insert(payload.clone()) {
                self.duplicated += 1;
                if self.duplicated_samples.len() < 3 {
                    self.duplicated_samples.push(payload);
                }
            }
        }
        let made: HashSet<&str> = phase.tool_calls.iter().map(String::as_str).collect();
        self.made += made.len();
        for payload in phase.answered_calls.iter().filter(|p| !received.contains(p.as_str())) {
            self.unanswered += 1;
            if self.mismatch_samples.len() < 3 {
                self.mismatch_samples.push(format!("answered, not received: {payload}"));
            }
        }
        for payload in received.iter().filter(|p| !made.contains(p.as_str())) {
            self.strangers += 1;
            if self.mismatch_samples.len() < 3 {
                self.mismatch_samples.push(format!("received, not made: {payload}"));
            }
        }
        phase.tool_calls = Vec::new();
        phase.answered_calls = Vec::new();
        Ok(phase)
    }
}

fn judge(rt: Rt, opts: &Options, run: &Run) -> Row {
    let per_round = opts.fault_callers * (opts.fault_calls + RECOVERY_CALLS);
    let expected = opts.fault_callers * WARM_CALLS + run.rounds * per_round;
    let outcomes = run.warm.total() + run.faulty.total() + run.recovered.total();
    let ledger = &run.ledger;
    let mib = |kib: u64| (kib as f64 / 1024.0 * 10.0).round() / 10.0;
    let f = &run.faulty;
    let mut row = Row::new("faults", rt, "http");
    row.set("calls", outcomes as u64);
    row.set("rounds", run.rounds as u64);
    row.set("answered", (run.warm.ok + f.ok + run.recovered.ok) as u64);
    row.set("timeouts", f.timeouts as u64);
    row.set("transport errors", f.transport as u64);
    row.set("http", f.http as u64);
    row.set("other", (f.other + f.wrong) as u64);
    row.set("tool calls", ledger.made as u64);
    row.set("received", ledger.received as u64);
    row.set("duplicated", ledger.duplicated as u64);
    row.set("connections", run.connections as u64);
    row.set("faults", run.injected.values().sum::<usize>() as u64);
    let kinds: Vec<String> = run.injected.iter().map(|(k, n)| format!("{k}:{n}")).collect();
    row.set("fault kinds", kinds.join(" "));
    row.set("fds start", run.start.fds);
    row.set("fds peak", run.peak.fds);
    row.set("fds end", run.end.fds);
    row.set("threads start", run.start.threads);
    row.set("threads peak", run.peak.threads);
    row.set("threads end", run.end.threads);
    row.set("rss start MiB", mib(run.start.rss_kib));
    row.set("rss peak MiB", mib(run.peak.rss_kib));
    row.set("rss end MiB", mib(run.end.rss_kib));
    row.set("secs", run.wall.as_secs_f64());
    row.check(outcomes == expected, || format!("{outcomes} outcomes for {expected} calls"));
    row.check(run.warm.failed() == 0, || {
        format!("{} calls failed before any fault: {:?}", run.warm.failed(), run.warm.errors)
    });
    row.check(f.other == 0 && f.wrong == 0, || {
        format!(
            "{} calls under faults ended neither answered nor with a timeout, transport or HTTP error: {:?}",
            f.other + f.wrong,
            f.samples
        )
    });
    row.check(run.recovered.failed() == 0, || {
        format!(
            "{} of {} calls failed after the faults stopped ({} timeouts, {} transport, {} HTTP): {:?}",
            run.recovered.failed(),
            run.recovered.total(),
            run.recovered.timeouts,
            run.recovered.transport,
            run.recovered.http,
            run.recovered.errors
        )
    });
    row.check(ledger.duplicated == 0, || {
        format!(
            "{} tools/call reached the server more than once (re-sent): {:?}",
            ledger.duplicated, ledger.duplicated_samples
        )
    });
    row.check(ledger.unanswered == 0 && ledger.strangers == 0, || {
        format!(
            "{} answered calls the server never received, {} received calls never made: {:?}",
            ledger.unanswered, ledger.strangers, ledger.mismatch_samples
        )
    });
    row.check(opts.fault_percent == 0 || !run.injected.is_empty(), || "no fault took effect".into());
    row.check(run.end.within(run.start), || {
        format!(
            "descriptors or threads not back to their baseline {SETTLE:?} after the faults: {:?} at the start, {:?} at the end (open since the start: {:?})",
            run.start, run.end, run.extra_files
        )
    });
    row
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpwire_core::RequestError;

    #[test]
    fn the_mix_is_half_tool_calls_and_expects_each_answer() {
        let ops: Vec<Op> = (0..8).map(Op::of).collect();
        assert_eq!(ops.iter().filter(|op| **op == Op::Call).count(), 4);
        assert_eq!(
            [Op::ListTools, Op::ListPrompts, Op::ListResources, Op::Read].map(|op| op.expected("p")),
            ["echo", "greet", RESOURCE, "soak"]
        );
        assert_eq!(Op::Call.expected("p"), "p");
        assert_eq!(Op::Big.expected("p"), BIG_BYTES.to_string());
    }

    #[test]
    fn outcomes_are_counted_by_kind() {
        let mut o = Outcomes::default();
        o.count(Op::Call, "a", Ok("a".into()));
        o.count(Op::Call, "b", Ok("a".into()));
        o.count(Op::Read, "c", Err(ClientError::Request(RequestError::Timeout { after: Duration::ZERO })));
        let lost = RequestError::TransportClosed { detail: "reset".into(), source: None };
        o.count(Op::ListTools, "d", Err(ClientError::Request(lost)));
        let status = RequestError::Http { status: 400, detail: String::new() };
        o.count(Op::Call, "e", Err(ClientError::Request(status)));
        o.count(Op::Call, "f", Err(ClientError::Closed));
        assert_eq!((o.ok, o.wrong, o.timeouts, o.transport, o.http, o.other), (1, 1, 1, 1, 1, 1));
        assert_eq!((o.total(), o.failed()), (6, 5));
        assert_eq!(o.tool_calls, ["a", "b", "e", "f"]);
        assert_eq!(o.answered_calls, ["a"]);
        assert_eq!(o.samples.len(), 2);
    }

    /// A record file holding a `tools/call` line for each payload.
    fn record_of(name: &str, payloads: &[&str]) -> std::path::PathBuf {
        let path = std::env::temp_dir().join(format!("mcp-bench-ledger-{}-{name}.jsonl", std::process::id()));
        let lines: String = payloads
            .iter()
            .map(|p| {
                let msg = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                    "params": {"name": "echo", "arguments": {"message": p}}});
                format!("{msg}\n")
            })
            .collect();
        std::fs::write(&path, lines).unwrap();
        path
    }

    fn answered(payloads: &[&str]) -> Outcomes {
        let mut o = Outcomes::default();
        for p in payloads {
            o.count(Op::Call, p, Ok((*p).to_owned()));
        }
        o
    }

    #[test]
    fn the_ledger_checks_each_phase_and_empties_the_record() {
        let record = record_of("phase", &["a", "b", "a", "x"]);
        let mut ledger = Ledger::default();
        let phase = ledger.settle(&record, answered(&["a", "b", "c"])).unwrap();
        assert!(phase.tool_calls.is_empty() && phase.answered_calls.is_empty() && phase.ok == 3);
        assert_eq!(std::fs::read_to_string(&record).unwrap(), "", "emptied");
        assert_eq!((ledger.made, ledger.received, ledger.duplicated), (3, 4, 1));
        assert_eq!((ledger.unanswered, ledger.strangers), (1, 1), "c answered unreceived, x a stranger");
        ledger.settle(&record, answered(&[])).unwrap();
        assert_eq!((ledger.made, ledger.received), (3, 4));
        let _ = std::fs::remove_file(&record);
    }

    fn clean_run(opts: &Options) -> Run {
        let usage = Usage { fds: 10, threads: 5, rss_kib: 1024 };
        let mut run = Run {
            rounds: 1,
            connections: 3,
            injected: BTreeMap::from([("reset", 1)]),
            start: usage,
            peak: usage,
            end: usage,
            wall: Duration::from_secs(1),
            ..Run::default()
        };
        let mut phase = |tag: &str, n: usize| {
            let payloads: Vec<String> = (0..opts.fault_callers * n).map(|i| format!("{tag}{i}")).collect();
            let payloads: Vec<&str> = payloads.iter().map(String::as_str).collect();
            let record = record_of(tag, &payloads);
            let phase = run.ledger.settle(&record, answered(&payloads)).unwrap();
            let _ = std::fs::remove_file(&record);
            phase
        };
        let (warm, faulty, recovered) =
            (phase("w", WARM_CALLS), phase("f", opts.fault_calls), phase("r", RECOVERY_CALLS));
        (run.warm, run.faulty, run.recovered) = (warm, faulty, recovered);
        run
    }

    #[test]
    fn judges_duplicates_recovery_and_leaks() {
        let opts = Options { fault_callers: 2, fault_calls: 3, ..Options::default() };
        let good = judge(Rt::Smol, &opts, &clean_run(&opts));
        assert!(good.failures.is_empty(), "{:?}", good.failures);
        let mut bad = clean_run(&opts);
        bad.ledger.duplicated += 1;
        bad.recovered.ok -= 1;
        bad.recovered.timeouts += 1;
        bad.end.threads += 1;
        let said = judge(Rt::Smol, &opts, &bad).failures.join("\n");
        assert!(said.contains("more than once") && said.contains("after the faults stopped"), "{said}");
        assert!(said.contains("baseline"), "{said}");
    }
}
