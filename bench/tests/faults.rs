//! The fault soak's short variant (`mcp-bench soak --faults` at CI sizes): 64 callers on every
//! runtime through the fault proxy, a seeded 30 % of connections faulted. Asserted from the
//! per-row records: every call ended exactly once, under faults only with an answer or a
//! timeout, transport or HTTP error, every call answered after the faults, no `tools/call`
//! received twice by the server, faults took effect, and descriptors and threads back to their
//! baseline. Never timing.

use std::process::Command;

use serde_json::Value;

const BENCH: &str = env!("CARGO_BIN_EXE_mcp-bench");

fn field(row: &Value, name: &str) -> u64 {
    row[name].as_u64().unwrap_or_else(|| panic!("no {name} in {row}"))
}

/// Runs `mcp-bench soak ARGS --out FILE`, asserts it passed: its report and its rows.
fn soak(name: &str, args: &[&str]) -> (String, Vec<Value>) {
    let out = std::env::temp_dir().join(format!("mcp-bench-{name}-test-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&out);
    let output =
        Command::new(BENCH).arg("soak").args(args).arg("--out").arg(&out).output().expect("run mcp-bench");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    let records = std::fs::read_to_string(&out).unwrap_or_default();
    let _ = std::fs::remove_file(&out);
    assert!(output.status.success(), "soak failed ({}):\n{stdout}\n{stderr}", output.status);
    assert_eq!(stdout.lines().last(), Some("soak: ok"), "{stdout}");
    let rows = records.lines().map(|l| serde_json::from_str(l).expect("a JSON record")).collect();
    (stdout, rows)
}

#[test]
fn every_call_ends_once_under_network_faults_on_every_runtime() {
    #[rustfmt::skip]
    let args = [
        "--faults",
        "--fault-callers", "64", "--fault-calls", "24", "--fault-percent", "30", "--seed", "7",
        "--request-timeout-ms", "1000",
    ];
    let (stdout, rows) = soak("faults", &args);
    let runtimes: Vec<&str> = rows.iter().filter_map(|r| r["runtime"].as_str()).collect();
    assert_eq!(runtimes, ["tokio", "tokio-ct", "smol", "blocking"], "{stdout}");
    for row in &rows {
        assert_eq!(
            (row["part"].as_str(), row["transport"].as_str()),
            (Some("faults"), Some("http")),
            "{row}"
        );
        assert_eq!(row["ok"], true, "{row}");
        assert_eq!(row["failures"], serde_json::json!([]), "{row}");
        // Warm-up 8, faults 24, recovery 8 calls per caller.
        assert_eq!(field(row, "calls"), 64 * (8 + 24 + 8), "one outcome per call: {row}");
        assert_eq!((field(row, "other"), field(row, "duplicated")), (0, 0), "{row}");
        let answered = field(row, "answered");
        let failed = field(row, "timeouts") + field(row, "transport errors") + field(row, "http");
        assert_eq!(answered + failed, field(row, "calls"), "{row}");
        assert!(field(row, "faults") > 0, "faults took effect: {row}");
        let (made, received) = (field(row, "tool calls"), field(row, "received"));
        assert!(received <= made && made == 64 * 20, "half the calls are tool calls: {row}");
        assert!(field(row, "fds end") <= field(row, "fds start"), "{row}");
        assert!(field(row, "threads end") <= field(row, "threads start"), "{row}");
        assert!(field(row, "fds peak") >= field(row, "fds start"), "{row}");
        for rss in ["rss start MiB", "rss peak MiB", "rss end MiB"] {
            assert!(row[rss].as_f64().is_some_and(|mib| mib > 0.0), "{rss} not read: {row}");
        }
    }
}

#[test]
fn bad_fault_flags_are_a_usage_error() {
    for args in [
        &["soak", "--faults", "--fault-percent", "101"][..],
        &["soak", "--faults", "--minutes", "0"],
        &["soak", "--faults", "--request-timeout-ms", "1"],
    ] {
        let output = Command::new(BENCH).args(args).output().expect("run mcp-bench");
        assert_eq!(output.status.code(), Some(2), "{args:?}: {output:?}");
        assert!(String::from_utf8_lossy(&output.stderr).contains("usage: mcp-bench soak"), "{args:?}");
    }
}

#[test]
fn every_call_ends_once_under_process_faults_on_every_runtime() {
    let (stdout, rows) =
        soak("process", &["--process", "--fault-callers", "64", "--request-timeout-ms", "1000"]);
    assert_eq!(rows.len(), 4 * 4, "one row per scenario and runtime:\n{stdout}");
    for row in &rows {
        assert_eq!(row["ok"], true, "{row}");
        assert_eq!(row["failures"], serde_json::json!([]), "{row}");
        assert_eq!(row["transport"], "stdio", "{row}");
        assert_eq!(
            (field(row, "other"), field(row, "duplicated"), field(row, "left running")),
            (0, 0, 0),
            "{row}"
        );
        // Warm-up 2 calls per caller, then the scenario's.
        let per_caller = match row["part"].as_str() {
            Some("sigstop") => 2 + 1 + 3,
            Some("sigkill") => 2 + 3 + 3,
            Some("stdout-closed") => 2 + 2 + 1,
            Some("stdin-full") => 2 + 2,
            other => panic!("unknown scenario {other:?}: {row}"),
        };
        assert_eq!(field(row, "calls"), 64 * per_caller, "one outcome per call: {row}");
        assert!(field(row, "fds end") <= field(row, "fds start"), "{row}");
        assert!(field(row, "threads end") <= field(row, "threads start"), "{row}");
        let failed = field(row, "timeouts") + field(row, "transport errors");
        assert_eq!(field(row, "answered") + failed, field(row, "calls"), "{row}");
        match row["part"].as_str() {
            Some("sigstop") => {
                assert_eq!(field(row, "timeouts"), 64, "every call to the stopped server: {row}")
            }
            Some("stdin-full") => assert!(field(row, "timeouts") > 0, "{row}"),
            _ => {}
        }
    }
}
