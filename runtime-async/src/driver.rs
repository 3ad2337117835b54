//! The driver task of one server: owns the core [`Connection`], performs its IO, routes events.

use std::collections::BTreeMap;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Instant;

use async_channel::{Receiver, Sender};
use futures_lite::{future, FutureExt};
use mcp_core::Input;
use mcp_core::{Connection, Epoch, Io, Request, RequestOptions, ServerRequest, ServerRequestHandle};
use mcp_host::{apply_process_io, OtherIo, SpawnRequest};
use mcp_host::{Dispatch, Outcome, Perform, ProgressFn, Reply, Waiter};

use crate::handlers::{answer, Handlers};
use crate::http::{Exchanges, HttpClient};
use crate::process::ProcessIo;
use crate::runtime::Runtime;

/// Commands from API handles.
#[allow(clippy::large_enum_variant)] // requests are the common case; boxing them buys nothing
pub(crate) enum Command {
    Request {
        call: u64,
        request: Request,
        opts: RequestOptions,
        progress: Option<ProgressFn>,
        reply: Sender<Outcome>,
    },
    CancelCall(u64),
    Close(Sender<()>),
}

/// Input from IO tasks and handlers.
pub(crate) type IoMsg = Input;

/// A waiting caller's reply channel (bounded to one outcome).
pub(crate) struct ReplyTo(Sender<Outcome>);

impl Reply for ReplyTo {
    fn deliver(self, outcome: Outcome) {
        let _ = self.0.try_send(outcome);
    }
}

/// A `close` caller.
pub(crate) struct CloseTo(Sender<()>);

impl Waiter for CloseTo {
    fn release(self) {
        let _ = self.0.try_send(());
    }
}

/// How many inputs are handled before yielding to other tasks.
const MAX_INPUTS_PER_TURN: usize = 64;

pub(crate) struct Driver<R: Runtime> {
    conn: Connection,
    dispatch: Dispatch<ReplyTo, CloseTo>,
    commands: Receiver<Command>,
    io_rx: Receiver<IoMsg>,
    io: IoSide<R>,
}

/// What the driver does for the core: processes, HTTP exchanges, handler tasks.
struct IoSide<R: Runtime> {
    rt: R,
    io_tx: Sender<IoMsg>,
    procs: BTreeMap<Epoch, ProcessIo>,
    http: Arc<HttpClient>,
    exchanges: Exchanges,
    handlers: Arc<Handlers>,
}

enum Wake {
    Command(Option<Command>),
    Io(IoMsg),
    Timer,
}

impl<R: Runtime> Driver<R> {
    pub(crate) fn new(
        rt: R,
        conn: Connection,
        dispatch: Dispatch<ReplyTo, CloseTo>,
        commands: Receiver<Command>,
        handlers: Arc<Handlers>,
        http: Arc<HttpClient>,
    ) -> Self {
        let (io_tx, io_rx) = async_channel::bounded(256);
        let io =
            IoSide { rt, io_tx, procs: BTreeMap::new(), http, exchanges: Exchanges::default(), handlers };
        Self { conn, dispatch, commands, io_rx, io }
    }

    pub(crate) async fn run(mut self) {
        let mut commands_open = true;
        loop {
            self.drain();
            if self.conn.is_closed() && !commands_open {
                return;
            }
            let deadline = self.conn.poll_timeout();
            let mut handled = 0;
            // Inputs already waiting are taken without building the wake-up futures.
            while handled < MAX_INPUTS_PER_TURN {
                if let Some(at) = deadline {
                    if self.io.rt.now() >= at {
                        break;
                    }
                }
                if let Ok(msg) = self.io_rx.try_recv() {
                    self.on_io(msg);
                } else if let (true, Ok(cmd)) = (commands_open, self.commands.try_recv()) {
                    self.on_command(cmd);
                } else {
                    break;
                }
                handled += 1;
                self.drain();
            }
            if handled > 0 {
                if handled == MAX_INPUTS_PER_TURN {
                    future::yield_now().await;
                }
                continue;
            }
            let wake = {
                let io = async {
                    match self.io_rx.recv().await {
                        Ok(msg) => Wake::Io(msg),
                        // Cannot happen while the driver holds a sender; never wake for it.
                        Err(_) => future::pending().await,
                    }
                };
                let cmd = async {
                    if commands_open {
                        Wake::Command(self.commands.recv().await.ok())
                    } else {
                        future::pending().await
                    }
                };
                let timer = async {
                    match deadline {
                        Some(at) => {
                            self.io.rt.sleep_until(at).await;
                            Wake::Timer
                        }
                        None => future::pending().await,
                    }
                };
                io.or(cmd).or(timer).await
            };
            match wake {
                Wake::Io(msg) => self.on_io(msg),
                Wake::Command(Some(cmd)) => self.on_command(cmd),
                Wake::Command(None) => {
                    // Every API handle is gone: shut the server down and finish.
                    commands_open = false;
                    let now = self.io.rt.now();
                    self.conn.close(now);
                }
                Wake::Timer => {
                    let now = self.io.rt.now();
                    self.conn.handle_timeout(now);
                }
            }
        }
    }

    fn now(&self) -> Instant {
        self.io.rt.now()
    }

    fn on_command(&mut self, cmd: Command) {
        let now = self.now();
        match cmd {
            Command::Request { call, request, opts, progress, reply } => {
                self.dispatch.request(&mut self.conn, now, call, request, opts, ReplyTo(reply), progress)
            }
            Command::CancelCall(call) => self.dispatch.cancel(&mut self.conn, now, call),
            Command::Close(done) => self.dispatch.close(&mut self.conn, now, CloseTo(done)),
        }
    }

    fn on_io(&mut self, msg: IoMsg) {
        if let Input::Exited(epoch, _) = &msg {
            self.io.procs.remove(epoch);
        }
        self.io.exchanges.ended(&msg);
        let now = self.now();
        self.conn.handle_input(now, msg);
    }

    /// Performs every pending IO action and routes every event.
    fn drain(&mut self) {
        self.dispatch.drain(&mut self.conn, &mut self.io);
    }
}

impl<R: Runtime> Perform for IoSide<R> {
    fn now(&self) -> Instant {
        self.rt.now()
    }

    fn perform(&mut self, io: Io) -> Option<Input> {
        let (epoch, command) = match apply_process_io(&mut self.procs, io)? {
            OtherIo::Spawn(SpawnRequest { epoch, command }) => (epoch, command),
            OtherIo::HttpStart { exchange, request } => {
                self.exchanges.start(&self.http, &self.rt, exchange, request, self.io_tx.clone());
                return None;
            }
            OtherIo::HttpAbort(exchange) => {
                self.exchanges.abort(exchange);
                return None;
            }
        };
        match self.rt.spawn_process(&command) {
            Ok(parts) => {
                let pio = ProcessIo::start(&self.rt, epoch, parts, self.io_tx.clone());
                self.procs.insert(epoch, pio);
                Some(Input::Started(epoch))
            }
            Err(e) => Some(Input::SpawnFailed(epoch, format!("{}: {e}", command.program))),
        }
    }

    /// Runs the host handler for a server request as a task of its own.
    fn start_handler(
        &mut self,
        server: &Arc<str>,
        handle: ServerRequestHandle,
        request: ServerRequest,
    ) -> Option<Input> {
        let answer = answer(&self.handlers, server, request);
        let tx = self.io_tx.clone();
        self.rt.spawn(Box::pin(async move {
            let outcome = AssertUnwindSafe(answer)
                .catch_unwind()
                .await
                .unwrap_or_else(|_| Err("the handler panicked".to_owned()));
            let _ = tx.send(Input::ServerAnswer(handle, outcome)).await;
        }));
        None
    }
}
