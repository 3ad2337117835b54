//! [`Server`]: the blocking API of one server of a client, and [`CancelToken`].

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};

use mcp_core::types::Tool;
use mcp_core::{ClientError, Request, RequestError, RequestOptions, Response, ServerInfo};
use mcp_host::{
    lock, BlockingSubscription as Subscription, CallerScope, ListenOptions, Outcome, ProgressFn,
    ResourceSubscriptions, SharedView, SubscriptionCore,
};

use crate::caller_io::CallerIo;
use crate::driver::EngineRef;
use crate::reply::slot;

/// One server of a [`crate::Client`]. Cheap to clone; every clone talks to the same engine,
/// and the server shuts down when the last clone (with its client) is dropped.
///
/// Every method blocks the calling thread until the outcome is known. A call cannot be
/// abandoned half-way: bound it with [`RequestOptions::timeout`] or cancel it from another
/// thread through a [`CancelToken`] ([`Server::request_with_cancel`]).
#[derive(Clone)]
pub struct Server {
    inner: Arc<Inner>,
}

struct Inner {
    name: Arc<str>,
    engine: EngineRef,
    shared: SharedView,
    calls: AtomicU64,
    resources: ResourceSubscriptions,
}

impl Drop for Inner {
    fn drop(&mut self) {
        // Never waits for the engine's lock (the last handle may go inside a callback).
        self.engine.release();
    }
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server").field("name", &self.inner.name).finish_non_exhaustive()
    }
}

/// Cancels blocking calls from another thread (or from a progress callback). Cancelling ends
/// every call made with the token, now and later, with [`RequestError::Cancelled`]; the server
/// gets `notifications/cancelled` for requests it had received. Cheap to clone.
#[derive(Clone, Default)]
pub struct CancelToken {
    state: Arc<Mutex<TokenState>>,
}

#[derive(Default)]
struct TokenState {
    cancelled: bool,
    next_watch: u64,
    /// Watched calls by watch number: (call number on its server, that server's engine).
    calls: BTreeMap<u64, (u64, EngineRef)>,
}

impl std::fmt::Debug for CancelToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CancelToken").field("cancelled", &self.is_cancelled()).finish()
    }
}

impl CancelToken {
    /// A token not cancelled yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Cancels every call made with this token. Idempotent; never blocks.
    pub fn cancel(&self) {
        let calls = {
            let mut state = lock(&self.state);
            state.cancelled = true;
            std::mem::take(&mut state.calls)
        };
        for (call, engine) in calls.into_values() {
            engine.cancel(call);
        }
    }

    /// True once [`CancelToken::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        lock(&self.state).cancelled
    }

    /// Watches a call that was already issued (so a cancel can never overtake it). Returns
    /// the watch number for [`CancelToken::unwatch`].
    fn watch(&self, call: u64, engine: &EngineRef) -> Option<u64> {
        let mut state = lock(&self.state);
        if state.cancelled {
            drop(state);
            engine.cancel(call);
            return None;
        }
        state.next_watch += 1;
        let watch = state.next_watch;
        state.calls.insert(watch, (call, engine.clone()));
        Some(watch)
    }

    fn unwatch(&self, watch: u64) {
        lock(&self.state).calls.remove(&watch);
    }
}

impl Server {
    pub(crate) fn new(name: Arc<str>, engine: EngineRef, shared: SharedView) -> Self {
        let resources = ResourceSubscriptions::default();
        Self { inner: Arc::new(Inner { name, engine, shared, calls: AtomicU64::new(1), resources }) }
    }

    /// The server's name in the client.
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// What is known about the server while it is connected.
    pub fn info(&self) -> Option<ServerInfo> {
        lock(&self.inner.shared).info.clone()
    }

    /// The tools of the last complete listing, unless invalidated since.
    pub fn known_tools(&self) -> Option<Vec<Tool>> {
        lock(&self.inner.shared).tools.clone()
    }

    fn call(
        &self,
        request: Request,
        opts: RequestOptions,
        progress: Option<ProgressFn>,
        cancel: Option<&CancelToken>,
    ) -> Outcome {
        if cancel.is_some_and(CancelToken::is_cancelled) {
            return Err(RequestError::Cancelled.into());
        }
        let call = self.inner.calls.fetch_add(1, Ordering::Relaxed);
        let (reply, slot) = slot();
        // The request reaches the core (and a stdio server's stdin) on this thread, and so
        // does the HTTP exchange that carries it, once the engine is unlocked; a stdio reply
        // is read on this thread too.
        let engine = &self.inner.engine;
        let scope = CallerScope::enter(CallerIo::unclaimed);
        engine.request(call, request, opts, reply, progress);
        let watch = cancel.and_then(|token| token.watch(call, engine));
        let outcome = match scope.take() {
            Some(CallerIo::Exchange(exchange)) => {
                exchange.run_here();
                slot.wait()
            }
            #[cfg(unix)]
            Some(CallerIo::Stdout(stdout)) => stdout.wait_for(&slot),
            None => slot.wait(),
        };
        if let (Some(token), Some(watch)) = (cancel, watch) {
            token.unwatch(watch);
        }
        outcome
    }

    /// Like [`Server::request`], ending early with [`RequestError::Cancelled`] when `token`
    /// is cancelled (from another thread or a progress callback).
    pub fn request_with_cancel(
        &self,
        request: Request,
        opts: RequestOptions,
        token: &CancelToken,
    ) -> Result<Response, ClientError> {
        self.call(request, opts, None, Some(token))
    }

    /// Issues a request through the engine and blocks until its outcome (the primitive the
    /// methods of [`mcp_host::server_methods!`] stand on).
    fn issue(&self, request: Request, opts: RequestOptions, progress: Option<ProgressFn>) -> Outcome {
        self.call(request, opts, progress, None)
    }

    /// Opens a listen stream (the primitive of [`mcp_host::listen_methods!`]); `host_reads`:
    /// its notifications are kept for the handle, which keeps the server open.
    fn open_listen(
        &self,
        request: Request,
        opts: ListenOptions,
        host_reads: bool,
    ) -> Result<SubscriptionCore, ClientError> {
        let keep = host_reads.then(|| self.inner.clone() as Arc<dyn std::any::Any + Send + Sync>);
        mcp_host::open_listen(&self.inner.engine, keep, request, opts)
    }

    /// Runs `f` on the server's connection (the primitive of the methods of
    /// [`mcp_host::server_methods!`] that answer at once).
    fn inspect(&self, f: &mut dyn FnMut(&mut mcp_core::Connection, std::time::Instant)) {
        self.inner.engine.inspect(f)
    }

    fn resource_subscriptions(&self) -> &ResourceSubscriptions {
        &self.inner.resources
    }

    mcp_host::server_methods!();
    mcp_host::listen_methods!();
    mcp_host::task_methods!();

    /// Shuts the server down (stdin closed, then terminate, then kill) and blocks until done.
    /// Later requests fail with a "closed" error.
    pub fn close(&self) {
        let (done, wait) = mpsc::sync_channel(1);
        self.inner.engine.close(done);
        let _ = wait.recv();
    }
}
