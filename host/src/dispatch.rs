//! The bookkeeping of one server's driver, written once for every family: requests issued
//! by API handles and where their outcomes go, progress callbacks, close waiters, the view API
//! handles read, the event hook, and the drain that routes the core's events.
//!
//! The [`Engine`](crate::Engine) owns a [`Connection`] and a [`Dispatch`]; it feeds commands
//! through [`Dispatch::request`] / [`Dispatch::cancel`] / [`Dispatch::close`], and after every
//! input runs [`Dispatch::drain_deferred`] with its IO side (a [`Perform`]), which performs the
//! core's IO and starts handlers ([`Dispatch::next`] hands the [`Step`]s out one by one instead).
//! Outcomes are delivered once the drain is complete, so a woken caller already sees the state
//! the drained events imply (e.g. `info()` after a crash). What the host's callbacks are to
//! see is queued, and run after the engine's lock is released (see `callbacks.rs`).

use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use mcpwire_core::{Input, Output};

use crate::callbacks::{Callback, Callbacks};
use crate::pending::{CloseWaiters, PendingCalls, ServerView};
use crate::subscription::Inbox;
use crate::trace::{RequestTrace, ServerTrace};
use mcpwire_core::{
    ClientError, Connection, Event, Io, Progress, Request, RequestHandle, RequestOptions, Response,
    ServerRequest, ServerRequestHandle, SubscriptionUpdate,
};

/// A request's outcome, as handed to its caller.
pub type Outcome = Result<Response, ClientError>;

/// The outcomes one drain routed, each with where it goes. A drain usually ends one request, so
/// the first is kept inline (no allocation per call); more go to a vector.
pub struct Outcomes<R> {
    first: Option<(R, Outcome)>,
    more: Vec<(R, Outcome)>,
}

impl<R> Default for Outcomes<R> {
    fn default() -> Self {
        Self { first: None, more: Vec::new() }
    }
}

impl<R> Outcomes<R> {
    fn push(&mut self, reply: R, outcome: Outcome) {
        match self.first {
            None => self.first = Some((reply, outcome)),
            Some(_) => self.more.push((reply, outcome)),
        }
    }
}

impl<R> std::fmt::Debug for Outcomes<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let count = usize::from(self.first.is_some()) + self.more.len();
        f.debug_struct("Outcomes").field("count", &count).finish()
    }
}

impl<R> IntoIterator for Outcomes<R> {
    type Item = (R, Outcome);
    type IntoIter = std::iter::Chain<std::option::IntoIter<(R, Outcome)>, std::vec::IntoIter<(R, Outcome)>>;

    fn into_iter(self) -> Self::IntoIter {
        self.first.into_iter().chain(self.more)
    }
}

/// A progress callback. It runs outside the server's engine lock, after the progress before
/// it and never beside another callback of the same server, so it may call the client (even
/// the same server, and wait for the answer). Its call returns after its last progress
/// callback. A callback that panics is skipped.
pub type ProgressFn = Arc<dyn Fn(Progress) + Send + Sync>;

/// A callback for every non-response event of every server (notifications, log messages,
/// stderr lines, warnings, connection changes). It runs outside the server's engine lock, in
/// the order of the server's events, never beside another callback of the same server, so it
/// may call the client (even the same server, and wait for the answer: what that request
/// routes meanwhile is delivered after the hook returns). A hook that panics is skipped.
pub type EventHook = Arc<dyn Fn(&str, &Event) + Send + Sync>;

/// The wire trace callback ([`ClientBuilder::wire_trace`](crate::ClientBuilder::wire_trace)):
/// called with the server's name, the wall-clock time the record was taken from the server's
/// connection, and the record. Like the [`EventHook`], it runs outside the server's engine lock,
/// in order, never beside another callback of the same server; one that panics is skipped.
pub type WireTrace = Arc<dyn Fn(&str, std::time::SystemTime, &mcpwire_core::WireRecord) + Send + Sync>;

/// The host's hook for paced input waits (2026-07-28 state-only `input_required`): called with
/// the server's name and each [`mcpwire_core::InputWait`] as it starts; `Cancel` fails that
/// request with a resumable [`mcpwire_core::RequestError::InputWaitCancelled`]. Like the
/// [`EventHook`] (right after it, for the same event), it runs outside the server's engine
/// lock, in order, and may call the client; its `Cancel` is applied when it returns, unless the
/// wait is over by then. A hook that panics lets the wait go on.
pub type InputWaitHook =
    Arc<dyn Fn(&str, &mcpwire_core::InputWait) -> mcpwire_core::InputWaitDecision + Send + Sync>;

/// What API handles read about a server without a round trip to its engine.
pub type SharedView = Arc<Mutex<ServerView>>;

/// A per-request `_meta` provider: evaluated when a request is submitted, its map goes over the
/// server's static `_meta` and under the request's own
/// [`RequestOptions::meta`](mcpwire_core::RequestOptions::meta); keys the protocol sets are dropped
/// ([`mcpwire_core::is_reserved_meta_key`]). It runs on the caller's thread before the request
/// reaches the server's engine (no lock held), so it may call the client; a request it makes
/// gets its own `_meta` from it too (look at `ctx.method` to avoid endless recursion).
pub type MetaProvider = Arc<
    dyn Fn(&mcpwire_core::RequestMetaContext<'_>) -> serde_json::Map<String, serde_json::Value> + Send + Sync,
>;

/// A server's `_meta` provider with the server's name: what a caller evaluates before its
/// request takes the engine's lock.
#[derive(Clone)]
pub(crate) struct RequestMeta {
    server: Arc<str>,
    provider: MetaProvider,
}

impl RequestMeta {
    /// Adds the provider's `_meta` for `request` to `opts`. A provider that panics fails the
    /// request instead.
    pub(crate) fn add_to(&self, request: &Request, opts: &mut RequestOptions) -> Result<(), ClientError> {
        let context = mcpwire_core::RequestMetaContext::new(&self.server, request);
        match catch_unwind(AssertUnwindSafe(|| (self.provider)(&context))) {
            Ok(provided) => {
                opts.provide_meta(provided);
                Ok(())
            }
            Err(_) => Err(ClientError::Config("the request _meta provider panicked".into())),
        }
    }
}

/// Where a request's outcome goes (a channel's sending half).
pub trait Reply: Send + 'static {
    /// Hands the outcome over; a caller that stopped waiting is no error.
    fn deliver(self, outcome: Outcome);
}

/// A caller of `close` waiting for the server to be closed.
pub trait Waiter: Send + 'static {
    /// Wakes the caller.
    fn release(self);
}

impl Reply for std::sync::mpsc::SyncSender<Outcome> {
    fn deliver(self, outcome: Outcome) {
        let _ = self.try_send(outcome);
    }
}

impl Waiter for std::sync::mpsc::SyncSender<()> {
    fn release(self) {
        let _ = self.try_send(());
    }
}

/// A driver's IO side: what it does for the core, and its clock.
pub trait Perform {
    /// The driver's monotonic clock.
    fn now(&self) -> Instant;
    /// Performs an IO action; a spawn reports back as the input returned (`Started` or
    /// `SpawnFailed`), which is fed to the core at once.
    fn perform(&mut self, io: Io) -> Option<Input>;
    /// Starts the host's handler for a server request; its answer comes back later as
    /// `Input::ServerAnswer` (or at once, as the input returned, when it cannot start).
    fn start_handler(
        &mut self,
        server: &Arc<str>,
        handle: ServerRequestHandle,
        request: ServerRequest,
    ) -> Option<Input>;
}

/// What the driver must do for the core.
#[derive(Debug)]
pub enum Step {
    /// Perform this IO (spawn, write, terminate, start or abort an HTTP exchange).
    Io(Io),
    /// Run the host's handler for this server request and report its answer as
    /// `Input::ServerAnswer`.
    ServerRequest(ServerRequestHandle, ServerRequest),
}

struct Pending<R> {
    reply: R,
    progress: Option<ProgressFn>,
    /// The outcome follows the progress callbacks still queued (not for a call made from one
    /// of the server's callbacks, which its progress would wait for).
    progress_first: bool,
    trace: RequestTrace,
}

/// One server's driver bookkeeping. See the module docs.
pub struct Dispatch<R, W> {
    name: Arc<str>,
    calls: PendingCalls<Pending<R>>,
    /// With whether each is released after the callbacks routed before `Closed`.
    close_waiters: CloseWaiters<(W, bool)>,
    replies: Outcomes<R>,
    /// Routed for the host's callbacks, not yet handed to the engine's queue.
    routed: VecDeque<Callback<R>>,
    hook: Option<EventHook>,
    view: SharedView,
    /// Listen streams and where their updates go.
    listens: std::collections::BTreeMap<RequestHandle, Arc<Inbox>>,
    /// The host's per-request `_meta` provider.
    meta_provider: Option<MetaProvider>,
    /// The host's input-wait hook.
    input_wait_hook: Option<InputWaitHook>,
    /// The wire trace callback (the connection records only when one is installed).
    wire_trace: Option<WireTrace>,
    /// The server's `tracing` span.
    trace: ServerTrace,
}

impl<R, W> std::fmt::Debug for Dispatch<R, W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dispatch")
            .field("name", &self.name)
            .field("in_flight", &self.calls.len())
            .finish_non_exhaustive()
    }
}

impl<R: Reply, W: Waiter> Dispatch<R, W> {
    /// The bookkeeping of server `name`, keeping `view` current and calling `hook`.
    pub fn new(name: Arc<str>, hook: Option<EventHook>, view: SharedView) -> Self {
        Self {
            trace: ServerTrace::new(&name),
            name,
            calls: PendingCalls::default(),
            close_waiters: CloseWaiters::default(),
            replies: Outcomes::default(),
            routed: VecDeque::new(),
            hook,
            view,
            listens: std::collections::BTreeMap::new(),
            meta_provider: None,
            input_wait_hook: None,
            wire_trace: None,
        }
    }

    /// Installs the wire trace callback (see [`WireTrace`]); the server's connection must be
    /// set up with [`ConnectionConfig::wire_trace`](mcpwire_core::ConnectionConfig::wire_trace)
    /// for it to see anything.
    pub fn set_wire_trace(&mut self, trace: Option<WireTrace>) {
        self.wire_trace = trace;
    }

    /// Installs the host's input-wait hook (see [`InputWaitHook`]).
    pub fn set_input_wait_hook(&mut self, hook: Option<InputWaitHook>) {
        self.input_wait_hook = hook;
    }

    /// Installs the host's per-request `_meta` provider (see [`MetaProvider`]); the engine
    /// evaluates it on the caller's thread, before it takes its lock.
    pub fn set_meta_provider(&mut self, provider: Option<MetaProvider>) {
        self.meta_provider = provider;
    }

    /// The `_meta` provider, for the engine's callers.
    pub(crate) fn request_meta(&self) -> Option<RequestMeta> {
        let provider = self.meta_provider.clone()?;
        Some(RequestMeta { server: self.name.clone(), provider })
    }

    /// The queue the host's callbacks of this server run from (the engine keeps it).
    pub(crate) fn callbacks(&self) -> Callbacks<R> {
        Callbacks::new(self.name.clone(), self.hook.clone(), self.input_wait_hook.clone())
            .with_wire_trace(self.wire_trace.clone())
    }

    /// Moves what was routed for the host's callbacks to `queue`; `true` if there was any.
    pub(crate) fn queue_callbacks(&mut self, queue: &Callbacks<R>) -> bool {
        if self.routed.is_empty() {
            return false;
        }
        queue.push(&mut self.routed);
        true
    }

    /// The server's name.
    pub fn name(&self) -> &Arc<str> {
        &self.name
    }

    /// Issues a request for API call `call` (its `_meta` provider already evaluated); a
    /// refused one is answered at once. With `progress_first`, its outcome follows the
    /// progress callbacks still queued when it ends.
    #[allow(clippy::too_many_arguments)]
    pub fn request(
        &mut self,
        conn: &mut Connection,
        now: Instant,
        call: u64,
        request: Request,
        opts: RequestOptions,
        reply: R,
        progress: Option<ProgressFn>,
        progress_first: bool,
    ) {
        let trace = self.trace.request(&request, call, conn);
        let pending = Pending { reply, progress, progress_first, trace };
        if let Err((p, e)) = self.calls.start(conn, now, call, request, opts, pending) {
            p.reply.deliver(Err(e));
        }
    }

    /// Cancels API call `call` if it is still in flight; its outcome (`Cancelled`) is delivered
    /// like any other.
    pub fn cancel(&mut self, conn: &mut Connection, now: Instant, call: u64) {
        if let Some(handle) = self.calls.handle_of(call) {
            conn.cancel(now, handle);
        }
    }

    /// Opens a listen stream (a [`Request::Listen`], its `_meta` provider already evaluated)
    /// whose updates and end go to `inbox`.
    pub fn listen(
        &mut self,
        conn: &mut Connection,
        now: Instant,
        request: Request,
        opts: RequestOptions,
        inbox: Arc<Inbox>,
    ) -> Result<RequestHandle, ClientError> {
        let handle = conn.request(now, request, opts).map_err(ClientError::from)?;
        self.listens.insert(handle, inbox);
        Ok(handle)
    }

    /// Closes listen stream `handle` if it is still open.
    pub fn close_listen(&mut self, conn: &mut Connection, now: Instant, handle: RequestHandle) {
        if self.listens.remove(&handle).is_some() {
            conn.cancel(now, handle);
        }
    }

    /// Closes the connection for `waiter` (released at once if it is closed already). With
    /// `after_callbacks`, it is released once the host's callbacks routed up to `Closed`
    /// (that one included) have run; without, as soon as `Closed` is routed (for a `close`
    /// from one of the server's callbacks, which the rest wait for).
    pub fn close(&mut self, conn: &mut Connection, now: Instant, waiter: W, after_callbacks: bool) {
        if let Some((w, _)) = self.close_waiters.close(conn, now, (waiter, after_callbacks)) {
            w.release();
        }
    }

    /// The next thing the driver must do, routing events on the way; `None` once the core has
    /// nothing more. The outcomes routed meanwhile wait in [`Dispatch::take_outcomes`].
    pub fn next(&mut self, conn: &mut Connection) -> Option<Step> {
        self.take_wire(conn);
        while let Some(out) = conn.poll_output() {
            match out {
                Output::Io(io) => return Some(Step::Io(io)),
                Output::Event(ev) => {
                    if let Some(step) = self.route(ev, conn) {
                        return Some(step);
                    }
                }
            }
        }
        None
    }

    /// Moves the connection's wire records to the callback queue, stamped with the wall clock.
    fn take_wire(&mut self, conn: &mut Connection) {
        if self.wire_trace.is_none() {
            return;
        }
        let mut at = None;
        while let Some(record) = conn.poll_wire() {
            let at = *at.get_or_insert_with(std::time::SystemTime::now);
            self.routed.push_back(Callback::Wire(at, record));
        }
    }

    /// The outcomes routed since the last call, with where each goes: deliver them once the
    /// drain is complete (and, for a shared engine, after its lock is released).
    pub fn take_outcomes(&mut self) -> Outcomes<R> {
        std::mem::take(&mut self.replies)
    }

    /// Drains `conn` completely: IO and handlers through `io`, events routed; the outcomes
    /// wait in [`Dispatch::take_outcomes`], the host's callbacks in the engine's queue.
    pub fn drain_deferred(&mut self, conn: &mut Connection, io: &mut impl Perform) {
        while let Some(step) = self.next(conn) {
            let input = match step {
                Step::Io(action) => io.perform(action),
                Step::ServerRequest(handle, request) => io.start_handler(&self.name, handle, request),
            };
            if let Some(input) = input {
                conn.handle_input(io.now(), input);
            }
        }
    }

    fn route(&mut self, ev: Event, conn: &Connection) -> Option<Step> {
        lock(&self.view).observe(&ev, conn);
        self.trace.event(&ev);
        match ev {
            Event::Response { handle, result } => {
                if let Some(inbox) = self.listens.remove(&handle) {
                    inbox.end(result.map_err(ClientError::from));
                    return None;
                }
                if let Some(p) = self.calls.take(handle) {
                    let outcome = result.map_err(ClientError::from);
                    p.trace.finish(outcome.as_ref());
                    match p.progress {
                        // Its progress is still queued (or running): the outcome follows it.
                        Some(f) if p.progress_first && Arc::strong_count(&f) > 1 => {
                            self.routed.push_back(Callback::Outcome(p.reply, outcome));
                        }
                        _ => self.replies.push(p.reply, outcome),
                    }
                }
                None
            }
            Event::Progress { handle, progress } => {
                if let Some(Pending { progress: Some(f), .. }) = self.calls.get(handle) {
                    self.routed.push_back(Callback::Progress(f.clone(), progress));
                }
                None
            }
            Event::Subscription { handle, update } => {
                let hooked = self.hook.is_some();
                let update = match self.listens.get(&handle) {
                    Some(inbox) if hooked => {
                        inbox.update(update.clone());
                        update
                    }
                    Some(inbox) => {
                        inbox.update(update);
                        return None;
                    }
                    None if hooked => update,
                    None => return None,
                };
                // The hook sees a stream's notifications as notifications, like any other.
                let ev = match update {
                    SubscriptionUpdate::Notification(n) => Event::Notification(n),
                    update => Event::Subscription { handle, update },
                };
                self.routed.push_back(Callback::Event(ev));
                None
            }
            Event::InputWait(wait) => {
                if self.hook.is_some() || self.input_wait_hook.is_some() {
                    self.routed.push_back(Callback::Event(Event::InputWait(wait)));
                }
                None
            }
            ev => {
                let hooked = self.hook.is_some();
                let closed = matches!(ev, Event::Closed);
                let step = match ev {
                    Event::ServerRequest { handle, request } if !hooked => {
                        return Some(Step::ServerRequest(handle, request));
                    }
                    Event::ServerRequest { handle, ref request } => {
                        Some(Step::ServerRequest(handle, request.clone()))
                    }
                    _ => None,
                };
                if hooked {
                    self.routed.push_back(Callback::Event(ev));
                }
                if closed {
                    for (w, after_callbacks) in self.close_waiters.release() {
                        match after_callbacks {
                            true => self.routed.push_back(Callback::Then(Box::new(move || w.release()))),
                            false => w.release(),
                        }
                    }
                }
                step
            }
        }
    }
}

/// Locks, ignoring poisoning (the data is plain state, valid after any panic).
pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first outcome stays inline; the rest follow in the order they were routed.
    #[test]
    fn outcomes_keep_their_order() {
        let mut outcomes = Outcomes::default();
        assert_eq!(outcomes.into_iter().count(), 0);
        outcomes = Outcomes::default();
        outcomes.push(1, Ok(Response::Pong));
        assert!(outcomes.more.is_empty(), "one outcome allocates nothing");
        outcomes.push(2, Ok(Response::Empty));
        outcomes.push(3, Err(ClientError::Closed));
        assert_eq!(format!("{outcomes:?}"), "Outcomes { count: 3 }");
        let routed: Vec<(i32, Outcome)> = outcomes.into_iter().collect();
        assert_eq!(
            routed,
            vec![(1, Ok(Response::Pong)), (2, Ok(Response::Empty)), (3, Err(ClientError::Closed))]
        );
    }
}
