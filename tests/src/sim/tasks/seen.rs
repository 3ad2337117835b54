//! What the client consumed when a server message about a task reached it, read back from the
//! message itself.

use serde_json::Value;

use super::{RELATED, SIM_GHOST, SIM_NONCE, SIM_TASK};

/// What the client consumed when a message about a task reached it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seen {
    /// The JSON-RPC id of a response (JSON text); `None` for a notification.
    pub id: Option<String>,
    /// The task.
    pub task: String,
    /// What it says.
    pub kind: SeenKind,
}

/// What a delivered task message says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SeenKind {
    /// A create answer (`ghost`: an old id handed out again).
    Created {
        /// The status it shows.
        status: String,
        /// Its pace.
        pace: Option<u64>,
        /// An old id handed out again.
        ghost: bool,
        /// The nonce of the call it answers.
        nonce: Option<u64>,
    },
    /// The task's status: a `tasks/get` answer (also a legacy `tasks/cancel` answer), or a
    /// status notification.
    Status {
        /// The status.
        status: String,
        /// Its pace.
        pace: Option<u64>,
        /// A notification (not an answer).
        notification: bool,
        /// `inputRequests` keys (2026-07-28).
        keys: Vec<String>,
    },
    /// The acknowledgment of `tasks/update` or a 2026-07-28 `tasks/cancel`.
    Ack,
    /// A 2025-11-25 `tasks/result` answer.
    Result,
}

fn pace_of(task: &Value) -> Option<u64> {
    task.get("pollIntervalMs").or_else(|| task.get("pollInterval")).and_then(Value::as_u64)
}

fn status_of(task: &Value) -> String {
    task.get("status").and_then(Value::as_str).unwrap_or("").to_owned()
}

/// A task's status as a status notification (`notification`) or a poll's answer shows it.
fn status_seen(task: &Value, notification: bool) -> SeenKind {
    let keys = task
        .get("inputRequests")
        .and_then(Value::as_object)
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default();
    SeenKind::Status { status: status_of(task), pace: pace_of(task), notification, keys }
}

/// What a server message (one JSON-RPC message) tells the client about a task, if anything.
pub fn seen_of(msg: &Value) -> Option<Seen> {
    if let Some(method) = msg.get("method").and_then(Value::as_str) {
        if msg.get("id").is_some() || !method.starts_with("notifications/tasks") {
            return None;
        }
        let params = msg.get("params")?;
        let task = params.get("taskId")?.as_str()?.to_owned();
        return Some(Seen { id: None, task, kind: status_seen(params, true) });
    }
    let id = msg.get("id")?.to_string();
    let result = msg.get("result")?;
    let meta = result.get("_meta");
    let ghost = meta.and_then(|m| m.get(SIM_GHOST)).is_some();
    let nonce = meta.and_then(|m| m.get(SIM_NONCE)).and_then(Value::as_u64);
    let (task, kind) = if let Some(task) = result.get("task").filter(|t| t.is_object()) {
        let kind = SeenKind::Created { status: status_of(task), pace: pace_of(task), ghost, nonce };
        (task.get("taskId")?.as_str()?.to_owned(), kind)
    } else if result.get("resultType").and_then(Value::as_str) == Some("task") {
        let kind = SeenKind::Created { status: status_of(result), pace: pace_of(result), ghost, nonce };
        (result.get("taskId")?.as_str()?.to_owned(), kind)
    } else if let Some(task) = result.get("taskId").and_then(Value::as_str) {
        (task.to_owned(), status_seen(result, false))
    } else if let Some(task) = meta.and_then(|m| m.get(SIM_TASK)).and_then(Value::as_str) {
        (task.to_owned(), SeenKind::Ack)
    } else if let Some(task) = meta.and_then(|m| m.get(RELATED)).and_then(|r| r.get("taskId")) {
        (task.as_str()?.to_owned(), SeenKind::Result)
    } else {
        return None;
    };
    Some(Seen { id: Some(id), task, kind })
}

/// [`seen_of`] for one whole message's bytes (a stdout line, a JSON body, an SSE event).
pub fn seen_in(bytes: &[u8]) -> Option<Seen> {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim();
    // An SSE event: its data lines.
    let json = if text.starts_with('{') {
        text.to_owned()
    } else {
        text.lines()
            .filter_map(|l| l.trim_end_matches('\r').strip_prefix("data:"))
            .map(|d| d.strip_prefix(' ').unwrap_or(d))
            .collect::<Vec<_>>()
            .join("\n")
    };
    seen_of(&serde_json::from_str(&json).ok()?)
}
