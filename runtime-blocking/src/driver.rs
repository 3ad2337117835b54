//! The driver thread of one server: owns the core [`Connection`], performs its IO, routes
//! events, and sleeps on its message channel until the core's next deadline.

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, TrySendError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Instant;

use mcp_async::EventHook;
use mcp_core::host::{
    apply_process_io, CloseWaiters, Input, OtherIo, Output, PendingCalls, ServerView, SpawnRequest,
};
use mcp_core::{
    ClientError, Connection, Epoch, Event, ExchangeId, HttpRequest, Io, Progress, Request, RequestOptions,
    Response, ServerRequest, ServerRequestHandle,
};

use crate::handlers::{answer, Handlers};
use crate::http::{HttpClient, HttpExchange};
use crate::process::ProcessIo;

/// A progress callback. It runs on the server's driver thread: keep it short, and do not
/// make blocking calls on the client from it.
pub type ProgressFn = Box<dyn Fn(Progress) + Send>;

/// How many messages may wait for the driver. Reader threads block when it is full, which
/// back-pressures a server that writes faster than the client reads.
pub(crate) const CHANNEL_BOUND: usize = 256;

/// A request's outcome, as handed to the waiting caller.
pub(crate) type Outcome = Result<Response, ClientError>;

/// Everything the driver thread is told: commands from API handles and input from IO threads.
pub(crate) enum Msg {
    Request {
        call: u64,
        request: Request,
        opts: RequestOptions,
        progress: Option<ProgressFn>,
        reply: SyncSender<Outcome>,
    },
    Cancel(u64),
    Close(SyncSender<()>),
    /// The last API handle is gone: close, finish shutting down, exit.
    Released,
    /// Process output, exits and handler answers.
    Input(Input),
}

/// Sends without ever blocking the current thread (which may be the driver itself, inside a
/// callback): when the channel is full, a short-lived thread waits for room.
pub(crate) fn send_detached(tx: &SyncSender<Msg>, msg: Msg) {
    if let Err(TrySendError::Full(msg)) = tx.try_send(msg) {
        let tx = tx.clone();
        thread::spawn(move || {
            let _ = tx.send(msg);
        });
    }
}

/// A thread name for one of a server's threads (a NUL byte would make spawning panic).
pub(crate) fn thread_name(server: &str, what: &str) -> String {
    format!("mcp-{server}-{what}").replace('\0', "?")
}

/// What API handles read without a round trip to the driver.
pub(crate) type Shared = Mutex<ServerView>;

struct Pending {
    reply: SyncSender<Outcome>,
    progress: Option<ProgressFn>,
}

pub(crate) struct Driver {
    name: Arc<str>,
    conn: Connection,
    rx: Receiver<Msg>,
    /// Cloned into IO and handler threads.
    tx: SyncSender<Msg>,
    procs: BTreeMap<Epoch, ProcessIo>,
    /// The client's HTTP machinery (shared by every server of the client).
    http: HttpClient,
    /// Exchanges that have not reported their end (dropping one aborts it).
    exchanges: BTreeMap<ExchangeId, HttpExchange>,
    calls: PendingCalls<Pending>,
    close_waiters: CloseWaiters<SyncSender<()>>,
    /// Outcomes routed in this drain, delivered once every event of the drain is routed, so
    /// a woken caller already sees the state those events imply (e.g. `info()` after a crash).
    replies: Vec<(SyncSender<Outcome>, Outcome)>,
    handlers: Arc<Handlers>,
    hook: Option<EventHook>,
    shared: Arc<Shared>,
    /// False once every API handle is gone.
    open: bool,
}

impl Driver {
    pub(crate) fn new(
        name: Arc<str>,
        conn: Connection,
        channel: (SyncSender<Msg>, Receiver<Msg>),
        handlers: Arc<Handlers>,
        hook: Option<EventHook>,
        shared: Arc<Shared>,
        http: HttpClient,
    ) -> Self {
        let (tx, rx) = channel;
        Self {
            name,
            conn,
            rx,
            tx,
            procs: BTreeMap::new(),
            http,
            exchanges: BTreeMap::new(),
            calls: PendingCalls::default(),
            close_waiters: CloseWaiters::default(),
            replies: Vec::new(),
            handlers,
            hook,
            shared,
            open: true,
        }
    }

    /// The loop: drain the core, then wait for a message or the core's deadline.
    pub(crate) fn run(mut self) {
        loop {
            self.drain();
            if !self.open && self.conn.is_closed() {
                return;
            }
            let msg = match self.conn.poll_timeout() {
                None => self.rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
                Some(at) => match at.checked_duration_since(Instant::now()) {
                    Some(wait) if !wait.is_zero() => self.rx.recv_timeout(wait),
                    _ => Err(RecvTimeoutError::Timeout),
                },
            };
            match msg {
                Ok(msg) => self.on_msg(msg),
                Err(RecvTimeoutError::Timeout) => self.conn.handle_timeout(Instant::now()),
                // Unreachable while `self.tx` lives; stop rather than spin.
                Err(RecvTimeoutError::Disconnected) => return,
            }
        }
    }

    fn on_msg(&mut self, msg: Msg) {
        let now = Instant::now();
        match msg {
            Msg::Request { call, request, opts, progress, reply } => {
                let pending = Pending { reply, progress };
                if let Err((p, e)) = self.calls.start(&mut self.conn, now, call, request, opts, pending) {
                    let _ = p.reply.try_send(Err(e));
                }
            }
            // The outcome (`Cancelled`) reaches the caller as the request's response.
            Msg::Cancel(call) => {
                if let Some(handle) = self.calls.handle_of(call) {
                    self.conn.cancel(now, handle);
                }
            }
            Msg::Close(done) => {
                if let Some(done) = self.close_waiters.close(&mut self.conn, now, done) {
                    let _ = done.try_send(());
                }
            }
            Msg::Released => {
                self.open = false;
                self.conn.close(now);
            }
            Msg::Input(input) => {
                match &input {
                    Input::Exited(epoch, _) => {
                        self.procs.remove(epoch);
                    }
                    Input::HttpEnd(exchange) | Input::HttpFailed(exchange, _) => {
                        self.exchanges.remove(exchange);
                    }
                    _ => {}
                }
                self.conn.handle_input(now, input);
            }
        }
    }

    /// Performs every pending IO action and routes every event.
    fn drain(&mut self) {
        while let Some(out) = self.conn.poll_output() {
            match out {
                Output::Io(io) => self.perform(io),
                Output::Event(ev) => self.route(ev),
            }
        }
        for (reply, outcome) in self.replies.drain(..) {
            let _ = reply.try_send(outcome);
        }
    }

    fn perform(&mut self, io: Io) {
        match apply_process_io(&mut self.procs, io) {
            None => {}
            Some(OtherIo::Spawn(spawn)) => self.spawn(spawn),
            Some(OtherIo::HttpStart { exchange, request }) => self.start_exchange(exchange, request),
            // Dropping the handle aborts the exchange (a no-op if it already ended).
            Some(OtherIo::HttpAbort(exchange)) => drop(self.exchanges.remove(&exchange)),
        }
    }

    /// Starts an HTTP exchange whose reports come back on the driver's channel.
    fn start_exchange(&mut self, exchange: ExchangeId, request: HttpRequest) {
        let tx = self.tx.clone();
        let report = move |r: crate::http::HttpReport| tx.send(Msg::Input(r.into_input(exchange))).is_ok();
        match self.http.start(request, report) {
            Ok(handle) => {
                self.exchanges.insert(exchange, handle);
            }
            Err(e) => {
                let detail = format!("could not start an HTTP thread: {e}");
                self.conn.handle_http_failed(Instant::now(), exchange, detail);
            }
        }
    }

    fn spawn(&mut self, SpawnRequest { epoch, command }: SpawnRequest) {
        let started = mcp_async::std_command(&command)
            .spawn()
            .and_then(|child| ProcessIo::start(&self.name, epoch, child, self.tx.clone()));
        let now = Instant::now();
        match started {
            Ok(pio) => {
                self.procs.insert(epoch, pio);
                self.conn.handle_process_started(now, epoch);
            }
            Err(e) => {
                let reason = format!("{}: {e}", command.program);
                self.conn.handle_spawn_failed(now, epoch, reason);
            }
        }
    }

    fn route(&mut self, ev: Event) {
        lock(&self.shared).observe(&ev, &self.conn);
        match ev {
            Event::Response { handle, result } => {
                if let Some(p) = self.calls.take(handle) {
                    self.replies.push((p.reply, result.map_err(ClientError::from)));
                }
            }
            Event::Progress { handle, progress } => {
                if let Some(Pending { progress: Some(f), .. }) = self.calls.get(handle) {
                    let _ = catch_unwind(AssertUnwindSafe(|| f(progress)));
                }
            }
            ev => {
                match &ev {
                    Event::ServerRequest { handle, request } => self.start_handler(*handle, request.clone()),
                    Event::Closed => {
                        for w in self.close_waiters.release() {
                            let _ = w.try_send(());
                        }
                    }
                    _ => {}
                }
                if let Some(hook) = &self.hook {
                    let _ = catch_unwind(AssertUnwindSafe(|| hook(&self.name, &ev)));
                }
            }
        }
    }

    /// Runs the host handler for a server request on a thread of its own.
    fn start_handler(&mut self, handle: ServerRequestHandle, request: ServerRequest) {
        let (handlers, name) = (self.handlers.clone(), self.name.clone());
        let tx = self.tx.clone();
        let answered = thread::Builder::new().name(thread_name(&name, "handler")).spawn(move || {
            let outcome = answer(&handlers, &name, request);
            let _ = tx.send(Msg::Input(Input::ServerAnswer(handle, outcome)));
        });
        if answered.is_err() {
            let now = Instant::now();
            let _ = self.conn.respond_to_server(now, handle, Err("could not start a handler thread".into()));
        }
    }
}

/// Locks, ignoring poisoning (the data is plain state, valid after any panic).
pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
