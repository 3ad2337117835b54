//! [`Server`]: the async API of one server of a client.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use async_channel::{Receiver, Sender};
use mcp_core::types::{
    CallToolResult, CompleteResult, CompletionReference, GetPromptResult, LoggingLevel, Prompt,
    ReadResourceResult, Resource, ResourceTemplate, Tool,
};
use mcp_core::{ClientError, Progress, Request, RequestOptions, Response, ServerInfo};
use serde_json::{Map, Value};

use crate::driver::{lock, Command, ProgressFn, Shared};

/// One server of a [`crate::Client`]. Cheap to clone; every clone talks to the same driver.
/// Dropping a request future before it completes cancels the request.
#[derive(Clone)]
pub struct Server {
    name: Arc<str>,
    tx: Sender<Command>,
    shared: Arc<Shared>,
    calls: Arc<AtomicU64>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server").field("name", &self.name).finish_non_exhaustive()
    }
}

/// A request on its way: awaiting it yields the outcome; dropping it cancels the request.
struct Call {
    call: u64,
    tx: Sender<Command>,
    rx: Receiver<Result<Response, ClientError>>,
    done: bool,
}

impl Call {
    async fn outcome(mut self) -> Result<Response, ClientError> {
        let r = self.rx.recv().await;
        self.done = true;
        r.unwrap_or(Err(ClientError::Closed))
    }
}

impl Drop for Call {
    fn drop(&mut self) {
        if !self.done {
            let _ = self.tx.try_send(Command::CancelCall(self.call));
        }
    }
}

impl Server {
    pub(crate) fn new(name: Arc<str>, tx: Sender<Command>, shared: Arc<Shared>) -> Self {
        Self { name, tx, shared, calls: Arc::new(AtomicU64::new(1)) }
    }

    /// The server's name in the client.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What is known about the server while it is connected.
    pub fn info(&self) -> Option<ServerInfo> {
        lock(&self.shared).info.clone()
    }

    /// The tools of the last complete listing, unless invalidated since.
    pub fn known_tools(&self) -> Option<Vec<Tool>> {
        lock(&self.shared).tools.clone()
    }

    fn start(&self, request: Request, opts: RequestOptions, progress: Option<ProgressFn>) -> Call {
        let call = self.calls.fetch_add(1, Ordering::Relaxed);
        let (reply, rx) = async_channel::bounded(1);
        let sent = self.tx.try_send(Command::Request { call, request, opts, progress, reply });
        // A closed driver leaves `rx` without sender: the outcome is then `Closed`.
        let _ = sent;
        Call { call, tx: self.tx.clone(), rx, done: false }
    }

    /// Sends any request and waits for its typed response.
    pub async fn request(&self, request: Request, opts: RequestOptions) -> Result<Response, ClientError> {
        self.start(request, opts, None).outcome().await
    }

    /// Like [`Server::request`], calling `progress` for each progress notification
    /// (`opts.progress` is switched on).
    pub async fn request_with_progress<F>(
        &self,
        request: Request,
        mut opts: RequestOptions,
        progress: F,
    ) -> Result<Response, ClientError>
    where
        F: Fn(Progress) + Send + Sync + 'static,
    {
        opts.progress = true;
        self.start(request, opts, Some(Box::new(progress))).outcome().await
    }

    /// Starts the server if needed and waits until its era is known.
    pub async fn connect(&self) -> Result<ServerInfo, ClientError> {
        self.request(Request::Connect, RequestOptions::default()).await?.into_connected()
    }

    /// All tools (every page).
    pub async fn list_tools(&self) -> Result<Vec<Tool>, ClientError> {
        self.request(Request::ListTools, RequestOptions::default()).await?.into_tools()
    }

    /// All prompts.
    pub async fn list_prompts(&self) -> Result<Vec<Prompt>, ClientError> {
        self.request(Request::ListPrompts, RequestOptions::default()).await?.into_prompts()
    }

    /// All resources.
    pub async fn list_resources(&self) -> Result<Vec<Resource>, ClientError> {
        self.request(Request::ListResources, RequestOptions::default()).await?.into_resources()
    }

    /// All resource templates.
    pub async fn list_resource_templates(&self) -> Result<Vec<ResourceTemplate>, ClientError> {
        self.request(Request::ListResourceTemplates, RequestOptions::default())
            .await?
            .into_resource_templates()
    }

    /// Calls a tool. `arguments` is a JSON object (or `null`); a `_meta` key in it is sent as
    /// the request's `_meta`. A tool failure is a result with `is_error`, not an `Err`.
    pub async fn call_tool(&self, name: &str, arguments: Value) -> Result<CallToolResult, ClientError> {
        self.call_tool_with(name, arguments, RequestOptions::default()).await
    }

    /// Calls a tool with options (timeout, `_meta`, ...).
    pub async fn call_tool_with(
        &self,
        name: &str,
        arguments: Value,
        opts: RequestOptions,
    ) -> Result<CallToolResult, ClientError> {
        self.request(Request::call_tool(name, arguments), opts).await?.into_tool_result()
    }

    /// Calls a tool, reporting progress notifications to `progress`.
    pub async fn call_tool_with_progress<F>(
        &self,
        name: &str,
        arguments: Value,
        opts: RequestOptions,
        progress: F,
    ) -> Result<CallToolResult, ClientError>
    where
        F: Fn(Progress) + Send + Sync + 'static,
    {
        self.request_with_progress(Request::call_tool(name, arguments), opts, progress)
            .await?
            .into_tool_result()
    }

    /// Gets a prompt with string arguments.
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Result<GetPromptResult, ClientError> {
        self.request(Request::get_prompt(name, arguments), RequestOptions::default()).await?.into_prompt()
    }

    /// Reads a resource.
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, ClientError> {
        self.request(Request::read_resource(uri), RequestOptions::default()).await?.into_resource()
    }

    /// Asks for completions of an argument.
    pub async fn complete(
        &self,
        reference: CompletionReference,
        argument: &str,
        value: &str,
    ) -> Result<CompleteResult, ClientError> {
        self.request(Request::complete(reference, argument, value), RequestOptions::default())
            .await?
            .into_completion()
    }

    /// Checks the server is alive (`ping`, or `server/discover` on 2026-07-28 servers).
    pub async fn ping(&self) -> Result<(), ClientError> {
        self.request(Request::Ping, RequestOptions::default()).await.map(|_| ())
    }

    /// Sets the server's log level.
    pub async fn set_log_level(&self, level: LoggingLevel) -> Result<(), ClientError> {
        self.request(Request::SetLogLevel(level), RequestOptions::default()).await.map(|_| ())
    }

    /// Shuts the server down (stdin closed, then terminate, then kill) and waits until done.
    pub async fn close(&self) {
        let (done, wait) = async_channel::bounded(1);
        if self.tx.try_send(Command::Close(done)).is_ok() {
            let _ = wait.recv().await;
        }
    }
}
