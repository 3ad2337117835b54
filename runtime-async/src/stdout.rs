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
use mcp_core::{Epoch, Input};
use mcp_host::{lock, Feed};

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
    /// The reactor fired since the last read attempt.
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
    /// A poller that finds the lock taken leaves the reading to the holder, so the holder looks
    /// again after letting go: if the stream fired after its last read attempt (the wake-up may
    /// have gone to a poller that found the lock taken and left), the holder wakes `poller`
    /// (itself) to read once more. Without that second look, bytes that arrived in that window
    /// would wait for a wake-up that never comes. The second read is a wake-up, not a loop here:
    /// tokio's cooperative budget answers `Pending` and fires the stream's waker at once until
    /// the task yields, so reading again in the same poll would spin forever.
    ///
    /// One poll reads at most about [`READ_CHUNK`] bytes: from a server that writes without
    /// pause, the poller wakes itself and gives its executor a turn (a caller then sees the
    /// outcome its read delivered) instead of reading for as long as the server writes.
    fn read(&self, poller: &Waker) -> Poll<()> {
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
                        poller.wake_by_ref();
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
                poller.wake_by_ref();
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
        self.read(cx.waker())
    }

    /// A caller's poll: it reads the stream while it waits for its reply.
    pub(crate) fn poll_caller(&self, cx: &mut Context<'_>) -> Poll<()> {
        {
            let mut state = lock(&self.relay.0);
            if !state.next.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
                state.next = Some(cx.waker().clone());
            }
        }
        self.read(cx.waker())
    }

    /// A caller that polled stops (its outcome came, or it was dropped): the reader task
    /// reads next, woken at once if anything arrived since the caller's last read.
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
    /// nothing and registers the relay, which fires at once; the other caller it wakes polls
    /// straight away and finds the lock taken. The bytes are there from the second read on.
    struct ArrivesMidRead {
        shared: Arc<OnceLock<Arc<SharedStdout>>>,
        reads: usize,
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
                    let shared = self.shared.get().expect("set before the first read");
                    // Another caller polls now: the stream's wake-up goes to it.
                    lock(&shared.relay.0).next = Some(Waker::noop().clone());
                    cx.waker().wake_by_ref();
                    assert!(
                        shared.read(Waker::noop()).is_pending(),
                        "the lock is held: the woken caller leaves"
                    );
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

    /// Counts its wake-ups.
    #[derive(Default)]
    struct Wakes(std::sync::atomic::AtomicUsize);

    impl Wake for Wakes {
        fn wake(self: Arc<Self>) {
            self.wake_by_ref();
        }

        fn wake_by_ref(self: &Arc<Self>) {
            self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
    }

    impl Wakes {
        fn count(&self) -> usize {
            self.0.load(std::sync::atomic::Ordering::SeqCst)
        }
    }

    #[test]
    fn bytes_that_fire_the_stream_while_the_lock_is_held_are_read_by_the_holder() {
        let cell = Arc::new(OnceLock::new());
        let recorded = Arc::new(Recorded::default());
        let stream = ArrivesMidRead { shared: cell.clone(), reads: 0 };
        let shared = SharedStdout::new(mcp_tests::support::an_epoch(), Box::new(stream), recorded.clone());
        cell.set(shared.clone()).expect("set once");
        let wakes = Arc::new(Wakes::default());
        let waker = Waker::from(wakes.clone());
        let mut cx = Context::from_waker(&waker);
        assert!(shared.poll_caller(&mut cx).is_pending());
        assert!(wakes.count() >= 1, "the holder must look again: nobody else would read the bytes");
        assert!(shared.poll_caller(&mut cx).is_pending());
        assert_eq!(lock(&recorded.0).as_slice(), b"hello\n");
    }

    #[test]
    fn a_server_writing_without_pause_gets_one_chunk_per_poll() {
        let recorded = Arc::new(Recorded::default());
        let shared = SharedStdout::new(
            mcp_tests::support::an_epoch(),
            Box::new(crate::test_streams::Endless::default()),
            recorded.clone(),
        );
        let wakes = Arc::new(Wakes::default());
        let waker = Waker::from(wakes.clone());
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
        let wakes = Arc::new(Wakes::default());
        let waker = Waker::from(wakes.clone());
        let mut cx = Context::from_waker(&waker);
        assert!(shared.poll_caller(&mut cx).is_pending());
        assert!(wakes.count() >= 1, "polled again once the task yielded");
    }
}
