//! One server on an async runtime: its [`Engine`] (fed directly by API handles, IO tasks and
//! handler tasks), the IO side that performs the core's IO, and the timer task.

use std::collections::BTreeMap;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Weak};
use std::time::Instant;

use async_channel::{Receiver, Sender};
use futures_lite::{future, FutureExt};
use mcpwire_core::{Connection, Epoch, Input, Io, ServerRequest, ServerRequestHandle};
use mcpwire_host::{answer, Awaiting, Dispatch, Engine, Feed, Perform, Side, TimerStep, Waiter};
use mcpwire_host::{apply_process_io, OtherIo, SpawnRequest};

/// The handlers of an async client.
type Handlers = mcpwire_host::Handlers<Awaiting>;

#[cfg(feature = "http")]
use crate::http::{Exchanges, HttpClient, Spawner};
use crate::process::ProcessIo;
use crate::reply::ReplyTo;
use crate::runtime::Runtime;

/// A `close` caller.
pub(crate) struct CloseTo(pub(crate) Sender<()>);

impl Waiter for CloseTo {
    fn release(self) {
        let _ = self.0.try_send(());
    }
}

/// The engine of one server on runtime `R`.
type AsyncEngine<R> = Engine<ReplyTo, CloseTo, IoSide<R>>;

/// What API handles hold: the engine, whatever the runtime.
pub(crate) type EngineRef = Arc<dyn mcpwire_host::EngineApi<ReplyTo, CloseTo>>;

/// What the engine does for the core: processes, HTTP exchanges, handler tasks.
pub(crate) struct IoSide<R: Runtime> {
    rt: R,
    /// The engine itself, for the tasks this side starts (weak: the engine owns this side).
    feed: Weak<dyn Feed>,
    /// Wakes the timer task (one token is enough).
    timer: Sender<()>,
    procs: BTreeMap<Epoch, ProcessIo>,
    #[cfg(feature = "http")]
    http: Arc<HttpClient>,
    #[cfg(feature = "http")]
    exchanges: Exchanges,
    /// Spawns on `rt`, for exchanges no caller runs.
    #[cfg(feature = "http")]
    spawner: Spawner,
    handlers: Arc<Handlers>,
}

/// What every server of a client shares: the handlers and the HTTP client.
#[derive(Clone)]
pub(crate) struct Shared {
    pub(crate) handlers: Arc<Handlers>,
    #[cfg(feature = "http")]
    pub(crate) http: Arc<HttpClient>,
}

/// Starts one server's engine and its timer task on `rt`.
pub(crate) fn start<R: Runtime>(
    rt: R,
    conn: Connection,
    dispatch: Dispatch<ReplyTo, CloseTo>,
    shared: Shared,
) -> EngineRef {
    let (timer, wake) = async_channel::bounded(1);
    let engine = Arc::new_cyclic(|weak: &Weak<AsyncEngine<R>>| {
        let feed: Weak<dyn Feed> = weak.clone();
        let side = IoSide {
            rt: rt.clone(),
            feed,
            timer,
            procs: BTreeMap::new(),
            #[cfg(feature = "http")]
            http: shared.http,
            #[cfg(feature = "http")]
            exchanges: Exchanges::default(),
            #[cfg(feature = "http")]
            spawner: {
                let rt = rt.clone();
                Arc::new(move |future| rt.spawn(future))
            },
            handlers: shared.handlers,
        };
        Engine::new(conn, dispatch, side)
    });
    rt.spawn(Box::pin(run_timer(engine.clone(), rt.clone(), wake)));
    engine
}

/// The timer task: handles the core's deadline, sleeping in between; ends with the engine.
async fn run_timer<R: Runtime>(engine: Arc<AsyncEngine<R>>, rt: R, wake: Receiver<()>) {
    loop {
        let at = match engine.timer() {
            TimerStep::Finished => return,
            TimerStep::Sleep(at) => at,
        };
        let sleep = async {
            match at {
                Some(at) => rt.sleep_until(at).await,
                None => future::pending().await,
            }
        };
        let woken = async {
            // The sender lives in the engine, which this task keeps alive.
            let _ = wake.recv().await;
        };
        sleep.or(woken).await;
    }
}

impl<R: Runtime> IoSide<R> {
    fn feed(&self) -> Option<Arc<dyn Feed>> {
        self.feed.upgrade()
    }
}

impl<R: Runtime> Side for IoSide<R> {
    fn before_input(&mut self, input: &Input) {
        if let Input::Exited(epoch, _) = input {
            self.procs.remove(epoch);
        }
        #[cfg(feature = "http")]
        self.exchanges.ended(input);
    }

    fn wake_timer(&self) {
        let _ = self.timer.try_send(());
    }
}

impl<R: Runtime> Perform for IoSide<R> {
    fn now(&self) -> Instant {
        self.rt.now()
    }

    fn perform(&mut self, io: Io) -> Option<Input> {
        let (epoch, command) = match apply_process_io(&mut self.procs, io)? {
            OtherIo::Spawn(SpawnRequest { epoch, command }) => (epoch, command),
            #[cfg(feature = "http")]
            OtherIo::HttpStart { exchange, request } => {
                let feed = self.feed()?;
                self.exchanges.start(&self.http, &self.rt, &self.spawner, exchange, request, feed);
                return None;
            }
            #[cfg(feature = "http")]
            OtherIo::HttpAbort(exchange) => {
                self.exchanges.abort(exchange);
                return None;
            }
            // HTTP IO of a host built with `http` while this crate is not: never asked for
            // (`build` refuses servers that are not stdio without the feature).
            _ => return None,
        };
        let Some(feed) = self.feed() else {
            return Some(Input::SpawnFailed(epoch, std::io::Error::other("the client is shutting down")));
        };
        match self.rt.spawn_process(&command) {
            Ok(parts) => {
                let pio = ProcessIo::start(&self.rt, epoch, parts, feed);
                self.procs.insert(epoch, pio);
                Some(Input::Started(epoch))
            }
            Err(e) => Some(Input::SpawnFailed(epoch, e)),
        }
    }

    /// Runs the host handler for a server request as a task of its own.
    fn start_handler(
        &mut self,
        server: &Arc<str>,
        handle: ServerRequestHandle,
        request: ServerRequest,
    ) -> Option<Input> {
        let answer = answer::<Awaiting>(&self.handlers, server, request);
        let feed = self.feed()?;
        self.rt.spawn(Box::pin(async move {
            let outcome = AssertUnwindSafe(answer)
                .catch_unwind()
                .await
                .unwrap_or_else(|_| Err(mcpwire_core::HandlerError::new("the handler panicked")));
            feed.feed(Input::ServerAnswer(handle, outcome));
        }));
        None
    }
}
