//! [`Engine`]: one server's core connection, its [`Dispatch`] and IO side behind one lock,
//! fed directly by whoever has something for it.
//!
//! There is no driver in the middle: a caller issuing a request, a task that read bytes from
//! the server, an HTTP exchange with a chunk, a finished handler and the timer each lock the
//! engine, feed the core, drain it (performing its IO through the [`Side`]) and deliver the
//! outcomes after unlocking. A request therefore reaches the server's stdin on the caller's own
//! thread, and its response reaches the caller from the task that read it: no hop through a
//! driver task or thread in either direction.
//!
//! The host's callbacks (the event hook, progress callbacks, the input-wait hook) never run
//! under the lock: they are queued in order while it is held and run after it is released,
//! one at a time per server (see `callbacks.rs`), by the caller that queued them or, when an
//! IO task or thread or the timer did, wherever the [`Side`] hands them
//! ([`Side::hand_off_callbacks`]), so a callback that calls its own server and waits never
//! holds up the IO its answer needs. The `_meta` provider runs on the caller's thread before
//! the lock is taken.
//!
//! The core's one deadline is kept by a timer (a task or thread of the family's) that sleeps
//! on [`Engine::timer`]'s answer and is woken through [`Side::wake_timer`] when an input moves
//! the deadline earlier than it sleeps, or when the engine has finished.

use std::sync::{Arc, Mutex, MutexGuard, TryLockError};
use std::time::Instant;

use mcpwire_core::{ClientError, Connection, Input, Request, RequestHandle, RequestOptions};

use crate::callbacks::Callbacks;
use crate::dispatch::{lock, Dispatch, Perform, ProgressFn, Reply, RequestMeta, Waiter};
use crate::subscription::{Inbox, ListenControl};

/// A family's IO side as the engine drives it.
pub trait Side: Perform + Send {
    /// Bookkeeping before the core sees `input` (forget a process that exited, an exchange
    /// that ended).
    fn before_input(&mut self, input: &Input);
    /// The core's deadline moved earlier than the timer sleeps, or the engine finished: wake
    /// the timer (a no-op while it is awake).
    fn wake_timer(&self);
    /// An IO task or thread, or the timer, fed input that queued host callbacks: start running
    /// them ([`Feed::run_callbacks`]) somewhere a callback that calls the server and waits
    /// cannot hold up the IO its answer needs; `false`: run them here, after the lock. The
    /// default runs them here (right for tasks: an async callback cannot wait on the client).
    fn hand_off_callbacks(&self) -> bool {
        false
    }
}

/// Where the IO tasks and threads of a server send what they read. `false`: the engine has
/// finished, stop.
pub trait Feed: Send + Sync {
    /// Feeds one input to the core and drains it.
    fn feed(&self, input: Input) -> bool;
    /// Runs the host callbacks that [`Side::hand_off_callbacks`] handed off.
    fn run_callbacks(&self) {}
}

/// What the timer does next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimerStep {
    /// Sleep until this deadline (`None`: until woken).
    Sleep(Option<Instant>),
    /// Every handle is gone and the connection is closed: stop.
    Finished,
}

struct State<R, W, S> {
    conn: Connection,
    dispatch: Dispatch<R, W>,
    side: S,
    /// The deadline the timer sleeps until (`None`: none, it sleeps until woken).
    timer_at: Option<Instant>,
    /// Every API handle is gone.
    released: bool,
}

impl<R, W, S> State<R, W, S> {
    fn finished(&self) -> bool {
        self.released && self.conn.is_closed()
    }
}

/// Work handed to whoever holds the lock: cancels and releases never wait for it.
enum Deferred {
    Cancel(u64),
    CloseListen(RequestHandle),
    Release,
    /// The input-wait hook said `Cancel`.
    CancelInputWait(RequestHandle),
}

/// Who runs the engine: a caller of the API runs the host callbacks it queued itself; an IO
/// task or thread, or the timer, hands them to the [`Side`].
#[derive(Clone, Copy, PartialEq, Eq)]
enum Runner {
    Caller,
    Io,
}

/// One server's shared state. See the module docs.
pub struct Engine<R, W, S> {
    state: Mutex<State<R, W, S>>,
    deferred: Mutex<Vec<Deferred>>,
    callbacks: Callbacks<R>,
    /// The `_meta` provider, evaluated before the lock is taken.
    meta: Option<RequestMeta>,
}

impl<R, W, S> std::fmt::Debug for Engine<R, W, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine").finish_non_exhaustive()
    }
}

impl<R: Reply, W: Waiter, S: Side> Engine<R, W, S> {
    /// An engine over a connection that has not started yet.
    pub fn new(conn: Connection, dispatch: Dispatch<R, W>, side: S) -> Self {
        let (callbacks, meta) = (dispatch.callbacks(), dispatch.request_meta());
        let state = State { conn, dispatch, side, timer_at: None, released: false };
        Self { state: Mutex::new(state), deferred: Mutex::new(Vec::new()), callbacks, meta }
    }

    /// Runs `f` on the locked state, drains the core, wakes the timer if it must, and
    /// delivers the outcomes once the lock is released, then the host's callbacks.
    fn with<T>(&self, runner: Runner, f: impl FnOnce(&mut State<R, W, S>, Instant) -> T) -> T {
        self.run_locked(runner, lock(&self.state), f)
    }

    /// Queues `work` for the lock holder, and does it now if the lock is free.
    fn defer(&self, work: Deferred) {
        lock(&self.deferred).push(work);
        self.run_deferred(Runner::Caller);
    }

    /// Does the queued work unless someone holds the lock (who then does it before leaving).
    fn run_deferred(&self, runner: Runner) {
        let guard = match self.state.try_lock() {
            Ok(guard) => guard,
            Err(TryLockError::Poisoned(p)) => p.into_inner(),
            Err(TryLockError::WouldBlock) => return,
        };
        self.run_locked(runner, guard, |_, _| ());
    }

    /// Runs the host's callbacks unless another thread does (see `callbacks.rs`).
    fn run_callbacks_here(&self) {
        self.callbacks.run(&|handle| self.defer(Deferred::CancelInputWait(handle)));
    }

    fn run_locked<T>(
        &self,
        runner: Runner,
        mut guard: MutexGuard<'_, State<R, W, S>>,
        f: impl FnOnce(&mut State<R, W, S>, Instant) -> T,
    ) -> T {
        let state = &mut *guard;
        let now = state.side.now();
        let value = f(state, now);
        loop {
            let work = std::mem::take(&mut *lock(&self.deferred));
            if work.is_empty() {
                break;
            }
            for item in work {
                match item {
                    Deferred::Cancel(call) => state.dispatch.cancel(&mut state.conn, now, call),
                    Deferred::CloseListen(handle) => {
                        state.dispatch.close_listen(&mut state.conn, now, handle)
                    }
                    Deferred::Release => {
                        state.released = true;
                        state.conn.close(now);
                    }
                    Deferred::CancelInputWait(handle) => {
                        state.conn.cancel_input_wait(handle);
                    }
                }
            }
        }
        state.dispatch.drain_deferred(&mut state.conn, &mut state.side);
        // Queued in the lock's order; run here after unlocking unless handed off.
        let run_callbacks = state.dispatch.queue_callbacks(&self.callbacks)
            && !(runner == Runner::Io && self.callbacks.hand_off(|| state.side.hand_off_callbacks()));
        let deadline = state.conn.poll_timeout();
        let earlier = match (deadline, state.timer_at) {
            (Some(at), Some(armed)) => at < armed,
            (Some(_), None) => true,
            (None, _) => false,
        };
        if earlier || state.finished() {
            state.side.wake_timer();
        }
        let outcomes = state.dispatch.take_outcomes();
        drop(guard);
        for (reply, outcome) in outcomes {
            reply.deliver(outcome);
        }
        // Work queued while the lock was held (by a thread that found it taken) is done now.
        if !lock(&self.deferred).is_empty() {
            self.run_deferred(runner);
        }
        if run_callbacks {
            self.run_callbacks_here();
        }
        value
    }

    /// For the timer: handles the deadline if it is due and says how long to sleep.
    pub fn timer(&self) -> TimerStep {
        self.with(Runner::Io, |s, now| {
            if s.conn.poll_timeout().is_some_and(|at| at <= now) {
                s.conn.handle_timeout(now);
            }
        });
        let mut s = lock(&self.state);
        if s.finished() {
            return TimerStep::Finished;
        }
        s.timer_at = s.conn.poll_timeout();
        TimerStep::Sleep(s.timer_at)
    }

    /// Runs `f` on the IO side (under the lock; keep it short).
    pub fn with_side<T>(&self, f: impl FnOnce(&mut S) -> T) -> T {
        f(&mut lock(&self.state).side)
    }
}

impl<R: Reply, W: Waiter, S: Side> Feed for Engine<R, W, S> {
    fn feed(&self, input: Input) -> bool {
        self.with(Runner::Io, |s, now| {
            if s.finished() {
                return false;
            }
            s.side.before_input(&input);
            s.conn.handle_input(now, input);
            true
        })
    }

    fn run_callbacks(&self) {
        self.callbacks.handed_off_run_starts();
        self.run_callbacks_here();
    }
}

/// What API handles do with a server's engine, whatever its IO side.
pub trait EngineApi<R, W>: ListenControl {
    /// Issues a request for API call `call`; its outcome goes to `reply`.
    fn request(
        &self,
        call: u64,
        request: Request,
        opts: RequestOptions,
        reply: R,
        progress: Option<ProgressFn>,
    );
    /// Cancels API call `call` if it is still in flight (its outcome is `Cancelled`). Never
    /// waits for the lock.
    fn cancel(&self, call: u64);
    /// Opens a listen stream whose updates and end go to `inbox`.
    fn listen(
        &self,
        request: Request,
        opts: RequestOptions,
        inbox: Arc<Inbox>,
    ) -> Result<RequestHandle, ClientError>;
    /// Closes the connection for `waiter` (released once closed and the host's callbacks
    /// routed until then have run).
    fn close(&self, waiter: W);
    /// The last API handle is gone: close the connection; the engine finishes once closed.
    /// Never waits for the lock.
    fn release(&self);
    /// Runs `f` on the connection at the engine's clock (under the lock; keep it short), for
    /// getters and commands that answer at once (`cache_info`, `clear_cache`, ...).
    fn inspect(&self, f: &mut dyn FnMut(&mut Connection, Instant));
}

impl<R: Reply, W: Waiter, S: Side> EngineApi<R, W> for Engine<R, W, S> {
    fn request(
        &self,
        call: u64,
        request: Request,
        opts: RequestOptions,
        reply: R,
        progress: Option<ProgressFn>,
    ) {
        let mut opts = opts;
        if let Some(meta) = &self.meta {
            if let Err(e) = meta.add_to(&request, &mut opts) {
                reply.deliver(Err(e));
                return;
            }
        }
        // A call made from one of this server's callbacks does not wait for its progress.
        let progress_first = progress.is_some() && !self.callbacks.running_here();
        self.with(Runner::Caller, |s, now| {
            s.dispatch.request(&mut s.conn, now, call, request, opts, reply, progress, progress_first)
        });
    }

    fn cancel(&self, call: u64) {
        self.defer(Deferred::Cancel(call));
    }

    fn listen(
        &self,
        request: Request,
        opts: RequestOptions,
        inbox: Arc<Inbox>,
    ) -> Result<RequestHandle, ClientError> {
        let mut opts = opts;
        if let Some(meta) = &self.meta {
            meta.add_to(&request, &mut opts)?;
        }
        self.with(Runner::Caller, |s, now| s.dispatch.listen(&mut s.conn, now, request, opts, inbox))
    }

    fn close(&self, waiter: W) {
        // From one of this server's callbacks, the close cannot wait for the rest of them.
        let after_callbacks = !self.callbacks.running_here();
        self.with(Runner::Caller, |s, now| s.dispatch.close(&mut s.conn, now, waiter, after_callbacks));
    }

    fn release(&self) {
        self.defer(Deferred::Release);
    }

    fn inspect(&self, f: &mut dyn FnMut(&mut Connection, Instant)) {
        self.with(Runner::Caller, |s, now| f(&mut s.conn, now));
    }
}

impl<R: Reply, W: Waiter, S: Side> ListenControl for Engine<R, W, S> {
    fn close_listen(&self, handle: RequestHandle) {
        self.defer(Deferred::CloseListen(handle));
    }
}

/// Opens a listen stream on `engine` and returns its handle: notifications are kept for the
/// host when `host_reads` (the handle then also keeps the server open), else only the event
/// hook sees them.
pub fn open_listen<R: 'static, W: 'static>(
    engine: &Arc<dyn EngineApi<R, W>>,
    keep: Option<Arc<dyn std::any::Any + Send + Sync>>,
    request: Request,
    opts: crate::subscription::ListenOptions,
) -> Result<crate::subscription::SubscriptionCore, ClientError> {
    let inbox = Inbox::new(keep.is_some().then_some(opts.queue));
    let mut ropts = RequestOptions::default();
    ropts.timeout = opts.ack_timeout;
    let handle = engine.listen(request, ropts, inbox.clone())?;
    let control: Arc<dyn ListenControl> = engine.clone();
    Ok(crate::subscription::SubscriptionCore::new(handle, inbox, control, keep))
}

/// Releases the engine when the last API handle is dropped: every clone of a server's
/// handles shares one `Arc<ReleaseOnDrop<..>>`.
pub struct ReleaseOnDrop<R, W>(pub Arc<dyn EngineApi<R, W>>);

impl<R, W> std::fmt::Debug for ReleaseOnDrop<R, W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ReleaseOnDrop")
    }
}

impl<R, W> Drop for ReleaseOnDrop<R, W> {
    fn drop(&mut self) {
        self.0.release();
    }
}
