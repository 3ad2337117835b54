//! What a listen stream keeps besides the common request state (its attempts, its
//! acknowledgment, its failures, the notifications it did not ask for), what that state says
//! when the stream or its process is lost, and where a notification tagged with a subscription
//! id goes.

use std::time::{Duration, Instant};

use crate::handle::RequestHandle;

/// A process that dies sooner than this after receiving its listens does not get them sent to
/// its replacement: the listens end with the error (a server that crashes on them would
/// otherwise be restarted for ever).
const MIN_LISTEN_LIFETIME: Duration = Duration::from_secs(1);

/// What a listen request keeps besides the common request state.
#[derive(Debug, Default)]
pub(in crate::connection) struct ListenState {
    /// When the current attempt went out.
    sent_at: Option<Instant>,
    /// The current attempt was acknowledged.
    acked: bool,
    /// Some attempt was acknowledged (after that, each attempt has its own ack timeout).
    acked_once: bool,
    /// Attempts sent so far.
    sends: u32,
    /// Re-opens since the last acknowledgment (for the backoff).
    failures: u32,
    /// Notifications dropped because the listen did not ask for them (every attempt).
    unrequested: u64,
}

/// Where a notification tagged with a subscription id goes.
pub(in crate::connection) enum Tagged {
    /// Not tagged: an ordinary notification.
    Untagged,
    /// A live listen.
    Listen(RequestHandle),
    /// A stream this client no longer has: drop it.
    Gone,
}

impl ListenState {
    /// An attempt goes out at `now`; returns whether it is a later one (bounded from now rather
    /// than from the host's call).
    pub(super) fn sent(&mut self, now: Instant) -> bool {
        self.sent_at = Some(now);
        self.acked = false;
        self.sends += 1;
        self.sends > 1
    }

    /// The server acknowledged the current attempt.
    pub(super) fn acknowledged(&mut self) {
        self.acked = true;
        self.acked_once = true;
        self.failures = 0;
    }

    /// A notification the listen did not ask for was dropped; returns how many so far.
    pub(super) fn count_unrequested(&mut self) -> u64 {
        self.unrequested += 1;
        self.unrequested
    }

    /// Whether the listen is sent again to the next process when its process is lost at `now`:
    /// it was acknowledged, and the process kept it for at least [`MIN_LISTEN_LIFETIME`].
    pub(super) fn survives_loss(&self, now: Instant) -> bool {
        self.acked && self.sent_at.is_some_and(|at| now.saturating_duration_since(at) >= MIN_LISTEN_LIFETIME)
    }

    /// The stream or its process is gone (it waits to be sent again); returns whether some
    /// attempt was ever acknowledged.
    pub(super) fn dropped(&mut self) -> bool {
        self.acked = false;
        self.failures += 1;
        self.acked_once
    }

    /// Re-opens since the last acknowledgment.
    #[cfg(feature = "http")]
    pub(super) fn failures(&self) -> u32 {
        self.failures
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // When a listen survives the loss of its process (`survives_loss`, `sent`) is judged on a
    // clock, so it is tested on the connection's fake time (core/tests/connection/subscriptions.rs).
    #[test]
    fn failures_and_unrequested_notifications_are_counted() {
        let mut listen = ListenState::default();
        assert_eq!((listen.count_unrequested(), listen.count_unrequested()), (1, 2));
        assert!(!listen.dropped() && !listen.dropped());
        assert_eq!(listen.failures, 2);
        listen.acknowledged();
        assert_eq!(listen.failures, 0);
        assert!(listen.dropped(), "acknowledged once: a later attempt has its own ack timeout");
    }
}
