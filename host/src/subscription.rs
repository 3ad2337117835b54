//! Listen streams as the host sees them: an [`Inbox`] the driver fills (acknowledgments,
//! notifications through a bounded [`NotificationQueue`], the end) and the API handles that
//! read it — [`AsyncSubscription`] (any executor: it waits on a `Waker`) and
//! [`BlockingSubscription`] (it waits on a condition variable). The families re-export the one
//! they use as `Subscription`.
//!
//! Notifications wait in the inbox until the host asks for them, so whatever the host does
//! with one (including requests to the same server) runs on the host's own task or thread,
//! never on the driver.

use std::any::Any;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Condvar, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use mcpwire_core::{
    ClientError, Notification, NotificationQueue, QueueLimits, RequestError, RequestHandle,
    SubscriptionFilter, SubscriptionUpdate,
};

use crate::dispatch::{lock, Outcome};

/// Options of a listen stream.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ListenOptions {
    /// How long each acknowledgment may take (the first, and each after a re-open); the
    /// server's request timeout when `None`. One that expires cancels and ends the stream.
    pub ack_timeout: Option<Duration>,
    /// Bounds of the notifications waiting to be read.
    pub queue: QueueLimits,
}

impl ListenOptions {
    /// How long each acknowledgment may take (the first, and each after a re-open); the server's request timeout when `None`.
    pub fn ack_timeout(mut self, ack_timeout: Duration) -> Self {
        self.ack_timeout = Some(ack_timeout);
        self
    }

    /// Bounds of the notifications waiting to be read.
    pub fn queue(mut self, queue: QueueLimits) -> Self {
        self.queue = queue;
        self
    }
}

/// Closes a listen stream on the server's engine (never waits for the engine's lock).
pub trait ListenControl: Send + Sync {
    /// Cancels listen `handle` (on the wire, or by closing its HTTP stream).
    fn close_listen(&self, handle: RequestHandle);
}

/// Where a listen stream's updates wait for the host. Shared by the driver, which fills it,
/// and the API handle, which reads it.
#[derive(Debug)]
pub struct Inbox {
    state: Mutex<InboxState>,
    changed: Condvar,
}

#[derive(Debug)]
struct InboxState {
    /// `None`: notifications are not kept (the hook sees them; nobody reads this stream).
    queue: Option<NotificationQueue<Notification>>,
    granted: Option<SubscriptionFilter>,
    unsupported: SubscriptionFilter,
    /// Acknowledged and not dropped since.
    active: bool,
    /// Notifications the server sent on the stream that it did not ask for (dropped).
    unrequested: u64,
    /// How the stream ended, once it has.
    end: Option<Result<(), ClientError>>,
    /// Closed by the host: nothing more is delivered.
    closed: bool,
    waker: Option<Waker>,
}

impl Inbox {
    /// An inbox keeping at most `limits` of notifications; `None` keeps none.
    pub fn new(limits: Option<QueueLimits>) -> Arc<Self> {
        let state = InboxState {
            queue: limits.map(NotificationQueue::new),
            granted: None,
            unsupported: SubscriptionFilter::default(),
            active: false,
            unrequested: 0,
            end: None,
            closed: false,
            waker: None,
        };
        Arc::new(Self { state: Mutex::new(state), changed: Condvar::new() })
    }

    fn wake(&self, mut state: std::sync::MutexGuard<'_, InboxState>) {
        let waker = state.waker.take();
        drop(state);
        self.changed.notify_all();
        if let Some(w) = waker {
            w.wake();
        }
    }

    /// The driver routes an update of the stream.
    pub fn update(&self, update: SubscriptionUpdate) {
        let mut s = lock(&self.state);
        if s.closed || s.end.is_some() {
            return;
        }
        match update {
            SubscriptionUpdate::Acknowledged { granted, unsupported } => {
                s.granted = Some(granted);
                s.unsupported = unsupported;
                s.active = true;
            }
            SubscriptionUpdate::Reconnecting { .. } => s.active = false,
            SubscriptionUpdate::Unrequested { count, .. } => {
                // Nothing to wake a reader for.
                s.unrequested = count;
                return;
            }
            SubscriptionUpdate::Notification(n) => {
                let Some(queue) = s.queue.as_mut() else { return };
                let (subject, cost) = mcpwire_core::notify_queue::charge(&n);
                queue.push(n, &subject, cost);
            }
            _ => return,
        }
        self.wake(s);
    }

    /// The driver routes the stream's end (its request's outcome).
    pub fn end(&self, outcome: Outcome) {
        let mut s = lock(&self.state);
        s.active = false;
        if s.end.is_none() {
            s.end = Some(outcome.map(|_| ()));
        }
        self.wake(s);
    }

    /// The host closed the stream: what is queued is dropped and nothing more is delivered.
    fn close(&self) {
        let mut s = lock(&self.state);
        s.closed = true;
        s.active = false;
        if let Some(q) = s.queue.as_mut() {
            q.clear();
        }
        if s.end.is_none() {
            s.end = Some(Err(ClientError::Request(RequestError::Cancelled)));
        }
        self.wake(s);
    }

    /// Blocks until `poll` is ready or `deadline` passes (`None` then).
    fn wait<T>(&self, deadline: Option<Instant>, poll: impl Fn(&mut InboxState) -> Poll<T>) -> Option<T> {
        let mut s = lock(&self.state);
        loop {
            if let Poll::Ready(v) = poll(&mut s) {
                return Some(v);
            }
            s = match deadline {
                None => self.changed.wait(s).unwrap_or_else(|p| p.into_inner()),
                Some(at) => {
                    let left = at.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return None;
                    }
                    self.changed.wait_timeout(s, left).unwrap_or_else(|p| p.into_inner()).0
                }
            };
        }
    }

    /// Polls with the async caller's context.
    fn poll_with<T>(&self, cx: &Context<'_>, poll: impl Fn(&mut InboxState) -> Poll<T>) -> Poll<T> {
        let mut s = lock(&self.state);
        let ready = poll(&mut s);
        if ready.is_pending() {
            s.waker = Some(cx.waker().clone());
        }
        ready
    }
}

impl InboxState {
    /// The first acknowledgment: `Ready(Ok)` once acknowledged, `Ready(Err)` if the stream
    /// ended first.
    fn acknowledged(&mut self) -> Poll<Result<(), ClientError>> {
        if self.granted.is_some() {
            return Poll::Ready(Ok(()));
        }
        match &self.end {
            None => Poll::Pending,
            Some(Err(e)) => Poll::Ready(Err(e.clone())),
            Some(Ok(())) => Poll::Ready(Err(ClientError::Request(RequestError::StreamClosed {
                detail: "the server ended the subscription before acknowledging it".into(),
            }))),
        }
    }

    /// The next notification: `Ready(None)` once the stream ended and everything was read.
    fn next(&mut self) -> Poll<Option<Notification>> {
        if let Some(n) = self.queue.as_mut().and_then(NotificationQueue::pop) {
            return Poll::Ready(Some(n));
        }
        if self.end.is_some() {
            return Poll::Ready(None);
        }
        Poll::Pending
    }
}

/// What both kinds of subscription handle share: the stream's state, and closing it (also
/// on drop).
pub struct SubscriptionCore {
    handle: RequestHandle,
    inbox: Arc<Inbox>,
    control: Arc<dyn ListenControl>,
    /// Keeps the server open while the handle lives (`None` for streams the server keeps
    /// itself, which must not keep it alive).
    _keep: Option<Arc<dyn Any + Send + Sync>>,
}

impl std::fmt::Debug for SubscriptionCore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Subscription").field("handle", &self.handle).finish_non_exhaustive()
    }
}

impl SubscriptionCore {
    /// A handle over listen `handle`, whose updates reach `inbox`.
    pub fn new(
        handle: RequestHandle,
        inbox: Arc<Inbox>,
        control: Arc<dyn ListenControl>,
        keep: Option<Arc<dyn Any + Send + Sync>>,
    ) -> Self {
        Self { handle, inbox, control, _keep: keep }
    }

    /// Waits for the first acknowledgment (or the stream's end, as an error), through the
    /// inbox's waker (the blocking family runs it with `block_on`).
    pub async fn acknowledgment(&self) -> Result<(), ClientError> {
        std::future::poll_fn(|cx| self.inbox.poll_with(cx, InboxState::acknowledged)).await
    }

    /// What the server agreed to send, as of its last acknowledgment (`None` before the first).
    pub fn acknowledged(&self) -> Option<SubscriptionFilter> {
        lock(&self.inbox.state).granted.clone()
    }

    /// What was asked for and not granted by the last acknowledgment.
    pub fn unsupported(&self) -> SubscriptionFilter {
        lock(&self.inbox.state).unsupported.clone()
    }

    /// True while the stream is acknowledged and open (false while it re-opens, and once it
    /// ended).
    pub fn is_active(&self) -> bool {
        lock(&self.inbox.state).active
    }

    /// How the stream ended, once it has: `Ok` for a graceful end by the server.
    pub fn ended(&self) -> Option<Result<(), ClientError>> {
        lock(&self.inbox.state).end.clone()
    }

    /// Notifications waiting to be read.
    pub fn pending(&self) -> usize {
        lock(&self.inbox.state).queue.as_ref().map_or(0, NotificationQueue::len)
    }

    /// Bytes the waiting notifications are charged.
    pub fn pending_bytes(&self) -> usize {
        lock(&self.inbox.state).queue.as_ref().map_or(0, NotificationQueue::pending_bytes)
    }

    /// Notifications dropped because the host read too slowly (older repeats go first).
    pub fn dropped(&self) -> u64 {
        lock(&self.inbox.state).queue.as_ref().map_or(0, NotificationQueue::dropped)
    }

    /// Notifications the server sent on the stream that it did not ask for (a list kind,
    /// resource URI or task id outside its filter, or another method): dropped by the client,
    /// counted here (the first also reported as `Warning::UnrequestedNotification`).
    pub fn unrequested(&self) -> u64 {
        lock(&self.inbox.state).unrequested
    }

    /// Ends the stream: cancelled on the wire (stdio) or its HTTP stream closed. Nothing is
    /// delivered after it. Idempotent; dropping the handle does the same.
    pub fn close(&self) {
        let was_open = lock(&self.inbox.state).end.is_none();
        self.inbox.close();
        if was_open {
            self.control.close_listen(self.handle);
        }
    }
}

impl Drop for SubscriptionCore {
    fn drop(&mut self) {
        self.close();
    }
}

/// A listen stream for async code (any executor). Dropping it closes the stream.
#[derive(Debug)]
pub struct AsyncSubscription(SubscriptionCore);

impl AsyncSubscription {
    /// Wraps a handle.
    pub fn new(core: SubscriptionCore) -> Self {
        Self(core)
    }

    /// The handle it wraps.
    pub fn into_core(self) -> SubscriptionCore {
        self.0
    }

    /// Waits for the first acknowledgment (or the stream's end, as an error).
    pub async fn acknowledgment(&self) -> Result<(), ClientError> {
        std::future::poll_fn(|cx| self.0.inbox.poll_with(cx, InboxState::acknowledged)).await
    }

    /// The next notification; `None` once the stream ended (see [`SubscriptionCore::ended`])
    /// and everything was read.
    pub fn next(&self) -> Next<'_> {
        Next(&self.0.inbox)
    }
}

/// The future of [`AsyncSubscription::next`].
#[derive(Debug)]
pub struct Next<'a>(&'a Inbox);

impl Future for Next<'_> {
    type Output = Option<Notification>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        self.0.poll_with(cx, InboxState::next)
    }
}

/// The notifications, until the stream ended and everything was read.
impl futures_core::Stream for AsyncSubscription {
    type Item = Notification;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Notification>> {
        self.0.inbox.poll_with(cx, InboxState::next)
    }
}

impl std::ops::Deref for AsyncSubscription {
    type Target = SubscriptionCore;

    fn deref(&self) -> &SubscriptionCore {
        &self.0
    }
}

/// [`BlockingSubscription::next_timeout`] waited for its whole timeout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Elapsed;

impl std::fmt::Display for Elapsed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("no notification within the timeout")
    }
}

impl std::error::Error for Elapsed {}

/// A listen stream for blocking code. Dropping it closes the stream.
#[derive(Debug)]
pub struct BlockingSubscription(SubscriptionCore);

impl BlockingSubscription {
    /// Wraps a handle.
    pub fn new(core: SubscriptionCore) -> Self {
        Self(core)
    }

    /// The handle it wraps.
    pub fn into_core(self) -> SubscriptionCore {
        self.0
    }

    /// Waits for the first acknowledgment (or the stream's end, as an error).
    pub fn acknowledgment(&self) -> Result<(), ClientError> {
        self.0.inbox.wait(None, InboxState::acknowledged).unwrap_or(Err(ClientError::Closed))
    }

    /// Blocks for the next notification; `None` once the stream ended and everything was
    /// read.
    pub fn next(&self) -> Option<Notification> {
        self.0.inbox.wait(None, InboxState::next).flatten()
    }

    /// [`Self::next`], giving up after `timeout`: `Err(Elapsed)` then (the stream goes on).
    pub fn next_timeout(&self, timeout: Duration) -> Result<Option<Notification>, Elapsed> {
        let deadline = Instant::now().checked_add(timeout);
        self.0.inbox.wait(deadline, InboxState::next).ok_or(Elapsed)
    }
}

/// The notifications, blocking for each, until the stream ended and everything was read.
impl Iterator for &BlockingSubscription {
    type Item = Notification;

    fn next(&mut self) -> Option<Notification> {
        BlockingSubscription::next(self)
    }
}

/// The notifications, blocking for each, until the stream ended and everything was read.
impl Iterator for BlockingSubscription {
    type Item = Notification;

    fn next(&mut self) -> Option<Notification> {
        BlockingSubscription::next(self)
    }
}

impl std::ops::Deref for BlockingSubscription {
    type Target = SubscriptionCore;

    fn deref(&self) -> &SubscriptionCore {
        &self.0
    }
}

/// The resource subscriptions of one 2026-07-28 server (shared by every clone of its handle):
/// the listen stream of each. A handshake server's subscriptions are kept by its connection
/// instead ([`mcpwire_core::Connection::resource_subscriptions`]), which renews them after a
/// restart.
#[derive(Debug, Default)]
pub struct ResourceSubscriptions(Mutex<std::collections::BTreeMap<String, SubscriptionCore>>);

impl ResourceSubscriptions {
    /// Records the stream of `uri`, replacing (and closing) an earlier one.
    pub fn insert(&self, uri: &str, stream: SubscriptionCore) {
        let old = lock(&self.0).insert(uri.to_owned(), stream);
        drop(old);
    }

    /// Forgets `uri`, handing back its stream.
    pub fn remove(&self, uri: &str) -> Option<SubscriptionCore> {
        lock(&self.0).remove(uri)
    }

    /// The URIs whose stream has not ended.
    pub fn live(&self) -> Vec<String> {
        lock(&self.0).iter().filter(|(_, s)| s.ended().is_none()).map(|(uri, _)| uri.clone()).collect()
    }

    /// A resource stream must be acknowledged with its URI.
    pub fn check_granted(stream: &SubscriptionCore, uri: &str) -> Result<(), ClientError> {
        let granted =
            stream.acknowledged().is_some_and(|g| g.resource_subscriptions.iter().any(|u| u == uri));
        if granted {
            return Ok(());
        }
        Err(ClientError::Request(RequestError::SubscriptionRefused {
            detail: format!("the acknowledgment does not name {uri}"),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct NoControl;

    impl ListenControl for NoControl {
        fn close_listen(&self, _handle: RequestHandle) {}
    }

    /// The count of notifications dropped as not asked for is the stream's latest, kept after
    /// the end; nothing is queued for them.
    #[test]
    fn unrequested_notifications_are_counted_not_queued() {
        let now = Instant::now();
        let cfg = mcpwire_core::ConnectionConfig::stdio(mcpwire_core::StdioCommand::new("server"));
        let mut conn = mcpwire_core::Connection::new(cfg, now);
        let handle = conn.request(now, mcpwire_core::Request::Ping, Default::default()).expect("a handle");
        let inbox = Inbox::new(Some(QueueLimits::default()));
        let sub = SubscriptionCore::new(handle, inbox.clone(), Arc::new(NoControl), None);
        assert_eq!(sub.unrequested(), 0);
        for count in 1..=3 {
            inbox.update(SubscriptionUpdate::Unrequested { method: "notifications/message".into(), count });
        }
        assert_eq!((sub.unrequested(), sub.pending()), (3, 0));
        inbox.end(Ok(mcpwire_core::Response::ListenEnded));
        assert_eq!(sub.unrequested(), 3);
    }
}
