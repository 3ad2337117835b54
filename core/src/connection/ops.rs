//! Host requests: building them for the server's era, deadlines, their answers; what they cache
//! (pagination is in [`super::pages`], the cache itself in [`super::cache`]).

use std::borrow::Cow;
use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};

use super::handshake::modern_meta;
use super::pages::Pages;
use super::{Connection, Outgoing, Proc, Session, WireUse};
use crate::era::Era;
use crate::error::{CommandError, RequestError, RpcError, Warning};
use crate::event::Progress;
use crate::handle::{Epoch, RequestHandle};
use crate::jsonrpc::{ResultJson, RpcErrorObject, WireId};
use crate::request::{Request, RequestOptions};
use crate::response::Response;
use crate::timers::Timer;
use crate::types::{CallToolResult, CompleteResult, GetPromptResult, ReadResourceResult};

/// One host request in flight.
#[derive(Debug)]
pub(super) struct Op {
    pub(super) request: Request,
    pub(super) opts: RequestOptions,
    pub(super) timeout: Duration,
    hard_deadline: Option<Instant>,
    /// The process and wire id of the attempt on the wire, if any.
    pub(super) sent: Option<(Epoch, WireId)>,
    pub(super) progress_token: Option<String>,
    pub(super) pages: Pages,
    /// HTTP: transport retries made so far.
    pub(super) retries: u32,
    /// HTTP (modern): the one re-issue after a broken response stream was used.
    #[cfg(feature = "http")]
    pub(super) reissued: bool,
    /// Multi-round-trip input, once the server asked for some.
    pub(super) input: Option<super::input_rounds::InputRound>,
    /// `tools/call`: the tool's schemas when the host issued the call (its result is checked
    /// against them, whatever definition arrives later).
    pub(super) tool: Option<std::sync::Arc<super::validation::ToolSchemas>>,
    /// `subscriptions/listen`: the stream's own state.
    pub(super) listen: Option<super::subscriptions::ListenState>,
    /// Cacheable requests: the credential they went out with, a restarted page sequence.
    pub(super) cache: super::cache::OpCache,
    /// A call the server turned into a task: what polling it needs.
    pub(super) task: Option<super::tasks::TaskState>,
    /// `Mcp-Param-*` upkeep: a call's list-first and header-mismatch retry, or the calls an
    /// internal `tools/list` is for.
    #[cfg(feature = "http")]
    pub(super) headers: super::header_retry::HeaderState,
    /// A request the connection issued on its own (a `server/discover` refresh, a
    /// `resources/subscribe` renewed after a restart): no handle for the host, no
    /// [`crate::Event::Response`].
    pub(super) internal: bool,
    /// It waited for a `server/discover` refresh once already (never twice).
    pub(super) waited_for_discover: bool,
}

impl Op {
    pub(super) fn new(request: Request, opts: RequestOptions, now: Instant, timeout: Duration) -> Self {
        let hard_deadline = if opts.reset_timeout_on_progress {
            opts.max_total_timeout.and_then(|d| now.checked_add(d))
        } else {
            None
        };
        Self {
            request,
            opts,
            timeout,
            hard_deadline,
            sent: None,
            progress_token: None,
            pages: Pages::default(),
            retries: 0,
            #[cfg(feature = "http")]
            reissued: false,
            input: None,
            tool: None,
            listen: None,
            task: None,
            cache: Default::default(),
            #[cfg(feature = "http")]
            headers: Default::default(),
            internal: false,
            waited_for_discover: false,
        }
    }

    /// Whether the host has no handle for it (an internal request or `tools/list`).
    pub(super) fn is_internal(&self) -> bool {
        // An internal `tools/list` for `Mcp-Param-*` headers (HTTP).
        #[cfg(feature = "http")]
        if self.headers.is_internal() {
            return true;
        }
        self.internal
    }

    /// The deadline of a timeout starting at `now`, within the hard bound; `None` when the
    /// timeout is too long to be represented (no deadline).
    pub(super) fn deadline(&self, now: Instant) -> Option<Instant> {
        match (now.checked_add(self.timeout), self.hard_deadline) {
            (Some(at), Some(hard)) => Some(at.min(hard)),
            (at, hard) => at.or(hard),
        }
    }
}

/// Rejects requests that cannot be sent.
pub(super) fn validate(request: &Request) -> Result<(), CommandError> {
    match request {
        Request::GetTask { task_id }
        | Request::CancelTask { task_id }
        | Request::TaskResult { task_id, .. }
            if task_id.is_empty() =>
        {
            return Err(CommandError::InvalidArgument("task id is empty".into()));
        }
        Request::CallTool { name, arguments } | Request::CallToolAsTask { name, arguments } => {
            if name.is_empty() {
                return Err(CommandError::InvalidArgument("tool name is empty".into()));
            }
            if !(arguments.is_object() || arguments.is_null()) {
                return Err(CommandError::InvalidArgument("tool arguments must be a JSON object".into()));
            }
        }
        Request::Complete { context: Some(ctx), .. } => {
            if let Some((name, _)) = ctx.iter().find(|(_, v)| !v.is_string()) {
                let detail = format!("completion context argument {name:?} must be a string");
                return Err(CommandError::InvalidArgument(detail));
            }
        }
        Request::Custom { method, params } => {
            if method.is_empty() {
                return Err(CommandError::InvalidArgument("method is empty".into()));
            }
            if !(params.is_object() || params.is_null()) {
                return Err(CommandError::InvalidArgument("params must be a JSON object".into()));
            }
        }
        _ => {}
    }
    Ok(())
}

impl Connection {
    /// Queues a request the connection issues on its own ([`Op::internal`]) at the front of the
    /// queue, under the connection's request timeout; its outcome goes to the feature that
    /// issued it (from [`Connection::finish`]), never to the host.
    pub(super) fn queue_internal(
        &mut self,
        now: Instant,
        request: Request,
        opts: RequestOptions,
    ) -> RequestHandle {
        let op = Op { internal: true, ..Op::new(request, opts, now, self.cfg.timeouts.request) };
        let handle = RequestHandle::new(self.counters.handles.next());
        if let Some(at) = op.deadline(now) {
            self.timers.set(Timer::Request(handle), at);
        }
        self.ops.insert(handle, Box::new(op));
        self.queue.push_front(handle);
        handle
    }

    /// A retry's wait is over (HTTP), or a task's next poll or a paced input wait is due: send
    /// the request again.
    pub(in crate::connection) fn on_retry_timer(&mut self, now: Instant, handle: RequestHandle) {
        if self.ops.get(&handle).is_some_and(|op| op.sent.is_none()) && !self.queue.contains(&handle) {
            self.queue.push_back(handle);
            self.pump(now);
        }
    }

    /// Moves queued requests forward: starts the process if needed, sends when ready.
    pub(super) fn pump(&mut self, now: Instant) {
        if self.queue.is_empty() || self.phase != super::Phase::Open {
            return;
        }
        // HTTP: requests wait for a new legacy session's GET stream, or for an authorization.
        #[cfg(feature = "http")]
        if matches!(self.proc, Proc::Running { session: Session::Ready(_), .. })
            && self.http_holds_requests(now)
        {
            return;
        }
        match &self.proc {
            Proc::Down => self.spawn(now),
            Proc::Starting { .. } => {}
            Proc::Running { session: Session::Ready(info), epoch } if self.transport.is_open() => {
                let (epoch, era) = (*epoch, info.era);
                while let Some(h) = self.queue.pop_front() {
                    self.send_op(now, epoch, era, h);
                }
            }
            Proc::Running { .. } => {}
        }
    }

    /// Sends (or answers locally) one request on a ready connection.
    fn send_op(&mut self, now: Instant, epoch: Epoch, era: Era, handle: RequestHandle) {
        let Some(op) = self.ops.get(&handle) else { return };
        if let Some(refusal) = self.refusal(&op.request, era) {
            self.finish(handle, Err(refusal));
            return;
        }
        if self.wait_for_discover_refresh(now, era, handle) {
            return;
        }
        let Some(op) = self.ops.get(&handle) else { return };
        if let Some(refusal) = self.capability_gate(&op.request) {
            self.finish(handle, Err(refusal));
            return;
        }
        self.start_task_wait(handle, era);
        #[cfg(feature = "http")]
        if self.list_tools_first(now, era, handle) {
            return;
        }
        let Some(op) = self.ops.get(&handle) else { return };
        let fresh_info = match (&op.request, era) {
            (Request::Connect | Request::Discover, Era::Legacy) | (Request::Connect, Era::Modern) => true,
            (Request::Discover, Era::Modern) => self.discover_fresh(now, &op.opts),
            _ => false,
        };
        if fresh_info {
            if let Some(info) = self.server_info().cloned() {
                self.finish(handle, Ok(Response::Connected(Box::new(info))));
            }
            return;
        }
        match (&op.request, era) {
            (Request::SetLogLevel(level), Era::Modern) => {
                self.log_level = Some(*level);
                self.finish(handle, Ok(Response::Empty));
                return;
            }
            (Request::CallTool { .. }, _) => {
                if let Some(refusal) = op.tool.as_ref().and_then(|s| s.refusal()) {
                    self.finish(handle, Err(refusal));
                    return;
                }
            }
            _ => {}
        }
        if self.is_plain_call(handle, era) {
            self.send_plain_call(now, epoch, handle);
            return;
        }
        let (method, params) = self.build(handle, era);
        self.note_sent(handle);
        let id = self.next_wire_id();
        self.wire.insert(id.clone(), WireUse::Op(handle));
        if let Some(op) = self.ops.get_mut(&handle) {
            op.sent = Some((epoch, id.clone()));
        }
        self.send(epoch, Outgoing::Request { id, method, params });
        self.on_listen_sent(now, handle);
    }

    /// Whether a request is a `tools/call` whose params are exactly its name and arguments
    /// (legacy era; no `_meta` from anywhere, no progress token, no task, no input round):
    /// [`Connection::build`] would give `{"arguments", "name"}` and nothing else, so the message
    /// is written straight from the request (`jsonrpc::encode_call`).
    fn is_plain_call(&self, handle: RequestHandle, era: Era) -> bool {
        let Some(op) = self.ops.get(&handle) else { return false };
        let Request::CallTool { name, arguments } = &op.request else { return false };
        let plain_args = match arguments {
            Value::Object(args) => !args.contains_key("_meta"),
            Value::Null => true,
            _ => false,
        };
        plain_args
            && era == Era::Legacy
            && op.task.is_none()
            && op.input.is_none()
            && !op.opts.progress
            && op.opts.meta.as_ref().is_none_or(Map::is_empty)
            && self.cfg.request_meta.is_empty()
            && !self.legacy_task_required(name)
    }

    /// Sends a plain `tools/call` (see [`Connection::is_plain_call`]).
    fn send_plain_call(&mut self, now: Instant, epoch: Epoch, handle: RequestHandle) {
        self.note_sent(handle);
        let id = self.next_wire_id();
        let Some(op) = self.ops.get_mut(&handle) else { return };
        let Request::CallTool { name, arguments } = &op.request else { return };
        let bytes = crate::jsonrpc::encode_call(&id, name, arguments.as_object());
        op.sent = Some((epoch, id.clone()));
        match self.transport {
            super::Transport::Stdio(_) => {
                self.wire.insert(id, WireUse::Op(handle));
                self.trace_sent(epoch, &bytes);
                self.io.push_back(crate::io::Io::Write { epoch, bytes });
            }
            #[cfg(feature = "http")]
            super::Transport::Http(_) => {
                self.wire.insert(id.clone(), WireUse::Op(handle));
                self.send(epoch, Outgoing::Encoded { id, method: "tools/call", bytes });
            }
        }
        self.on_listen_sent(now, handle);
    }

    /// The method and params of a request for the given era.
    fn build(&mut self, handle: RequestHandle, era: Era) -> (Cow<'static, str>, Option<Value>) {
        if let Some((method, mut params, modern)) = self.task_request(handle) {
            if modern {
                let mut meta = modern_meta(&self.cfg.client_info, &self.cfg.features);
                if let Some(level) = self.log_level {
                    meta.insert(
                        "io.modelcontextprotocol/logLevel".into(),
                        Value::String(level.as_str().into()),
                    );
                }
                params.insert("_meta".into(), Value::Object(meta));
            }
            return (Cow::Borrowed(method), Some(Value::Object(params)));
        }
        let op = self.ops.get(&handle).expect("op exists");
        let mut hoisted: Option<Map<String, Value>> = None;
        let (method, params): (&'static str, Map<String, Value>) = match &op.request {
            Request::Connect => unreachable!("answered locally"),
            r @ (Request::ListTools
            | Request::ListPrompts
            | Request::ListResources
            | Request::ListResourceTemplates) => {
                let (_, method, _) = r.list_kind().expect("list request");
                let mut p = Map::new();
                if let Some(c) = &op.pages.cursor {
                    p.insert("cursor".into(), Value::String(c.clone()));
                }
                (method, p)
            }
            Request::GetTask { task_id } => ("tasks/get", one("taskId", Value::String(task_id.clone()))),
            Request::CancelTask { task_id } => {
                ("tasks/cancel", one("taskId", Value::String(task_id.clone())))
            }
            Request::TaskResult { .. } => unreachable!("a task result is polled as a task"),
            Request::ListTasks => {
                let mut p = Map::new();
                if let Some(c) = &op.pages.cursor {
                    p.insert("cursor".into(), Value::String(c.clone()));
                }
                ("tasks/list", p)
            }
            r @ (Request::CallTool { name, arguments } | Request::CallToolAsTask { name, arguments }) => {
                let as_task = matches!(r, Request::CallToolAsTask { .. });
                let mut args = match arguments {
                    Value::Object(m) => m.clone(),
                    _ => Map::new(),
                };
                if let Some(meta) = args.remove("_meta") {
                    hoisted = meta.as_object().cloned();
                }
                let mut p = Map::new();
                p.insert("name".into(), Value::String(name.clone()));
                p.insert("arguments".into(), Value::Object(args));
                if era == Era::Legacy && (as_task || self.legacy_task_required(name)) {
                    // A call waiting for its task asks it to live as long as the call may wait;
                    // one started on purpose takes the server's default.
                    let mut task = Map::new();
                    if !as_task {
                        let ms = u64::try_from(op.timeout.as_millis()).unwrap_or(u64::MAX);
                        task.insert("ttl".into(), Value::from(ms));
                    }
                    p.insert("task".into(), Value::Object(task));
                }
                ("tools/call", p)
            }
            Request::GetPrompt { name, arguments } => {
                let mut p = Map::new();
                p.insert("name".into(), Value::String(name.clone()));
                if !arguments.is_empty() {
                    p.insert("arguments".into(), Value::Object(arguments.clone()));
                }
                ("prompts/get", p)
            }
            Request::ReadResource { uri } => ("resources/read", one("uri", Value::String(uri.clone()))),
            Request::SubscribeResource { uri } => {
                ("resources/subscribe", one("uri", Value::String(uri.clone())))
            }
            Request::UnsubscribeResource { uri } => {
                ("resources/unsubscribe", one("uri", Value::String(uri.clone())))
            }
            Request::Listen { filter, .. } => {
                ("subscriptions/listen", one("notifications", filter.to_value()))
            }
            Request::Complete { reference, argument, value, context } => {
                let mut p = Map::new();
                p.insert("ref".into(), reference.to_value());
                p.insert("argument".into(), json!({"name": argument, "value": value}));
                // `context` exists since 2025-06-18; older revisions do not get it.
                let has_context =
                    self.server_info().is_some_and(|i| i.protocol_version.as_str() >= "2025-06-18");
                if let Some(ctx) = context.as_ref().filter(|_| has_context) {
                    p.insert("context".into(), json!({"arguments": ctx}));
                }
                ("completion/complete", p)
            }
            Request::Ping => match era {
                Era::Modern => ("server/discover", Map::new()),
                Era::Legacy => ("ping", Map::new()),
            },
            // Legacy servers are answered locally.
            Request::Discover => ("server/discover", Map::new()),
            Request::SetLogLevel(level) => {
                ("logging/setLevel", one("level", Value::String(level.as_str().into())))
            }
            Request::Custom { method, params } => {
                let p = params.as_object().cloned().unwrap_or_default();
                return self.finish_build(handle, era, Cow::Owned(method.clone()), p, None);
            }
        };
        self.finish_build(handle, era, Cow::Borrowed(method), params, hoisted)
    }

    /// Merges `_meta` into the params and registers the progress token.
    fn finish_build(
        &mut self,
        handle: RequestHandle,
        era: Era,
        method: Cow<'static, str>,
        mut params: Map<String, Value>,
        hoisted: Option<Map<String, Value>>,
    ) -> (Cow<'static, str>, Option<Value>) {
        let op = self.ops.get(&handle).expect("op exists");
        let (op_meta, want_progress, existing_token) =
            (op.opts.meta.clone(), op.opts.progress, op.progress_token.clone());
        if let Some((responses, state)) = op.input.as_ref().and_then(|r| r.retry.as_ref()) {
            params.insert("inputResponses".into(), Value::Object(responses.clone()));
            if let Some(state) = state {
                params.insert("requestState".into(), Value::String(state.clone()));
            }
        }
        // _meta: static, hoisted from arguments, per request, progress token, then the protocol
        // envelope (which the host cannot override).
        let mut meta = self.cfg.request_meta.clone();
        if let Some(Value::Object(existing)) = params.remove("_meta") {
            meta.extend(existing);
        }
        if let Some(h) = hoisted {
            meta.extend(h);
        }
        if let Some(m) = op_meta {
            meta.extend(m);
        }
        let mut token_to_register = None;
        if want_progress {
            let token = match existing_token {
                Some(t) => t,
                None => format!("mcp-progress-{}", self.counters.progress.next()),
            };
            meta.insert("progressToken".into(), Value::String(token.clone()));
            token_to_register = Some(token);
        }
        if era == Era::Modern {
            meta.extend(modern_meta(&self.cfg.client_info, &self.cfg.features));
            if let Some(level) = self.log_level {
                meta.insert("io.modelcontextprotocol/logLevel".into(), Value::String(level.as_str().into()));
            }
        }
        if !meta.is_empty() {
            params.insert("_meta".into(), Value::Object(meta));
        }
        if let Some(token) = token_to_register {
            self.progress.insert(progress_key(&token), handle);
            if let Some(op) = self.ops.get_mut(&handle) {
                op.progress_token = Some(token);
            }
        }
        let params = if params.is_empty() && era == Era::Legacy { None } else { Some(Value::Object(params)) };
        (method, params)
    }

    /// The server answered a host request.
    pub(super) fn on_op_response(
        &mut self,
        now: Instant,
        handle: RequestHandle,
        outcome: Result<ResultJson, RpcErrorObject>,
    ) {
        #[cfg(feature = "http")]
        let Some(outcome) = self.on_header_mismatch(now, handle, outcome) else {
            return;
        };
        let result = match outcome {
            Err(e) if e.code == -32602 && self.restart_pages(now, handle) => return,
            Err(e) => {
                let err = RpcError { code: e.code, message: e.message, data: e.data };
                self.finish(handle, Err(RequestError::Rpc(err)));
                return;
            }
            Ok(r) => r,
        };
        match self.complete_tool_result(handle, result) {
            Ok(call) => self.finish_tool_result(handle, call),
            Err(result) => self.on_op_result(now, handle, result.to_value()),
        }
    }

    /// A result for an operation, parsed: routed by what it is and what the request was.
    pub(super) fn on_op_result(&mut self, now: Instant, handle: RequestHandle, value: Value) {
        if self.ops.get(&handle).is_some_and(|op| matches!(op.request, Request::Listen { .. })) {
            self.on_listen_response(handle, value);
            return;
        }
        if let Some(method) = self.ops.get(&handle).and_then(|op| op.task.as_ref()).map(|t| t.sent_method) {
            self.on_task_response(now, handle, method, value);
            return;
        }
        if let Some(round) = self.ops.get_mut(&handle).and_then(|op| op.input.as_mut()) {
            // The retry's input was for that one attempt.
            round.retry = None;
        }
        if let Some(rt) = value.get("resultType") {
            match rt.as_str() {
                Some("complete") => {}
                Some("input_required") => {
                    self.on_input_required(now, handle, value);
                    return;
                }
                Some("task") if self.era() == Some(Era::Modern) => {
                    self.on_task_created(now, handle, value, false);
                    return;
                }
                other => {
                    let result_type = other.map_or_else(|| rt.to_string(), str::to_owned);
                    self.finish(handle, Err(RequestError::UnsupportedResultType { result_type }));
                    return;
                }
            }
        }
        if let Some(task) = self.legacy_task_created(handle, &value) {
            self.on_task_created(now, handle, task, true);
            return;
        }
        let Some(op) = self.ops.get(&handle) else { return };
        if matches!(op.request, Request::ListTasks) {
            self.on_tasks_page(now, handle, value);
            return;
        }
        if op.request.list_kind().is_some() {
            self.on_page(now, handle, value);
            return;
        }
        if op.request == Request::Discover {
            self.on_rediscover(now, handle, value);
            return;
        }
        let read_uri = match &op.request {
            Request::ReadResource { uri } => Some(uri.clone()),
            _ => None,
        };
        let tool = op.tool.clone();
        let result = match &op.request {
            Request::CallTool { .. } => CallToolResult::from_value(value).map(Response::ToolResult),
            Request::GetPrompt { .. } => GetPromptResult::from_value(value).map(Response::Prompt),
            Request::ReadResource { .. } => ReadResourceResult::from_value(value).map(Response::Resource),
            Request::Complete { .. } => CompleteResult::from_value(value).map(Response::Completion),
            Request::Ping => Ok(Response::Pong),
            Request::SetLogLevel(_)
            | Request::SubscribeResource { .. }
            | Request::UnsubscribeResource { .. }
            | Request::CancelTask { .. } => Ok(Response::Empty),
            Request::CallToolAsTask { .. } | Request::TaskResult { .. } => {
                CallToolResult::from_value(value).map(Response::ToolResult)
            }
            Request::GetTask { .. } => {
                crate::types::Task::from_value(value).map(|t| Response::Task(Box::new(t)))
            }
            Request::Custom { .. } => Ok(Response::Raw(value)),
            _ => Ok(Response::Raw(value)),
        };
        let result = result
            .map_err(|e| RequestError::InvalidResponse { detail: e.to_string() })
            .and_then(|response| self.check_output(tool.as_deref(), response));
        if let (Ok(response), Some(uri)) = (&result, read_uri) {
            self.keep_read(now, handle, uri, response);
        }
        self.finish(handle, result);
    }

    /// The common case of `tools/call`, decoded straight from the result's text: a plain call
    /// (no task, no input round in progress) answered with a complete result. The result
    /// comes back for the general path (which parses it) otherwise, and when the direct decode
    /// does not take it (see [`CallToolResult::from_complete_text`]).
    fn complete_tool_result(
        &self,
        handle: RequestHandle,
        result: ResultJson,
    ) -> Result<CallToolResult, ResultJson> {
        if !self.is_plain_call_op(handle) {
            return Err(result);
        }
        CallToolResult::from_complete_text(result.into_raw()).map_err(ResultJson::from_raw)
    }

    /// Whether `handle` is a plain `tools/call`: no task, no input round in progress.
    fn is_plain_call_op(&self, handle: RequestHandle) -> bool {
        self.ops.get(&handle).is_some_and(|op| {
            matches!(op.request, Request::CallTool { .. }) && op.task.is_none() && op.input.is_none()
        })
    }

    /// A response line that answers a plain `tools/call` with a complete result, decoded in
    /// one pass ([`CallToolResult::from_answer_line`]) and delivered; the line comes back for
    /// the general path otherwise.
    pub(super) fn on_call_answer_line(&mut self, line: Vec<u8>) -> Result<(), Vec<u8>> {
        let wanted =
            |id: &WireId| matches!(self.wire.get(id), Some(WireUse::Op(h)) if self.is_plain_call_op(*h));
        let (id, call) = CallToolResult::from_answer_line(line, &wanted)?;
        if let Some(WireUse::Op(handle)) = self.take_answered(id) {
            self.op_answered(handle);
            self.finish_tool_result(handle, call);
        }
        Ok(())
    }

    /// Ends a `tools/call` with its decoded result, checked against the tool's output schema.
    fn finish_tool_result(&mut self, handle: RequestHandle, call: CallToolResult) {
        let tool = self.ops.get(&handle).and_then(|op| op.tool.clone());
        let checked = self.check_output(tool.as_deref(), Response::ToolResult(call));
        self.finish(handle, checked);
    }

    /// A response as the host gets it: a tool result checked against the tool's output schema
    /// (when the call knows the tool), anything else as it is.
    fn check_output(
        &mut self,
        tool: Option<&super::validation::ToolSchemas>,
        response: Response,
    ) -> Result<Response, RequestError> {
        match (&response, tool) {
            (Response::ToolResult(call), Some(schemas)) => {
                self.check_tool_result(schemas, call).map(|()| response)
            }
            _ => Ok(response),
        }
    }

    /// Drops cached lists of a kind (and, for resources, every cached read).
    pub(super) fn invalidate(&mut self, kind: crate::request::ListKind) {
        use crate::request::ListKind;
        match kind {
            ListKind::Tools => {
                self.drop_cached_list("tools/list");
                self.known_tools = None;
                self.tool_schemas.mark_stale();
            }
            ListKind::Prompts => self.drop_cached_list("prompts/list"),
            ListKind::Resources => {
                self.drop_cached_list("resources/list");
                self.drop_cached_list("resources/templates/list");
                self.drop_cached_reads(None);
            }
        }
    }

    /// Progress for a live request.
    pub(super) fn on_progress(&mut self, now: Instant, token_key: &str, progress: Progress) {
        let Some(&handle) = self.progress.get(token_key) else {
            self.warn(Warning::StaleProgress { token: crate::text::sanitize(token_key, 200) });
            return;
        };
        if let Some(op) = self.ops.get(&handle) {
            if op.opts.reset_timeout_on_progress {
                if let Some(at) = op.deadline(now) {
                    self.timers.set(Timer::Request(handle), at);
                }
            }
        }
        self.emit(crate::event::Event::Progress { handle, progress });
    }

    pub(super) fn on_request_timeout(&mut self, handle: RequestHandle) {
        let after = self.request_timeout_of(handle);
        self.abandon(handle, "request timed out");
        self.finish(handle, Err(RequestError::Timeout { after }));
    }

    /// Tells the server a sent request is no longer wanted (best effort): on stdio and legacy
    /// HTTP a `notifications/cancelled`; on modern HTTP closing the response stream is the
    /// cancellation.
    pub(super) fn abandon(&mut self, handle: RequestHandle, reason: &str) {
        // A task is cancelled with tasks/cancel (never notifications/cancelled); a poll in
        // flight is simply dropped.
        if self.cancel_task(handle) {
            #[cfg(feature = "http")]
            if let Some((_, id)) = self.ops.get(&handle).and_then(|op| op.sent.clone()) {
                self.http_abandon(&id);
            }
            return;
        }
        let Some(op) = self.ops.get(&handle) else { return };
        let Some((epoch, id)) = op.sent.clone() else { return };
        if self.current_epoch() != Some(epoch) || !self.wire.contains_key(&id) {
            return;
        }
        #[cfg(feature = "http")]
        if let Some(modern) = self.http_abandon(&id) {
            // Modern: closing the stream is the cancellation. Closing: the session ends anyway.
            if modern || self.phase != super::Phase::Open {
                return;
            }
        }
        let params = json!({"requestId": id.to_value(), "reason": reason});
        self.send(epoch, Outgoing::Notification { method: "notifications/cancelled", params: Some(params) });
    }

    /// Fails every request with the same error (the process went away, or the handshake failed).
    pub(super) fn fail_all(&mut self, err: &RequestError) {
        self.fail_all_but(err, &[]);
    }

    /// [`Self::fail_all`], sparing `keep` (listens waiting for the next process).
    pub(super) fn fail_all_but(&mut self, err: &RequestError, keep: &[RequestHandle]) {
        let handles: Vec<_> = self.ops.keys().copied().filter(|h| !keep.contains(h)).collect();
        for h in handles {
            self.finish(h, Err(err.clone()));
        }
    }
}

fn one(key: &str, v: Value) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert(key.into(), v);
    m
}

/// Progress tokens are matched by their JSON text, so a number never matches a string.
pub(super) fn progress_key(token: &str) -> String {
    Value::String(token.to_owned()).to_string()
}
