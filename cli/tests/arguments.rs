//! `mcp call TARGET TOOL key=value ...` and `mcp prompts get TARGET NAME key=value ...`:
//! arguments typed by the tool's inputSchema, `key:=JSON`, `--args FILE|-`, and the checks
//! made before anything is sent (exit code 2, naming the argument).

use std::io::Write;
use std::process::{Command, Output, Stdio};

use serde_json::json;

mod common;
use common::{json, mcp, stderr, target};

/// A usage error (exit code 2) whose one line says `says`.
fn assert_usage(out: &Output, says: &str) {
    assert_eq!(out.status.code(), Some(2), "{}", stderr(out));
    assert_eq!(stderr(out).trim_end(), format!("error: {says}"));
    assert!(out.stdout.is_empty(), "nothing printed: {}", String::from_utf8_lossy(&out.stdout));
}

/// Every JSON type from key=value against the bundled server's `typed` tool (its arguments
/// come back as structured content); `:=` forces JSON; strings stay strings.
#[test]
fn pairs_are_typed_by_the_input_schema() {
    let server = target("--cli-tools");
    let out = mcp(&[
        "call",
        &server,
        "typed",
        "text=5",
        "count=3",
        "ratio=0.5",
        "flag=true",
        r#"tags=["a","b"]"#,
        r#"options:={"k": [1]}"#,
        "nothing=null",
        "--json",
    ]);
    assert_eq!(
        json(&out)["structuredContent"],
        json!({"text": "5", "count": 3, "ratio": 0.5, "flag": true, "tags": ["a", "b"],
               "options": {"k": [1]}, "nothing": null})
    );
    let out = mcp(&["call", &server, "typed", r#"text:="quoted""#, "count=0", "--json"]);
    assert_eq!(json(&out)["structuredContent"], json!({"text": "quoted", "count": 0}));
}

/// Unknown names, missing required arguments and wrong types are refused before the call.
#[test]
fn wrong_arguments_are_named_before_sending() {
    let server = target("--cli-tools");
    assert_usage(
        &mcp(&["call", &server, "typed", "text=a", "count=x"]),
        r#"argument "count": expected integer, got "x""#,
    );
    assert_usage(
        &mcp(&["call", &server, "typed", "text=a", "count=1", "colour=red"]),
        r#"unknown argument "colour": tool "typed" takes count, flag, nothing, options, ratio, tags, text"#,
    );
    assert_usage(
        &mcp(&["call", &server, "typed", "text=a"]),
        r#"missing required argument "count" of tool "typed""#,
    );
    assert_usage(
        &mcp(&["call", &server, "typed", r#"{"text": 1, "count": 1}"#]),
        r#"argument "text" of tool "typed": expected string, got a number"#,
    );
    assert_usage(
        &mcp(&["call", &server, "typed", "text"]),
        r#"expected key=value, key:=JSON or one JSON object, got "text""#,
    );
    // `--validate off` skips the checks: the server answers.
    let out =
        mcp(&["call", &server, "typed", "text=a", "count=1", "colour=red", "--validate", "off", "--json"]);
    assert_eq!(json(&out)["structuredContent"]["colour"], "red");
}

/// `--args FILE` and `--args -` (stdin), with pairs applied over them; a JSON object argument
/// still works.
#[test]
fn arguments_from_a_file_or_stdin() {
    let dir = mcp_tests::support::TempDir::new("cli-args");
    let file = dir.write("args.json", br#"{"text": "from file", "count": 1}"#);
    let file = file.to_str().expect("UTF-8");
    let server = target("--cli-tools");
    let out = mcp(&["call", &server, "typed", "--args", file, "count=2", "--json"]);
    assert_eq!(json(&out)["structuredContent"], json!({"text": "from file", "count": 2}));

    let mut child = Command::new(env!("CARGO_BIN_EXE_mcp"))
        .args(["call", &server, "typed", "--args", "-", "--json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run mcp");
    child.stdin.take().expect("stdin").write_all(br#"{"text": "stdin", "count": 9}"#).expect("write");
    let out = child.wait_with_output().expect("wait");
    assert_eq!(json(&out)["structuredContent"], json!({"text": "stdin", "count": 9}));

    let out = mcp(&["call", &server, "typed", r#"{"text": "object", "count": 4}"#, "--json"]);
    assert_eq!(json(&out)["structuredContent"], json!({"text": "object", "count": 4}));
    let out = mcp(&["call", &server, "typed", "--args", "/no/such/file.json"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).starts_with("error: cannot read --args /no/such/file.json"), "{}", stderr(&out));
}

/// Prompt arguments: strings as typed, unknown and missing required ones refused.
#[test]
fn prompt_arguments_as_pairs() {
    let out = mcp(&["prompts", "get", &target(""), "greet", "name=Ada", "--json"]);
    assert_eq!(json(&out)["messages"][0]["content"]["text"], "Hello, Ada!");
    assert_usage(
        &mcp(&["prompts", "get", &target(""), "greet", "nam=Ada"]),
        r#"unknown argument "nam": prompt "greet" takes name"#,
    );
    assert_usage(
        &mcp(&["prompts", "get", &target(""), "greet"]),
        r#"missing required argument "name" of prompt "greet""#,
    );
}

/// A real server: server-everything's `get-sum` takes numbers, `echo` a string (a number
/// typed for it stays text), `args-prompt` requires `city`.
#[test]
fn pairs_against_server_everything() {
    let everything = mcp_tests::support::peer_command("server-everything");
    let out = mcp(&["call", &everything, "get-sum", "a=2", "b=3.5", "--json"]);
    let text = json(&out)["content"][0]["text"].as_str().unwrap_or_default().to_owned();
    assert!(text.contains("5.5"), "{text}");
    let out = mcp(&["call", &everything, "echo", "message=42", "--json"]);
    assert_eq!(json(&out)["content"][0]["text"], "Echo: 42");
    assert_usage(
        &mcp(&["call", &everything, "get-sum", "a=2", "b=three"]),
        r#"argument "b": expected number, got "three""#,
    );
    assert_usage(
        &mcp(&["call", &everything, "get-sum", "a=2"]),
        r#"missing required argument "b" of tool "get-sum""#,
    );
    let out = mcp(&["prompts", "get", &everything, "args-prompt", "city=Paris", "state=Texas", "--json"]);
    assert!(json(&out).to_string().contains("Paris"));
    assert_usage(
        &mcp(&["prompts", "get", &everything, "args-prompt", "state=Texas"]),
        r#"missing required argument "city" of prompt "args-prompt""#,
    );
}
