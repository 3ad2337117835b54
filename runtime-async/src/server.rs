//! [`Server`]: the async API of one server of a client.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use futures_lite::future;
use mcp_core::types::Tool;
use mcp_core::{Request, RequestOptions, ServerInfo};
use mcp_host::{
    lock, AsyncSubscription as Subscription, CallerScope, ListenOptions, Outcome, ProgressFn, ReleaseOnDrop,
    ResourceSubscriptions, SharedView, SubscriptionCore,
};

use crate::caller_io::CallerIo;
use crate::driver::{CloseTo, EngineRef};
use crate::reply::{slot, OutcomeFuture, ReplyTo};

/// One server of a [`crate::Client`]. Cheap to clone; every clone talks to the same engine,
/// which closes the server when the last clone (and the last request in flight) is gone.
/// Dropping a request future before it completes cancels the request.
#[derive(Clone)]
pub struct Server {
    name: Arc<str>,
    engine: EngineRef,
    handles: Arc<ReleaseOnDrop<ReplyTo, CloseTo>>,
    shared: SharedView,
    calls: Arc<AtomicU64>,
    resources: Arc<ResourceSubscriptions>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server").field("name", &self.name).finish_non_exhaustive()
    }
}

/// A request on its way: awaiting it yields the outcome; dropping it cancels the request.
struct Call {
    call: u64,
    /// Keeps the server open while the request is in flight.
    handles: Arc<ReleaseOnDrop<ReplyTo, CloseTo>>,
    outcome: OutcomeFuture,
    /// The IO carrying the request or its reply, polled by this call until it ends.
    io: Option<CallerIo>,
    done: bool,
}

impl Call {
    async fn outcome(mut self) -> Outcome {
        let outcome = future::poll_fn(|cx| {
            if let Some(io) = &mut self.io {
                // The outcome is looked at right after the IO: a delivery by it wakes no one.
                self.outcome.polling_now();
                if io.poll(cx).is_ready() {
                    self.io = None;
                }
            }
            Pin::new(&mut self.outcome).poll(cx)
        })
        .await;
        self.done = true;
        outcome
    }
}

impl Drop for Call {
    fn drop(&mut self) {
        if !self.done {
            self.handles.0.cancel(self.call);
        }
        // The rest of a stream that outlived the outcome, or of a dropped call's exchange
        // (which the cancel aborts), goes to the runtime; a stdout goes back to its reader task.
        if let Some(io) = self.io.take() {
            io.stop();
        }
    }
}

impl Server {
    pub(crate) fn new(name: Arc<str>, engine: EngineRef, shared: SharedView) -> Self {
        let handles = Arc::new(ReleaseOnDrop(engine.clone()));
        let resources = Arc::default();
        Self { name, engine, handles, shared, calls: Arc::new(AtomicU64::new(1)), resources }
    }

    /// The server's name in the client.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What is known about the server while it is connected.
    pub fn info(&self) -> Option<ServerInfo> {
        lock(&self.shared).info.clone()
    }

    /// The tools of the last complete listing, unless invalidated since.
    pub fn known_tools(&self) -> Option<Vec<Tool>> {
        lock(&self.shared).tools.clone()
    }

    fn start(&self, request: Request, opts: RequestOptions, progress: Option<ProgressFn>) -> Call {
        let call = self.calls.fetch_add(1, Ordering::Relaxed);
        let (reply, outcome) = slot();
        // The request reaches the core (and a stdio server's stdin) on this thread, and the
        // HTTP exchange carrying it is polled by this call; a finished engine drops `reply`,
        // and the outcome is then `Closed`.
        let scope = CallerScope::enter(CallerIo::unclaimed);
        self.engine.request(call, request, opts, reply, progress);
        let io = scope.take();
        Call { call, handles: self.handles.clone(), outcome, io, done: false }
    }

    /// Issues a request through the engine and waits for its outcome (the primitive the
    /// methods of [`mcp_host::server_methods!`] stand on).
    async fn issue(&self, request: Request, opts: RequestOptions, progress: Option<ProgressFn>) -> Outcome {
        self.start(request, opts, progress).outcome().await
    }

    /// Opens a listen stream (the primitive of [`mcp_host::listen_methods!`]); `host_reads`:
    /// its notifications are kept for the handle, which keeps the server open.
    fn open_listen(
        &self,
        request: Request,
        opts: ListenOptions,
        host_reads: bool,
    ) -> Result<SubscriptionCore, mcp_core::ClientError> {
        let keep = host_reads.then(|| self.handles.clone() as Arc<dyn std::any::Any + Send + Sync>);
        mcp_host::open_listen(&self.engine, keep, request, opts)
    }

    /// Runs `f` on the server's connection (the primitive of the methods of
    /// [`mcp_host::server_methods!`] that answer at once).
    fn inspect(&self, f: &mut dyn FnMut(&mut mcp_core::Connection, std::time::Instant)) {
        self.engine.inspect(f)
    }

    fn resource_subscriptions(&self) -> &ResourceSubscriptions {
        &self.resources
    }

    mcp_host::server_methods!(async await);
    mcp_host::listen_methods!(async await);
    mcp_host::task_methods!(async await);

    /// Shuts the server down (stdin closed, then terminate, then kill) and waits until done.
    pub async fn close(&self) {
        let (done, wait) = async_channel::bounded(1);
        self.engine.close(CloseTo(done));
        let _ = wait.recv().await;
    }
}
