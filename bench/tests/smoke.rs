//! The benchmark's smoke run (`bench/run --smoke`): every program of the comparison builds,
//! runs a few calls and reports its figures; nothing about timing is asserted. It includes the
//! TypeScript and Python SDK clients (`--sdks`), so it needs the peers, as the tests crate does:
//! `bash peers/setup.sh .peers` and `MCP_PEERS` (scripts/test does both).

use std::process::Command;

#[test]
fn the_comparison_runs_every_client_on_every_transport() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let output = Command::new("bash")
        .arg("bench/run")
        .arg("--smoke")
        .arg("--sdks")
        .env("MCP_BENCH_BIN", env!("CARGO_BIN_EXE_mcp-bench"))
        .current_dir(root)
        .output()
        .expect("bash");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "bench/run --smoke failed: {}\n{stdout}\n{stderr}", output.status);
    for transport in ["stdio:", "http:"] {
        assert!(stdout.lines().any(|l| l.starts_with(transport)), "no {transport} table:\n{stdout}");
    }
    let clients = [
        "raw",
        "rmcp",
        "mcpwire-tokio",
        "mcpwire-tokio-task",
        "mcpwire-tokio-ct",
        "mcpwire-smol",
        "mcpwire-blocking",
    ];
    let sdks = ["ts-v1", "ts-v2", "py-mcp", "fastmcp"];
    for client in clients.into_iter().chain(sdks) {
        let rows = stdout.lines().filter(|l| l.split_whitespace().next() == Some(client)).count();
        assert_eq!(rows, 2, "{client}: one sequential row per transport expected:\n{stdout}");
        if client.starts_with("mcpwire-") || sdks.contains(&client) {
            let figures = stdout
                .lines()
                .filter(|l| l.contains("ms whole process") && l.split_whitespace().nth(1) == Some(client))
                .count();
            assert_eq!(figures, 2, "{client}: one connect row per transport expected:\n{stdout}");
        }
        if sdks.contains(&client) {
            let concurrent = stdout
                .lines()
                .filter(|l| !l.contains("whole process") && l.split_whitespace().nth(1) == Some(client))
                .count();
            assert_eq!(concurrent, 2, "{client}: one concurrency row per transport expected:\n{stdout}");
        }
    }
    assert!(stdout.contains("callers x"), "no concurrency table:\n{stdout}");
    assert!(stdout.contains("targets (ratio, goal):"), "no targets:\n{stdout}");
    assert!(!stdout.contains("NaN  (<="), "a target without figures:\n{stdout}");
}
