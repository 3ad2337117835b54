//! A tiny scripted HTTP/1.1 server on `std::net`, for testing HTTP adapters without real peers.
//!
//! Every accepted connection gets a thread that reads requests one after another (keep-alive)
//! and answers each with the [`Reply`] the test's handler returns for it: raw bytes, pauses,
//! an endless stream, or closing the connection. The server records every request it saw (with
//! the header names exactly as sent and the connection it came on), counts accepted
//! connections, and notes when a peer closed a connection while a reply was being streamed.

use std::io::{self, Read, Write};
use std::net::{Ipv4Addr, Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// The largest request head the server reads.
const MAX_HEAD: usize = 64 * 1024;

/// One request as the server saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeenRequest {
    /// The method.
    pub method: String,
    /// The request target (path and query).
    pub target: String,
    /// Header names (as sent) and values, in order.
    pub headers: Vec<(String, String)>,
    /// The body (read by `Content-Length`).
    pub body: Vec<u8>,
    /// Which accepted connection it came on, counting from 1.
    pub connection: usize,
}

impl SeenRequest {
    /// The first value of a header, by case-insensitive name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// One step of a reply.
#[derive(Debug, Clone)]
pub enum Step {
    /// Write these bytes (and flush).
    Send(Vec<u8>),
    /// Wait.
    Pause(Duration),
    /// Write `chunk` every `every` until the peer closes the connection (the server then
    /// records that it saw the close, and drops the connection).
    Endless {
        /// Bytes written each time (already framed by the test).
        chunk: Vec<u8>,
        /// The interval.
        every: Duration,
    },
    /// Close the connection after this reply.
    Close,
}

/// The scripted answer to one request.
#[derive(Debug, Clone, Default)]
pub struct Reply {
    /// What to do, in order.
    pub steps: Vec<Step>,
}

impl Reply {
    /// A complete response with a `Content-Length` body.
    pub fn fixed(status: u16, headers: &[(&str, &str)], body: &[u8]) -> Self {
        let mut head = status_line(status, headers);
        head.push_str(&format!("content-length: {}\r\n\r\n", body.len()));
        let mut bytes = head.into_bytes();
        bytes.extend_from_slice(body);
        Self { steps: vec![Step::Send(bytes)] }
    }

    /// A chunked response: the head, then each piece as one chunk after its pause, then the
    /// last chunk.
    pub fn chunked(status: u16, headers: &[(&str, &str)], pieces: &[(Duration, &[u8])]) -> Self {
        let mut head = status_line(status, headers);
        head.push_str("transfer-encoding: chunked\r\n\r\n");
        let mut steps = vec![Step::Send(head.into_bytes())];
        for (pause, piece) in pieces {
            steps.push(Step::Pause(*pause));
            steps.push(Step::Send(chunk(piece)));
        }
        steps.push(Step::Send(b"0\r\n\r\n".to_vec()));
        Self { steps }
    }

    /// A chunked response that never ends: `piece` as one chunk every `every`.
    pub fn endless(status: u16, headers: &[(&str, &str)], piece: &[u8], every: Duration) -> Self {
        let mut head = status_line(status, headers);
        head.push_str("transfer-encoding: chunked\r\n\r\n");
        Self { steps: vec![Step::Send(head.into_bytes()), Step::Endless { chunk: chunk(piece), every }] }
    }

    /// Closes the connection after this reply.
    pub fn then_close(mut self) -> Self {
        self.steps.push(Step::Close);
        self
    }
}

/// `HTTP/1.1 <status> X` and the headers, each line ended, without the blank line.
fn status_line(status: u16, headers: &[(&str, &str)]) -> String {
    let mut head = format!("HTTP/1.1 {status} Scripted\r\n");
    for (n, v) in headers {
        head.push_str(&format!("{n}: {v}\r\n"));
    }
    head
}

/// One chunk of a chunked body.
pub fn chunk(piece: &[u8]) -> Vec<u8> {
    let mut out = format!("{:x}\r\n", piece.len()).into_bytes();
    out.extend_from_slice(piece);
    out.extend_from_slice(b"\r\n");
    out
}

type Handler = dyn Fn(&SeenRequest) -> Reply + Send + Sync;

#[derive(Default)]
struct Record {
    requests: Vec<SeenRequest>,
    /// Connections (by number) whose peer closed while an endless reply was streamed.
    closed_by_peer: Vec<usize>,
}

struct State {
    handler: Box<Handler>,
    accepts: AtomicUsize,
    stop: AtomicBool,
    record: Mutex<Record>,
    changed: Condvar,
}

/// The server; it stops accepting when dropped (open connections end with their threads).
pub struct HttpTestServer {
    addr: SocketAddr,
    state: Arc<State>,
}

impl std::fmt::Debug for HttpTestServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpTestServer").field("addr", &self.addr).finish_non_exhaustive()
    }
}

impl HttpTestServer {
    /// Starts a server on a free loopback port; `handler` scripts the reply to each request.
    pub fn start<F>(handler: F) -> Self
    where
        F: Fn(&SeenRequest) -> Reply + Send + Sync + 'static,
    {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("bind a loopback port");
        let addr = listener.local_addr().expect("local address");
        let state = Arc::new(State {
            handler: Box::new(handler),
            accepts: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
            record: Mutex::new(Record::default()),
            changed: Condvar::new(),
        });
        let accept_state = state.clone();
        thread::Builder::new()
            .name("http-test-accept".into())
            .spawn(move || accept_loop(&listener, &accept_state))
            .expect("start the accept thread");
        Self { addr, state }
    }

    /// `http://127.0.0.1:<port><path>`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// How many connections it accepted.
    pub fn accepts(&self) -> usize {
        self.state.accepts.load(Ordering::SeqCst)
    }

    /// Every request seen so far, in arrival order.
    pub fn requests(&self) -> Vec<SeenRequest> {
        lock(&self.state.record).requests.clone()
    }

    /// Waits until the peer of some connection closed it during an endless reply; the
    /// connection numbers seen so far (empty on timeout).
    pub fn wait_closed_by_peer(&self, timeout: Duration) -> Vec<usize> {
        let deadline = Instant::now() + timeout;
        let mut record = lock(&self.state.record);
        while record.closed_by_peer.is_empty() {
            let Some(left) = deadline.checked_duration_since(Instant::now()) else { break };
            record = self.state.changed.wait_timeout(record, left).unwrap_or_else(|p| p.into_inner()).0;
        }
        record.closed_by_peer.clone()
    }
}

impl Drop for HttpTestServer {
    fn drop(&mut self) {
        self.state.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn accept_loop(listener: &TcpListener, state: &Arc<State>) {
    for stream in listener.incoming() {
        if state.stop.load(Ordering::SeqCst) {
            return;
        }
        let Ok(stream) = stream else { continue };
        let n = state.accepts.fetch_add(1, Ordering::SeqCst) + 1;
        let state = state.clone();
        let _ = thread::Builder::new()
            .name(format!("http-test-conn-{n}"))
            .spawn(move || serve_connection(stream, n, &state));
    }
}

fn serve_connection(mut stream: TcpStream, connection: usize, state: &State) {
    let mut buffered = Vec::new();
    loop {
        let Ok(Some(request)) = read_request(&mut stream, &mut buffered, connection) else { return };
        let reply = (state.handler)(&request);
        {
            let mut record = lock(&state.record);
            record.requests.push(request);
            state.changed.notify_all();
        }
        for step in reply.steps {
            match step {
                Step::Send(bytes) => {
                    if stream.write_all(&bytes).and_then(|()| stream.flush()).is_err() {
                        return;
                    }
                }
                Step::Pause(d) => thread::sleep(d),
                Step::Endless { chunk, every } => {
                    stream_until_closed(&mut stream, &chunk, every);
                    lock(&state.record).closed_by_peer.push(connection);
                    state.changed.notify_all();
                    return;
                }
                Step::Close => {
                    let _ = stream.shutdown(Shutdown::Both);
                    return;
                }
            }
        }
    }
}

/// Writes `chunk` every `every` until the peer closes (end of file or a write error), which
/// is noticed within a few milliseconds even between writes.
fn stream_until_closed(stream: &mut TcpStream, chunk: &[u8], every: Duration) {
    loop {
        if stream.write_all(chunk).and_then(|()| stream.flush()).is_err() {
            return;
        }
        let next = Instant::now() + every;
        while Instant::now() < next {
            if peer_closed(stream) {
                return;
            }
            thread::sleep(Duration::from_millis(5).min(every));
        }
    }
}

/// True if the peer closed its side (a read would return end of file or fail).
fn peer_closed(stream: &mut TcpStream) -> bool {
    if stream.set_nonblocking(true).is_err() {
        return true;
    }
    let mut byte = [0u8; 1];
    let closed = match stream.peek(&mut byte) {
        Ok(0) => true,
        Ok(_) => false,
        Err(e) => e.kind() != io::ErrorKind::WouldBlock,
    };
    let _ = stream.set_nonblocking(false);
    closed
}

/// Reads one request (`None` at a clean end of file between requests).
fn read_request(
    stream: &mut TcpStream,
    buffered: &mut Vec<u8>,
    connection: usize,
) -> io::Result<Option<SeenRequest>> {
    let head_end = loop {
        if let Some(i) = buffered.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        if buffered.len() > MAX_HEAD {
            return Err(io::Error::other("request head too large"));
        }
        let mut buf = [0u8; 4096];
        let n = stream.read(&mut buf)?;
        if n == 0 {
            return Ok(None);
        }
        buffered.extend_from_slice(&buf[..n]);
    };
    let head = String::from_utf8_lossy(&buffered[..head_end]).into_owned();
    buffered.drain(..head_end + 4);
    let mut lines = head.split("\r\n");
    let mut request_line = lines.next().unwrap_or_default().split(' ');
    let method = request_line.next().unwrap_or_default().to_owned();
    let target = request_line.next().unwrap_or_default().to_owned();
    let headers: Vec<(String, String)> =
        lines.filter_map(|l| l.split_once(':')).map(|(n, v)| (n.to_owned(), v.trim().to_owned())).collect();
    let length = headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse::<usize>().ok())
        .unwrap_or(0);
    while buffered.len() < length {
        let mut buf = [0u8; 4096];
        let n = stream.read(&mut buf)?;
        if n == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        buffered.extend_from_slice(&buf[..n]);
    }
    let body = buffered.drain(..length).collect();
    Ok(Some(SeenRequest { method, target, headers, body, connection }))
}
