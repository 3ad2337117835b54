//! Task scenarios against `mcp-test-server`, written once for every runtime: a tool call the
//! server runs as a task is awaited transparently (polled, input answered by the host's
//! handlers, failures and timeouts typed) on the 2026-07-28 extension and on 2025-11-25. The
//! glue module `rt` is the one described in `scenarios.rs`.

/// Defines `pub mod task_scenarios` for the glue `rt`: `define_task_scenarios!(async, aw_async)`
/// or `define_task_scenarios!(, aw_sync)`.
#[macro_export]
macro_rules! define_task_scenarios {
    ($($kw:ident)? , $aw:ident) => {
/// The task scenarios, instantiated for this runtime.
#[allow(unused_imports)]
pub mod task_scenarios {
    use super::rt;
    use std::time::Duration;
    use $crate::mcpwire_core::{ClientError, RequestError, RequestOptions};
    use $crate::serde_json::json;
    use $crate::support;

    macro_rules! aw {
        ($e:expr) => {
            $crate::$aw!($e)
        };
    }

    fn client(args: &[&str]) -> rt::Client {
        let answer_name = rt::sync_handler(|_: $crate::mcpwire_host::ElicitationRequest| {
            Ok($crate::mcpwire_core::types::ElicitResult::accept(json!({"name": "Ada"})))
        });
        let spec = support::spec(support::test_server(), "t", args);
        rt::build(rt::Client::builder().server(spec).elicitation_handler(answer_name)).expect("build the client")
    }

    fn rpc_code<T: std::fmt::Debug>(r: Result<T, ClientError>) -> i64 {
        match r {
            Err(ClientError::Request(RequestError::Rpc(e))) => e.code,
            other => panic!("expected a JSON-RPC error, got {other:?}"),
        }
    }

    /// 2026-07-28: the server answers with tasks (the client declares the extension); the
    /// calls return the tasks' results, input inside a task is answered by the host's
    /// handler, a failed task is its JSON-RPC error, and a timeout cancels the task.
    pub $($kw)? fn modern_tasks_are_awaited() {
        let client = client(&["--protocol", "modern", "--task-poll-ms", "20"]);
        let r = aw!(client.call_tool("task_echo", json!({"message": "from a task"}))).expect("task_echo");
        assert_eq!(r.text(), "from a task");
        let r = aw!(client.call_tool("task_required", json!({"message": "required"}))).expect("task_required");
        assert_eq!(r.text(), "required");
        let r = aw!(client.call_tool("task_input", json!({}))).expect("task_input");
        assert_eq!(r.text(), "Hello, Ada!");
        assert_eq!(rpc_code(aw!(client.call_tool("task_fail", json!({})))), -32050);
        let opts = RequestOptions::default().timeout(Duration::from_millis(300));
        let server = &client.servers()[0];
        let e = aw!(server.call_tool("task_slow", json!({"ms": 60000})).options(opts)).expect_err("times out");
        assert!(e.is_timeout(), "{e:?}");
        aw!(client.close());
    }

    /// 2025-11-25: a tool whose definition requires a task goes out task-augmented and its
    /// result is fetched with tasks/result; input is asked through ordinary requests.
    pub $($kw)? fn legacy_tasks_are_awaited() {
        let client = client(&["--protocol", "2025-11-25", "--task-poll-ms", "20"]);
        let tools = aw!(client.list_tools()).into_result().expect("list_tools");
        let required = tools.iter().find(|t| t.tool.name == "task_required").expect("task_required listed");
        assert_eq!(required.tool.task_support(), Some("required"));
        let r = aw!(client.call_tool("task_required", json!({"message": "legacy task"}))).expect("task_required");
        assert_eq!(r.text(), "legacy task");
        let r = aw!(client.call_tool("task_input", json!({}))).expect("task_input");
        assert_eq!(r.text(), "Hello, Ada!");
        // An optional one runs as a plain call.
        let r = aw!(client.call_tool("task_echo", json!({"message": "plain"}))).expect("task_echo");
        assert_eq!(r.text(), "plain");
        aw!(client.close());
    }

    /// Handles name their server: a client routes by it, another server refuses it, a bare
    /// id is ambiguous with several servers, and a handle survives serialisation.
    pub $($kw)? fn task_handles_route_by_server() {
        use $crate::mcpwire_core::types::{StartedTask, TaskHandle};
        let a = support::spec(support::test_server(), "a", &["--protocol", "modern", "--task-poll-ms", "20"]);
        let b = support::spec(support::test_server(), "b", &["--protocol", "2025-11-25"]);
        let client = rt::build(rt::Client::builder().server(a).server(b)).expect("build the client");
        let (a, b) = (client.server("a").expect("a"), client.server("b").expect("b"));
        let started = aw!(a.call_tool("task_echo", json!({"message": "kept", "ms": 100})).as_task()).expect("as a task");
        let StartedTask::Task { handle, .. } = started else { panic!("not a task") };
        assert_eq!((handle.server.as_str(), handle.tool.as_deref()), ("a", Some("task_echo")));
        let stored = $crate::serde_json::to_string(&handle).expect("serialise");
        let handle: TaskHandle = $crate::serde_json::from_str(&stored).expect("restore");
        let wrong = aw!(b.get_task(&handle)).expect_err("another server's task");
        assert!(matches!(wrong, ClientError::Command(_)), "{wrong:?}");
        assert!(client.task_handle("task-1").is_err(), "a bare id is ambiguous with two servers");
        let r = aw!(client.wait_for_task(&handle)).expect("wait_for_task");
        assert_eq!(r.text(), "kept");
        aw!(client.close());
    }
}
    };
}

/// Generates the `#[test]`s of [`define_task_scenarios!`].
#[macro_export]
macro_rules! all_task_scenario_tests {
    ($run:path) => {
        $crate::scenario_tests!(task_scenarios, $run;
            modern_tasks_are_awaited, legacy_tasks_are_awaited, task_handles_route_by_server);
    };
}
