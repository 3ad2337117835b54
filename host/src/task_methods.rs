//! The task API of a family's `Server`, written once: start a call as a task, look at it,
//! wait for its result, cancel it, list tasks. Expanded by
//! [`task_methods!`](crate::task_methods) inside each family's `impl Server`, over the same
//! `send` the request methods use. (A plain `call_tool` already waits for a task's result.)

/// Defines the task methods of a family's `Server`: `task_methods!(async await)` or
/// `task_methods!()`.
#[macro_export]
macro_rules! task_methods {
    ($($async:ident $await:ident)?) => {
        /// Calls a tool as a task and returns at once with its handle (on 2025-11-25 the call
        /// goes out task-augmented, which the server must declare; a 2026-07-28 server may
        /// also run the call at once, giving its result).
        pub $($async)? fn call_tool_as_task(
            &self,
            name: &str,
            arguments: $crate::serde_json::Value,
        ) -> Result<$crate::mcp_core::types::StartedTask, $crate::mcp_core::ClientError> {
            use $crate::mcp_core::calls::{CallToolAsTask, TaskStart};
            use $crate::mcp_core::types::{StartedTask, TaskHandle};
            let call = CallToolAsTask { name: name.to_owned(), arguments };
            Ok(match self.send(call)$(.$await)?? {
                TaskStart::Task(task) => StartedTask::Task {
                    handle: TaskHandle {
                        server: self.name().to_owned(),
                        task_id: task.task_id.clone(),
                        tool: Some(name.to_owned()),
                    },
                    task,
                },
                TaskStart::Done(result) => StartedTask::Done(result),
            })
        }

        /// Waits for a task's result, polling it at the server's pace, for at most `timeout`
        /// (the request timeout when `None`); input it needs is asked of the host's handlers.
        /// The result is checked against the output schema of the tool the handle names.
        pub $($async)? fn wait_for_task(
            &self,
            task: &$crate::mcp_core::types::TaskHandle,
            timeout: Option<std::time::Duration>,
        ) -> Result<$crate::mcp_core::types::CallToolResult, $crate::mcp_core::ClientError> {
            $crate::check_task_server(self.name(), task)?;
            let call = $crate::mcp_core::calls::TaskResult { task_id: task.task_id.clone(), tool: task.tool.clone() };
            let opts = $crate::mcp_core::RequestOptions { timeout, ..Default::default() };
            self.send_with(call, opts)$(.$await)?
        }

        /// [`Self::wait_for_task`] with the request timeout.
        pub $($async)? fn get_task_result(
            &self,
            task: &$crate::mcp_core::types::TaskHandle,
        ) -> Result<$crate::mcp_core::types::CallToolResult, $crate::mcp_core::ClientError> {
            self.wait_for_task(task, None)$(.$await)?
        }

        /// A task's current state (`tasks/get`).
        pub $($async)? fn get_task(
            &self,
            task: &$crate::mcp_core::types::TaskHandle,
        ) -> Result<$crate::mcp_core::types::Task, $crate::mcp_core::ClientError> {
            $crate::check_task_server(self.name(), task)?;
            self.send($crate::mcp_core::calls::GetTask(task.task_id.clone()))$(.$await)?
        }

        /// Asks the server to cancel a task (`tasks/cancel`; cancellation is cooperative).
        pub $($async)? fn cancel_task(
            &self,
            task: &$crate::mcp_core::types::TaskHandle,
        ) -> Result<(), $crate::mcp_core::ClientError> {
            $crate::check_task_server(self.name(), task)?;
            self.send($crate::mcp_core::calls::CancelTask(task.task_id.clone()))$(.$await)?
        }

        /// Every task the server lists (`tasks/list`, 2025-11-25 servers declaring it).
        pub $($async)? fn list_tasks(
            &self,
        ) -> Result<Vec<$crate::mcp_core::types::Task>, $crate::mcp_core::ClientError> {
            self.send($crate::mcp_core::calls::ListTasks)$(.$await)?
        }
    };
}

/// Defines the task methods of a family's `Client`, which route by the handle's server:
/// `client_task_methods!(async await)` or `client_task_methods!()`. Needs
/// `fn server(&self, name) -> Option<&Server>` and `servers: Arc<[Server]>`.
#[macro_export]
macro_rules! client_task_methods {
    ($($async:ident $await:ident)?) => {
        /// The server a task handle names.
        fn task_server(
            &self,
            task: &$crate::mcp_core::types::TaskHandle,
        ) -> Result<&Server, $crate::mcp_core::ClientError> {
            self.server(&task.server).ok_or_else(|| {
                $crate::mcp_core::routing::RouteError::UnknownServer(task.server.clone()).into()
            })
        }

        /// A handle for a bare task id: the only server's (an error when the client has
        /// several: name the server in a [`TaskHandle`](mcp_core::types::TaskHandle) instead).
        pub fn task_handle(&self, task_id: &str) -> Result<$crate::mcp_core::types::TaskHandle, $crate::mcp_core::ClientError> {
            match &self.servers[..] {
                [only] => Ok($crate::mcp_core::types::TaskHandle {
                    server: only.name().to_owned(),
                    task_id: task_id.to_owned(),
                    tool: None,
                }),
                _ => Err($crate::mcp_core::ClientError::Command($crate::mcp_core::CommandError::InvalidArgument(
                    format!("task id {task_id:?} is ambiguous with {} servers: name the server", self.servers.len()),
                ))),
            }
        }

        /// Waits for a task's result on the server its handle names (see
        /// `Server::wait_for_task`).
        pub $($async)? fn wait_for_task(
            &self,
            task: &$crate::mcp_core::types::TaskHandle,
            timeout: Option<std::time::Duration>,
        ) -> Result<$crate::mcp_core::types::CallToolResult, $crate::mcp_core::ClientError> {
            self.task_server(task)?.wait_for_task(task, timeout)$(.$await)?
        }

        /// A task's state, from the server its handle names.
        pub $($async)? fn get_task(
            &self,
            task: &$crate::mcp_core::types::TaskHandle,
        ) -> Result<$crate::mcp_core::types::Task, $crate::mcp_core::ClientError> {
            self.task_server(task)?.get_task(task)$(.$await)?
        }

        /// Cancels a task on the server its handle names.
        pub $($async)? fn cancel_task(
            &self,
            task: &$crate::mcp_core::types::TaskHandle,
        ) -> Result<(), $crate::mcp_core::ClientError> {
            self.task_server(task)?.cancel_task(task)$(.$await)?
        }
    };
}

/// A task handle names the server it belongs to; using it on another is host misuse.
pub fn check_task_server(
    server: &str,
    task: &mcp_core::types::TaskHandle,
) -> Result<(), mcp_core::ClientError> {
    if task.server == server {
        return Ok(());
    }
    Err(mcp_core::ClientError::Command(mcp_core::CommandError::InvalidArgument(format!(
        "task {} belongs to server {:?}, not {server:?}",
        task.task_id, task.server
    ))))
}
