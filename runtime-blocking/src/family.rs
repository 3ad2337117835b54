//! [`Blocking`]: the blocking family of the client API — a request is issued and waited for
//! on the caller's thread (which also runs its HTTP exchange or reads its stdio reply), several
//! servers are asked on scoped threads, and handlers run on threads of their own.

use std::future::{Future, Ready};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::Instant;

use mcpwire_core::{ClientError, Connection, Request, RequestError, RequestOptions};
use mcpwire_host::{
    block_on, BlockingSubscription, BuilderParts, CallerScope, CancelToken, Family, FamilyHandler,
    ListenOptions, Outcome, Prepared, ProgressFn, Returning, StartedServer, SubscriptionCore,
};

use crate::caller_io::CallerIo;
use crate::io_side::{self, EngineRef};
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

impl Family for Blocking {
    type Style = Returning;
    type Link = BlockingLink;
    type Answer<'a> = Ready<Outcome>;
    type Subscription = BlockingSubscription;
    type Options = ();

    /// Issues the request and blocks until its outcome, right here (the shared code calls
    /// this only where it waits for the answer: in `send`, or in a job of a client-wide
    /// request once a worker thread runs it). The request reaches the core (and a stdio
    /// server's stdin) on this thread, and so does the HTTP exchange that carries it, once the
    /// engine is unlocked; a stdio reply is read on this thread too.
    fn issue(
        link: &BlockingLink,
        call: u64,
        request: Request,
        opts: RequestOptions,
        progress: Option<ProgressFn>,
        cancel: Option<&CancelToken>,
    ) -> Ready<Outcome> {
        if cancel.is_some_and(CancelToken::is_cancelled) {
            return std::future::ready(Err(RequestError::Cancelled.into()));
        }
        let engine = &link.engine;
        let (reply, slot) = slot();
        let scope = CallerScope::enter(CallerIo::unclaimed);
        engine.request(call, request, opts, reply, progress);
        let watch = cancel.and_then(|token| {
            let engine = engine.clone();
            token.watch(Box::new(move || engine.cancel(call)))
        });
        let outcome = match scope.take() {
            #[cfg(feature = "http")]
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
        std::future::ready(outcome)
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
        mcpwire_host::open_listen(&link.engine, keep, request, opts)
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
        std::future::ready(mcpwire_host::run_bounded(jobs, limit))
    }

    /// Starts one engine (and its timer thread) per server.
    fn start(
        parts: BuilderParts<FamilyHandler<Self>>,
        _options: (),
    ) -> Result<Vec<StartedServer<BlockingLink>>, ClientError> {
        #[cfg(not(feature = "http"))]
        mcpwire_host::refuse_http_servers(&parts.specs, "mcpwire-blocking")?;
        let prepared: Prepared<_, _, _> = parts.prepare(Instant::now())?;
        let shared = io_side::Shared {
            handlers: prepared.handlers,
            #[cfg(feature = "http")]
            http: crate::http::HttpClient::new(&prepared.http)?,
        };
        let mut servers = Vec::with_capacity(prepared.servers.len());
        for start in prepared.servers {
            let engine = io_side::start(start.conn, start.dispatch, shared.clone())
                .map_err(|e| ClientError::Config(format!("could not start a timer thread: {e}")))?;
            servers.push(StartedServer { name: start.name, view: start.view, link: BlockingLink { engine } });
        }
        Ok(servers)
    }
}
