//! Freshness without asking (2026-07-28): a `server/discover` answer whose `ttlMs` has passed
//! is fetched again before the next request whose capabilities it judges.
//!
//! The spec's caching rules (`server/utilities/caching.mdx`, §Freshness Calculation) say a
//! result is fresh while `now < t_received + ttlMs`, that once it expires the client "SHOULD
//! re-fetch on next access", and that clients "SHOULD NOT treat TTL as a polling interval that
//! triggers automatic background refetches". So nothing is fetched on a timer: the access is a
//! request that capability gating ([`super::gating`]) judges with the session's capabilities.
//! For `ttlMs` 0 (and absent, which means 0, §Time-to-Live) the same section only says the
//! client "MAY re-fetch every time the result is needed": the connection does not (it would
//! double every round trip); such an answer is refreshed on the host's own
//! [`crate::Request::Discover`] only.
//!
//! - **One refresh at a time.** The first request that finds the answer expired queues an
//!   internal `server/discover` (no handle for the host, the request timeout of the
//!   connection) at the front; every gated request that goes out while it is in flight waits
//!   for the same one. Waiting requests stay queued, not failed, under their own timeouts.
//! - **The refreshed answer decides.** It replaces the session's info (announced with
//!   [`crate::Event::Connected`], as any later `server/discover`), then the waiting requests go
//!   out in the order they came, gated by the new capabilities.
//! - **A failed refresh** (an error answer, a timeout, a transport failure) keeps the old
//!   answer, with [`Warning::DiscoverRefreshFailed`], and the waiting requests go out on it.
//!   The old answer is then trusted for another `ttlMs` (from the failure), so a server whose
//!   `server/discover` keeps failing is asked again at most once per `ttlMs`, not before every
//!   request (and warns at most that often). A refresh cut short because the process or
//!   session ended warns nothing; its waiters share that fate.
//!
//! A request waits at most once (a re-sent attempt does not wait again). Requests no capability
//! governs (`ping`, custom methods, listen streams, `server/discover` itself) never wait.

use std::time::Instant;

use super::Connection;
use crate::era::Era;
use crate::error::{RequestError, Warning};
use crate::handle::RequestHandle;
use crate::request::{Request, RequestOptions};
use crate::response::Response;

/// The refresh in flight and the requests waiting for it.
#[derive(Debug, Default)]
pub(super) struct DiscoverRefresh {
    /// The internal `server/discover`, while it is in flight.
    op: Option<RequestHandle>,
    /// The requests waiting for it, in the order they came.
    waiters: Vec<RequestHandle>,
}

impl Connection {
    /// `handle` is about to go out on a ready session of `era`: when the session's
    /// `server/discover` answer has expired and the capabilities it declares judge this
    /// request, the request waits for a refresh (returns true; the refresh is queued or
    /// already in flight).
    pub(super) fn wait_for_discover_refresh(
        &mut self,
        now: Instant,
        era: Era,
        handle: RequestHandle,
    ) -> bool {
        if era != Era::Modern || !self.discover_expired(now) {
            return false;
        }
        let Some(info) = self.server_info() else { return false };
        let Some(op) = self.in_flight.get(handle) else { return false };
        if op.is_internal() || op.waited_for_discover || !super::gating::is_gated(&op.request, info) {
            return false;
        }
        if let Some(op) = self.in_flight.get_mut(handle) {
            op.waited_for_discover = true;
        }
        let in_flight = self.discover_refresh.op.filter(|h| self.in_flight.contains(*h));
        if in_flight.is_none() {
            let opts = RequestOptions { refresh: true, ..RequestOptions::default() };
            self.discover_refresh.op = Some(self.queue_internal(now, Request::Discover, opts));
        }
        self.discover_refresh.waiters.push(handle);
        true
    }

    /// An op ended (it is out of the table of requests in flight already): the refresh hands its outcome to the session
    /// (the info is already replaced when it succeeded) and lets its waiters go (`None`: not
    /// reported). Anything else passes `result` through.
    pub(super) fn discover_refresh_finished(
        &mut self,
        handle: RequestHandle,
        result: Result<Response, RequestError>,
    ) -> Option<Result<Response, RequestError>> {
        if self.discover_refresh.op != Some(handle) {
            return Some(result);
        }
        self.discover_refresh.op = None;
        let waiters = std::mem::take(&mut self.discover_refresh.waiters);
        let waiting: Vec<RequestHandle> =
            waiters.into_iter().filter(|h| self.in_flight.contains(*h)).collect();
        // Back to the front of the queue, in the order they came.
        for &h in waiting.iter().rev() {
            self.in_flight.queue_first_once(h);
        }
        // When the process or session ended, its requests fail with it (or wait for the next).
        let session_lives = self.server_info().is_some() && self.phase == super::Phase::Open;
        if !session_lives {
            return None;
        }
        if let Err(e) = result {
            self.postpone_discover_refresh(self.now);
            self.warn(Warning::DiscoverRefreshFailed { detail: e.to_string() });
        }
        if !waiting.is_empty() {
            self.pump(self.now);
        }
        None
    }
}
