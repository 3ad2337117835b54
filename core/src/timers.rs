//! The core's timer table: many purposes, one deadline reported to the runtime.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

use crate::handle::{Epoch, RequestHandle};

/// What a timer is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Timer {
    /// A request's deadline.
    Request(RequestHandle),
    /// The era probe or the `initialize` handshake.
    Handshake,
    /// Waiting for the exit status (or the last stdout bytes) of a process that is going away.
    ExitDrain(Epoch),
    /// The next step of a process shutdown escalation.
    Reap(Epoch),
    /// A request waits to be retried (HTTP), re-polled (a task) or paced (an input wait).
    Retry(RequestHandle),
    /// Reopening the legacy HTTP event stream (or resuming a broken response stream) of a session.
    #[cfg(feature = "http")]
    HttpReconnect(Epoch),
    /// Legacy Streamable HTTP: requests stop waiting for the new session's GET stream to open.
    #[cfg(feature = "http")]
    ListenGate(Epoch),
    /// Giving up on the `DELETE` that ends a legacy HTTP session at close.
    #[cfg(feature = "http")]
    HttpClose,
    /// HTTP+SSE: checking the event stream for silence (and pinging).
    #[cfg(feature = "http")]
    SseKeepAlive(Epoch),
    /// HTTP+SSE: reopening the event stream after it was lost.
    #[cfg(feature = "http")]
    SseReopen,
    /// The current step of an authorization round (a fetch, the browser, the token provider).
    #[cfg(feature = "http")]
    Auth,
}

impl Timer {
    pub(crate) fn reason(self) -> &'static str {
        match self {
            Timer::Request(_) => "request timeout",
            Timer::Handshake => "handshake timeout",
            Timer::ExitDrain(_) => "process exit drain",
            Timer::Reap(_) => "process shutdown escalation",
            Timer::Retry(_) => "request retry backoff",
            #[cfg(feature = "http")]
            Timer::HttpReconnect(_) => "HTTP event stream reconnection",
            #[cfg(feature = "http")]
            Timer::ListenGate(_) => "HTTP event stream opening",
            #[cfg(feature = "http")]
            Timer::HttpClose => "HTTP session close",
            #[cfg(feature = "http")]
            Timer::SseKeepAlive(_) => "HTTP+SSE keep-alive",
            #[cfg(feature = "http")]
            Timer::SseReopen => "HTTP+SSE reconnection",
            #[cfg(feature = "http")]
            Timer::Auth => "authorization step",
        }
    }
}

/// Timers keyed by purpose, ordered by deadline. Setting a key replaces its old deadline.
#[derive(Debug, Default)]
pub(crate) struct Timers {
    by_key: BTreeMap<Timer, Instant>,
    by_time: BTreeSet<(Instant, Timer)>,
}

impl Timers {
    pub(crate) fn set(&mut self, key: Timer, at: Instant) {
        self.clear(key);
        self.by_key.insert(key, at);
        self.by_time.insert((at, key));
    }

    pub(crate) fn clear(&mut self, key: Timer) {
        if let Some(at) = self.by_key.remove(&key) {
            self.by_time.remove(&(at, key));
        }
    }

    /// When timer `key` fires, if it is armed.
    pub(crate) fn at(&self, key: Timer) -> Option<Instant> {
        self.by_key.get(&key).copied()
    }

    pub(crate) fn next(&self) -> Option<(Instant, Timer)> {
        self.by_time.first().copied()
    }

    /// Removes and returns the earliest timer due at `now`, if any.
    pub(crate) fn pop_due(&mut self, now: Instant) -> Option<Timer> {
        let &(at, key) = self.by_time.first()?;
        if at > now {
            return None;
        }
        self.by_time.remove(&(at, key));
        self.by_key.remove(&key);
        Some(key)
    }
}
