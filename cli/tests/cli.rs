//! Runs the built `mcp` binary against the workspace's test server.

use std::process::{Command, Output};

use serde_json::Value;

mod common;
use common::{json, mcp, stderr, stdout, target};

/// Exit code 1 and exactly one `error:` line on stderr.
fn assert_one_error_line(out: &Output) {
    assert_one_error_line_with(out, 1);
}

/// Exit code `code` and exactly one `error:` line on stderr.
fn assert_one_error_line_with(out: &Output, code: i32) {
    assert_eq!(out.status.code(), Some(code), "stdout: {}\nstderr: {}", stdout(out), stderr(out));
    let err = stderr(out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("error: "), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn info_reports_the_era() {
    let modern = json(&mcp(&["info", &target("--protocol modern"), "--json"]));
    assert_eq!(modern["era"], "modern");
    assert_eq!(modern["protocolVersion"], "2026-07-28");
    assert_eq!(modern["serverInfo"]["name"], "mcp-test-server");
    assert_eq!(modern["transport"], "stdio");
    assert!(modern["capabilities"]["tools"].is_object());

    let legacy = json(&mcp(&["info", &target("--protocol 2025-11-25"), "--json"]));
    assert_eq!(legacy["era"], "legacy");
    assert_eq!(legacy["protocolVersion"], "2025-11-25");

    let text = mcp(&["info", &format!("stdio://{}", target("--protocol modern"))]);
    assert!(text.status.success(), "{}", stderr(&text));
    let text = stdout(&text);
    assert!(text.contains("era:          modern"), "{text}");
    assert!(text.contains("transport:    stdio"), "{text}");
}

#[test]
fn tools_lists_names_and_hints() {
    let out = mcp(&["tools", &target("")]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.lines().any(|l| l.starts_with("echo ") && l.contains("Echo") && l.contains("[read-only]")),
        "{text}"
    );
    assert!(text.lines().any(|l| l.starts_with("fail ")), "{text}");

    let raw = json(&mcp(&["tools", &target("--protocol modern"), "--json"]));
    let names: Vec<&str> =
        raw["tools"].as_array().unwrap().iter().filter_map(|t| t["name"].as_str()).collect();
    assert!(names.contains(&"echo") && names.contains(&"progress"), "{names:?}");
}

/// MCP Apps: `mcp tools` shows a tool's UI resource and app-only visibility; `mcp call`
/// prints structured content once when a text block carries the same JSON.
#[test]
fn tools_show_mcp_apps_and_call_prints_structured_content_once() {
    let out = mcp(&["tools", &target("--cli-tools")]);
    let text = stdout(&out);
    let line =
        |name: &str| text.lines().find(|l| l.starts_with(&format!("{name} "))).unwrap_or_default().to_owned();
    assert!(line("app_view").ends_with("[ui: ui://test/view.html]"), "{text}");
    assert!(line("app_refresh").ends_with("[ui: ui://test/view.html; app-only]"), "{text}");
    assert!(!line("typed").contains("ui:"), "{text}");

    let out = mcp(&["call", &target("--cli-tools"), "typed", "text=hi", "count=2"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "structuredContent:\n{\n  \"count\": 2,\n  \"text\": \"hi\"\n}\n");

    // server-everything sends its weather as a JSON text block and as structured content.
    let everything = mcp_tests::support::peer_command("server-everything");
    let out = mcp(&["call", &everything, "get-structured-content", "location=Chicago"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.starts_with("structuredContent:\n{") && text.matches("humidity").count() == 1, "{text}");
}

/// `--trace FILE` writes one JSON object per line: the process start, the messages both ways
/// (the call and its answer among them) and the exit; the file is its owner's only.
#[test]
fn trace_writes_the_call_and_its_answer_as_json_lines() {
    let dir = mcp_tests::support::TempDir::new("trace");
    let file = dir.path().join("wire.jsonl");
    let out =
        mcp(&["--trace", file.to_str().unwrap(), "call", &target(""), "echo", r#"{"message":"traced"}"#]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = std::fs::read_to_string(&file).expect("the trace");
    let lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).expect("a JSON line")).collect();
    for line in &lines {
        assert!(line["ts"].as_str().is_some_and(|t| t.ends_with('Z') && t.len() == 24), "{line}");
        assert!(line["server"].is_string() && line["dir"].is_string() && line["kind"].is_string(), "{line}");
    }
    assert_eq!(lines[0]["kind"], "process_start", "{lines:#?}");
    assert_eq!(lines.last().unwrap()["kind"], "process_exit", "{lines:#?}");
    let call = lines
        .iter()
        .find(|l| l["dir"] == "send" && l["message"]["method"] == "tools/call")
        .expect("the call");
    assert_eq!(call["message"]["params"]["arguments"]["message"], "traced");
    let answer = lines
        .iter()
        .find(|l| l["dir"] == "recv" && l["message"]["id"] == call["message"]["id"])
        .expect("its answer");
    assert!(answer["message"]["result"].to_string().contains("traced"), "{answer}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}

/// `--trace` against a real peer (server-everything over stdio): the handshake and the call go
/// out, their answers come back, in the order they happened.
#[test]
fn trace_of_a_real_peer() {
    let dir = mcp_tests::support::TempDir::new("trace-everything");
    let file = dir.path().join("wire.jsonl");
    let everything = mcp_tests::support::peer_command("server-everything");
    let out = mcp(&["--trace", file.to_str().unwrap(), "call", &everything, "echo", "message=traced"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = std::fs::read_to_string(&file).expect("the trace");
    let lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).expect("a JSON line")).collect();
    let position = |dir: &str, method: &str| {
        lines.iter().position(|l| l["dir"] == dir && l["message"]["method"] == method)
    };
    let initialize = position("send", "initialize").expect("the handshake");
    let call = position("send", "tools/call").expect("the call");
    assert!(initialize < call, "{lines:#?}");
    let id = &lines[call]["message"]["id"];
    let answer =
        lines.iter().position(|l| l["dir"] == "recv" && l["message"]["id"] == *id).expect("its answer");
    assert!(call < answer && lines[answer]["message"]["result"].to_string().contains("traced"), "{lines:#?}");
}

#[test]
fn call_prints_text_and_fails_on_is_error() {
    let out = mcp(&["call", &target(""), "echo", r#"{"message":"hi"}"#]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).lines().next(), Some("hi"));

    let raw = json(&mcp(&["call", &target("--protocol modern"), "echo", r#"{"message":"hi"}"#, "--json"]));
    assert_eq!(raw["structuredContent"]["message"], "hi");

    let out = mcp(&["call", &target(""), "fail"]);
    assert_one_error_line(&out);
    assert!(stdout(&out).contains("tool failed"));
}

#[test]
fn bad_arguments_are_one_line_errors() {
    for (args, says) in [("{not json", "JSON_ARGS"), ("[1, 2]", "key=value"), ("\"text\"", "key=value")] {
        let out = mcp(&["call", &target(""), "echo", args]);
        assert_one_error_line_with(&out, 2);
        assert!(stderr(&out).contains(says), "{}", stderr(&out));
    }
    assert_one_error_line_with(&mcp(&["info", "mcp-no-such-program-anywhere"]), 3);
    assert_one_error_line_with(&mcp(&["call", &target(""), "crash"]), 3);
    assert_eq!(mcp(&["frobnicate"]).status.code(), Some(2));
}

#[test]
fn prompts_resources_and_read() {
    let out = mcp(&["prompts", &target("")]);
    assert!(stdout(&out).contains("greet"), "{}", stderr(&out));
    let out = mcp(&["resources", &target("")]);
    let text = stdout(&out);
    assert!(text.contains("test://text") && text.contains("test://item/{id}"), "{text}");
    let out = mcp(&["read", &target(""), "test://text"]);
    assert_eq!(stdout(&out).trim_end(), "hello resource");
    let out = mcp(&["read", &target(""), "test://blob"]);
    assert!(stdout(&out).contains("5 bytes"), "{}", stdout(&out));
}

#[test]
fn demo_tours_both_eras() {
    let out = mcp(&["demo"]);
    assert!(out.status.success(), "stdout: {}\nstderr: {}", stdout(&out), stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("connected: modern era"), "{text}");
    assert!(text.contains("connected: legacy era"), "{text}");
    assert!(text.contains("progress 3/3"), "{text}");
    assert!(text.contains("user: Hello, Ada!"), "{text}");
    assert_eq!(text.matches("closed").count(), 2, "{text}");
}

/// `mcp info <url> --json` against real peers over HTTP reports the transport and era chosen.
#[test]
fn info_over_http_reports_transport_and_era() {
    use mcp_tests::support::http_peers::HttpPeer;
    /// Peer, its arguments, its environment, the URL path, the transport and era expected.
    type Case<'a> = (&'a str, &'a [&'a str], &'a [(&'a str, &'a str)], &'a str, &'a str, &'a str);
    let cases: [Case<'_>; 4] = [
        (
            "py-mcp-peer",
            &["streamable-http", "--port", "{port}", "--stateless", "--json"],
            &[],
            "/mcp",
            "streamable-http",
            "modern",
        ),
        ("py-mcp-peer", &["sse", "--port", "{port}"], &[], "/sse", "sse", "legacy"),
        (
            "server-everything",
            &["streamableHttp"],
            &[("PORT", "{port}")],
            "/mcp",
            "streamable-http",
            "legacy",
        ),
        ("fastmcp-echo-peer", &["--port", "{port}"], &[], "/mcp", "streamable-http", "modern"),
    ];
    for (peer, args, env, path, transport, era) in cases {
        let server = HttpPeer::start(peer, args, env);
        let out = mcp(&["info", &server.url(path), "--json"]);
        assert!(out.status.success(), "{peer}: {}", String::from_utf8_lossy(&out.stderr));
        let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
        assert_eq!((v["transport"].as_str(), v["era"].as_str()), (Some(transport), Some(era)), "{peer}: {v}");
    }
    // A forced transport and a header are accepted; a header on a command line is refused.
    let server = HttpPeer::start("py-mcp-peer", &["sse", "--port", "{port}"], &[]);
    let url = server.url("/sse");
    let out = mcp(&["info", &url, "--json", "--transport", "sse", "-H", "X-Test: 1"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = mcp(&["info", &target(""), "-H", "X-Test: 1"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--header"));
}

/// `mcp info` at a server's root (FastMCP serves `/mcp`; `/` is 404 for every transport): one
/// error line naming every URL and transport tried with its outcome and suggesting `/mcp`, and
/// no HTTP+SSE deprecation notice (the server never served HTTP+SSE); exit code 3.
#[test]
fn info_at_the_wrong_path_lists_the_tries_and_suggests_mcp() {
    use mcp_tests::support::http_peers::HttpPeer;
    let server = HttpPeer::start("fastmcp-echo-peer", &["--port", "{port}"], &[]);
    let root = server.url("/");
    let out = mcp(&["info", &root]);
    assert_one_error_line_with(&out, 3);
    let err = stderr(&out);
    for part in [
        format!("Streamable HTTP POST {root} -> HTTP 404"),
        format!("HTTP+SSE GET {root} -> HTTP 404"),
        format!("plain HTTP POST {root} -> HTTP 404"),
        format!("try {} or {}", server.url("/mcp"), server.url("/sse")),
    ] {
        assert!(err.contains(&part), "{part:?} missing from {err}");
    }
    assert!(!err.to_lowercase().contains("deprecat"), "{err}");
}

/// `--validate`: py-mcp-peer's `add` overflows to `{"sum": null}`, which breaks its outputSchema.
#[test]
fn call_validates_structured_content_against_the_output_schema() {
    let peer = mcp_tests::support::peer_command("py-mcp-peer");
    let overflow = r#"{"a": 1e308, "b": 1e308}"#;
    let out = mcp(&["call", &peer, "add", overflow, "--validate", "strict"]);
    assert_one_error_line(&out);
    assert!(
        stderr(&out).contains("breaks its outputSchema") && stderr(&out).contains("/sum"),
        "{}",
        stderr(&out)
    );

    let out = mcp(&["call", &peer, "add", overflow]);
    assert!(out.status.success(), "warn is the default: {}", stderr(&out));
    assert!(
        stderr(&out).contains("warning: tool \"add\" returned structured content that breaks"),
        "{}",
        stderr(&out)
    );

    let out = mcp(&["call", &peer, "add", overflow, "--validate", "off"]);
    assert!(out.status.success() && stderr(&out).is_empty(), "{}", stderr(&out));

    let out = mcp(&["call", &peer, "add", r#"{"a": 2, "b": 3}"#, "--validate", "strict"]);
    assert!(out.status.success() && stderr(&out).is_empty(), "{}", stderr(&out));
}

/// `mcp listen` prints what a real server pushes: a `subscriptions/listen` stream on
/// ts-v2-peer (2026-07-28), `resources/subscribe` on py-mcp-peer spoken as 2025-11-25; the
/// updates are triggered by `mcp call ... touch` from another process.
#[test]
fn listen_prints_pushed_notifications() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    use std::time::{Duration, Instant};

    use mcp_tests::support::http_peers::HttpPeer;
    let ts = HttpPeer::start("ts-v2-peer", &["http", "--port", "{port}"], &[]);
    let py = HttpPeer::start("py-mcp-peer", &["streamable-http", "--port", "{port}"], &[]);
    for (peer, protocol, era) in [(&ts, "auto", "2026-07-28"), (&py, "legacy", "2025-11-25")] {
        let url = peer.url("/mcp");
        let mut listen = Command::new(env!("CARGO_BIN_EXE_mcp"))
            .args(["listen", &url, "--resource", "peer://hello", "--count", "2", "--json", "--for", "60"])
            .args(["--protocol", protocol])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run mcp listen");
        let mut status = String::new();
        BufReader::new(listen.stderr.take().expect("stderr")).read_line(&mut status).expect("a status line");
        assert!(status.starts_with(&format!("listening ({era})")), "{status}");
        for _ in 0..2 {
            let out = mcp(&["call", &url, "touch", r#"{"uri": "peer://hello"}"#]);
            assert!(out.status.success(), "{}", stderr(&out));
        }
        let deadline = Instant::now() + Duration::from_secs(30);
        let exit = loop {
            if let Some(exit) = listen.try_wait().expect("wait") {
                break exit;
            }
            assert!(Instant::now() < deadline, "mcp listen did not stop after 2 notifications");
            std::thread::sleep(Duration::from_millis(50));
        };
        assert!(exit.success());
        let mut out = String::new();
        std::io::Read::read_to_string(&mut listen.stdout.take().expect("stdout"), &mut out).expect("read");
        let lines: Vec<Value> = out.lines().map(|l| serde_json::from_str(l).expect("a JSON line")).collect();
        let expected = serde_json::json!({"method": "notifications/resources/updated", "params": {"uri": "peer://hello"}});
        assert_eq!(lines, [expected.clone(), expected], "{era}: {out}");
    }
}

/// `mcp call --as-task` and a plain `mcp call` of server-everything's task tool both complete
/// (the status goes to stderr); a 2026-07-28 peer's task tool too; `mcp tasks` reports typed
/// errors for what a server does not have.
#[test]
fn tasks_from_the_command_line() {
    use mcp_tests::support::http_peers::HttpPeer;
    let everything = mcp_tests::support::peer_command("server-everything");
    let args = r#"{"topic": "sans-IO"}"#;
    let out = mcp(&["call", &everything, "simulate-research-query", args, "--as-task"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("Research Report: sans-IO"), "{}", stdout(&out));
    assert!(
        stderr(&out).lines().any(|l| l.starts_with("task ") && l.contains("working")),
        "{}",
        stderr(&out)
    );
    let out = mcp(&["call", &everything, "simulate-research-query", args]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("Research Report: sans-IO"), "{}", stdout(&out));

    let ts = format!("{} stdio", mcp_tests::support::peer_command("ts-v2-peer"));
    let out = mcp(&["call", &ts, "slow_task", r#"{"ms": 300}"#, "--as-task", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(json(&out)["content"][0]["text"], "slow_task done after 300 ms");

    let py = HttpPeer::start("py-mcp-peer", &["streamable-http", "--port", "{port}"], &[]);
    let url = py.url("/mcp");
    let out = mcp(&["tasks", "list", &url]);
    assert_one_error_line(&out);
    assert!(stderr(&out).contains("tasks/list does not exist"), "{}", stderr(&out));
    let out = mcp(&["tasks", "get", &url, "no-such-task"]);
    assert_one_error_line(&out);
}

/// `prompts get`, `resources templates` and `complete` against the test server.
#[test]
fn prompt_get_templates_and_complete() {
    let out = mcp(&["prompts", "get", &target(""), "greet", r#"{"name": "Ada"}"#]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("Hello, Ada!"), "{}", stdout(&out));
    let raw = json(&mcp(&["prompts", "get", &target(""), "greet", r#"{"name": "Ada"}"#, "--json"]));
    assert_eq!(raw["messages"][0]["role"], "user");
    let out = mcp(&["prompts", "get", &target(""), "greet", r#"{"name": 1}"#]);
    assert_eq!(out.status.code(), Some(2), "prompt arguments are strings: {}", stderr(&out));

    let out = mcp(&["resources", "templates", &target("")]);
    assert!(stdout(&out).contains("test://item/{id}"), "{}", stdout(&out));
    let raw = json(&mcp(&["resources", "templates", &target(""), "--json"]));
    assert_eq!(raw["resourceTemplates"][0]["uriTemplate"], "test://item/{id}");

    let out = mcp(&["complete", &target(""), "name", "A", "--prompt", "greet"]);
    assert!(stdout(&out).contains("Ada, Alan"), "{}", stdout(&out));
    let raw = json(&mcp(&["complete", &target(""), "id", "", "--resource", "test://item/{id}", "--json"]));
    assert_eq!(raw["completion"]["values"], serde_json::json!(["1", "7", "42"]));
}

/// Exit codes: 2 usage, 3 unreachable, 4 timeout, 1 failed (see `mcp --help`).
#[test]
fn exit_codes_tell_failures_apart() {
    assert_eq!(mcp(&["call", &target(""), "echo", "[1]"]).status.code(), Some(2));
    assert_eq!(mcp(&["prompts"]).status.code(), Some(2), "TARGET missing");
    assert_eq!(mcp(&["info", "mcp-no-such-program-anywhere"]).status.code(), Some(3));
    assert_eq!(mcp(&["info", "http://127.0.0.1:9/mcp"]).status.code(), Some(3));
    let out = mcp(&["call", &target(""), "slow", r#"{"ms": 5000}"#, "--timeout", "0.3"]);
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    assert_eq!(mcp(&["call", &target(""), "fail"]).status.code(), Some(1));
}

/// Shell completion scripts name the subcommands.
#[test]
fn completions_for_shells() {
    for shell in ["bash", "zsh", "fish"] {
        let out = mcp(&["completions", shell]);
        assert!(out.status.success(), "{shell}: {}", stderr(&out));
        assert!(stdout(&out).contains("templates"), "{shell}");
    }
}

/// `--verbose` without a terminal prints one progress line per notification.
#[test]
fn call_reports_progress_lines_when_verbose() {
    let out = mcp(&["call", &target(""), "progress", r#"{"steps": 3}"#, "--verbose"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let lines = stderr(&out).lines().filter(|l| l.starts_with("progress ")).count();
    assert_eq!(lines, 3, "{}", stderr(&out));
}

/// `--config FILE` with `--server NAME` or TARGET naming an entry, against server-everything
/// and the test server: prompts get, complete with context, resources templates.
#[test]
fn config_file_servers_against_a_real_peer() {
    let dir = std::env::temp_dir().join(format!("mcp-cli-config-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("servers.json");
    let config = serde_json::json!({"mcpServers": {
        "everything": {"command": mcp_tests::support::peer_command("server-everything")},
        "test": {"command": mcp_tests::support::test_server()},
    }});
    std::fs::write(&file, config.to_string()).unwrap();
    let file = file.to_str().unwrap();

    let out = mcp(&[
        "--config",
        file,
        "--server",
        "everything",
        "prompts",
        "get",
        "args-prompt",
        r#"{"city": "Paris"}"#,
    ]);
    assert!(out.status.success() && stdout(&out).contains("Paris"), "{}{}", stdout(&out), stderr(&out));
    let out = mcp(&[
        "complete",
        "--config",
        file,
        "everything",
        "name",
        "",
        "--prompt",
        "completable-prompt",
        "--context",
        r#"{"department": "Engineering"}"#,
    ]);
    assert!(stdout(&out).contains("Alice, Bob, Charlie"), "{}{}", stdout(&out), stderr(&out));
    let out = mcp(&["resources", "templates", "--config", file, "--server", "everything", "--json"]);
    let templates = json(&out);
    assert!(templates.to_string().contains("demo://resource/dynamic/text/{resourceId}"), "{templates}");
    let out = mcp(&["call", "--config", file, "--server", "test", "echo", r#"{"message": "via config"}"#]);
    assert!(stdout(&out).contains("via config"), "{}{}", stdout(&out), stderr(&out));

    // With no server named, commands other than tools, prompts, resources and call (which
    // work across the servers: tests/many_servers.rs) need one.
    let out = mcp(&["info", "--config", file]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("everything, test"), "{}", stderr(&out));
    let out = mcp(&["tools", "--config", file, "--server", "nope"]);
    assert_eq!(out.status.code(), Some(2));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--log` (or `MCP_LOG`) prints the client's tracing: the server span, each request with its
/// method, era, transport and outcome, and its close with the time it took; a bad filter is a
/// usage error.
#[test]
fn log_shows_request_spans() {
    let peer = mcp_tests::support::peer_command("server-everything");
    let out = mcp(&["call", &peer, "echo", r#"{"message": "traced"}"#, "--log", "mcp=debug"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    let call = err
        .lines()
        .find(|l| l.contains("tools/call") && l.contains("request done"))
        .unwrap_or_else(|| panic!("{err}"));
    for field in ["mcp.server", "mcp.request", "era=\"Legacy\"", "outcome=\"ok\"", "duration_us="] {
        assert!(call.contains(field), "{field} missing from {call}");
    }
    assert!(err.lines().any(|l| l.contains("close") && l.contains("time.busy")), "{err}");
    assert!(err.contains("connected"), "{err}");
    let quiet = Command::new(env!("CARGO_BIN_EXE_mcp"))
        .args(["call", &target(""), "echo", r#"{"message": "x"}"#])
        .env("MCP_LOG", "mcp=debug")
        .output()
        .expect("run mcp");
    assert!(stderr(&quiet).contains("mcp.request"), "MCP_LOG works too: {}", stderr(&quiet));
    assert_eq!(mcp(&["tools", &target(""), "--log", "mcp=[[["]).status.code(), Some(2));
}

/// A server that logs relies on deprecated Logging: the CLI says so once on stderr, without
/// `--verbose` too, and the call succeeds. The bundled server (2025-11-25) logs from `notify`;
/// server-everything logs at once when its simulated logging is switched on.
#[test]
fn a_logging_server_gets_one_deprecation_line() {
    let count = |err: &str| err.lines().filter(|l| l.contains("warning: deprecated: Logging")).count();
    let legacy = target("--protocol 2025-11-25");
    let out = mcp(&["call", &legacy, "notify"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert_eq!((count(&err), err.lines().count()), (1, 1), "{err}");
    assert!(err.contains("since MCP 2026-07-28") && err.contains("(used by the server)"), "{err}");
    // With --verbose the log itself is shown too, the notice still once.
    let out = mcp(&["call", &legacy, "notify", "--verbose"]);
    let err = stderr(&out);
    assert_eq!(count(&err), 1, "{err}");
    assert!(err.contains("log warning test:"), "{err}");

    let everything = mcp_tests::support::peer_command("server-everything");
    let out = mcp(&["call", &everything, "toggle-simulated-logging"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(count(&stderr(&out)), 1, "{}", stderr(&out));
    // A server that does not log: no notice.
    let out = mcp(&["call", &legacy, "echo", r#"{"message": "quiet"}"#]);
    assert!(out.status.success() && stderr(&out).is_empty(), "{}", stderr(&out));
}

/// `mcp login` against a real peer behind the OAuth gateway (the browser scripted through
/// `$BROWSER`), then later commands reuse the saved tokens with no sign-in; `--auth none`
/// gets the 401 (exit 5); `mcp logout` forgets them.
#[test]
fn login_then_commands_reuse_the_saved_tokens() {
    use mcp_tests::peer_checks::oauth::GatewayProcess;
    use mcp_tests::support::http_peers::HttpPeer;

    let peer = HttpPeer::start("py-mcp-peer", &["streamable-http", "--port", "{port}"], &[]);
    let gateway = GatewayProcess::start(&peer.url("/mcp"), &[]);
    let url = gateway.mcp_url();
    let dir = std::env::temp_dir().join(format!("mcp-cli-tokens-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let browser = format!("{} browse", mcp_tests::support::test_server());
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_mcp"))
            .args(args)
            .env("MCP_TOKEN_DIR", &dir)
            .env("BROWSER", &browser)
            .output()
            .expect("run mcp")
    };

    let out = run(&["tools", &url, "--auth", "none"]);
    assert_one_error_line_with(&out, 5);

    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port().to_string();
    let out = run(&["login", &url, "--callback-port", &port]);
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).contains("signed in"), "{}", stdout(&out));
    assert!(stderr(&out).contains("Sign in at: "), "{}", stderr(&out));
    assert_eq!(gateway.count("authorizations"), 1);
    let files: Vec<_> = std::fs::read_dir(&dir).expect("the token directory").flatten().collect();
    assert_eq!(files.len(), 1, "one record");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = files[0].metadata().unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "tokens are private");
    }

    let out = run(&["call", &url, "echo", r#"{"message": "saved token"}"#]);
    assert!(out.status.success() && stdout(&out).contains("saved token"), "{}{}", stdout(&out), stderr(&out));
    assert!(!stderr(&out).contains("Sign in at"), "no second sign-in: {}", stderr(&out));
    assert_eq!(gateway.count("authorizations"), 1);

    let out = run(&["logout", &url]);
    assert!(out.status.success() && stdout(&out).contains("forgot"), "{}", stdout(&out));
    let out = run(&["tools", &url]);
    assert_one_error_line_with(&out, 5);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--client-id` credentials are bound to `--issuer`: without it (and not a Client ID
/// Metadata Document URL) the command is a usage error before anything runs; with another
/// issuer than the server's, the gateway never sees the client (no registration, sign-in or
/// token request) and the error names both issuers.
#[test]
fn client_id_is_bound_to_its_issuer() {
    use mcp_tests::peer_checks::oauth::GatewayProcess;
    use mcp_tests::support::http_peers::HttpPeer;

    let out = mcp(&["tools", &target(""), "--client-id", "svc", "--client-secret", "s"]);
    assert_one_error_line_with(&out, 2);
    assert!(stderr(&out).contains("--issuer"), "{}", stderr(&out));
    // A metadata document URL answers for every authorization server.
    let out = mcp(&["tools", &target(""), "--client-id", "https://app.example/client.json"]);
    assert!(out.status.success(), "{}", stderr(&out));

    let peer = HttpPeer::start("py-mcp-peer", &["streamable-http", "--port", "{port}"], &[]);
    let gateway = GatewayProcess::start(&peer.url("/mcp"), &["--client", "svc:s3cret-value"]);
    let dir = std::env::temp_dir().join(format!("mcp-cli-issuer-{}", std::process::id()));
    let elsewhere = "https://auth.elsewhere.example";
    let out = Command::new(env!("CARGO_BIN_EXE_mcp"))
        .args(["tools", &gateway.mcp_url(), "--auth", "oauth", "--client-id", "svc"])
        .args(["--client-secret", "s3cret-value", "--issuer", elsewhere])
        .env("MCP_TOKEN_DIR", &dir)
        .env("BROWSER", "false")
        .output()
        .expect("run mcp");
    let _ = std::fs::remove_dir_all(&dir);
    assert_one_error_line(&out);
    let err = stderr(&out);
    assert!(err.contains(elsewhere) && err.contains(gateway.base()), "{err}");
    let stats = gateway.stats();
    for counter in ["registrations", "authorizations", "token_grants", "client_credentials", "token_errors"] {
        assert_eq!(stats[counter], 0, "{counter}: {stats}");
    }
}

/// Waits until `done`, failing the test (naming `what`) after `limit`.
#[cfg(unix)]
fn wait_until(what: &str, limit: std::time::Duration, mut done: impl FnMut() -> bool) {
    let start = std::time::Instant::now();
    while !done() {
        assert!(start.elapsed() < limit, "{what} within {limit:?}");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Ctrl-C (SIGINT to `mcp` alone, as a terminal sends it to its foreground group, which the
/// server is not in: it leads a process group of its own) ends the command with 130 after
/// shutting the server down with its whole group: the child of a wrapper script that ignores
/// stdin EOF, SIGINT and SIGTERM does not outlive `mcp`.
#[cfg(unix)]
#[test]
fn ctrl_c_shuts_the_server_and_its_wrappers_children_down() {
    use std::os::unix::fs::PermissionsExt;
    use std::time::Duration;

    let dir = mcp_tests::support::TempDir::new("ctrl-c");
    let script = format!(
        "#!/bin/sh\n(trap '' INT TERM; exec sleep 600) </dev/null >/dev/null 2>&1 &\necho $! > \"$0.pid\"\nexec {}\n",
        mcp_tests::support::test_server()
    );
    let wrapper = dir.write("server.sh", script.as_bytes());
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let pid_file = dir.path().join("server.sh.pid");
    let wrapper = wrapper.to_str().expect("a UTF-8 path").to_owned();
    let mut listen = Command::new(env!("CARGO_BIN_EXE_mcp"))
        .args(["listen", &wrapper, "--for", "120"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("run mcp listen");
    let mut grandchild = 0u32;
    wait_until("the wrapper started its child", Duration::from_secs(30), || {
        let pid = std::fs::read_to_string(&pid_file).ok().and_then(|t| t.trim().parse().ok());
        pid.map(|p| grandchild = p).is_some()
    });
    assert!(mcp_tests::support::process_is_running(grandchild));
    let sent = Command::new("kill").args(["-INT", &listen.id().to_string()]).status().expect("kill -INT");
    assert!(sent.success());
    let mut status = None;
    wait_until("mcp ends after Ctrl-C", Duration::from_secs(30), || {
        status = listen.try_wait().expect("wait for mcp");
        status.is_some()
    });
    assert_eq!(status.and_then(|s| s.code()), Some(130));
    wait_until("the wrapper's child is gone", Duration::from_secs(10), || {
        !mcp_tests::support::process_is_running(grandchild)
    });
}
