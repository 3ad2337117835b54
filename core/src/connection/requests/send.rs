//! Sending requests: the queue moved forward when the connection can send, each request built
//! for the server's era (its kind's method and params from [`super::kinds`], then `_meta`), a
//! plain `tools/call` encoded straight to bytes.

use std::borrow::Cow;
use std::time::Instant;

use serde_json::{Map, Value};

use crate::connection::handshake::modern_meta;
use crate::connection::{Connection, Outgoing, Proc, Session};
use crate::era::Era;
use crate::handle::{Epoch, RequestHandle};
use crate::request::{Request, RequestOptions};
use crate::response::Response;
use crate::timers::Timer;

use super::{kinds, Op};

impl Connection {
    /// Queues a request the connection issues on its own ([`Op::internal`]) at the front of the
    /// queue, under the connection's request timeout; its outcome goes to the feature that
    /// issued it (from [`Connection::finish`]), never to the host.
    pub(in crate::connection) fn queue_internal(
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
        self.in_flight.add_first(handle, op);
        handle
    }

    /// A retry's wait is over (HTTP), or a task's next poll or a paced input wait is due: send
    /// the request again.
    pub(in crate::connection) fn on_retry_timer(&mut self, now: Instant, handle: RequestHandle) {
        if self.in_flight.requeue_unsent(handle) {
            self.pump(now);
        }
    }

    /// Moves queued requests forward: starts the process if needed, sends when ready.
    pub(in crate::connection) fn pump(&mut self, now: Instant) {
        if !self.in_flight.has_queued() || self.phase != crate::connection::Phase::Open {
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
                while let Some(h) = self.in_flight.next_queued() {
                    self.send_op(now, epoch, era, h);
                }
            }
            Proc::Running { .. } => {}
        }
    }

    /// Sends (or answers locally) one request on a ready connection.
    fn send_op(&mut self, now: Instant, epoch: Epoch, era: Era, handle: RequestHandle) {
        let Some(op) = self.in_flight.get(handle) else { return };
        if let Some(refusal) = self.refusal(&op.request, era) {
            self.finish(handle, Err(refusal));
            return;
        }
        if self.wait_for_discover_refresh(now, era, handle) {
            return;
        }
        let Some(op) = self.in_flight.get(handle) else { return };
        if let Some(refusal) = self.capability_gate(&op.request) {
            self.finish(handle, Err(refusal));
            return;
        }
        self.start_task_wait(handle, era);
        #[cfg(feature = "http")]
        if self.list_tools_first(now, era, handle) {
            return;
        }
        let Some(op) = self.in_flight.get(handle) else { return };
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
        self.in_flight.mark_sent(handle, epoch, id.clone());
        self.send(epoch, Outgoing::Request { id, method, params });
        self.on_listen_sent(now, handle);
    }

    /// Whether a request is a `tools/call` whose params are exactly its name and arguments
    /// (legacy era; no `_meta` from anywhere, no progress token, no task, no input round):
    /// [`Connection::build`] would give `{"arguments", "name"}` and nothing else, so the message
    /// is written straight from the request (`jsonrpc::encode_call`).
    fn is_plain_call(&self, handle: RequestHandle, era: Era) -> bool {
        let Some(op) = self.in_flight.get(handle) else { return false };
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
        let Some(op) = self.in_flight.get(handle) else { return };
        let Request::CallTool { name, arguments } = &op.request else { return };
        let bytes = crate::jsonrpc::encode_call(&id, name, arguments.as_object());
        self.in_flight.mark_sent(handle, epoch, id.clone());
        match self.transport {
            crate::connection::Transport::Stdio(_) => {
                self.trace_sent(epoch, &bytes);
                self.io.push_back(crate::io::Io::Write { epoch, bytes });
            }
            #[cfg(feature = "http")]
            crate::connection::Transport::Http(_) => {
                self.send(epoch, Outgoing::Encoded { id, method: "tools/call", bytes });
            }
        }
        self.on_listen_sent(now, handle);
    }

    /// The method and params of a request for the given era: a task poll's own
    /// ([`Connection::task_request`]), or what the request's kind gives ([`kinds::wire`]) with
    /// `_meta` and input responses added.
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
        let op = self.in_flight.get(handle).expect("op exists");
        let legacy_task_required = match &op.request {
            Request::CallTool { name, .. } if era == Era::Legacy => self.legacy_task_required(name),
            _ => false,
        };
        let facts = kinds::WireFacts {
            era,
            protocol_version: self.server_info().map(|i| i.protocol_version.as_str()),
            cursor: op.pages.cursor.as_deref(),
            timeout: op.timeout,
            legacy_task_required,
        };
        let kinds::Wire { method, params, hoisted } = kinds::wire(&op.request, &facts);
        self.finish_build(handle, era, method, params, hoisted)
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
        let op = self.in_flight.get(handle).expect("op exists");
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
            self.in_flight.track_progress(token, handle);
        }
        let params = if params.is_empty() && era == Era::Legacy { None } else { Some(Value::Object(params)) };
        (method, params)
    }
}
