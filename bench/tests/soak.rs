//! The soak's short variant (`mcp-bench soak --all` at CI sizes): every part on every runtime,
//! its outcomes asserted from the per-row records (exactly once, no error, no lost outcome,
//! restarts), never its timing. Runs the `mcp-bench` cargo built for this test, which is also
//! every server involved (the bundled test server, the loopback HTTP server).

use std::process::Command;

use serde_json::Value;

const BENCH: &str = env!("CARGO_BIN_EXE_mcp-bench");

fn field(row: &Value, name: &str) -> u64 {
    row[name].as_u64().unwrap_or_else(|| panic!("no {name} in {row}"))
}

#[test]
fn the_short_soak_holds_every_outcome_on_every_runtime() {
    let out = std::env::temp_dir().join(format!("mcp-bench-soak-test-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&out);
    #[rustfmt::skip]
    let args = [
        "soak", "--all",
        "--callers", "8", "--caller-calls", "50",
        // RSS is reported; at this size its growth is checked only loosely.
        "--sequential", "20000", "--max-rss-growth", "50",
        "--servers", "20",
        "--restart-calls", "1000", "--exit-every", "100", "--restart-callers", "4",
    ];
    let output = Command::new(BENCH).args(args).arg("--out").arg(&out).output().expect("run mcp-bench");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let records = std::fs::read_to_string(&out).unwrap_or_default();
    let _ = std::fs::remove_file(&out);
    assert!(output.status.success(), "soak failed ({}):\n{stdout}\n{stderr}", output.status);
    assert_eq!(stdout.lines().last(), Some("soak: ok"), "{stdout}");

    let rows: Vec<Value> = records.lines().map(|l| serde_json::from_str(l).expect("a JSON record")).collect();
    let find = |part: &str, runtime: &str, transport: &str| -> &Value {
        rows.iter()
            .find(|r| r["part"] == part && r["runtime"] == runtime && r["transport"] == transport)
            .unwrap_or_else(|| panic!("no {part} {runtime} {transport} row:\n{stdout}"))
    };
    assert_eq!(rows.len(), 4 * (1 + 2 + 1 + 1), "one row per part, runtime and transport:\n{stdout}");
    for row in &rows {
        assert_eq!(row["ok"], true, "{row}");
        assert_eq!(row["failures"], serde_json::json!([]), "{row}");
    }
    for runtime in ["tokio", "tokio-ct", "smol", "blocking"] {
        for transport in ["stdio", "http"] {
            let load = find("load", runtime, transport);
            assert_eq!(field(load, "calls"), 400, "{load}");
            assert_eq!(field(load, "answered"), 400, "every call answered once with its payload: {load}");
            assert_eq!((field(load, "wrong"), field(load, "errors")), (0, 0), "{load}");
        }

        let long = find("long", runtime, "stdio");
        assert_eq!(field(long, "calls"), 20_000, "{long}");
        for rss in ["rss start MiB", "rss end MiB"] {
            assert!(long[rss].as_f64().is_some_and(|mib| mib > 0.0), "{rss} not read: {long}");
        }

        let many = find("many", runtime, "stdio");
        assert_eq!((field(many, "servers"), field(many, "answered")), (20, 20), "{many}");

        let restart = find("restart", runtime, "stdio");
        let (ok, closed) = (field(restart, "answered"), field(restart, "closed"));
        assert_eq!(ok + closed, 1_000, "one outcome per call, none lost: {restart}");
        assert_eq!((field(restart, "other"), field(restart, "duplicated")), (0, 0), "{restart}");
        let crashes = field(restart, "crashes");
        // Each process answers at most 99 calls, so the 1000 calls needed several of them.
        assert!(crashes >= 1 && ok <= (crashes + 1) * 99, "{restart}");
        assert!(closed >= crashes, "each crash fails the call it swallowed: {restart}");
        assert_eq!(field(restart, "disconnects"), crashes, "{restart}");
        assert!(field(restart, "connects") >= crashes, "restarted after each crash: {restart}");
    }
}

#[test]
fn bad_soak_flags_are_a_usage_error() {
    for args in
        [&["soak"][..], &["soak", "--all", "--callers", "0"], &["soak", "--all", "--runtimes", "gevent"]]
    {
        let output = Command::new(BENCH).args(args).output().expect("run mcp-bench");
        assert_eq!(output.status.code(), Some(2), "{args:?}: {output:?}");
        assert!(String::from_utf8_lossy(&output.stderr).contains("usage: mcp-bench soak"), "{args:?}");
    }
}
