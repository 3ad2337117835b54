//! Oversize messages: a response discarded for passing `max_message_bytes` fails the request
//! it answered at once, when its start or end names it ([`crate::jsonrpc_head`]), instead of
//! leaving that request to wait out its timeout. A message whose id cannot be read is only
//! reported ([`Warning::OversizeMessage`](crate::error::Warning::OversizeMessage), by the
//! transport that discarded it).

use std::time::Instant;

use super::{Connection, WireUse};
use crate::error::RequestError;
use crate::jsonrpc_head::Peek;

/// The error of a request whose response passed `max_message_bytes` (`limit`), known to have
/// at least `seen` bytes.
pub(super) fn message_too_large(limit: usize, seen: usize) -> RequestError {
    let seen_at_least = seen.max(limit.saturating_add(1));
    RequestError::ResponseTooLarge {
        limit,
        seen_at_least,
        detail: format!(
            "a message of at least {seen_at_least} bytes passed the {limit}-byte limit (max_message_bytes)"
        ),
    }
}

use super::requests::Answered;

impl Connection {
    /// A message over `max_message_bytes` is being (or was) discarded, and `peek` is what its
    /// kept start and end showed. If it is the response to a request still waiting, that
    /// request fails now with [`RequestError::ResponseTooLarge`] (a handshake request fails the
    /// handshake). Returns whether a request was failed.
    pub(super) fn fail_oversize_answer(&mut self, now: Instant, peek: &Peek, seen: usize) -> bool {
        let Some(id) = peek.answers() else { return false };
        let Answered::InFlight(usage) = self.in_flight.answered(id) else { return false };
        let err = message_too_large(self.cfg.limits.max_message_bytes, seen);
        match usage {
            WireUse::Op(handle) => {
                self.in_flight.clear_sent(handle);
                // A task the call turned into is not left running on the server.
                self.cancel_task(handle);
                self.finish(handle, Err(err));
            }
            WireUse::Probe | WireUse::Initialize => self.fail_handshake(now, err),
            // Nobody waits for these.
            WireUse::Fire => {}
            #[cfg(feature = "http")]
            WireUse::KeepAlive => {}
        }
        true
    }
}
