//! A tunnelling proxy on a loopback port, for the proxy tests: an HTTP `CONNECT` proxy (over
//! plain TCP, or TLS for an `https://` proxy), SOCKS5 (optionally requiring a user name and
//! password) and SOCKS4/4a. It records each tunnel's destination as the client named it, then
//! relays bytes both ways. Names are resolved from a fixed table (never DNS): `localhost` and
//! `mcp.test` are 127.0.0.1. std and rustls, a thread per tunnel, every handshake read bounded.

use std::io::{self, Read, Write};
use std::net::{Ipv4Addr, Ipv6Addr, Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

/// What the proxy speaks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProxyProtocol {
    /// HTTP `CONNECT`; with `tls`, behind TLS with this certificate chain and key (PEM).
    Connect {
        /// The TLS certificate chain and key, for an `https://` proxy.
        tls: Option<(Vec<u8>, Vec<u8>)>,
    },
    /// SOCKS5; with `credentials`, username/password authentication is required.
    Socks5 {
        /// The user name and password required.
        credentials: Option<(String, String)>,
    },
    /// SOCKS4 and SOCKS4a.
    Socks4,
}

/// A running proxy; it stops accepting when dropped (tunnels already open run to their end).
#[derive(Debug)]
pub struct TunnelProxy {
    addr: SocketAddr,
    seen: Arc<Mutex<Vec<String>>>,
    listener: Option<TcpListener>,
}

impl TunnelProxy {
    /// Starts a proxy on a free loopback port.
    pub fn start(protocol: ProxyProtocol) -> Self {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("bind a loopback port");
        let addr = listener.local_addr().expect("local address");
        let seen = Arc::new(Mutex::new(Vec::new()));
        let accepting = listener.try_clone().expect("clone the listener");
        let (recorded, protocol) = (seen.clone(), Arc::new(protocol));
        thread::spawn(move || {
            for stream in accepting.incoming() {
                let Ok(stream) = stream else { return };
                let (recorded, protocol) = (recorded.clone(), protocol.clone());
                thread::spawn(move || {
                    let _ = serve(stream, &protocol, &recorded);
                });
            }
        });
        Self { addr, seen, listener: Some(listener) }
    }

    /// The proxy URL with this scheme, e.g. `socks5h://127.0.0.1:PORT`; `https` names the
    /// proxy `localhost` (the name on the test certificate).
    pub fn url(&self, scheme: &str) -> String {
        match scheme {
            "https" => format!("https://localhost:{}", self.addr.port()),
            _ => format!("{scheme}://{}", self.addr),
        }
    }

    /// The tunnels asked for so far, each as `destination` (`name:port` or `address:port`),
    /// with ` as USER` when the client authenticated (SOCKS5) or gave a user id (SOCKS4).
    pub fn tunnels(&self) -> Vec<String> {
        self.seen.lock().unwrap().clone()
    }
}

impl Drop for TunnelProxy {
    fn drop(&mut self) {
        // Wakes the accept loop, which then ends on the error of the closed listener.
        if let Some(listener) = self.listener.take() {
            let _ = TcpStream::connect(self.addr);
            drop(listener);
        }
    }
}

/// A byte stream the proxy talks over: TCP, or TLS on TCP.
trait Stream: Read + Write + Send {}
impl<T: Read + Write + Send> Stream for T {}

fn serve(tcp: TcpStream, protocol: &ProxyProtocol, seen: &Mutex<Vec<String>>) -> io::Result<()> {
    tcp.set_read_timeout(Some(Duration::from_secs(30)))?;
    let client_tcp = tcp.try_clone()?;
    let mut client: Box<dyn Stream> = match protocol {
        ProxyProtocol::Connect { tls: Some((cert, key)) } => {
            let config = crate::support::scripted_http::tls_server_config(cert, key);
            let conn = rustls::ServerConnection::new(config).map_err(io::Error::other)?;
            Box::new(rustls::StreamOwned::new(conn, tcp))
        }
        _ => Box::new(tcp),
    };
    let (destination, user) = match protocol {
        ProxyProtocol::Connect { .. } => (connect_request(&mut client)?, None),
        ProxyProtocol::Socks5 { credentials } => socks5_request(&mut client, credentials.as_ref())?,
        ProxyProtocol::Socks4 => socks4_request(&mut client)?,
    };
    let label = match &user {
        Some(user) => format!("{destination} as {user}"),
        None => destination.clone(),
    };
    seen.lock().unwrap().push(label);
    let server = match resolve(&destination)
        .and_then(|addr| TcpStream::connect_timeout(&addr, Duration::from_secs(5)).ok())
    {
        Some(server) => server,
        None => {
            let refusal: &[u8] = match protocol {
                ProxyProtocol::Connect { .. } => b"HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n",
                ProxyProtocol::Socks5 { .. } => &[5, 4, 0, 1, 0, 0, 0, 0, 0, 0],
                ProxyProtocol::Socks4 => &[0, 0x5B, 0, 0, 0, 0, 0, 0],
            };
            client.write_all(refusal)?;
            return client.flush();
        }
    };
    let granted: &[u8] = match protocol {
        ProxyProtocol::Connect { .. } => b"HTTP/1.1 200 Connection established\r\n\r\n",
        ProxyProtocol::Socks5 { .. } => &[5, 0, 0, 1, 127, 0, 0, 1, 0, 0],
        ProxyProtocol::Socks4 => &[0, 0x5A, 0, 0, 0, 0, 0, 0],
    };
    client.write_all(granted)?;
    client.flush()?;
    relay(client, client_tcp, server)
}

/// The fixed name table.
fn resolve(destination: &str) -> Option<SocketAddr> {
    let (host, port) = destination.rsplit_once(':')?;
    let port: u16 = port.parse().ok()?;
    let host = host.trim_start_matches('[').trim_end_matches(']');
    match host {
        "localhost" | "mcp.test" => Some(SocketAddr::from((Ipv4Addr::LOCALHOST, port))),
        _ => host.parse().ok().map(|ip| SocketAddr::new(ip, port)),
    }
}

/// Copies both ways until either side ends. The client side may be TLS, which cannot be split
/// between two threads, so one thread does both directions, polling each with a short read
/// timeout.
fn relay(mut client: Box<dyn Stream>, client_tcp: TcpStream, mut server: TcpStream) -> io::Result<()> {
    let tick = Some(Duration::from_millis(5));
    client_tcp.set_read_timeout(tick)?;
    server.set_read_timeout(tick)?;
    let mut buf = vec![0u8; 16 * 1024];
    let would_block = |e: &io::Error| matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut);
    loop {
        let mut idle = true;
        match client.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                server.write_all(&buf[..n])?;
                idle = false;
            }
            Err(e) if would_block(&e) => {}
            Err(_) => break,
        }
        match server.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                client.write_all(&buf[..n])?;
                client.flush()?;
                idle = false;
            }
            Err(e) if would_block(&e) => {}
            Err(_) => break,
        }
        if idle {
            thread::yield_now();
        }
    }
    let _ = server.shutdown(Shutdown::Both);
    let _ = client_tcp.shutdown(Shutdown::Both);
    Ok(())
}

/// Reads `CONNECT host:port HTTP/1.1` and its headers (at most 16 KiB); the destination.
fn connect_request(client: &mut Box<dyn Stream>) -> io::Result<String> {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        if client.read(&mut byte)? == 0 || head.len() > 16 * 1024 {
            return Err(io::ErrorKind::InvalidData.into());
        }
        head.push(byte[0]);
    }
    let text = String::from_utf8_lossy(&head);
    let mut words = text.split_whitespace();
    match (words.next(), words.next()) {
        (Some("CONNECT"), Some(destination)) => Ok(destination.to_owned()),
        _ => Err(io::ErrorKind::InvalidData.into()),
    }
}

fn read_exact(client: &mut Box<dyn Stream>, n: usize) -> io::Result<Vec<u8>> {
    let mut buf = vec![0u8; n];
    client.read_exact(&mut buf)?;
    Ok(buf)
}

/// The SOCKS5 greeting, authentication and `CONNECT`: the destination and the user.
fn socks5_request(
    client: &mut Box<dyn Stream>,
    credentials: Option<&(String, String)>,
) -> io::Result<(String, Option<String>)> {
    let head = read_exact(client, 2)?;
    let methods = read_exact(client, usize::from(head[1]))?;
    let wanted = if credentials.is_some() { 2 } else { 0 };
    if head[0] != 5 || !methods.contains(&wanted) {
        client.write_all(&[5, 0xFF])?;
        return Err(io::ErrorKind::PermissionDenied.into());
    }
    client.write_all(&[5, wanted])?;
    let mut user = None;
    if let Some((name, password)) = credentials {
        let version_len = read_exact(client, 2)?;
        let given_name = read_exact(client, usize::from(version_len[1]))?;
        let password_len = read_exact(client, 1)?;
        let given_password = read_exact(client, usize::from(password_len[0]))?;
        if given_name != name.as_bytes() || given_password != password.as_bytes() {
            client.write_all(&[1, 1])?;
            return Err(io::ErrorKind::PermissionDenied.into());
        }
        client.write_all(&[1, 0])?;
        user = Some(name.clone());
    }
    let request = read_exact(client, 4)?;
    let host = match request[3] {
        1 => Ipv4Addr::from(<[u8; 4]>::try_from(read_exact(client, 4)?).unwrap()).to_string(),
        4 => format!("[{}]", Ipv6Addr::from(<[u8; 16]>::try_from(read_exact(client, 16)?).unwrap())),
        3 => {
            let len = read_exact(client, 1)?;
            String::from_utf8_lossy(&read_exact(client, usize::from(len[0]))?).into_owned()
        }
        _ => return Err(io::ErrorKind::InvalidData.into()),
    };
    let port = read_exact(client, 2)?;
    Ok((format!("{host}:{}", u16::from_be_bytes([port[0], port[1]])), user))
}

/// Reads a NUL-terminated field of at most 255 bytes.
fn nul_terminated(client: &mut Box<dyn Stream>) -> io::Result<String> {
    let mut field = Vec::new();
    let mut byte = [0u8; 1];
    loop {
        client.read_exact(&mut byte)?;
        if byte[0] == 0 {
            return Ok(String::from_utf8_lossy(&field).into_owned());
        }
        if field.len() == 255 {
            return Err(io::ErrorKind::InvalidData.into());
        }
        field.push(byte[0]);
    }
}

/// The SOCKS4/4a `CONNECT`: the destination and the user id (if not empty).
fn socks4_request(client: &mut Box<dyn Stream>) -> io::Result<(String, Option<String>)> {
    let head = read_exact(client, 8)?;
    if head[..2] != [4, 1] {
        return Err(io::ErrorKind::InvalidData.into());
    }
    let port = u16::from_be_bytes([head[2], head[3]]);
    let user = nul_terminated(client)?;
    let host = if head[4..7] == [0, 0, 0] && head[7] != 0 {
        nul_terminated(client)?
    } else {
        Ipv4Addr::new(head[4], head[5], head[6], head[7]).to_string()
    };
    Ok((format!("{host}:{port}"), (!user.is_empty()).then_some(user)))
}
