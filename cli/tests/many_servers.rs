//! Many servers from one config file: with `--config FILE` and no server named (or `--all`),
//! `tools`, `prompts`, `resources` and `call` work across every server of the file, each item
//! tagged with its server, one failing server reported beside the others' answers.

use std::collections::BTreeSet;
use std::path::PathBuf;

use mcp_tests::support::{peer_command, test_server, TempDir};
use serde_json::{json, Value};

mod common;
use common::{json_of, mcp, stderr, stdout};

/// A stdio entry running the bundled test server with `args`.
fn test_entry(args: &[&str]) -> Value {
    json!({"command": test_server(), "args": args})
}

/// An `mcpServers` file with these entries.
fn config(dir: &TempDir, name: &str, servers: Value) -> PathBuf {
    dir.write(name, json!({"mcpServers": servers}).to_string().as_bytes())
}

/// The test server as "a"; as "b" with the CLI tools (`typed`, ...) and without prompts; a
/// real peer as "everything"; and a command that does not exist as "broken".
fn mixed(dir: &TempDir) -> String {
    let servers = json!({
        "a": test_entry(&[]),
        "b": test_entry(&["--cli-tools", "--no-prompts"]),
        "everything": {"command": peer_command("server-everything")},
        "broken": {"command": "/nonexistent/mcp-cli-test-server"},
    });
    config(dir, "mixed.json", servers).to_str().expect("UTF-8 path").to_owned()
}

/// `(server, name)` of every item of a `--json` list.
fn tagged(list: &Value, key: &str, name: &str) -> BTreeSet<(String, String)> {
    let items = list[key].as_array().unwrap_or_else(|| panic!("no {key} array: {list}"));
    items
        .iter()
        .map(|i| {
            let server = i["server"].as_str().unwrap_or_else(|| panic!("an item without server: {i}"));
            (server.to_owned(), i[name].as_str().expect("a name").to_owned())
        })
        .collect()
}

fn pair(server: &str, name: &str) -> (String, String) {
    (server.to_owned(), name.to_owned())
}

#[test]
fn lists_tag_every_item_and_report_the_broken_server() {
    let dir = TempDir::new("mcp-cli-many-lists");
    let file = mixed(&dir);

    // Text: a server column; the broken server on stderr; exit 1 as some server failed.
    let out = mcp(&["tools", "--config", &file]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = stdout(&out);
    let rows: Vec<Vec<&str>> = text.lines().map(|l| l.split_whitespace().take(2).collect()).collect();
    for (server, tool) in [("a", "echo"), ("b", "typed"), ("b", "echo"), ("everything", "get-sum")] {
        assert!(rows.contains(&vec![server, tool]), "no {server} {tool} row in:\n{text}");
    }
    assert!(!rows.contains(&vec!["a", "typed"]), "a has no typed tool:\n{text}");
    assert!(stderr(&out).contains("error: server \"broken\": could not start"), "{}", stderr(&out));

    // JSON: the protocol's object, each item with its server, the failure beside them.
    let out = mcp(&["tools", "--config", &file, "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let tools = json_of(&out);
    let names = tagged(&tools, "tools", "name");
    for want in
        [pair("a", "add"), pair("b", "typed"), pair("everything", "get-sum"), pair("everything", "echo")]
    {
        assert!(names.contains(&want), "{want:?} missing from {names:?}");
    }
    assert!(!names.iter().any(|(server, _)| server == "broken"), "{names:?}");
    assert!(tools["tools"][0]["inputSchema"].is_object(), "the tool objects as listed: {tools}");
    let failed = tools["failed"].as_array().expect("a failed array");
    assert_eq!(failed.len(), 1, "{tools}");
    assert_eq!(failed[0]["server"], "broken");
    let message = failed[0]["error"]["message"].as_str().expect("an error message");
    assert!(message.contains("could not start the server"), "{message}");

    // Prompts: b does not offer them (a note, not a failure); only broken failed.
    let out = mcp(&["prompts", "--config", &file, "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let prompts = json_of(&out);
    let names = tagged(&prompts, "prompts", "name");
    assert!(names.contains(&pair("a", "greet")) && names.contains(&pair("everything", "simple-prompt")));
    assert!(!names.iter().any(|(server, _)| server == "b"), "{names:?}");
    assert_eq!(prompts["failed"].as_array().map(Vec::len), Some(1), "{prompts}");
    assert!(stderr(&out).contains("server \"b\" does not offer prompts"), "{}", stderr(&out));
}

#[test]
fn resources_and_exit_codes() {
    let dir = TempDir::new("mcp-cli-many-codes");
    let two = config(&dir, "two.json", json!({"a": test_entry(&[]), "b": test_entry(&["--no-resources"])}));
    let two = two.to_str().unwrap();

    // Every server answered (b without resources counts as answering with none): exit 0.
    let out = mcp(&["resources", "--config", two, "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let resources = json_of(&out);
    assert_eq!(
        tagged(&resources, "resources", "uri"),
        [pair("a", "test://text"), pair("a", "test://blob")].into()
    );
    assert_eq!(resources["failed"], json!([]));
    let out = mcp(&["resources", "templates", "--config", two, "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        tagged(&json_of(&out), "resourceTemplates", "uriTemplate"),
        [pair("a", "test://item/{id}")].into()
    );
    let out = mcp(&["resources", "--config", two]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("resources (2):") && text.contains("templates (1):"), "{text}");
    assert!(text.lines().any(|l| l.split_whitespace().take(2).eq(["a", "test://item/{id}"])), "{text}");
    assert!(stderr(&out).contains("server \"b\" does not offer resources"), "{}", stderr(&out));

    // --log-level goes to every server declaring logging; the others get a note.
    let quiet =
        config(&dir, "quiet.json", json!({"a": test_entry(&[]), "quiet": test_entry(&["--no-logging"])}));
    let out = mcp(&["tools", "--config", quiet.to_str().unwrap(), "--log-level", "debug"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("server \"quiet\" does not offer logging"), "{}", stderr(&out));

    // No server could be reached: exit 3, the failures in JSON.
    let dead = config(
        &dir,
        "dead.json",
        json!({"x": {"command": "/nonexistent/mcp-cli-x"}, "y": {"command": "/nonexistent/mcp-cli-y"}}),
    );
    let out = mcp(&["tools", "--config", dead.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let listed = json_of(&out);
    assert_eq!(listed["tools"], json!([]));
    let failed: Vec<&str> =
        listed["failed"].as_array().unwrap().iter().filter_map(|f| f["server"].as_str()).collect();
    assert_eq!(failed, ["x", "y"]);

    // --all works with a one-server file too, tagging its items.
    let one = config(&dir, "one.json", json!({"only": test_entry(&["--no-prompts"])}));
    let out = mcp(&["tools", "--all", "--config", one.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(tagged(&json_of(&out), "tools", "name").contains(&pair("only", "echo")));
    // Without --all, a one-server file is that server, untagged, as before.
    let out = mcp(&["tools", "--config", one.to_str().unwrap(), "--json"]);
    assert_eq!(json_of(&out)["tools"][0].get("server"), None);
}

#[test]
fn call_routes_to_the_server_offering_the_tool() {
    let dir = TempDir::new("mcp-cli-many-call");
    let file = mixed(&dir);

    // Only b has `typed`; the broken server is a warning, not a failure.
    let out = mcp(&["call", "--config", &file, "typed", "text=hi", "count=2", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(json_of(&out)["structuredContent"]["count"], 2);
    assert!(stderr(&out).contains("warning: server \"broken\" could not list its tools"), "{}", stderr(&out));
    // Only the real peer has get-sum.
    let out = mcp(&["call", "--config", &file, "get-sum", "a=2", "b=3"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("The sum of 2 and 3 is 5"), "{}", stdout(&out));

    // a and b both have `add`: a usage error naming them, with the way out.
    let out = mcp(&["call", "--config", &file, "add", "a=1", "b=2"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("offered by several servers (a, b)") && err.contains("--server NAME"), "{err}");
    // --server (or TARGET naming a server of the file) picks one.
    for args in [
        &["call", "--config", &file, "--server", "b", "add", "a=1", "b=2"][..],
        &["call", "--config", &file, "a", "add", "a=1", "b=2"],
    ] {
        let out = mcp(&[args, &["--json"]].concat());
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        assert_eq!(json_of(&out)["structuredContent"]["sum"], 3.0, "{args:?}");
    }

    // A tool no server that answered offers: the broken server's failure is the answer.
    let out = mcp(&["call", "--all", "--config", &file, "nope"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("no server that answered offers a tool named \"nope\""),
        "{}",
        stderr(&out)
    );
}

/// A server that does not answer in time is reported beside the others' answers; when it is
/// the only one, its failure's exit code (4, timeout) is the command's.
#[test]
fn a_server_that_times_out_is_reported() {
    let dir = TempDir::new("mcp-cli-many-timeout");
    let slow = || test_entry(&["--answer-delay-ms", "3000"]);
    let file = config(&dir, "slow.json", json!({"fast": test_entry(&[]), "slow": slow()}));
    let out = mcp(&["tools", "--config", file.to_str().unwrap(), "--timeout", "0.5", "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let listed = json_of(&out);
    assert!(tagged(&listed, "tools", "name").contains(&pair("fast", "echo")), "{listed}");
    assert_eq!(listed["failed"][0]["server"], "slow", "{listed}");
    let message = listed["failed"][0]["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("timed out"), "{listed}");

    let only = config(&dir, "only-slow.json", json!({"slow": slow()}));
    let out = mcp(&["prompts", "--all", "--config", only.to_str().unwrap(), "--timeout", "0.5"]);
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    assert!(stderr(&out).contains("error: server \"slow\": request timed out"), "{}", stderr(&out));
}

/// The servers are asked at once: each test server answers `tools/list` only once both
/// requests arrived (a client asking one after the other would fail after the barrier's
/// timeout).
#[test]
fn servers_are_asked_at_once() {
    let dir = TempDir::new("mcp-cli-many-barrier");
    let barrier = dir.path().join("barrier");
    let barrier = barrier.to_str().unwrap();
    let entry = || {
        test_entry(&[
            "--list-barrier",
            barrier,
            "--list-barrier-count",
            "2",
            "--list-barrier-timeout-ms",
            "10000",
        ])
    };
    let file = config(&dir, "barrier.json", json!({"first": entry(), "second": entry()}));
    let out = mcp(&["tools", "--config", file.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let names = tagged(&json_of(&out), "tools", "name");
    assert!(names.contains(&pair("first", "echo")) && names.contains(&pair("second", "echo")), "{names:?}");
}

#[test]
fn other_commands_need_one_server() {
    let dir = TempDir::new("mcp-cli-many-usage");
    let file = config(&dir, "two.json", json!({"a": test_entry(&[]), "b": test_entry(&[])}));
    let file = file.to_str().unwrap();
    let out = mcp(&["info", "--config", file]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("several servers (a, b): name one with --server NAME"), "{}", stderr(&out));
    for args in [
        &["read", "--all", "--config", file, "test://text"][..],
        &["tools", "--all"],
        &["tools", "--all", "--config", file, "a"],
        &["tools", "--config", file, "-e", "KEY=secret"],
    ] {
        let out = mcp(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
    }
    assert_eq!(mcp(&["tools", "--all", "--server", "a", "--config", file]).status.code(), Some(2));
}
