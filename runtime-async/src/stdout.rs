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
        loop {
            match Pin::new(&mut *reader).poll_read(&mut cx, buf) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Ok(n)) if n > 0 => {
                    if !self.feed.feed(Input::Stdout(self.epoch, buf[..n].to_vec())) {
                        break;
                    }
                }
                Poll::Ready(_) => {
                    self.feed.feed(Input::StdoutEof(self.epoch));
                    break;
                }
            }
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
    /// reads next, starting with anything that arrived since the caller's last read.
    pub(crate) fn hand_back(&self, caller: &Waker) {
        let fired = {
            let mut state = lock(&self.relay.0);
            if !state.next.as_ref().is_some_and(|w| w.will_wake(caller)) {
                // Another caller polls now (or the task already reads): it reads on.
                return;
            }
            state.next = state.task.clone();
            state.fired
        };
        if fired {
            let _ = self.read();
        }
    }
}
