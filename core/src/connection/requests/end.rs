//! Ending requests other than by an answer: progress (which may extend a deadline), timeouts,
//! abandoning one (`notifications/cancelled` or closing its stream), and failing them all when
//! their process or session goes away.

use std::time::Instant;

use serde_json::json;

use crate::connection::{Connection, Outgoing};
use crate::error::{RequestError, Warning};
use crate::event::Progress;
use crate::handle::RequestHandle;
use crate::timers::Timer;

impl Connection {
    /// Progress for a live request.
    pub(in crate::connection) fn on_progress(&mut self, now: Instant, token_key: &str, progress: Progress) {
        let Some(handle) = self.in_flight.by_progress(token_key) else {
            self.warn(Warning::StaleProgress { token: crate::text::sanitize(token_key, 200) });
            return;
        };
        if let Some(op) = self.in_flight.get(handle) {
            if op.opts.reset_timeout_on_progress {
                if let Some(at) = op.deadline(now) {
                    self.timers.set(Timer::Request(handle), at);
                }
            }
        }
        self.emit(crate::event::Event::Progress { handle, progress });
    }

    pub(in crate::connection) fn on_request_timeout(&mut self, handle: RequestHandle) {
        let after = self.request_timeout_of(handle);
        self.abandon(handle, "request timed out");
        self.finish(handle, Err(RequestError::Timeout { after }));
    }

    /// Tells the server a sent request is no longer wanted (best effort): on stdio and legacy
    /// HTTP a `notifications/cancelled`; on modern HTTP closing the response stream is the
    /// cancellation.
    pub(in crate::connection) fn abandon(&mut self, handle: RequestHandle, reason: &str) {
        // A task is cancelled with tasks/cancel (never notifications/cancelled); a poll in
        // flight is simply dropped.
        if self.cancel_task(handle) {
            #[cfg(feature = "http")]
            if let Some((_, id)) = self.in_flight.get(handle).and_then(|op| op.sent.clone()) {
                self.http_abandon(&id);
            }
            return;
        }
        let Some(op) = self.in_flight.get(handle) else { return };
        let Some((epoch, id)) = op.sent.clone() else { return };
        if self.current_epoch() != Some(epoch) || !self.in_flight.is_on_wire(&id) {
            return;
        }
        #[cfg(feature = "http")]
        if let Some(modern) = self.http_abandon(&id) {
            // Modern: closing the stream is the cancellation. Closing: the session ends anyway.
            if modern || self.phase != crate::connection::Phase::Open {
                return;
            }
        }
        let params = json!({"requestId": id.to_value(), "reason": reason});
        self.send(epoch, Outgoing::Notification { method: "notifications/cancelled", params: Some(params) });
    }

    /// Fails every request with the same error (the process went away, or the handshake failed).
    pub(in crate::connection) fn fail_all(&mut self, err: &RequestError) {
        self.fail_all_but(err, &[]);
    }

    /// [`Self::fail_all`], sparing `keep` (listens waiting for the next process).
    pub(in crate::connection) fn fail_all_but(&mut self, err: &RequestError, keep: &[RequestHandle]) {
        let handles: Vec<_> = self.in_flight.handles().into_iter().filter(|h| !keep.contains(h)).collect();
        for h in handles {
            self.finish(h, Err(err.clone()));
        }
    }
}
