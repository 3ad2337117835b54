//! SOCKS tunnels: SOCKS5 (RFC 1928) with username/password authentication (RFC 1929), SOCKS5h
//! (the proxy resolves the name), SOCKS4 and SOCKS4a, over any byte stream.
//!
//! Written here rather than taken from a crate: the maintained SOCKS clients are tied to
//! tokio's IO traits, while this client runs on any runtime through `futures-io`; and the
//! client side is a few fixed-size messages, each read bounded by its message's size (the time
//! is bounded by the connect timeout around the whole connection).

use std::net::{IpAddr, SocketAddr};

use futures_lite::{AsyncReadExt, AsyncWriteExt};
use mcpwire_host::{Proxy, ProxyKind};

use super::hyper_io::BoxedStream;

/// Where the tunnel goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Destination<'a> {
    /// An address the client resolved (or checked).
    Address(SocketAddr),
    /// A name for the proxy to resolve (SOCKS5h, SOCKS4a), and a port.
    Name(&'a str, u16),
}

/// Opens a tunnel to `to` through `stream`, a connection to the SOCKS `proxy`.
pub(crate) async fn connect(
    stream: BoxedStream,
    proxy: &Proxy,
    to: Destination<'_>,
) -> Result<BoxedStream, String> {
    // An IP literal is sent as an address, whoever resolves names.
    let to = match to {
        Destination::Name(host, port) => match host.parse::<IpAddr>() {
            Ok(ip) => Destination::Address(SocketAddr::new(ip, port)),
            Err(_) => to,
        },
        address => address,
    };
    match proxy.kind {
        ProxyKind::Socks4 | ProxyKind::Socks4a => socks4(stream, proxy, to).await,
        _ => socks5(stream, proxy, to).await,
    }
}

async fn send(stream: &mut BoxedStream, bytes: &[u8]) -> Result<(), String> {
    stream.write_all(bytes).await.map_err(|e| format!("SOCKS proxy: sending failed: {e}"))?;
    stream.flush().await.map_err(|e| format!("SOCKS proxy: sending failed: {e}"))
}

async fn receive(stream: &mut BoxedStream, buf: &mut [u8]) -> Result<(), String> {
    stream.read_exact(buf).await.map_err(|e| match e.kind() {
        std::io::ErrorKind::UnexpectedEof => {
            "SOCKS proxy: it closed the connection during the handshake".into()
        }
        _ => format!("SOCKS proxy: reading its answer failed: {e}"),
    })
}

/// `bytes` if no longer than a SOCKS length byte allows (and, for SOCKS4, without NUL).
fn field<'a>(bytes: &'a [u8], what: &str) -> Result<&'a [u8], String> {
    if bytes.len() > 255 || bytes.contains(&0) {
        return Err(format!("SOCKS proxy: the {what} is too long or holds a NUL byte"));
    }
    Ok(bytes)
}

async fn socks5(mut stream: BoxedStream, proxy: &Proxy, to: Destination<'_>) -> Result<BoxedStream, String> {
    let credentials = proxy.username.is_some() || proxy.password.is_some();
    let greeting: &[u8] = if credentials { &[5, 2, 0, 2] } else { &[5, 1, 0] };
    send(&mut stream, greeting).await?;
    let mut choice = [0u8; 2];
    receive(&mut stream, &mut choice).await?;
    if choice[0] != 5 {
        return Err("SOCKS proxy: the answer is not SOCKS5".into());
    }
    match choice[1] {
        0 => {}
        2 if credentials => {
            let user = field(proxy.username.as_deref().unwrap_or("").as_bytes(), "user name")?;
            let password = field(proxy.password.as_deref().unwrap_or("").as_bytes(), "password")?;
            let mut message = vec![1, user.len() as u8];
            message.extend_from_slice(user);
            message.push(password.len() as u8);
            message.extend_from_slice(password);
            send(&mut stream, &message).await?;
            let mut status = [0u8; 2];
            receive(&mut stream, &mut status).await?;
            if status[1] != 0 {
                return Err("SOCKS proxy: it refused the user name and password".into());
            }
        }
        0xFF => {
            let offered = if credentials {
                "none or username/password"
            } else {
                "none (the proxy URL has no credentials)"
            };
            return Err(format!(
                "SOCKS proxy: it accepts none of the authentication methods offered: {offered}"
            ));
        }
        other => {
            return Err(format!("SOCKS proxy: it chose authentication method {other}, which was not offered"))
        }
    }
    let mut request = vec![5, 1, 0];
    let port = match to {
        Destination::Address(SocketAddr::V4(a)) => {
            request.push(1);
            request.extend_from_slice(&a.ip().octets());
            a.port()
        }
        Destination::Address(SocketAddr::V6(a)) => {
            request.push(4);
            request.extend_from_slice(&a.ip().octets());
            a.port()
        }
        Destination::Name(host, port) => {
            let host = field(host.as_bytes(), "host name")?;
            request.extend_from_slice(&[3, host.len() as u8]);
            request.extend_from_slice(host);
            port
        }
    };
    request.extend_from_slice(&port.to_be_bytes());
    send(&mut stream, &request).await?;
    let mut head = [0u8; 4];
    receive(&mut stream, &mut head).await?;
    if head[0] != 5 {
        return Err("SOCKS proxy: the answer is not SOCKS5".into());
    }
    if head[1] != 0 {
        return Err(format!("SOCKS proxy: it refused the connection: {}", socks5_reply(head[1])));
    }
    // The bound address that follows is read and dropped: nothing uses it.
    let address_len = match head[3] {
        1 => 4,
        4 => 16,
        3 => {
            let mut len = [0u8; 1];
            receive(&mut stream, &mut len).await?;
            usize::from(len[0])
        }
        other => return Err(format!("SOCKS proxy: its answer has an unknown address type {other}")),
    };
    let mut bound = [0u8; 255 + 2];
    receive(&mut stream, &mut bound[..address_len + 2]).await?;
    Ok(stream)
}

/// What a SOCKS5 reply code means (RFC 1928, section 6).
fn socks5_reply(code: u8) -> String {
    let meaning = match code {
        1 => "general failure",
        2 => "not allowed by its rules",
        3 => "network unreachable",
        4 => "host unreachable",
        5 => "connection refused",
        6 => "TTL expired",
        7 => "command not supported",
        8 => "address type not supported",
        _ => "unknown reply",
    };
    format!("{meaning} (reply {code})")
}

async fn socks4(mut stream: BoxedStream, proxy: &Proxy, to: Destination<'_>) -> Result<BoxedStream, String> {
    let user = field(proxy.username.as_deref().unwrap_or("").as_bytes(), "user id")?;
    let mut request = vec![4, 1];
    match to {
        Destination::Address(SocketAddr::V4(a)) => {
            request.extend_from_slice(&a.port().to_be_bytes());
            request.extend_from_slice(&a.ip().octets());
            request.extend_from_slice(user);
            request.push(0);
        }
        Destination::Address(SocketAddr::V6(_)) => {
            return Err("SOCKS proxy: SOCKS4 cannot reach an IPv6 address".into());
        }
        Destination::Name(host, port) if proxy.kind == ProxyKind::Socks4a => {
            let host = field(host.as_bytes(), "host name")?;
            request.extend_from_slice(&port.to_be_bytes());
            // 0.0.0.x with x non-zero: the name follows the user id (SOCKS4a).
            request.extend_from_slice(&[0, 0, 0, 1]);
            request.extend_from_slice(user);
            request.push(0);
            request.extend_from_slice(host);
            request.push(0);
        }
        Destination::Name(host, _) => {
            return Err(format!("SOCKS proxy: SOCKS4 needs an IPv4 address, not the name {host}"));
        }
    }
    send(&mut stream, &request).await?;
    let mut reply = [0u8; 8];
    receive(&mut stream, &mut reply).await?;
    if reply[0] != 0 {
        return Err("SOCKS proxy: the answer is not SOCKS4".into());
    }
    match reply[1] {
        0x5A => Ok(stream),
        0x5B => Err("SOCKS proxy: it refused the connection (request rejected or failed)".into()),
        0x5C | 0x5D => Err("SOCKS proxy: it refused the connection (its identd check failed)".into()),
        other => Err(format!("SOCKS proxy: it answered with unknown status {other:#x}")),
    }
}

#[cfg(test)]
mod tests {
    use std::pin::Pin;
    use std::sync::{Arc, Mutex};
    use std::task::{Context, Poll};

    use futures_lite::future::block_on;
    use futures_lite::{AsyncRead, AsyncWrite};
    use mcpwire_host::{Proxies, ProxySetting};

    use super::*;

    /// A stream that answers with `answer` and records what is written.
    struct Scripted {
        answer: futures_lite::io::Cursor<Vec<u8>>,
        written: Arc<Mutex<Vec<u8>>>,
    }

    impl AsyncRead for Scripted {
        fn poll_read(
            mut self: Pin<&mut Self>,
            cx: &mut Context<'_>,
            buf: &mut [u8],
        ) -> Poll<std::io::Result<usize>> {
            Pin::new(&mut self.answer).poll_read(cx, buf)
        }
    }

    impl AsyncWrite for Scripted {
        fn poll_write(self: Pin<&mut Self>, _: &mut Context<'_>, buf: &[u8]) -> Poll<std::io::Result<usize>> {
            self.written.lock().unwrap().extend_from_slice(buf);
            Poll::Ready(Ok(buf.len()))
        }
        fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
            Poll::Ready(Ok(()))
        }
        fn poll_close(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
            Poll::Ready(Ok(()))
        }
    }

    fn proxy(url: &str) -> Proxy {
        let proxies = Proxies::resolve(&ProxySetting::Url(url.into())).unwrap();
        proxies.for_url(&mcpwire_core::mcp_servers::HttpUrl::parse("http://x/").unwrap()).unwrap().clone()
    }

    /// Runs a handshake against `answer`: what was sent, and the outcome.
    fn handshake(url: &str, to: Destination<'_>, answer: &[u8]) -> (Vec<u8>, Result<(), String>) {
        let written = Arc::new(Mutex::new(Vec::new()));
        let stream: BoxedStream = Box::new(Scripted {
            answer: futures_lite::io::Cursor::new(answer.to_vec()),
            written: written.clone(),
        });
        let outcome = block_on(connect(stream, &proxy(url), to)).map(drop);
        let sent = written.lock().unwrap().clone();
        (sent, outcome)
    }

    #[test]
    fn socks5h_sends_the_name_and_socks5_an_address() {
        let ok = [5, 0, 5, 0, 0, 1, 10, 0, 0, 1, 0x1F, 0x90];
        let (sent, outcome) = handshake("socks5h://p:1080", Destination::Name("mcp.test", 443), &ok);
        outcome.unwrap();
        let mut expected = vec![5, 1, 0, 5, 1, 0, 3, 8];
        expected.extend_from_slice(b"mcp.test");
        expected.extend_from_slice(&[1, 187]);
        assert_eq!(sent, expected);
        let to = Destination::Address("[::1]:8080".parse().unwrap());
        let bound_by_name = [5, 0, 5, 0, 0, 3, 1, b'h', 0, 80];
        let (sent, outcome) = handshake("socks5://p", to, &bound_by_name);
        outcome.unwrap();
        let mut expected = vec![5, 1, 0, 5, 1, 0, 4];
        expected.extend_from_slice(&"::1".parse::<std::net::Ipv6Addr>().unwrap().octets());
        expected.extend_from_slice(&[0x1F, 0x90]);
        assert_eq!(sent, expected);
        let (sent, _) = handshake("socks5h://p", Destination::Name("127.0.0.1", 80), &ok);
        assert_eq!(&sent[3..], &[5, 1, 0, 1, 127, 0, 0, 1, 0, 80], "an IP literal goes as an address");
    }

    #[test]
    fn socks5_credentials_and_refusals() {
        let answer = [5, 2, 1, 0, 5, 0, 0, 1, 0, 0, 0, 0, 0, 0];
        let (sent, outcome) = handshake("socks5://al:pw@p", Destination::Name("h", 1), &answer);
        outcome.unwrap();
        assert_eq!(&sent[..11], &[5, 2, 0, 2, 1, 2, b'a', b'l', 2, b'p', b'w']);
        let (_, refused) = handshake("socks5://al:pw@p", Destination::Name("h", 1), &[5, 2, 1, 1]);
        assert!(refused.unwrap_err().contains("user name and password"));
        let (_, none) = handshake("socks5://p", Destination::Name("h", 1), &[5, 0xFF]);
        assert!(none.unwrap_err().contains("no credentials"));
        let (_, unreachable) = handshake("socks5://p", Destination::Name("h", 1), &[5, 0, 5, 4, 0, 1]);
        assert!(unreachable.unwrap_err().contains("host unreachable (reply 4)"));
        let (_, closed) = handshake("socks5://p", Destination::Name("h", 1), &[5, 0, 5]);
        assert!(closed.unwrap_err().contains("closed the connection"));
        let (_, not_socks) = handshake("socks5://p", Destination::Name("h", 1), b"HTTP/1.1 400\r\n");
        assert!(not_socks.unwrap_err().contains("not SOCKS5"));
        let long = "h".repeat(256);
        let (_, too_long) = handshake("socks5h://p", Destination::Name(&long, 1), &[5, 0]);
        assert!(too_long.unwrap_err().contains("host name is too long"));
    }

    #[test]
    fn socks4_and_socks4a() {
        let granted = [0, 0x5A, 0, 0, 0, 0, 0, 0];
        let to = Destination::Address("10.1.2.3:80".parse().unwrap());
        let (sent, outcome) = handshake("socks4://bob@p", to, &granted);
        outcome.unwrap();
        assert_eq!(sent, [4, 1, 0, 80, 10, 1, 2, 3, b'b', b'o', b'b', 0]);
        let (sent, outcome) = handshake("socks4a://p", Destination::Name("mcp.test", 443), &granted);
        outcome.unwrap();
        let mut expected = vec![4, 1, 1, 187, 0, 0, 0, 1, 0];
        expected.extend_from_slice(b"mcp.test\0");
        assert_eq!(sent, expected);
        let v6 = Destination::Address("[::1]:80".parse().unwrap());
        assert!(handshake("socks4://p", v6, &granted).1.unwrap_err().contains("IPv6"));
        let (_, rejected) = handshake("socks4://p", to, &[0, 0x5B, 0, 0, 0, 0, 0, 0]);
        assert!(rejected.unwrap_err().contains("rejected"));
    }
}
