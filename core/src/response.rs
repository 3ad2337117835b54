//! The typed answers of host requests: one [`Response`] per kind of [`crate::Request`], and
//! `into_*` conversions for callers that know which kind they asked for.

use serde_json::Value;

use crate::era::ServerInfo;
use crate::types::{
    CallToolResult, CompleteResult, GetPromptResult, Prompt, ReadResourceResult, Resource, ResourceTemplate,
    Tool,
};

/// A successful, typed response.
///
/// The rarely seen large values (server info, tasks) are boxed, so the response a call carries
/// through the layers stays small.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Response {
    /// For [`Request::Connect`](crate::Request::Connect) and [`Request::Discover`](crate::Request::Discover).
    Connected(Box<ServerInfo>),
    /// All tools, across pages.
    Tools(Vec<Tool>),
    /// All prompts.
    Prompts(Vec<Prompt>),
    /// All resources.
    Resources(Vec<Resource>),
    /// All resource templates.
    ResourceTemplates(Vec<ResourceTemplate>),
    /// A tool result (check `is_error`: a tool failure is a result, not an error).
    ToolResult(CallToolResult),
    /// A prompt.
    Prompt(GetPromptResult),
    /// Resource contents.
    Resource(ReadResourceResult),
    /// Completion values.
    Completion(CompleteResult),
    /// The server answered a ping.
    Pong,
    /// An empty acknowledgement (e.g. `logging/setLevel`).
    Empty,
    /// The server ended a [`Request::Listen`](crate::Request::Listen) gracefully.
    ListenEnded,
    /// A call started as a task ([`Request::CallToolAsTask`](crate::Request::CallToolAsTask)).
    TaskStarted(Box<crate::types::Task>),
    /// A task's state ([`Request::GetTask`](crate::Request::GetTask)).
    Task(Box<crate::types::Task>),
    /// Every task ([`Request::ListTasks`](crate::Request::ListTasks)).
    Tasks(Vec<crate::types::Task>),
    /// The result of a [`Request::Custom`](crate::Request::Custom), as received.
    Raw(Value),
}

macro_rules! into_variant {
    ($(#[$doc:meta])* $fn:ident, $variant:ident, $ty:ty, $expected:literal) => {
        $(#[$doc])*
        pub fn $fn(self) -> Result<$ty, crate::error::ClientError> {
            match self {
                Response::$variant(v) => Ok(v),
                _ => Err(crate::error::ClientError::UnexpectedResponse { expected: $expected }),
            }
        }
    };
    (boxed $(#[$doc:meta])* $fn:ident, $variant:ident, $ty:ty, $expected:literal) => {
        $(#[$doc])*
        pub fn $fn(self) -> Result<$ty, crate::error::ClientError> {
            match self {
                Response::$variant(v) => Ok(*v),
                _ => Err(crate::error::ClientError::UnexpectedResponse { expected: $expected }),
            }
        }
    };
}

impl Response {
    into_variant!(boxed
        /// The server info of a `Connect`.
        into_connected, Connected, ServerInfo, "server info"
    );
    into_variant!(
        /// The tools of a `ListTools`.
        into_tools, Tools, Vec<Tool>, "tools"
    );
    into_variant!(
        /// The prompts of a `ListPrompts`.
        into_prompts, Prompts, Vec<Prompt>, "prompts"
    );
    into_variant!(
        /// The resources of a `ListResources`.
        into_resources, Resources, Vec<Resource>, "resources"
    );
    into_variant!(
        /// The templates of a `ListResourceTemplates`.
        into_resource_templates, ResourceTemplates, Vec<ResourceTemplate>, "resource templates"
    );
    into_variant!(
        /// The result of a `CallTool`.
        into_tool_result, ToolResult, CallToolResult, "a tool result"
    );
    into_variant!(
        /// The prompt of a `GetPrompt`.
        into_prompt, Prompt, GetPromptResult, "a prompt"
    );
    into_variant!(
        /// The contents of a `ReadResource`.
        into_resource, Resource, ReadResourceResult, "resource contents"
    );
    into_variant!(
        /// The values of a `Complete`.
        into_completion, Completion, CompleteResult, "completion values"
    );
    into_variant!(boxed
        /// The task of a `GetTask`.
        into_task, Task, crate::types::Task, "a task"
    );
    into_variant!(
        /// The tasks of a `ListTasks`.
        into_tasks, Tasks, Vec<crate::types::Task>, "tasks"
    );
    into_variant!(
        /// The raw result of a `Custom` request.
        into_raw, Raw, Value, "a raw result"
    );
}
