//! Streams and wakers for the readers' unit tests.

use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};

use futures_lite::io::AsyncRead;

/// A stream that always has bytes (a server writing without pause), 4 KiB per read; it fails
/// the test past 1000 reads.
#[derive(Default)]
pub(crate) struct Endless {
    reads: usize,
}

impl AsyncRead for Endless {
    fn poll_read(mut self: Pin<&mut Self>, _: &mut Context<'_>, buf: &mut [u8]) -> Poll<io::Result<usize>> {
        self.reads += 1;
        assert!(self.reads <= 1000, "read on and on within one poll");
        let n = buf.len().min(4096);
        buf[..n].fill(b'y');
        Poll::Ready(Ok(n))
    }
}

/// A stream with nothing to read that keeps the waker of its last poll (for a test to fire).
pub(crate) struct Quiet(Arc<Mutex<Option<Waker>>>);

impl Quiet {
    /// The stream, and where it keeps the waker.
    pub(crate) fn new() -> (Self, Arc<Mutex<Option<Waker>>>) {
        let registered = Arc::new(Mutex::new(None));
        (Self(registered.clone()), registered)
    }
}

impl AsyncRead for Quiet {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, _: &mut [u8]) -> Poll<io::Result<usize>> {
        *mcpwire_host::lock(&self.0) = Some(cx.waker().clone());
        Poll::Pending
    }
}

/// Counts its wake-ups.
#[derive(Default)]
pub(crate) struct Wakes(AtomicUsize);

impl Wake for Wakes {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

impl Wakes {
    /// The wake-ups so far.
    pub(crate) fn count(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }
}

/// A counting waker.
pub(crate) fn counted() -> (Arc<Wakes>, Waker) {
    let wakes = Arc::new(Wakes::default());
    (wakes.clone(), Waker::from(wakes))
}
