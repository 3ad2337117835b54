//! Tasks against real servers, written once for every runtime: server-everything's
//! `simulate-research-query` (2025-11-25, task required), and our SDK peers' task tools on the
//! 2026-07-28 extension and on 2025-11-25 — awaited transparently by `call_tool`, and started
//! as tasks and awaited through their handles. The glue module `rt` needs `Client`, `build`
//! and `sync_handler`; `tests/tests/real_peers.rs` runs them on every runtime.

/// Defines `pub mod task_peer_checks` for the glue `rt`: `define_task_peer_checks!(async,
/// aw_async)` or `define_task_peer_checks!(, aw_sync)`.
#[macro_export]
macro_rules! define_task_peer_checks {
    ($($kw:ident)? , $aw:ident) => {
/// The task checks against real peers, instantiated for this runtime.
#[allow(unused_imports)]
pub mod task_peer_checks {
    use super::rt;
    use std::time::Duration;
    use $crate::mcpwire_core::types::{StartedTask, TaskStatus};
    use $crate::mcpwire_core::{Era, ProtocolMode, ServerSpec};
    use $crate::serde_json::json;
    use $crate::support;

    macro_rules! aw {
        ($e:expr) => {
            $crate::$aw!($e)
        };
    }

    fn new_client(spec: ServerSpec) -> rt::Client {
        let spec = spec.request_timeout(Duration::from_secs(30));
        let name = rt::sync_handler(|_: $crate::mcpwire_host::ElicitationRequest| {
            Ok($crate::mcpwire_core::types::ElicitResult::accept(json!({"name": "Ada"})))
        });
        rt::build(rt::Client::builder().server(spec).elicitation_handler(name)).expect("build the client")
    }

    /// server-everything's research tool requires a task: a plain call waits for it; started
    /// as a task, its handle gives its state and, later, its result.
    pub $($kw)? fn everything_research_task() {
        let client = new_client(support::peer_spec("server-everything", &[]));
        let server = &client.servers()[0];
        let tools = aw!(server.list_tools()).expect("list_tools");
        let research = tools.iter().find(|t| t.name == "simulate-research-query").expect("the task tool");
        assert!(research.supports_task());
        let r = aw!(client.call_tool("simulate-research-query", json!({"topic": "sans-IO"}))).expect("a plain call");
        assert!(!r.is_error, "{:?}", r.raw());
        let started = aw!(server.call_tool("simulate-research-query", json!({"topic": "tasks"})).as_task()).expect("as a task");
        let StartedTask::Task { handle, task } = started else { panic!("not a task") };
        assert_eq!(task.status, TaskStatus::Working);
        let now = aw!(server.get_task(&handle)).expect("get_task");
        assert_eq!(now.task_id, handle.task_id);
        let listed = aw!(server.list_tasks()).expect("list_tasks");
        assert!(listed.iter().any(|t| t.task_id == handle.task_id), "{listed:?}");
        let r = aw!(server.wait_for_task(&handle)).expect("wait_for_task");
        assert!(!r.is_error, "{:?}", r.raw());
        aw!(client.close());
    }

    /// Our peers' task tools on the 2026-07-28 extension (ts-v2-peer and py-mcp-peer over
    /// stdio) and on 2025-11-25 (py-mcp-peer): required and input-needing tasks are awaited
    /// by a plain call; an optional one started as a task is awaited through its handle.
    pub $($kw)? fn sdk_peer_tasks() {
        let cases = [
            (support::peer_spec("ts-v2-peer", &["stdio"]), Era::Modern),
            (support::peer_spec("py-mcp-peer", &[]), Era::Modern),
            (support::peer_spec("py-mcp-peer", &[]).protocol(ProtocolMode::Legacy), Era::Legacy),
        ];
        for (spec, era) in cases {
            let name = spec.name.clone();
            let client = new_client(spec);
            let server = &client.servers()[0];
            assert_eq!(aw!(server.connect()).expect("connect").era, era, "{name}");
            // 2025-11-25 calls go out task-augmented once the tool's definition is known.
            aw!(server.list_tools()).expect("list_tools");
            let r = aw!(client.call_tool("required_task", json!({"ms": 100}))).expect("required_task");
            assert_eq!(r.text(), "required_task done", "{name} {era:?}");
            let r = aw!(client.call_tool("needs_input_task", json!({}))).expect("needs_input_task");
            assert_eq!(r.text(), "Hello, Ada!", "{name} {era:?}");
            match aw!(server.call_tool("slow_task", json!({"ms": 300})).as_task()).expect("slow_task as a task") {
                StartedTask::Task { handle, .. } => {
                    let r = aw!(server.wait_for_task(&handle)).expect("wait_for_task");
                    assert_eq!(r.text(), "slow_task done after 300 ms", "{name} {era:?}");
                }
                StartedTask::Done(r) => panic!("{name} {era:?}: ran at once: {:?}", r.raw()),
            }
            aw!(client.close());
        }
    }
}
    };
}

/// Generates the `#[test]`s of [`define_task_peer_checks!`].
#[macro_export]
macro_rules! all_task_peer_checks {
    ($run:path) => {
        $crate::scenario_tests!(task_peer_checks, $run; everything_research_task, sdk_peer_tasks);
    };
}
