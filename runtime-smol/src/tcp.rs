//! TCP for the HTTP client: async-io's `Async<TcpStream>`, remembering when the socket last
//! said "would block".
//!
//! async-io tries the system call first on every read poll. The HTTP client polls its
//! connection whenever its task wakes, for whatever reason, so without this a call would cost
//! several `recv`s that find nothing. After a read would block, the next ones ask the reactor
//! first and only read once it reports the socket readable.

use std::io::{self, Read};
use std::net::{SocketAddr, TcpStream};
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use async_io::Async;
use futures_lite::{AsyncRead, AsyncWrite};

/// A connected socket (no Nagle delay).
pub(crate) struct Tcp {
    io: Async<TcpStream>,
    /// The last read would have blocked and the reactor has not said readable since.
    read_blocked: bool,
}

impl Tcp {
    /// Connects to the first address of `host:port` that accepts.
    pub(crate) async fn connect(host: &str, port: u16) -> io::Result<Self> {
        let addrs: Vec<SocketAddr> = async_net::resolve((host, port)).await?;
        let mut last = io::Error::new(io::ErrorKind::NotFound, format!("{host} has no address"));
        for addr in addrs {
            match Async::<TcpStream>::connect(addr).await {
                Ok(io) => {
                    io.get_ref().set_nodelay(true)?;
                    return Ok(Self { io, read_blocked: false });
                }
                Err(e) => last = e,
            }
        }
        Err(last)
    }
}

impl AsyncRead for Tcp {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut [u8]) -> Poll<io::Result<usize>> {
        loop {
            if self.read_blocked {
                ready!(self.io.poll_readable(cx))?;
                self.read_blocked = false;
            }
            let mut socket: &TcpStream = self.io.get_ref();
            match socket.read(buf) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => self.read_blocked = true,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                other => return Poll::Ready(other),
            }
        }
    }
}

impl AsyncWrite for Tcp {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.io).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_close(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_close(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_lite::{AsyncReadExt, AsyncWriteExt};

    #[test]
    fn connects_by_name_and_reads_after_would_block() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let server = std::thread::spawn(move || {
            let (mut peer, _) = listener.accept().unwrap();
            let mut got = [0u8; 4];
            std::io::Read::read_exact(&mut peer, &mut got).unwrap();
            // The client's first read finds nothing and waits for the reactor.
            std::thread::sleep(std::time::Duration::from_millis(50));
            std::io::Write::write_all(&mut peer, b"pong").unwrap();
            got
        });
        async_io::block_on(async {
            let mut tcp = Tcp::connect("localhost", port).await.unwrap();
            tcp.write_all(b"ping").await.unwrap();
            let mut reply = [0u8; 4];
            tcp.read_exact(&mut reply).await.unwrap();
            assert_eq!(&reply, b"pong");
        });
        assert_eq!(&server.join().unwrap(), b"ping");
        let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = closed.local_addr().unwrap().port();
        drop(closed);
        assert!(async_io::block_on(Tcp::connect("127.0.0.1", port)).is_err());
    }
}
