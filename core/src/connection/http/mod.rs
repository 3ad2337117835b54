//! The HTTP transports: Streamable HTTP (modern and legacy), HTTP+SSE and plain HTTP.
//!
//! A "session" of the connection (one [`Epoch`]) is, on HTTP, one run of the era handshake:
//! for modern servers it lasts the connection's lifetime; for legacy servers it is one
//! `Mcp-Session-Id` (or one HTTP+SSE event stream). Every message is an exchange
//! ([`ExchangeId`]) tagged with its epoch; reports for exchanges of a finished epoch are ignored.
//!
//! [`HttpLink`] is made of parts that own their state and rules:
//! - [`detection`]: the transports to try, the one being tried, the verdict;
//! - [`session`]: the session state (awaiting the HTTP+SSE endpoint, open, closing) and what a
//!   legacy session keeps (id, revision, GET stream, resumptions);
//! - [`keepalive`]: HTTP+SSE liveness (activity, ping, reopening);
//! - [`Exchanges`] and [`Backoff`] (below): the exchanges in flight, and delays with jitter.
//!
//! Each part decides what only its own state decides, and returns it as a value (what to
//! abort, what a head means, where an ended exchange stands, what the keep-alive timer found);
//! the [`Connection`] methods reach the link once, at their entry, and act on the rest of the
//! connection (events, requests in flight, timers, the I/O queue).
//!
//! The [`Connection`] side is split by concern:
//! - [`exchange`]: one exchange's response decoding (gzip, JSON or SSE, error bodies), in the
//!   phase it is in (awaiting the head, reading the body, ended);
//! - [`outbound`]: the requests (headers per era and transport);
//! - [`outcome`]: what an exchange's end means (results, fallbacks, retries, re-issues,
//!   session expiry, resumption);
//! - [`redirect`]: following same-origin `307`/`308` redirects, refusing the others;
//! - [`listen`]: the legacy GET stream, its gate, and reconnections.

mod auth;
mod authorization;
mod backoff;
mod detection;
mod exchange;
mod exchanges;
mod keepalive;
mod kept_request;
mod listen;
mod outbound;
mod outcome;
mod redirect;
mod session;

use std::time::{Duration, Instant};

use super::{Connection, Outgoing, Proc, Session, Transport};
use crate::config::{HttpConfig, Limits, ProtocolMode};
use crate::era::Era;
use crate::error::{RequestError, Warning};
use crate::handle::{Epoch, ExchangeId};
use crate::io::{HttpHead, HttpRequest, Io};
use crate::jsonrpc::WireId;
use crate::jsonrpc_head::Peek;
use crate::mcp_servers::{HttpUrl, TransportKind};
use crate::response::Response;
use crate::timers::Timer;

use backoff::{Backoff, DEFAULT_RECONNECT};
use detection::Detection;
use exchange::{Exchange, Feed, Role};
use exchanges::Exchanges;
use keepalive::KeepAlive;
use kept_request::KeptRequest;
use redirect::Redirect;
use session::SessionState;

/// How long closing waits for the `DELETE` of a legacy session.
const CLOSE_DELETE_WAIT: Duration = Duration::from_secs(2);

/// The HTTP side of a connection.
#[derive(Debug)]
pub(crate) struct HttpLink {
    cfg: HttpConfig,
    /// The configured URL (`None`: not a valid http(s) URL; every request fails).
    url: Option<HttpUrl>,
    detection: Detection,
    session: SessionState,
    exchanges: Exchanges,
    /// HTTP+SSE liveness.
    keepalive: KeepAlive,
    backoff: Backoff,
    /// The `Authorization` header: configured, or set or removed by the host.
    authorization: authorization::AuthorizationHeader,
    /// How challenges are answered (OAuth, a token provider), if configured.
    auth: Option<Box<auth::AuthState>>,
}

impl HttpLink {
    pub(super) fn new(cfg: &HttpConfig, random_seed: u64) -> Self {
        Self {
            // An unparsable URL fails every request with a clear error (see `open_http`).
            url: HttpUrl::parse(&cfg.url).ok(),
            detection: Detection::new(cfg.kinds.clone()),
            cfg: cfg.clone(),
            session: SessionState::Idle,
            exchanges: Exchanges::default(),
            keepalive: KeepAlive::default(),
            backoff: Backoff::new(random_seed),
            authorization: authorization::AuthorizationHeader::Configured,
            auth: None,
        }
    }

    /// The transport in use (or being tried).
    pub(super) fn kind(&self) -> TransportKind {
        self.detection.kind()
    }

    /// The configured URL (the MCP endpoint, or the HTTP+SSE stream).
    fn base_url(&self) -> &str {
        self.url.as_ref().map_or("", HttpUrl::as_str)
    }

    /// Whether an exchange is the close `DELETE`.
    fn is_close_exchange(&self, exchange: ExchangeId) -> bool {
        self.session.closing() == Some(exchange)
    }

    /// Sets up how challenges are answered, from the configuration (at creation); a warning if
    /// a saved authorization could not be used.
    fn init_auth(&mut self, now: Instant) -> Option<Warning> {
        let (state, warning) = auth::AuthState::new(&self.cfg.auth, &self.cfg.url, now);
        self.auth = state.map(Box::new);
        warning
    }

    /// A new session: HTTP+SSE waits for its endpoint; the others post to the configured URL.
    /// The transport it uses, or `None` when the URL is not a valid http(s) one.
    fn open_session(&mut self) -> Option<TransportKind> {
        self.url.as_ref()?;
        self.session = match self.kind() {
            TransportKind::Sse => SessionState::AwaitingEndpoint,
            _ => SessionState::open(self.base_url().to_owned()),
        };
        Some(self.kind())
    }

    /// Starts an exchange for `request` (kept for redirects without its credentials, then
    /// given them): its id, and the request to hand to the runtime.
    fn start_exchange(
        &mut self,
        epoch: Epoch,
        role: Role,
        mut request: HttpRequest,
        setup: &ExchangeSetup,
    ) -> (ExchangeId, HttpRequest) {
        let kept = KeptRequest::new(&request);
        if let Some(auth) = self.auth.as_deref_mut() {
            auth.decorate(setup.now, &mut request);
        }
        let exchange = self.exchanges.start(epoch, role, kept, &setup.limits);
        if setup.trace {
            if let Some(x) = self.exchanges.get_mut(exchange) {
                x.trace = true;
            }
        }
        (exchange, request)
    }

    /// Stops waiting for the response to `id`: drops its resumption and its exchanges.
    /// Returns the exchanges dropped, and whether the first went out as modern (`None`: none).
    fn abandon(&mut self, id: &WireId) -> (Vec<ExchangeId>, Option<bool>) {
        if let Some(legacy) = self.session.legacy_mut() {
            legacy.resumes.retain(|r| r.id != *id);
        }
        let modern = self.exchanges.for_request(id).first().map(|(_, modern)| *modern);
        (self.exchanges.remove_for_request(id), modern)
    }

    /// The response head of `exchange` arrived (`current`: the connection's epoch;
    /// `initialize`: whether a request id is the `initialize` one).
    fn on_head(
        &mut self,
        exchange: ExchangeId,
        head: &HttpHead,
        current: Option<Epoch>,
        initialize: impl Fn(&WireId) -> bool,
    ) -> HeadTaken {
        let Some(x) = self.exchanges.get(exchange) else { return HeadTaken::Unknown };
        if matches!(x.role, Role::Post { id: Some(_), .. }) {
            if let Some(auth) = self.auth.as_deref_mut() {
                auth.on_server_head(head);
            }
        }
        let refused = match self.judge_redirect(exchange, head, current) {
            Redirect::Follow(target) => return HeadTaken::Redirect(target),
            Redirect::Refused(refused) => Some(refused),
            Redirect::No => None,
        };
        let closing = self.is_close_exchange(exchange);
        let Some(x) = self.exchanges.get_mut(exchange) else { return HeadTaken::Unknown };
        x.on_head(head);
        if let Some(refused) = refused {
            x.refuse_redirect(refused);
        }
        let (epoch, listen) = (x.epoch, x.role == Role::Listen);
        let answers_initialize = matches!(&x.role, Role::Post { id: Some(id), .. } if initialize(id));
        let mut warning = None;
        if answers_initialize && (200..300).contains(&head.status) {
            warning = self.capture_session_id(head);
        }
        HeadTaken::Read { epoch, listen, closing, warning }
    }

    /// Keeps the `Mcp-Session-Id` the server assigned in its `initialize` answer, if it is a
    /// valid one (visible ASCII, bounded); a warning if it is not.
    fn capture_session_id(&mut self, head: &HttpHead) -> Option<Warning> {
        let value = head.header("mcp-session-id")?;
        let valid =
            !value.is_empty() && value.len() <= 256 && value.bytes().all(|b| (0x21..=0x7e).contains(&b));
        if !valid {
            let detail =
                "ignored an invalid Mcp-Session-Id (it must be 1-256 visible ASCII characters)".into();
            return Some(Warning::Http { detail });
        }
        if let Some(legacy) = self.session.legacy_mut() {
            legacy.id = Some(value.to_owned());
        }
        None
    }

    /// Body bytes arrived on `exchange`: the HTTP+SSE stream is alive.
    fn note_activity(&mut self, exchange: ExchangeId, now: Instant) {
        if self.exchanges.get(exchange).is_some_and(|x| x.role == Role::SseStream) {
            self.keepalive.on_activity(now);
        }
    }

    /// After a feed: takes an ended exchange out (or one whose stream carried its answer).
    fn settle(&mut self, exchange: ExchangeId) -> Option<Settled> {
        let x = self.exchanges.get(exchange)?;
        if x.finished().is_some() {
            let facts = self.facts();
            return self.exchanges.remove(exchange).map(|x| Settled::Ended(Box::new(x), facts));
        }
        if x.answered {
            self.exchanges.remove(exchange);
            return Some(Settled::Answered);
        }
        Some(Settled::Open)
    }

    /// HTTP+SSE: the `endpoint` event named where to post. Whether it is on the server's
    /// origin (the session opens there); otherwise it is refused.
    fn on_endpoint(&mut self, data: &str) -> bool {
        let Some(url) = self.url.as_ref().and_then(|u| u.join_same_origin(data.trim())) else { return false };
        self.session = SessionState::open(url);
        true
    }

    /// The epoch is over: drops its exchanges (the close `DELETE` excepted) and the session.
    /// Returns the exchanges dropped.
    fn end_session(&mut self, epoch: Epoch) -> Vec<ExchangeId> {
        let ids = self.exchanges.of_epoch(epoch, self.session.closing());
        let aborted = ids.into_iter().filter(|ex| self.exchanges.remove(*ex).is_some()).collect();
        self.session.end();
        aborted
    }

    /// The close `DELETE` took too long: the session is idle. `None` when not closing;
    /// otherwise the exchange dropped (if it was still in flight).
    fn stop_closing(&mut self) -> Option<Vec<ExchangeId>> {
        let delete = self.session.closing()?;
        self.session = SessionState::Idle;
        Some(self.exchanges.remove(delete).map(|_| delete).into_iter().collect())
    }
}

/// What the link knew when an exchange ended, to judge what the end means.
#[derive(Debug, Clone, Copy)]
pub(super) struct LinkFacts {
    /// The transport in use (or being tried).
    pub(super) kind: TransportKind,
    /// The server assigned an `Mcp-Session-Id` (a 404 means the session expired).
    pub(super) legacy_session: bool,
    /// Another transport remains to be tried.
    pub(super) has_next_kind: bool,
    /// How many times a request may be re-sent.
    pub(super) retries: u32,
}

impl HttpLink {
    /// What the link knows now, for judging the end of an exchange.
    pub(super) fn facts(&self) -> LinkFacts {
        LinkFacts {
            kind: self.kind(),
            legacy_session: self.session.id().is_some(),
            has_next_kind: self.detection.has_next(),
            retries: self.cfg.retries,
        }
    }
}

/// What a new exchange needs from the rest of the connection.
#[derive(Debug)]
struct ExchangeSetup {
    /// The wire trace is on.
    trace: bool,
    /// The connection's clock (OAuth proofs are dated).
    now: Instant,
    limits: Limits,
}

/// What a response head means, once the link took it in.
#[derive(Debug)]
enum HeadTaken {
    /// No such exchange.
    Unknown,
    /// A redirect to follow to this URL.
    Redirect(HttpUrl),
    /// Read the body.
    Read {
        epoch: Epoch,
        /// The exchange is the legacy GET stream.
        listen: bool,
        /// The exchange is the close `DELETE`.
        closing: bool,
        /// The session id the server assigned was refused.
        warning: Option<Warning>,
    },
}

/// Where an exchange stands after a feed.
#[derive(Debug)]
enum Settled {
    /// Still in flight.
    Open,
    /// Its answer arrived on its stream: it was dropped (the runtime must stop it).
    Answered,
    /// It ended, and was taken out (with what the link knew then).
    Ended(Box<Exchange>, LinkFacts),
}

impl Connection {
    /// The HTTP link, at an entry point of the HTTP side (`None` on stdio).
    fn http(&self) -> Option<&HttpLink> {
        match &self.transport {
            Transport::Http(link) => Some(&**link),
            Transport::Stdio(_) => None,
        }
    }

    /// The HTTP link, mutably, at an entry point of the HTTP side (`None` on stdio).
    fn http_mut(&mut self) -> Option<&mut HttpLink> {
        match &mut self.transport {
            Transport::Http(link) => Some(&mut **link),
            Transport::Stdio(_) => None,
        }
    }

    /// Sets up how challenges are answered, from the configuration (at creation).
    pub(super) fn init_http_auth(&mut self, now: Instant) {
        if let Some(warning) = self.http_mut().and_then(|link| link.init_auth(now)) {
            self.warn(warning);
        }
    }

    /// The work of [`Connection::http_transport`].
    pub(in crate::connection) fn http_kind(&self) -> Option<TransportKind> {
        self.http().map(HttpLink::kind)
    }

    /// Opens a session: the handshake (Streamable and plain HTTP) or the event stream (HTTP+SSE).
    pub(super) fn open_http(&mut self, now: Instant, epoch: Epoch) {
        let protocol = self.cfg.protocol;
        let Some(link) = self.http_mut() else { return };
        let Some(kind) = link.open_session() else {
            let detail = "the server URL is not a valid http:// or https:// URL".to_owned();
            self.proc = Proc::Running { epoch, session: Session::Probing { retried: false } };
            self.fail_handshake(now, RequestError::Handshake { detail });
            return;
        };
        if kind == TransportKind::Sse && protocol == ProtocolMode::Modern {
            // HTTP+SSE is 2024-11-05 only: refuse before anything goes out.
            self.proc = Proc::Running { epoch, session: Session::Probing { retried: false } };
            let detail = "the HTTP+SSE transport only speaks 2024-11-05 (initialize)".to_owned();
            self.fail_handshake(now, RequestError::ModernRequired { detail });
            return;
        }
        if kind == TransportKind::Sse {
            self.proc = Proc::Starting { epoch };
            self.start_stream(epoch, Role::SseStream, None);
            self.timers.set(Timer::Handshake, now + self.cfg.timeouts.initialize);
            return;
        }
        self.proc = Proc::Running { epoch, session: Session::Probing { retried: false } };
        self.start_handshake(now, epoch);
    }

    /// A handshake failed before any transport worked: detection starts from the first again.
    pub(super) fn http_restart_detection(&mut self) {
        if let Some(link) = self.http_mut() {
            link.detection.restart();
        }
    }

    /// Whether the handshake must skip the probe (see [`Detection::known_legacy`]).
    pub(super) fn http_known_legacy(&self) -> bool {
        self.http().is_some_and(|l| l.detection.known_legacy())
    }

    /// Sends one message as a POST (only called on HTTP).
    pub(super) fn http_send(&mut self, epoch: Epoch, mut out: Outgoing) {
        let modern = self.message_is_modern(&out);
        let body = out.take_bytes();
        self.trace_sent(epoch, &body);
        let Some(link) = self.http() else { return };
        let request =
            link.post_request(&out, body, modern, self.cfg.timeouts.http_connect, self.known_tools());
        let id = match out {
            Outgoing::Request { id, .. } | Outgoing::Encoded { id, .. } => Some(id),
            _ => None,
        };
        self.start_exchange(epoch, Role::Post { id, modern }, request);
    }

    /// Whether a message goes out under the modern era's rules.
    fn message_is_modern(&self, out: &Outgoing) -> bool {
        match out {
            Outgoing::Request { method, .. } if method == "server/discover" => {
                !matches!(self.proc, Proc::Running { session: Session::Ready(_), .. })
                    || self.era() == Some(Era::Modern)
            }
            Outgoing::Request { method, .. } if method == "initialize" => false,
            _ => self.era() == Some(Era::Modern),
        }
    }

    /// What a new exchange needs from the rest of the connection.
    fn exchange_setup(&self) -> ExchangeSetup {
        ExchangeSetup { trace: self.tracing_wire(), now: self.now, limits: self.cfg.limits.clone() }
    }

    fn start_exchange(&mut self, epoch: Epoch, role: Role, request: HttpRequest) -> Option<ExchangeId> {
        let setup = self.exchange_setup();
        let (exchange, request) = self.http_mut()?.start_exchange(epoch, role, request, &setup);
        self.launch_exchange(exchange, request, setup.trace);
        Some(exchange)
    }

    /// Hands a started exchange to the runtime (tracing its request first, if `trace`).
    fn launch_exchange(&mut self, exchange: ExchangeId, request: HttpRequest, trace: bool) {
        if trace {
            self.trace_http_request(exchange, &request, true);
        }
        self.io.push_back(Io::HttpStart { exchange, request });
    }

    /// Traces an HTTP request, if the trace is on: with its headers (redacted) when `headers`,
    /// else (an OAuth fetch) by method and URL only.
    pub(super) fn trace_http_request(&mut self, exchange: ExchangeId, request: &HttpRequest, headers: bool) {
        if !self.tracing_wire() {
            return;
        }
        let configured = match &self.cfg.transport {
            crate::config::TransportConfig::Http(http) => http.headers.as_slice(),
            _ => &[],
        };
        let headers =
            if headers { crate::wire::request_headers(&request.headers, configured) } else { Vec::new() };
        let record = crate::WireRecord::HttpRequest {
            exchange,
            method: request.method,
            url: crate::redact::redact_url(&request.url),
            headers,
        };
        self.trace_wire(record);
    }

    /// Opens an event stream (GET) for `role`, resuming after `last_event_id` if given.
    fn start_stream(&mut self, epoch: Epoch, role: Role, last_event_id: Option<&str>) -> Option<ExchangeId> {
        let setup = self.exchange_setup();
        let connect_timeout = self.cfg.timeouts.http_connect;
        let link = self.http_mut()?;
        let request = link.stream_request(last_event_id, connect_timeout);
        let (exchange, request) = link.start_exchange(epoch, role, request, &setup);
        self.launch_exchange(exchange, request, setup.trace);
        Some(exchange)
    }

    fn abort_exchange(&mut self, exchange: ExchangeId) {
        if self.http_mut().is_some_and(|l| l.exchanges.remove(exchange).is_some()) {
            self.io.push_back(Io::HttpAbort { exchange });
        }
    }

    /// The runtime stops the exchanges the link dropped.
    fn push_aborts(&mut self, exchanges: Vec<ExchangeId>) {
        self.io.extend(exchanges.into_iter().map(|exchange| Io::HttpAbort { exchange }));
    }

    /// Stops waiting for a request's response stream. `None` on stdio; otherwise whether
    /// closing the stream is the whole cancellation (modern), or a `notifications/cancelled`
    /// must follow (legacy).
    pub(super) fn http_abandon(&mut self, id: &WireId) -> Option<bool> {
        let era_modern = self.era() == Some(Era::Modern);
        let (aborted, modern) = self.http_mut()?.abandon(id);
        self.push_aborts(aborted);
        Some(modern.unwrap_or(era_modern))
    }

    // ----- inputs ---------------------------------------------------------------------------

    /// The work of [`Connection::handle_http_head`].
    pub(in crate::connection) fn take_http_head(
        &mut self,
        now: Instant,
        exchange: ExchangeId,
        head: HttpHead,
    ) {
        let now = self.tick(now);
        if self.tracing_wire() {
            let headers = crate::wire::response_headers(&head.headers);
            self.trace_wire(crate::WireRecord::HttpResponse { exchange, status: head.status, headers });
        }
        #[cfg(feature = "oauth")]
        if self.auth_owns(exchange) {
            return self.auth_fetch_head(exchange, head);
        }
        let current = self.current_epoch();
        // Split borrows: the link takes the head in, asking the wire table which request is
        // `initialize` (whose answer assigns the session id).
        let Transport::Http(link) = &mut self.transport else { return };
        let in_flight = &self.in_flight;
        let initialize = |id: &WireId| in_flight.wire_use(id) == Some(super::WireUse::Initialize);
        let (epoch, listen, closing, warning) = match link.on_head(exchange, &head, current, initialize) {
            HeadTaken::Unknown => return,
            HeadTaken::Redirect(target) => return self.follow_redirect(exchange, &target),
            HeadTaken::Read { epoch, listen, closing, warning } => (epoch, listen, closing, warning),
        };
        if let Some(warning) = warning {
            self.warn(warning);
        }
        if listen && self.current_epoch() == Some(epoch) {
            self.open_listen_gate(now, epoch);
        }
        if self.current_epoch() != Some(epoch) && !closing {
            self.abort_exchange(exchange);
            return;
        }
        self.feed(now, exchange, Feed::Nothing, false);
    }

    /// The work of [`Connection::handle_http_body`].
    pub(in crate::connection) fn take_http_body(&mut self, now: Instant, exchange: ExchangeId, bytes: &[u8]) {
        let now = self.tick(now);
        #[cfg(feature = "oauth")]
        if self.auth_owns(exchange) {
            return self.auth_fetch_body(now, exchange, bytes);
        }
        if let Some(link) = self.http_mut() {
            link.note_activity(exchange, now);
        }
        self.feed(now, exchange, Feed::Bytes(bytes), false);
    }

    /// The work of [`Connection::handle_http_end`].
    pub(in crate::connection) fn take_http_end(&mut self, now: Instant, exchange: ExchangeId) {
        let now = self.tick(now);
        #[cfg(feature = "oauth")]
        if self.auth_owns(exchange) {
            return self.auth_fetch_end(now, exchange);
        }
        self.feed(now, exchange, Feed::End, true);
    }

    /// The work of [`Connection::handle_http_failed`].
    pub(in crate::connection) fn take_http_failure(
        &mut self,
        now: Instant,
        exchange: ExchangeId,
        error: std::io::Error,
    ) {
        let now = self.tick(now);
        if self.tracing_wire() {
            self.trace_wire(crate::WireRecord::HttpFailed { exchange, error: error.to_string() });
        }
        #[cfg(feature = "oauth")]
        if self.auth_owns(exchange) {
            return self.auth_fetch_failed(now, exchange, &error.to_string());
        }
        self.feed(now, exchange, Feed::Failed(crate::IoError::new(error)), true);
    }

    /// The work of [`Connection::handle_http_refused`].
    pub(in crate::connection) fn take_http_refusal(
        &mut self,
        now: Instant,
        exchange: ExchangeId,
        refusal: crate::UnsafeAddress,
    ) {
        let now = self.tick(now);
        #[cfg(feature = "oauth")]
        if self.auth_owns(exchange) {
            return self.auth_fetch_refused(now, exchange, &refusal);
        }
        let error = std::io::Error::new(std::io::ErrorKind::PermissionDenied, refusal.to_string());
        self.handle_http_failed(now, exchange, error);
    }

    /// Pushes input into an exchange's decoder and acts on what comes out.
    /// `runtime_done`: the runtime reported the exchange's end or failure (nothing to abort).
    fn feed(&mut self, now: Instant, exchange: ExchangeId, input: Feed<'_>, runtime_done: bool) {
        let Some(x) = self.http_mut().and_then(|l| l.exchanges.get_mut(exchange)) else { return };
        let output = x.feed(input);
        let (epoch, role) = (x.epoch, x.role.clone());
        for warning in output.warnings {
            self.warn(warning);
        }
        for item in output.items {
            if self.current_epoch() != Some(epoch) {
                break;
            }
            match item {
                exchange::Item::Traced(text) => {
                    self.trace_wire(crate::WireRecord::Received { epoch, message: text });
                }
                exchange::Item::Message(msg) => self.on_message(now, epoch, msg),
                exchange::Item::Endpoint(data) if role == Role::SseStream => {
                    self.on_endpoint(now, epoch, &data)
                }
                exchange::Item::Endpoint(_) => {}
                exchange::Item::Oversize { peek, seen, done } => {
                    self.on_oversize_event(now, exchange, &peek, seen, done)
                }
            }
        }
        match self.http_mut().and_then(|l| l.settle(exchange)) {
            Some(Settled::Ended(x, facts)) => {
                if !runtime_done {
                    // Ended by the core (a limit, a bad body): the runtime must stop reading.
                    self.io.push_back(Io::HttpAbort { exchange });
                }
                self.on_exchange_done(now, exchange, *x, facts);
            }
            // The result arrived on an event stream: the stream has nothing more to give.
            Some(Settled::Answered) => self.io.push_back(Io::HttpAbort { exchange }),
            Some(Settled::Open) | None => {}
        }
    }

    /// An event over the limit is being (or was) skipped: fail the request it answers, once;
    /// if that is this exchange's own request, the stream has nothing more to give.
    fn on_oversize_event(
        &mut self,
        now: Instant,
        exchange: ExchangeId,
        peek: &Peek,
        seen: usize,
        done: bool,
    ) {
        let Some(x) = self.http_mut().and_then(|l| l.exchanges.get_mut(exchange)) else { return };
        if x.oversize_already_answered(done) {
            return;
        }
        let answered = self.fail_oversize_answer(now, peek, seen);
        if let Some(x) = self.http_mut().and_then(|l| l.exchanges.get_mut(exchange)) {
            x.oversize_answer_failed(answered, done, peek);
        }
    }

    /// The legacy revision was negotiated (`initialize` answered).
    pub(super) fn http_set_legacy_version(&mut self, version: &str) {
        if let Some(link) = self.http_mut() {
            link.session.set_version(version);
        }
    }

    /// HTTP+SSE: the server announced where to post messages.
    fn on_endpoint(&mut self, now: Instant, epoch: Epoch, data: &str) {
        if !matches!(self.proc, Proc::Starting { epoch: e } if e == epoch) {
            return;
        }
        let Some(link) = self.http_mut() else { return };
        if link.on_endpoint(data) {
            // Only now is the server known to serve HTTP+SSE (trying it is not using it).
            self.note_deprecated(crate::Deprecation::HttpSseTransport, crate::UsedBy::Server);
            self.proc = Proc::Running { epoch, session: Session::Probing { retried: false } };
            self.start_handshake(now, epoch);
        } else {
            let detail = format!(
                "the HTTP+SSE endpoint event named {:?}, which is not on the server's origin; refused",
                crate::text::sanitize(data, 200)
            );
            self.proc = Proc::Running { epoch, session: Session::Probing { retried: false } };
            self.fail_handshake(now, RequestError::Handshake { detail });
        }
    }

    /// How long to wait before re-opening a stream after `failures` failures in a row.
    pub(super) fn http_reconnect_delay(&mut self, failures: u32) -> Duration {
        self.http_mut().map_or(DEFAULT_RECONNECT, |l| l.backoff.reconnect_delay(failures))
    }

    /// The era probe gave up waiting: stop its exchange before `initialize` goes out.
    pub(super) fn http_abort_probe(&mut self) {
        let probes = self.in_flight.ids_of(super::WireUse::Probe);
        let Some(link) = self.http_mut() else { return };
        let aborted = probes.iter().flat_map(|id| link.exchanges.remove_for_request(id)).collect();
        self.push_aborts(aborted);
    }

    /// Modern HTTP: a tool whose `x-mcp-header` annotations are invalid is left out of
    /// `tools/list` (the spec requires it), with a warning naming the tool and the reason.
    pub(super) fn http_exclude_invalid_header_tools(&mut self, mut response: Response) -> Response {
        let Response::Tools(tools) = &mut response else { return response };
        if self.http().is_none() || self.era() != Some(Era::Modern) {
            return response;
        }
        let mut excluded = Vec::new();
        tools.retain(|tool| match crate::headers::param_headers(&tool.input_schema) {
            Ok(_) => true,
            Err(e) => {
                excluded.push(format!("tool {:?} left out: {e}", crate::text::sanitize(&tool.name, 100)));
                false
            }
        });
        for detail in excluded {
            self.warn(Warning::InvalidListItem { list: "tools", detail });
        }
        response
    }

    /// The session is usable: remember the verdict, open the legacy GET stream.
    pub(super) fn http_on_ready(&mut self, now: Instant, era: Era, protocol_version: &str) {
        let Some(epoch) = self.current_epoch() else { return };
        let Some(link) = self.http_mut() else { return };
        let kind = link.detection.settle(era);
        if era == Era::Legacy {
            link.session.set_version(protocol_version);
            match kind {
                TransportKind::StreamableHttp => self.start_listen(now, epoch),
                TransportKind::Sse => self.sse_watch(now, epoch),
                _ => {}
            }
        }
    }

    /// Ends the HTTP side of a session: aborts its exchanges (the close `DELETE` excepted) and
    /// forgets the session.
    pub(super) fn http_drop_session(&mut self, epoch: Epoch) {
        self.timers.clear(Timer::HttpReconnect(epoch));
        self.timers.clear(Timer::ListenGate(epoch));
        self.timers.clear(Timer::SseKeepAlive(epoch));
        let Some(link) = self.http_mut() else { return };
        let aborted = link.end_session(epoch);
        self.push_aborts(aborted);
    }

    /// At close: ends a legacy session with `DELETE` (waiting for it briefly).
    pub(super) fn http_retire(&mut self, now: Instant) {
        self.timers.clear(Timer::SseReopen);
        self.auth_abandon(now);
        let Some(epoch) = self.current_epoch() else { return };
        let delete = self.http().and_then(|l| l.delete_request(self.cfg.timeouts.http_connect));
        self.drop_process(now, epoch, false);
        let Some(request) = delete else { return };
        let setup = self.exchange_setup();
        let Some(link) = self.http_mut() else { return };
        let (delete, request) = link.start_exchange(epoch, Role::Delete, request, &setup);
        link.session = SessionState::Closing { delete };
        self.launch_exchange(delete, request, setup.trace);
        self.timers.set(Timer::HttpClose, now + CLOSE_DELETE_WAIT);
    }

    /// True while the close `DELETE` is still under way.
    pub(super) fn http_closing(&self) -> bool {
        self.http().is_some_and(|l| l.session.closing().is_some())
    }

    pub(super) fn on_http_close_timeout(&mut self) {
        let Some(aborted) = self.http_mut().and_then(HttpLink::stop_closing) else { return };
        self.push_aborts(aborted);
        self.maybe_closed();
    }
}
