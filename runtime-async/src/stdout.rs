//! A server process's stdout, read by whoever waits on it.
//!
//! A caller awaiting its outcome from a stdio server polls the server's stdout itself, so the
//! reply is read, fed to the engine and handed to the caller without waking another task or
//! thread. The reader task reads whenever no caller does: notifications, server requests,
//! replies of callers that stopped polling.
//!
//! The reactor always holds one and the same waker for the stream, a [`Relay`] that wakes
//! whoever reads next: the caller polling now, else the reader task. Swapping who reads is a
//! store, not a re-registration (async-io wakes a waker it replaces, which would bounce the
//! stream between the caller and the task on every call).

use std::pin::Pin;
use std::sync::{Arc, Mutex, TryLockError};
use std::task::{Context, Poll, Wake, Waker};

use futures_lite::io::AsyncRead;
use mcpwire_core::{Epoch, Input};
use mcpwire_host::{lock, Feed};

/// Read buffer size.
const READ_CHUNK: usize = 64 * 1024;

/// A process's stdout stream.
pub(crate) type Reader = Box<dyn AsyncRead + Send + Unpin>;

/// One process's stdout, shared by its reader task and the callers waiting on it.
pub(crate) struct SharedStdout {
    epoch: Epoch,
    feed: Arc<dyn Feed>,
    /// Held only while someone reads; a poller that finds it taken leaves the reading to the
    /// holder (whose feeding wakes everyone whose outcome arrived).
    reading: Mutex<Reading>,
    relay: Arc<Relay>,
    /// `relay` as a waker (the one the reactor holds).
    relay_waker: Waker,
}

/// The reactor's waker for the stream: wakes whoever reads next.
#[derive(Default)]
struct Relay(Mutex<RelayState>);

#[derive(Default)]
struct RelayState {
    /// The caller polling now, else the reader task (`None` until the task is first polled).
    next: Option<Waker>,
    /// The reader task's waker.
    task: Option<Waker>,
    /// The stream may have bytes no read attempt looked at: the reactor fired since the last
    /// read attempt, or a read stopped at [`READ_CHUNK`] (a hand-back then wakes the task).
    fired: bool,
}

impl Wake for Relay {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        let next = {
            let mut state = lock(&self.0);
            state.fired = true;
            state.next.clone()
        };
        if let Some(next) = next {
            next.wake();
        }
    }
}

struct Reading {
    /// `None` once stdout ended (EOF, a read error, or the engine is gone).
    stdout: Option<Reader>,
    buf: Vec<u8>,
}

impl std::fmt::Debug for SharedStdout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedStdout").field("epoch", &self.epoch).finish_non_exhaustive()
    }
}

impl SharedStdout {
    pub(crate) fn new(epoch: Epoch, stdout: Reader, feed: Arc<dyn Feed>) -> Arc<Self> {
        let relay = Arc::new(Relay::default());
        Arc::new(Self {
            epoch,
            feed,
            reading: Mutex::new(Reading { stdout: Some(stdout), buf: Vec::new() }),
            relay_waker: Waker::from(relay.clone()),
            relay,
        })
    }

    /// Reads what stdout has, feeding the engine in order, until the stream would block (the
    /// relay is then registered for more). `Ready` once stdout ended; `Pending` also when
    /// another poller is reading now (it reads on).
    ///
    /// The invariant: a read that leaves the stream possibly readable with nobody woken for it
    /// wakes whoever reads next (the relay's `next`), never only itself. A poller that finds
    /// the lock taken leaves the reading to the holder, so the holder looks again after letting
    /// go: if the stream fired after its last read attempt (the wake-up went to a poller that
    /// found the lock taken and left), the holder fires the relay again, which wakes whoever
    /// reads next: that poller, the holder itself if nobody polled since, else the reader task.
    /// Waking the holder alone loses the bytes when the holder stops right after this read
    /// (its outcome came in it): its hand-back only moves the reading on when it is still the
    /// one reading next, and the poller that found the lock taken waits for a wake-up that
    /// never comes. The second read is a wake-up, not a loop here: tokio's cooperative budget
    /// answers `Pending` and fires the stream's waker at once until the task yields, so reading
    /// again in the same poll would spin forever.
    ///
    /// One poll reads at most about [`READ_CHUNK`] bytes: from a server that writes without
    /// pause, the read stops and fires the relay (the stream is still readable, and no reactor
    /// will say so), so whoever reads next, most often the poller itself, reads on after its
    /// executor had a turn (a caller then sees the outcome its read delivered) instead of
    /// reading for as long as the server writes.
    fn read(&self) -> Poll<()> {
        let mut reading = match self.reading.try_lock() {
            Ok(guard) => guard,
            Err(TryLockError::Poisoned(p)) => p.into_inner(),
            Err(TryLockError::WouldBlock) => return Poll::Pending,
        };
        let Reading { stdout, buf } = &mut *reading;
        let Some(reader) = stdout.as_mut() else {
            return Poll::Ready(());
        };
        if buf.is_empty() {
            buf.resize(READ_CHUNK, 0);
        }
        lock(&self.relay.0).fired = false;
        let mut cx = Context::from_waker(&self.relay_waker);
        let mut read_now = 0;
        let ended = loop {
            match Pin::new(&mut *reader).poll_read(&mut cx, buf) {
                Poll::Pending => break false,
                Poll::Ready(Ok(n)) if n > 0 => {
                    if !self.feed.feed(Input::Stdout(self.epoch, buf[..n].to_vec())) {
                        break true;
                    }
                    read_now += n;
                    if read_now >= READ_CHUNK {
                        drop(reading);
                        self.relay_waker.wake_by_ref();
                        return Poll::Pending;
                    }
                }
                Poll::Ready(_) => {
                    self.feed.feed(Input::StdoutEof(self.epoch));
                    break true;
                }
            }
        };
        if !ended {
            drop(reading);
            if lock(&self.relay.0).fired {
                self.relay_waker.wake_by_ref();
            }
            return Poll::Pending;
        }
        *stdout = None;
        drop(reading);
        // The reader task ends too.
        if let Some(task) = lock(&self.relay.0).task.take() {
            task.wake();
        }
        Poll::Ready(())
    }

    /// The reader task's poll: it reads whatever nobody else does.
    pub(crate) fn poll_task(&self, cx: &mut Context<'_>) -> Poll<()> {
        {
            let mut state = lock(&self.relay.0);
            if !state.task.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
                state.task = Some(cx.waker().clone());
            }
            if state.next.is_none() {
                state.next = state.task.clone();
            }
        }
        self.read()
    }

    /// A caller's poll: it reads the stream while it waits for its reply.
    pub(crate) fn poll_caller(&self, cx: &mut Context<'_>) -> Poll<()> {
        {
            let mut state = lock(&self.relay.0);
            if !state.next.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
                state.next = Some(cx.waker().clone());
            }
        }
        self.read()
    }

    /// A caller that polled stops (its outcome came, or it was dropped): the reader task
    /// reads next, woken at once if the stream may have bytes nobody read (it fired since the
    /// last read attempt, or a read stopped at [`READ_CHUNK`]).
    pub(crate) fn hand_back(&self, caller: &Waker) {
        let task = {
            let mut state = lock(&self.relay.0);
            if !state.next.as_ref().is_some_and(|w| w.will_wake(caller)) {
                // Another caller polls now (or the task already reads): it reads on.
                return;
            }
            state.next = state.task.clone();
            state.next.clone().filter(|_| state.fired)
        };
        if let Some(task) = task {
            task.wake();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io;
    use std::sync::OnceLock;

    use super::*;
    use crate::test_streams::{counted, Quiet};

    /// Keeps every stdout byte it is fed.
    #[derive(Default)]
    struct Recorded(Mutex<Vec<u8>>);

    impl Feed for Recorded {
        fn feed(&self, input: Input) -> bool {
            if let Input::Stdout(_, bytes) = input {
                lock(&self.0).extend(bytes);
            }
            true
        }
    }

    /// A stream whose bytes arrive while its reader still holds the lock: the first read finds
    /// nothing and registers the relay; meanwhile `other` polls and finds the lock taken, the
    /// stream fires (waking whoever reads next), and the woken poller polls straight away and
    /// finds the lock still taken. The bytes are there from the second read on.
    struct ArrivesMidRead {
        shared: Arc<OnceLock<Arc<SharedStdout>>>,
        /// Who polls while the lock is held: a caller's waker, or `None` for the reader task.
        other: Option<Waker>,
        /// The reader task's waker.
        task: Waker,
        reads: usize,
    }

    impl ArrivesMidRead {
        /// `other` polls (and finds the lock taken).
        fn other_polls(&self, shared: &SharedStdout) {
            let polled = match &self.other {
                Some(caller) => shared.poll_caller(&mut Context::from_waker(caller)),
                None => shared.poll_task(&mut Context::from_waker(&self.task)),
            };
            assert!(polled.is_pending(), "the lock is held: the poller leaves");
        }
    }

    impl AsyncRead for ArrivesMidRead {
        fn poll_read(
            mut self: Pin<&mut Self>,
            cx: &mut Context<'_>,
            buf: &mut [u8],
        ) -> Poll<io::Result<usize>> {
            self.reads += 1;
            match self.reads {
                1 => {
                    let shared = self.shared.get().expect("set before the first read").clone();
                    self.other_polls(&shared);
                    // The stream fires; the poller it wakes polls at once.
                    cx.waker().wake_by_ref();
                    self.other_polls(&shared);
                    Poll::Pending
                }
                2 => {
                    buf[..6].copy_from_slice(b"hello\n");
                    Poll::Ready(Ok(6))
                }
                _ => Poll::Pending,
            }
        }
    }

    /// A stream that is never ready but fires its waker on every read, as tokio's cooperative
    /// budget does once a task used it up; it fails the test past 100 reads.
    #[derive(Default)]
    struct OutOfBudget {
        reads: usize,
    }

    impl AsyncRead for OutOfBudget {
        fn poll_read(
            mut self: Pin<&mut Self>,
            cx: &mut Context<'_>,
            _: &mut [u8],
        ) -> Poll<io::Result<usize>> {
            self.reads += 1;
            assert!(self.reads <= 100, "read again and again within one poll");
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }

    /// A stdout over `ArrivesMidRead` with `other` polling mid-read; what it feeds is kept.
    fn arrives_mid_read(other: Option<Waker>, task: Waker) -> (Arc<SharedStdout>, Arc<Recorded>) {
        let cell = Arc::new(OnceLock::new());
        let recorded = Arc::new(Recorded::default());
        let stream = ArrivesMidRead { shared: cell.clone(), other, task, reads: 0 };
        let shared = SharedStdout::new(mcp_tests::support::an_epoch(), Box::new(stream), recorded.clone());
        cell.set(shared.clone()).expect("set once");
        (shared, recorded)
    }

    /// The reader task finds the lock taken while the stream fires: the holder, still the one
    /// reading next, is woken to look again (nobody else would read the bytes).
    #[test]
    fn bytes_that_fire_the_stream_while_the_lock_is_held_are_read_by_the_holder() {
        let (task_wakes, task) = counted();
        let (shared, recorded) = arrives_mid_read(None, task);
        let (wakes, waker) = counted();
        let mut cx = Context::from_waker(&waker);
        assert!(shared.poll_caller(&mut cx).is_pending());
        assert!(wakes.count() >= 1, "the holder must look again: nobody else would read the bytes");
        let task_woken = task_wakes.count();
        assert!(shared.poll_caller(&mut cx).is_pending());
        assert_eq!(lock(&recorded.0).as_slice(), b"hello\n");
        shared.hand_back(&waker);
        assert_eq!(task_wakes.count(), task_woken, "nothing left to read: the task sleeps");
    }

    /// The race behind a callback's own call that never finished: a caller polls while another
    /// holds the lock, the stream fires and wakes it, it polls again and still finds the lock
    /// taken; the holder's outcome came in its read, so it stops polling and hands back. The
    /// caller that found the lock taken must be woken again and read the bytes (its waker is
    /// the one of its most recent poll); before, only the holder woke itself, and stopped.
    #[test]
    fn a_holder_that_stops_after_the_stream_fired_wakes_the_caller_that_found_the_lock_taken() {
        let (other_wakes, other) = counted();
        let (_, task) = counted();
        let (shared, recorded) = arrives_mid_read(Some(other.clone()), task);
        let (_, holder) = counted();
        assert!(shared.poll_caller(&mut Context::from_waker(&holder)).is_pending());
        // The holder's outcome came: it stops.
        shared.hand_back(&holder);
        // Once by the stream's fire, before its last poll; then at least once after it.
        assert!(
            other_wakes.count() >= 2,
            "the caller that found the lock taken after the stream fired is woken again"
        );
        assert!(shared.poll_caller(&mut Context::from_waker(&other)).is_pending());
        assert_eq!(lock(&recorded.0).as_slice(), b"hello\n", "and reads the bytes");
    }

    /// A caller whose read stopped at the chunk limit (the stream still readable, and no
    /// reactor will say so) and that then stops (its outcome came in that chunk) hands the
    /// reading to the reader task, woken to read on.
    #[test]
    fn a_caller_that_stops_after_a_full_chunk_wakes_the_reader_task() {
        let shared = SharedStdout::new(
            mcp_tests::support::an_epoch(),
            Box::new(crate::test_streams::Endless::default()),
            Arc::new(Recorded::default()),
        );
        let (task_wakes, task) = counted();
        assert!(shared.poll_task(&mut Context::from_waker(&task)).is_pending());
        let (_, caller) = counted();
        assert!(shared.poll_caller(&mut Context::from_waker(&caller)).is_pending());
        let task_woken = task_wakes.count();
        shared.hand_back(&caller);
        assert!(task_wakes.count() > task_woken, "the task reads what the caller left");
    }

    #[test]
    fn a_server_writing_without_pause_gets_one_chunk_per_poll() {
        let recorded = Arc::new(Recorded::default());
        let shared = SharedStdout::new(
            mcp_tests::support::an_epoch(),
            Box::new(crate::test_streams::Endless::default()),
            recorded.clone(),
        );
        let (wakes, waker) = counted();
        let mut cx = Context::from_waker(&waker);
        for poll in 1..=3 {
            assert!(shared.poll_caller(&mut cx).is_pending());
            assert_eq!(wakes.count(), poll, "the poller wakes itself to read on");
            assert_eq!(lock(&recorded.0).len(), poll * READ_CHUNK, "one chunk's worth per poll");
        }
    }

    #[test]
    fn a_stream_out_of_budget_yields_to_the_runtime_instead_of_spinning() {
        let shared = SharedStdout::new(
            mcp_tests::support::an_epoch(),
            Box::new(OutOfBudget::default()),
            Arc::new(Recorded::default()),
        );
        let (wakes, waker) = counted();
        let mut cx = Context::from_waker(&waker);
        assert!(shared.poll_caller(&mut cx).is_pending());
        assert!(wakes.count() >= 1, "polled again once the task yielded");
    }

    /// A call polled once on a callback's thread and then by a task of the runtime's (another
    /// waker): the stream's wake-up goes to the waker of its most recent poll.
    #[test]
    fn the_stream_wakes_the_waker_of_a_callers_most_recent_poll() {
        let (stream, registered) = Quiet::new();
        let shared = SharedStdout::new(
            mcp_tests::support::an_epoch(),
            Box::new(stream),
            Arc::new(Recorded::default()),
        );
        let (first_wakes, first) = counted();
        let (second_wakes, second) = counted();
        assert!(shared.poll_caller(&mut Context::from_waker(&first)).is_pending());
        assert!(shared.poll_caller(&mut Context::from_waker(&second)).is_pending());
        lock(&registered).take().expect("the stream holds the relay").wake();
        assert_eq!(second_wakes.count(), 1, "the most recent poll's waker is woken");
        assert_eq!(first_wakes.count(), 0);
    }
}
