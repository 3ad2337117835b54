//! Starting stdio servers: `-e KEY=VALUE`, `--cwd DIR`, `VAR=value cmd` in a quoted TARGET,
//! and the server's argv after `--`.

mod common;
use common::{mcp, stderr, stdout};

/// A wrapper script that records its working directory and `$GREETING` in `$REPORT`, then
/// runs the bundled server.
#[cfg(unix)]
fn reporting_server(dir: &mcp_tests::support::TempDir) -> String {
    use std::os::unix::fs::PermissionsExt;
    let script = format!(
        "#!/bin/sh\necho \"$(pwd) $GREETING\" > \"$REPORT\"\nexec {}\n",
        mcp_tests::support::test_server()
    );
    let path = dir.write("server.sh", script.as_bytes());
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    path.to_str().expect("UTF-8").to_owned()
}

#[cfg(unix)]
#[test]
fn env_and_cwd_reach_the_server() {
    let dir = mcp_tests::support::TempDir::new("cli-start");
    let work = dir.path().join("work");
    std::fs::create_dir_all(&work).expect("mkdir");
    let work = work.canonicalize().expect("canonical");
    let server = reporting_server(&dir);
    let report = dir.path().join("report.txt");
    let report_str = report.to_str().expect("UTF-8");
    let read = || std::fs::read_to_string(&report).expect("the server wrote its report");
    let expected = |greeting: &str| format!("{} {greeting}\n", work.display());

    // -e and --cwd with a quoted TARGET.
    let report_env = format!("REPORT={report_str}");
    let out =
        mcp(&["ping", &server, "-e", &report_env, "-e", "GREETING=hello", "--cwd", work.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(read(), expected("hello"));

    // VAR=value words before the command, as in a shell.
    let target = format!("REPORT='{report_str}' GREETING=shell-style {server}");
    let out = mcp(&["ping", &target, "--cwd", work.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(read(), expected("shell-style"));

    // The argv after `--`, not shell-split (a space stays inside its word).
    let out = mcp(&[
        "call",
        "echo",
        "message=after dashes",
        "-e",
        &report_env,
        "--cwd",
        work.to_str().unwrap(),
        "-e",
        "GREETING=a b",
        "--",
        &server,
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).lines().next(), Some("after dashes"));
    assert_eq!(read(), expected("a b"));
}

/// server-everything's `get-env` shows the variable given with `-e`; `-- cmd` starts it
/// without a quoted TARGET; `-e` on an HTTP server and TARGET with `--` are usage errors.
#[test]
fn env_reaches_server_everything_and_misuse_is_refused() {
    let everything = mcp_tests::support::peer_command("server-everything");
    let out = mcp(&["call", "get-env", "-e", "MCP_CLI_PROBE=seen-by-the-server", "--", &everything]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("seen-by-the-server"), "{}", stdout(&out));
    let out = mcp(&["tools", "--", &everything]);
    assert!(out.status.success() && stdout(&out).contains("get-sum"), "{}", stderr(&out));

    let out = mcp(&["info", "http://127.0.0.1:9/mcp", "-e", "A=1"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("-e and --cwd apply to stdio servers"), "{}", stderr(&out));
    let out = mcp(&["tools", &everything, "--", &everything]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("TARGET and a server command after -- both given"), "{}", stderr(&out));
    assert_eq!(mcp(&["tools", "-e", "novalue", &everything]).status.code(), Some(2));
}
