//! Streams for the readers' unit tests.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

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
