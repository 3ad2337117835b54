//! Tasks in the op list: the host's task requests, the server's task answers (both revisions'
//! shapes), status notifications and malformed answers; checked here: when the client may poll,
//! cancel or deliver a task result.

use super::*;

impl World {
    /// One task action: the host's task requests, the server's task answers and notifications,
    /// malformed answers, a cancel mid-task.
    pub(super) fn task_op(&mut self, r: &mut Reader<'_>) {
        match r.pick(8) {
            0 => self.task_request(r),
            1 => self.task_create(r),
            2 | 3 => self.task_status(r),
            4 => self.task_notification(r),
            5 => self.task_reply(r),
            6 => self.task_cancel(r),
            _ => self.task_malformed(r),
        }
    }

    /// The host calls a task tool, starts a call as a task, waits for a task, looks at one,
    /// cancels one, or lists them.
    pub(super) fn task_request(&mut self, r: &mut Reader<'_>) {
        let id = TASK_IDS[r.pick(TASK_IDS.len())].to_owned();
        let (request, kind) = match r.pick(6) {
            0 => (Request::CallToolAsTask { name: "job".into(), arguments: json!({}) }, TaskReq::AsTask),
            1 => {
                let tool = (r.pick(2) == 0).then(|| "echo".to_owned());
                (Request::TaskResult { task_id: id.clone(), tool }, TaskReq::Wait(id.clone()))
            }
            2 => (Request::GetTask { task_id: id.clone() }, TaskReq::Get(id.clone())),
            3 => (Request::CancelTask { task_id: id }, TaskReq::Other),
            4 => (Request::ListTasks, TaskReq::Other),
            _ => (Request::call_tool("job", json!({"x": r.pick(100)})), TaskReq::Call),
        };
        let opts = RequestOptions {
            timeout: Some(Duration::from_millis([100u64, 2_000, 30_000][r.pick(3)])),
            ..RequestOptions::default()
        };
        self.note(|| format!("host: {request:?}"));
        match self.conn.request(self.now, request, opts) {
            Ok(h) => {
                assert!(!self.closed, "a request after close must fail");
                self.issued.push(h);
                if let TaskReq::Wait(t) | TaskReq::Get(t) = &kind {
                    self.tasks.shared.insert(t.clone());
                }
                self.tasks.handles.insert(h, kind);
            }
            Err(CommandError::Closed) => assert!(self.closed, "refused as closed while open"),
            Err(_) => {}
        }
    }

    /// A request the client sent with one of `methods`, the newest first (byte 0: the newest).
    pub(super) fn recent(&self, r: &mut Reader<'_>, methods: &[&str]) -> Option<Sent> {
        let found: Vec<&Sent> =
            self.sent.iter().rev().filter(|s| methods.contains(&s.method.as_str())).collect();
        pick(r, &found).map(|s| (*s).clone())
    }

    /// A task as the server shows it, in either revision's shape, with a status of any kind.
    pub(super) fn task_value(&mut self, r: &mut Reader<'_>, id: &str, legacy: bool) -> Value {
        let status = ["working", "working", "input_required", "completed", "failed", "cancelled"][r.pick(6)];
        let (ttl, poll) = if legacy { ("ttl", "pollInterval") } else { ("ttlMs", "pollIntervalMs") };
        let mut v = json!({"taskId": id, "status": status, "createdAt": "2026-12-04T10:00:00Z",
            "lastUpdatedAt": "2026-12-04T10:00:01Z"});
        if let Some(p) = PACES[r.pick(PACES.len())] {
            v[poll] = json!(p);
        }
        v[ttl] = [Value::Null, json!(150), json!(60_000)][r.pick(3)].clone();
        match status {
            "input_required" if !legacy => {
                let key = format!("k{}", r.pick(3));
                let request = match r.pick(3) {
                    0 | 1 => json!({"method": "elicitation/create", "params": {"message": "?",
                        "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}}}}),
                    _ => json!({"method": "roots/list", "params": {}}),
                };
                v["inputRequests"] = json!({ key: request });
            }
            "completed" if !legacy => {
                self.tasks.next_result += 1;
                let text = format!("task-result-{}", self.tasks.next_result);
                v["result"] = json!({"content": [{"type": "text", "text": text}]});
            }
            "failed" if !legacy => v["error"] = json!({"code": -32050, "message": "failed"}),
            "cancelled" => v["statusMessage"] = json!("stopped"),
            _ => {}
        }
        v
    }

    /// Whether the server speaks 2025-11-25 (its task shapes); sometimes the other shape.
    pub(super) fn legacy_shape(&self, r: &mut Reader<'_>) -> bool {
        let legacy = self.conn.era() == Some(crate::Era::Legacy);
        legacy != (r.pick(4) == 0)
    }

    /// The server answers a `tools/call` with a task.
    pub(super) fn task_create(&mut self, r: &mut Reader<'_>) {
        let Some(sent) = self.recent(r, &["tools/call"]) else { return };
        let id = TASK_IDS[r.pick(TASK_IDS.len())];
        let legacy = self.legacy_shape(r);
        let mut task = self.task_value(r, id, legacy);
        if task["status"] != "input_required" && r.pick(2) == 0 {
            task["status"] = json!("working");
        }
        *self.tasks.created.entry(id.to_owned()).or_default() += 1;
        self.took(None, &task, false);
        let result = if legacy {
            json!({ "task": task })
        } else {
            task["resultType"] = json!("task");
            task
        };
        self.tasks.answered.insert(sent.id.to_string());
        self.note(|| format!("server: task {id} created for request {}", sent.id));
        let message = json!({"jsonrpc": "2.0", "id": sent.id, "result": result});
        self.deliver(r, message, sent.exchange);
    }

    /// The server answers a `tasks/get` (sometimes naming another task).
    pub(super) fn task_status(&mut self, r: &mut Reader<'_>) {
        let Some(sent) = self.recent(r, &["tasks/get"]) else { return };
        let id = match (r.pick(8), &sent.task) {
            (0, _) | (_, None) => TASK_IDS[r.pick(TASK_IDS.len())].to_owned(),
            (_, Some(t)) => t.clone(),
        };
        let legacy = self.legacy_shape(r);
        let mut task = self.task_value(r, &id, legacy);
        self.took(Some(&sent), &task, false);
        if !legacy {
            task["resultType"] = json!("complete");
        }
        self.note(|| format!("server: status {} of {id} for request {}", task["status"], sent.id));
        let message = json!({"jsonrpc": "2.0", "id": sent.id, "result": task});
        self.deliver(r, message, sent.exchange);
    }

    /// The server pushes a task's status.
    pub(super) fn task_notification(&mut self, r: &mut Reader<'_>) {
        let id = TASK_IDS[r.pick(TASK_IDS.len())];
        let legacy = self.legacy_shape(r);
        let task = self.task_value(r, id, legacy);
        self.took(None, &task, true);
        let method = if legacy { "notifications/tasks/status" } else { "notifications/tasks" };
        self.note(|| format!("server: {method} {} of {id}", task["status"]));
        let exchange = self.recent(r, &["tasks/get", "tools/call"]).and_then(|s| s.exchange);
        let message = json!({"jsonrpc": "2.0", "method": method, "params": task});
        self.deliver(r, message, exchange);
    }

    /// The server answers a `tasks/update`, `tasks/result`, `tasks/cancel` or `tasks/list`.
    pub(super) fn task_reply(&mut self, r: &mut Reader<'_>) {
        let Some(sent) = self.recent(r, &["tasks/update", "tasks/result", "tasks/cancel", "tasks/list"])
        else {
            return;
        };
        self.task_answered(&sent);
        let id = sent.task.clone().unwrap_or_default();
        let result = match sent.method.as_str() {
            "tasks/result" => {
                self.tasks.next_result += 1;
                let text = format!("task-result-{}", self.tasks.next_result);
                self.tasks.results.insert(text.clone());
                json!({"content": [{"type": "text", "text": text}],
                    "_meta": {"io.modelcontextprotocol/related-task": {"taskId": id}}})
            }
            "tasks/cancel" if r.pick(2) == 0 => {
                self.tasks.cancelled.insert(id.clone());
                json!({"taskId": id, "status": "cancelled", "ttl": null})
            }
            "tasks/list" => {
                let tasks: Vec<Value> =
                    (0..r.pick(3)).map(|k| json!({"taskId": TASK_IDS[k], "status": "working"})).collect();
                let mut page = json!({ "tasks": tasks });
                if r.pick(2) == 0 {
                    page["nextCursor"] = json!(format!("c{}", r.pick(3)));
                }
                page
            }
            _ => json!({"resultType": "complete"}),
        };
        self.note(|| format!("server: answers {} {}", sent.method, sent.id));
        let message = json!({"jsonrpc": "2.0", "id": sent.id, "result": result});
        self.deliver(r, message, sent.exchange);
    }

    /// The host cancels a call that polls a task (or any live call or wait).
    pub(super) fn task_cancel(&mut self, r: &mut Reader<'_>) {
        let live: Vec<RequestHandle> = self
            .tasks
            .handles
            .iter()
            .filter(|(h, k)| !self.outcomes.contains_key(h) && matches!(k, TaskReq::Call | TaskReq::Wait(_)))
            .map(|(h, _)| *h)
            .collect();
        let bound: Vec<RequestHandle> =
            live.iter().filter(|h| self.tasks.bound.contains_key(h)).copied().collect();
        let choices = if bound.is_empty() { &live } else { &bound };
        let Some(&h) = pick(r, choices) else { return };
        let task = self.tasks.bound.get(&h).cloned();
        self.note(|| format!("host: cancels {h:?} (task {task:?})"));
        assert!(self.conn.cancel(self.now, h), "cancel of live {h:?} did nothing");
        self.drain();
        assert_eq!(self.cancelled.get(&h), Some(&true), "a cancelled call ends as Cancelled at once");
    }

    /// A malformed task answer to a `tools/call` or a `tasks/get`.
    pub(super) fn task_malformed(&mut self, r: &mut Reader<'_>) {
        let Some(sent) = self.recent(r, &["tools/call", "tasks/get", "resources/read"]) else { return };
        let id = sent.task.clone().unwrap_or_else(|| TASK_IDS[0].to_owned());
        let result = match r.pick(12) {
            0 => json!({"resultType": "task", "status": "working"}),
            1 => json!({"resultType": "task", "taskId": "", "status": "working"}),
            2 => json!({"resultType": "task", "taskId": 7, "status": "working"}),
            3 => json!({"resultType": "task", "taskId": "x".repeat(600), "status": "working"}),
            4 => json!({"task": "nope"}),
            5 => json!({"resultType": "complete", "taskId": id, "status": "completed"}),
            6 => json!({"resultType": "complete", "taskId": id, "status": "failed"}),
            7 => json!({"resultType": "complete", "taskId": id, "status": "on_vacation"}),
            8 => json!({"resultType": "complete", "taskId": id}),
            9 => {
                json!({"resultType": "complete", "taskId": id, "status": "input_required", "inputRequests": 5})
            }
            10 => json!({"resultType": "complete", "taskId": id, "status": "input_required",
                "inputRequests": {"k": {"method": "bogus/method"}}}),
            _ => json!({"resultType": "complete", "taskId": id, "status": "completed",
                "result": {"resultType": "task", "taskId": "F-t9"}}),
        };
        self.took(Some(&sent), &result, false);
        self.tasks.answered.insert(sent.id.to_string());
        self.note(|| format!("server: malformed task answer to {} {}", sent.method, sent.id));
        let message = json!({"jsonrpc": "2.0", "id": sent.id, "result": result});
        self.deliver(r, message, sent.exchange);
    }

    /// What a task answer or notification the server sends tells the client, for the
    /// invariants: the pace of the task a `tasks/get` (`sent`) polls (its first answer only),
    /// lifetimes, cancellations, final statuses and results.
    pub(super) fn took(&mut self, sent: Option<&Sent>, task: &Value, notification: bool) {
        if sent.is_some_and(|s| s.refused) {
            return;
        }
        let t = &mut self.tasks;
        let status = task.get("status").and_then(Value::as_str).unwrap_or("");
        let named = task.get("taskId").and_then(Value::as_str).map(str::to_owned);
        let polled = sent.filter(|s| s.method == "tasks/get").and_then(|s| s.task.clone());
        for id in named.iter().chain(&polled) {
            if task.get("ttlMs").or_else(|| task.get("ttl")).is_some_and(|v| !v.is_null()) {
                t.with_ttl.insert(id.clone());
            }
            match status {
                "cancelled" => {
                    t.cancelled.insert(id.clone());
                    t.terminal.insert(id.clone());
                }
                "completed" | "failed" => {
                    t.terminal.insert(id.clone());
                }
                _ => {}
            }
        }
        if let Some(text) = task.pointer("/result/content/0/text").and_then(Value::as_str) {
            t.results.insert(text.to_owned());
        }
        let pace = task.get("pollIntervalMs").or_else(|| task.get("pollInterval")).and_then(Value::as_u64);
        let due = self.now + clamp_pace(pace);
        if notification {
            // The client may wait afresh from here (or not): only the earlier bound holds.
            if let (Some(id), "input_required") = (&named, status) {
                if let Some(nb) = t.not_before.get_mut(id) {
                    *nb = (*nb).min(due);
                }
            }
            return;
        }
        let Some((sent, polled)) = sent.zip(polled) else { return };
        if !t.answered.insert(sent.id.to_string()) {
            return;
        }
        if matches!(status, "working" | "input_required") {
            t.not_before.insert(polled, due);
        } else {
            t.not_before.remove(&polled);
        }
    }

    /// Any answer to a task message: an update's acknowledgment lets the next poll go at once;
    /// a `tasks/result` answer ends the wait.
    pub(super) fn task_answered(&mut self, sent: &Sent) {
        let Some(task) = sent.task.clone() else { return };
        match sent.method.as_str() {
            "tasks/update" => {
                self.tasks.not_before.remove(&task);
            }
            "tasks/result" => {
                self.tasks.terminal.insert(task);
            }
            _ => {}
        }
    }

    /// The invariants on a task message the client sent.
    pub(super) fn task_message(&mut self, method: &str, task: &str) {
        let t = &mut self.tasks;
        if method == "tasks/cancel" {
            t.cancels.insert(task.to_owned());
            return;
        }
        if !matches!(method, "tasks/get" | "tasks/update" | "tasks/result") {
            return;
        }
        let get = method == "tasks/get";
        let live = |h: &RequestHandle| !self.outcomes.contains_key(h);
        let calls: Vec<RequestHandle> =
            t.handles.iter().filter(|(h, k)| **k == TaskReq::Call && live(h)).map(|(h, _)| *h).collect();
        let others = t
            .handles
            .iter()
            .filter(|(h, k)| {
                live(h)
                    && match k {
                        TaskReq::Wait(x) => x == task,
                        TaskReq::Get(x) => get && x == task,
                        _ => false,
                    }
            })
            .count();
        assert!(
            !calls.is_empty() || others > 0,
            "{method} for task {task} while no call, wait or look that may send it is live"
        );
        if !get {
            return;
        }
        if !t.shared.contains(task) {
            if let Some(nb) = t.not_before.get(task) {
                assert!(
                    self.now >= *nb,
                    "tasks/get for {task} {:?} before its pace allows",
                    nb.saturating_duration_since(self.now)
                );
            }
        }
        if let ([only], 0) = (calls.as_slice(), others) {
            t.bound.insert(*only, task.to_owned());
        }
        // A call has one poll out at a time: an earlier poll of this task not answered yet was
        // given up (its stream broke and it was re-issued, or its wire id was dropped), so a
        // late answer to it reaches no one and sets no pace.
        for s in self.sent.iter().filter(|s| s.method == "tasks/get" && s.task.as_deref() == Some(task)) {
            t.answered.insert(s.id.to_string());
        }
    }

    /// The invariants on how a task handle (or a call) ends.
    pub(super) fn task_outcome(&mut self, h: RequestHandle, result: &Result<Response, RequestError>) {
        let t = &self.tasks;
        match result {
            Err(RequestError::Task { task_id, detail }) => assert!(
                t.cancelled.contains(task_id)
                    || t.with_ttl.contains(task_id)
                    || t.created.get(task_id).is_some_and(|n| *n > 1),
                "RequestError::Task for {task_id} ({detail}), which no answer cancelled, gave a lifetime or reused"
            ),
            Ok(Response::ToolResult(r)) if r.text().starts_with("task-result-") => {
                assert!(t.results.contains(&r.text()), "a task result the server never sent: {:?}", r.text());
            }
            Err(RequestError::Cancelled | RequestError::Timeout { .. }) => {
                if let Some(task) = t.bound.get(&h).filter(|task| !t.terminal.contains(*task)) {
                    if self.conn.server_info().is_some() {
                        assert!(
                            t.cancels.contains(task),
                            "{h:?} ended with {result:?} while polling task {task}, and no tasks/cancel went out"
                        );
                    }
                }
            }
            _ => {}
        }
    }
}
