//! The deterministic simulation (see `mcp_tests::sim`): a fixed sweep of seeds over stdio and
//! one over HTTP (each checking that its faults fired and its paths were taken, listen streams,
//! subscriptions and tasks included), a determinism check (a sample of seeds of both run twice, trace
//! hashes compared), the regression seeds, and a replay of one seed from `MCP_SIM_SEED` over
//! `MCP_SIM_TRANSPORT` (`stdio`, the default, or `http`; add `MCP_SIM_TRACE=1` for the whole
//! trace). Seeds are numbered separately per transport. Longer sweeps (both, `MCP_SIM_SEEDS`
//! each, from `MCP_SIM_FIRST_SEED`, on `MCP_SIM_JOBS` threads): `MCP_SIM_SEEDS=100000
//! MCP_SIM_JOBS=2 cargo test --release -p mcp-tests --test simulation sweep -- --nocapture`.
//! Without the `http` feature of mcp-tests, only the stdio half is built.

use std::collections::BTreeMap;
use std::time::Duration;

use mcp_tests::sim::{RunReport, TaskStats, Transport, World};

/// stdio seeds that once failed; replayed on every run.
///
/// stdio 27559 (found by the 10^6-request sweep): an input handler failed while a `tasks/get`
/// was on its way; the poll it armed fired after that poll's answer (`input_required` with a
/// longer `pollIntervalMs`) and went out before the new pace allowed. A status now drops any
/// poll armed before it.
///
/// stdio 90903 (found by the sweep of seeds 80000-99999; a harness false alarm): the server
/// read `server/discover` late, wrote the first 37 bytes of an answer and crashed; the client's
/// discover timeout fired in between and it fell back to `initialize`, as the spec says for a
/// server that did not answer. The harness had counted the partial line as an answer; only a
/// whole response to the probe counts now.
const STDIO_REGRESSION_SEEDS: &[u64] = &[27559, 90903];

/// HTTP seeds that once failed; replayed on every run.
///
/// HTTP 42, 199, 526: a transient fault during transport detection (an HTTP+SSE stream cut or
/// ended before its `endpoint` event; a slow `server/discover` answer) moved detection on to
/// plain HTTP for good, so requests kept failing after the server was healthy again (see
/// `a_failed_transport_detection_is_run_again_by_the_next_request` in mcpwire-core's tests).
#[cfg(feature = "http")]
const HTTP_REGRESSION_SEEDS: &[u64] = &[42, 199, 526];

#[allow(clippy::disallowed_methods)] // the one real clock reading: the simulation's base instant
fn base() -> std::time::Instant {
    std::time::Instant::now()
}

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|s| s.parse().ok())
}

/// Runs seeds `first..first + count` on `jobs` threads (seeds are independent worlds; a failing
/// one panics with its replay command), the reports in seed order.
fn run_seeds(
    transport: Transport,
    first: u64,
    count: u64,
    jobs: u64,
    base: std::time::Instant,
) -> Vec<RunReport> {
    let end = first + count;
    if jobs <= 1 {
        return (first..end).map(|seed| World::with_transport(seed, transport, base).run()).collect();
    }
    let next = std::sync::atomic::AtomicU64::new(first);
    let done = std::sync::Mutex::new(Vec::with_capacity(count as usize));
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| loop {
                let seed = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if seed >= end {
                    break;
                }
                let report = World::with_transport(seed, transport, base).run();
                done.lock().unwrap_or_else(|e| e.into_inner()).push((seed, report));
            });
        }
    });
    let mut done = done.into_inner().unwrap_or_else(|e| e.into_inner());
    done.sort_by_key(|(seed, _)| *seed);
    done.into_iter().map(|(_, report)| report).collect()
}

/// Runs the sweep's seeds over `transport` and prints the figures.
fn sweep(transport: Transport, default_count: u64) -> (u64, Vec<RunReport>) {
    let count = env_u64("MCP_SIM_SEEDS").unwrap_or(default_count);
    let first = env_u64("MCP_SIM_FIRST_SEED").unwrap_or(0);
    let jobs = env_u64("MCP_SIM_JOBS").unwrap_or(1);
    let base = base();
    #[allow(clippy::disallowed_methods)] // wall time of the sweep, for the report only
    let started = std::time::Instant::now();
    let reports = run_seeds(transport, first, count, jobs, base);
    let simulated: Duration = reports.iter().map(|r| r.simulated).sum();
    let requests: usize = reports.iter().map(|r| r.requests).sum();
    let steps: u64 = reports.iter().map(|r| r.steps).sum();
    let mut faults: BTreeMap<&str, u64> = BTreeMap::new();
    for r in &reports {
        for (k, v) in &r.faults {
            *faults.entry(k).or_default() += v;
        }
    }
    let total: u64 = faults.values().sum();
    let mut coverage: BTreeMap<&str, u64> = BTreeMap::new();
    for r in &reports {
        for (k, v) in &r.coverage {
            *coverage.entry(k).or_default() += v;
        }
    }
    let extra = match transport {
        Transport::Stdio => {
            let spawns: u64 = reports.iter().map(|r| r.spawns).sum();
            let crashes: u64 = reports.iter().map(|r| r.crashes).sum();
            format!("{spawns} processes started, {crashes} crashes")
        }
        #[cfg(feature = "http")]
        Transport::Http => {
            let exchanges: u64 = reports.iter().map(|r| r.exchanges).sum();
            format!("{exchanges} exchanges")
        }
    };
    let mut tasks = TaskStats::default();
    for r in &reports {
        tasks.add(&r.tasks);
    }
    let listens: u64 = reports.iter().map(|r| r.listens).sum();
    let notes: u64 = reports.iter().map(|r| r.listen_notes).sum();
    let dropped: u64 = reports.iter().map(|r| r.queue_dropped).sum();
    println!(
        "simulation ({transport:?}): {count} seeds from {first} on {jobs} threads in {:.1} s, {:.1} simulated hours, {requests} requests, \
         {steps} steps, {extra}, {listens} listens opened, {notes} listen notifications queued \
         ({dropped} dropped by the host queue), tasks: {} created ({} old ids handed out again), \
         {} tasks/get, {} tasks/update, {} tasks/result, {} tasks/cancel, {} inputs asked, {} input \
         rounds taken by servers, {} task results delivered; {total} faults injected {faults:?}; \
         paths {coverage:?}",
        started.elapsed().as_secs_f64(),
        simulated.as_secs_f64() / 3600.0,
        tasks.created,
        tasks.reused,
        tasks.polls,
        tasks.updates,
        tasks.results,
        tasks.cancels,
        tasks.inputs_asked,
        tasks.input_rounds,
        tasks.task_results,
    );
    (count, reports)
}

#[test]
fn seed_sweep() {
    let (count, reports) = sweep(Transport::Stdio, 600);
    let spawns: u64 = reports.iter().map(|r| r.spawns).sum();
    let crashes: u64 = reports.iter().map(|r| r.crashes).sum();
    // The sweep exercises the faults it claims to (crashes force restarts).
    assert!(crashes > count / 4 && spawns > count + crashes / 2, "{spawns} spawns, {crashes} crashes");
    if count >= 100 {
        assert_push_paths(&reports, &["listen_crash"], &["listen_lost_young", "listen_notes_after_end"]);
        assert_task_paths(&reports, &["task_crash"], &["task_input_asked_legacy"]);
    }
}

/// Tasks reach the paths they are for, in both transports' sweeps: created in both eras, polled
/// to their result (by the call, by a later wait), asked for input, cancelled, timed out, failed
/// by the server's cancellation, their lifetime or a reused id; looked at, listed, refused where
/// the server does not declare them; the status-notification short-cut.
fn assert_task_paths(reports: &[RunReport], faults: &[&str], paths: &[&str]) {
    let mut kinds: BTreeMap<&str, u64> = BTreeMap::new();
    let mut seen: BTreeMap<&str, u64> = BTreeMap::new();
    let mut tasks = TaskStats::default();
    for r in reports {
        for (k, v) in &r.faults {
            *kinds.entry(k).or_default() += v;
        }
        for (k, v) in &r.coverage {
            *seen.entry(k).or_default() += v;
        }
        tasks.add(&r.tasks);
    }
    for kind in ["task_poll_dropped", "task_id_reused"].iter().chain(faults) {
        assert!(kinds.get(kind).copied().unwrap_or(0) > 0, "fault {kind} never fired: {kinds:?}");
    }
    let common = [
        "task_created_modern",
        "task_created_legacy",
        "task_call_ok",
        "task_wait_ok",
        "task_started",
        "task_as_task_ran_at_once",
        "task_input_asked",
        "task_input_handler_failed",
        "task_input_asked_again",
        "task_cancel_sent",
        "task_call_cancelled",
        "task_call_timeout",
        "task_error_cancelled",
        "task_error_expired",
        "task_error_reused",
        "task_get_ok",
        "task_list_ok",
        "task_cancel_ok",
        "task_refused",
        "task_status_shortcut",
        "task_cancelled_by_server",
        "task_failed",
    ];
    for path in common.iter().chain(paths) {
        assert!(seen.get(path).copied().unwrap_or(0) > 0, "path {path} never taken: {seen:?}");
    }
    assert!(
        tasks.polls > 0
            && tasks.updates > 0
            && tasks.results > 0
            && tasks.cancels > 0
            && tasks.input_rounds > 0,
        "{tasks:?}"
    );
}

/// Listen streams and subscriptions reach the paths they are for, in both transports' sweeps.
fn assert_push_paths(reports: &[RunReport], faults: &[&str], paths: &[&str]) {
    let mut kinds: BTreeMap<&str, u64> = BTreeMap::new();
    let mut seen: BTreeMap<&str, u64> = BTreeMap::new();
    for r in reports {
        for (k, v) in &r.faults {
            *kinds.entry(k).or_default() += v;
        }
        for (k, v) in &r.coverage {
            *seen.entry(k).or_default() += v;
        }
    }
    for kind in faults {
        assert!(kinds.get(kind).copied().unwrap_or(0) > 0, "fault {kind} never fired: {kinds:?}");
    }
    let common = [
        "listen_acked",
        "listen_partial",
        "listen_notification",
        "listen_reconnecting",
        "listen_unrequested",
        "listen_cancelled",
        "listen_ended_ok",
        "listen_bad_close",
        "listen_stream_closed",
        "listen_refused",
        "listen_timeout",
        "listen_unsupported",
        "subscribe_ok",
        "subscribe_refused",
    ];
    for path in common.iter().chain(paths) {
        assert!(seen.get(path).copied().unwrap_or(0) > 0, "path {path} never taken: {seen:?}");
    }
    assert!(reports.iter().any(|r| r.queue_dropped > 0), "the host queue never dropped anything");
}

#[test]
#[cfg(feature = "http")]
fn http_seed_sweep() {
    let (count, reports) = sweep(Transport::Http, 800);
    let mut kinds: BTreeMap<&str, u64> = BTreeMap::new();
    let mut paths: BTreeMap<&str, u64> = BTreeMap::new();
    for r in &reports {
        for (k, v) in &r.faults {
            *kinds.entry(k).or_default() += v;
        }
        for (k, v) in &r.coverage {
            *paths.entry(k).or_default() += v;
        }
    }
    // Every fault kind fires somewhere in the sweep.
    if count >= 100 {
        let expected = [
            "refused",
            "connect_timeout",
            "5xx",
            "cut",
            "stream_cut",
            "slow_head",
            "slow_body",
            "reorder",
            "garbage",
            "oversize",
            "stray",
            "duplicate",
            "session_expired",
            "err400_modern",
            "err400_legacy",
            "err400_sse",
        ];
        for kind in expected {
            assert!(kinds.get(kind).copied().unwrap_or(0) > 0, "fault {kind} never fired: {kinds:?}");
        }
        // ... and reaches the paths it is for.
        for path in
            ["tools_call_reissued", "resumed", "session_expired", "cancel_as_answer_lands", "healed_ok"]
        {
            assert!(paths.get(path).copied().unwrap_or(0) > 0, "path {path} never taken: {paths:?}");
        }
        assert_push_paths(&reports, &["listen_drop", "listen_5xx"], &["listen_body_after_abort"]);
        assert_task_paths(&reports, &["task_5xx"], &["task_result_held", "task_input_asked_legacy"]);
    }
}

/// A sample of seeds over `transport`, each run twice: the same reports, trace hashes included.
fn assert_deterministic(transport: Transport) {
    let base = base();
    for seed in (0..30).map(|i| i * 7919) {
        let a = World::with_transport(seed, transport, base).run();
        let b = World::with_transport(seed, transport, base).run();
        assert_eq!(a, b, "seed {seed} ({transport:?}) ran differently twice");
    }
}

#[test]
fn runs_are_deterministic() {
    assert_deterministic(Transport::Stdio);
}

#[test]
#[cfg(feature = "http")]
fn http_runs_are_deterministic() {
    assert_deterministic(Transport::Http);
}

#[test]
fn regression_seeds() {
    let base = base();
    for &seed in STDIO_REGRESSION_SEEDS {
        World::with_transport(seed, Transport::Stdio, base).run();
    }
}

#[test]
#[cfg(feature = "http")]
fn http_regression_seeds() {
    let base = base();
    for &seed in HTTP_REGRESSION_SEEDS {
        World::with_transport(seed, Transport::Http, base).run();
    }
}

/// Replays `MCP_SIM_SEED` (seed 1 when unset) over `MCP_SIM_TRANSPORT`, printing its report.
#[test]
fn replay_one_seed() {
    let seed = std::env::var("MCP_SIM_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(1);
    let report = World::with_transport(seed, Transport::from_env(), base()).run();
    assert_eq!(report.seed, seed);
    println!("{report:?}");
}
