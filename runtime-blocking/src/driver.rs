//! The driver thread of one server: owns the core [`Connection`], performs its IO, routes
//! events, and sleeps on its message channel until the core's next deadline.

use std::collections::BTreeMap;
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, TrySendError};
use std::sync::Arc;
use std::thread;
use std::time::Instant;

use mcp_core::Input;
use mcp_core::{
    Connection, Epoch, ExchangeId, HttpRequest, Io, Request, RequestOptions, ServerRequest,
    ServerRequestHandle,
};
use mcp_host::{apply_process_io, OtherIo, SpawnRequest};
use mcp_host::{Dispatch, Outcome, Perform, ProgressFn};

use crate::handlers::{answer, Handlers};
use crate::http::{HttpClient, HttpExchange};
use crate::process::ProcessIo;

/// How many messages may wait for the driver. Reader threads block when it is full, which
/// back-pressures a server that writes faster than the client reads.
pub(crate) const CHANNEL_BOUND: usize = 256;

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

pub(crate) struct Driver {
    conn: Connection,
    dispatch: Dispatch<SyncSender<Outcome>, SyncSender<()>>,
    rx: Receiver<Msg>,
    io: IoSide,
    /// False once every API handle is gone.
    open: bool,
}

/// What the driver does for the core: processes, HTTP exchanges, handler threads.
struct IoSide {
    /// The server's name, for thread names.
    name: Arc<str>,
    /// Cloned into IO and handler threads.
    tx: SyncSender<Msg>,
    procs: BTreeMap<Epoch, ProcessIo>,
    /// The client's HTTP machinery (shared by every server of the client).
    http: HttpClient,
    /// Exchanges that have not reported their end (dropping one aborts it).
    exchanges: BTreeMap<ExchangeId, HttpExchange>,
    handlers: Arc<Handlers>,
}

impl Driver {
    pub(crate) fn new(
        conn: Connection,
        dispatch: Dispatch<SyncSender<Outcome>, SyncSender<()>>,
        channel: (SyncSender<Msg>, Receiver<Msg>),
        handlers: Arc<Handlers>,
        http: HttpClient,
    ) -> Self {
        let (tx, rx) = channel;
        let name = dispatch.name().clone();
        let io = IoSide { name, tx, procs: BTreeMap::new(), http, exchanges: BTreeMap::new(), handlers };
        Self { conn, dispatch, rx, io, open: true }
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
                self.dispatch.request(&mut self.conn, now, call, request, opts, reply, progress)
            }
            // The outcome (`Cancelled`) reaches the caller as the request's response.
            Msg::Cancel(call) => self.dispatch.cancel(&mut self.conn, now, call),
            Msg::Close(done) => self.dispatch.close(&mut self.conn, now, done),
            Msg::Released => {
                self.open = false;
                self.conn.close(now);
            }
            Msg::Input(input) => {
                match &input {
                    Input::Exited(epoch, _) => {
                        self.io.procs.remove(epoch);
                    }
                    Input::HttpEnd(exchange) | Input::HttpFailed(exchange, _) => {
                        self.io.exchanges.remove(exchange);
                    }
                    _ => {}
                }
                self.conn.handle_input(now, input);
            }
        }
    }

    /// Performs every pending IO action and routes every event.
    fn drain(&mut self) {
        self.dispatch.drain(&mut self.conn, &mut self.io);
    }
}

impl Perform for IoSide {
    fn now(&self) -> Instant {
        Instant::now()
    }

    fn perform(&mut self, io: Io) -> Option<Input> {
        match apply_process_io(&mut self.procs, io)? {
            OtherIo::Spawn(spawn) => Some(self.spawn(spawn)),
            OtherIo::HttpStart { exchange, request } => self.start_exchange(exchange, request),
            // Dropping the handle aborts the exchange (a no-op if it already ended).
            OtherIo::HttpAbort(exchange) => {
                self.exchanges.remove(&exchange);
                None
            }
        }
    }

    /// Runs the host handler for a server request on a thread of its own.
    fn start_handler(
        &mut self,
        server: &Arc<str>,
        handle: ServerRequestHandle,
        request: ServerRequest,
    ) -> Option<Input> {
        let (handlers, name) = (self.handlers.clone(), server.clone());
        let tx = self.tx.clone();
        let answered = thread::Builder::new().name(thread_name(&name, "handler")).spawn(move || {
            let outcome = answer(&handlers, &name, request);
            let _ = tx.send(Msg::Input(Input::ServerAnswer(handle, outcome)));
        });
        let refused = || Input::ServerAnswer(handle, Err("could not start a handler thread".into()));
        answered.is_err().then(refused)
    }
}

impl IoSide {
    /// Starts an HTTP exchange whose reports come back on the driver's channel.
    fn start_exchange(&mut self, exchange: ExchangeId, request: HttpRequest) -> Option<Input> {
        let tx = self.tx.clone();
        let report = move |r: crate::http::HttpReport| tx.send(Msg::Input(r.into_input(exchange))).is_ok();
        match self.http.start(request, report) {
            Ok(handle) => {
                self.exchanges.insert(exchange, handle);
                None
            }
            Err(e) => Some(Input::HttpFailed(exchange, format!("could not start an HTTP thread: {e}"))),
        }
    }

    fn spawn(&mut self, SpawnRequest { epoch, command }: SpawnRequest) -> Input {
        let started = mcp_host::std_command(&command)
            .spawn()
            .and_then(|child| ProcessIo::start(&self.name, epoch, child, self.tx.clone()));
        match started {
            Ok(pio) => {
                self.procs.insert(epoch, pio);
                Input::Started(epoch)
            }
            Err(e) => Input::SpawnFailed(epoch, format!("{}: {e}", command.program)),
        }
    }
}
