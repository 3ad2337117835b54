//! The host's callbacks of one server (the event hook, progress callbacks, the input-wait
//! hook), run outside the engine's lock, in order, one at a time.
//!
//! [`Dispatch`](crate::Dispatch) routes the core's events under the engine's lock and queues
//! a [`Callback`] for each one the host wants to see; before unlocking, the engine moves them
//! to the server's [`Callbacks`] queue (the lock's order is the queue's order). After
//! unlocking, whoever queued them runs the queue, unless another thread is running it (a
//! separate lock taken with `try_lock`): that thread, or the same thread further up its stack
//! when a callback re-entered the engine, runs them before it leaves, so every callback of a
//! server runs after the ones before it and never beside another. A callback may therefore
//! call its own server, wait for the answer, even on the thread that delivered the event:
//! what its own request routes meanwhile waits in the queue until it returns.
//!
//! Outcomes are not callbacks: they reach their callers as soon as the lock is released, and
//! never wait for a callback on another thread. The one exception is a call with a progress
//! callback whose progress is still queued when its response comes: its outcome follows its
//! progress through the queue, so a caller has seen all its progress when its call returns.
//! Unless the call was made from one of the server's own callbacks: its progress cannot run
//! before that callback returns, so its outcome does not wait for it. Likewise, `close`
//! returns once the callbacks routed up to `Closed` have run (unless called from a callback).

use std::cell::Cell;
use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, TryLockError};

use mcpwire_core::{Event, InputWaitDecision, Progress, RequestHandle};

use crate::dispatch::{lock, EventHook, InputWaitHook, Outcome, ProgressFn, Reply, WireTrace};

/// One thing to hand to the host, in the order it was routed.
pub(crate) enum Callback<R> {
    /// An event for the event hook (and, for [`Event::InputWait`], the input-wait hook).
    Event(Event),
    /// A progress notification for a call's progress callback.
    Progress(ProgressFn, Progress),
    /// The outcome of a call whose progress callbacks were still queued when it ended.
    Outcome(R, Outcome),
    /// A wire record for the wire trace, with the wall-clock time it was taken.
    Wire(std::time::SystemTime, mcpwire_core::WireRecord),
    /// Runs once the callbacks before it have (releases a `close` caller).
    Then(Box<dyn FnOnce() + Send>),
}

thread_local! {
    /// The address of the [`Callbacks`] whose queue this thread runs now (0: none).
    static RUNNING_HERE: Cell<usize> = const { Cell::new(0) };
}

/// Marks the current thread as running a queue until dropped (restoring the outer mark).
struct RunningHere(usize);

impl RunningHere {
    fn enter(queue: usize) -> Self {
        Self(RUNNING_HERE.with(|r| r.replace(queue)))
    }
}

impl Drop for RunningHere {
    fn drop(&mut self) {
        RUNNING_HERE.with(|r| r.set(self.0));
    }
}

/// A server's queue of host callbacks and the lock of whoever runs it. See the module docs.
pub(crate) struct Callbacks<R> {
    server: Arc<str>,
    hook: Option<EventHook>,
    input_wait_hook: Option<InputWaitHook>,
    wire_trace: Option<WireTrace>,
    queue: Mutex<VecDeque<Callback<R>>>,
    /// Held by the thread running the queue.
    running: Mutex<()>,
    /// A run is handed to another thread or task and has not started yet.
    handed_off: AtomicBool,
}

impl<R: Reply> Callbacks<R> {
    /// The queue of server `server`, calling these hooks.
    pub(crate) fn new(
        server: Arc<str>,
        hook: Option<EventHook>,
        input_wait_hook: Option<InputWaitHook>,
    ) -> Self {
        Self {
            server,
            hook,
            input_wait_hook,
            wire_trace: None,
            queue: Mutex::new(VecDeque::new()),
            running: Mutex::new(()),
            handed_off: AtomicBool::new(false),
        }
    }

    /// The same queue, also calling the wire trace callback.
    pub(crate) fn with_wire_trace(mut self, wire_trace: Option<WireTrace>) -> Self {
        self.wire_trace = wire_trace;
        self
    }

    /// Moves `routed` to the end of the queue (under the engine's lock, which orders them).
    pub(crate) fn push(&self, routed: &mut VecDeque<Callback<R>>) {
        lock(&self.queue).append(routed);
    }

    /// Marks a run as handed off to `hand_off` (a family's task or thread that will call
    /// [`Callbacks::run`]) unless one is handed off already; `false`: run the queue here.
    pub(crate) fn hand_off(&self, hand_off: impl FnOnce() -> bool) -> bool {
        if self.handed_off.swap(true, Ordering::SeqCst) {
            return true;
        }
        let handed = hand_off();
        if !handed {
            self.handed_off.store(false, Ordering::SeqCst);
        }
        handed
    }

    /// Whether the current thread is running this queue (a callback of it is calling).
    pub(crate) fn running_here(&self) -> bool {
        RUNNING_HERE.with(|r| r.get() == self.address())
    }

    fn address(&self) -> usize {
        std::ptr::from_ref(self) as usize
    }

    /// The handed-off run starts (see [`Callbacks::hand_off`]).
    pub(crate) fn handed_off_run_starts(&self) {
        self.handed_off.store(false, Ordering::SeqCst);
    }

    /// Runs the queue until it is empty, unless another thread runs it (or this one, further
    /// up its stack): that one runs what was queued before it leaves. `cancel_input_wait`
    /// applies an input-wait hook's `Cancel`.
    pub(crate) fn run(&self, cancel_input_wait: &dyn Fn(RequestHandle)) {
        loop {
            let running = match self.running.try_lock() {
                Ok(guard) => guard,
                Err(TryLockError::Poisoned(p)) => p.into_inner(),
                Err(TryLockError::WouldBlock) => return,
            };
            let here = RunningHere::enter(self.address());
            loop {
                let next = lock(&self.queue).pop_front();
                let Some(callback) = next else { break };
                self.call(callback, cancel_input_wait);
            }
            drop(here);
            drop(running);
            // Something queued by a thread that found the lock taken just before it was let go
            // is this thread's to run (that thread left it here).
            if lock(&self.queue).is_empty() {
                return;
            }
        }
    }

    /// Calls the host for one item. A callback that panics is skipped (the engine goes on).
    fn call(&self, callback: Callback<R>, cancel_input_wait: &dyn Fn(RequestHandle)) {
        match callback {
            Callback::Event(event) => {
                if let Some(hook) = &self.hook {
                    let _ = catch_unwind(AssertUnwindSafe(|| hook(&self.server, &event)));
                }
                if let (Event::InputWait(wait), Some(hook)) = (&event, &self.input_wait_hook) {
                    // A hook that panics lets the wait go on.
                    let decision = catch_unwind(AssertUnwindSafe(|| hook(&self.server, wait)));
                    if let Ok(InputWaitDecision::Cancel) = decision {
                        cancel_input_wait(wait.handle);
                    }
                }
            }
            Callback::Progress(f, progress) => {
                let _ = catch_unwind(AssertUnwindSafe(|| f(progress)));
            }
            Callback::Wire(at, record) => {
                if let Some(trace) = &self.wire_trace {
                    let _ = catch_unwind(AssertUnwindSafe(|| trace(&self.server, at, &record)));
                }
            }
            Callback::Outcome(reply, outcome) => reply.deliver(outcome),
            Callback::Then(f) => f(),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc::{sync_channel, SyncSender};

    use mcpwire_core::Response;

    use super::*;

    fn progress(n: f64) -> Progress {
        Progress { progress: n, total: None, message: None }
    }

    /// Items run in the order they were queued; a progress callback that panics does not stop
    /// the ones after it; a call's outcome follows its progress.
    #[test]
    fn the_queue_runs_in_order_past_a_panicking_callback() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let record = seen.clone();
        let hook: EventHook =
            Arc::new(move |server: &str, e: &Event| lock(&record).push(format!("{server}: {e:?}")));
        let callbacks: Callbacks<SyncSender<Outcome>> = Callbacks::new("s".into(), Some(hook), None);
        let record = seen.clone();
        let f: ProgressFn = Arc::new(move |p: Progress| {
            assert!(p.progress != 2.0, "a callback that panics");
            lock(&record).push(format!("progress {}", p.progress));
        });
        let (reply, outcome) = sync_channel(1);
        let mut routed: VecDeque<_> = [
            Callback::Progress(f.clone(), progress(1.0)),
            Callback::Progress(f.clone(), progress(2.0)),
            Callback::Event(Event::Closed),
            Callback::Progress(f, progress(3.0)),
            Callback::Outcome(reply, Ok(Response::Pong)),
        ]
        .into();
        callbacks.push(&mut routed);
        assert!(routed.is_empty());
        callbacks.run(&|_| panic!("no input wait"));
        assert_eq!(*lock(&seen), ["progress 1", "s: Closed", "progress 3"]);
        assert_eq!(outcome.try_recv(), Ok(Ok(Response::Pong)));
    }

    /// A callback that queues more and runs the queue again (a callback whose request routed
    /// an event) does not run it inside itself: the outer run does, after it returns.
    #[test]
    fn a_run_from_inside_a_callback_leaves_the_queue_to_the_outer_run() {
        let callbacks: Arc<Callbacks<SyncSender<Outcome>>> = Arc::new(Callbacks::new("s".into(), None, None));
        let order = Arc::new(Mutex::new(Vec::new()));
        let (queue, log) = (callbacks.clone(), order.clone());
        let first: ProgressFn = Arc::new(move |_: Progress| {
            let log2 = log.clone();
            let second: ProgressFn = Arc::new(move |_: Progress| lock(&log2).push("second"));
            queue.push(&mut VecDeque::from([Callback::Progress(second, progress(2.0))]));
            queue.run(&|_| {});
            lock(&log).push("first returns");
        });
        callbacks.push(&mut VecDeque::from([Callback::Progress(first, progress(1.0))]));
        callbacks.run(&|_| {});
        assert_eq!(*lock(&order), ["first returns", "second"]);
    }

    /// A thread knows it runs a queue while a callback of it runs, and only then.
    #[test]
    fn a_callback_knows_its_queue_runs_on_its_thread() {
        let callbacks: Arc<Callbacks<SyncSender<Outcome>>> = Arc::new(Callbacks::new("s".into(), None, None));
        let other: Callbacks<SyncSender<Outcome>> = Callbacks::new("o".into(), None, None);
        assert!(!callbacks.running_here());
        let (queue, seen) = (callbacks.clone(), Arc::new(Mutex::new(None)));
        let record = seen.clone();
        let f: ProgressFn = Arc::new(move |_: Progress| *lock(&record) = Some(queue.running_here()));
        callbacks.push(&mut VecDeque::from([Callback::Progress(f, progress(1.0))]));
        callbacks.run(&|_| {});
        assert_eq!(*lock(&seen), Some(true));
        assert!(!callbacks.running_here(), "not once the run is over");
        assert!(!other.running_here());
    }

    /// A hand-off is made once until the handed-off run starts; a refused one runs here.
    #[test]
    fn one_hand_off_at_a_time() {
        let callbacks: Callbacks<SyncSender<Outcome>> = Callbacks::new("s".into(), None, None);
        assert!(!callbacks.hand_off(|| false), "refused: run here");
        assert!(callbacks.hand_off(|| true));
        assert!(callbacks.hand_off(|| panic!("handed off already")));
        callbacks.handed_off_run_starts();
        assert!(callbacks.hand_off(|| true));
    }
}
