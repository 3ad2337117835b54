//! Tasks (2025-11-25 and the 2026-07-28 tasks extension): the state of a task as a server
//! reports it, in either revision's field names.

use serde_json::Value;

use super::{raw_json_impls, DecodeError};

/// Where a task stands.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TaskStatus {
    /// Being processed.
    Working,
    /// Waiting for input from the client.
    InputRequired,
    /// Finished with a result (which may be a tool result with `isError`).
    Completed,
    /// Ended with a JSON-RPC error.
    Failed,
    /// Cancelled before it finished.
    Cancelled,
    /// A status this client does not know, as sent.
    Other(String),
}

impl TaskStatus {
    fn parse(s: &str) -> Self {
        match s {
            "working" => TaskStatus::Working,
            "input_required" => TaskStatus::InputRequired,
            "completed" => TaskStatus::Completed,
            "failed" => TaskStatus::Failed,
            "cancelled" => TaskStatus::Cancelled,
            other => TaskStatus::Other(crate::text::sanitize(other, 50)),
        }
    }

    /// True for `completed`, `failed` and `cancelled`: nothing changes after them.
    pub fn is_terminal(&self) -> bool {
        matches!(self, TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled)
    }
}

/// A task as a server reported it (`tasks/get`, `tasks/list`, a `CreateTaskResult` or a status
/// notification). The raw JSON keeps what this type does not model (a 2026-07-28 task's inlined
/// `result`, `error` or `inputRequests`).
#[derive(Debug, Clone, PartialEq)]
pub struct Task {
    /// The server's id of the task.
    pub task_id: String,
    /// Where it stands.
    pub status: TaskStatus,
    /// A message about its state, if the server gave one.
    pub status_message: Option<String>,
    /// When it was created (ISO 8601, as sent).
    pub created_at: Option<String>,
    /// When it last changed (ISO 8601, as sent).
    pub last_updated_at: Option<String>,
    /// Its lifetime from creation, in milliseconds (`None`: unlimited or not said).
    pub ttl_ms: Option<u64>,
    /// How often the server would like it polled, in milliseconds.
    pub poll_interval_ms: Option<u64>,
    raw: Value,
}

raw_json_impls!(Task);

impl Task {
    /// Decodes a task from either revision's fields (`ttlMs` / `ttl`, `pollIntervalMs` /
    /// `pollInterval`).
    pub fn from_value(value: Value) -> Result<Self, DecodeError> {
        let text = |key: &str| value.get(key).and_then(Value::as_str).map(str::to_owned);
        let number = |a: &str, b: &str| value.get(a).or_else(|| value.get(b)).and_then(Value::as_u64);
        let task_id = match value.get("taskId") {
            Some(Value::String(id)) if !id.is_empty() => id.clone(),
            Some(other) => {
                return Err(DecodeError::new("Task", format!("taskId is {}", super::json_kind(other))))
            }
            None => return Err(DecodeError::new("Task", "missing field `taskId`")),
        };
        let status = match value.get("status").and_then(Value::as_str) {
            Some(s) => TaskStatus::parse(s),
            None => return Err(DecodeError::new("Task", "missing field `status`")),
        };
        Ok(Self {
            task_id,
            status,
            status_message: text("statusMessage"),
            created_at: text("createdAt"),
            last_updated_at: text("lastUpdatedAt"),
            ttl_ms: number("ttlMs", "ttl"),
            poll_interval_ms: number("pollIntervalMs", "pollInterval"),
            raw: value,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn both_revisions_decode() {
        let modern =
            Task::from_value(json!({"resultType": "complete", "taskId": "t", "status": "input_required",
            "ttlMs": null, "pollIntervalMs": 50, "inputRequests": {}}))
            .unwrap();
        assert_eq!(
            (modern.status.clone(), modern.ttl_ms, modern.poll_interval_ms),
            (TaskStatus::InputRequired, None, Some(50))
        );
        assert!(modern.raw().get("inputRequests").is_some());
        let legacy =
            Task::from_value(json!({"taskId": "l", "status": "completed", "ttl": 6000, "pollInterval": 200,
            "createdAt": "2025-11-25T10:30:00Z"}))
            .unwrap();
        assert!(legacy.status.is_terminal());
        assert_eq!((legacy.ttl_ms, legacy.poll_interval_ms), (Some(6000), Some(200)));
        assert_eq!(legacy.created_at.as_deref(), Some("2025-11-25T10:30:00Z"));
        assert_eq!(
            Task::from_value(json!({"taskId": "x", "status": "paused"})).unwrap().status,
            TaskStatus::Other("paused".into())
        );
        assert!(Task::from_value(json!({"status": "working"})).is_err());
        assert!(Task::from_value(json!({"taskId": 3, "status": "working"})).is_err());
    }
}

/// A task a call started, as the host keeps it: which server runs it, its id, and the tool
/// whose definition its result is checked against. Serialisable, so a host can store it and
/// wait for the result after a restart.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TaskHandle {
    /// The name of the server (in the client) that runs it.
    pub server: String,
    /// The server's id of the task.
    pub task_id: String,
    /// The tool it runs, when the task came from a call.
    pub tool: Option<String>,
}

/// What starting a call as a task gave.
#[derive(Debug, Clone, PartialEq)]
#[allow(clippy::large_enum_variant)]
pub enum StartedTask {
    /// The server runs the call as a task: its handle, and its state when created.
    Task {
        /// Keep it to look at, wait for or cancel the task.
        handle: TaskHandle,
        /// The task as the server created it.
        task: Task,
    },
    /// The server ran the call at once (2026-07-28 servers decide): its result.
    Done(super::CallToolResult),
}
