//! Tasks: a tool call started as a task, then looked at, waited for, cancelled, listed. (A
//! plain `call_tool` already waits for a task's result.)

use mcpwire_core::calls::{
    Call, CallTool, CallToolAsTask, CancelTask, GetTask, ListTasks, TaskResult, TaskStart,
};
use mcpwire_core::types::{StartedTask, TaskHandle};
use mcpwire_core::{ClientError, CommandError};

use crate::client::Client;
use crate::family::Family;
use crate::pending_op::Pending;
use crate::request_builder::RequestBuilder;
use crate::server::Server;

impl<'a, F: Family> RequestBuilder<'a, F, CallTool> {
    /// Starts the call as a task where the server supports it (2025-11-25 `tasks`, 2026-07-28
    /// task mode): the answer is the task and its [`TaskHandle`], or the result when the
    /// server answered at once. The request's options apply.
    pub fn as_task(self) -> Pending<'a, F, Result<StartedTask, ClientError>> {
        let Self { target, call, opts, progress, cancel } = self;
        Pending::new(async move {
            let CallTool { name, arguments, .. } = call?;
            let request = CallToolAsTask::new(&name, arguments).into_request();
            let server = target.resolve(&request).await?;
            let answer =
                F::issue(server.link(), server.next_call(), request, opts, progress, cancel.as_ref());
            Ok(match CallToolAsTask::decode(answer.await?)? {
                TaskStart::Task(task) => {
                    let handle = TaskHandle {
                        server: server.name().to_owned(),
                        task_id: task.task_id.clone(),
                        tool: Some(name),
                    };
                    StartedTask::Task { handle, task }
                }
                TaskStart::Done(result) => StartedTask::Done(result),
            })
        })
    }
}

impl<F: Family> Server<F> {
    /// Waits for a task's result (`tasks/result`), bounded by the request's
    /// [`timeout`](RequestBuilder::timeout).
    pub fn wait_for_task(&self, task: &TaskHandle) -> RequestBuilder<'_, F, TaskResult> {
        let mut call = TaskResult::new(&task.task_id);
        call.tool = task.tool.clone();
        RequestBuilder::to_server(self, check_task_server(self.name(), task).map(|()| call))
    }

    /// A task's status (`tasks/get`).
    pub fn get_task(&self, task: &TaskHandle) -> RequestBuilder<'_, F, GetTask> {
        let call = GetTask(task.task_id.clone());
        RequestBuilder::to_server(self, check_task_server(self.name(), task).map(|()| call))
    }

    /// Cancels a task (`tasks/cancel`).
    pub fn cancel_task(&self, task: &TaskHandle) -> RequestBuilder<'_, F, CancelTask> {
        let call = CancelTask(task.task_id.clone());
        RequestBuilder::to_server(self, check_task_server(self.name(), task).map(|()| call))
    }

    /// The server's tasks (`tasks/list`, every page).
    pub fn list_tasks(&self) -> RequestBuilder<'_, F, ListTasks> {
        self.send(ListTasks)
    }
}

impl<F: Family> Client<F> {
    /// The handle of task `task_id` of the client's only server (an error with several: a
    /// task id alone does not say whose it is).
    pub fn task_handle(&self, task_id: &str) -> Result<TaskHandle, ClientError> {
        match self.servers() {
            [only] => {
                Ok(TaskHandle { server: only.name().to_owned(), task_id: task_id.to_owned(), tool: None })
            }
            servers => Err(ClientError::Command(CommandError::InvalidArgument(format!(
                "task id {task_id:?} is ambiguous with {} servers: name the server",
                servers.len()
            )))),
        }
    }

    /// Waits for a task's result on the task's server (see [`Server::wait_for_task`]).
    pub fn wait_for_task(&self, task: &TaskHandle) -> RequestBuilder<'_, F, TaskResult> {
        let mut call = TaskResult::new(&task.task_id);
        call.tool = task.tool.clone();
        RequestBuilder::to_client(self, Ok(call)).server(&task.server)
    }

    /// A task's status, from the task's server.
    pub fn get_task(&self, task: &TaskHandle) -> RequestBuilder<'_, F, GetTask> {
        RequestBuilder::to_client(self, Ok(GetTask(task.task_id.clone()))).server(&task.server)
    }

    /// Cancels a task on the task's server.
    pub fn cancel_task(&self, task: &TaskHandle) -> RequestBuilder<'_, F, CancelTask> {
        RequestBuilder::to_client(self, Ok(CancelTask(task.task_id.clone()))).server(&task.server)
    }
}

/// Refuses a task handle of another server.
fn check_task_server(server: &str, task: &TaskHandle) -> Result<(), ClientError> {
    if task.server == server {
        return Ok(());
    }
    Err(ClientError::Command(CommandError::InvalidArgument(format!(
        "task {} belongs to server {:?}, not {server:?}",
        task.task_id, task.server
    ))))
}
