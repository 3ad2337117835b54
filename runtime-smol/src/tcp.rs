//! A TCP stream that waits for readability before it reads again once a read emptied it.
//! async-io's own stream tries the read first on every poll, which after an emptied socket can
//! only say "would block": one failed `recv` per response that this one saves. Only for a
//! stream one task reads (hyper's connection task): async-io keeps one waker per direction for
//! `poll_readable`, so two tasks waiting on the same source would wake each other in turn (a
//! child's stdout, read by its reader task and by callers, keeps async-io's own stream).

use std::io::{self, Read};
use std::net::TcpStream;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{ready, Context, Poll};

use async_io::Async;
use futures_lite::io::{AsyncRead, AsyncWrite};

/// The reading side of a socket registered with async-io, read by one task.
pub(crate) struct ReadyFirst<T> {
    io: Arc<Async<T>>,
    /// The last read emptied the socket (or found it empty): wait for readability first.
    drained: bool,
}

impl<T> ReadyFirst<T> {
    pub(crate) fn new(io: Arc<Async<T>>) -> Self {
        Self { io, drained: false }
    }
}

impl<T> AsyncRead for ReadyFirst<T>
where
    for<'a> &'a T: Read,
{
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut [u8]) -> Poll<io::Result<usize>> {
        loop {
            if self.drained {
                ready!(self.io.poll_readable(cx))?;
                self.drained = false;
            }
            let mut source: &T = self.io.get_ref();
            match source.read(buf) {
                // A short read emptied the socket; its end stays readable.
                Ok(n) => {
                    self.drained = n < buf.len();
                    return Poll::Ready(Ok(n));
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => self.drained = true,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Poll::Ready(Err(e)),
            }
        }
    }
}

/// A connected TCP stream: reads as [`ReadyFirst`], writes through async-net's stream.
pub(crate) struct Tcp {
    reader: ReadyFirst<TcpStream>,
    writer: async_net::TcpStream,
}

impl Tcp {
    pub(crate) fn new(stream: async_net::TcpStream) -> Self {
        Self { reader: ReadyFirst::new(stream.clone().into()), writer: stream }
    }

    /// The stream for the HTTP client, with the check of its socket.
    pub(crate) fn connection(stream: async_net::TcpStream) -> mcpwire_async::TcpConnection {
        let socket: Arc<Async<TcpStream>> = stream.clone().into();
        mcpwire_async::TcpConnection {
            stream: Box::new(Self::new(stream)),
            idle_check: Box::new(move || mcpwire_async::socket_idle(socket.get_ref())),
        }
    }
}

impl AsyncRead for Tcp {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut [u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.reader).poll_read(cx, buf)
    }
}

impl AsyncWrite for Tcp {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.writer).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.writer).poll_flush(cx)
    }

    fn poll_close(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.writer).poll_close(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_lite::io::{AsyncReadExt, AsyncWriteExt};

    /// Reads what arrives in pieces, after short reads and empty sockets, up to the end.
    #[test]
    fn reads_every_piece_and_the_end() {
        futures_lite::future::block_on(async {
            let listener = async_net::TcpListener::bind(("127.0.0.1", 0)).await.unwrap();
            let addr = listener.local_addr().unwrap();
            let server = async {
                let (mut peer, _) = listener.accept().await.unwrap();
                for piece in [&b"first "[..], b"second ", b"third"] {
                    async_io::Timer::after(std::time::Duration::from_millis(20)).await;
                    peer.write_all(piece).await.unwrap();
                }
                let mut echo = [0u8; 4];
                peer.read_exact(&mut echo).await.unwrap();
                assert_eq!(&echo, b"ping");
            };
            let client = async {
                let mut stream = Tcp::new(async_net::TcpStream::connect(addr).await.unwrap());
                stream.write_all(b"ping").await.unwrap();
                let mut got = Vec::new();
                let mut buf = [0u8; 64];
                loop {
                    let n = stream.read(&mut buf).await.unwrap();
                    if n == 0 {
                        break;
                    }
                    got.extend_from_slice(&buf[..n]);
                }
                assert_eq!(got, b"first second third");
            };
            let stuck = async {
                async_io::Timer::after(std::time::Duration::from_secs(20)).await;
                panic!("a read waited for readability that had already come");
            };
            futures_lite::future::or(
                async {
                    futures_lite::future::zip(server, client).await;
                },
                stuck,
            )
            .await;
        });
    }
}
