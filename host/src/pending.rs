//! Per-server bookkeeping a driver keeps beside its `Connection`: calls in flight by caller id
//! and by core handle, callers waiting for the close, and the view API handles read.

use std::collections::BTreeMap;

use mcpwire_core::types::Tool;
use mcpwire_core::{
    ClientError, Connection, Event, ListKind, Notification, Request, RequestHandle, RequestOptions, Response,
    ServerInfo, SubscriptionUpdate,
};

/// What API handles can read about a server without asking its engine; kept current by
/// [`ServerView::observe`] on every routed event.
#[derive(Debug, Clone, Default)]
pub struct ServerView {
    /// Set while connected.
    pub info: Option<ServerInfo>,
    /// The last complete tool list, until invalidated.
    pub tools: Option<Vec<Tool>>,
}

impl ServerView {
    /// Updates the view from an event the driver is about to route.
    pub fn observe(&mut self, event: &Event, conn: &Connection) {
        match event {
            Event::Response { result: Ok(Response::Tools(_)), .. } => {
                self.tools = conn.known_tools().map(<[Tool]>::to_vec);
            }
            Event::Connected(info) => self.info = Some(ServerInfo::clone(info)),
            Event::Disconnected { .. } => *self = Self::default(),
            Event::Notification(Notification::ListChanged(ListKind::Tools))
            | Event::Subscription {
                update: SubscriptionUpdate::Notification(Notification::ListChanged(ListKind::Tools)),
                ..
            } => self.tools = None,
            Event::Closed => self.info = None,
            _ => {}
        }
    }
}

/// Requests issued through an API handle: the caller's call id (known before the core assigns
/// a handle, so a cancel can name it) and whatever the runtime needs to answer (`P`).
#[derive(Debug)]
pub struct PendingCalls<P> {
    by_call: BTreeMap<u64, RequestHandle>,
    by_handle: BTreeMap<RequestHandle, (u64, P)>,
}

impl<P> Default for PendingCalls<P> {
    fn default() -> Self {
        Self { by_call: BTreeMap::new(), by_handle: BTreeMap::new() }
    }
}

impl<P> PendingCalls<P> {
    /// Records a call the core accepted.
    pub fn insert(&mut self, call: u64, handle: RequestHandle, pending: P) {
        self.by_call.insert(call, handle);
        self.by_handle.insert(handle, (call, pending));
    }

    /// Issues a request on `conn` and records it under `call`; a refused request hands the
    /// pending entry back with the error, for the runtime to answer its caller.
    #[allow(clippy::result_large_err)]
    pub fn start(
        &mut self,
        conn: &mut Connection,
        now: std::time::Instant,
        call: u64,
        request: Request,
        opts: RequestOptions,
        pending: P,
    ) -> Result<(), (P, ClientError)> {
        match conn.request(now, request, opts) {
            Ok(handle) => {
                self.insert(call, handle, pending);
                Ok(())
            }
            Err(e) => Err((pending, e.into())),
        }
    }

    /// Forgets a call its caller abandoned; returns the handle to cancel in the core.
    pub fn cancel(&mut self, call: u64) -> Option<RequestHandle> {
        let handle = self.by_call.remove(&call)?;
        self.by_handle.remove(&handle);
        Some(handle)
    }

    /// The handle of a live call, leaving it pending (its outcome is still delivered).
    pub fn handle_of(&self, call: u64) -> Option<RequestHandle> {
        self.by_call.get(&call).copied()
    }

    /// The pending entry of a live request.
    pub fn get(&self, handle: RequestHandle) -> Option<&P> {
        self.by_handle.get(&handle).map(|(_, p)| p)
    }

    /// Removes a finished request.
    pub fn take(&mut self, handle: RequestHandle) -> Option<P> {
        let (call, p) = self.by_handle.remove(&handle)?;
        self.by_call.remove(&call);
        Some(p)
    }

    /// Calls in flight.
    pub fn len(&self) -> usize {
        self.by_handle.len()
    }

    /// True when nothing is in flight.
    pub fn is_empty(&self) -> bool {
        self.by_handle.is_empty()
    }
}

/// Callers of `close` waiting for [`Event::Closed`].
#[derive(Debug)]
pub struct CloseWaiters<W> {
    waiting: Vec<W>,
}

impl<W> Default for CloseWaiters<W> {
    fn default() -> Self {
        Self { waiting: Vec::new() }
    }
}

impl<W> CloseWaiters<W> {
    /// Starts closing `conn` for `waiter`; hands the waiter back at once if `conn` is closed.
    pub fn close(&mut self, conn: &mut Connection, now: std::time::Instant, waiter: W) -> Option<W> {
        if conn.is_closed() {
            return Some(waiter);
        }
        self.waiting.push(waiter);
        conn.close(now);
        None
    }

    /// The waiters to release once [`Event::Closed`] was routed.
    pub fn release(&mut self) -> std::vec::Drain<'_, W> {
        self.waiting.drain(..)
    }
}
