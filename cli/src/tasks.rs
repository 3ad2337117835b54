//! `mcp call --as-task` and `mcp tasks`: a tool call started as a task (its status shown on
//! stderr while the result is awaited), and the tasks a server keeps (list, get, result,
//! cancel). Tasks live in the server: over stdio they end with the `mcp` process, so `mcp
//! tasks` is for HTTP servers.

use std::future::IntoFuture;
use std::time::Duration;

use mcpwire_tokio::types::{CallToolResult, StartedTask, Task, TaskHandle, TaskStatus};
use mcpwire_tokio::Server;
use serde_json::{json, Value};

use crate::commands::{CliError, Settings};
use crate::output::{emit, note, one_line, pretty};

/// How often the status line is refreshed while a task runs (at least).
const STATUS_EVERY: Duration = Duration::from_millis(500);

/// What `mcp tasks` does.
#[derive(Debug, Clone)]
pub enum TaskAction {
    /// Every task the server lists.
    List,
    /// One task's state.
    Get(String),
    /// Waits for one task's result.
    Result(String),
    /// Cancels one task.
    Cancel(String),
}

/// One line for a task: id, status and message.
pub fn task_line(task: &Task) -> String {
    let status = match &task.status {
        TaskStatus::Working => "working",
        TaskStatus::InputRequired => "input_required",
        TaskStatus::Completed => "completed",
        TaskStatus::Failed => "failed",
        TaskStatus::Cancelled => "cancelled",
        TaskStatus::Other(s) => s.as_str(),
        _ => "unknown",
    };
    let message =
        task.status_message.as_deref().map(|m| format!(": {}", one_line(m, 200))).unwrap_or_default();
    format!("{} {status}{message}", one_line(&task.task_id, 200))
}

/// A handle for a task id given on the command line.
fn handle(server: &Server, id: String) -> TaskHandle {
    TaskHandle { server: server.name().to_owned(), task_id: id, tool: None }
}

/// Calls `tool` as a task and waits for its result, showing the task's status on stderr.
pub async fn call_as_task(server: &Server, tool: &str, arguments: Value) -> Result<CallToolResult, CliError> {
    let (handle, task) = match server.call_tool(tool, arguments).as_task().await? {
        StartedTask::Task { handle, task } => (handle, task),
        StartedTask::Done(result) => {
            note("the server ran the call at once (no task)");
            return Ok(result);
        }
    };
    note(&format!("task {}", task_line(&task)));
    let wait = server.wait_for_task(&handle).into_future();
    tokio::pin!(wait);
    let mut last = task_line(&task);
    let every = task.poll_interval_ms.map_or(STATUS_EVERY, |ms| Duration::from_millis(ms).max(STATUS_EVERY));
    loop {
        tokio::select! {
            result = &mut wait => return Ok(result?),
            () = tokio::time::sleep(every) => {
                // The status line is a courtesy: a failed look is not the call's failure.
                if let Ok(now) = server.get_task(&handle).await {
                    let line = task_line(&now);
                    if line != last {
                        note(&format!("task {line}"));
                        last = line;
                    }
                }
            }
        }
    }
}

/// Runs `mcp tasks ...` on `server` and prints the outcome.
pub async fn run(settings: &Settings, server: Server, action: TaskAction) -> Result<(), CliError> {
    match action {
        TaskAction::List => {
            let tasks = server.list_tasks().await?;
            if settings.json {
                emit(&pretty(&Value::Array(tasks.iter().map(|t| t.raw().clone()).collect())));
            } else if tasks.is_empty() {
                emit("no tasks");
            } else {
                emit(&tasks.iter().map(task_line).collect::<Vec<_>>().join("\n"));
            }
        }
        TaskAction::Get(id) => {
            let task = server.get_task(&handle(&server, id)).await?;
            emit(&if settings.json { pretty(task.raw()) } else { task_line(&task) });
        }
        TaskAction::Result(id) => {
            let result = server.wait_for_task(&handle(&server, id)).await?;
            let text =
                if settings.json { pretty(result.raw()) } else { crate::output::call_result_text(&result) };
            emit(&text);
        }
        TaskAction::Cancel(id) => {
            server.cancel_task(&handle(&server, id.clone())).await?;
            emit(&if settings.json {
                json!({"cancelled": id}).to_string()
            } else {
                format!("cancel requested: {id}")
            });
        }
    }
    Ok(())
}
