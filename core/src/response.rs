//! The typed answers of host requests: one [`Response`] per kind of [`crate::Request`], and
//! `into_*` conversions for callers that know which kind they asked for.

use serde_json::Value;

use crate::era::ServerInfo;
use crate::error::ClientError;
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

impl Response {
    /// The server info of a `Connect`. A response of another kind is [`ClientError::UnexpectedResponse`].
    pub fn into_connected(self) -> Result<ServerInfo, ClientError> {
        match self {
            Response::Connected(v) => Ok(*v),
            _ => Err(ClientError::UnexpectedResponse { expected: "server info" }),
        }
    }

    /// The tools of a `ListTools`. A response of another kind is [`ClientError::UnexpectedResponse`].
    pub fn into_tools(self) -> Result<Vec<Tool>, ClientError> {
        match self {
            Response::Tools(v) => Ok(v),
            _ => Err(ClientError::UnexpectedResponse { expected: "tools" }),
        }
    }

    /// The prompts of a `ListPrompts`. A response of another kind is [`ClientError::UnexpectedResponse`].
    pub fn into_prompts(self) -> Result<Vec<Prompt>, ClientError> {
        match self {
            Response::Prompts(v) => Ok(v),
            _ => Err(ClientError::UnexpectedResponse { expected: "prompts" }),
        }
    }

    /// The resources of a `ListResources`. A response of another kind is [`ClientError::UnexpectedResponse`].
    pub fn into_resources(self) -> Result<Vec<Resource>, ClientError> {
        match self {
            Response::Resources(v) => Ok(v),
            _ => Err(ClientError::UnexpectedResponse { expected: "resources" }),
        }
    }

    /// The templates of a `ListResourceTemplates`. A response of another kind is [`ClientError::UnexpectedResponse`].
    pub fn into_resource_templates(self) -> Result<Vec<ResourceTemplate>, ClientError> {
        match self {
            Response::ResourceTemplates(v) => Ok(v),
            _ => Err(ClientError::UnexpectedResponse { expected: "resource templates" }),
        }
    }

    /// The result of a `CallTool`. A response of another kind is [`ClientError::UnexpectedResponse`].
    pub fn into_tool_result(self) -> Result<CallToolResult, ClientError> {
        match self {
            Response::ToolResult(v) => Ok(v),
            _ => Err(ClientError::UnexpectedResponse { expected: "a tool result" }),
        }
    }

    /// The prompt of a `GetPrompt`. A response of another kind is [`ClientError::UnexpectedResponse`].
    pub fn into_prompt(self) -> Result<GetPromptResult, ClientError> {
        match self {
            Response::Prompt(v) => Ok(v),
            _ => Err(ClientError::UnexpectedResponse { expected: "a prompt" }),
        }
    }

    /// The contents of a `ReadResource`. A response of another kind is [`ClientError::UnexpectedResponse`].
    pub fn into_resource(self) -> Result<ReadResourceResult, ClientError> {
        match self {
            Response::Resource(v) => Ok(v),
            _ => Err(ClientError::UnexpectedResponse { expected: "resource contents" }),
        }
    }

    /// The values of a `Complete`. A response of another kind is [`ClientError::UnexpectedResponse`].
    pub fn into_completion(self) -> Result<CompleteResult, ClientError> {
        match self {
            Response::Completion(v) => Ok(v),
            _ => Err(ClientError::UnexpectedResponse { expected: "completion values" }),
        }
    }

    /// The task of a `GetTask`. A response of another kind is [`ClientError::UnexpectedResponse`].
    pub fn into_task(self) -> Result<crate::types::Task, ClientError> {
        match self {
            Response::Task(v) => Ok(*v),
            _ => Err(ClientError::UnexpectedResponse { expected: "a task" }),
        }
    }

    /// The tasks of a `ListTasks`. A response of another kind is [`ClientError::UnexpectedResponse`].
    pub fn into_tasks(self) -> Result<Vec<crate::types::Task>, ClientError> {
        match self {
            Response::Tasks(v) => Ok(v),
            _ => Err(ClientError::UnexpectedResponse { expected: "tasks" }),
        }
    }

    /// The raw result of a `Custom` request. A response of another kind is [`ClientError::UnexpectedResponse`].
    pub fn into_raw(self) -> Result<Value, ClientError> {
        match self {
            Response::Raw(v) => Ok(v),
            _ => Err(ClientError::UnexpectedResponse { expected: "a raw result" }),
        }
    }
}
