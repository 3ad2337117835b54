//! Pure bookkeeping shared by every runtime's client (async and blocking): handler sets,
//! server-list validation, the per-server view kept from events, and pending-call tables.
//! Runtimes hold these behind their own synchronisation; none of it does IO.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use crate::config::ClientFeatures;
use crate::connection::Connection;
use crate::error::ClientError;
use crate::event::{Event, ListKind, Notification, ServerRequestKind};
use crate::handle::RequestHandle;
use crate::request::Response;
use crate::session::ServerInfo;
use crate::spec::ServerSpec;
use crate::types::Tool;

/// The host's handlers for server-to-client requests, of whatever callable type a runtime uses.
/// Client capabilities are derived from which handlers are present, never assumed.
#[derive(Clone)]
pub struct HandlerSet<H> {
    /// Answers `roots/list`.
    pub roots: Option<H>,
    /// Answers `sampling/createMessage`.
    pub sampling: Option<H>,
    /// Answers `elicitation/create` (form mode).
    pub elicitation: Option<H>,
}

impl<H> Default for HandlerSet<H> {
    fn default() -> Self {
        Self { roots: None, sampling: None, elicitation: None }
    }
}

impl<H> std::fmt::Debug for HandlerSet<H> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HandlerSet")
            .field("roots", &self.roots.is_some())
            .field("sampling", &self.sampling.is_some())
            .field("elicitation", &self.elicitation.is_some())
            .finish()
    }
}

impl<H> HandlerSet<H> {
    /// The client features these handlers serve.
    pub fn features(&self) -> ClientFeatures {
        ClientFeatures {
            roots: self.roots.is_some(),
            sampling: self.sampling.is_some(),
            elicitation_form: self.elicitation.is_some(),
            elicitation_url: false,
        }
    }

    /// The handler for a kind of request, if installed.
    pub fn for_kind(&self, kind: ServerRequestKind) -> Option<&H> {
        match kind {
            ServerRequestKind::Roots => self.roots.as_ref(),
            ServerRequestKind::Sampling => self.sampling.as_ref(),
            ServerRequestKind::Elicitation => self.elicitation.as_ref(),
        }
    }
}

/// The local error reported when a request arrives for a handler that is not installed.
pub const NO_HANDLER: &str = "no handler installed";

/// The `roots/list` result for fixed `(uri, optional name)` roots.
pub fn roots_result<I, S>(roots: I) -> Value
where
    I: IntoIterator<Item = (S, Option<S>)>,
    S: Into<String>,
{
    let list: Vec<Value> = roots
        .into_iter()
        .map(|(uri, name)| match name {
            Some(n) => json!({ "uri": uri.into(), "name": n.into() }),
            None => json!({ "uri": uri.into() }),
        })
        .collect();
    json!({ "roots": list })
}

/// Checks a client's server list (at least one; names non-empty and unique) and gives every
/// server the features of the installed handlers.
pub fn prepare_servers(
    specs: Vec<ServerSpec>,
    features: &ClientFeatures,
) -> Result<Vec<ServerSpec>, ClientError> {
    if specs.is_empty() {
        return Err(ClientError::Config("no server configured".into()));
    }
    let mut seen = std::collections::BTreeSet::new();
    specs
        .into_iter()
        .map(|mut spec| {
            if spec.name.is_empty() || !seen.insert(spec.name.clone()) {
                return Err(ClientError::Config(format!(
                    "server name {:?} is empty or used twice",
                    spec.name
                )));
            }
            spec.config.features = features.clone();
            Ok(spec)
        })
        .collect()
}

/// What API handles can read about a server without asking its driver; kept current by
/// [`ServerView::observe`] on every routed event.
#[derive(Debug, Clone, Default)]
pub struct ServerView {
    /// Set while connected.
    pub info: Option<ServerInfo>,
    /// The last complete tool list, until invalidated.
    pub tools: Option<Vec<Tool>>,
}

impl ServerView {
    /// Updates the view from an event the driver is about to route.
    pub fn observe(&mut self, event: &Event, conn: &Connection) {
        match event {
            Event::Response { result: Ok(Response::Tools(_)), .. } => {
                self.tools = conn.known_tools().map(<[Tool]>::to_vec);
            }
            Event::Connected(info) => self.info = Some(info.clone()),
            Event::Disconnected { .. } => *self = Self::default(),
            Event::Notification(Notification::ListChanged(ListKind::Tools)) => self.tools = None,
            Event::Closed => self.info = None,
            _ => {}
        }
    }
}

/// Requests issued through an API handle: the caller's call id (known before the core assigns
/// a handle, so a cancel can name it) and whatever the runtime needs to answer (`P`).
#[derive(Debug)]
pub struct PendingCalls<P> {
    by_call: BTreeMap<u64, RequestHandle>,
    by_handle: BTreeMap<RequestHandle, (u64, P)>,
}

impl<P> Default for PendingCalls<P> {
    fn default() -> Self {
        Self { by_call: BTreeMap::new(), by_handle: BTreeMap::new() }
    }
}

impl<P> PendingCalls<P> {
    /// Records a call the core accepted.
    pub fn insert(&mut self, call: u64, handle: RequestHandle, pending: P) {
        self.by_call.insert(call, handle);
        self.by_handle.insert(handle, (call, pending));
    }

    /// Issues a request on `conn` and records it under `call`; a refused request hands the
    /// pending entry back with the error, for the runtime to answer its caller.
    #[allow(clippy::result_large_err)]
    pub fn start(
        &mut self,
        conn: &mut Connection,
        now: std::time::Instant,
        call: u64,
        request: crate::request::Request,
        opts: crate::request::RequestOptions,
        pending: P,
    ) -> Result<(), (P, ClientError)> {
        match conn.request(now, request, opts) {
            Ok(handle) => {
                self.insert(call, handle, pending);
                Ok(())
            }
            Err(e) => Err((pending, e.into())),
        }
    }

    /// Forgets a call its caller abandoned; returns the handle to cancel in the core.
    pub fn cancel(&mut self, call: u64) -> Option<RequestHandle> {
        let handle = self.by_call.remove(&call)?;
        self.by_handle.remove(&handle);
        Some(handle)
    }

    /// The handle of a live call, leaving it pending (its outcome is still delivered).
    pub fn handle_of(&self, call: u64) -> Option<RequestHandle> {
        self.by_call.get(&call).copied()
    }

    /// The pending entry of a live request.
    pub fn get(&self, handle: RequestHandle) -> Option<&P> {
        self.by_handle.get(&handle).map(|(_, p)| p)
    }

    /// Removes a finished request.
    pub fn take(&mut self, handle: RequestHandle) -> Option<P> {
        let (call, p) = self.by_handle.remove(&handle)?;
        self.by_call.remove(&call);
        Some(p)
    }

    /// Calls in flight.
    pub fn len(&self) -> usize {
        self.by_handle.len()
    }

    /// True when nothing is in flight.
    pub fn is_empty(&self) -> bool {
        self.by_handle.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::StdioCommand;

    #[test]
    fn features_follow_handlers() {
        let set: HandlerSet<u8> = HandlerSet { roots: Some(1), sampling: None, elicitation: Some(2) };
        let f = set.features();
        assert!(f.roots && !f.sampling && f.elicitation_form && !f.elicitation_url);
        assert_eq!(set.for_kind(ServerRequestKind::Elicitation), Some(&2));
        assert_eq!(set.for_kind(ServerRequestKind::Sampling), None);
    }

    #[test]
    fn server_names_must_be_unique() {
        let s = |n: &str| ServerSpec::stdio(n, StdioCommand::new("x"));
        let f = ClientFeatures { roots: true, ..Default::default() };
        let ok = prepare_servers(vec![s("a"), s("b")], &f).unwrap();
        assert!(ok.iter().all(|s| s.config.features.roots));
        assert!(prepare_servers(vec![s("a"), s("a")], &f).is_err());
        assert!(prepare_servers(vec![s("")], &f).is_err());
        assert!(prepare_servers(vec![], &f).is_err());
    }

    #[test]
    fn roots_json() {
        assert_eq!(
            roots_result([("file:///a", Some("a")), ("file:///b", None)]),
            json!({"roots":[{"uri":"file:///a","name":"a"},{"uri":"file:///b"}]})
        );
    }

    #[test]
    fn pending_calls_by_call_and_handle() {
        let mut p = PendingCalls::default();
        p.insert(7, RequestHandle::new(1), "x");
        assert_eq!(p.get(RequestHandle::new(1)), Some(&"x"));
        assert_eq!(p.cancel(7), Some(RequestHandle::new(1)));
        assert!(p.is_empty());
        p.insert(8, RequestHandle::new(2), "y");
        assert_eq!(p.take(RequestHandle::new(2)), Some("y"));
        assert_eq!(p.cancel(8), None);
    }
}

/// Callers of `close` waiting for [`Event::Closed`].
#[derive(Debug)]
pub struct CloseWaiters<W> {
    waiting: Vec<W>,
}

impl<W> Default for CloseWaiters<W> {
    fn default() -> Self {
        Self { waiting: Vec::new() }
    }
}

impl<W> CloseWaiters<W> {
    /// Starts closing `conn` for `waiter`; hands the waiter back at once if `conn` is closed.
    pub fn close(&mut self, conn: &mut Connection, now: std::time::Instant, waiter: W) -> Option<W> {
        if conn.is_closed() {
            return Some(waiter);
        }
        self.waiting.push(waiter);
        conn.close(now);
        None
    }

    /// The waiters to release once [`Event::Closed`] was routed.
    pub fn release(&mut self) -> std::vec::Drain<'_, W> {
        self.waiting.drain(..)
    }
}

/// A runtime's handle on one running server process.
pub trait ProcessControl {
    /// Queues bytes for the process's stdin.
    fn write(&self, bytes: Vec<u8>);
    /// Closes stdin.
    fn close_stdin(&mut self);
    /// Terminates (`force == false`) or kills the process.
    fn signal(&self, force: bool);
}

/// A spawn the runtime must perform, then report with `handle_process_started` or
/// `handle_spawn_failed`.
#[derive(Debug)]
pub struct SpawnRequest {
    /// The epoch of the new process.
    pub epoch: crate::handle::Epoch,
    /// What to run.
    pub command: crate::config::StdioCommand,
}

/// IO that [`apply_process_io`] hands back to the runtime: what is not a process action.
#[derive(Debug)]
pub enum OtherIo {
    /// Start a process.
    Spawn(SpawnRequest),
    /// Start an HTTP exchange.
    HttpStart {
        /// The exchange.
        exchange: crate::handle::ExchangeId,
        /// What to send.
        request: crate::io::HttpRequest,
    },
    /// Abort an HTTP exchange.
    HttpAbort(crate::handle::ExchangeId),
}

/// Applies an IO action to the runtime's table of live processes. Spawns and HTTP actions are
/// handed back for the runtime to perform; actions for a process that is gone are dropped.
pub fn apply_process_io<P: ProcessControl>(
    procs: &mut BTreeMap<crate::handle::Epoch, P>,
    io: crate::io::Io,
) -> Option<OtherIo> {
    use crate::io::Io;
    match io {
        Io::Spawn { epoch, command } => return Some(OtherIo::Spawn(SpawnRequest { epoch, command })),
        Io::HttpStart { exchange, request } => return Some(OtherIo::HttpStart { exchange, request }),
        Io::HttpAbort { exchange } => return Some(OtherIo::HttpAbort(exchange)),
        Io::Write { epoch, bytes } => procs.get(&epoch).map(|p| p.write(bytes)),
        Io::CloseStdin { epoch } => procs.get_mut(&epoch).map(P::close_stdin),
        Io::Terminate { epoch, force } => procs.get(&epoch).map(|p| p.signal(force)),
    };
    None
}

/// Every input a runtime feeds a [`Connection`]: what its IO reports about processes and HTTP
/// exchanges, timers, and host handlers' answers. One message type, passed to
/// [`Connection::handle_input`] (each variant names the `handle_*` method it stands for).
#[derive(Debug)]
pub enum Input {
    /// The process for this epoch started (`handle_process_started`).
    Started(crate::handle::Epoch),
    /// The process for this epoch could not be started, with the reason
    /// (`handle_spawn_failed`).
    SpawnFailed(crate::handle::Epoch, String),
    /// Bytes from stdout.
    Stdout(crate::handle::Epoch, Vec<u8>),
    /// Stdout reached end of file.
    StdoutEof(crate::handle::Epoch),
    /// Bytes from stderr.
    Stderr(crate::handle::Epoch, Vec<u8>),
    /// Stderr reached end of file.
    StderrEof(crate::handle::Epoch),
    /// The process exited.
    Exited(crate::handle::Epoch, crate::io::ExitInfo),
    /// A host handler's answer to a server-to-client request.
    ServerAnswer(crate::handle::ServerRequestHandle, Result<Value, String>),
    /// The status and headers of an HTTP exchange's response.
    HttpHead(crate::handle::ExchangeId, crate::io::HttpHead),
    /// A chunk of an HTTP response body, raw (not decompressed).
    HttpBody(crate::handle::ExchangeId, Vec<u8>),
    /// The HTTP response body ended normally.
    HttpEnd(crate::handle::ExchangeId),
    /// The HTTP exchange failed (connect, TLS, reset, timeout...), with a description.
    HttpFailed(crate::handle::ExchangeId, String),
    /// The deadline of [`Connection::poll_timeout`] passed (`handle_timeout`).
    Timeout,
}

/// The next thing a runtime must act on: IO to perform, or an event to route.
#[derive(Debug)]
pub enum Output {
    /// Perform this IO.
    Io(crate::io::Io),
    /// Route this event.
    Event(Event),
}

impl Connection {
    /// Feeds one [`Input`] to the matching `handle_*` method.
    pub fn handle_input(&mut self, now: std::time::Instant, input: Input) {
        match input {
            Input::Started(epoch) => self.handle_process_started(now, epoch),
            Input::SpawnFailed(epoch, reason) => self.handle_spawn_failed(now, epoch, reason),
            Input::Stdout(epoch, bytes) => self.handle_stdout(now, epoch, &bytes),
            Input::StdoutEof(epoch) => self.handle_stdout_eof(now, epoch),
            Input::Stderr(epoch, bytes) => self.handle_stderr(now, epoch, &bytes),
            Input::StderrEof(epoch) => self.handle_stderr_eof(now, epoch),
            Input::Exited(epoch, status) => self.handle_process_exited(now, epoch, status),
            Input::ServerAnswer(handle, outcome) => {
                // A handler's elicitation answer that breaks the form is not sent: the server
                // gets an error and the host a HandlerFailed warning naming the problem.
                if let Err(crate::error::AnswerError::InvalidAnswer(e)) =
                    self.respond_to_server(now, handle, outcome)
                {
                    let _ = self.respond_to_server(now, handle, Err(e.to_string()));
                }
            }
            Input::HttpHead(exchange, head) => self.handle_http_head(now, exchange, head),
            Input::HttpBody(exchange, bytes) => self.handle_http_body(now, exchange, &bytes),
            Input::HttpEnd(exchange) => self.handle_http_end(now, exchange),
            Input::HttpFailed(exchange, detail) => self.handle_http_failed(now, exchange, detail),
            Input::Timeout => self.handle_timeout(now),
        }
    }

    /// The next output: pending IO first, then events. Draining until `None` is the run loop's
    /// drain step (acting on an output may queue more; keep polling).
    #[must_use]
    pub fn poll_output(&mut self) -> Option<Output> {
        if let Some(io) = self.poll_io() {
            return Some(Output::Io(io));
        }
        self.poll_event().map(Output::Event)
    }
}
