//! Resource subscriptions on handshake servers (`resources/subscribe`), kept across a restart.
//!
//! A handshake server keeps its subscriptions per process or session: a restarted stdio
//! process, or a legacy Streamable HTTP session that expired (404) and was replaced, knows
//! none of them. The connection keeps the set the server confirmed — a URI is added when a
//! host's [`Request::SubscribeResource`] succeeds, and removed as soon as the host issues
//! [`Request::UnsubscribeResource`] for it — and renews each one on every new process or
//! session:
//!
//! - **When.** Right after the handshake, before anything else queued: the renewals are
//!   internal requests (no handle for the host, the connection's request timeout) queued at
//!   the front, so they go out before the request that caused the restart. That request is
//!   not held until they are answered (a server handles its input in order).
//! - **Refused.** A JSON-RPC error answer, a new session that does not declare
//!   `resources.subscribe` ([`RequestError::CapabilityMissing`], nothing sent), or one that
//!   speaks 2026-07-28 ([`RequestError::Unsupported`]): the URI leaves the set and the host
//!   gets [`Event::ResourceSubscriptionDropped`].
//! - **Not answered.** A timeout, a transport failure or a lost session says nothing about the
//!   subscription: the URI stays in the set and is renewed again after the next handshake.
//!
//! The set is the one list of them: `mcpwire_host`'s `subscribed_resources()` reads it.

use std::collections::BTreeSet;
use std::time::Instant;

use super::requests::Op;
use super::Connection;
use crate::error::RequestError;
use crate::event::Event;
use crate::request::{Request, RequestOptions};
use crate::response::Response;

/// The resources the server confirmed a `resources/subscribe` for, in URI order.
#[derive(Debug, Default)]
pub(super) struct ResourceSubscriptions {
    uris: BTreeSet<String>,
}

/// Whether a renewal's failure means the server refused it (rather than never answering).
fn refused(err: &RequestError) -> bool {
    matches!(
        err,
        RequestError::Rpc(_) | RequestError::CapabilityMissing { .. } | RequestError::Unsupported { .. }
    )
}

impl Connection {
    /// The work of [`Connection::resource_subscriptions`].
    pub(super) fn subscribed_resources(&self) -> impl Iterator<Item = &str> + '_ {
        self.resource_subscriptions.uris.iter().map(String::as_str)
    }

    /// The host issued a request: an unsubscribe ends the subscription here at once (it is
    /// not renewed, whatever the server answers).
    pub(super) fn note_unsubscribe(&mut self, request: &Request) {
        if let Request::UnsubscribeResource { uri } = request {
            self.resource_subscriptions.uris.remove(uri);
        }
    }

    /// A new process or session is ready: renew every subscription (queued at the front; one
    /// still queued from an earlier session is not queued twice).
    pub(super) fn renew_resource_subscriptions(&mut self, now: Instant) {
        let queued: BTreeSet<&str> = self
            .in_flight
            .iter()
            .map(|(_, op)| op)
            .filter(|op| op.internal)
            .filter_map(|op| match &op.request {
                Request::SubscribeResource { uri } => Some(uri.as_str()),
                _ => None,
            })
            .collect();
        let renew: Vec<String> = self
            .resource_subscriptions
            .uris
            .iter()
            .filter(|u| !queued.contains(u.as_str()))
            .cloned()
            .collect();
        for uri in renew.into_iter().rev() {
            self.queue_internal(now, Request::SubscribeResource { uri }, RequestOptions::default());
        }
    }

    /// An op ended (it is out of the table of requests in flight already): a host's subscribe the server confirmed joins
    /// the set; a renewal is settled here (`None`: not reported). Anything else passes
    /// `result` through.
    pub(super) fn subscription_op_finished(
        &mut self,
        op: &Op,
        result: Result<Response, RequestError>,
    ) -> Option<Result<Response, RequestError>> {
        let Request::SubscribeResource { uri } = &op.request else { return Some(result) };
        if !op.internal {
            if result.is_ok() {
                self.resource_subscriptions.uris.insert(uri.clone());
            }
            return Some(result);
        }
        if let Err(reason) = result {
            // Unsubscribed meanwhile: nothing to report.
            if refused(&reason) && self.resource_subscriptions.uris.remove(uri) {
                self.emit(Event::ResourceSubscriptionDropped { uri: uri.clone(), reason });
            }
        }
        None
    }
}
