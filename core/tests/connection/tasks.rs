//! Tasks (the 2026-07-28 tasks extension): a `tools/call` answered with `resultType: "task"` is
//! polled with `tasks/get` at the server's pace until its result, error or cancellation; input
//! inside a task goes back in `tasks/update`; cancel and timeout send `tasks/cancel`; a status
//! notification short-cuts the wait; the lifetime is honoured.

use serde_json::{json, Value};

use super::harness::*;
use mcpwire_core::{ClientFeatures, ProtocolMode, RequestError};

fn created(id: &str, poll_ms: Option<u64>, ttl_ms: Option<u64>) -> Value {
    let mut v = json!({"resultType": "task", "taskId": id, "status": "working",
        "createdAt": "2026-12-04T10:00:00Z", "lastUpdatedAt": "2026-12-04T10:00:00Z", "ttlMs": ttl_ms});
    if let Some(ms) = poll_ms {
        v["pollIntervalMs"] = json!(ms);
    }
    v
}

fn status(id: &str, status: &str, extra: Value) -> Value {
    let mut v = json!({"resultType": "complete", "taskId": id, "status": status, "pollIntervalMs": 100,
        "createdAt": "2026-12-04T10:00:00Z", "lastUpdatedAt": "2026-12-04T10:00:01Z", "ttlMs": null});
    if let Value::Object(m) = extra {
        for (k, x) in m {
            v[k] = x;
        }
    }
    v
}

fn elicit_name() -> Value {
    json!({"method": "elicitation/create", "params": {"message": "Name?",
        "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}})
}

/// A modern connection with a tool call that became task `t-1` polled every 100 ms.
fn tasked() -> (Harness, mcpwire_core::RequestHandle) {
    let mut h =
        Harness::with(ProtocolMode::Auto, |c| c.features = ClientFeatures::default().elicitation_form(true));
    h.connect_modern();
    let r = h.request(call("slow", json!({})));
    let sent = h.expect_sent("tools/call");
    let caps = &sent["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"];
    assert_eq!(caps["extensions"], json!({"io.modelcontextprotocol/tasks": {}}), "{sent}");
    h.reply(&sent, created("t-1", Some(100), None));
    assert!(!h.has_response(r));
    (h, r)
}

#[test]
fn a_task_is_polled_at_its_pace_until_its_result() {
    let (mut h, r) = tasked();
    assert!(h.sent().is_empty());
    assert_eq!(h.fire_next_timer(), ms(100));
    let poll = h.expect_sent("tasks/get");
    assert_eq!(poll["params"]["taskId"], "t-1");
    assert_modern_meta(&poll);
    h.reply(&poll, status("t-1", "working", json!({"pollIntervalMs": 250})));
    assert_eq!(h.fire_next_timer(), ms(250), "the pace follows the latest pollIntervalMs");
    let poll = h.expect_sent("tasks/get");
    let result = json!({"content": [{"type": "text", "text": "done"}], "isError": false});
    h.reply(&poll, status("t-1", "completed", json!({"result": result})));
    assert_eq!(h.ok(r).into_tool_result().unwrap().text(), "done");
    h.assert_all_answered();
    assert_eq!(h.next_timer_in(), None);
}

#[test]
fn the_poll_interval_is_bounded() {
    for (asked, expected) in [(Some(0), ms(10)), (Some(3_600_000), secs(30)), (None, secs(1))] {
        let mut h = connected(false);
        let r = h.request(call("slow", json!({})));
        let sent = h.expect_sent("tools/call");
        h.reply(&sent, created("t-9", asked, None));
        assert_eq!(h.fire_next_timer(), expected, "{asked:?}");
        h.expect_sent("tasks/get");
        assert!(!h.has_response(r));
    }
}

#[test]
fn a_failed_or_cancelled_task_ends_the_call() {
    let (mut h, r) = tasked();
    h.fire_next_timer();
    let poll = h.expect_sent("tasks/get");
    let error = json!({"code": -32050, "message": "task failed", "data": {"why": 1}});
    h.reply(&poll, status("t-1", "failed", json!({"error": error})));
    match h.err(r) {
        RequestError::Rpc(e) => assert_eq!((e.code, e.message.as_str()), (-32050, "task failed")),
        other => panic!("{other:?}"),
    }
    let (mut h, r) = tasked();
    h.fire_next_timer();
    let poll = h.expect_sent("tasks/get");
    h.reply(&poll, status("t-1", "cancelled", json!({"statusMessage": "operator stop"})));
    assert!(
        matches!(h.err(r), RequestError::Task { task_id, detail } if task_id == "t-1" && detail == "operator stop")
    );
}

#[test]
fn input_inside_a_task_goes_back_in_tasks_update() {
    let (mut h, r) = tasked();
    h.fire_next_timer();
    let poll = h.expect_sent("tasks/get");
    h.reply(&poll, status("t-1", "input_required", json!({"inputRequests": {"name-1": elicit_name()}})));
    let (ask, _) = h.take_server_request();
    assert!(h.respond(ask, Ok(json!({"action": "accept", "content": {"name": "Ada"}}))));
    let update = h.expect_sent("tasks/update");
    assert_eq!(update["params"]["taskId"], "t-1");
    assert_eq!(
        update["params"]["inputResponses"],
        json!({"name-1": {"action": "accept", "content": {"name": "Ada"}}})
    );
    h.reply(&update, json!({"resultType": "complete"}));
    // Polling goes on at once; a poll still showing the answered request does not ask again.
    let poll = h.expect_sent("tasks/get");
    h.reply(&poll, status("t-1", "input_required", json!({"inputRequests": {"name-1": elicit_name()}})));
    assert!(h.events().is_empty(), "the same request is not asked twice");
    h.fire_next_timer();
    let poll = h.expect_sent("tasks/get");
    let result = json!({"content": [{"type": "text", "text": "Hello, Ada!"}]});
    h.reply(&poll, status("t-1", "completed", json!({"result": result})));
    assert_eq!(h.ok(r).into_tool_result().unwrap().text(), "Hello, Ada!");
}

#[test]
fn cancel_and_timeout_send_tasks_cancel() {
    let (mut h, r) = tasked();
    assert!(h.cancel(r));
    let cancel = h.expect_sent("tasks/cancel");
    assert_eq!(cancel["params"]["taskId"], "t-1");
    assert!(h.sent().iter().all(|m| m["method"] != "notifications/cancelled"));
    assert_eq!(h.err(r), RequestError::Cancelled);
    // Its answer is not waited for, and is no surprise.
    h.reply(&cancel, json!({"resultType": "complete"}));
    assert!(h.warnings().is_empty());
    assert_eq!(h.next_timer_in(), None);

    let mut h = connected(false);
    let r = h.request_opts(call("slow", json!({})), opts().timeout(secs(1)));
    let sent = h.expect_sent("tools/call");
    h.reply(&sent, created("t-2", Some(300), None));
    for _ in 0..3 {
        h.fire_next_timer();
        let poll = h.expect_sent("tasks/get");
        h.reply(&poll, status("t-2", "working", json!({"pollIntervalMs": 300})));
    }
    h.advance(ms(200));
    assert_eq!(h.expect_sent("tasks/cancel")["params"]["taskId"], "t-2");
    assert_eq!(h.err(r), RequestError::Timeout { after: secs(1) });
}

#[test]
fn a_status_notification_short_cuts_the_wait() {
    let (mut h, r) = tasked();
    let result = json!({"content": [{"type": "text", "text": "early"}]});
    let mut params = status("t-1", "completed", json!({"result": result}));
    params.as_object_mut().unwrap().remove("resultType");
    h.notify("notifications/tasks", params);
    assert_eq!(h.ok(r).into_tool_result().unwrap().text(), "early");
    assert_eq!(h.next_timer_in(), None, "no poll after the end");
}

#[test]
fn a_task_that_outlives_its_ttl_is_given_up() {
    let mut h = connected(false);
    let r = h.request(call("slow", json!({})));
    let sent = h.expect_sent("tools/call");
    h.reply(&sent, created("t-3", Some(400), Some(1000)));
    for _ in 0..2 {
        h.fire_next_timer();
        let poll = h.expect_sent("tasks/get");
        h.reply(&poll, status("t-3", "working", json!({"pollIntervalMs": 400})));
    }
    h.fire_next_timer();
    let poll = h.expect_sent("tasks/get");
    h.reply(&poll, status("t-3", "working", json!({"pollIntervalMs": 400})));
    assert_eq!(h.expect_sent("tasks/cancel")["params"]["taskId"], "t-3");
    assert!(matches!(h.err(r), RequestError::Task { .. }));
}

#[test]
fn invalid_task_answers_are_typed_errors() {
    let mut h = connected(false);
    let r = h.request(call("slow", json!({})));
    let sent = h.expect_sent("tools/call");
    h.reply(&sent, json!({"resultType": "task", "status": "working"}));
    assert!(matches!(h.err(r), RequestError::InvalidResponse { .. }));
    // A task id past the bound is refused too.
    let r = h.request(call("slow", json!({})));
    let sent = h.expect_sent("tools/call");
    h.reply(&sent, created(&"x".repeat(513), None, None));
    assert!(matches!(h.err(r), RequestError::InvalidResponse { .. }));

    let (mut h, r) = tasked();
    h.fire_next_timer();
    let poll = h.expect_sent("tasks/get");
    h.reply(&poll, status("t-1", "completed", json!({})));
    assert!(matches!(h.err(r), RequestError::InvalidResponse { .. }));

    // A handshake server cannot answer with a 2026-07-28 task.
    let mut h = connected(true);
    let r = h.request(call("slow", json!({})));
    let sent = h.expect_sent("tools/call");
    h.reply(&sent, created("t-4", None, None));
    assert_eq!(h.err(r), RequestError::UnsupportedResultType { result_type: "task".into() });
    // Only tools/call may become a task.
    let mut h = connected(false);
    let r = h.request(mcpwire_core::Request::read_resource("file:///a"));
    let sent = h.expect_sent("resources/read");
    h.reply(&sent, created("t-5", None, None));
    assert!(h.response(r).is_err());
}

// ----- 2025-11-25 ----------------------------------------------------------------------------

/// A 2025-11-25 server declaring task-augmented tool calls, with `job` (task required) and
/// `quick` (task optional) listed.
fn legacy_tasks() -> Harness {
    let mut h =
        Harness::with(ProtocolMode::Auto, |c| c.features = ClientFeatures::default().elicitation_form(true));
    let caps = json!({"tools": {}, "tasks": {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}});
    h.connect_legacy_with("2025-11-25", caps);
    let l = h.request(mcpwire_core::Request::ListTools);
    let list = h.expect_sent("tools/list");
    let tools = json!({"tools": [
        {"name": "job", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "required"}},
        {"name": "quick", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "optional"}},
    ]});
    h.reply(&list, tools);
    h.ok(l);
    h
}

fn legacy_task(id: &str, status: &str) -> Value {
    json!({"taskId": id, "status": status, "createdAt": "2025-11-25T10:30:00Z",
        "lastUpdatedAt": "2025-11-25T10:30:00Z", "ttl": 60000, "pollInterval": 200})
}

#[test]
fn a_legacy_required_task_is_augmented_polled_and_its_result_fetched() {
    let mut h = legacy_tasks();
    let r = h.request(call("job", json!({"n": 1})));
    let sent = h.expect_sent("tools/call");
    assert_eq!(sent["params"]["task"], json!({"ttl": 60000}), "the call's timeout: {sent}");
    h.reply(&sent, json!({"task": legacy_task("L-1", "working")}));
    assert_eq!(h.fire_next_timer(), ms(200));
    let poll = h.expect_sent("tasks/get");
    assert_eq!(poll["params"], json!({"taskId": "L-1"}));
    h.reply(&poll, legacy_task("L-1", "working"));
    h.fire_next_timer();
    let poll = h.expect_sent("tasks/get");
    h.reply(&poll, legacy_task("L-1", "completed"));
    let fetch = h.expect_sent("tasks/result");
    assert_eq!(fetch["params"], json!({"taskId": "L-1"}));
    h.reply(&fetch, json!({"content": [{"type": "text", "text": "job done"}]}));
    assert_eq!(h.ok(r).into_tool_result().unwrap().text(), "job done");
    h.assert_all_answered();

    // A tool that only allows tasks goes out as a plain call.
    let q = h.request(call("quick", json!({})));
    let sent = h.expect_sent("tools/call");
    assert!(sent["params"].get("task").is_none());
    h.reply(&sent, json!({"content": []}));
    h.ok(q);
}

#[test]
fn a_legacy_task_needing_input_fetches_its_result_while_the_server_asks() {
    let mut h = legacy_tasks();
    let r = h.request(call("job", json!({})));
    let sent = h.expect_sent("tools/call");
    h.reply(&sent, json!({"task": legacy_task("L-2", "working")}));
    h.fire_next_timer();
    let poll = h.expect_sent("tasks/get");
    h.reply(&poll, legacy_task("L-2", "input_required"));
    let fetch = h.expect_sent("tasks/result");
    // While tasks/result waits, the server asks through an ordinary request.
    h.server_says(json!({"jsonrpc": "2.0", "id": "e-1", "method": "elicitation/create", "params": {
        "message": "Name?", "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}},
        "_meta": {"io.modelcontextprotocol/related-task": {"taskId": "L-2"}}}}));
    let (ask, _) = h.take_server_request();
    assert!(h.respond(ask, Ok(json!({"action": "accept", "content": {"name": "Ada"}}))));
    assert_eq!(h.next_sent()["id"], "e-1");
    h.reply(&fetch, json!({"content": [{"type": "text", "text": "Hello, Ada!"}]}));
    assert_eq!(h.ok(r).into_tool_result().unwrap().text(), "Hello, Ada!");
}

#[test]
fn a_legacy_status_notification_fetches_the_result_at_once_and_cancel_uses_tasks_cancel() {
    let mut h = legacy_tasks();
    let r = h.request(call("job", json!({})));
    let sent = h.expect_sent("tools/call");
    h.reply(&sent, json!({"task": legacy_task("L-3", "working")}));
    h.notify("notifications/tasks/status", legacy_task("L-3", "completed"));
    let fetch = h.expect_sent("tasks/result");
    h.reply(&fetch, json!({"content": [{"type": "text", "text": "early"}], "isError": false}));
    assert_eq!(h.ok(r).into_tool_result().unwrap().text(), "early");

    let r = h.request(call("job", json!({})));
    let sent = h.expect_sent("tools/call");
    h.reply(&sent, json!({"task": legacy_task("L-4", "working")}));
    assert!(h.cancel(r));
    let cancel = h.expect_sent("tasks/cancel");
    assert_eq!(cancel["params"], json!({"taskId": "L-4"}));
    assert_eq!(h.err(r), RequestError::Cancelled);
}

// ----- task handles: started, looked at, awaited, cancelled, listed ----------------------------

fn modern_with_tasks() -> Harness {
    let mut h =
        connected_with_caps(json!({"tools": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}}));
    h.assert_quiet();
    h
}

fn connected_with_caps(caps: Value) -> Harness {
    let mut h = Harness::auto();
    h.connect_modern_with(discover(&[mcpwire_core::MODERN_VERSION], caps, 0));
    h
}

#[test]
fn a_call_started_as_a_task_answers_the_task_and_can_be_awaited_later() {
    use mcpwire_core::types::TaskStatus;
    use mcpwire_core::{Request, Response};
    let mut h = modern_with_tasks();
    let r = h.request(Request::CallToolAsTask { name: "slow".into(), arguments: json!({}) });
    let sent = h.expect_sent("tools/call");
    h.reply(&sent, created("t-7", Some(50), Some(60_000)));
    let Response::TaskStarted(task) = h.ok(r) else { panic!("not a started task") };
    assert_eq!(
        (task.task_id.as_str(), task.status, task.poll_interval_ms),
        ("t-7", TaskStatus::Working, Some(50))
    );
    assert_eq!(h.next_timer_in(), None, "a started task is not polled by itself");

    let g = h.request(Request::GetTask { task_id: "t-7".into() });
    let get = h.expect_sent("tasks/get");
    h.reply(&get, status("t-7", "working", json!({})));
    assert!(matches!(h.ok(g), Response::Task(t) if t.status == TaskStatus::Working));

    let w = h.request(Request::TaskResult { task_id: "t-7".into(), tool: None });
    let poll = h.expect_sent("tasks/get");
    h.reply(&poll, status("t-7", "working", json!({})));
    h.fire_next_timer();
    let poll = h.expect_sent("tasks/get");
    let result = json!({"content": [{"type": "text", "text": "later"}]});
    h.reply(&poll, status("t-7", "completed", json!({"result": result})));
    assert_eq!(h.ok(w).into_tool_result().unwrap().text(), "later");

    let c = h.request(Request::CancelTask { task_id: "t-7".into() });
    let cancel = h.expect_sent("tasks/cancel");
    h.reply(&cancel, json!({"resultType": "complete"}));
    assert_eq!(h.ok(c), Response::Empty);

    // The server runs a call at once when it likes: that is the result.
    let r = h.request(Request::CallToolAsTask { name: "quick".into(), arguments: json!({}) });
    let sent = h.expect_sent("tools/call");
    h.reply(&sent, json!({"resultType": "complete", "content": []}));
    assert!(matches!(h.ok(r), Response::ToolResult(_)));

    // A reused task id is a typed error.
    let r = h.request(Request::CallToolAsTask { name: "slow".into(), arguments: json!({}) });
    let sent = h.expect_sent("tools/call");
    h.reply(&sent, created("t-7", Some(50), None));
    assert!(matches!(h.err(r), RequestError::Task { detail, .. } if detail.contains("reused")));
    // tasks/list is not part of the extension.
    let l = h.request(Request::ListTasks);
    assert!(matches!(h.err(l), RequestError::Unsupported { .. }));
}

#[test]
fn task_requests_need_the_servers_declaration() {
    use mcpwire_core::Request;
    let missing = |capability, method| RequestError::CapabilityMissing { capability, method };
    let extension = "extensions.io.modelcontextprotocol/tasks";
    let mut h = connected(false);
    for (request, method) in [
        (Request::GetTask { task_id: "x".into() }, "tasks/get"),
        (Request::CancelTask { task_id: "x".into() }, "tasks/cancel"),
        (Request::CallToolAsTask { name: "slow".into(), arguments: json!({}) }, "tools/call"),
    ] {
        let r = h.request(request);
        assert_eq!(h.err(r), missing(extension, method));
    }
    // tasks/list is not in the extension at all: an era refusal, not a capability.
    let r = h.request(Request::ListTasks);
    assert!(matches!(h.err(r), RequestError::Unsupported { .. }));
    let mut h = connected(true);
    for (request, capability, method) in [
        (Request::ListTasks, "tasks.list", "tasks/list"),
        (
            Request::CallToolAsTask { name: "slow".into(), arguments: json!({}) },
            "tasks.requests.tools.call",
            "tools/call",
        ),
        (Request::CancelTask { task_id: "x".into() }, "tasks.cancel", "tasks/cancel"),
        (Request::GetTask { task_id: "x".into() }, "tasks", "tasks/get"),
    ] {
        let r = h.request(request);
        assert_eq!(h.err(r), missing(capability, method));
    }
    h.assert_quiet();
}

#[test]
fn legacy_tasks_are_started_listed_and_cancelled() {
    use mcpwire_core::types::TaskStatus;
    use mcpwire_core::{Request, Response};
    let mut h = legacy_tasks();
    let r = h.request(Request::CallToolAsTask { name: "quick".into(), arguments: json!({}) });
    let sent = h.expect_sent("tools/call");
    assert_eq!(sent["params"]["task"], json!({}));
    h.reply(&sent, json!({"task": legacy_task("L-9", "working")}));
    let Response::TaskStarted(task) = h.ok(r) else { panic!("not a started task") };
    assert_eq!((task.ttl_ms, task.poll_interval_ms), (Some(60000), Some(200)));

    let l = h.request(Request::ListTasks);
    let page = h.expect_sent("tasks/list");
    h.reply(&page, json!({"tasks": [legacy_task("L-8", "completed")], "nextCursor": "p2"}));
    let page = h.expect_sent("tasks/list");
    assert_eq!(page["params"]["cursor"], "p2");
    h.reply(&page, json!({"tasks": [legacy_task("L-9", "working"), {"bad": 1}]}));
    let Response::Tasks(tasks) = h.ok(l) else { panic!("not tasks") };
    assert_eq!(tasks.iter().map(|t| t.task_id.as_str()).collect::<Vec<_>>(), ["L-8", "L-9"]);
    assert_eq!(tasks[0].status, TaskStatus::Completed);
    assert_eq!(h.warnings().len(), 1, "the invalid item is reported");

    let w = h.request(Request::TaskResult { task_id: "L-9".into(), tool: Some("quick".into()) });
    let poll = h.expect_sent("tasks/get");
    h.reply(&poll, legacy_task("L-9", "completed"));
    let fetch = h.expect_sent("tasks/result");
    h.reply(&fetch, json!({"content": [{"type": "text", "text": "listed"}]}));
    assert_eq!(h.ok(w).into_tool_result().unwrap().text(), "listed");

    let c = h.request(Request::CancelTask { task_id: "L-9".into() });
    let cancel = h.expect_sent("tasks/cancel");
    h.reply(&cancel, legacy_task("L-9", "cancelled"));
    assert_eq!(h.ok(c), Response::Empty);
}

#[test]
fn a_failed_input_handler_keeps_the_other_answers_and_is_asked_again() {
    let (mut h, r) = tasked();
    h.fire_next_timer();
    let poll = h.expect_sent("tasks/get");
    let two = json!({"inputRequests": {"name-1": elicit_name(), "nick-1": elicit_name()}});
    h.reply(&poll, status("t-1", "input_required", two));
    let (first, _) = h.take_server_request();
    let (second, _) = h.take_server_request();
    assert!(h.respond(first, Err("the user closed the dialog".into())));
    assert!(h.respond(second, Ok(json!({"action": "accept", "content": {"name": "Ada"}}))));
    let update = h.expect_sent("tasks/update");
    let kept = update["params"]["inputResponses"].as_object().unwrap().clone();
    assert_eq!(kept.len(), 1, "only the answer produced: {update}");
    h.reply(&update, json!({"resultType": "complete"}));
    let poll = h.expect_sent("tasks/get");
    let (failed_key, _) =
        ["name-1", "nick-1"].iter().map(|k| (*k, ())).find(|(k, _)| !kept.contains_key(*k)).unwrap();
    let again = json!({"inputRequests": {failed_key: elicit_name()}});
    h.reply(&poll, status("t-1", "input_required", again));
    let (ask, _) = h.take_server_request();
    assert!(h.respond(ask, Ok(json!({"action": "accept", "content": {"name": "Bo"}}))));
    let update = h.expect_sent("tasks/update");
    assert_eq!(
        update["params"]["inputResponses"].as_object().unwrap().keys().collect::<Vec<_>>(),
        [failed_key]
    );
    h.reply(&update, json!({"resultType": "complete"}));
    let poll = h.expect_sent("tasks/get");
    let result = json!({"content": [{"type": "text", "text": "both"}]});
    h.reply(&poll, status("t-1", "completed", json!({"result": result})));
    assert_eq!(h.ok(r).into_tool_result().unwrap().text(), "both");
    assert!(h.warnings().iter().any(|w| matches!(w, mcpwire_core::Warning::HandlerFailed { .. })));
}

// ----- found by the simulation ---------------------------------------------------------------

mod found_by_the_simulation {
    use super::super::http_harness::*;
    use super::*;
    use mcpwire_core::{Request, Response};

    fn modern_with_tasks_and_input() -> Harness {
        let mut h = Harness::with(ProtocolMode::Auto, |c| {
            c.features = ClientFeatures::default().elicitation_form(true)
        });
        h.connect_modern_with(discover(
            &[mcpwire_core::MODERN_VERSION],
            json!({"tools": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}}),
            0,
        ));
        h
    }

    /// Finding 1: a TaskResult wait cannot take input.
    #[test]
    fn a_task_wait_takes_input_like_the_call() {
        let mut h = modern_with_tasks_and_input();
        let r = h.request(Request::CallToolAsTask { name: "slow".into(), arguments: json!({}) });
        let sent = h.expect_sent("tools/call");
        h.reply(&sent, created("t-1", Some(50), None));
        assert!(matches!(h.ok(r), Response::TaskStarted(_)));
        let w = h.request(Request::TaskResult { task_id: "t-1".into(), tool: None });
        let poll = h.expect_sent("tasks/get");
        h.reply(&poll, status("t-1", "input_required", json!({"inputRequests": {"name-1": elicit_name()}})));
        assert!(!h.has_response(w), "the wait ended: {:?}", h.response(w));
        let (ask, _) = h.take_server_request();
        assert!(h.respond(ask, Ok(json!({"action": "accept", "content": {"name": "Ada"}}))));
        h.expect_sent("tasks/update");
    }

    /// Finding 3: a status notification asking for input while a poll is in flight.
    #[test]
    fn input_asked_by_a_notification_while_a_poll_is_in_flight() {
        let mut h = modern_with_tasks_and_input();
        let r = h.request(call("slow", json!({})));
        let sent = h.expect_sent("tools/call");
        h.reply(&sent, created("t-1", Some(100), None));
        h.fire_next_timer();
        let poll = h.expect_sent("tasks/get");
        // Before the server answers that poll, it pushes the new status.
        let mut note = status("t-1", "input_required", json!({"inputRequests": {"name-1": elicit_name()}}));
        note.as_object_mut().unwrap().remove("resultType");
        h.notify("notifications/tasks", note);
        let (ask, _) = h.take_server_request();
        assert!(h.respond(ask, Ok(json!({"action": "accept", "content": {"name": "Ada"}}))));
        let sent = h.sent();
        let _ = format!("sent after the answer, with tasks/get {} still in flight: {sent:?}", poll["id"]);
        // The server answers the poll (input still required, the answer not yet taken), then the update.
        h.reply(&poll, status("t-1", "input_required", json!({"inputRequests": {"name-1": elicit_name()}})));
        let _ = format!(
            "after the poll's answer: sent {:?}, response {:?}",
            h.sent(),
            h.has_response(r).then(|| h.response(r))
        );
        if let Some(update) = sent.iter().find(|m| m["method"] == "tasks/update") {
            h.reply(update, json!({"resultType": "complete"}));
        }
        let outcome = h.has_response(r).then(|| h.response(r));
        let _ = format!("after the update's ack: sent {:?}, response {:?}", h.sent(), outcome);
        assert!(outcome.is_none(), "the call ended: {outcome:?}");
    }

    /// Finding 2: a call started as a task is retried after a 5xx (a plain tool call never is).
    #[test]
    fn a_call_started_as_a_task_is_not_retried() {
        let mut h = Harness::new({
            let mut cfg = http_config("http://srv.test/mcp", &[]);
            if let mcpwire_core::TransportConfig::Http(http) = &mut cfg.transport {
                http.retries = 2;
                http.retry_delay = ms(100);
            }
            cfg
        });
        let c = h.request(Request::Connect);
        let probe = h.expect_http("server/discover");
        h.reply_http(
            &probe,
            discover(
                &[mcpwire_core::MODERN_VERSION],
                json!({"tools": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}}),
                0,
            ),
        );
        h.take_connected();
        h.ok(c);
        h.know_tools(json!([]));
        let t = h.request(Request::CallToolAsTask { name: "job".into(), arguments: json!({}) });
        let sent = h.expect_http("tools/call");
        h.respond_http(sent.id, 502, &[], b"bad gateway");
        let outcome = h.has_response(t).then(|| h.response(t));
        let timer = h.conn.poll_timeout().is_some();
        let again = if timer {
            h.fire_next_timer();
            h.started_http().into_iter().map(|s| s.method()).collect()
        } else {
            vec![]
        };
        let _ = format!("outcome {outcome:?}, retry timer {timer}, sent after it {again:?}");
        assert!(
            matches!(outcome, Some(Err(RequestError::TransientServer { status: 502, .. }))),
            "{outcome:?} / {again:?}"
        );
    }

    /// Finding 5: a tasks/update whose response stream breaks is re-issued as a tasks/get; the
    /// answers are lost.
    #[test]
    fn a_broken_tasks_update_is_sent_again_with_its_answers() {
        let mut h = Harness::new({
            let mut cfg = http_config("http://srv.test/mcp", &[]);
            cfg.features = ClientFeatures::default().elicitation_form(true);
            cfg
        });
        let c = h.request(Request::Connect);
        h.http_connect_modern();
        h.ok(c);
        h.know_tools(json!([]));
        let r = h.request(call("slow", json!({})));
        let sent = h.expect_http("tools/call");
        h.reply_http(&sent, created("t-1", Some(100), None));
        h.fire_next_timer();
        let poll = h.expect_http("tasks/get");
        h.reply_http(
            &poll,
            status("t-1", "input_required", json!({"inputRequests": {"name-1": elicit_name()}})),
        );
        let (ask, _) = h.take_server_request();
        assert!(h.respond(ask, Ok(json!({"action": "accept", "content": {"name": "Ada"}}))));
        let update = h.expect_http("tasks/update");
        // The response stream starts, then breaks before the acknowledgment.
        h.head(update.id, 200, &[("Content-Type", "text/event-stream")]);
        h.http_fail(update.id, "connection reset");
        let again: Vec<_> = h.started_http();
        let methods: Vec<String> = again.iter().map(|s| s.method()).collect();
        let _ = format!(
            "after the broken update: {methods:?}, {:?}",
            again.first().map(|s| s.json()["params"].clone())
        );
        assert!(!h.has_response(r));
        assert_eq!(methods, ["tasks/update"], "the answers must go out again");
    }

    /// Finding 4: tasks/cancel goes out while a new legacy session is being set up: before
    /// `initialize` completes, without an Mcp-Session-Id.
    #[test]
    fn tasks_cancel_waits_for_a_session() {
        let mut h = Harness::new(http_config("http://srv.test/mcp", &[]));
        let c = h.request(Request::Connect);
        let caps =
            json!({"tools": {}, "tasks": {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}});
        let probe = h.expect_http("server/discover");
        h.respond_http(probe.id, 400, &[("Content-Type", "text/plain")], b"Bad Request: no session");
        let init = h.expect_http("initialize");
        let msg = result_for(&init.json(), init_result("2025-11-25", caps.clone()));
        h.head(init.id, 200, &[("Content-Type", "application/json"), ("Mcp-Session-Id", "sess-1")]);
        h.body(init.id, msg.to_string().as_bytes());
        h.end(init.id);
        for s in h.started_http() {
            if s.method() == "notifications/initialized" {
                h.accepted(&s);
            } else {
                h.respond_http(s.id, 405, &[], b"");
            }
        }
        h.take_connected();
        h.ok(c);
        let l = h.request(Request::ListTools);
        let list = h.expect_http("tools/list");
        h.reply_http(
            &list,
            json!({"tools": [{"name": "job", "inputSchema": {"type": "object"},
        "execution": {"taskSupport": "required"}}]}),
        );
        h.ok(l);
        let r = h.request(call("job", json!({})));
        let sent = h.expect_http("tools/call");
        assert!(sent.json()["params"]["task"].is_object());
        h.reply_http(
            &sent,
            json!({"task": {"taskId": "L-1", "status": "working", "ttl": null, "pollInterval": 30000,
        "createdAt": "2025-11-25T10:30:00Z", "lastUpdatedAt": "2025-11-25T10:30:00Z"}}),
        );
        // Another request finds the session expired: a new one is set up.
        let p = h.request(Request::Ping);
        let ping = h.expect_http("ping");
        h.respond_http(ping.id, 404, &[("Content-Type", "text/plain")], b"Session not found");
        let reinit: Vec<Sent> = h.started_http();
        assert!(reinit.iter().any(|s| s.method() == "initialize"), "{reinit:?}");
        // The host gives up on the task call while initialize is unanswered.
        assert!(h.cancel(r));
        let sent = h.started_http();
        let early: Vec<(String, Option<String>)> =
            sent.iter().map(|s| (s.method(), s.header("Mcp-Session-Id").map(str::to_owned))).collect();
        let _ = format!("sent while initialize is unanswered: {early:?}");
        let _ = p;
        assert!(early.iter().all(|(m, _)| m != "tasks/cancel"), "{early:?}");
    }
}
