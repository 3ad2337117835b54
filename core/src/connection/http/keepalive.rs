//! HTTP+SSE liveness: a `ping` after a silent spell, the stream judged dead when it stays
//! silent, and reopening a lost stream with jittered backoff.

use std::time::{Duration, Instant};

use super::super::{Connection, Outgoing, Phase, Proc, WireUse};
use crate::handle::Epoch;
use crate::mcp_servers::TransportKind;
use crate::timers::Timer;

/// Automatic reopenings of a lost HTTP+SSE stream before waiting for the next request.
const MAX_REOPENS: u32 = 5;
/// The first reopening waits about this long; each later one twice as long.
const FIRST_REOPEN: Duration = Duration::from_secs(1);
/// Longest wait before a reopening.
const MAX_REOPEN: Duration = Duration::from_secs(30);

impl Connection {
    /// An HTTP+SSE session became ready: start watching its stream.
    pub(super) fn sse_watch(&mut self, now: Instant, epoch: Epoch) {
        let interval = self.cfg.timeouts.sse_keepalive;
        let link = self.link();
        link.stream_activity = Some(now);
        link.ping_sent = None;
        link.reopening = false;
        self.timers.set(Timer::SseKeepAlive(epoch), now + interval);
    }

    /// The keep-alive timer: ping after silence, give up after silence following a ping.
    pub(in crate::connection) fn on_sse_keepalive(&mut self, now: Instant, epoch: Epoch) {
        if self.current_epoch() != Some(epoch) || self.server_info().is_none() {
            return;
        }
        let interval = self.cfg.timeouts.sse_keepalive;
        let (activity, ping_sent) = {
            let link = self.link();
            // The session lived a whole interval: a later loss starts the backoff afresh.
            link.reopens = 0;
            (link.stream_activity.unwrap_or(now), link.ping_sent)
        };
        match ping_sent {
            Some(sent) if activity < sent && now >= sent + interval => {
                let detail = format!("the HTTP+SSE event stream was silent for {interval:?} after a ping");
                self.lose_sse_stream(now, epoch, detail);
            }
            _ if now >= activity + interval => {
                let id = self.next_wire_id();
                self.wire.insert(id.clone(), WireUse::KeepAlive);
                self.send(now, epoch, Outgoing::Request { id, method: "ping".into(), params: None });
                self.link().ping_sent = Some(now);
                self.timers.set(Timer::SseKeepAlive(epoch), now + interval);
            }
            _ => {
                self.link().ping_sent = None;
                self.timers.set(Timer::SseKeepAlive(epoch), activity + interval);
            }
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
        let link = self.link();
        if link.kind() != TransportKind::Sse || link.reopens >= MAX_REOPENS {
            return;
        }
        link.reopens += 1;
        let base = FIRST_REOPEN.saturating_mul(1 << (link.reopens - 1)).min(MAX_REOPEN);
        let delay = link.jittered(base);
        link.reopening = true;
        self.timers.set(Timer::SseReopen, now + delay);
    }

    pub(in crate::connection) fn on_sse_reopen(&mut self, now: Instant) {
        if self.phase == Phase::Open && matches!(self.proc, Proc::Down) {
            self.spawn(now);
        }
    }

    /// Whether a failed opening of the stream was an automatic reopening (to try again).
    pub(super) fn sse_reopening(&self) -> bool {
        self.http.as_ref().is_some_and(|l| l.reopening)
    }
}
