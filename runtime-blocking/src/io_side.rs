//! One server in plain threads: its [`Engine`] (fed directly by calling threads, IO threads
//! and handler threads), the IO side that performs the core's IO, and the timer thread that
//! sleeps until the core's next deadline.

use std::collections::BTreeMap;
use std::io;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender};
use std::sync::{Arc, Weak};
use std::thread;
use std::time::Instant;

use mcpwire_core::{Connection, Epoch, Input, Io, ServerRequest, ServerRequestHandle};
#[cfg(feature = "http")]
use mcpwire_core::{ExchangeId, HttpMethod, HttpRequest};
use mcpwire_host::{apply_process_io, OtherIo, SpawnRequest};
use mcpwire_host::{Dispatch, Engine, EngineApi, Feed, Perform, Side, TimerStep};

#[cfg(feature = "http")]
use crate::caller_io::CallerIo;
use mcpwire_host::{answer, Returning};

/// The handlers of a blocking client.
type Handlers = mcpwire_host::Handlers<Returning>;
#[cfg(feature = "http")]
use crate::http::{HttpClient, HttpExchange, PreparedExchange};
use crate::process::ProcessIo;

/// Where a caller's outcome goes.
pub(crate) use crate::reply::ReplyTo;
/// A `close` caller.
pub(crate) type CloseTo = SyncSender<()>;
/// What API handles hold.
pub(crate) type EngineRef = Arc<dyn EngineApi<ReplyTo, CloseTo>>;

type BlockingEngine = Engine<ReplyTo, CloseTo, IoSide>;

/// A thread name for one of a server's threads (a NUL byte would make spawning panic).
pub(crate) fn thread_name(server: &str, what: &str) -> String {
    format!("mcp-{server}-{what}").replace('\0', "?")
}

/// What the engine does for the core: processes, HTTP exchanges, handler threads.
pub(crate) struct IoSide {
    /// The server's name, for thread names.
    name: Arc<str>,
    /// The engine itself, for the threads this side starts (weak: the engine owns this side).
    feed: Weak<dyn Feed>,
    /// Wakes the timer thread (one token is enough).
    timer: SyncSender<()>,
    procs: BTreeMap<Epoch, ProcessIo>,
    /// The client's HTTP machinery (shared by every server of the client).
    #[cfg(feature = "http")]
    http: HttpClient,
    /// Exchanges that have not reported their end (dropping one aborts it).
    #[cfg(feature = "http")]
    exchanges: BTreeMap<ExchangeId, HttpExchange>,
    handlers: Arc<Handlers>,
}

/// What every server of a client shares: the handlers and the HTTP client.
#[derive(Clone)]
pub(crate) struct Shared {
    pub(crate) handlers: Arc<Handlers>,
    #[cfg(feature = "http")]
    pub(crate) http: HttpClient,
}

/// Starts one server's engine and its timer thread.
pub(crate) fn start(
    conn: Connection,
    dispatch: Dispatch<ReplyTo, CloseTo>,
    shared: Shared,
) -> io::Result<EngineRef> {
    let name = dispatch.name().clone();
    let (timer, wake) = mpsc::sync_channel(1);
    let engine = Arc::new_cyclic(|weak: &Weak<BlockingEngine>| {
        let feed: Weak<dyn Feed> = weak.clone();
        let side = IoSide {
            name: name.clone(),
            feed,
            timer,
            procs: BTreeMap::new(),
            #[cfg(feature = "http")]
            http: shared.http,
            #[cfg(feature = "http")]
            exchanges: BTreeMap::new(),
            handlers: shared.handlers,
        };
        Engine::new(conn, dispatch, side)
    });
    let timer_engine = engine.clone();
    thread::Builder::new()
        .name(thread_name(&name, "timer"))
        .spawn(move || run_timer(&timer_engine, &wake))?;
    Ok(engine)
}

/// The timer thread: handles the core's deadline, sleeping in between; ends with the engine.
fn run_timer(engine: &BlockingEngine, wake: &Receiver<()>) {
    loop {
        let woken = match engine.timer() {
            TimerStep::Finished => return,
            TimerStep::Sleep(None) => wake.recv().map_err(|_| RecvTimeoutError::Disconnected),
            TimerStep::Sleep(Some(at)) => match at.checked_duration_since(Instant::now()) {
                Some(wait) if !wait.is_zero() => wake.recv_timeout(wait),
                _ => Ok(()),
            },
        };
        // Unreachable while the engine (which holds the sender) lives; stop rather than spin.
        if let Err(RecvTimeoutError::Disconnected) = woken {
            return;
        }
    }
}

impl IoSide {
    fn feed(&self) -> Option<Arc<dyn Feed>> {
        self.feed.upgrade()
    }

    /// Starts an HTTP exchange whose reports feed the engine: on the calling thread when a
    /// caller issuing its request takes it ([`mcpwire_host::CallerScope`]: a `POST` only),
    /// otherwise on a pooled one.
    #[cfg(feature = "http")]
    fn start_exchange(&mut self, exchange: ExchangeId, request: HttpRequest) -> Option<Input> {
        let feed = self.feed()?;
        let report = move |r: crate::http::HttpReport| feed.feed(r.into_input(exchange));
        let (handle, prepared) = self.http.prepare(request, report);
        let offered = match prepared.method() {
            HttpMethod::Post => match mcpwire_host::offer_to_caller(CallerIo::Exchange(prepared)) {
                // No caller took it: the pool runs it.
                Some(CallerIo::Exchange(prepared)) => Some(prepared),
                _ => None,
            },
            _ => Some(prepared),
        };
        let started = offered.map_or(Ok(()), PreparedExchange::run_on_pool);
        match started {
            Ok(()) => {
                self.exchanges.insert(exchange, handle);
                None
            }
            Err(e) => {
                let e = std::io::Error::new(e.kind(), format!("could not start an HTTP thread: {e}"));
                Some(Input::HttpFailed(exchange, e))
            }
        }
    }

    fn spawn(&mut self, SpawnRequest { epoch, command }: SpawnRequest) -> Input {
        let Some(feed) = self.feed() else {
            return Input::SpawnFailed(epoch, std::io::Error::other("the client is shutting down"));
        };
        let started = mcpwire_host::std_command(&command)
            .spawn()
            .and_then(|child| ProcessIo::start(&self.name, epoch, child, feed));
        match started {
            Ok(pio) => {
                self.procs.insert(epoch, pio);
                Input::Started(epoch)
            }
            Err(e) => Input::SpawnFailed(epoch, e),
        }
    }
}

impl Side for IoSide {
    fn before_input(&mut self, input: &Input) {
        match input {
            Input::Exited(epoch, _) => {
                self.procs.remove(epoch);
            }
            #[cfg(feature = "http")]
            Input::HttpEnd(exchange) | Input::HttpFailed(exchange, _) | Input::HttpRefused(exchange, _) => {
                self.exchanges.remove(exchange);
            }
            _ => {}
        }
    }

    fn wake_timer(&self) {
        let _ = self.timer.try_send(());
    }

    /// A pooled thread runs the host's callbacks: a callback that calls the server and waits
    /// must not block the stdout reader, the event stream or the timer its answer needs.
    fn hand_off_callbacks(&self) -> bool {
        let Some(feed) = self.feed() else { return false };
        crate::pool::run(move |_| feed.run_callbacks()).is_ok()
    }
}

impl Perform for IoSide {
    fn now(&self) -> Instant {
        Instant::now()
    }

    fn perform(&mut self, io: Io) -> Option<Input> {
        match apply_process_io(&mut self.procs, io)? {
            OtherIo::Spawn(spawn) => Some(self.spawn(spawn)),
            #[cfg(feature = "http")]
            OtherIo::HttpStart { exchange, request } => self.start_exchange(exchange, request),
            // Dropping the handle aborts the exchange (a no-op if it already ended).
            #[cfg(feature = "http")]
            OtherIo::HttpAbort(exchange) => {
                self.exchanges.remove(&exchange);
                None
            }
            // HTTP IO of a host built with `http` while this crate is not: never asked for
            // (`build` refuses servers that are not stdio without the feature).
            _ => None,
        }
    }

    /// Runs the host handler for a server request on a pooled thread.
    fn start_handler(
        &mut self,
        server: &Arc<str>,
        handle: ServerRequestHandle,
        request: ServerRequest,
    ) -> Option<Input> {
        let (handlers, name) = (self.handlers.clone(), server.clone());
        let feed = self.feed()?;
        let answered = crate::pool::run(move |worker| {
            let outcome = answer::<Returning>(&handlers, &name, request);
            worker.release();
            feed.feed(Input::ServerAnswer(handle, outcome));
        });
        let refused = || {
            Input::ServerAnswer(
                handle,
                Err(mcpwire_core::HandlerError::new("could not start a handler thread")),
            )
        };
        answered.is_err().then(refused)
    }
}
