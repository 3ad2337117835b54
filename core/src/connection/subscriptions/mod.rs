//! Listen streams (`subscriptions/listen`, 2026-07-28) and legacy resource subscriptions:
//! which request a tagged notification belongs to, acknowledgments, the graceful close,
//! re-opening after a dropped stream or a restarted process, and the era and capability
//! rules that refuse a request before it is sent.
//!
//! A listen is an [`Op`](super::requests::Op) like any request, so cancel, close, limits and the one
//! final response come for free. What differs: its timer bounds each acknowledgment rather
//! than the request; it survives the loss of its stream or process (it is sent again); and
//! its response is the end of the stream.

use std::time::Instant;

use serde_json::Value;

mod listen;

pub(super) use listen::{ListenState, Tagged};

use super::Connection;
use crate::era::Era;
use crate::error::{RequestError, Warning};
use crate::event::Event;
use crate::event::SubscriptionUpdate;
use crate::handle::RequestHandle;
use crate::jsonrpc::WireId;
use crate::request::Request;
use crate::response::Response;
use crate::subscription::{SubscriptionFilter, SUBSCRIPTION_ID_META};
use crate::timers::Timer;

impl Connection {
    /// The listen a notification's `_meta` names, if it names one.
    pub(super) fn tagged(&mut self, params: &Value) -> Tagged {
        let Some(tag) = params.get("_meta").and_then(|m| m.get(SUBSCRIPTION_ID_META)) else {
            return Tagged::Untagged;
        };
        let id = WireId::from_value(tag);
        if let Some(super::WireUse::Op(h)) = self.in_flight.wire_use(&id) {
            if self.in_flight.get(h).is_some_and(|op| matches!(op.request, Request::Listen { .. })) {
                return Tagged::Listen(h);
            }
        }
        if !self.in_flight.finished_recently(&id) {
            self.warn(Warning::UnknownSubscription { id: crate::text::sanitize(&id.as_json(), 100) });
        }
        Tagged::Gone
    }

    /// `notifications/subscriptions/acknowledged` for a live listen.
    pub(super) fn on_listen_ack(&mut self, handle: RequestHandle, params: &Value) {
        let Some(op) = self.in_flight.get_mut(handle) else { return };
        let Request::Listen { filter, require_all } = &op.request else { return };
        let granted = SubscriptionFilter::from_value(params.get("notifications").unwrap_or(&Value::Null));
        let unsupported = filter.missing_from(&granted);
        let refused = *require_all && !unsupported.is_empty();
        op.listen.get_or_insert_with(ListenState::default).acknowledged();
        op.retries = 0;
        self.timers.clear(Timer::Request(handle));
        let detail = refused.then(|| format!("not granted: {}", unsupported.to_value()));
        self.emit(Event::Subscription {
            handle,
            update: SubscriptionUpdate::Acknowledged { granted, unsupported },
        });
        if let Some(detail) = detail {
            self.abandon(handle, "the subscription was not granted");
            self.finish(handle, Err(RequestError::SubscriptionRefused { detail }));
        }
    }

    /// Whether listen `handle` asked for this tagged notification (its filter, not the
    /// acknowledgment's: a server granting more than asked does not widen it). One it did not
    /// ask for is dropped by the caller: counted here and reported to the stream as
    /// [`SubscriptionUpdate::Unrequested`], the first of the stream also as
    /// [`Warning::UnrequestedNotification`]. `notifications/cancelled` always passes: a stdio
    /// server ends a stream with it.
    pub(super) fn listen_asked_for(&mut self, handle: RequestHandle, method: &str, params: &Value) -> bool {
        let Some(op) = self.in_flight.get_mut(handle) else { return true };
        let Request::Listen { filter, .. } = &op.request else { return true };
        if method == "notifications/cancelled" || filter.asks_for(method, params) {
            return true;
        }
        let count = op.listen.get_or_insert_with(ListenState::default).count_unrequested();
        let method = crate::text::sanitize(method, 100);
        if count == 1 {
            self.warn(Warning::UnrequestedNotification { method: method.clone() });
        }
        self.emit(Event::Subscription { handle, update: SubscriptionUpdate::Unrequested { method, count } });
        false
    }

    /// A notification delivered on a listen stream.
    pub(super) fn on_listen_notification(&mut self, handle: RequestHandle, n: crate::event::Notification) {
        self.emit(Event::Subscription { handle, update: SubscriptionUpdate::Notification(n) });
    }

    /// The response to a listen: the server ended the stream. Only a completed result is a
    /// graceful end.
    pub(super) fn on_listen_response(&mut self, handle: RequestHandle, value: Value) {
        let result = match value.get("resultType") {
            _ if !value.is_object() => Err(RequestError::InvalidResponse {
                detail: "the listen ended with a result that is not an object".into(),
            }),
            None => Ok(Response::ListenEnded),
            Some(Value::String(s)) if s == "complete" => Ok(Response::ListenEnded),
            Some(other) => {
                let result_type = other.as_str().map_or_else(|| other.to_string(), str::to_owned);
                Err(RequestError::UnsupportedResultType { result_type })
            }
        };
        self.finish(handle, result);
    }

    /// The server cancelled a listen (`notifications/cancelled` naming it): the stream is over,
    /// and not gracefully. Other requests cannot be cancelled by the server; that is ignored.
    pub(super) fn on_listen_cancelled_by_server(&mut self, handle: RequestHandle, params: &Value) {
        if !self.in_flight.get(handle).is_some_and(|op| matches!(op.request, Request::Listen { .. })) {
            return;
        }
        let why = params.get("reason").and_then(Value::as_str).map(|r| crate::text::sanitize(r, 200));
        let detail = match why {
            Some(r) => format!("the server cancelled the subscription: {r}"),
            None => "the server cancelled the subscription".to_owned(),
        };
        self.finish(handle, Err(RequestError::StreamClosed { detail }));
    }

    /// Why a request cannot go to a server of this era, if it cannot (missing capabilities are
    /// `gating.rs`'s, checked after this).
    pub(super) fn refusal(&self, request: &Request, era: Era) -> Option<RequestError> {
        if let Some(detail) = self.task_refusal(request, era) {
            return Some(RequestError::Unsupported { detail: detail.to_owned() });
        }
        let detail = match (request, era) {
            (Request::Listen { .. }, Era::Legacy) => {
                "subscriptions/listen needs a 2026-07-28 server; this one speaks a handshake revision"
            }
            (Request::SubscribeResource { .. } | Request::UnsubscribeResource { .. }, Era::Modern) => {
                "resources/subscribe was removed in 2026-07-28; subscribe through subscriptions/listen"
            }
            _ => return None,
        };
        Some(RequestError::Unsupported { detail: detail.to_owned() })
    }

    /// A listen attempt is going out now.
    pub(super) fn on_listen_sent(&mut self, now: Instant, handle: RequestHandle) {
        let Some(op) = self.in_flight.get_mut(handle) else { return };
        if !matches!(op.request, Request::Listen { .. }) {
            return;
        }
        // The first attempt is bounded from the host's call (connecting included); each later
        // one from when it goes out.
        if op.listen.get_or_insert_with(ListenState::default).sent(now) {
            if let Some(at) = op.deadline(now) {
                self.timers.set(Timer::Request(handle), at);
            }
        }
    }

    /// The process the listens were sent to is gone (`reason`): those it had acknowledged and
    /// kept for long enough go back to the queue for the next process. Returns them; the
    /// others fail with the rest.
    pub(super) fn requeue_listens(&mut self, now: Instant, reason: &RequestError) -> Vec<RequestHandle> {
        if self.phase != super::Phase::Open {
            return Vec::new();
        }
        let kept: Vec<RequestHandle> = self
            .in_flight
            .iter()
            .filter(|(_, op)| op.listen.as_ref().is_some_and(|l| l.survives_loss(now)))
            .map(|(h, _)| h)
            .collect();
        for h in &kept {
            self.listen_dropped(*h, reason.clone());
            self.in_flight.queue_last_once(*h);
        }
        kept
    }

    /// A listen's stream or process is gone: it waits to be sent again.
    fn listen_dropped(&mut self, handle: RequestHandle, reason: RequestError) {
        let Some(op) = self.in_flight.get_mut(handle) else { return };
        op.sent = None;
        let acked_once = op.listen.as_mut().is_some_and(ListenState::dropped);
        // Before the first acknowledgment the host's own bound keeps running.
        if acked_once {
            self.timers.clear(Timer::Request(handle));
        }
        self.emit(Event::Subscription { handle, update: SubscriptionUpdate::Reconnecting { reason } });
    }

    /// HTTP: a listen's stream dropped or the server failed (5xx): open it again after a
    /// backoff. Returns false when `handle` is not a listen.
    #[cfg(feature = "http")]
    pub(super) fn reopen_listen_later(
        &mut self,
        now: Instant,
        handle: RequestHandle,
        reason: RequestError,
    ) -> bool {
        if !self.in_flight.get(handle).is_some_and(|op| matches!(op.request, Request::Listen { .. })) {
            return false;
        }
        self.listen_dropped(handle, reason);
        let failures =
            self.in_flight.get(handle).and_then(|op| op.listen.as_ref()).map_or(1, ListenState::failures);
        let delay = self.http_reconnect_delay(failures.saturating_sub(1));
        self.timers.set(Timer::Retry(handle), now + delay);
        true
    }
}
