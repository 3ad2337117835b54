//! The per-server state machine: one [`Connection`] per MCP server. The driver contract is
//! documented on [`Connection`] itself.
//!
//! - [`drive`]: the driver contract as messages ([`Input`], [`Output`]);
//! - [`state`], [`output`]: the small explicit states, and what every part uses to act;
//! - [`lifecycle`], [`handshake`]: process start and loss, shutdown escalation, the era
//!   handshake;
//! - [`stdio`]: the stdio transport (its link: stdout/stderr framing, EOF and exit);
//! - [`http`]: the HTTP transports (the link, its exchanges, sessions and OAuth);
//! - [`requests`]: host requests in flight (the table, what each kind is on the wire, sending,
//!   answers, ends); [`gating`]: the capability check; [`pages`]: pagination;
//! - [`inbound`]: messages from the server; [`oversize`]: an answer too large to keep;
//! - [`input_rounds`], [`input_waits`]: multi-round-trip input, paced state-only waits, the
//!   input budget, resumption;
//! - [`validation`]: tool output validation (feature `schema`; without it `unchecked.rs`, whose
//!   types hold nothing);
//! - [`subscriptions`]: listen streams; [`resource_subscriptions`]: legacy
//!   `resources/subscribe` subscriptions renewed on every new process or session;
//! - [`cache`]: cached results (lists, reads, `server/discover`) and who may be served them;
//! - [`tasks`]: calls that became tasks (both task surfaces);
//! - [`header_retry`]: `Mcp-Param-*` headers kept in step with the tool definitions (list
//!   first, the retry after a header mismatch);
//! - [`discover_refresh`]: an expired `server/discover` answer fetched again before the next
//!   request it gates;
//! - [`roots`]: the roots the connection holds; [`deprecations`]: deprecated features noticed
//!   in use (roots, sampling, logging, HTTP+SSE).

mod cache;
mod deprecations;
mod discover_refresh;
mod drive;
mod gating;
mod handshake;
#[cfg(feature = "http")]
mod header_retry;
#[cfg(feature = "http")]
mod http;
mod inbound;
mod input_rounds;
mod input_waits;
mod lifecycle;
mod output;
mod oversize;
mod pages;
mod requests;
mod resource_subscriptions;
mod roots;
mod state;
mod stdio;
mod subscriptions;
mod tasks;
// Without `schema`, the same names hold nothing: no call carries schemas, no result is checked.
mod validation;

use std::collections::{BTreeMap, VecDeque};
use std::time::Instant;

use serde_json::Value;

pub use cache::{CacheInfo, CacheKey, CacheScope};
pub use drive::{Input, Output};
pub(crate) use state::Outgoing;
use state::{Counters, Phase, Proc, ReapStage, Session, WireUse};

use crate::config::{ConnectionConfig, TransportConfig};
use crate::era::{Era, ServerInfo};
use crate::error::{AnswerError, CommandError, RequestError, Warning};
use crate::event::Event;
#[cfg(feature = "http")]
use crate::handle::ExchangeId;
use crate::handle::{Epoch, RequestHandle, ServerRequestHandle};
#[cfg(feature = "http")]
use crate::io::HttpHead;
use crate::io::{ExitInfo, Io};
use crate::request::{Request, RequestOptions};
use crate::timers::{Timer, Timers};
#[cfg(feature = "http")]
use crate::transport::TransportKind;
use crate::types::{HandlerError, LoggingLevel, Root, Tool};

/// The sans-IO state machine for one MCP server.
///
/// A `Connection` performs no IO and reads no clock: the runtime that owns it feeds it inputs,
/// performs the IO it asks for, and reports back. Every method that takes `now` expects a
/// monotonic time; an earlier `now` than before counts as the latest seen.
///
/// # Method groups
///
/// - **Construction**: [`Connection::new`]. Nothing happens until the first request.
/// - **Inputs**: [`Connection::handle_input`] with an [`Input`](crate::Input), one
///   variant per input: the process started or failed to start, stdout/stderr bytes and EOF,
///   the exit; an HTTP exchange's head, body chunks, end or failure; the deadline passed
///   ([`Input::Timeout`](crate::Input::Timeout)); a host handler's answer. Each variant
///   has a `handle_*` method of its own ([`Connection::handle_process_started`],
///   [`Connection::handle_spawn_failed`], [`Connection::handle_stdout`],
///   [`Connection::handle_stdout_eof`], [`Connection::handle_stderr`],
///   [`Connection::handle_stderr_eof`], [`Connection::handle_process_exited`],
///   [`Connection::handle_http_head`], [`Connection::handle_http_body`],
///   [`Connection::handle_http_end`], [`Connection::handle_http_failed`],
///   [`Connection::handle_http_refused`],
///   [`Connection::handle_timeout`]) for runtimes that call them directly. Inputs carry the
///   [`Epoch`] (process or session) or [`ExchangeId`](crate::ExchangeId) they belong to; input
///   for a dead epoch or an aborted exchange is dropped, so a runtime never synchronises with
///   the core. A head with a same-origin `307`/`308` aborts its exchange and starts the same
///   request to the `Location` as a new one; the runtime only performs the two. Calling
///   [`Connection::handle_timeout`] early or twice is harmless.
/// - **Commands** (plain verbs, answered at once): [`Connection::request`] (returns a
///   [`RequestHandle`] whose outcome arrives later as exactly one [`Event::Response`]),
///   [`Connection::cancel`], [`Connection::respond_to_server`], [`Connection::close`],
///   [`Connection::set_authorization`], [`Connection::clear_cache`].
/// - **Outputs**: [`Connection::poll_io`] ([`Io`] to perform: spawn, write, close stdin,
///   terminate, start or abort an HTTP exchange), [`Connection::poll_event`] ([`Event`]s for
///   the host), [`Connection::poll_timeout`] (the one deadline);
///   [`Connection::poll_output`] interleaves the first two.
/// - **Getters**: [`Connection::server_info`], [`Connection::era`],
///   [`Connection::known_tools`], [`Connection::in_flight`], [`Connection::is_closed`],
///   [`Connection::current_epoch`], [`Connection::http_transport`], [`Connection::config`],
///   [`Connection::cache_info`], [`Connection::resource_subscriptions`].
///
/// # The drain rule
///
/// After **every** input and **every** command, drain [`Connection::poll_io`] and
/// [`Connection::poll_event`] until both return `None` (acting on an output may queue more),
/// then sleep until [`Connection::poll_timeout`], the next input or the next command,
/// whichever comes first, and feed [`Input::Timeout`](crate::Input::Timeout) when the
/// deadline passed.
///
/// # States
///
/// ```text
///  phase:    Open ──close()──▶ Closing ──nothing left to shut down──▶ Closed (Event::Closed)
///
///  process / session (one epoch each; HTTP: one handshake, or one legacy session):
///
///    Down ──request──▶ Starting ──started──▶ Running: Probing ──discover ok──────▶ Ready
///     ▲                (HTTP+SSE: until the      │       │                          ▲
///     │                 endpoint event)          │       └─legacy / timeout─▶ Initializing
///     │                                          │                                 │
///     └──── lost: exit + stdout EOF, spawn failed, handshake failed, session expired,
///           HTTP+SSE stream lost (requests in flight fail; the next request restarts)
///
///  legacy HTTP session:  Idle ──open──▶ (HTTP+SSE: AwaitingEndpoint ──endpoint──▶) Open
///                        Open {endpoint, Mcp-Session-Id, version, GET stream, resumptions}
///                        Open ──close()──▶ Closing (DELETE, at most 2 s) ──▶ Idle
///
///  shutdown escalation (stdio, per epoch, ReapStage):
///    AwaitSpawn ──started──▶ Grace (stdin closed) ──grace──▶ Terminated ──▶ Killed ──▶ gone
///                                   exit report at any stage: gone
///
///  GET stream (legacy Streamable HTTP, Listen):
///    Off ──ready──▶ Open (requests held until its head, at most 2 s) ──ended──▶ Waiting
///    Waiting ──reconnect timer──▶ Open;   405, a refusal, or 5 failures ──▶ Unsupported
/// ```
#[derive(Debug)]
pub struct Connection {
    cfg: ConnectionConfig,
    /// The latest time passed in (time only moves forward, see `tick`).
    now: Instant,
    counters: Counters,
    phase: Phase,
    proc: Proc,
    reaping: BTreeMap<Epoch, ReapStage>,
    /// The requests in flight, their queue, wire ids and progress tokens.
    in_flight: requests::InFlight,
    timers: Timers,
    server_requests: BTreeMap<ServerRequestHandle, inbound::PendingServerRequest>,
    cache: cache::Cache,
    known_tools: Option<Vec<Tool>>,
    /// Compiled schemas of the known tools.
    tool_schemas: validation::ToolSchemaCache,
    log_level: Option<LoggingLevel>,
    io: VecDeque<Io>,
    events: VecDeque<Event>,
    dropped_events: usize,
    /// The transport's own state: the process's pipes, or the HTTP link.
    transport: Transport,
    /// Host requests of multi-round-trip input rounds (2026-07-28 `input_required`).
    inputs: BTreeMap<ServerRequestHandle, input_rounds::PendingInput>,
    /// Ids of the tasks created on this connection (the newest, bounded), in order and as a set.
    task_ids: tasks::SeenTaskIds,
    /// 2025-11-25 URL elicitations whose completion notification is passed on.
    url_elicitations: crate::server_requests::UrlElicitations,
    /// The deprecated features this connection has reported.
    deprecations: crate::deprecation::Reported,
    /// The `server/discover` refresh in flight (2026-07-28) and the requests waiting for it.
    discover_refresh: discover_refresh::DiscoverRefresh,
    /// The resources subscribed with `resources/subscribe` (handshake revisions), renewed on
    /// every new process or session.
    resource_subscriptions: resource_subscriptions::ResourceSubscriptions,
    /// The wire trace not yet drained (only with [`ConnectionConfig::wire_trace`]).
    wire_log: VecDeque<crate::WireRecord>,
}

/// The transport of a connection, with the state only it has.
// One per connection, never moved: boxing the stdio side would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
enum Transport {
    /// A child process: its stdout and stderr framing, stderr tail, EOF and exit.
    Stdio(stdio::StdioLink),
    /// HTTP: detection, the session, exchanges, keep-alive.
    #[cfg(feature = "http")]
    Http(Box<http::HttpLink>),
}

impl Transport {
    fn new(cfg: &ConnectionConfig) -> Self {
        match &cfg.transport {
            TransportConfig::Stdio(command) => Transport::Stdio(stdio::StdioLink::new(command, &cfg.limits)),
            #[cfg(feature = "http")]
            TransportConfig::Http(http) => {
                Transport::Http(Box::new(http::HttpLink::new(http, cfg.random_seed)))
            }
        }
    }

    /// Whether messages can go out: always on HTTP; on stdio until stdout ends or the process
    /// exits.
    fn is_open(&self) -> bool {
        match self {
            Transport::Stdio(link) => link.is_open(),
            #[cfg(feature = "http")]
            Transport::Http(_) => true,
        }
    }

    /// The stdio link, on stdio.
    fn stdio(&self) -> Option<&stdio::StdioLink> {
        match self {
            Transport::Stdio(link) => Some(link),
            #[cfg(feature = "http")]
            Transport::Http(_) => None,
        }
    }

    /// The stdio link, on stdio.
    fn stdio_mut(&mut self) -> Option<&mut stdio::StdioLink> {
        match self {
            Transport::Stdio(link) => Some(link),
            #[cfg(feature = "http")]
            Transport::Http(_) => None,
        }
    }

    /// Whether server notifications can arrive (a legacy list is cached on a `listChanged`
    /// promise only then): always on stdio and HTTP+SSE; on legacy Streamable HTTP while the GET
    /// stream is open or reconnecting; never on plain HTTP.
    fn can_receive_notifications(&self) -> bool {
        match self {
            Transport::Stdio(_) => true,
            #[cfg(feature = "http")]
            Transport::Http(link) => link.can_receive_notifications(),
        }
    }

    /// The transport in use (on HTTP: the one being tried until one works).
    fn kind(&self) -> crate::transport::TransportKind {
        match self {
            Transport::Stdio(_) => crate::transport::TransportKind::Stdio,
            #[cfg(feature = "http")]
            Transport::Http(link) => link.kind(),
        }
    }
}

impl Connection {
    // ----- construction ---------------------------------------------------------------

    /// A connection in its initial state. Nothing happens until the first request.
    pub fn new(cfg: ConnectionConfig, now: Instant) -> Self {
        #[cfg_attr(not(feature = "http"), allow(unused_mut))]
        let mut conn = Self {
            now,
            counters: Counters::default(),
            phase: Phase::Open,
            proc: Proc::Down,
            reaping: BTreeMap::new(),
            in_flight: requests::InFlight::new(cfg.limits.recent_finished),
            timers: Timers::default(),
            server_requests: BTreeMap::new(),
            cache: cache::Cache::default(),
            known_tools: None,
            tool_schemas: validation::ToolSchemaCache::new(&cfg),
            log_level: None,
            io: VecDeque::new(),
            events: VecDeque::new(),
            dropped_events: 0,
            transport: Transport::new(&cfg),
            inputs: BTreeMap::new(),
            task_ids: tasks::SeenTaskIds::default(),
            url_elicitations: Default::default(),
            deprecations: Default::default(),
            discover_refresh: Default::default(),
            resource_subscriptions: Default::default(),
            wire_log: VecDeque::new(),
            cfg,
        };
        #[cfg(feature = "http")]
        conn.init_http_auth(now);
        conn
    }

    /// The configuration.
    pub fn config(&self) -> &ConnectionConfig {
        &self.cfg
    }

    /// Time only moves forward: an earlier `now` is treated as the latest seen.
    fn tick(&mut self, now: Instant) -> Instant {
        self.now = self.now.max(now);
        self.now
    }

    // ----- commands -------------------------------------------------------------------

    /// Starts a request. The outcome arrives later as exactly one [`Event::Response`] for the
    /// returned handle. Fails at once only for host misuse.
    pub fn request(
        &mut self,
        now: Instant,
        request: Request,
        opts: RequestOptions,
    ) -> Result<RequestHandle, CommandError> {
        let now = self.tick(now);
        if self.phase != Phase::Open {
            return Err(CommandError::Closed);
        }
        if self.in_flight.len() >= self.cfg.limits.max_in_flight {
            return Err(CommandError::TooManyInFlight { limit: self.cfg.limits.max_in_flight });
        }
        requests::validate(&request)?;
        self.note_host_request(&request);
        self.note_unsubscribe(&request);
        input_waits::check_resume(&request, &opts)?;
        let handle = RequestHandle::new(self.counters.handles.next());
        // A resumed request depends on input outside the cache key: never answered from it.
        if opts.input_state.is_none() {
            if let Some(cached) = self.cached(now, &request, &opts) {
                self.emit(Event::Response { handle, result: Ok(cached) });
                return Ok(handle);
            }
        }
        let timeout = opts.timeout.unwrap_or(self.cfg.timeouts.request);
        let mut op = requests::Op::new(request, opts, now, timeout);
        op.input = op.opts.input_state.take().map(input_rounds::InputRound::resumed);
        match &op.request {
            Request::CallTool { name, .. } | Request::CallToolAsTask { name, .. } => {
                op.tool = self.tool_schemas.for_call(name);
            }
            Request::TaskResult { tool: Some(name), .. } => op.tool = self.tool_schemas.for_call(name),
            _ => {}
        }
        if let Some(at) = op.deadline(now) {
            self.timers.set(Timer::Request(handle), at);
        }
        self.in_flight.add_last(handle, op);
        self.pump(now);
        Ok(handle)
    }

    /// Cancels a request: it ends with [`RequestError::Cancelled`] and, if it was sent, the
    /// server gets `notifications/cancelled`. Returns false (and does nothing) if the request
    /// already ended.
    pub fn cancel(&mut self, now: Instant, handle: RequestHandle) -> bool {
        self.tick(now);
        if !self.in_flight.contains(handle) {
            return false;
        }
        self.abandon(handle, "cancelled by the client");
        self.finish(handle, Err(RequestError::Cancelled));
        true
    }

    /// Closes the connection: pending requests fail with [`RequestError::Closed`], stdin is
    /// closed, and the process is terminated, then killed, if it does not exit in time.
    /// [`Event::Closed`] follows. Idempotent.
    pub fn close(&mut self, now: Instant) {
        let now = self.tick(now);
        if self.phase != Phase::Open {
            return;
        }
        self.phase = Phase::Closing;
        let handles = self.in_flight.handles();
        for h in handles {
            self.abandon(h, "client is closing");
            self.finish(h, Err(RequestError::Closed));
        }
        self.server_requests.clear();
        self.retire_process(now);
        self.maybe_closed();
    }

    /// Answers a server-to-client request: `Ok(result)` is sent as the result. An error is
    /// reported locally as [`Warning::HandlerFailed`]; the server gets a constant JSON-RPC
    /// error (`-32603`, the detail stays local) unless the [`HandlerError`] names a code, which
    /// is then sent with its message.
    ///
    /// Nothing is sent when the request is gone ([`AnswerError::Gone`]: withdrawn by the server,
    /// or its process exited), or when an elicitation answer does not match the requested form
    /// ([`AnswerError::InvalidAnswer`]; the request still waits for a valid answer or a decline).
    pub fn respond_to_server(
        &mut self,
        now: Instant,
        handle: ServerRequestHandle,
        outcome: Result<Value, HandlerError>,
    ) -> Result<(), AnswerError> {
        self.send_answer(now, handle, outcome)
    }

    /// The host decided to stop request `handle` during a paced input wait (its
    /// [`Event::InputWait`]): it fails with [`RequestError::InputWaitCancelled`], which carries
    /// what [`RequestOptions::input_state`] needs to go on later. Nothing is sent (nothing is
    /// in flight during a wait). Returns false, doing nothing, when the request is not waiting.
    pub fn cancel_input_wait(&mut self, handle: RequestHandle) -> bool {
        self.stop_input_wait(handle)
    }

    /// Replaces the roots this connection answers `roots/list` with. When the list changed and
    /// the session is a legacy one whose client declared `roots.listChanged`, the server is
    /// sent `notifications/roots/list_changed`; its next `roots/list` gets the new list. A
    /// 2026-07-28 server gets the new list the next time it asks (no notification exists).
    /// Before the connection is up, the list is simply kept for when it is.
    ///
    /// Fails with [`CommandError::RootsNotManaged`] when the connection was configured without
    /// roots of its own, and [`CommandError::Closed`] once closed.
    pub fn set_roots(&mut self, now: Instant, roots: Vec<Root>) -> Result<(), CommandError> {
        self.replace_roots(now, roots)
    }

    /// Drops every cached result (the next request of each kind goes to the server).
    pub fn clear_cache(&mut self) {
        self.drop_cache()
    }

    /// Sets the `Authorization` header of every later HTTP request (requests, event streams,
    /// the closing `DELETE`), replacing a configured `Authorization` header; `None` sends none.
    /// Requests already sent keep theirs. Private cached results stay bound to the credential
    /// they were fetched with. No effect on stdio.
    ///
    /// Fails with [`CommandError::InvalidArgument`] (changing nothing) for a value with control
    /// characters.
    #[cfg(feature = "http")]
    pub fn set_authorization(&mut self, now: Instant, value: Option<String>) -> Result<(), CommandError> {
        self.replace_authorization(now, value)
    }

    // ----- inputs from the runtime (`handle_input` takes each as one `Input`) ---------

    /// Feeds one [`Input`] to the matching `handle_*` method.
    pub fn handle_input(&mut self, now: Instant, input: Input) {
        self.dispatch_input(now, input)
    }

    /// Fires every timer due at `now`. Calling it early or twice is harmless; afterwards no
    /// deadline at or before `now` remains.
    pub fn handle_timeout(&mut self, now: Instant) {
        let now = self.tick(now);
        while let Some(timer) = self.timers.pop_due(now) {
            match timer {
                Timer::Request(h) => self.on_request_timeout(h),
                Timer::Handshake => self.on_handshake_timeout(now),
                Timer::ExitDrain(epoch) => self.on_exit_drain(now, epoch),
                Timer::Reap(epoch) => self.on_reap_timer(now, epoch),
                Timer::Retry(h) => self.on_retry_timer(now, h),
                #[cfg(feature = "http")]
                Timer::HttpReconnect(epoch) => self.on_http_reconnect(epoch),
                #[cfg(feature = "http")]
                Timer::ListenGate(epoch) => self.on_listen_gate_timeout(now, epoch),
                #[cfg(feature = "http")]
                Timer::HttpClose => self.on_http_close_timeout(),
                #[cfg(feature = "http")]
                Timer::SseKeepAlive(epoch) => self.on_sse_keepalive(now, epoch),
                #[cfg(feature = "http")]
                Timer::SseReopen => self.on_sse_reopen(now),
                #[cfg(feature = "http")]
                Timer::Auth => self.on_auth_timeout(now),
            }
        }
    }

    /// The runtime started the process for `epoch`.
    pub fn handle_process_started(&mut self, now: Instant, epoch: Epoch) {
        self.process_started(now, epoch)
    }

    /// The runtime could not start the process for `epoch`.
    pub fn handle_spawn_failed(&mut self, now: Instant, epoch: Epoch, error: std::io::Error) {
        self.spawn_failed(now, epoch, error)
    }

    /// Bytes from the server's stdout.
    pub fn handle_stdout(&mut self, now: Instant, epoch: Epoch, bytes: &[u8]) {
        self.read_stdout(now, epoch, bytes)
    }

    /// The server's stdout reached end of file.
    pub fn handle_stdout_eof(&mut self, now: Instant, epoch: Epoch) {
        self.end_stdout(now, epoch)
    }

    /// Bytes from the server's stderr: split into lines, sanitised, surfaced as
    /// [`Event::Stderr`]; the last few are kept to explain a crash.
    pub fn handle_stderr(&mut self, now: Instant, epoch: Epoch, bytes: &[u8]) {
        self.read_stderr(now, epoch, bytes)
    }

    /// The server's stderr reached end of file: a final unterminated line is surfaced.
    pub fn handle_stderr_eof(&mut self, now: Instant, epoch: Epoch) {
        self.end_stderr(now, epoch)
    }

    /// The process for `epoch` exited.
    pub fn handle_process_exited(&mut self, now: Instant, epoch: Epoch, status: ExitInfo) {
        self.process_exited(now, epoch, status)
    }

    /// The response head of an exchange arrived.
    #[cfg(feature = "http")]
    pub fn handle_http_head(&mut self, now: Instant, exchange: ExchangeId, head: HttpHead) {
        self.take_http_head(now, exchange, head)
    }

    /// A chunk of an exchange's response body arrived (raw, not decompressed).
    #[cfg(feature = "http")]
    pub fn handle_http_body(&mut self, now: Instant, exchange: ExchangeId, bytes: &[u8]) {
        self.take_http_body(now, exchange, bytes)
    }

    /// An exchange's response body ended normally.
    #[cfg(feature = "http")]
    pub fn handle_http_end(&mut self, now: Instant, exchange: ExchangeId) {
        self.take_http_end(now, exchange)
    }

    /// An exchange failed in transport (connect, TLS, reset, ...).
    #[cfg(feature = "http")]
    pub fn handle_http_failed(&mut self, now: Instant, exchange: ExchangeId, error: std::io::Error) {
        self.take_http_failure(now, exchange, error)
    }

    /// The runtime refused an exchange before connecting: every address its host resolved to
    /// is outside the request's [`crate::Destination`]. An OAuth fetch fails the flow with
    /// [`crate::oauth::OAuthError::UnsafeAddress`]; any other exchange fails as
    /// [`Connection::handle_http_failed`] would, with the refusal as its detail.
    #[cfg(feature = "http")]
    pub fn handle_http_refused(&mut self, now: Instant, exchange: ExchangeId, refusal: crate::UnsafeAddress) {
        self.take_http_refusal(now, exchange, refusal)
    }

    // ----- outputs --------------------------------------------------------------------

    /// The next output: pending IO first, then events. Draining until `None` is the run loop's
    /// drain step (acting on an output may queue more; keep polling).
    #[must_use]
    pub fn poll_output(&mut self) -> Option<Output> {
        self.next_output()
    }

    /// The next IO action for the runtime.
    #[must_use]
    pub fn poll_io(&mut self) -> Option<Io> {
        self.io.pop_front()
    }

    /// The next event for the host.
    #[must_use]
    pub fn poll_event(&mut self) -> Option<Event> {
        if let Some(ev) = self.events.pop_front() {
            return Some(ev);
        }
        if self.dropped_events > 0 {
            let count = std::mem::take(&mut self.dropped_events);
            return Some(Event::Warning(Warning::EventsDropped { count }));
        }
        None
    }

    /// The next record of the wire trace, in the order things happened; always `None` unless
    /// [`ConnectionConfig::wire_trace`] is on. Drain it with the rest: past
    /// [`Limits::max_pending_events`](crate::Limits::max_pending_events) records, the oldest
    /// are dropped.
    #[must_use]
    pub fn poll_wire(&mut self) -> Option<crate::WireRecord> {
        self.wire_log.pop_front()
    }

    /// When to call [`Connection::handle_timeout`] next (`None`: no timer is armed).
    #[must_use]
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.timers.next().map(|(at, _)| at)
    }

    /// The next deadline and what it is for, for logs.
    pub fn poll_timeout_reason(&self) -> Option<(Instant, &'static str)> {
        self.timers.next().map(|(at, t)| (at, t.reason()))
    }

    // ----- getters --------------------------------------------------------------------

    /// What is known about the server, once connected.
    pub fn server_info(&self) -> Option<&ServerInfo> {
        match &self.proc {
            Proc::Running { session: Session::Ready(info), .. } => Some(info),
            _ => None,
        }
    }

    /// The era, once connected.
    pub fn era(&self) -> Option<Era> {
        self.server_info().map(|i| i.era)
    }

    /// The tools of the last complete `tools/list`, until a `list_changed` or a restart makes
    /// them unknown. Used to route tool calls between servers.
    pub fn known_tools(&self) -> Option<&[Tool]> {
        self.known_tools.as_deref()
    }

    /// Host requests waiting for an outcome (the client's own internal requests, such as a
    /// `tools/list` before a call, are not counted).
    pub fn in_flight(&self) -> usize {
        self.in_flight.iter().filter(|(_, op)| !op.is_internal()).count()
    }

    /// True once [`Event::Closed`] has been emitted.
    pub fn is_closed(&self) -> bool {
        self.phase == Phase::Closed
    }

    /// The epoch of the current process, if one is starting or running.
    pub fn current_epoch(&self) -> Option<Epoch> {
        match self.proc {
            Proc::Down => None,
            Proc::Starting { epoch } | Proc::Running { epoch, .. } => Some(epoch),
        }
    }

    /// The roots this connection answers `roots/list` with, when it holds them (`None`: a
    /// handler answers, if the host installed one).
    pub fn roots(&self) -> Option<&[Root]> {
        self.held_roots()
    }

    /// What is cached for `key` that a request with default options, going out with the
    /// current credential, may be answered from; `None` when nothing is (for
    /// [`CacheKey::Discover`]: on legacy servers, or before a 2026-07-28 server answered).
    pub fn cache_info(&self, now: Instant, key: CacheKey) -> Option<CacheInfo> {
        self.cached_info(now, key)
    }

    /// The resources subscribed with [`Request::SubscribeResource`] (handshake servers) and
    /// not unsubscribed since, in URI order: the server confirmed each one, and the
    /// connection renews them on every new process or session (a refused renewal removes it,
    /// with [`Event::ResourceSubscriptionDropped`]).
    pub fn resource_subscriptions(&self) -> impl Iterator<Item = &str> + '_ {
        self.subscribed_resources()
    }

    /// The transport an HTTP connection uses (or is trying), for display.
    #[cfg(feature = "http")]
    pub fn http_transport(&self) -> Option<TransportKind> {
        self.http_kind()
    }
}
