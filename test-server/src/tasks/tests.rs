//! The task methods of both eras, end to end through the test harness.

use super::*;
use crate::config::{Config, ProtocolMode};
use crate::protocol::{META_PROTOCOL_VERSION, META_SUBSCRIPTION_ID, MODERN_VERSION};
use crate::test_harness::Harness;

const LEGACY: ProtocolMode = ProtocolMode::Legacy(TASKS_REVISION);
const WAIT: Duration = Duration::from_secs(5);

impl Harness {
    /// Sends a request and waits for its one line.
    fn ask(&self, id: u64, method: &str, params: Value) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.wait(1).remove(0)
    }

    /// Polls `tasks/get` (with `params`) until the task has `status`; the last result.
    fn poll(&self, params: Value, status: &str) -> Value {
        let deadline = Instant::now() + WAIT;
        loop {
            let got = self.ask(900, "tasks/get", params.clone());
            if got["result"]["status"] == status || Instant::now() >= deadline {
                assert_eq!(got["result"]["status"], status, "{got}");
                return got["result"].clone();
            }
            thread::sleep(Duration::from_millis(5));
        }
    }
}

/// Modern request params: `params` plus `_meta`, declaring the extension if `ext`.
fn modern(ext: bool, params: Value) -> Value {
    let caps = if ext { json!({"extensions": {TASKS_EXTENSION: {}}}) } else { json!({}) };
    let mut params = params;
    params["_meta"] = json!({META_PROTOCOL_VERSION: MODERN_VERSION, META_CLIENT_CAPABILITIES: caps});
    params
}

fn call(name: &str, arguments: Value) -> Value {
    json!({"name": name, "arguments": arguments})
}

fn task_params(id: &str) -> Value {
    json!({"taskId": id})
}

/// Checks both timestamps (ISO 8601, UTC, milliseconds; created first) of
/// every task object in `value` and replaces them with `"T"`.
fn masked(mut value: Value) -> Value {
    fn walk(value: &mut Value) {
        match value {
            Value::Object(obj) => {
                if let (Some(Value::String(created)), Some(Value::String(updated))) =
                    (obj.get("createdAt"), obj.get("lastUpdatedAt"))
                {
                    for stamp in [created, updated] {
                        let b = stamp.as_bytes();
                        assert!(
                            b.len() == 24 && b[4] == b'-' && b[10] == b'T' && b[19] == b'.' && b[23] == b'Z',
                            "{stamp}"
                        );
                    }
                    assert!(created <= updated, "{created} > {updated}");
                    obj.insert("createdAt".into(), json!("T"));
                    obj.insert("lastUpdatedAt".into(), json!("T"));
                }
                obj.values_mut().for_each(walk);
            }
            Value::Array(items) => items.iter_mut().for_each(walk),
            _ => {}
        }
    }
    walk(&mut value);
    value
}

fn error(id: u64, code: i64, message: &str, data: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message, "data": data}})
}

fn missing(id: u64) -> Value {
    error(
        id,
        -32021,
        "Missing required client capability",
        json!({"requiredCapabilities": {"extensions": {TASKS_EXTENSION: {}}}}),
    )
}

fn not_found(id: u64, task: &str) -> Value {
    error(id, -32602, "Failed to retrieve task: Task not found", json!({"taskId": task}))
}

fn text(text: &str) -> Value {
    json!({"content": [{"type": "text", "text": text}]})
}

#[test]
fn timestamps() {
    assert_eq!(iso8601(0, 0), "1970-01-01T00:00:00.000Z");
    assert_eq!(iso8601(951_782_400, 5), "2000-02-29T00:00:00.005Z");
    assert_eq!(iso8601(1_709_251_199, 999), "2024-02-29T23:59:59.999Z");
    assert_eq!(iso8601(1_785_196_800, 0), "2026-07-28T00:00:00.000Z");
    assert_eq!(iso8601(4_102_444_799, 0), "2099-12-31T23:59:59.000Z");
    assert!(masked(json!({"createdAt": timestamp(), "lastUpdatedAt": timestamp()}))["createdAt"] == "T");
}

#[test]
fn modern_task_polled_to_completion() {
    let h = Harness::modern();
    let discover = h.ask(1, "server/discover", modern(false, json!({})));
    assert_eq!(discover["result"]["capabilities"]["extensions"], json!({TASKS_EXTENSION: {}}));
    let list = h.ask(2, "tools/list", modern(true, json!({})));
    let tools = list["result"]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    let at = names.iter().position(|n| *n == "task_echo").unwrap();
    assert_eq!(names[at..at + 6], TOOLS, "{names:?}");
    assert_eq!(names[at + 6], "end_listens");
    assert!(tools.iter().all(|t| t.get("execution").is_none()), "2026-07-28 tools have no execution");

    let args = json!({"message": "hi", "ms": 300, "pollMs": 7});
    let created = masked(h.ask(3, "tools/call", modern(true, call("task_echo", args))));
    let task = json!({"taskId": "task-1", "status": "working", "createdAt": "T", "lastUpdatedAt": "T",
        "ttlMs": 60_000, "pollIntervalMs": 7});
    let mut expected = task.clone();
    expected["resultType"] = json!("task");
    assert_eq!(created, json!({"jsonrpc": "2.0", "id": 3, "result": expected}));
    // At once findable, still working.
    let got = masked(h.ask(4, "tasks/get", modern(true, task_params("task-1"))));
    let mut expected = task.clone();
    expected["resultType"] = json!("complete");
    assert_eq!(got, json!({"jsonrpc": "2.0", "id": 4, "result": expected}));

    let done = masked(h.poll(modern(true, task_params("task-1")), "completed"));
    let mut expected = task;
    expected["status"] = json!("completed");
    expected["resultType"] = json!("complete");
    expected["result"] = text("hi");
    assert_eq!(done, expected);
    // A plain tool stays synchronous with the extension declared.
    let echo = h.ask(5, "tools/call", modern(true, call("echo", json!({"message": "x"}))));
    assert_eq!(echo["result"]["content"], text("x")["content"]);
    assert!(h.take().is_empty());
}

#[test]
fn modern_without_the_extension() {
    let h = Harness::modern();
    let sync = h.ask(1, "tools/call", modern(false, call("task_echo", json!({"message": "now", "ms": 0}))));
    let mut expected = text("now");
    expected["resultType"] = json!("complete");
    assert_eq!(sync, json!({"jsonrpc": "2.0", "id": 1, "result": expected}));
    let failed = h.ask(2, "tools/call", modern(false, call("task_fail", json!({"ms": 0}))));
    assert_eq!(
        failed,
        json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32050, "message": "task failed"}})
    );
    let required = h.ask(3, "tools/call", modern(false, call("task_required", json!({"message": "m"}))));
    assert_eq!(required, missing(3));
    let input = h.ask(4, "tools/call", modern(false, call("task_input", json!({}))));
    assert_eq!(input, missing(4));
    for (id, method) in [(5, "tasks/get"), (6, "tasks/update"), (7, "tasks/cancel")] {
        assert_eq!(h.ask(id, method, modern(false, task_params("task-1"))), missing(id), "{method}");
    }
    assert!(h.server.tasks().list.is_empty(), "no task was created");

    // With it: unknown ids, missing ids, and the legacy-only methods.
    assert_eq!(h.ask(8, "tasks/get", modern(true, task_params("nope"))), not_found(8, "nope"));
    let update = json!({"taskId": "nope", "inputResponses": {}});
    assert_eq!(h.ask(9, "tasks/update", modern(true, update)), not_found(9, "nope"));
    assert_eq!(h.ask(10, "tasks/cancel", modern(true, task_params("nope"))), not_found(10, "nope"));
    let no_id = h.ask(11, "tasks/get", modern(true, json!({})));
    assert_eq!(no_id["error"]["code"], INVALID_PARAMS);
    for (id, method) in [(12, "tasks/list"), (13, "tasks/result")] {
        let answer = h.ask(id, method, modern(true, task_params("task-1")));
        assert_eq!(answer["error"]["code"], METHOD_NOT_FOUND, "{method}");
    }
}

#[test]
fn modern_input_failure_and_cancel() {
    let h = Harness::modern();
    let created = h.ask(1, "tools/call", modern(true, call("task_input", json!({"ms": 0}))));
    assert_eq!(created["result"]["resultType"], "task");
    let waiting = masked(h.poll(modern(true, task_params("task-1")), "input_required"));
    let request = json!({"method": "elicitation/create", "params": elicitation_params()});
    assert_eq!(
        waiting,
        json!({"taskId": "task-1", "status": "input_required", "createdAt": "T", "lastUpdatedAt": "T",
            "ttlMs": 60_000, "pollIntervalMs": 50, "inputRequests": {"name-1": request},
            "resultType": "complete"})
    );
    // Answers to keys never issued are ignored.
    let stray = json!({"taskId": "task-1", "inputResponses": {"name-9": {"action": "accept"}}});
    assert_eq!(h.ask(2, "tasks/update", modern(true, stray))["result"], json!({"resultType": "complete"}));
    h.poll(modern(true, task_params("task-1")), "input_required");
    let answer = json!({"taskId": "task-1",
        "inputResponses": {"name-1": {"action": "accept", "content": {"name": "Ada"}}}});
    assert_eq!(
        h.ask(3, "tasks/update", modern(true, answer)),
        json!({"jsonrpc": "2.0", "id": 3, "result": {"resultType": "complete"}})
    );
    let done = h.poll(modern(true, task_params("task-1")), "completed");
    assert_eq!(done["result"], text("Hello, Ada!"));
    assert!(done.get("inputRequests").is_none());

    h.ask(4, "tools/call", modern(true, call("task_fail", json!({"ms": 0}))));
    let failed = masked(h.poll(modern(true, task_params("task-2")), "failed"));
    assert_eq!(
        failed,
        json!({"taskId": "task-2", "status": "failed", "createdAt": "T", "lastUpdatedAt": "T",
            "ttlMs": 60_000, "pollIntervalMs": 50, "statusMessage": "Tool execution failed: task failed",
            "error": {"code": -32050, "message": "task failed"}, "resultType": "complete"})
    );

    h.ask(5, "tools/call", modern(true, call("task_slow", json!({}))));
    h.poll(modern(true, task_params("task-3")), "working");
    let ack = h.ask(6, "tasks/cancel", modern(true, task_params("task-3")));
    assert_eq!(ack, json!({"jsonrpc": "2.0", "id": 6, "result": {"resultType": "complete"}}));
    let cancelled = h.poll(modern(true, task_params("task-3")), "cancelled");
    assert_eq!(cancelled["statusMessage"], "The task was cancelled by request.");
    assert!(cancelled.get("result").is_none() && cancelled.get("error").is_none());
    // Cancelling again, or a task that is over, is acknowledged and changes nothing.
    assert_eq!(
        h.ask(7, "tasks/cancel", modern(true, task_params("task-3")))["result"]["resultType"],
        "complete"
    );
    assert_eq!(
        h.ask(8, "tasks/cancel", modern(true, task_params("task-1")))["result"]["resultType"],
        "complete"
    );
    h.poll(modern(true, task_params("task-1")), "completed");
    h.poll(modern(true, task_params("task-3")), "cancelled");

    // Cancelled while waiting for input: the input request goes away.
    h.ask(9, "tools/call", modern(true, call("task_input", json!({"ms": 0}))));
    h.poll(modern(true, task_params("task-4")), "input_required");
    h.ask(10, "tasks/cancel", modern(true, task_params("task-4")));
    let cancelled = h.poll(modern(true, task_params("task-4")), "cancelled");
    assert!(cancelled.get("inputRequests").is_none());
    assert!(h.take().is_empty());
}

#[test]
fn modern_notifications_go_to_listens_naming_the_task() {
    let h = Harness::modern();
    let created =
        h.ask(1, "tools/call", modern(true, call("task_notify", json!({"message": "n", "ms": 300}))));
    assert_eq!(created["result"]["taskId"], "task-1");
    h.ask(2, "tools/call", modern(true, call("task_echo", json!({"message": "quiet", "ms": 0}))));
    let listen = |id: u64, ext: bool, notifications: Value| {
        h.send(json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen",
            "params": modern(ext, json!({"notifications": notifications}))}));
    };
    listen(10, false, json!({"taskIds": ["task-1"]}));
    assert_eq!(h.wait(1), [missing(10)]);
    listen(11, true, json!({"taskIds": ["task-1", "nope", "task-1", "task-2"]}));
    listen(12, true, json!({"toolsListChanged": true}));
    let acks = h.wait(2);
    assert_eq!(acks[0]["params"]["notifications"], json!({"taskIds": ["task-1", "task-2"]}));
    assert_eq!(acks[1]["params"]["notifications"], json!({"toolsListChanged": true}));

    let pushed = masked(h.wait(1).remove(0));
    assert_eq!(
        pushed,
        json!({"jsonrpc": "2.0", "method": "notifications/tasks", "params": {
            "taskId": "task-1", "status": "completed", "createdAt": "T", "lastUpdatedAt": "T",
            "ttlMs": 60_000, "pollIntervalMs": 50, "result": text("n"),
            "_meta": {META_SUBSCRIPTION_ID: 11}}})
    );
    thread::sleep(Duration::from_millis(50));
    assert!(h.take().is_empty(), "task-2 does not notify");
}

#[test]
fn legacy_task_polled_and_result_blocks() {
    let h = Harness::legacy(Config { protocol: LEGACY, ..Config::default() });
    let list = h.ask(1, "tools/list", json!({}));
    let tools = list["result"]["tools"].as_array().unwrap();
    let support = |name: &str| {
        let tool = tools.iter().find(|t| t["name"] == name).unwrap();
        tool.get("execution").map(|e| e["taskSupport"].clone())
    };
    assert_eq!(support("echo"), None);
    for (name, expected) in [
        ("task_echo", "optional"),
        ("task_required", "required"),
        ("task_input", "required"),
        ("task_fail", "optional"),
        ("task_slow", "optional"),
        ("task_notify", "optional"),
    ] {
        assert_eq!(support(name), Some(json!(expected)), "{name}");
    }

    let mut params = call("task_echo", json!({"message": "later", "ms": 400}));
    params["task"] = json!({"ttl": 5000});
    let created = masked(h.ask(2, "tools/call", params));
    let task = json!({"taskId": "task-1", "status": "working", "createdAt": "T", "lastUpdatedAt": "T",
        "ttl": 5000, "pollInterval": 50});
    assert_eq!(created, json!({"jsonrpc": "2.0", "id": 2, "result": {"task": task}}));
    assert_eq!(masked(h.ask(3, "tasks/get", task_params("task-1")))["result"], task);
    h.send(json!({"jsonrpc": "2.0", "id": 4, "method": "tasks/result", "params": task_params("task-1")}));
    thread::sleep(Duration::from_millis(30));
    assert!(h.take().is_empty(), "tasks/result waits for the end");
    let mut result = text("later");
    result["_meta"] = json!({META_RELATED_TASK: {"taskId": "task-1"}});
    assert_eq!(h.wait(1), [json!({"jsonrpc": "2.0", "id": 4, "result": result})]);
    let mut done = task;
    done["status"] = json!("completed");
    assert_eq!(masked(h.ask(5, "tasks/get", task_params("task-1")))["result"], done, "no result inlined");
    // Once over, tasks/result answers at once.
    assert_eq!(h.ask(6, "tasks/result", task_params("task-1"))["result"], result);
    assert_eq!(h.ask(7, "tasks/result", task_params("nope")), not_found(7, "nope"));
    assert_eq!(h.ask(8, "tasks/get", task_params("nope")), not_found(8, "nope"));
    assert_eq!(h.ask(9, "tasks/update", task_params("task-1"))["error"]["code"], METHOD_NOT_FOUND);
}

#[test]
fn legacy_input_failure_cancel_and_list() {
    let h = Harness::legacy(Config { protocol: LEGACY, page_size: 2, ..Config::default() });
    let task_call = |id: u64, name: &str, arguments: Value| {
        let mut params = call(name, arguments);
        params["task"] = json!({});
        let created = h.ask(id, "tools/call", params);
        assert_eq!(created["result"]["task"]["status"], "working", "{created}");
        created["result"]["task"]["taskId"].as_str().unwrap().to_string()
    };
    // The worker starts once the task is created: its request comes second.
    let mut params = call("task_input", json!({"ms": 0}));
    params["task"] = json!({});
    h.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}));
    let lines = h.wait(2);
    assert_eq!(lines[0]["result"]["task"]["taskId"], "task-1");
    let mut params = elicitation_params();
    params["_meta"] = json!({META_RELATED_TASK: {"taskId": "task-1"}});
    assert_eq!(
        lines[1],
        json!({"jsonrpc": "2.0", "id": "srv-1", "method": "elicitation/create", "params": params})
    );
    assert_eq!(h.ask(2, "tasks/get", task_params("task-1"))["result"]["status"], "input_required");
    h.send(json!({"jsonrpc": "2.0", "id": "srv-1",
        "result": {"action": "accept", "content": {"name": "Bob"}}}));
    let greeting = h.ask(3, "tasks/result", task_params("task-1"));
    assert_eq!(greeting["result"]["content"], text("Hello, Bob!")["content"]);
    assert_eq!(h.ask(4, "tasks/get", task_params("task-1"))["result"]["status"], "completed");

    assert_eq!(task_call(5, "task_fail", json!({"ms": 0})), "task-2");
    let failed = h.ask(6, "tasks/result", task_params("task-2"));
    assert_eq!(
        failed,
        json!({"jsonrpc": "2.0", "id": 6, "error": {"code": -32050, "message": "task failed"}})
    );
    let got = h.ask(7, "tasks/get", task_params("task-2"));
    assert_eq!(
        (&got["result"]["status"], &got["result"]["statusMessage"]),
        (&json!("failed"), &json!("Tool execution failed: task failed"))
    );

    assert_eq!(task_call(8, "task_slow", json!({})), "task-3");
    let cancelled = masked(h.ask(9, "tasks/cancel", task_params("task-3")));
    assert_eq!(
        cancelled["result"],
        json!({"taskId": "task-3", "status": "cancelled", "createdAt": "T", "lastUpdatedAt": "T",
            "ttl": 60_000, "pollInterval": 50, "statusMessage": "The task was cancelled by request."})
    );
    let again = h.ask(10, "tasks/cancel", task_params("task-3"));
    assert_eq!(
        again,
        error(
            10,
            -32602,
            "Cannot cancel task: already in terminal status 'cancelled'",
            json!({"taskId": "task-3"})
        )
    );
    let result = h.ask(11, "tasks/result", task_params("task-3"));
    assert_eq!(result["error"]["data"], json!({"taskId": "task-3", "status": "cancelled"}));
    assert_eq!(h.ask(12, "tasks/cancel", task_params("task-1"))["error"]["code"], -32602);

    let page = masked(h.ask(13, "tasks/list", json!({})));
    let ids: Vec<&Value> = page["result"]["tasks"].as_array().unwrap().iter().map(|t| &t["taskId"]).collect();
    assert_eq!(ids, [&json!("task-1"), &json!("task-2")]);
    assert_eq!(page["result"]["nextCursor"], "page-2");
    assert_eq!(page["result"]["tasks"][0]["ttl"], 60_000);
    let page = h.ask(14, "tasks/list", json!({"cursor": "page-2"}));
    assert_eq!(page["result"]["tasks"][0]["taskId"], "task-3");
    assert!(page["result"].get("nextCursor").is_none());
    assert_eq!(h.ask(15, "tasks/list", json!({"cursor": "page-3"}))["error"]["code"], -32602);
    assert!(h.take().is_empty());
}

#[test]
fn legacy_refusals_notifications_and_cancelled_result_waits() {
    let h = Harness::legacy(Config { protocol: LEGACY, ..Config::default() });
    let required = h.ask(1, "tools/call", call("task_required", json!({"message": "m"})));
    assert_eq!(
        required,
        error(
            1,
            -32601,
            "Task augmentation required",
            json!({"tool": "task_required", "taskSupport": "required"})
        )
    );
    let mut params = call("echo", json!({"message": "m"}));
    params["task"] = json!({});
    assert_eq!(
        h.ask(2, "tools/call", params),
        error(
            2,
            -32601,
            "Tool echo does not support task-augmented execution",
            json!({"tool": "echo", "taskSupport": "forbidden"})
        )
    );
    let sync = h.ask(3, "tools/call", call("task_echo", json!({"message": "now", "ms": 0})));
    assert_eq!(sync, json!({"jsonrpc": "2.0", "id": 3, "result": text("now")}));

    let mut params = call("task_notify", json!({"ms": 20}));
    params["task"] = json!({"ttl": 1000});
    h.send(json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": params}));
    let lines = h.wait(2);
    assert_eq!(lines[0]["result"]["task"]["taskId"], "task-1");
    assert_eq!(
        masked(lines[1].clone()),
        json!({"jsonrpc": "2.0", "method": "notifications/tasks/status", "params": {
            "taskId": "task-1", "status": "completed", "createdAt": "T", "lastUpdatedAt": "T",
            "ttl": 1000, "pollInterval": 50}})
    );

    // A tasks/result cancelled by the client is never answered.
    let mut params = call("task_slow", json!({}));
    params["task"] = json!({});
    h.ask(5, "tools/call", params);
    h.send(json!({"jsonrpc": "2.0", "id": 6, "method": "tasks/result", "params": task_params("task-2")}));
    h.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 6}}));
    thread::sleep(Duration::from_millis(50));
    assert!(h.take().is_empty());
    assert_eq!(h.ask(7, "tasks/cancel", task_params("task-2"))["result"]["status"], "cancelled");
    thread::sleep(Duration::from_millis(50));
    assert!(h.take().is_empty(), "a task_slow cancelled does not notify");
}

#[test]
fn revisions_and_flags_without_tasks() {
    // 2025-06-18 has no tasks: no capability, no execution, `task` ignored.
    for cfg in [
        Config { protocol: ProtocolMode::Legacy("2025-06-18"), ..Config::default() },
        Config { protocol: LEGACY, no_tasks: true, ..Config::default() },
    ] {
        let h = Harness::new(cfg);
        let version = match h.server.cfg.protocol {
            ProtocolMode::Legacy(version) => version,
            _ => unreachable!(),
        };
        let init = h.ask(
            0,
            "initialize",
            json!({"protocolVersion": version, "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}),
        );
        assert!(init["result"]["capabilities"].get("tasks").is_none(), "{init}");
        let list = h.ask(1, "tools/list", json!({}));
        assert!(list["result"]["tools"].as_array().unwrap().iter().all(|t| t.get("execution").is_none()));
        let mut params = call("task_echo", json!({"message": "sync", "ms": 0}));
        params["task"] = json!({"ttl": 10});
        assert_eq!(h.ask(2, "tools/call", params)["result"], text("sync"), "{version}");
        let mut params = call("task_required", json!({"message": "m"}));
        params["task"] = json!({});
        let refused = h.ask(3, "tools/call", params);
        assert_eq!(refused["error"]["code"], METHOD_NOT_FOUND, "{refused}");
        for (id, method) in [(4, "tasks/get"), (5, "tasks/list"), (6, "tasks/result"), (7, "tasks/cancel")] {
            assert_eq!(
                h.ask(id, method, task_params("task-1"))["error"]["code"],
                METHOD_NOT_FOUND,
                "{method}"
            );
        }
    }

    let h = Harness::new(Config { protocol: ProtocolMode::Modern, no_tasks: true, ..Config::default() });
    let discover = h.ask(1, "server/discover", modern(true, json!({})));
    assert!(discover["result"]["capabilities"].get("extensions").is_none(), "{discover}");
    let sync = h.ask(2, "tools/call", modern(true, call("task_echo", json!({"message": "s", "ms": 0}))));
    assert_eq!(sync["result"]["content"], text("s")["content"]);
    assert_eq!(sync["result"]["resultType"], "complete");
    let refused = h.ask(3, "tools/call", modern(true, call("task_required", json!({"message": "m"}))));
    assert_eq!(refused["error"]["code"], METHOD_NOT_FOUND);
    assert_eq!(h.ask(4, "tasks/get", modern(true, task_params("task-1")))["error"]["code"], METHOD_NOT_FOUND);
    // `taskIds` is an unknown key then: ignored, not refused.
    h.send(json!({"jsonrpc": "2.0", "id": 5, "method": "subscriptions/listen",
        "params": modern(false, json!({"notifications": {"taskIds": ["task-1"]}}))}));
    assert_eq!(h.wait(1)[0]["params"]["notifications"], json!({}));
}
