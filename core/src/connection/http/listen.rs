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
}

impl Connection {
    /// A legacy Streamable HTTP session is ready: hold host requests and open the GET stream.
    pub(super) fn start_listen(&mut self, now: Instant, epoch: Epoch) {
        let Some(legacy) = self.http_mut().and_then(|l| l.session.legacy_mut()) else { return };
        legacy.listen.gate = true;
        self.timers.set(Timer::ListenGate(epoch), now + LISTEN_GATE_WAIT);
        self.open_listen(epoch);
    }

    fn open_listen(&mut self, epoch: Epoch) {
        let Some(legacy) = self.http().and_then(|l| l.session.legacy()) else { return };
        let last = legacy.listen.last_event_id.clone();
        let Some(ex) = self.start_stream(epoch, Role::Listen, last.as_deref()) else { return };
        if let Some(legacy) = self.http_mut().and_then(|l| l.session.legacy_mut()) {
            legacy.listen.state = Listen::Open(ex);
        }
    }

    /// The legacy GET stream is gone for good: no `list_changed` can arrive any more, so the
    /// lists cached on that promise are dropped.
    pub(super) fn listen_given_up(&mut self) {
        if let Some(legacy) = self.http_mut().and_then(|l| l.session.legacy_mut()) {
            legacy.listen.state = Listen::Unsupported;
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
        let Some(legacy) = self.http_mut().and_then(|l| l.session.legacy_mut()) else { return };
        if std::mem::replace(&mut legacy.listen.gate, false) {
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
        let Some(legacy) = self.http_mut().and_then(|l| l.session.legacy_mut()) else { return };
        let resumes = std::mem::take(&mut legacy.resumes);
        for Resume { id, last, attempts } in resumes {
            if !self.wire.contains_key(&id) {
                continue;
            }
            let role = Role::Resume { id, last: last.clone(), attempts };
            self.start_stream(epoch, role, Some(&last));
        }
        if self.http().is_some_and(|l| l.session.listen() == Listen::Waiting) {
            self.open_listen(epoch);
        }
    }

    /// Schedules the reconnection timer after the server's `retry` (or a backoff).
    pub(super) fn schedule_reconnect(&mut self, now: Instant, epoch: Epoch) {
        let Some(link) = self.http_mut() else { return };
        let failures = link.session.legacy().map_or(0, |l| l.listen.failures);
        let delay = link.backoff.reconnect_delay(failures);
        self.timers.set(Timer::HttpReconnect(epoch), now + delay);
    }
}
