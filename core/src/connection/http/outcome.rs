//! What the end of an exchange means: the handshake's fallbacks, request errors, retries,
//! the modern re-issue, legacy resumption, session expiry, and the event streams' reconnection.

use std::time::{Duration, Instant};

use super::super::{Connection, Proc, WireUse};
use super::auth;
use super::exchange::{End, Exchange, Role, TooLarge};
use super::session::{Listen, Resume, SessionState};
use super::{HttpLink, LinkFacts};
use crate::config::ProtocolMode;
use crate::error::{RequestError, RpcError, Warning};
use crate::event::Event;
use crate::handle::{Epoch, ExchangeId, RequestHandle};
use crate::jsonrpc::{Message, WireId};
use crate::redirect_error::RedirectError;
use crate::request::Request;
use crate::timers::Timer;
use crate::transport::TransportKind;
use crate::transport_attempt::{AttemptOutcome, TransportAttempt};

/// Resumptions of one broken response stream (legacy, `Last-Event-ID`) before giving up.
const MAX_RESUMES: u32 = 3;
/// Failed reconnections of the legacy GET stream before it is given up.
const MAX_LISTEN_FAILURES: u32 = 5;
/// Longest backoff between retries of a request.
const MAX_RETRY_DELAY: Duration = Duration::from_secs(30);

/// An exchange that ended without carrying the response its request waited for, classified.
#[derive(Debug)]
enum Failure {
    /// No response head: connecting or sending failed (with the operating system's error when
    /// there was one).
    Transport(String, Option<crate::IoError>),
    /// A 2xx response whose stream ended (or broke) before the result.
    Broken(String),
    /// The body (or an event of it) passed a limit.
    TooLarge(TooLarge),
    /// An error status with a JSON-RPC error in its body (401/403 excepted).
    Rpc(u16, RpcError),
    /// 401 or 403.
    Unauthorized(u16, Option<RpcError>),
    /// 404 on a legacy session.
    SessionGone,
    /// 5xx without a JSON-RPC error.
    Server(u16, String),
    /// Any other status.
    Status(u16, String),
    /// A redirect that is not followed.
    Redirect(RedirectError),
}

impl Failure {
    fn into_error(self, x: &Exchange) -> RequestError {
        match self {
            Failure::Transport(detail, source) => RequestError::TransportClosed { detail, source },
            Failure::Broken(detail) => RequestError::StreamClosed { detail },
            Failure::TooLarge(t) => {
                RequestError::ResponseTooLarge { limit: t.limit, seen_at_least: t.seen, detail: t.detail }
            }
            Failure::Rpc(_, e) => RequestError::Rpc(e),
            Failure::Unauthorized(status, rpc) => RequestError::Unauthorized {
                status,
                challenges: x
                    .www_authenticate()
                    .map(crate::headers::parse_www_authenticate)
                    .unwrap_or_default(),
                rpc,
            },
            Failure::SessionGone => RequestError::SessionExpired,
            Failure::Server(status, detail) => RequestError::TransientServer { status, detail },
            Failure::Status(status, detail) => RequestError::Http { status, detail },
            Failure::Redirect(refused) => RequestError::Redirect(refused),
        }
    }
}

impl Connection {
    /// Classifies an exchange that ended without the awaited response.
    fn classify(&self, x: &Exchange, link: LinkFacts) -> Failure {
        let end = x.finished().cloned().unwrap_or(End::Complete);
        let status = match (x.status(), &end) {
            (_, End::TooLarge(t)) => return Failure::TooLarge(t.clone()),
            (_, End::Redirect(refused)) => return Failure::Redirect(refused.clone()),
            (None, End::Failed(error)) => return Failure::Transport(error.to_string(), Some(error.clone())),
            (None, End::BadBody(detail)) => return Failure::Transport(detail.clone(), None),
            (None, End::Complete) => return Failure::Transport("no response".into(), None),
            (Some(s), _) => s,
        };
        if (200..300).contains(&status) {
            // The stream skipped an event over the limit that could not be read and ended
            // without the result: that event was most likely it (sending again would not help).
            if let (Some(seen), Some(_)) = (x.oversize_event, x.role.request_id()) {
                let limit = self.cfg.limits.max_message_bytes;
                return Failure::TooLarge(TooLarge {
                    limit,
                    seen,
                    detail: format!(
                        "the response stream skipped a {seen}-byte event over the {limit}-byte limit \
                         (max_message_bytes) and ended without the result"
                    ),
                });
            }
            return Failure::Broken(match end {
                End::Failed(e) => format!("the response stream broke: {e}"),
                End::BadBody(d) => format!("the response stream broke: {d}"),
                _ => format!("HTTP {status}: the response ended without a result"),
            });
        }
        let rpc = x.error_body().map(|e| RpcError { code: e.code, message: e.message, data: e.data });
        match (status, rpc) {
            (401 | 403, rpc) => Failure::Unauthorized(status, rpc),
            (404, _) if link.legacy_session => Failure::SessionGone,
            (_, Some(e)) => Failure::Rpc(status, e),
            (500..=599, None) => Failure::Server(status, x.error_text()),
            (_, None) => Failure::Status(status, x.error_text()),
        }
    }

    /// An exchange ended (normally or not): act on what it means.
    /// `link`: what the link knew when it ended.
    pub(super) fn on_exchange_done(
        &mut self,
        now: Instant,
        exchange: ExchangeId,
        x: Exchange,
        link: LinkFacts,
    ) {
        if x.role == Role::Delete {
            if self.http_mut().is_some_and(|link| link.closed(exchange)) {
                self.timers.clear(Timer::HttpClose);
                self.maybe_closed();
            }
            return;
        }
        if self.current_epoch() != Some(x.epoch) {
            return;
        }
        match x.role.clone() {
            Role::Post { id: Some(id), .. } => self.on_request_exchange_done(now, id, &x, link),
            Role::Post { id: None, .. } => self.on_message_exchange_done(now, &x, link),
            Role::Resume { id, last, attempts } => self.on_resume_done(now, id, last, attempts, &x, link),
            Role::Listen => self.on_listen_done(now, &x, link),
            Role::SseStream => self.on_sse_stream_done(now, &x, link),
            Role::Delete => {}
        }
    }

    /// A POSTed notification or answer ended: only a failure is worth reporting.
    fn on_message_exchange_done(&mut self, now: Instant, x: &Exchange, link: LinkFacts) {
        if matches!(x.finished(), Some(End::Complete)) && x.status().is_some_and(|s| (200..300).contains(&s))
        {
            return;
        }
        match self.classify(x, link) {
            Failure::SessionGone => self.on_session_expired(now, x.epoch),
            f => {
                let detail = format!("a message the client posted was not delivered: {}", f.into_error(x));
                self.warn(Warning::Http { detail });
            }
        }
    }

    /// A POSTed request's exchange ended without its response (or with it: then nothing to do).
    fn on_request_exchange_done(&mut self, now: Instant, id: WireId, x: &Exchange, link: LinkFacts) {
        if x.answered {
            return;
        }
        let Some(usage) = self.in_flight.wire_use(&id) else { return };
        let sse_transport = link.kind == TransportKind::Sse;
        let accepted = x.status().is_some_and(|s| (200..300).contains(&s));
        if sse_transport && accepted && matches!(x.finished(), Some(End::Complete)) {
            // HTTP+SSE: the response comes on the event stream.
            return;
        }
        let failure = self.classify(x, link);
        if let Failure::Unauthorized(status, _) = failure {
            let parked = match usage {
                WireUse::Probe => Some(auth::Parked::Handshake(x.epoch)),
                WireUse::Initialize => Some(auth::Parked::Initialize(x.epoch)),
                WireUse::Op(handle) => Some(auth::Parked::Op(handle)),
                WireUse::Fire | WireUse::KeepAlive => None,
            };
            if let Some(parked) = parked {
                if self.auth_challenge(now, status, x.www_authenticate(), parked) {
                    if !matches!(parked, auth::Parked::Op(_)) {
                        self.timers.clear(Timer::Handshake);
                    }
                    self.forget_wire(&id);
                    return;
                }
            }
        }
        match usage {
            WireUse::Probe => self.on_probe_failed(now, id, failure, x),
            WireUse::Initialize => self.on_initialize_failed(now, id, failure, x, link),
            WireUse::Op(handle) => self.on_op_failed(now, handle, id, failure, x, link),
            WireUse::Fire => self.forget_wire(&id),
            WireUse::KeepAlive => {
                self.forget_wire(&id);
                let detail = format!("the keep-alive ping failed: {}", failure.into_error(x));
                self.warn(Warning::Http { detail });
            }
        }
    }

    /// The modern probe got no JSON-RPC answer: a 4xx without a modern error body, or a body
    /// that is not an answer, means a legacy server.
    fn on_probe_failed(&mut self, now: Instant, id: WireId, failure: Failure, x: &Exchange) {
        match failure {
            Failure::Rpc(_, e) => {
                self.deliver(now, id, Err(e));
            }
            f @ (Failure::Transport(..)
            | Failure::TooLarge(_)
            | Failure::Unauthorized(..)
            | Failure::Server(..)
            | Failure::Redirect(_)) => {
                let err = f.into_error(x);
                self.fail_handshake(now, handshake_error(err));
            }
            Failure::Broken(_) | Failure::Status(..) | Failure::SessionGone => {
                self.forget_wire(&id);
                if self.cfg.protocol == ProtocolMode::Modern {
                    let detail = "the server did not answer server/discover (HTTP)".into();
                    self.fail_handshake(now, RequestError::ModernRequired { detail });
                    return;
                }
                if let Some(epoch) = self.current_epoch() {
                    self.timers.clear(Timer::Handshake);
                    self.send_initialize(now, epoch);
                }
            }
        }
    }

    /// The legacy `initialize` got no answer: a 4xx means this is not the transport (try the
    /// next one); anything else fails the handshake.
    fn on_initialize_failed(
        &mut self,
        now: Instant,
        id: WireId,
        failure: Failure,
        x: &Exchange,
        link: LinkFacts,
    ) {
        let attempt = match &failure {
            // A server error with a JSON-RPC error is the server's answer, not a wrong transport.
            Failure::Rpc(status, _) if !(400..500).contains(status) => None,
            _ => not_this_transport(&failure, x, link),
        };
        let Some(attempt) = attempt else {
            return match failure {
                Failure::Rpc(_, e) => self.deliver(now, id, Err(e)),
                f => self.fail_handshake(now, handshake_error(f.into_error(x))),
            };
        };
        if link.has_next_kind {
            return self.next_kind(now, attempt);
        }
        match (self.detection_failed(attempt), failure) {
            (Some(err), _) => self.fail_handshake(now, err),
            (None, Failure::Rpc(_, e)) => self.deliver(now, id, Err(e)),
            (None, f) => self.fail_handshake(now, handshake_error(f.into_error(x))),
        }
    }

    /// The last transport was refused too: the error listing every try (with the common
    /// endpoints when every try got 404), or `None` when no other transport was tried.
    fn detection_failed(&mut self, attempt: TransportAttempt) -> Option<RequestError> {
        self.http_mut()?.detection_failed(attempt)
    }

    /// Gives up on the transport being tried, which got what `attempt` says, and opens the next.
    fn next_kind(&mut self, now: Instant, attempt: TransportAttempt) {
        let Some(epoch) = self.current_epoch() else { return };
        self.drop_process(now, epoch, false);
        if let Some(link) = self.http_mut() {
            link.detection.advance(attempt);
        }
        self.spawn(now);
    }

    /// A host request's exchange ended without its response.
    fn on_op_failed(
        &mut self,
        now: Instant,
        handle: RequestHandle,
        id: WireId,
        failure: Failure,
        x: &Exchange,
        link: LinkFacts,
    ) {
        let Some(op) = self.in_flight.get(handle) else { return };
        if matches!(op.request, Request::Listen { .. }) {
            return self.on_listen_failed(now, handle, id, failure, x);
        }
        let is_tool_call = matches!(op.request, Request::CallTool { .. } | Request::CallToolAsTask { .. });
        let retries_left = op.retries < link.retries;
        let modern = x.role.is_modern();
        match failure {
            Failure::Rpc(_, e) => self.deliver(now, id, Err(e)),
            Failure::SessionGone => self.on_session_expired(now, x.epoch),
            Failure::Transport(..) | Failure::Server(..) if retries_left && !is_tool_call => {
                self.forget_wire(&id);
                self.schedule_retry(now, handle);
            }
            Failure::Broken(detail) if modern => {
                let reissued =
                    std::mem::replace(&mut self.in_flight.get_mut(handle).expect("op").reissued, true);
                self.forget_wire(&id);
                if reissued {
                    let detail = format!("{detail} (after the one re-issue)");
                    self.finish(handle, Err(RequestError::StreamClosed { detail }));
                } else {
                    self.in_flight.queue_first(handle);
                    self.pump(now);
                }
            }
            Failure::Broken(detail) => match x.last_event_id.clone() {
                Some(last) if link.kind == TransportKind::StreamableHttp => {
                    self.resume_later(now, x.epoch, Resume { id, last, attempts: 1 }, x.retry_ms);
                }
                _ => self.finish(handle, Err(RequestError::StreamClosed { detail })),
            },
            f => {
                let err = f.into_error(x);
                // A task the call turned into is not left running on the server.
                self.cancel_task(handle);
                self.finish(handle, Err(err));
            }
        }
    }

    /// A listen's stream ended without its closing response: a drop or a server failure (5xx)
    /// re-opens it after a backoff; a refusal (4xx, 401/403, an error body) ends it.
    fn on_listen_failed(
        &mut self,
        now: Instant,
        handle: RequestHandle,
        id: WireId,
        failure: Failure,
        x: &Exchange,
    ) {
        match failure {
            Failure::Rpc(_, e) => self.deliver(now, id, Err(e)),
            f @ (Failure::Transport(..) | Failure::Broken(_) | Failure::Server(..)) => {
                self.forget_wire(&id);
                self.reopen_listen_later(now, handle, f.into_error(x));
            }
            f => {
                self.forget_wire(&id);
                let err = f.into_error(x);
                self.finish(handle, Err(err));
            }
        }
    }

    /// A resumption of a broken legacy response stream ended.
    fn on_resume_done(
        &mut self,
        now: Instant,
        id: WireId,
        last: String,
        attempts: u32,
        x: &Exchange,
        link: LinkFacts,
    ) {
        if x.answered {
            return;
        }
        let Some(WireUse::Op(handle)) = self.in_flight.wire_use(&id) else { return };
        match self.classify(x, link) {
            Failure::SessionGone => self.on_session_expired(now, x.epoch),
            Failure::Broken(_) | Failure::Transport(..) if attempts < MAX_RESUMES => {
                // A resumption that carried no event keeps the id it resumed from.
                let last = x.last_event_id.clone().unwrap_or(last);
                self.resume_later(now, x.epoch, Resume { id, last, attempts: attempts + 1 }, x.retry_ms);
            }
            f => {
                let err = match f {
                    Failure::Broken(d) | Failure::Transport(d, _) => {
                        RequestError::StreamClosed { detail: format!("{d} (after {attempts} resumptions)") }
                    }
                    other => other.into_error(x),
                };
                self.finish(handle, Err(err));
            }
        }
    }

    /// The legacy GET stream ended: reconnect (with `Last-Event-ID`), or give up on it.
    fn on_listen_done(&mut self, now: Instant, x: &Exchange, link: LinkFacts) {
        let status = x.status();
        if status == Some(404) && link.legacy_session {
            self.on_session_expired(now, x.epoch);
            return;
        }
        self.open_listen_gate(now, x.epoch);
        if let Some(link) = self.http_mut() {
            link.on_listen_end(x);
        }
        let healthy = status.is_some_and(|s| (200..300).contains(&s)) && x.got_bytes;
        if let Some(s @ (401 | 403)) = status {
            if self.auth_challenge(now, s, x.www_authenticate(), auth::Parked::Listen(x.epoch)) {
                return;
            }
        }
        match status {
            // The server offers no GET stream.
            Some(405) => {
                self.listen_given_up();
                return;
            }
            Some(s) if !(200..300).contains(&s) && s != 429 && s < 500 => {
                self.listen_given_up();
                let why = match x.finished() {
                    Some(End::Redirect(refused)) => refused.to_string(),
                    _ => format!("HTTP {s}"),
                };
                let detail =
                    format!("the server refused the event stream ({why}); server requests will not arrive");
                self.warn(Warning::Http { detail });
                return;
            }
            _ => {}
        }
        match self.http_mut().and_then(|l| l.count_listen_failure(healthy)) {
            Some(ListenRetry::Reconnect(delay)) => {
                self.timers.set(Timer::HttpReconnect(x.epoch), now + delay)
            }
            Some(ListenRetry::GiveUp) => {
                self.listen_given_up();
                let detail =
                    format!("gave up reopening the event stream after {MAX_LISTEN_FAILURES} failures");
                self.warn(Warning::Http { detail });
            }
            None => {}
        }
    }

    /// The HTTP+SSE event stream ended: before the `endpoint` event the transport failed;
    /// afterwards the session is lost (requests in flight fail; the next one reconnects).
    fn on_sse_stream_done(&mut self, now: Instant, x: &Exchange, link: LinkFacts) {
        if matches!(self.proc, Proc::Starting { .. }) {
            let failure = self.classify(x, link);
            if let Failure::Unauthorized(status, _) = failure {
                if self.auth_challenge(now, status, x.www_authenticate(), auth::Parked::SseStream(x.epoch)) {
                    self.timers.clear(Timer::Handshake);
                    return;
                }
            }
            if let Some(attempt) = not_this_transport(&failure, x, link) {
                if link.has_next_kind {
                    return self.next_kind(now, attempt);
                }
                if let Some(err) = self.detection_failed(attempt) {
                    return self.fail_handshake(now, err);
                }
            }
            let err = match failure {
                Failure::Broken(_) => RequestError::Handshake {
                    detail: "the HTTP+SSE stream ended before its endpoint event".into(),
                },
                other => handshake_error(other.into_error(x)),
            };
            self.fail_handshake(now, err);
            if self.sse_reopening() {
                self.schedule_sse_reopen(now);
            }
            return;
        }
        let detail = match x.finished() {
            Some(End::Failed(e)) => format!("the HTTP+SSE event stream broke: {e}"),
            Some(End::BadBody(d) | End::TooLarge(TooLarge { detail: d, .. })) => {
                format!("the HTTP+SSE event stream broke: {d}")
            }
            _ => "the HTTP+SSE event stream ended".into(),
        };
        self.lose_sse_stream(now, x.epoch, detail);
    }

    /// A legacy session expired (404): start a new one. Requests in flight on it are re-sent
    /// there, except `tools/call`, which fails with [`RequestError::SessionExpired`].
    fn on_session_expired(&mut self, now: Instant, epoch: Epoch) {
        if self.current_epoch() != Some(epoch) {
            return;
        }
        let in_flight: Vec<RequestHandle> = self
            .in_flight
            .iter()
            .filter(|(_, op)| op.sent.as_ref().is_some_and(|(e, _)| *e == epoch))
            .map(|(h, _)| h)
            .collect();
        self.drop_process(now, epoch, false);
        self.emit(Event::Disconnected { reason: RequestError::SessionExpired });
        for handle in in_flight.into_iter().rev() {
            let tool_call = self.in_flight.get(handle).is_some_and(|op| {
                matches!(op.request, Request::CallTool { .. } | Request::CallToolAsTask { .. })
            });
            if tool_call {
                self.finish(handle, Err(RequestError::SessionExpired));
            } else {
                self.in_flight.queue_first(handle);
            }
        }
        self.pump(now);
    }

    /// Waits before re-sending a request that failed in transport or with 5xx.
    fn schedule_retry(&mut self, now: Instant, handle: RequestHandle) {
        let Some(op) = self.in_flight.get_mut(handle) else { return };
        op.sent = None;
        op.retries += 1;
        let retries = op.retries;
        let Some(link) = self.http_mut() else { return };
        let delay = link.retry_delay(retries);
        self.timers.set(Timer::Retry(handle), now + delay);
    }

    /// Hands a JSON-RPC error from an HTTP error body to whoever waits for `id`.
    fn deliver(&mut self, now: Instant, id: WireId, outcome: Result<serde_json::Value, RpcError>) {
        let Some(epoch) = self.current_epoch() else { return };
        let msg = match outcome {
            Ok(result) => Message::Result { id, result: crate::jsonrpc::ResultJson::from_value(&result) },
            Err(e) => Message::Error {
                id: Some(id),
                error: crate::jsonrpc::RpcErrorObject { code: e.code, message: e.message, data: e.data },
            },
        };
        self.on_message(now, epoch, msg);
    }

    /// Drops a wire id that will get no response.
    fn forget_wire(&mut self, id: &WireId) {
        self.in_flight.end_id(id);
    }

    /// Keeps a broken response stream (which carried the server's `retry_ms`, if any) for the
    /// reconnection timer to resume.
    fn resume_later(&mut self, now: Instant, epoch: Epoch, resume: Resume, retry_ms: Option<u64>) {
        let Some(delay) = self.http_mut().map(|l| l.keep_resume(resume, retry_ms)) else { return };
        self.timers.set(Timer::HttpReconnect(epoch), now + delay);
    }
}

/// What follows a failed (or ended) GET stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ListenRetry {
    /// Reopen it after this wait.
    Reconnect(Duration),
    /// Too many failures in a row: give it up.
    GiveUp,
}

impl HttpLink {
    /// The close `DELETE` ended: whether it was the one closing the session (now idle).
    fn closed(&mut self, exchange: ExchangeId) -> bool {
        if !self.is_close_exchange(exchange) {
            return false;
        }
        self.session = SessionState::Idle;
        true
    }

    /// The last transport was refused too: the error listing every try (with the common
    /// endpoints when every try got 404), or `None` when no other transport was tried.
    fn detection_failed(&mut self, attempt: TransportAttempt) -> Option<RequestError> {
        let attempts = self.detection.give_up(attempt)?;
        let suggestions = match crate::http_url::HttpUrl::parse(&self.cfg.url) {
            Ok(url) if attempts.iter().all(|a| a.outcome.status() == 404) => {
                crate::transport_attempt::suggestions(&url)
            }
            _ => Vec::new(),
        };
        Some(RequestError::NoTransport { attempts, suggestions })
    }

    /// The legacy GET stream ended: keep the server's `retry` and where to resume it.
    fn on_listen_end(&mut self, x: &Exchange) {
        self.backoff.note(x.retry_ms);
        if let (Some(last), Some(legacy)) = (&x.last_event_id, self.session.legacy_mut()) {
            legacy.listen.last_event_id = Some(last.clone());
        }
    }

    /// Counts a reconnection of the GET stream (reset when it was `healthy`): reconnect (it
    /// then waits, for the server's `retry` or a backoff), or give up after too many failures
    /// in a row. `None` outside a legacy session.
    fn count_listen_failure(&mut self, healthy: bool) -> Option<ListenRetry> {
        let listen = &mut self.session.legacy_mut()?.listen;
        listen.failures = if healthy { 0 } else { listen.failures + 1 };
        if listen.failures >= MAX_LISTEN_FAILURES {
            return Some(ListenRetry::GiveUp);
        }
        listen.state = Listen::Waiting;
        Some(ListenRetry::Reconnect(self.reconnect_delay_now()))
    }

    /// Keeps a broken response stream to resume (and the server's `retry`, if it sent one):
    /// the wait before the reconnection timer.
    fn keep_resume(&mut self, resume: Resume, retry_ms: Option<u64>) -> Duration {
        self.backoff.note(retry_ms);
        if let Some(legacy) = self.session.legacy_mut() {
            legacy.resumes.push(resume);
        }
        self.reconnect_delay_now()
    }

    /// The wait before re-sending a request for the `retries`-th time: exponential, capped,
    /// with jitter.
    fn retry_delay(&mut self, retries: u32) -> Duration {
        let shift = (retries - 1).min(16);
        let base = self.cfg.retry_delay.saturating_mul(1 << shift).min(MAX_RETRY_DELAY);
        self.backoff.jittered(base)
    }
}

/// The attempt an exchange of the handshake makes, when its failure says the server does
/// not speak the transport tried (an error status other than 401, 403 and 5xx without a
/// JSON-RPC error, or a success without what the transport needs): detection tries the
/// next one. `None` for any other failure.
fn not_this_transport(failure: &Failure, x: &Exchange, link: LinkFacts) -> Option<TransportAttempt> {
    let outcome = match failure {
        Failure::Status(status, _) => AttemptOutcome::Status(*status),
        Failure::Rpc(status, error) => AttemptOutcome::Rpc { status: *status, error: error.clone() },
        Failure::SessionGone => AttemptOutcome::Status(404),
        Failure::Broken(_) => AttemptOutcome::NoAnswer { status: x.status().unwrap_or(200) },
        _ => return None,
    };
    Some(TransportAttempt {
        transport: link.kind,
        method: x.kept.method(),
        url: crate::redact::redact_url(x.kept.url()),
        outcome,
    })
}

/// Handshake failures keep their HTTP meaning (401 stays `Unauthorized`); transport ones say
/// they happened during the handshake.
fn handshake_error(err: RequestError) -> RequestError {
    match err {
        RequestError::TransportClosed { detail, source } => RequestError::TransportClosed {
            detail: format!("connecting to the server failed: {detail}"),
            source,
        },
        other => other,
    }
}
