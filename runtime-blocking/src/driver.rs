//! The driver thread of one server: owns the core [`Connection`], performs its IO, routes
//! events, and sleeps on its message channel until the core's next deadline.

use std::collections::BTreeMap;
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, TrySendError};
use std::sync::Arc;
use std::thread;
use std::time::Instant;

use mcp_core::host::{apply_process_io, Input, OtherIo, SpawnRequest};
use mcp_core::{
    Connection, Epoch, ExchangeId, HttpRequest, Io, Request, RequestOptions, ServerRequest,
    ServerRequestHandle,
};
use mcp_host::{Dispatch, Outcome, ProgressFn, Step};

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
    rx: Receiver<Msg>,
    /// Cloned into IO and handler threads.
    tx: SyncSender<Msg>,
    procs: BTreeMap<Epoch, ProcessIo>,
    /// The client's HTTP machinery (shared by every server of the client).
    http: HttpClient,
    /// Exchanges that have not reported their end (dropping one aborts it).
    exchanges: BTreeMap<ExchangeId, HttpExchange>,
    dispatch: Dispatch<SyncSender<Outcome>, SyncSender<()>>,
    handlers: Arc<Handlers>,
    /// False once every API handle is gone.
    open: bool,
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
        Self {
            conn,
            rx,
            tx,
            procs: BTreeMap::new(),
            http,
            exchanges: BTreeMap::new(),
            dispatch,
            handlers,
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
        while let Some(step) = self.dispatch.next(&mut self.conn) {
            match step {
                Step::Io(io) => self.perform(io),
                Step::ServerRequest(handle, request) => self.start_handler(handle, request),
            }
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
        let started = mcp_host::std_command(&command)
            .spawn()
            .and_then(|child| ProcessIo::start(self.dispatch.name(), epoch, child, self.tx.clone()));
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

    /// Runs the host handler for a server request on a thread of its own.
    fn start_handler(&mut self, handle: ServerRequestHandle, request: ServerRequest) {
        let (handlers, name) = (self.handlers.clone(), self.dispatch.name().clone());
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
