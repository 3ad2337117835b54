//! The process-fault soak (`mcp-bench soak --process`): the client's stdio glue on each runtime
//! family, `C` concurrent callers (64 by default) on the bundled test server while the process
//! is hurt:
//!
//! * `sigstop`: the server is stopped (SIGSTOP): every call times out, typed; after SIGCONT
//!   every call succeeds again.
//! * `sigkill`: the server is killed (SIGKILL) while it writes a 4 MiB answer slowly
//!   (`--big-tool --slow-write-ms`): the calls in flight fail typed, the client starts a new
//!   process, later calls succeed.
//! * `stdout-closed`: the server closes its stdout and lives on (`--close-stdout-after`): the
//!   client notices, the calls in flight fail typed, later calls succeed on a new process.
//! * `stdin-full`: the server stops reading stdin (`--stop-reading-after`) while the callers
//!   send 8 KiB payloads, so the pipe fills: every call still ends (timed out, typed) and
//!   closing the client still returns.
//!
//! Each checks: one outcome per call, of the acceptable kinds; no `tools/call` received twice
//! (the server's `--record`); no server process left running once the client is closed; and
//! this process's descriptors and threads back to where they were before the client (within
//! 30 s). A call (or a close) that never returns ends the run through the watchdog.

use std::collections::HashSet;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp_tests::support::processes_with_marker;
use serde_json::Value;

use crate::soak::{broken, Options, Rt, StdioServer};
use crate::soak_faults::{Op, Outcomes, BIG_BYTES};
use crate::soak_faults_runs::{callers, Callers};
use crate::soak_leaks::{settle, Usage};
use crate::soak_report::Row;
use crate::soak_watchdog::{InFlight, Watchdog};

/// The scenarios, in report order.
pub const SCENARIOS: [&str; 4] = ["sigstop", "sigkill", "stdout-closed", "stdin-full"];

/// How long descriptors and threads may take to come back once the client is closed (the
/// blocking client's idle workers leave after 10 s).
const SETTLE: Duration = Duration::from_secs(30);

/// Tool calls per caller before the fault.
const WARM: usize = 2;

fn calls_only(_: usize, _: usize) -> Op {
    Op::Call
}

fn big_first(id: usize, i: usize) -> Op {
    if (id, i) == (0, 0) {
        Op::Big
    } else {
        Op::Call
    }
}

/// What a scenario's phases came to.
#[derive(Debug, Default)]
struct Phases {
    /// Before the fault: every call must succeed.
    before: Outcomes,
    /// During it: the acceptable failures only.
    during: Outcomes,
    /// After it: every call must succeed (`None`: the scenario has no after).
    after: Option<Outcomes>,
    /// Scenario notes for the row (e.g. whether the kill landed mid-write).
    notes: Vec<(&'static str, Value)>,
}

/// Starts and closes one client of `rt` on the test server, one call, so that what a runtime
/// sets up once per process (a reactor thread, a child reaper, their descriptors) is in place
/// before the scenarios compare descriptors and threads. Failures are the scenarios' to report.
pub fn prime(rt: Rt, server: &StdioServer) {
    let Ok(spec) = server.spec("prime") else { return };
    if let Ok(clients) = callers(rt, spec, 1, Arc::new(InFlight::default())) {
        let _ = clients.run("prime", 1, calls_only);
        clients.close();
    }
}

/// One scenario on one runtime family.
pub fn process(rt: Rt, scenario: &'static str, server: &StdioServer, opts: &Options) -> Row {
    let record = std::env::temp_dir().join(format!(
        "mcp-bench-process-{}-{}-{scenario}.jsonl",
        std::process::id(),
        rt.name()
    ));
    let _ = std::fs::remove_file(&record);
    let marker = record.display().to_string();
    let warm_calls = opts.fault_callers * WARM;
    let extra: Vec<String> = match scenario {
        "sigkill" => vec!["--big-tool".into(), "--slow-write-ms".into(), "5".into()],
        "stdout-closed" => {
            vec!["--close-stdout-after".into(), (warm_calls + opts.fault_callers / 2 + 1).to_string()]
        }
        "stdin-full" => vec!["--stop-reading-after".into(), (warm_calls + 1).to_string()],
        _ => Vec::new(),
    };
    let mut args = vec!["--record".to_owned(), marker.clone()];
    args.extend(extra);
    let timeout = Duration::from_millis(opts.fault_timeout_ms);
    let spec = match server.with_args(&args).spec("proc") {
        Ok(spec) => spec.request_timeout(timeout).shutdown_grace(Duration::from_millis(500)),
        Err(why) => return broken(scenario, rt, "stdio", why),
    };
    let flight = Arc::new(InFlight::default());
    let watchdog = Watchdog::start(
        format!("{scenario} {}", rt.name()),
        flight.clone(),
        timeout * 4 + Duration::from_secs(30),
    );
    // Descriptors and threads before the client exists, and once it is closed.
    let start = Usage::now();
    let run = callers(rt, spec, opts.fault_callers, flight.clone()).and_then(|clients| {
        let phases = phases(scenario, clients.as_ref(), &marker);
        let closing = flight.start(format!("closing the client after {scenario}"));
        clients.close();
        drop(closing);
        phases
    });
    let end = settle(start, SETTLE, std::thread::sleep);
    drop(watchdog);
    let left = wait_gone(&marker);
    let received = received_calls(&record);
    let _ = std::fs::remove_file(&record);
    match run {
        Ok(phases) => judge(rt, scenario, opts, &phases, &received, left, (start, end)),
        Err(why) => broken(scenario, rt, "stdio", why),
    }
}

fn phases(scenario: &str, clients: &dyn Callers, marker: &str) -> Result<Phases, String> {
    let mut phases =
        Phases { before: clients.run(&format!("{scenario}-w"), WARM, calls_only)?, ..Phases::default() };
    let pid = match processes_with_marker(marker)[..] {
        [pid] => pid,
        ref pids => return Err(format!("{} server processes after the warm-up, not one", pids.len())),
    };
    match scenario {
        "sigstop" => {
            signal("STOP", pid)?;
            phases.during = clients.run("sigstop-d", 1, calls_only)?;
            signal("CONT", pid)?;
            phases.after = Some(clients.run("sigstop-a", 3, calls_only)?);
        }
        "sigkill" => {
            let written = |pid: u32| {
                std::fs::read_to_string(format!("/proc/{pid}/io")).ok().and_then(|io| {
                    io.lines().find_map(|l| l.strip_prefix("wchar:"))?.trim().parse::<u64>().ok()
                })
            };
            let start = written(pid).unwrap_or(0);
            let (during, mid_write) = std::thread::scope(|scope| {
                let killer = scope.spawn(move || {
                    // Killed once a quarter of the answer is out (the rest takes ~250 ms more).
                    let until = Instant::now() + Duration::from_secs(20);
                    let mut mid_write = false;
                    while Instant::now() < until {
                        if written(pid).is_some_and(|w| w >= start + BIG_BYTES as u64 / 4) {
                            mid_write = true;
                            break;
                        }
                        std::thread::sleep(Duration::from_millis(1));
                    }
                    signal("KILL", pid).map(|()| mid_write)
                });
                let during = clients.run("sigkill-d", 3, big_first);
                let mid_write = killer.join().map_err(|_| "the killer thread panicked".to_owned());
                (during, mid_write)
            });
            phases.during = during?;
            phases.notes.push(("killed mid-write", Value::from(mid_write??)));
            phases.after = Some(clients.run("sigkill-a", 3, calls_only)?);
        }
        "stdout-closed" => {
            phases.during = clients.run("stdout-d", 2, calls_only)?;
            // One call each: the new process (which would close its stdout too at the same
            // count) receives fewer than that many.
            phases.after = Some(clients.run("stdout-a", 1, calls_only)?);
        }
        _ => {
            // 8 KiB payloads: 64 callers fill a 64 KiB pipe many times over.
            phases.during = clients.run(&format!("{}-stdin-d", "p".repeat(8 * 1024)), 2, calls_only)?;
        }
    }
    Ok(phases)
}

fn signal(name: &str, pid: u32) -> Result<(), String> {
    let status = Command::new("kill").arg(format!("-{name}")).arg(pid.to_string()).status();
    match status {
        Ok(status) if status.success() => Ok(()),
        other => Err(format!("kill -{name} {pid}: {other:?}")),
    }
}

/// Server processes still running (not zombies) after the client closed, waiting up to 10 s
/// for them to go.
fn wait_gone(marker: &str) -> usize {
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        let left = processes_with_marker(marker).len();
        if left == 0 || Instant::now() >= until {
            return left;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The payloads of the `tools/call` requests the server processes received.
fn received_calls(record: &Path) -> Vec<String> {
    std::fs::read_to_string(record)
        .unwrap_or_default()
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|msg| msg["method"] == "tools/call" && msg.get("id").is_some())
        .map(|msg| msg["params"]["arguments"]["message"].as_str().unwrap_or("<big>").to_owned())
        .collect()
}

fn judge(
    rt: Rt,
    scenario: &'static str,
    opts: &Options,
    p: &Phases,
    received: &[String],
    left: usize,
    (start, end): (Usage, Usage),
) -> Row {
    let mut seen = HashSet::new();
    let duplicated = received.iter().filter(|r| *r != "<big>" && !seen.insert(r.as_str())).count();
    let all = [Some(&p.before), Some(&p.during), p.after.as_ref()];
    let total: usize = all.iter().flatten().map(|o| o.total()).sum();
    let ok: usize = all.iter().flatten().map(|o| o.ok).sum();
    let callers = opts.fault_callers;
    let expected = callers
        * (WARM
            + match scenario {
                "sigstop" => 1 + 3,
                "sigkill" => 3 + 3,
                "stdout-closed" => 2 + 1,
                _ => 2,
            });
    let d = &p.during;
    let mut row = Row::new(scenario, rt, "stdio");
    row.set("calls", total as u64);
    row.set("answered", ok as u64);
    row.set("timeouts", d.timeouts as u64);
    row.set("transport errors", d.transport as u64);
    row.set("other", (d.other + d.wrong + d.http) as u64);
    row.set("received", received.len() as u64);
    row.set("duplicated", duplicated as u64);
    row.set("left running", left as u64);
    row.set("fds start", start.fds);
    row.set("fds end", end.fds);
    row.set("threads start", start.threads);
    row.set("threads end", end.threads);
    for (name, value) in &p.notes {
        row.set(name, value.clone());
    }
    row.check(total == expected, || format!("{total} outcomes for {expected} calls"));
    row.check(p.before.failed() == 0, || format!("calls failed before the fault: {:?}", p.before.errors));
    row.check(d.other + d.wrong + d.http == 0, || {
        format!("calls ended neither answered nor timed out nor lost: {:?}", d.samples)
    });
    if scenario == "sigstop" {
        row.check(d.timeouts == d.total(), || {
            format!(
                "{} of {} calls to a stopped server did not time out: {:?}",
                d.failed(),
                d.total(),
                d.errors
            )
        });
    }
    if scenario == "stdin-full" {
        row.check(d.failed() > 0, || "no call failed on a server that stopped reading".into());
    }
    if let Some(after) = &p.after {
        row.check(after.failed() == 0, || {
            format!(
                "{} of {} calls failed after the fault: {:?}",
                after.failed(),
                after.total(),
                after.errors
            )
        });
    }
    row.check(duplicated == 0, || format!("{duplicated} tools/call reached a server more than once"));
    row.check(left == 0, || format!("{left} server processes still running after the client closed"));
    row.check(end.within(start), || {
        format!(
            "descriptors or threads not back to where they were before the client: {start:?}, then {end:?}"
        )
    });
    row
}
