//! futures-io streams as hyper's IO traits, written once for every runtime.

use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

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
}

impl HyperIo {
    pub(crate) fn new(stream: BoxedStream) -> Self {
        Self { stream, scratch: Vec::new() }
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
        let want = buf.remaining().min(READ_CHUNK);
        let n = ready!(Pin::new(&mut this.stream).poll_read(cx, &mut this.scratch[..want]))?;
        buf.put_slice(&this.scratch[..n]);
        Poll::Ready(Ok(()))
    }
}

impl hyper::rt::Write for HyperIo {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_close(cx)
    }
}
