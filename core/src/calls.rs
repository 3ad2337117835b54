//! Typed request descriptors: one small type per kind of request, turning into a [`Request`]
//! and decoding the [`Response`] into what the caller wants.
//!
//! `Server` (in `mcpwire-host`, one generic type for every runtime) has one generic `send` that takes
//! any [`Call`]; the named methods (`list_tools`, `call_tool`, ...) are one line each over it.
//! A new kind of request is a descriptor here plus one method there.
//!
//! ```
//! use mcpwire_core::calls::{Call, CallTool, ListTools};
//! use mcpwire_core::{Request, Response};
//!
//! let call = CallTool::new("echo", serde_json::json!({"message": "hi"}));
//! assert!(matches!(call.into_request(), Request::CallTool { .. }));
//! let tools = ListTools::decode(Response::Tools(Vec::new())).unwrap();
//! assert!(tools.is_empty());
//! ```

use serde_json::{Map, Value};

use crate::era::ServerInfo;
use crate::error::ClientError;
use crate::request::Request;
use crate::response::Response;
use crate::types::{
    CallToolResult, CompleteResult, CompletionReference, GetPromptResult, LoggingLevel, Prompt,
    ReadResourceResult, Resource, ResourceTemplate, Tool,
};

/// A kind of request with a typed outcome.
pub trait Call {
    /// What a successful response decodes to.
    type Output;
    /// The request to send.
    fn into_request(self) -> Request;
    /// Decodes the response (an unexpected kind is [`ClientError::UnexpectedResponse`]).
    fn decode(response: Response) -> Result<Self::Output, ClientError>;
}

/// Any request, answered with the untyped [`Response`].
impl Call for Request {
    type Output = Response;
    fn into_request(self) -> Request {
        self
    }
    fn decode(response: Response) -> Result<Response, ClientError> {
        Ok(response)
    }
}

/// Declares a descriptor without fields: its request and how its response decodes.
macro_rules! unit_call {
    ($(#[$doc:meta])* $name:ident => $request:expr, $output:ty, $decode:expr) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
        pub struct $name;

        impl Call for $name {
            type Output = $output;
            fn into_request(self) -> Request {
                $request
            }
            fn decode(response: Response) -> Result<$output, ClientError> {
                $decode(response)
            }
        }
    };
}

unit_call!(
    /// Start the server if needed and wait until its era is known.
    Connect => Request::Connect, ServerInfo, Response::into_connected
);
unit_call!(
    /// `tools/list`, every page.
    ListTools => Request::ListTools, Vec<Tool>, Response::into_tools
);
unit_call!(
    /// `prompts/list`, every page.
    ListPrompts => Request::ListPrompts, Vec<Prompt>, Response::into_prompts
);
unit_call!(
    /// `resources/list`, every page.
    ListResources => Request::ListResources, Vec<Resource>, Response::into_resources
);
unit_call!(
    /// `resources/templates/list`, every page.
    ListResourceTemplates => Request::ListResourceTemplates, Vec<ResourceTemplate>,
    Response::into_resource_templates
);
unit_call!(
    /// A liveness check (`ping`, or `server/discover` on 2026-07-28 servers).
    Ping => Request::Ping, (), |_| Ok(())
);
unit_call!(
    /// The server's current info: `server/discover` again once the last result is stale
    /// (2026-07-28), the `initialize` answer on legacy servers (see [`Request::Discover`]).
    Discover => Request::Discover, ServerInfo, Response::into_connected
);

/// `tools/call`. A `_meta` key inside `arguments` is sent as the request's `_meta`; a tool
/// failure is a result with `is_error`, not an `Err`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct CallTool {
    /// The tool name.
    pub name: String,
    /// The arguments: a JSON object, or `null` for none.
    pub arguments: Value,
}

impl CallTool {
    /// A call of `name` with `arguments`.
    pub fn new(name: &str, arguments: Value) -> Self {
        Self { name: name.to_owned(), arguments }
    }
}

impl Call for CallTool {
    type Output = CallToolResult;
    fn into_request(self) -> Request {
        Request::CallTool { name: self.name, arguments: self.arguments }
    }
    fn decode(response: Response) -> Result<CallToolResult, ClientError> {
        response.into_tool_result()
    }
}

/// `prompts/get` with string arguments.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct GetPrompt {
    /// The prompt name.
    pub name: String,
    /// Its arguments.
    pub arguments: Map<String, Value>,
}

impl GetPrompt {
    /// The prompt `name` with `arguments`.
    pub fn new(name: &str, arguments: Map<String, Value>) -> Self {
        Self { name: name.to_owned(), arguments }
    }
}

impl Call for GetPrompt {
    type Output = GetPromptResult;
    fn into_request(self) -> Request {
        Request::GetPrompt { name: self.name, arguments: self.arguments }
    }
    fn decode(response: Response) -> Result<GetPromptResult, ClientError> {
        response.into_prompt()
    }
}

/// `resources/read`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ReadResource {
    /// The resource URI.
    pub uri: String,
}

impl ReadResource {
    /// A read of `uri`.
    pub fn new(uri: &str) -> Self {
        Self { uri: uri.to_owned() }
    }
}

impl Call for ReadResource {
    type Output = ReadResourceResult;
    fn into_request(self) -> Request {
        Request::ReadResource { uri: self.uri }
    }
    fn decode(response: Response) -> Result<ReadResourceResult, ClientError> {
        response.into_resource()
    }
}

/// `completion/complete` of one argument.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Complete {
    /// What is being completed.
    pub reference: CompletionReference,
    /// The argument name.
    pub argument: String,
    /// Its partial value.
    pub value: String,
    /// Values of other arguments already chosen.
    pub context: Option<Map<String, Value>>,
}

impl Complete {
    /// Completion of `argument`'s partial `value`, without context.
    pub fn new(reference: CompletionReference, argument: &str, value: &str) -> Self {
        Self { reference, argument: argument.to_owned(), value: value.to_owned(), context: None }
    }

    /// The same completion with the values of the arguments already resolved
    /// (`context.arguments`; sent to servers on 2025-06-18 and later only).
    pub fn with_context(mut self, context: std::collections::BTreeMap<String, String>) -> Self {
        self.context = Some(context.into_iter().map(|(k, v)| (k, Value::String(v))).collect());
        self
    }
}

impl Call for Complete {
    type Output = CompleteResult;
    fn into_request(self) -> Request {
        let Self { reference, argument, value, context } = self;
        Request::Complete { reference, argument, value, context }
    }
    fn decode(response: Response) -> Result<CompleteResult, ClientError> {
        response.into_completion()
    }
}

/// Sets the server's log level (`logging/setLevel`, or the per-request `logLevel` on
/// 2026-07-28 servers).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SetLogLevel(pub LoggingLevel);

impl Call for SetLogLevel {
    type Output = ();
    fn into_request(self) -> Request {
        Request::SetLogLevel(self.0)
    }
    fn decode(_: Response) -> Result<(), ClientError> {
        Ok(())
    }
}

/// Any other method with raw params; the result as received.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Custom {
    /// The method.
    pub method: String,
    /// The params (an object or `null`).
    pub params: Value,
}

impl Custom {
    /// A request of `method` with `params` (an object, or `null` for none).
    pub fn new(method: &str, params: Value) -> Self {
        Self { method: method.to_owned(), params }
    }
}

impl Call for Custom {
    type Output = Value;
    fn into_request(self) -> Request {
        Request::Custom { method: self.method, params: self.params }
    }
    fn decode(response: Response) -> Result<Value, ClientError> {
        response.into_raw()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptors_build_their_requests() {
        assert_eq!(Connect.into_request(), Request::Connect);
        assert_eq!(ListResourceTemplates.into_request(), Request::ListResourceTemplates);
        assert_eq!(Discover.into_request(), Request::Discover);
        assert_eq!(ReadResource::new("a://b").into_request(), Request::read_resource("a://b"));
        let c = Complete::new(CompletionReference::Prompt { name: "p".into() }, "x", "y");
        assert!(matches!(c.into_request(), Request::Complete { context: None, .. }));
        let custom = Custom { method: "x/y".into(), params: Value::Null };
        assert!(matches!(custom.into_request(), Request::Custom { .. }));
    }

    #[test]
    fn a_response_of_the_wrong_kind_is_a_typed_error() {
        let e = ListTools::decode(Response::Pong).unwrap_err();
        assert!(matches!(e, ClientError::UnexpectedResponse { expected: "tools" }));
        assert_eq!(Ping::decode(Response::Pong).unwrap(), ());
        assert!(matches!(Request::Ping.into_request(), Request::Ping));
    }
}

/// `tools/call` started as a task: the task the server made, or the result when it ran the
/// call at once (see [`Request::CallToolAsTask`]).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct CallToolAsTask {
    /// The tool name.
    pub name: String,
    /// The arguments: a JSON object, or `null` for none.
    pub arguments: Value,
}

/// What [`CallToolAsTask`] gives.
#[derive(Debug, Clone, PartialEq)]
#[allow(clippy::large_enum_variant)]
pub enum TaskStart {
    /// The server runs the call as this task.
    Task(crate::types::Task),
    /// The server ran the call at once: its result.
    Done(CallToolResult),
}

impl CallToolAsTask {
    /// A task-augmented call of `name` with `arguments`.
    pub fn new(name: &str, arguments: Value) -> Self {
        Self { name: name.to_owned(), arguments }
    }
}

impl Call for CallToolAsTask {
    type Output = TaskStart;
    fn into_request(self) -> Request {
        Request::CallToolAsTask { name: self.name, arguments: self.arguments }
    }
    fn decode(response: Response) -> Result<TaskStart, ClientError> {
        match response {
            Response::TaskStarted(task) => Ok(TaskStart::Task(*task)),
            Response::ToolResult(result) => Ok(TaskStart::Done(result)),
            _ => Err(ClientError::UnexpectedResponse { expected: "a task or a tool result" }),
        }
    }
}

/// `tasks/get`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GetTask(pub String);

impl Call for GetTask {
    type Output = crate::types::Task;
    fn into_request(self) -> Request {
        Request::GetTask { task_id: self.0 }
    }
    fn decode(response: Response) -> Result<crate::types::Task, ClientError> {
        response.into_task()
    }
}

/// Waits for a task's result (polling it), checked against `tool`'s output schema when named.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct TaskResult {
    /// The task.
    pub task_id: String,
    /// The tool it runs, when known.
    pub tool: Option<String>,
}

impl TaskResult {
    /// The result of task `task_id`, unchecked (no tool named).
    pub fn new(task_id: &str) -> Self {
        Self { task_id: task_id.to_owned(), tool: None }
    }

    /// Checks the result against `tool`'s output schema.
    pub fn tool(mut self, tool: &str) -> Self {
        self.tool = Some(tool.to_owned());
        self
    }
}

impl Call for TaskResult {
    type Output = CallToolResult;
    fn into_request(self) -> Request {
        Request::TaskResult { task_id: self.task_id, tool: self.tool }
    }
    fn decode(response: Response) -> Result<CallToolResult, ClientError> {
        response.into_tool_result()
    }
}

/// `tasks/cancel`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CancelTask(pub String);

impl Call for CancelTask {
    type Output = ();
    fn into_request(self) -> Request {
        Request::CancelTask { task_id: self.0 }
    }
    fn decode(_: Response) -> Result<(), ClientError> {
        Ok(())
    }
}

unit_call!(
    /// `tasks/list`, every page (2025-11-25 servers declaring `tasks.list`).
    ListTasks => Request::ListTasks, Vec<crate::types::Task>, Response::into_tasks
);
