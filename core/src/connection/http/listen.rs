//! The legacy Streamable HTTP GET stream ("listen"): opening it, the gate that holds host
//! requests until it answers, reconnection with `Last-Event-ID`, and giving it up.

use std::time::{Duration, Instant};

use super::exchange::Role;
use super::session::{Listen, Resume};
use super::HttpLink;
use crate::connection::Connection;
use crate::handle::Epoch;
use crate::timers::Timer;
use crate::transport::TransportKind;

/// How long requests of a new legacy session wait for its GET stream to open (see
/// [`super::session::ListenStream::gate`]).
const LISTEN_GATE_WAIT: Duration = Duration::from_secs(2);

impl HttpLink {
    /// Whether the server can reach the client with unsolicited notifications (a legacy
    /// `listChanged` promise is only worth caching on when it can): always on HTTP+SSE; on
    /// Streamable HTTP while the GET stream is open or being reopened; never on plain HTTP.
    pub(in crate::connection) fn can_receive_notifications(&self) -> bool {
        match self.kind() {
            TransportKind::Stdio | TransportKind::Sse => true,
            TransportKind::StreamableHttp => {
                matches!(self.session.listen(), Listen::Open(_) | Listen::Waiting)
            }
            TransportKind::PlainHttp => false,
        }
    }

    /// Takes what the reconnection timer reopens: the broken response streams to resume, and
    /// whether the GET stream waits to be reopened. `None` outside a legacy session.
    fn take_reconnects(&mut self) -> Option<(Vec<Resume>, bool)> {
        let legacy = self.session.legacy_mut()?;
        let resumes = std::mem::take(&mut legacy.resumes);
        Some((resumes, legacy.listen.state == Listen::Waiting))
    }

    /// The wait before the reconnection timer: the server's `retry`, or a backoff after the
    /// GET stream's failures in a row.
    pub(super) fn reconnect_delay_now(&mut self) -> Duration {
        let failures = self.session.legacy().map_or(0, |l| l.listen.failures);
        self.backoff.reconnect_delay(failures)
    }
}

impl Connection {
    /// A legacy Streamable HTTP session is ready: hold host requests and open the GET stream.
    pub(super) fn start_listen(&mut self, now: Instant, epoch: Epoch) {
        if !self.http_mut().is_some_and(|l| l.session.close_gate()) {
            return;
        }
        self.timers.set(Timer::ListenGate(epoch), now + LISTEN_GATE_WAIT);
        self.open_listen(epoch);
    }

    fn open_listen(&mut self, epoch: Epoch) {
        let setup = self.exchange_setup();
        let connect_timeout = self.cfg.timeouts.http_connect;
        let Some(link) = self.http_mut() else { return };
        let Some(last) = link.session.legacy().map(|l| l.listen.last_event_id.clone()) else { return };
        let request = link.stream_request(last.as_deref(), connect_timeout);
        let (exchange, request) = link.start_exchange(epoch, Role::Listen, request, &setup);
        link.session.listen_opened(exchange);
        self.launch_exchange(exchange, request, setup.trace);
    }

    /// The legacy GET stream is gone for good: no `list_changed` can arrive any more, so the
    /// lists cached on that promise are dropped.
    pub(super) fn listen_given_up(&mut self) {
        if let Some(link) = self.http_mut() {
            link.session.listen_unsupported();
        }
        self.drop_lists_awaiting_notifications();
    }

    /// Whether host requests must wait: for the GET stream of a new legacy session, or for an
    /// authorization round (under way, or a refresh started now).
    #[cfg_attr(not(feature = "oauth"), allow(unused_variables))]
    pub(in crate::connection) fn http_holds_requests(&mut self, now: Instant) -> bool {
        if self.http().is_some_and(|l| l.session.gated()) {
            return true;
        }
        // OAuth: a token about to expire is refreshed first.
        #[cfg(feature = "oauth")]
        self.oauth_refresh_if_due(now);
        self.http_auth_busy()
    }

    /// The GET stream answered (or will not): requests held for it go out now.
    pub(super) fn open_listen_gate(&mut self, now: Instant, epoch: Epoch) {
        self.timers.clear(Timer::ListenGate(epoch));
        if self.http_mut().is_some_and(|l| l.session.open_gate()) {
            self.pump(now);
        }
    }

    pub(in crate::connection) fn on_listen_gate_timeout(&mut self, now: Instant, epoch: Epoch) {
        if self.current_epoch() == Some(epoch) && self.http().is_some() {
            self.open_listen_gate(now, epoch);
        }
    }

    /// The reconnection timer: resume the broken response streams, reopen the GET stream.
    pub(in crate::connection) fn on_http_reconnect(&mut self, epoch: Epoch) {
        if self.current_epoch() != Some(epoch) {
            return;
        }
        let Some((resumes, listen_waiting)) = self.http_mut().and_then(HttpLink::take_reconnects) else {
            return;
        };
        for Resume { id, last, attempts } in resumes {
            if !self.in_flight.is_on_wire(&id) {
                continue;
            }
            let role = Role::Resume { id, last: last.clone(), attempts };
            self.start_stream(epoch, role, Some(&last));
        }
        if listen_waiting {
            self.open_listen(epoch);
        }
    }
}
