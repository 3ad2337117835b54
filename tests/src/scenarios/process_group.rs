//! Process-group scenarios, written once for every runtime (Unix: they start the test server
//! through `sh`): a stdio server started through a wrapper leaves no process behind. The
//! wrapper starts a grandchild that ignores stdin's end and SIGTERM, records its pid, then
//! becomes the test server; closing the client, and a crash followed by a restart, must end
//! every grandchild. The glue module `rt` is the one described in `scenarios.rs`.

/// Defines `pub mod process_group_scenarios` for the glue `rt`:
/// `define_process_group_scenarios!(async, aw_async)` or
/// `define_process_group_scenarios!(, aw_sync)`.
#[macro_export]
macro_rules! define_process_group_scenarios {
    ($($kw:ident)? , $aw:ident) => {
/// The process-group scenarios, instantiated for this runtime.
#[allow(unused_imports)]
pub mod process_group_scenarios {
    use super::rt;
    use std::path::Path;
    use $crate::mcpwire_core::{ClientError, RequestError};
    use $crate::serde_json::json;
    use $crate::support;

    macro_rules! aw {
        ($e:expr) => {
            $crate::$aw!($e)
        };
    }

    /// The wrapper each start runs: a grandchild that ignores SIGTERM and never reads stdin
    /// (its pid appended to the pid file), then `exec` of the test server.
    const WRAPPER: &str =
        r#"(trap '' TERM; exec sleep 600) </dev/null >/dev/null 2>&1 & echo $! >> "$0"; exec "$@""#;

    /// A wrapper that does not end with the server: it ignores SIGTERM and waits for its
    /// grandchild, which on SIGTERM appends to `<pid file>.term` and exits. So the wrapper
    /// ends at the terminate step only if that step signals the grandchild too.
    const WAITING_WRAPPER: &str = r#"(trap 'echo term >> "$0.term"; exit 0' TERM; while :; do sleep 1; done) </dev/null >/dev/null 2>&1 &
g=$!; echo $g >> "$0"; trap '' TERM; "$@"; wait $g"#;

    /// A client of the test server started through `wrapper` (`sh -c`), which gets the pid
    /// file as `$0`.
    fn wrapped_spec(wrapper: &str, pid_file: &Path) -> $crate::mcpwire_core::ServerSpec {
        let pid_file = pid_file.to_str().expect("a UTF-8 path");
        let args = ["-c", wrapper, pid_file, support::test_server(), "--protocol", "modern"];
        support::spec("sh", "t", &args)
    }

    fn wrapped_client(pid_file: &Path) -> rt::Client {
        rt::build(rt::Client::builder().server(wrapped_spec(WRAPPER, pid_file))).expect("build")
    }

    /// The grandchildren's pids, one per start of the server.
    fn grandchildren(pid_file: &Path) -> Vec<u32> {
        let text = std::fs::read_to_string(pid_file).unwrap_or_default();
        text.lines().map(|l| l.trim().parse().expect("a pid")).collect()
    }

    $($kw)? fn wait_until(what: &str, cond: impl Fn() -> bool) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while !cond() {
            assert!(std::time::Instant::now() < deadline, "timed out waiting for {what}");
            aw!(rt::sleep(std::time::Duration::from_millis(10)));
        }
    }

    $($kw)? fn assert_echo(client: &rt::Client) {
        let r = aw!(client.call_tool("echo", json!({"message": "hi"}))).expect("echo");
        assert_eq!(r.text(), "hi");
    }

    /// Closing the client ends the wrapper's grandchild, though it ignores SIGTERM and stdin.
    pub $($kw)? fn close_ends_the_wrappers_grandchildren() {
        let dir = support::TempDir::new("process-group");
        let pid_file = dir.path().join("pids");
        let client = wrapped_client(&pid_file);
        aw!(assert_echo(&client));
        let pids = grandchildren(&pid_file);
        assert_eq!(pids.len(), 1, "{pids:?}");
        assert!(support::process_is_running(pids[0]), "the grandchild runs while connected");
        aw!(client.close());
        aw!(wait_until("the grandchild to end", || !support::process_is_running(pids[0])));
    }

    /// Dropping the client without closing it ends the grandchild too.
    pub $($kw)? fn dropping_the_client_ends_the_wrappers_grandchildren() {
        let dir = support::TempDir::new("process-group-drop");
        let pid_file = dir.path().join("pids");
        let client = wrapped_client(&pid_file);
        aw!(assert_echo(&client));
        let pids = grandchildren(&pid_file);
        assert_eq!(pids.len(), 1, "{pids:?}");
        drop(client);
        aw!(wait_until("the grandchild to end", || !support::process_is_running(pids[0])));
    }

    /// The terminate step (after the stdin grace) signals the whole group: the grandchild
    /// handles SIGTERM, and the wrapper waiting for it ends without the kill step (whose grace
    /// is longer than the test waits).
    pub $($kw)? fn terminate_reaches_the_wrappers_grandchildren() {
        let dir = support::TempDir::new("process-group-term");
        let pid_file = dir.path().join("pids");
        let mut spec = wrapped_spec(WAITING_WRAPPER, &pid_file);
        spec.config.timeouts.shutdown_grace = std::time::Duration::from_millis(100);
        spec.config.timeouts.terminate_grace = std::time::Duration::from_secs(60);
        let client = rt::build(rt::Client::builder().server(spec)).expect("build");
        aw!(assert_echo(&client));
        let pids = grandchildren(&pid_file);
        assert_eq!(pids.len(), 1, "{pids:?}");
        aw!(client.close());
        assert!(dir.path().join("pids.term").exists(), "the grandchild got SIGTERM");
        aw!(wait_until("the grandchild to end", || !support::process_is_running(pids[0])));
    }

    /// A crashed server's group is killed (the first grandchild ends), and the restarted
    /// server's group is killed on close (the second grandchild ends).
    pub $($kw)? fn a_crashed_servers_grandchildren_end_and_the_restarted_ones_on_close() {
        let dir = support::TempDir::new("process-group-crash");
        let pid_file = dir.path().join("pids");
        let client = wrapped_client(&pid_file);
        aw!(assert_echo(&client));
        match aw!(client.call_tool("crash", json!({}))) {
            Err(ClientError::Request(RequestError::TransportClosed { .. })) => {}
            other => panic!("expected TransportClosed, got {other:?}"),
        }
        aw!(assert_echo(&client));
        let pids = grandchildren(&pid_file);
        assert_eq!(pids.len(), 2, "one grandchild per start: {pids:?}");
        aw!(wait_until("the crashed server's grandchild to end", || !support::process_is_running(pids[0])));
        assert!(support::process_is_running(pids[1]), "the restarted server's grandchild runs");
        aw!(client.close());
        aw!(wait_until("the restarted server's grandchild to end", || !support::process_is_running(pids[1])));
    }
}
    };
}

/// Generates one `#[test]` per process-group scenario:
/// `all_process_group_scenario_tests!(run)`.
#[macro_export]
macro_rules! all_process_group_scenario_tests {
    ($run:path) => {
        $crate::scenario_tests!(process_group_scenarios, $run;
            close_ends_the_wrappers_grandchildren,
            dropping_the_client_ends_the_wrappers_grandchildren,
            terminate_reaches_the_wrappers_grandchildren,
            a_crashed_servers_grandchildren_end_and_the_restarted_ones_on_close);
    };
}
