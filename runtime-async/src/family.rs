//! [`Async`]: the async family of the client API on runtime `R` — how a request is issued
//! and awaited ([`AsyncAnswer`]: the reply slot, plus the caller's own IO), how servers are
//! asked side by side (polled in the caller's future), closed and started.

use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

use mcpwire_core::{ClientError, Connection, Request, RequestOptions};
use mcpwire_host::{
    AsyncSubscription, Awaiting, BuilderParts, CallerScope, CancelToken, Family, FamilyHandler,
    HasRuntimeOptions, ListenOptions, Outcome, Prepared, ProgressFn, StartedServer, SubscriptionCore,
};

use crate::caller_io::CallerIo;
#[cfg(feature = "http")]
use crate::http::{Connector, HttpClient};
use crate::io_side::{self, CloseTo, EngineRef};
use crate::reply::{slot, OutcomeFuture};
use crate::runtime::Runtime;

/// The async client family on runtime `R` (`mcpwire_tokio::TokioRuntime`, `mcpwire_smol::SmolRuntime`):
/// requests are awaited, handlers return futures, background work runs on `R`.
#[derive(Debug)]
pub struct Async<R>(PhantomData<fn() -> R>);

/// How an async client runs: on which runtime, and how it opens TCP connections
/// ([`ClientBuilder::runtime_options`](mcpwire_host::ClientBuilder::runtime_options)).
pub struct AsyncOptions<R> {
    runtime: Option<R>,
    #[cfg(feature = "http")]
    connector: Option<Arc<dyn Connector>>,
}

impl<R> Default for AsyncOptions<R> {
    fn default() -> Self {
        Self {
            runtime: None,
            #[cfg(feature = "http")]
            connector: None,
        }
    }
}

impl<R: std::fmt::Debug> std::fmt::Debug for AsyncOptions<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut d = f.debug_struct("AsyncOptions");
        d.field("runtime", &self.runtime);
        #[cfg(feature = "http")]
        d.field("connector", &self.connector.as_ref().map(|_| "installed"));
        d.finish()
    }
}

impl<R> AsyncOptions<R> {
    /// The defaults: the runtime `build` is called on (see [`Runtime::current`]), plain TCP.
    pub fn new() -> Self {
        Self::default()
    }

    /// Runs the client's background tasks on `runtime` instead of the current one.
    pub fn runtime(mut self, runtime: R) -> Self {
        self.runtime = Some(runtime);
        self
    }

    /// Replaces how TCP streams to HTTP servers (and proxies) are opened: custom DNS, Unix
    /// sockets, an in-process transport for tests... TLS and proxy tunnels are layered on top.
    #[cfg(feature = "http")]
    pub fn connector(mut self, connector: Arc<dyn Connector>) -> Self {
        self.connector = Some(connector);
        self
    }
}

/// A server's link to its engine; the last one releases the engine, which closes the server.
pub struct AsyncLink {
    engine: EngineRef,
}

impl std::fmt::Debug for AsyncLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AsyncLink")
    }
}

impl Drop for AsyncLink {
    fn drop(&mut self) {
        // Never waits for the engine's lock (the last handle may go inside a callback).
        self.engine.release();
    }
}

/// A request on its way: completes with its outcome; dropped before that, it cancels the
/// request.
pub struct AsyncAnswer<'a> {
    link: &'a AsyncLink,
    call: u64,
    outcome: OutcomeFuture,
    /// The IO carrying the request or its reply, polled by this call until it ends.
    io: Option<CallerIo>,
    /// The cancel token watching the call, and its watch number.
    watch: Option<(CancelToken, u64)>,
    done: bool,
}

impl std::fmt::Debug for AsyncAnswer<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AsyncAnswer").field("call", &self.call).field("done", &self.done).finish()
    }
}

impl Future for AsyncAnswer<'_> {
    type Output = Outcome;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Outcome> {
        let this = self.get_mut();
        if let Some(io) = &mut this.io {
            // The outcome is looked at right after the IO: a delivery by it wakes no one.
            this.outcome.polling_now();
            if io.poll(cx).is_ready() {
                this.io = None;
            }
        }
        let outcome = Pin::new(&mut this.outcome).poll(cx);
        if outcome.is_ready() {
            this.done = true;
            if let Some((token, watch)) = this.watch.take() {
                token.unwatch(watch);
            }
        }
        outcome
    }
}

impl Drop for AsyncAnswer<'_> {
    fn drop(&mut self) {
        if !self.done {
            self.link.engine.cancel(self.call);
        }
        if let Some((token, watch)) = self.watch.take() {
            token.unwatch(watch);
        }
        // The rest of a stream that outlived the outcome, or of a dropped call's exchange
        // (which the cancel aborts), goes to the runtime; a stdout goes back to its reader task.
        if let Some(io) = self.io.take() {
            io.stop();
        }
    }
}

/// Async clients take [`AsyncOptions`]: the runtime, the TCP connector (feature `http`).
impl<R: Runtime> HasRuntimeOptions for Async<R> {}

impl<R: Runtime> Family for Async<R> {
    type Style = Awaiting;
    type Link = AsyncLink;
    type Answer<'a> = AsyncAnswer<'a>;
    type Subscription = AsyncSubscription;
    type Options = AsyncOptions<R>;

    fn issue<'a>(
        link: &'a AsyncLink,
        call: u64,
        request: Request,
        opts: RequestOptions,
        progress: Option<ProgressFn>,
        cancel: Option<&CancelToken>,
    ) -> AsyncAnswer<'a> {
        let (reply, outcome) = slot();
        // The request reaches the core (and a stdio server's stdin) on this thread, and the
        // HTTP exchange carrying it is polled by this call; a finished engine drops `reply`,
        // and the outcome is then `Closed`.
        let scope = CallerScope::enter(CallerIo::unclaimed);
        link.engine.request(call, request, opts, reply, progress);
        let io = scope.take();
        let watch = cancel.and_then(|token| {
            let engine = link.engine.clone();
            token.watch(Box::new(move || engine.cancel(call))).map(|watch| (token.clone(), watch))
        });
        AsyncAnswer { link, call, outcome, io, watch, done: false }
    }

    fn inspect(link: &AsyncLink, f: &mut dyn FnMut(&mut Connection, Instant)) {
        link.engine.inspect(f)
    }

    fn open_listen(
        link: &AsyncLink,
        keep: Option<Arc<dyn std::any::Any + Send + Sync>>,
        request: Request,
        opts: ListenOptions,
    ) -> Result<SubscriptionCore, ClientError> {
        mcpwire_host::open_listen(&link.engine, keep, request, opts)
    }

    fn subscription(core: SubscriptionCore) -> AsyncSubscription {
        AsyncSubscription::new(core)
    }

    async fn close(link: &AsyncLink) {
        let (done, wait) = async_channel::bounded(1);
        link.engine.close(CloseTo(done));
        let _ = wait.recv().await;
    }

    /// Polls at most `limit` of the futures at once inside the caller's future (no task is
    /// spawned).
    fn fan_out<'a, Fut>(jobs: Vec<Fut>, limit: usize) -> impl Future<Output = Vec<Fut::Output>> + Send + 'a
    where
        Fut: Future + Send + 'a,
        Fut::Output: Send + 'a,
    {
        mcpwire_host::JoinBounded::new(jobs, limit)
    }

    /// Starts one engine (and its timer task) per server on the runtime.
    fn start(
        parts: BuilderParts<FamilyHandler<Self>>,
        options: AsyncOptions<R>,
    ) -> Result<Vec<StartedServer<AsyncLink>>, ClientError> {
        let rt = match options.runtime {
            Some(rt) => rt,
            None => R::current().map_err(ClientError::Config)?,
        };
        #[cfg(not(feature = "http"))]
        mcpwire_host::refuse_http_servers(&parts.specs, "mcpwire-tokio or mcpwire-smol (mcpwire-async)")?;
        let prepared: Prepared<_, _, _> = parts.prepare(rt.now())?;
        let shared = io_side::Shared {
            handlers: prepared.handlers,
            #[cfg(feature = "http")]
            http: Arc::new(HttpClient::new(&prepared.http, options.connector).map_err(ClientError::Config)?),
        };
        Ok(prepared
            .servers
            .into_iter()
            .map(|start| {
                let engine = io_side::start(rt.clone(), start.conn, start.dispatch, shared.clone());
                StartedServer { name: start.name, view: start.view, link: AsyncLink { engine } }
            })
            .collect())
    }
}
