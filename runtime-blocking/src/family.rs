//! [`Blocking`]: the blocking family of the client API — a request is issued and waited for
//! on the caller's thread (which also runs its HTTP exchange or reads its stdio reply), several
//! servers are asked on scoped threads, and handlers run on threads of their own.

use std::future::Future;
use std::pin::Pin;
use std::sync::mpsc;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

use mcp_core::{ClientError, Connection, Request, RequestError, RequestOptions};
use mcp_host::{
    block_on, BlockingSubscription, BuilderParts, CallerScope, CancelToken, Family, FamilyHandler,
    ListenOptions, Outcome, Prepared, ProgressFn, Returning, StartedServer, SubscriptionCore,
};

use crate::caller_io::CallerIo;
use crate::driver::{self, EngineRef};
use crate::http::HttpClient;
use crate::reply::slot;

/// The blocking client family: requests are sent with a blocking `.send()`, handlers return
/// their answer on a thread of their own.
#[derive(Debug)]
pub struct Blocking;

/// A server's link to its engine; the last one releases the engine, which closes the server.
pub struct BlockingLink {
    engine: EngineRef,
}

impl std::fmt::Debug for BlockingLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("BlockingLink")
    }
}

impl Drop for BlockingLink {
    fn drop(&mut self) {
        // Never waits for the engine's lock (the last handle may go inside a callback).
        self.engine.release();
    }
}

/// A request not issued yet: it is issued, and waited for, when the answer is first polled
/// (by `.send()`, or by a worker thread of a client-wide request).
pub struct BlockingAnswer<'a> {
    link: &'a BlockingLink,
    call: Option<Issued>,
}

/// What a [`BlockingAnswer`] issues.
struct Issued {
    call: u64,
    request: Request,
    opts: RequestOptions,
    progress: Option<ProgressFn>,
    cancel: Option<CancelToken>,
}

impl std::fmt::Debug for BlockingAnswer<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlockingAnswer").field("issued", &self.call.is_none()).finish()
    }
}

impl Future for BlockingAnswer<'_> {
    type Output = Outcome;

    fn poll(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Outcome> {
        match self.call.take() {
            Some(issued) => Poll::Ready(issued.run(&self.link.engine)),
            None => Poll::Ready(Err(ClientError::Closed)),
        }
    }
}

impl Issued {
    /// Issues the request and blocks until its outcome: the request reaches the core (and a
    /// stdio server's stdin) on this thread, and so does the HTTP exchange that carries it,
    /// once the engine is unlocked; a stdio reply is read on this thread too.
    fn run(self, engine: &EngineRef) -> Outcome {
        let Issued { call, request, opts, progress, cancel } = self;
        if cancel.as_ref().is_some_and(CancelToken::is_cancelled) {
            return Err(RequestError::Cancelled.into());
        }
        let (reply, slot) = slot();
        let scope = CallerScope::enter(CallerIo::unclaimed);
        engine.request(call, request, opts, reply, progress);
        let watch = cancel.as_ref().and_then(|token| {
            let engine = engine.clone();
            token.watch(Box::new(move || engine.cancel(call)))
        });
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
}

impl Family for Blocking {
    type Style = Returning;
    type Link = BlockingLink;
    type Answer<'a> = BlockingAnswer<'a>;
    type Subscription = BlockingSubscription;
    type Options = ();

    fn issue<'a>(
        link: &'a BlockingLink,
        call: u64,
        request: Request,
        opts: RequestOptions,
        progress: Option<ProgressFn>,
        cancel: Option<&CancelToken>,
    ) -> BlockingAnswer<'a> {
        BlockingAnswer { link, call: Some(Issued { call, request, opts, progress, cancel: cancel.cloned() }) }
    }

    fn inspect(link: &BlockingLink, f: &mut dyn FnMut(&mut Connection, Instant)) {
        link.engine.inspect(f)
    }

    fn open_listen(
        link: &BlockingLink,
        keep: Option<Arc<dyn std::any::Any + Send + Sync>>,
        request: Request,
        opts: ListenOptions,
    ) -> Result<SubscriptionCore, ClientError> {
        mcp_host::open_listen(&link.engine, keep, request, opts)
    }

    fn subscription(core: SubscriptionCore) -> BlockingSubscription {
        BlockingSubscription::new(core)
    }

    /// Blocks until the server is closed, when first polled.
    async fn close(link: &BlockingLink) {
        let (done, wait) = mpsc::sync_channel(1);
        link.engine.close(done);
        let _ = wait.recv();
    }

    /// Runs the jobs on at most `limit` threads at once (the calling thread is one; scoped
    /// threads help it), each to completion with [`block_on`].
    fn fan_out<'a, Fut>(jobs: Vec<Fut>, limit: usize) -> impl Future<Output = Vec<Fut::Output>> + Send + 'a
    where
        Fut: Future + Send + 'a,
        Fut::Output: Send + 'a,
    {
        let jobs: Vec<_> = jobs.into_iter().map(|job| move || block_on(job)).collect();
        std::future::ready(mcp_host::run_bounded(jobs, limit))
    }

    /// Starts one engine (and its timer thread) per server.
    fn start(
        parts: BuilderParts<FamilyHandler<Self>>,
        _options: (),
    ) -> Result<Vec<StartedServer<BlockingLink>>, ClientError> {
        let Prepared { servers: starts, handlers, http, .. } = parts.prepare(Instant::now())?;
        let http = HttpClient::new(&http)?;
        let mut servers = Vec::with_capacity(starts.len());
        for start in starts {
            let engine = driver::start(start.conn, start.dispatch, handlers.clone(), http.clone())
                .map_err(|e| ClientError::Config(format!("could not start a timer thread: {e}")))?;
            servers.push(StartedServer { name: start.name, view: start.view, link: BlockingLink { engine } });
        }
        Ok(servers)
    }
}
