//! Each fault against a plain loopback HTTP echo peer (a request's body comes back as the
//! response's), the client side written by hand so every byte and every FIN or RST is seen.

use std::io::{self, Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use super::{Fault, FaultProxy, Plan, MAX_CONNECTIONS};

/// The echo peer: keep-alive, `Content-Length` framing both ways.
struct Peer {
    addr: SocketAddr,
    /// The bodies of the complete requests received.
    seen: Arc<Mutex<Vec<Vec<u8>>>>,
    /// Connections that ended in the middle of a request.
    cut: Arc<AtomicUsize>,
    connections: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
}

impl Peer {
    fn start() -> Peer {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
        let peer = Peer {
            addr: listener.local_addr().unwrap(),
            seen: Arc::default(),
            cut: Arc::default(),
            connections: Arc::default(),
            stop: Arc::default(),
        };
        let (seen, cut, connections, stop) =
            (peer.seen.clone(), peer.cut.clone(), peer.connections.clone(), peer.stop.clone());
        thread::spawn(move || {
            for stream in listener.incoming() {
                if stop.load(Ordering::SeqCst) {
                    return;
                }
                let Ok(stream) = stream else { continue };
                connections.fetch_add(1, Ordering::SeqCst);
                let (seen, cut) = (seen.clone(), cut.clone());
                thread::spawn(move || echo(stream, &seen, &cut));
            }
        });
        peer
    }

    fn seen(&self) -> usize {
        self.seen.lock().unwrap().len()
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.addr);
    }
}

fn echo(mut stream: TcpStream, seen: &Mutex<Vec<Vec<u8>>>, cut: &AtomicUsize) {
    loop {
        match read_message(&mut stream) {
            Ok(Some(body)) => {
                let head = format!("HTTP/1.1 200 OK\r\ncontent-length: {}\r\n\r\n", body.len());
                seen.lock().unwrap().push(body.clone());
                if stream.write_all(head.as_bytes()).and_then(|()| stream.write_all(&body)).is_err() {
                    return;
                }
            }
            Ok(None) => return,
            Err(_) => {
                cut.fetch_add(1, Ordering::SeqCst);
                return;
            }
        }
    }
}

/// Reads one message (request or response): its body; `None` at a clean end before it, an
/// error when the stream ends or breaks inside it.
fn read_message(stream: &mut TcpStream) -> io::Result<Option<Vec<u8>>> {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        if stream.read(&mut byte)? == 0 {
            return if head.is_empty() { Ok(None) } else { Err(io::ErrorKind::UnexpectedEof.into()) };
        }
        head.push(byte[0]);
    }
    let text = String::from_utf8_lossy(&head).to_ascii_lowercase();
    let length: usize = text
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0);
    let mut body = vec![0u8; length];
    stream.read_exact(&mut body)?;
    Ok(Some(body))
}

fn request(body: &str) -> Vec<u8> {
    format!("POST /mcp HTTP/1.1\r\ncontent-length: {}\r\n\r\n{body}", body.len()).into_bytes()
}

fn response(body: &str) -> Vec<u8> {
    format!("HTTP/1.1 200 OK\r\ncontent-length: {}\r\n\r\n{body}", body.len()).into_bytes()
}

/// Reads until the stream ends: the bytes, and how it ended (`Ok` for a FIN).
fn read_to_end(stream: &mut TcpStream) -> (Vec<u8>, io::Result<()>) {
    let mut bytes = Vec::new();
    let mut buf = [0u8; 256];
    loop {
        match stream.read(&mut buf) {
            Ok(0) => return (bytes, Ok(())),
            Ok(n) => bytes.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return (bytes, Err(e)),
        }
    }
}

/// Waits (bounded) until `holds`; panics with `what` when it never does.
fn wait_until(what: &str, holds: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !holds() {
        assert!(Instant::now() < deadline, "never: {what}");
        thread::sleep(Duration::from_millis(5));
    }
}

fn through(plan: Plan) -> (Peer, FaultProxy, TcpStream) {
    let peer = Peer::start();
    let proxy = FaultProxy::start(peer.addr, plan).unwrap();
    let client = TcpStream::connect(proxy.addr()).unwrap();
    (peer, proxy, client)
}

/// Asserts that no byte (and no end) arrives on `client` for `pause`.
fn assert_silent_for(client: &mut TcpStream, pause: Duration) {
    client.set_read_timeout(Some(pause)).unwrap();
    let mut buf = [0u8; 64];
    let read = client.read(&mut buf);
    assert!(
        matches!(&read, Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut)),
        "{read:?}"
    );
    client.set_read_timeout(None).unwrap();
}

fn is_reset(result: &io::Result<()>) -> bool {
    matches!(result, Err(e) if e.kind() == io::ErrorKind::ConnectionReset)
}

#[test]
fn passing_relays_keep_alive_exchanges_both_ways() {
    let (peer, proxy, mut client) = through(Plan::pass());
    for body in ["first", "second"] {
        client.write_all(&request(body)).unwrap();
        assert_eq!(read_message(&mut client).unwrap(), Some(body.as_bytes().to_vec()));
    }
    assert_eq!((peer.seen(), peer.connections.load(Ordering::SeqCst)), (2, 1));
    drop(client);
    wait_until("the connection is closed", || proxy.open_connections() == 0);
    let counts = proxy.counts();
    assert_eq!((counts.connections, counts.injected_total()), (1, 0));
    assert_eq!(counts.planned.get("pass"), Some(&1));
}

#[test]
fn accept_then_close_never_reaches_the_server() {
    let (peer, proxy, mut client) = through(Plan::script([Fault::AcceptThenClose]));
    let _ = client.write_all(&request("lost"));
    let (bytes, _) = read_to_end(&mut client);
    assert!(bytes.is_empty());
    // The plan ran out: the next connection is relayed.
    let mut next = TcpStream::connect(proxy.addr()).unwrap();
    next.write_all(&request("kept")).unwrap();
    assert_eq!(read_message(&mut next).unwrap(), Some(b"kept".to_vec()));
    assert_eq!((peer.seen(), peer.connections.load(Ordering::SeqCst)), (1, 1));
    assert_eq!(proxy.counts().injected.get("accept-close"), Some(&1));
}

#[test]
fn reset_mid_response_sends_an_rst_and_no_fin() {
    let (peer, proxy, mut client) = through(Plan::script([Fault::Reset { at: 10 }]));
    client.write_all(&request("a body longer than ten bytes")).unwrap();
    let (bytes, end) = read_to_end(&mut client);
    assert_eq!(bytes, response("a body longer than ten bytes")[..10]);
    assert!(is_reset(&end), "{end:?}");
    assert_eq!(peer.seen(), 1, "the server got the request");
    assert_eq!(proxy.counts().injected.get("reset"), Some(&1));
}

#[test]
fn a_stall_sends_nothing_until_the_proxy_is_dropped() {
    let stall = Fault::Stall { at: 0, stall: Duration::from_secs(3600) };
    let (peer, proxy, mut client) = through(Plan::script([stall]));
    client.write_all(&request("held")).unwrap();
    wait_until("the server answered", || peer.seen() == 1);
    assert_silent_for(&mut client, Duration::from_millis(300));
    assert_eq!(proxy.counts().injected.get("stall"), Some(&1));
    // Dropping the proxy ends the stall and its threads (a hang here is the failure).
    drop(proxy);
    let (bytes, _) = read_to_end(&mut client);
    assert!(bytes.is_empty());
}

#[test]
fn half_close_to_the_client_ends_its_reads_not_its_writes() {
    let (peer, proxy, mut client) = through(Plan::script([Fault::HalfCloseToClient { at: 0 }]));
    client.write_all(&request("one")).unwrap();
    let mut buf = [0u8; 64];
    assert_eq!(client.read(&mut buf).unwrap(), 0, "a FIN, no response byte");
    client.write_all(&request("two")).unwrap();
    wait_until("both requests reached the server", || peer.seen() == 2);
    assert_eq!(proxy.counts().injected.get("half-close-client"), Some(&1));
}

#[test]
fn half_close_to_the_server_cuts_the_request() {
    let (peer, proxy, mut client) = through(Plan::script([Fault::HalfCloseToServer { at: 5 }]));
    client.write_all(&request("never whole")).unwrap();
    let (bytes, end) = read_to_end(&mut client);
    assert!(bytes.is_empty() && end.is_ok(), "{bytes:?} {end:?}");
    wait_until("the server saw the request end early", || peer.cut.load(Ordering::SeqCst) == 1);
    assert_eq!(peer.seen(), 0);
    assert_eq!(proxy.counts().injected.get("half-close-server"), Some(&1));
}

#[test]
fn drip_sends_the_response_a_byte_at_a_time() {
    let (_peer, proxy, mut client) =
        through(Plan::script([Fault::Drip { pause: Duration::from_millis(10) }]));
    client.write_all(&request("dripping")).unwrap();
    let expected = response("dripping");
    let (mut got, mut reads) = (Vec::new(), 0);
    let mut buf = [0u8; 256];
    while got.len() < expected.len() {
        let n = client.read(&mut buf).unwrap();
        assert!(n > 0, "ended early after {got:?}");
        got.extend_from_slice(&buf[..n]);
        reads += 1;
    }
    assert_eq!(got, expected);
    // 46 bytes 10 ms apart: only a reader stalled for most of that would see few reads.
    assert!(reads >= 3, "{reads} reads");
    assert_eq!(proxy.counts().injected.get("drip"), Some(&1));
}

#[test]
fn a_delayed_head_arrives_whole_later() {
    let delay = Fault::DelayHead { delay: Duration::from_millis(1500) };
    let (peer, proxy, mut client) = through(Plan::script([delay]));
    client.write_all(&request("late")).unwrap();
    wait_until("the server answered", || peer.seen() == 1);
    assert_silent_for(&mut client, Duration::from_millis(200));
    assert_eq!(read_message(&mut client).unwrap(), Some(b"late".to_vec()));
    assert_eq!(proxy.counts().injected.get("delay-head"), Some(&1));
}

#[test]
fn a_kept_alive_connection_is_reset_after_its_first_response() {
    let (peer, proxy, mut client) = through(Plan::script([Fault::ResetAfterFirstResponse]));
    client.write_all(&request("first")).unwrap();
    assert_eq!(read_message(&mut client).unwrap(), Some(b"first".to_vec()));
    let (bytes, end) = read_to_end(&mut client);
    assert!(bytes.is_empty() && is_reset(&end), "{bytes:?} {end:?}");
    assert_eq!(peer.seen(), 1);
    assert_eq!(proxy.counts().injected.get("reset-after-response"), Some(&1));
}

#[test]
fn dropping_the_proxy_closes_every_open_connection() {
    let (peer, proxy, _idle) = through(Plan::pass());
    let mut clients: Vec<TcpStream> = (0..4).map(|_| TcpStream::connect(proxy.addr()).unwrap()).collect();
    for (i, client) in clients.iter_mut().enumerate() {
        client.write_all(&request(&format!("c{i}"))).unwrap();
        assert!(read_message(client).unwrap().is_some());
    }
    wait_until("every connection is relayed", || proxy.open_connections() == 5);
    drop(proxy);
    for client in &mut clients {
        let (bytes, _) = read_to_end(client);
        assert!(bytes.is_empty());
    }
    assert_eq!(peer.seen(), 4);
}

#[test]
fn a_new_plan_disarms_the_faults_of_open_connections() {
    let (peer, proxy, mut client) = through(Plan::script([Fault::HalfCloseToClient { at: 60 }]));
    client.write_all(&request("first")).unwrap();
    assert_eq!(read_message(&mut client).unwrap(), Some(b"first".to_vec()));
    proxy.set_plan(Plan::pass());
    // The second response crosses byte 60: relayed all the same.
    client.write_all(&request("second")).unwrap();
    assert_eq!(read_message(&mut client).unwrap(), Some(b"second".to_vec()));
    assert_eq!((peer.seen(), proxy.counts().injected_total()), (2, 0));
}

#[test]
fn connections_past_the_cap_are_closed_at_once_and_counted() {
    let (peer, proxy, _first) = through(Plan::pass());
    // The first connection plus these fill the cap; each is relayed (the peer sees it).
    let held: Vec<TcpStream> =
        (1..MAX_CONNECTIONS).map(|_| TcpStream::connect(proxy.addr()).unwrap()).collect();
    wait_until("the cap is reached", || proxy.open_connections() == MAX_CONNECTIONS);
    let mut over = TcpStream::connect(proxy.addr()).unwrap();
    let (bytes, _) = read_to_end(&mut over);
    assert!(bytes.is_empty(), "the connection past the cap is closed without a byte");
    wait_until("the refusal is counted", || proxy.counts().refused == 1);
    assert_eq!(proxy.counts().connections, MAX_CONNECTIONS + 1);
    wait_until("the peer saw every relayed connection", || {
        peer.connections.load(Ordering::SeqCst) == MAX_CONNECTIONS
    });
    drop(held);
}
