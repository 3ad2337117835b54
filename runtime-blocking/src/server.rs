//! [`Server`]: the blocking API of one server of a client, and [`CancelToken`].

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, SyncSender};
use std::sync::{Arc, Mutex};

use mcp_core::types::{
    CallToolResult, CompleteResult, CompletionReference, GetPromptResult, LoggingLevel, Prompt,
    ReadResourceResult, Resource, ResourceTemplate, Tool,
};
use mcp_core::{ClientError, Progress, Request, RequestError, RequestOptions, Response, ServerInfo};
use serde_json::{Map, Value};

use crate::driver::{lock, send_detached, Msg, ProgressFn, Shared};

/// One server of a [`crate::Client`]. Cheap to clone; every clone talks to the same driver
/// thread, and the server shuts down when the last clone (with its client) is dropped.
///
/// Every method blocks the calling thread until the outcome is known. A call cannot be
/// abandoned half-way: bound it with [`RequestOptions::timeout`] or cancel it from another
/// thread through a [`CancelToken`] ([`Server::request_with_cancel`]).
#[derive(Clone)]
pub struct Server {
    inner: Arc<Inner>,
}

struct Inner {
    name: Arc<str>,
    tx: SyncSender<Msg>,
    shared: Arc<Shared>,
    calls: AtomicU64,
}

impl Drop for Inner {
    fn drop(&mut self) {
        send_detached(&self.tx, Msg::Released);
    }
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server").field("name", &self.inner.name).finish_non_exhaustive()
    }
}

/// Cancels blocking calls from another thread (or from a progress callback). Cancelling ends
/// every call made with the token, now and later, with [`RequestError::Cancelled`]; the server
/// gets `notifications/cancelled` for requests it had received. Cheap to clone.
#[derive(Clone, Default)]
pub struct CancelToken {
    state: Arc<Mutex<TokenState>>,
}

#[derive(Default)]
struct TokenState {
    cancelled: bool,
    next_watch: u64,
    /// Watched calls by watch number: (call number on its server, that server's channel).
    calls: BTreeMap<u64, (u64, SyncSender<Msg>)>,
}

impl std::fmt::Debug for CancelToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CancelToken").field("cancelled", &self.is_cancelled()).finish()
    }
}

impl CancelToken {
    /// A token not cancelled yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Cancels every call made with this token. Idempotent; never blocks.
    pub fn cancel(&self) {
        let calls = {
            let mut state = lock(&self.state);
            state.cancelled = true;
            std::mem::take(&mut state.calls)
        };
        for (call, tx) in calls.into_values() {
            send_detached(&tx, Msg::Cancel(call));
        }
    }

    /// True once [`CancelToken::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        lock(&self.state).cancelled
    }

    /// Watches a call that was already sent to its driver (so a cancel can never overtake
    /// it). Returns the watch number for [`CancelToken::unwatch`].
    fn watch(&self, call: u64, tx: &SyncSender<Msg>) -> Option<u64> {
        let mut state = lock(&self.state);
        if state.cancelled {
            drop(state);
            send_detached(tx, Msg::Cancel(call));
            return None;
        }
        state.next_watch += 1;
        let watch = state.next_watch;
        state.calls.insert(watch, (call, tx.clone()));
        Some(watch)
    }

    fn unwatch(&self, watch: u64) {
        lock(&self.state).calls.remove(&watch);
    }
}

impl Server {
    pub(crate) fn new(name: Arc<str>, tx: SyncSender<Msg>, shared: Arc<Shared>) -> Self {
        Self { inner: Arc::new(Inner { name, tx, shared, calls: AtomicU64::new(1) }) }
    }

    /// The server's name in the client.
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// What is known about the server while it is connected.
    pub fn info(&self) -> Option<ServerInfo> {
        lock(&self.inner.shared).info.clone()
    }

    /// The tools of the last complete listing, unless invalidated since.
    pub fn known_tools(&self) -> Option<Vec<Tool>> {
        lock(&self.inner.shared).tools.clone()
    }

    fn call(
        &self,
        request: Request,
        opts: RequestOptions,
        progress: Option<ProgressFn>,
        cancel: Option<&CancelToken>,
    ) -> Result<Response, ClientError> {
        if cancel.is_some_and(CancelToken::is_cancelled) {
            return Err(RequestError::Cancelled.into());
        }
        let call = self.inner.calls.fetch_add(1, Ordering::Relaxed);
        let (reply, rx) = mpsc::sync_channel(1);
        let tx = &self.inner.tx;
        if tx.send(Msg::Request { call, request, opts, progress, reply }).is_err() {
            return Err(ClientError::Closed);
        }
        let watch = cancel.and_then(|token| token.watch(call, tx));
        let outcome = rx.recv().unwrap_or(Err(ClientError::Closed));
        if let (Some(token), Some(watch)) = (cancel, watch) {
            token.unwatch(watch);
        }
        outcome
    }

    /// Sends any request and waits for its typed response.
    pub fn request(&self, request: Request, opts: RequestOptions) -> Result<Response, ClientError> {
        self.call(request, opts, None, None)
    }

    /// Like [`Server::request`], ending early with [`RequestError::Cancelled`] when `token`
    /// is cancelled (from another thread or a progress callback).
    pub fn request_with_cancel(
        &self,
        request: Request,
        opts: RequestOptions,
        token: &CancelToken,
    ) -> Result<Response, ClientError> {
        self.call(request, opts, None, Some(token))
    }

    /// Like [`Server::request`], calling `progress` for each progress notification
    /// (`opts.progress` is switched on). The callback runs on the server's driver thread.
    pub fn request_with_progress<F>(
        &self,
        request: Request,
        mut opts: RequestOptions,
        progress: F,
    ) -> Result<Response, ClientError>
    where
        F: Fn(Progress) + Send + 'static,
    {
        opts.progress = true;
        self.call(request, opts, Some(Box::new(progress)), None)
    }

    /// Starts the server if needed and waits until its era is known.
    pub fn connect(&self) -> Result<ServerInfo, ClientError> {
        self.request(Request::Connect, RequestOptions::default())?.into_connected()
    }

    /// All tools (every page).
    pub fn list_tools(&self) -> Result<Vec<Tool>, ClientError> {
        self.request(Request::ListTools, RequestOptions::default())?.into_tools()
    }

    /// All prompts.
    pub fn list_prompts(&self) -> Result<Vec<Prompt>, ClientError> {
        self.request(Request::ListPrompts, RequestOptions::default())?.into_prompts()
    }

    /// All resources.
    pub fn list_resources(&self) -> Result<Vec<Resource>, ClientError> {
        self.request(Request::ListResources, RequestOptions::default())?.into_resources()
    }

    /// All resource templates.
    pub fn list_resource_templates(&self) -> Result<Vec<ResourceTemplate>, ClientError> {
        self.request(Request::ListResourceTemplates, RequestOptions::default())?.into_resource_templates()
    }

    /// Calls a tool. `arguments` is a JSON object (or `null`); a `_meta` key in it is sent as
    /// the request's `_meta`. A tool failure is a result with `is_error`, not an `Err`.
    pub fn call_tool(&self, name: &str, arguments: Value) -> Result<CallToolResult, ClientError> {
        self.call_tool_with(name, arguments, RequestOptions::default())
    }

    /// Calls a tool with options (timeout, `_meta`, ...).
    pub fn call_tool_with(
        &self,
        name: &str,
        arguments: Value,
        opts: RequestOptions,
    ) -> Result<CallToolResult, ClientError> {
        self.request(Request::call_tool(name, arguments), opts)?.into_tool_result()
    }

    /// Calls a tool, reporting progress notifications to `progress` (on the driver thread).
    pub fn call_tool_with_progress<F>(
        &self,
        name: &str,
        arguments: Value,
        opts: RequestOptions,
        progress: F,
    ) -> Result<CallToolResult, ClientError>
    where
        F: Fn(Progress) + Send + 'static,
    {
        self.request_with_progress(Request::call_tool(name, arguments), opts, progress)?.into_tool_result()
    }

    /// Gets a prompt with string arguments.
    pub fn get_prompt(
        &self,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Result<GetPromptResult, ClientError> {
        self.request(Request::get_prompt(name, arguments), RequestOptions::default())?.into_prompt()
    }

    /// Reads a resource.
    pub fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, ClientError> {
        self.request(Request::read_resource(uri), RequestOptions::default())?.into_resource()
    }

    /// Asks for completions of an argument.
    pub fn complete(
        &self,
        reference: CompletionReference,
        argument: &str,
        value: &str,
    ) -> Result<CompleteResult, ClientError> {
        self.request(Request::complete(reference, argument, value), RequestOptions::default())?
            .into_completion()
    }

    /// Checks the server is alive (`ping`, or `server/discover` on 2026-07-28 servers).
    pub fn ping(&self) -> Result<(), ClientError> {
        self.request(Request::Ping, RequestOptions::default()).map(|_| ())
    }

    /// Sets the server's log level.
    pub fn set_log_level(&self, level: LoggingLevel) -> Result<(), ClientError> {
        self.request(Request::SetLogLevel(level), RequestOptions::default()).map(|_| ())
    }

    /// Shuts the server down (stdin closed, then terminate, then kill) and blocks until done.
    /// Later requests fail with a "closed" error.
    pub fn close(&self) {
        let (done, wait) = mpsc::sync_channel(1);
        if self.inner.tx.send(Msg::Close(done)).is_ok() {
            let _ = wait.recv();
        }
    }
}
