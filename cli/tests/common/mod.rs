//! What every test of the `mcp` binary needs: running it, and reading what it printed.
//! (Each test file is its own crate and uses a part of this.)
#![allow(dead_code)]

use std::process::{Command, Output};

use serde_json::Value;

/// A TARGET running the test server with these flags.
pub fn target(flags: &str) -> String {
    format!("{} {flags}", mcp_tests::support::test_server())
}

/// Runs `mcp` with `args` to its end.
pub fn mcp(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcp")).args(args).output().expect("run mcp")
}

/// Its standard output, as text.
pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Its standard error, as text.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Its standard output as JSON, whatever the exit code.
pub fn json_of(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("JSON on stdout ({e}): {}\nstderr: {}", stdout(out), stderr(out)))
}

/// Its standard output as JSON, after a success.
pub fn json(out: &Output) -> Value {
    assert!(out.status.success(), "mcp failed: {}", stderr(out));
    json_of(out)
}
