//! The HTTP transports: Streamable HTTP (modern and legacy), HTTP+SSE and plain HTTP.
//!
//! A "session" of the connection (one [`Epoch`]) is, on HTTP, one run of the era handshake:
//! for modern servers it lasts the connection's lifetime; for legacy servers it is one
//! `Mcp-Session-Id` (or one HTTP+SSE event stream). Every message is an exchange
//! ([`ExchangeId`]) tagged with its epoch; reports for exchanges of a finished epoch are ignored.
//!
//! - [`exchange`]: one exchange's response decoding (gzip, JSON or SSE, error bodies);
//! - [`outbound`]: the requests (headers per era and transport);
//! - [`outcome`]: what an exchange's end means (results, fallbacks, retries, re-issues,
//!   session expiry, resumption).

mod exchange;
mod keepalive;
mod outbound;
mod outcome;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use super::{Connection, Outgoing, Proc, Session};
use crate::config::{ConnectionConfig, HttpConfig, ProtocolMode, TransportConfig};
use crate::handle::{Counter, Epoch, ExchangeId};
use crate::io::{HttpHead, HttpMethod, HttpRequest, Io};
use crate::jsonrpc::WireId;
use crate::mcp_servers::{HttpUrl, TransportKind};
use crate::session::Era;
use crate::timers::Timer;

pub(super) use exchange::Exchange;
use exchange::{Feed, Role};

/// How long a reconnection of the legacy event stream waits when the server gave no `retry`.
const DEFAULT_RECONNECT: Duration = Duration::from_secs(1);
/// Longest wait between reconnection attempts of the legacy event stream.
const MAX_RECONNECT: Duration = Duration::from_secs(30);
/// Resumptions of one broken response stream (legacy, `Last-Event-ID`) before giving up.
const MAX_RESUMES: u32 = 3;
/// How long requests of a new legacy session wait for its GET stream to open (see
/// [`HttpLink::listen_gate`]).
const LISTEN_GATE_WAIT: Duration = Duration::from_secs(2);
/// How long closing waits for the `DELETE` of a legacy session.
const CLOSE_DELETE_WAIT: Duration = Duration::from_secs(2);

/// The HTTP side of a connection.
#[derive(Debug)]
pub(crate) struct HttpLink {
    cfg: HttpConfig,
    /// The configured URL (`None`: not a valid http(s) URL; every request fails).
    url: Option<HttpUrl>,
    /// The transport being tried (index into `cfg.kinds`), until a session works.
    kind_at: usize,
    /// The transport and era that worked, kept for the connection's lifetime.
    verdict: Option<(TransportKind, Era)>,
    /// `Mcp-Session-Id` of the legacy session.
    session_id: Option<String>,
    /// The legacy revision negotiated, sent as `MCP-Protocol-Version`.
    pub(super) legacy_version: Option<String>,
    /// Where messages are posted (HTTP+SSE: the announced endpoint).
    post_url: String,
    exchanges: BTreeMap<ExchangeId, Exchange>,
    ids: Counter,
    /// Legacy Streamable HTTP: the standalone GET stream.
    listen: Listen,
    /// Legacy Streamable HTTP: the session's first GET stream has no response head yet, so
    /// host requests wait (a server request sent before the stream exists would be lost).
    /// Opened by the head, the stream's end or failure, or [`LISTEN_GATE_WAIT`].
    listen_gate: bool,
    /// The last event id seen on the GET stream (for `Last-Event-ID`).
    listen_event_id: Option<String>,
    /// The server's `retry`, in milliseconds.
    retry_ms: Option<u64>,
    /// Consecutive failed reconnections of the GET stream.
    listen_failures: u32,
    /// Broken response streams waiting to be resumed: (request id, last event id, attempts).
    resumes: Vec<(WireId, String, u32)>,
    deprecation_reported: bool,
    /// The `DELETE` ending a legacy session, while closing.
    closing: Option<ExchangeId>,
    /// HTTP+SSE: when the event stream last carried bytes.
    stream_activity: Option<Instant>,
    /// HTTP+SSE: when the keep-alive `ping` went out, if one is outstanding.
    ping_sent: Option<Instant>,
    /// HTTP+SSE: automatic reopenings of a lost stream in a row.
    reopens: u32,
    /// HTTP+SSE: the stream being opened is an automatic reopening.
    reopening: bool,
    rng: SplitMix64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Listen {
    /// Not open (not a legacy Streamable HTTP session, or not yet ready).
    Off,
    /// Open as this exchange.
    Open(ExchangeId),
    /// Waiting for the reconnection timer.
    Waiting,
    /// The server has no GET stream (405), or reconnections keep failing.
    Unsupported,
}

impl HttpLink {
    pub(super) fn for_config(cfg: &ConnectionConfig) -> Option<Self> {
        let TransportConfig::Http(http) = &cfg.transport else { return None };
        // An unparsable URL fails every request with a clear error (see `open_http`).
        let url = HttpUrl::parse(&http.url).ok();
        Some(Self {
            post_url: url.as_ref().map_or_else(String::new, |u| u.as_str().to_owned()),
            url,
            cfg: http.clone(),
            kind_at: 0,
            verdict: None,
            session_id: None,
            legacy_version: None,
            exchanges: BTreeMap::new(),
            ids: Counter::default(),
            listen: Listen::Off,
            listen_gate: false,
            listen_event_id: None,
            retry_ms: None,
            listen_failures: 0,
            resumes: Vec::new(),
            deprecation_reported: false,
            closing: None,
            stream_activity: None,
            ping_sent: None,
            reopens: 0,
            reopening: false,
            rng: SplitMix64(cfg.random_seed),
        })
    }

    /// The transport in use (or being tried).
    pub(super) fn kind(&self) -> TransportKind {
        match self.verdict {
            Some((kind, _)) => kind,
            None => self.cfg.kinds.get(self.kind_at).copied().unwrap_or(TransportKind::StreamableHttp),
        }
    }

    /// The configured URL (the MCP endpoint, or the HTTP+SSE stream).
    fn base_url(&self) -> &str {
        self.url.as_ref().map_or("", HttpUrl::as_str)
    }

    fn has_next_kind(&self) -> bool {
        self.verdict.is_none() && self.kind_at + 1 < self.cfg.kinds.len()
    }

    fn reset_session(&mut self) {
        self.session_id = None;
        self.legacy_version = None;
        self.post_url = self.base_url().to_owned();
        self.listen = Listen::Off;
        self.listen_gate = false;
        self.listen_event_id = None;
        self.listen_failures = 0;
        self.resumes.clear();
    }

    /// A delay with ±25% jitter.
    fn jittered(&mut self, base: Duration) -> Duration {
        let quarter = base / 4;
        let spread = quarter.as_millis() as u64 * 2;
        let offset = if spread == 0 { 0 } else { self.rng.next() % (spread + 1) };
        base - quarter + Duration::from_millis(offset)
    }
}

/// A small deterministic generator for jitter, seeded by the configuration.
#[derive(Debug, Clone)]
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

impl Connection {
    fn link(&mut self) -> &mut HttpLink {
        self.http.as_mut().expect("an HTTP connection")
    }

    /// The transport an HTTP connection uses (or is trying), for display.
    pub fn http_transport(&self) -> Option<TransportKind> {
        self.http.as_ref().map(|l| l.kind())
    }

    /// Opens a session: the handshake (Streamable and plain HTTP) or the event stream (HTTP+SSE).
    pub(super) fn open_http(&mut self, now: Instant, epoch: Epoch) {
        if self.link().url.is_none() {
            let detail = "the server URL is not a valid http:// or https:// URL".to_owned();
            self.proc = Proc::Running { epoch, session: Session::Probing, exited: None, stdout_eof: false };
            self.fail_handshake(now, crate::error::RequestError::Handshake { detail });
            return;
        }
        self.link().reset_session();
        if self.link().kind() == TransportKind::Sse && self.cfg.protocol == ProtocolMode::Modern {
            // HTTP+SSE is 2024-11-05 only: refuse before anything goes out.
            self.proc = Proc::Running { epoch, session: Session::Probing, exited: None, stdout_eof: false };
            let detail = "the HTTP+SSE transport only speaks 2024-11-05 (initialize)".to_owned();
            self.fail_handshake(now, crate::error::RequestError::ModernRequired { detail });
            return;
        }
        if self.link().kind() == TransportKind::Sse {
            if !std::mem::replace(&mut self.link().deprecation_reported, true) {
                self.warn(crate::error::Warning::Deprecated {
                    feature: "the HTTP+SSE transport (2024-11-05)",
                    advice: "the server should move to Streamable HTTP",
                });
            }
            self.proc = Proc::Starting { epoch };
            let request = self.stream_request(HttpMethod::Get, None);
            self.start_exchange(epoch, Role::SseStream, request);
            self.timers.set(Timer::Handshake, now + self.cfg.timeouts.initialize);
            return;
        }
        self.proc = Proc::Running { epoch, session: Session::Probing, exited: None, stdout_eof: false };
        self.start_handshake(now, epoch);
    }

    /// A handshake failed before any transport worked: the next attempt tries the transports
    /// from the first again (a transient fault must not lose the transport that works).
    pub(super) fn http_restart_detection(&mut self) {
        if let Some(l) = self.http.as_mut() {
            if l.verdict.is_none() {
                l.kind_at = 0;
            }
        }
    }

    /// Whether the handshake must skip the probe: the era is known to be legacy already, or
    /// the transport is HTTP+SSE (2024-11-05 only).
    pub(super) fn http_known_legacy(&self) -> bool {
        self.http.as_ref().is_some_and(|l| {
            let plain_after_fallback = l.kind() == TransportKind::PlainHttp && l.kind_at > 0;
            matches!(l.verdict, Some((_, Era::Legacy)))
                || l.kind() == TransportKind::Sse
                || plain_after_fallback
        })
    }

    /// Sends one message as a POST.
    pub(super) fn http_send(&mut self, _now: Instant, epoch: Epoch, out: Outgoing) {
        let modern = self.message_is_modern(&out);
        let id = match &out {
            Outgoing::Request { id, .. } => Some(id.clone()),
            _ => None,
        };
        let request = self.post_request(&out, modern);
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

    fn start_exchange(&mut self, epoch: Epoch, role: Role, request: HttpRequest) -> ExchangeId {
        let limits = self.cfg.limits.clone();
        let link = self.link();
        let exchange = ExchangeId::new(link.ids.next());
        link.exchanges.insert(exchange, Exchange::new(epoch, role, &limits));
        self.io.push_back(Io::HttpStart { exchange, request });
        exchange
    }

    fn abort_exchange(&mut self, exchange: ExchangeId) {
        if let Some(link) = self.http.as_mut() {
            if link.exchanges.remove(&exchange).is_some() {
                self.io.push_back(Io::HttpAbort { exchange });
            }
        }
    }

    /// Stops waiting for a request's response stream. Returns true when closing it is the whole
    /// cancellation (modern); false when a `notifications/cancelled` must follow (legacy).
    pub(super) fn http_abandon(&mut self, _epoch: Epoch, id: &WireId) -> bool {
        let Some(link) = self.http.as_mut() else { return false };
        link.resumes.retain(|(rid, _, _)| rid != id);
        let found: Vec<(ExchangeId, bool)> = link
            .exchanges
            .iter()
            .filter(|(_, x)| x.role.request_id() == Some(id))
            .map(|(ex, x)| (*ex, x.role.is_modern()))
            .collect();
        let modern = match found.first() {
            Some((_, modern)) => *modern,
            None => self.era() == Some(Era::Modern),
        };
        for (ex, _) in found {
            self.abort_exchange(ex);
        }
        modern
    }

    // ----- inputs ---------------------------------------------------------------------------

    /// The response head of an exchange arrived.
    pub fn handle_http_head(&mut self, now: Instant, exchange: ExchangeId, head: HttpHead) {
        let now = self.tick(now);
        let Some(link) = self.http.as_mut() else { return };
        let Some(x) = link.exchanges.get_mut(&exchange) else { return };
        x.on_head(&head);
        let epoch = x.epoch;
        let is_listen = x.role == Role::Listen;
        let is_initialize = matches!(&x.role, Role::Post { .. }) && self.initialize_exchange(exchange);
        if is_initialize && (200..300).contains(&head.status) {
            self.capture_session_id(&head);
        }
        if is_listen && self.current_epoch() == Some(epoch) {
            self.open_listen_gate(now, epoch);
        }
        if self.current_epoch() != Some(epoch) && !self.is_close_exchange(exchange) {
            self.abort_exchange(exchange);
            return;
        }
        self.feed(now, exchange, Feed::Nothing, false);
    }

    /// A chunk of an exchange's response body arrived (raw, not decompressed).
    pub fn handle_http_body(&mut self, now: Instant, exchange: ExchangeId, bytes: &[u8]) {
        let now = self.tick(now);
        if let Some(link) = self.http.as_mut() {
            if link.exchanges.get(&exchange).is_some_and(|x| x.role == Role::SseStream) {
                link.stream_activity = Some(now);
            }
        }
        self.feed(now, exchange, Feed::Bytes(bytes), false);
    }

    /// An exchange's response body ended normally.
    pub fn handle_http_end(&mut self, now: Instant, exchange: ExchangeId) {
        let now = self.tick(now);
        self.feed(now, exchange, Feed::End, true);
    }

    /// An exchange failed in transport (connect, TLS, reset, ...).
    pub fn handle_http_failed(&mut self, now: Instant, exchange: ExchangeId, detail: String) {
        let now = self.tick(now);
        let Some(x) = self.http.as_mut().and_then(|l| l.exchanges.get_mut(&exchange)) else { return };
        x.fail(detail);
        self.feed(now, exchange, Feed::Nothing, true);
    }

    /// Pushes input into an exchange's decoder and acts on what comes out.
    /// `runtime_done`: the runtime reported the exchange's end or failure (nothing to abort).
    fn feed(&mut self, now: Instant, exchange: ExchangeId, input: Feed<'_>, runtime_done: bool) {
        let Some(x) = self.http.as_mut().and_then(|l| l.exchanges.get_mut(&exchange)) else { return };
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
                exchange::Item::Message(msg) => self.on_message(now, epoch, msg),
                exchange::Item::Endpoint(data) if role == Role::SseStream => {
                    self.on_endpoint(now, epoch, &data)
                }
                exchange::Item::Endpoint(_) => {}
            }
        }
        let state = self
            .http
            .as_ref()
            .and_then(|l| l.exchanges.get(&exchange))
            .map(|x| (x.finished().is_some(), x.answered));
        match state {
            Some((true, _)) => {
                if !runtime_done {
                    // Ended by the core (a limit, a bad body): the runtime must stop reading.
                    self.io.push_back(Io::HttpAbort { exchange });
                }
                if let Some(x) = self.http.as_mut().and_then(|l| l.exchanges.remove(&exchange)) {
                    self.on_exchange_done(now, exchange, x);
                }
            }
            // The result arrived on an event stream: the stream has nothing more to give.
            Some((false, true)) => self.abort_exchange(exchange),
            _ => {}
        }
    }

    fn initialize_exchange(&self, exchange: ExchangeId) -> bool {
        let Some(x) = self.http.as_ref().and_then(|l| l.exchanges.get(&exchange)) else { return false };
        match &x.role {
            Role::Post { id: Some(id), .. } => self.wire.get(id) == Some(&super::WireUse::Initialize),
            _ => false,
        }
    }

    fn is_close_exchange(&self, exchange: ExchangeId) -> bool {
        self.http.as_ref().is_some_and(|l| l.closing == Some(exchange))
    }

    /// Keeps the `Mcp-Session-Id` the server assigned in its `initialize` answer, if it is a
    /// valid one (visible ASCII, bounded).
    fn capture_session_id(&mut self, head: &HttpHead) {
        let Some(value) = head.header("mcp-session-id") else { return };
        let valid =
            !value.is_empty() && value.len() <= 256 && value.bytes().all(|b| (0x21..=0x7e).contains(&b));
        if valid {
            self.link().session_id = Some(value.to_owned());
        } else {
            let detail =
                "ignored an invalid Mcp-Session-Id (it must be 1-256 visible ASCII characters)".into();
            self.warn(crate::error::Warning::Http { detail });
        }
    }

    /// HTTP+SSE: the server announced where to post messages.
    fn on_endpoint(&mut self, now: Instant, epoch: Epoch, data: &str) {
        if !matches!(self.proc, Proc::Starting { epoch: e } if e == epoch) {
            return;
        }
        let link = self.link();
        match link.url.as_ref().and_then(|u| u.join_same_origin(data.trim())) {
            Some(url) => {
                link.post_url = url;
                self.proc =
                    Proc::Running { epoch, session: Session::Probing, exited: None, stdout_eof: false };
                self.start_handshake(now, epoch);
            }
            None => {
                let detail = format!(
                    "the HTTP+SSE endpoint event named {:?}, which is not on the server's origin; refused",
                    crate::text::sanitize(data, 200)
                );
                self.proc =
                    Proc::Running { epoch, session: Session::Probing, exited: None, stdout_eof: false };
                self.fail_handshake(now, crate::error::RequestError::Handshake { detail });
            }
        }
    }

    /// The era probe gave up waiting: stop its exchange before `initialize` goes out.
    pub(super) fn http_abort_probe(&mut self) {
        let probes: Vec<WireId> = self
            .wire
            .iter()
            .filter(|(_, u)| **u == super::WireUse::Probe)
            .map(|(id, _)| id.clone())
            .collect();
        for id in probes {
            self.http_abandon_exchanges(&id);
        }
    }

    fn http_abandon_exchanges(&mut self, id: &WireId) {
        let Some(link) = self.http.as_ref() else { return };
        let found: Vec<ExchangeId> = link
            .exchanges
            .iter()
            .filter(|(_, x)| x.role.request_id() == Some(id))
            .map(|(ex, _)| *ex)
            .collect();
        for ex in found {
            self.abort_exchange(ex);
        }
    }

    /// Modern HTTP: a tool whose `x-mcp-header` annotations are invalid is left out of
    /// `tools/list` (the spec requires it), with a warning naming the tool and the reason.
    pub(super) fn http_exclude_invalid_header_tools(&mut self, tools: &mut Vec<crate::types::Tool>) {
        if self.http.is_none() || self.era() != Some(Era::Modern) {
            return;
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
            self.warn(crate::error::Warning::InvalidListItem { list: "tools", detail });
        }
    }

    /// The session is usable: remember the verdict, open the legacy GET stream.
    pub(super) fn http_on_ready(&mut self, now: Instant, era: Era, protocol_version: &str) {
        let Some(epoch) = self.current_epoch() else { return };
        let link = self.link();
        let kind = link.kind();
        link.verdict = Some((kind, era));
        if era == Era::Legacy {
            link.legacy_version = Some(protocol_version.to_owned());
            match kind {
                TransportKind::StreamableHttp => {
                    self.link().listen_gate = true;
                    self.timers.set(Timer::ListenGate(epoch), now + LISTEN_GATE_WAIT);
                    self.open_listen(now, epoch);
                }
                TransportKind::Sse => self.sse_watch(now, epoch),
                _ => {}
            }
        }
    }

    /// Whether the server can reach the client with unsolicited notifications (a legacy
    /// `listChanged` promise is only worth caching on when it can): always on stdio and
    /// HTTP+SSE; on Streamable HTTP while the GET stream is open or being reopened; never on
    /// plain HTTP.
    pub(super) fn can_receive_notifications(&self) -> bool {
        let Some(link) = self.http.as_ref() else { return true };
        match link.kind() {
            TransportKind::Stdio | TransportKind::Sse => true,
            TransportKind::StreamableHttp => matches!(link.listen, Listen::Open(_) | Listen::Waiting),
            TransportKind::PlainHttp => false,
        }
    }

    /// The legacy GET stream is gone for good: no `list_changed` can arrive any more, so the
    /// lists cached on that promise are dropped.
    fn listen_given_up(&mut self) {
        self.link().listen = Listen::Unsupported;
        self.drop_lists_awaiting_notifications();
    }

    /// Whether host requests must wait for the GET stream of a new legacy session.
    pub(super) fn http_holds_requests(&self) -> bool {
        self.http.as_ref().is_some_and(|l| l.listen_gate)
    }

    /// The GET stream answered (or will not): requests held for it go out now.
    fn open_listen_gate(&mut self, now: Instant, epoch: Epoch) {
        self.timers.clear(Timer::ListenGate(epoch));
        if std::mem::replace(&mut self.link().listen_gate, false) {
            self.pump(now);
        }
    }

    pub(super) fn on_listen_gate_timeout(&mut self, now: Instant, epoch: Epoch) {
        if self.current_epoch() == Some(epoch) && self.http.is_some() {
            self.open_listen_gate(now, epoch);
        }
    }

    fn open_listen(&mut self, _now: Instant, epoch: Epoch) {
        let last = self.link().listen_event_id.clone();
        let request = self.stream_request(HttpMethod::Get, last.as_deref());
        let ex = self.start_exchange(epoch, Role::Listen, request);
        self.link().listen = Listen::Open(ex);
    }

    pub(super) fn on_http_reconnect(&mut self, now: Instant, epoch: Epoch) {
        if self.current_epoch() != Some(epoch) || self.http.is_none() {
            return;
        }
        let resumes = std::mem::take(&mut self.link().resumes);
        for (id, last, attempts) in resumes {
            if !self.wire.contains_key(&id) {
                continue;
            }
            let request = self.stream_request(HttpMethod::Get, Some(&last));
            self.start_exchange(epoch, Role::Resume { id, last, attempts }, request);
        }
        if self.link().listen == Listen::Waiting {
            self.open_listen(now, epoch);
        }
    }

    /// Schedules the reconnection timer after the server's `retry` (or a backoff).
    fn schedule_reconnect(&mut self, now: Instant, epoch: Epoch) {
        let link = self.link();
        let base = match link.retry_ms {
            Some(ms) => Duration::from_millis(ms),
            None => {
                let shift = link.listen_failures.min(5);
                (DEFAULT_RECONNECT * (1 << shift)).min(MAX_RECONNECT)
            }
        };
        let delay = if link.retry_ms.is_some() { base } else { link.jittered(base) };
        self.timers.set(Timer::HttpReconnect(epoch), now + delay);
    }

    /// Ends the HTTP side of a session: aborts its exchanges (the close `DELETE` excepted).
    pub(super) fn http_drop_session(&mut self, epoch: Epoch) {
        self.timers.clear(Timer::HttpReconnect(epoch));
        self.timers.clear(Timer::ListenGate(epoch));
        self.timers.clear(Timer::SseKeepAlive(epoch));
        let Some(link) = self.http.as_mut() else { return };
        let closing = link.closing;
        let doomed: Vec<ExchangeId> = link
            .exchanges
            .iter()
            .filter(|(ex, x)| x.epoch == epoch && Some(**ex) != closing)
            .map(|(ex, _)| *ex)
            .collect();
        for ex in doomed {
            self.abort_exchange(ex);
        }
        self.link().listen = Listen::Off;
        self.link().listen_gate = false;
        self.link().resumes.clear();
    }

    /// At close: ends a legacy session with `DELETE` (waiting for it briefly).
    pub(super) fn http_retire(&mut self, now: Instant) {
        self.timers.clear(Timer::SseReopen);
        let Some(epoch) = self.current_epoch() else { return };
        self.drop_process(now, epoch, false);
        if let Some(session) = self.link().session_id.take() {
            let request = self.delete_request(&session);
            let ex = self.start_exchange(epoch, Role::Delete, request);
            self.link().closing = Some(ex);
            self.timers.set(Timer::HttpClose, now + CLOSE_DELETE_WAIT);
        }
    }

    /// True while the close `DELETE` is still under way.
    pub(super) fn http_closing(&self) -> bool {
        self.http.as_ref().is_some_and(|l| l.closing.is_some())
    }

    pub(super) fn on_http_close_timeout(&mut self, _now: Instant) {
        if let Some(ex) = self.http.as_mut().and_then(|l| l.closing.take()) {
            self.abort_exchange(ex);
            self.maybe_closed();
        }
    }
}
