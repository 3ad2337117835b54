//! Scripting: `mcp request`, `mcp ping`, `mcp log-level` and `--log-level`; `--json` prints
//! the protocol's own result objects and `{"error": ...}` on failures.

use serde_json::{json, Value};

mod common;
use common::{json, mcp, stderr, target};

#[test]
fn request_ping_and_log_level() {
    let server = target("--protocol 2025-11-25");
    let raw = json(&mcp(&["request", &server, "resources/read", r#"{"uri": "test://text"}"#]));
    assert_eq!(raw["contents"][0]["text"], "hello resource");
    let raw = json(&mcp(&["request", &server, "tools/list"]));
    assert!(raw["tools"].as_array().is_some_and(|t| !t.is_empty()), "{raw}");
    let out = mcp(&["request", &server, "no/such/method", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let err: Value = serde_json::from_slice(&out.stdout).expect("a JSON error");
    assert_eq!(err["error"]["code"], -32601, "{err}");

    let out = mcp(&["ping", &server]);
    assert!(
        out.status.success() && String::from_utf8_lossy(&out.stdout).starts_with("ok ("),
        "{}",
        stderr(&out)
    );
    assert_eq!(json(&mcp(&["ping", &server, "--json"])), json!({}));
    let out = mcp(&["log-level", &server, "debug"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(mcp(&["log-level", &server, "loud"]).status.code(), Some(2));

    // --log-level shows the server's messages at that level and above on stderr.
    let out = mcp(&["call", &server, "notify", "--log-level", "warning"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("log warning test:"), "{}", stderr(&out));
    let out = mcp(&["call", &server, "notify", "--log-level", "error"]);
    assert!(!stderr(&out).contains("log warning"), "below the level: {}", stderr(&out));
    let out = mcp(&["call", &target("--protocol 2025-11-25 --no-logging"), "notify", "--log-level", "debug"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("the server does not offer logging"), "{}", stderr(&out));
}

/// The `--json` shapes are the protocol's result objects, the same on the bundled server and
/// server-everything; a failure prints `{"error": {code, message, data}}` with the exit code.
#[test]
fn json_output_is_the_protocol_result() {
    let everything = mcp_tests::support::peer_command("server-everything");
    for server in [target(""), everything.clone()] {
        let tools = json(&mcp(&["tools", &server, "--json"]));
        assert!(tools["tools"][0]["inputSchema"].is_object(), "{tools}");
        let prompts = json(&mcp(&["prompts", &server, "--json"]));
        assert!(prompts["prompts"][0]["name"].is_string(), "{prompts}");
        let resources = json(&mcp(&["resources", &server, "--json"]));
        assert!(resources["resources"][0]["uri"].is_string(), "{resources}");
        assert_eq!(resources.as_object().map(|o| o.len()), Some(1), "{resources}");
        let templates = json(&mcp(&["resources", "templates", &server, "--json"]));
        assert!(templates["resourceTemplates"][0]["uriTemplate"].is_string(), "{templates}");
    }
    let call = json(&mcp(&["call", &everything, "echo", "message=hi", "--json"]));
    assert_eq!(call["content"][0], json!({"type": "text", "text": "Echo: hi"}));
    let read = json(&mcp(&["read", &target(""), "test://text", "--json"]));
    assert_eq!(read["contents"][0]["text"], "hello resource");

    let out = mcp(&["call", &target(""), "rpc_error", "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err: Value = serde_json::from_slice(&out.stdout).expect("a JSON error");
    assert_eq!(
        err,
        json!({"error": {"code": -32050, "message": "custom failure", "data": {"why": "asked"}}})
    );
    let out = mcp(&["call", &target(""), "add", "a=x", "b=1", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    let err: Value = serde_json::from_slice(&out.stdout).expect("a JSON error");
    assert_eq!(err["error"]["code"], Value::Null);
    assert_eq!(err["error"]["message"], r#"argument "a": expected number, got "x""#);
    let out = mcp(&["info", "mcp-no-such-program-anywhere", "--json"]);
    assert_eq!(out.status.code(), Some(3));
    let err: Value = serde_json::from_slice(&out.stdout).expect("a JSON error");
    assert!(err["error"]["message"].is_string(), "{err}");
}
