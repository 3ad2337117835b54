//! HTTP+SSE liveness: a `ping` after a silent spell, the stream judged dead when it stays
//! silent, and reopening a lost stream with jittered backoff.

use std::time::{Duration, Instant};

use super::{Backoff, HttpLink};
use crate::connection::{Connection, Outgoing, Phase, Proc, WireUse};
use crate::handle::Epoch;
use crate::timers::Timer;
use crate::transport::TransportKind;

/// Automatic reopenings of a lost HTTP+SSE stream before waiting for the next request.
const MAX_REOPENS: u32 = 5;
/// The first reopening waits about this long; each later one twice as long.
const FIRST_REOPEN: Duration = Duration::from_secs(1);
/// Longest wait before a reopening.
const MAX_REOPEN: Duration = Duration::from_secs(30);

/// The liveness of the HTTP+SSE event stream.
#[derive(Debug, Default)]
pub(super) struct KeepAlive {
    /// When the event stream last carried bytes.
    activity: Option<Instant>,
    /// When the keep-alive `ping` went out, if one is outstanding.
    ping_sent: Option<Instant>,
    /// Automatic reopenings of a lost stream in a row.
    reopens: u32,
    /// The stream being opened is an automatic reopening.
    reopening: bool,
}

impl KeepAlive {
    /// A session became ready on the stream: it is alive now.
    fn watch(&mut self, now: Instant) {
        self.activity = Some(now);
        self.ping_sent = None;
        self.reopening = false;
    }

    /// The stream carried bytes.
    pub(super) fn on_activity(&mut self, now: Instant) {
        self.activity = Some(now);
    }

    /// The keep-alive timer fired at `now` (`interval`: the keep-alive period): what to do.
    /// The session lived a whole interval, so a later loss starts the backoff afresh.
    fn check(&mut self, now: Instant, interval: Duration) -> Check {
        self.reopens = 0;
        let activity = self.activity.unwrap_or(now);
        match self.ping_sent {
            Some(sent) if activity < sent && now >= sent + interval => Check::Dead,
            _ if now >= activity + interval => {
                self.ping_sent = Some(now);
                Check::Ping
            }
            _ => {
                self.ping_sent = None;
                Check::Alive { next: activity + interval }
            }
        }
    }

    /// The wait before the next automatic reopening, unless there were too many in a row.
    fn next_reopen(&mut self, backoff: &mut Backoff) -> Option<Duration> {
        if self.reopens >= MAX_REOPENS {
            return None;
        }
        self.reopens += 1;
        let base = FIRST_REOPEN.saturating_mul(1 << (self.reopens - 1)).min(MAX_REOPEN);
        self.reopening = true;
        Some(backoff.jittered(base))
    }
}

/// What the keep-alive timer finds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Check {
    /// Silent for a whole interval after a ping: the stream is dead.
    Dead,
    /// Silent for a whole interval: send a ping (noted as sent now), check again an interval
    /// later.
    Ping,
    /// Alive: check again at `next`.
    Alive { next: Instant },
}

impl HttpLink {
    /// Arms the reopening of a lost HTTP+SSE stream: the wait, unless the transport is not
    /// HTTP+SSE or the stream failed too often in a row.
    fn next_sse_reopen(&mut self) -> Option<Duration> {
        if self.kind() != TransportKind::Sse {
            return None;
        }
        self.keepalive.next_reopen(&mut self.backoff)
    }
}

impl Connection {
    /// An HTTP+SSE session became ready: start watching its stream.
    pub(super) fn sse_watch(&mut self, now: Instant, epoch: Epoch) {
        let Some(link) = self.http_mut() else { return };
        link.keepalive.watch(now);
        self.timers.set(Timer::SseKeepAlive(epoch), now + self.cfg.timeouts.sse_keepalive);
    }

    /// The keep-alive timer: ping after silence, give up after silence following a ping.
    pub(in crate::connection) fn on_sse_keepalive(&mut self, now: Instant, epoch: Epoch) {
        if self.current_epoch() != Some(epoch) || self.server_info().is_none() {
            return;
        }
        let interval = self.cfg.timeouts.sse_keepalive;
        let Some(link) = self.http_mut() else { return };
        match link.keepalive.check(now, interval) {
            Check::Dead => {
                let detail = format!("the HTTP+SSE event stream was silent for {interval:?} after a ping");
                self.lose_sse_stream(now, epoch, detail);
            }
            Check::Ping => {
                let id = self.next_wire_id();
                self.in_flight.bind(id.clone(), WireUse::KeepAlive);
                self.send(epoch, Outgoing::Request { id, method: "ping".into(), params: None });
                self.timers.set(Timer::SseKeepAlive(epoch), now + interval);
            }
            Check::Alive { next } => self.timers.set(Timer::SseKeepAlive(epoch), next),
        }
    }

    /// The stream of a ready HTTP+SSE session is gone: the session is lost (requests in flight
    /// fail), and the stream is reopened after a backoff.
    pub(super) fn lose_sse_stream(&mut self, now: Instant, epoch: Epoch, detail: String) {
        self.lose(now, epoch, detail, false);
        self.schedule_sse_reopen(now);
    }

    /// Arms the reopening of a lost HTTP+SSE stream, unless it failed too often in a row.
    pub(super) fn schedule_sse_reopen(&mut self, now: Instant) {
        if self.phase != Phase::Open {
            return;
        }
        if let Some(delay) = self.http_mut().and_then(HttpLink::next_sse_reopen) {
            self.timers.set(Timer::SseReopen, now + delay);
        }
    }

    pub(in crate::connection) fn on_sse_reopen(&mut self, now: Instant) {
        if self.phase == Phase::Open && matches!(self.proc, Proc::Down) {
            self.spawn(now);
        }
    }

    /// Whether a failed opening of the stream was an automatic reopening (to try again).
    pub(super) fn sse_reopening(&self) -> bool {
        self.http().is_some_and(|l| l.keepalive.reopening)
    }
}
