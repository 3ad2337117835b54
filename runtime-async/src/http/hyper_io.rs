//! futures-io streams as hyper's IO traits, written once for every runtime.

use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{ready, Context, Poll, Wake, Waker};

use futures_lite::{AsyncRead, AsyncWrite};

/// A byte stream the HTTP client can run over (TCP, TLS over TCP, a proxy tunnel, or whatever a
/// custom [`super::Connector`] returns).
pub trait AsyncStream: AsyncRead + AsyncWrite + Send + Unpin + 'static {}

impl<T: AsyncRead + AsyncWrite + Send + Unpin + 'static> AsyncStream for T {}

/// A boxed [`AsyncStream`].
pub type BoxedStream = Box<dyn AsyncStream>;

/// Largest read per poll (the bytes are copied once into hyper's buffer).
const READ_CHUNK: usize = 16 * 1024;

/// Adapts a futures-io stream to `hyper::rt::Read` and `hyper::rt::Write`.
pub(crate) struct HyperIo {
    stream: BoxedStream,
    /// Where reads land before hyper's (uninitialised) buffer takes them: zeroed once per
    /// connection, not once per read.
    scratch: Vec<u8>,
    /// Remembers that the stream would block until it wakes.
    gate: Arc<ReadGate>,
    /// `gate` as the waker the stream registers (one waker for the connection's life).
    gate_waker: Waker,
}

impl HyperIo {
    pub(crate) fn new(stream: BoxedStream) -> Self {
        let gate = Arc::new(ReadGate::default());
        Self { stream, scratch: Vec::new(), gate_waker: Waker::from(gate.clone()), gate }
    }
}

/// Read readiness, remembered between polls. hyper polls a connection's read side several
/// times per exchange; a stream whose every poll is a system call (async-io's) would answer
/// "would block" to each. After the stream said so, reads wait for its wake-up instead of
/// asking again.
#[derive(Default)]
struct ReadGate(Mutex<GateState>);

#[derive(Default)]
struct GateState {
    /// The stream's last read was pending and it has not woken since.
    blocked: bool,
    /// Wake-ups so far (a wake between a pending read and its bookkeeping is not lost).
    wakes: u64,
    /// The task to wake.
    waker: Option<Waker>,
}

impl Wake for ReadGate {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        let waker = {
            let mut state = mcpwire_host::lock(&self.0);
            state.blocked = false;
            state.wakes += 1;
            state.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

impl ReadGate {
    /// Stores the task's waker; `None` (do not read) while the stream has not woken since it
    /// would block, else the wake count before the read.
    fn before_read(&self, cx: &Context<'_>) -> Option<u64> {
        let mut state = mcpwire_host::lock(&self.0);
        if !state.waker.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
            state.waker = Some(cx.waker().clone());
        }
        (!state.blocked).then_some(state.wakes)
    }

    /// Before a write, flush or shutdown: the task's waker is stored, as the stream is polled
    /// with the gate's. (hyper flushes on every turn of its loop, so a write does not open the
    /// gate: a stream whose write side makes reading possible wakes the waker of the read
    /// that was pending, as the read contract asks, and that wake-up opens it.)
    fn before_write(&self, cx: &Context<'_>) {
        let mut state = mcpwire_host::lock(&self.0);
        if !state.waker.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
            state.waker = Some(cx.waker().clone());
        }
    }

    /// The read was pending: blocked until the stream wakes, unless it woke already (then the
    /// task is woken to read again).
    fn pending(&self, cx: &Context<'_>, wakes_before: u64) {
        let mut state = mcpwire_host::lock(&self.0);
        if state.wakes == wakes_before {
            state.blocked = true;
        } else {
            drop(state);
            cx.waker().wake_by_ref();
        }
    }
}

impl hyper::rt::Read for HyperIo {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        mut buf: hyper::rt::ReadBufCursor<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        if this.scratch.is_empty() {
            this.scratch = vec![0; READ_CHUNK];
        }
        let Some(wakes) = this.gate.before_read(cx) else { return Poll::Pending };
        let want = buf.remaining().min(READ_CHUNK);
        let mut gate_cx = Context::from_waker(&this.gate_waker);
        let polled = Pin::new(&mut this.stream).poll_read(&mut gate_cx, &mut this.scratch[..want]);
        if polled.is_pending() {
            this.gate.pending(cx, wakes);
        }
        let n = ready!(polled)?;
        buf.put_slice(&this.scratch[..n]);
        Poll::Ready(Ok(()))
    }
}

impl HyperIo {
    /// Polls the stream's write side with the gate's waker (so every wake-up of the stream
    /// passes through the gate).
    fn write_side<T>(
        &mut self,
        cx: &Context<'_>,
        f: impl FnOnce(Pin<&mut BoxedStream>, &mut Context<'_>) -> Poll<T>,
    ) -> Poll<T> {
        self.gate.before_write(cx);
        let mut gate_cx = Context::from_waker(&self.gate_waker);
        f(Pin::new(&mut self.stream), &mut gate_cx)
    }
}

impl hyper::rt::Write for HyperIo {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        self.write_side(cx, |s, cx| s.poll_write(cx, buf))
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.write_side(cx, |s, cx| s.poll_flush(cx))
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.write_side(cx, |s, cx| s.poll_close(cx))
    }
}
