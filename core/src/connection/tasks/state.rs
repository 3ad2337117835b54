//! The state of one call turned into a task, and what each status the server reports means
//! for it: poll again (now or later), ask the host for input, or end the call. The connection
//! ([`super`]) sends the messages and acts on the [`TaskStep`] this returns.

use std::collections::{BTreeSet, VecDeque};
use std::time::{Duration, Instant};

use serde_json::{Map, Value};

use crate::error::{RequestError, RpcError};

/// The shortest wait between polls, whatever the server asks.
const MIN_POLL: Duration = Duration::from_millis(10);
/// The longest wait between polls, whatever the server asks.
const MAX_POLL: Duration = Duration::from_secs(30);
/// The wait between polls when the server gives no `pollIntervalMs`.
const DEFAULT_POLL: Duration = Duration::from_secs(1);
/// A task id longer than this is refused (a hostile server's memory, and a header value).
pub(super) const MAX_TASK_ID: usize = 512;
/// Task ids remembered to catch a server reusing one for a new task.
const REMEMBERED_TASK_IDS: usize = 4096;

/// A call that turned into a task.
#[derive(Debug)]
pub(in crate::connection) struct TaskState {
    /// The server's id for it.
    pub(in crate::connection) id: String,
    poll: Duration,
    /// When the server may have discarded it (`ttlMs` after it was created), if it said.
    expires: Option<Instant>,
    /// `inputRequests` keys already answered: a later poll repeating one is not asked again.
    answered: BTreeSet<String>,
    /// The method of the message in flight (`tasks/get`, `tasks/update`, `tasks/result`).
    pub(in crate::connection) sent_method: &'static str,
    /// 2025-11-25: fields are `ttl` / `pollInterval`, and the result comes from `tasks/result`.
    pub(in crate::connection) legacy: bool,
    /// 2025-11-25: the next message is `tasks/result`.
    fetch_result: bool,
    /// The answers of a `tasks/update` not acknowledged yet (sent again if its exchange breaks).
    pending_update: Option<Map<String, Value>>,
}

/// What a task's status means for its call.
#[derive(Debug, PartialEq)]
pub(super) enum TaskStep {
    /// Send the next message now (2025-11-25: `tasks/result` fetches the outcome).
    PollNow,
    /// Poll again after the task's interval.
    PollLater,
    /// `input_required` (2026-07-28): the host answers its `inputRequests`.
    Input,
    /// Completed: this is the call's result.
    Completed(Value),
    /// The call ends with this error (failed, cancelled, or a status that makes no sense).
    Failed(RequestError),
}

/// When a task is polled next.
#[derive(Debug, PartialEq)]
pub(super) enum NextPoll {
    /// At once: answers are waiting to go out in `tasks/update`.
    Now,
    /// At this instant.
    At(Instant),
    /// Never: the task outlived its lifetime and the call fails with this.
    Expired(RequestError),
}

fn invalid(detail: impl Into<String>) -> RequestError {
    RequestError::InvalidResponse { detail: detail.into() }
}

/// The poll interval a task announces, within bounds.
fn poll_interval(task: &Value) -> Duration {
    match task.get("pollIntervalMs").or_else(|| task.get("pollInterval")).and_then(Value::as_u64) {
        Some(ms) => Duration::from_millis(ms).clamp(MIN_POLL, MAX_POLL),
        None => DEFAULT_POLL,
    }
}

impl TaskState {
    /// A task the server just created (`task` is the task object; `legacy`: 2025-11-25).
    pub(super) fn created(id: String, task: &Value, legacy: bool, now: Instant) -> Self {
        let expires = task
            .get(if legacy { "ttl" } else { "ttlMs" })
            .and_then(Value::as_u64)
            .and_then(|ms| now.checked_add(Duration::from_millis(ms)));
        Self { poll: poll_interval(task), expires, ..Self::waited_for(id, legacy) }
    }

    /// A task the host asked the result of (`Request::TaskResult`): polled at the default pace.
    pub(super) fn waited_for(id: String, legacy: bool) -> Self {
        Self {
            id,
            poll: DEFAULT_POLL,
            expires: None,
            answered: BTreeSet::new(),
            sent_method: "tasks/get",
            legacy,
            fetch_result: false,
            pending_update: None,
        }
    }

    /// What the task's latest status (`task`, the task object) means for the call.
    pub(super) fn on_status(&mut self, task: &Value) -> TaskStep {
        self.poll = poll_interval(task);
        let status = task.get("status").and_then(Value::as_str);
        if self.legacy && matches!(status, Some("completed" | "failed" | "input_required")) {
            // The result (or the input the server asks for, with requests of its own while
            // tasks/result waits) comes through tasks/result.
            self.fetch_result = true;
            return TaskStep::PollNow;
        }
        let id = &self.id;
        match status {
            Some("working") => TaskStep::PollLater,
            Some("input_required") => TaskStep::Input,
            Some("completed") => match task.get("result") {
                Some(result @ Value::Object(_))
                    if result.get("resultType").and_then(Value::as_str) != Some("task") =>
                {
                    TaskStep::Completed(result.clone())
                }
                _ => TaskStep::Failed(invalid(format!("task {id} completed without a result object"))),
            },
            Some("failed") => {
                let err = task.get("error").cloned().unwrap_or(Value::Null);
                let rpc = RpcError {
                    code: err.get("code").and_then(Value::as_i64).unwrap_or(-32603),
                    message: err
                        .get("message")
                        .and_then(Value::as_str)
                        .map_or_else(|| "the task failed".to_owned(), |m| crate::text::sanitize(m, 500)),
                    data: err.get("data").cloned(),
                };
                TaskStep::Failed(RequestError::Rpc(rpc))
            }
            Some("cancelled") => {
                let why =
                    task.get("statusMessage").and_then(Value::as_str).map(|m| crate::text::sanitize(m, 300));
                let detail = why.unwrap_or_else(|| "the server cancelled it".into());
                TaskStep::Failed(RequestError::Task { task_id: id.clone(), detail })
            }
            other => {
                let status = other.map_or_else(|| "none".to_owned(), |s| crate::text::sanitize(s, 50));
                TaskStep::Failed(invalid(format!("task {id} has an unknown status {status}")))
            }
        }
    }

    /// When to poll next, at `now`; `answers_waiting` when an input round has answers to send.
    pub(super) fn next_poll(&self, now: Instant, answers_waiting: bool) -> NextPoll {
        if self.pending_update.is_some() || answers_waiting {
            return NextPoll::Now;
        }
        if self.expires.is_some_and(|at| at <= now) {
            let detail = "its ttlMs passed without a final status".to_owned();
            return NextPoll::Expired(RequestError::Task { task_id: self.id.clone(), detail });
        }
        NextPoll::At(now + self.poll)
    }

    /// The input requests of an `input_required` task (`task`, the task object) the host has
    /// not answered yet; `None` when it has no `inputRequests`.
    pub(super) fn unanswered(&self, task: &Value) -> Option<Map<String, Value>> {
        let requests = task.get("inputRequests").and_then(Value::as_object)?;
        let fresh: Map<String, Value> = requests
            .iter()
            .filter(|(k, _)| !self.answered.contains(*k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        Some(fresh)
    }

    /// The host is answering these input requests.
    pub(super) fn mark_answered(&mut self, keys: impl IntoIterator<Item = String>) {
        self.answered.extend(keys);
    }

    /// An input request whose handler failed may be asked again.
    pub(in crate::connection) fn forget_answer(&mut self, key: &str) {
        self.answered.remove(key);
    }

    /// The method and params of the next message: `tasks/result` (2025-11-25, once the task
    /// is done), `tasks/update` with the answers not acknowledged yet plus `fresh` ones, else
    /// `tasks/get`.
    pub(super) fn next_message(
        &mut self,
        fresh: Option<Map<String, Value>>,
    ) -> (&'static str, Map<String, Value>) {
        let mut params = Map::new();
        params.insert("taskId".into(), Value::String(self.id.clone()));
        // Answers not acknowledged yet go again (with any new ones) until an update is.
        let answers = match (self.pending_update.take(), fresh) {
            (Some(mut pending), Some(fresh)) => {
                pending.extend(fresh);
                Some(pending)
            }
            (pending, fresh) => pending.or(fresh),
        };
        let method = match answers {
            _ if self.fetch_result => "tasks/result",
            Some(responses) => {
                params.insert("inputResponses".into(), Value::Object(responses.clone()));
                self.pending_update = Some(responses);
                "tasks/update"
            }
            None => "tasks/get",
        };
        self.sent_method = method;
        (method, params)
    }

    /// The server acknowledged a `tasks/update`.
    pub(super) fn update_acknowledged(&mut self) {
        self.pending_update = None;
    }
}

/// The ids of the tasks created on a connection: the newest [`REMEMBERED_TASK_IDS`], in order
/// and as a set (a server that reuses one is refused).
#[derive(Debug, Default)]
pub(in crate::connection) struct SeenTaskIds {
    order: VecDeque<String>,
    set: BTreeSet<String>,
}

impl SeenTaskIds {
    /// Records a newly created task's id; false when it was seen before.
    pub(super) fn remember(&mut self, id: &str) -> bool {
        if !self.set.insert(id.to_owned()) {
            return false;
        }
        self.order.push_back(id.to_owned());
        while self.order.len() > REMEMBERED_TASK_IDS {
            if let Some(old) = self.order.pop_front() {
                self.set.remove(&old);
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_task_completes_with_an_object_result_that_is_not_itself_a_task() {
        let mut task = TaskState::waited_for("t1".into(), false);
        assert_eq!(task.on_status(&json!({"status": "working"})), TaskStep::PollLater);
        assert_eq!(task.next_message(None).0, "tasks/get");
        let result = json!({"content": [], "resultType": "complete"});
        assert_eq!(
            task.on_status(&json!({"status": "completed", "result": result})),
            TaskStep::Completed(result)
        );
        let nested = json!({"status": "completed", "result": {"resultType": "task"}});
        assert!(matches!(task.on_status(&nested), TaskStep::Failed(RequestError::InvalidResponse { .. })));
        let missing = json!({"status": "completed"});
        assert!(matches!(task.on_status(&missing), TaskStep::Failed(RequestError::InvalidResponse { .. })));
    }

    #[test]
    fn the_announced_pace_is_bounded() {
        assert_eq!(poll_interval(&json!({"pollIntervalMs": 5})), MIN_POLL);
        assert_eq!(poll_interval(&json!({"pollInterval": 600_000})), MAX_POLL);
        assert_eq!(poll_interval(&json!({"pollIntervalMs": 250})), Duration::from_millis(250));
        assert_eq!(poll_interval(&json!({})), DEFAULT_POLL);
    }

    #[test]
    fn failures_cancellations_and_unknown_statuses_end_the_call() {
        let mut task = TaskState::waited_for("t2".into(), false);
        let failed = json!({"status": "failed", "error": {"code": -32001, "message": "boom"}});
        match task.on_status(&failed) {
            TaskStep::Failed(RequestError::Rpc(rpc)) => {
                assert_eq!((rpc.code, rpc.message.as_str()), (-32001, "boom"))
            }
            other => panic!("{other:?}"),
        }
        let cancelled = json!({"status": "cancelled", "statusMessage": "operator"});
        match task.on_status(&cancelled) {
            TaskStep::Failed(RequestError::Task { task_id, detail }) => {
                assert_eq!((task_id.as_str(), detail.as_str()), ("t2", "operator"))
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            task.on_status(&json!({"status": "odd"})),
            TaskStep::Failed(RequestError::InvalidResponse { .. })
        ));
        assert!(matches!(task.on_status(&json!({})), TaskStep::Failed(RequestError::InvalidResponse { .. })));
    }

    #[test]
    fn input_answers_go_out_in_updates_until_one_is_acknowledged() {
        let mut task = TaskState::waited_for("t3".into(), false);
        let asking = json!({"status": "input_required", "inputRequests": {"a": {}, "b": {}}});
        assert_eq!(task.on_status(&asking), TaskStep::Input);
        task.mark_answered(["a".to_owned()]);
        let fresh = task.unanswered(&asking).expect("input requests");
        assert_eq!(fresh.keys().collect::<Vec<_>>(), ["b"]);
        assert_eq!(task.unanswered(&json!({"status": "input_required"})), None);

        let answers: Map<String, Value> = [("b".to_owned(), json!({"ok": true}))].into_iter().collect();
        let (method, params) = task.next_message(Some(answers));
        assert_eq!((method, &params["inputResponses"]["b"]), ("tasks/update", &json!({"ok": true})));
        // Not acknowledged: the next message sends the answers again.
        assert_eq!(task.next_message(None).0, "tasks/update");
        task.update_acknowledged();
        assert_eq!(task.next_message(None).0, "tasks/get");
        assert_eq!(task.sent_method, "tasks/get");
    }

    #[test]
    fn a_legacy_task_fetches_its_result_once_it_is_done() {
        let mut task = TaskState::waited_for("t4".into(), true);
        assert_eq!(task.on_status(&json!({"status": "working"})), TaskStep::PollLater);
        assert_eq!(task.on_status(&json!({"status": "input_required"})), TaskStep::PollNow);
        assert_eq!(
            task.next_message(None),
            ("tasks/result", Map::from_iter([("taskId".to_owned(), json!("t4"))]))
        );
    }

    #[test]
    fn a_reused_task_id_is_refused() {
        let mut seen = SeenTaskIds::default();
        assert!(seen.remember("a") && seen.remember("b"));
        assert!(!seen.remember("a"));
    }
}
