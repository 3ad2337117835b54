//! A scripted HTTP/1.1 server on `std::net`, for client tests that no real peer can stage:
//! exact status codes and bytes, hostile or huge bodies, pauses, endless streams, over plain
//! TCP or TLS.
//!
//! Every accepted connection (plain, or TLS with rustls and the ring provider) gets a thread
//! that reads requests one after another (keep-alive) and answers each with the [`Reply`] the
//! test's handler returns for it: a fixed, chunked, lazily generated or endless body, raw
//! bytes, pauses, and closing the connection afterwards if asked. The server records every
//! request it saw (with the header names exactly as sent and the connection it came on),
//! counts accepted connections, and notes when a peer closed a connection while an endless
//! reply was being streamed.

use std::io::{self, Read, Write};
use std::net::{Ipv4Addr, Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// The largest request head the server reads.
const MAX_HEAD: usize = 64 * 1024;

/// One request as the server saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeenRequest {
    /// The method.
    pub method: String,
    /// The request target (path and query, or the absolute form a proxy gets).
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

    /// The body parsed as JSON (`Null` if it is empty or not JSON).
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }
}

/// One step of a reply.
pub enum Step {
    /// Write the status line and these headers (plus `connection: close` if the reply closes
    /// the connection), then the blank line.
    Head {
        /// The status code.
        status: u16,
        /// Header names and values, framing headers included.
        headers: Vec<(String, String)>,
    },
    /// Write these bytes (and flush).
    Send(Vec<u8>),
    /// Wait.
    Pause(Duration),
    /// Write each piece as one chunk (empty ones skipped), then the last chunk: a body made
    /// as it is sent, so it can be far larger than memory.
    Chunks(Box<dyn Iterator<Item = Vec<u8>> + Send>),
    /// Write `chunk` every `every` until the peer closes the connection (the server then
    /// records that it saw the close, and drops the connection).
    Endless {
        /// Bytes written each time (already framed by the test).
        chunk: Vec<u8>,
        /// The interval.
        every: Duration,
    },
}

impl std::fmt::Debug for Step {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Head { status, headers } => {
                f.debug_struct("Head").field("status", status).field("headers", headers).finish()
            }
            Self::Send(bytes) => f.debug_tuple("Send").field(&String::from_utf8_lossy(bytes)).finish(),
            Self::Pause(d) => f.debug_tuple("Pause").field(d).finish(),
            Self::Chunks(_) => f.write_str("Chunks(..)"),
            Self::Endless { chunk, every } => {
                f.debug_struct("Endless").field("chunk", &chunk.len()).field("every", every).finish()
            }
        }
    }
}

/// The scripted answer to one request.
#[derive(Debug, Default)]
pub struct Reply {
    /// What to do, in order.
    pub steps: Vec<Step>,
    /// Close the connection after the steps.
    pub close: bool,
}

impl Reply {
    /// These steps, and nothing else (no head unless one is among them).
    pub fn raw(steps: Vec<Step>) -> Self {
        Self { steps, close: false }
    }

    /// A complete response with a `Content-Length` body.
    pub fn fixed(status: u16, headers: &[(&str, &str)], body: &[u8]) -> Self {
        let length = body.len().to_string();
        Self::raw(vec![head(status, headers, ("content-length", &length)), Step::Send(body.to_vec())])
    }

    /// A `200` JSON answer (`Content-Type: application/json`).
    pub fn json(value: &Value) -> Self {
        Self::fixed(200, &[("content-type", "application/json")], value.to_string().as_bytes())
    }

    /// A chunked response: the head, then each piece as one chunk after its pause, then the
    /// last chunk.
    pub fn chunked(status: u16, headers: &[(&str, &str)], pieces: &[(Duration, &[u8])]) -> Self {
        let mut steps = vec![head(status, headers, ("transfer-encoding", "chunked"))];
        for (pause, piece) in pieces {
            steps.push(Step::Pause(*pause));
            steps.push(Step::Send(chunk(piece)));
        }
        steps.push(Step::Send(b"0\r\n\r\n".to_vec()));
        Self::raw(steps)
    }

    /// A chunked response whose body is made lazily: each item of `body` as one chunk.
    pub fn stream(
        status: u16,
        headers: &[(&str, &str)],
        body: impl Iterator<Item = Vec<u8>> + Send + 'static,
    ) -> Self {
        Self::raw(vec![head(status, headers, ("transfer-encoding", "chunked")), Step::Chunks(Box::new(body))])
    }

    /// A chunked response that never ends: `piece` as one chunk every `every`.
    pub fn endless(status: u16, headers: &[(&str, &str)], piece: &[u8], every: Duration) -> Self {
        let head = head(status, headers, ("transfer-encoding", "chunked"));
        Self::raw(vec![head, Step::Endless { chunk: chunk(piece), every }])
    }

    /// Closes the connection after this reply (announced by `connection: close` in its
    /// [`Step::Head`], if it has one).
    pub fn then_close(mut self) -> Self {
        self.close = true;
        self
    }
}

/// A [`Step::Head`] with `headers` and the framing header.
fn head(status: u16, headers: &[(&str, &str)], framing: (&str, &str)) -> Step {
    let headers = headers.iter().copied().chain([framing]);
    Step::Head { status, headers: headers.map(|(n, v)| (n.to_owned(), v.to_owned())).collect() }
}

/// One chunk of a chunked body.
pub fn chunk(piece: &[u8]) -> Vec<u8> {
    let mut out = format!("{:x}\r\n", piece.len()).into_bytes();
    out.extend_from_slice(piece);
    out.extend_from_slice(b"\r\n");
    out
}

/// A minimal modern (2026-07-28) server: answers `server/discover`, and every other request
/// with a tool result whose text is `text`; each answer closes its connection.
pub fn modern_tool_server(text: &'static str) -> impl Fn(&SeenRequest) -> Reply + Send + Sync {
    move |req: &SeenRequest| {
        let request = req.json();
        let result = match request["method"].as_str() {
            Some("server/discover") => json!({"resultType": "complete",
                "supportedVersions": [mcpwire_core::MODERN_VERSION], "capabilities": {"tools": {}},
                "ttlMs": 0, "cacheScope": "private"}),
            _ => json!({"resultType": "complete", "content": [{"type": "text", "text": text}]}),
        };
        Reply::json(&json!({"jsonrpc": "2.0", "id": request["id"], "result": result})).then_close()
    }
}

/// A `tools/call` of `name` with a `message` argument (the requests `call_stream_server` serves).
pub fn message_call(name: &str, message: &str) -> mcpwire_core::Request {
    mcpwire_core::Request::CallTool { name: name.into(), arguments: json!({"message": message}) }
}

/// The text of a tool result; panics on anything else.
pub fn result_text(response: Result<mcpwire_core::Response, mcpwire_core::ClientError>) -> String {
    match response.expect("a response") {
        mcpwire_core::Response::ToolResult(result) => result.text(),
        other => panic!("not a tool result: {other:?}"),
    }
}

/// A modern (2026-07-28) server for call lifecycles: `hang` never answers (an event stream
/// of pings), `flood` never answers either but writes its pings without pause, `open`
/// answers on an event stream it then keeps open, any other tool echoes its `message`
/// argument.
pub fn call_stream_server(req: &SeenRequest) -> Reply {
    let request = req.json();
    let sse = [("content-type", "text/event-stream")];
    let ping = b": ping\n\n";
    let result = match (request["method"].as_str(), request["params"]["name"].as_str()) {
        (Some("server/discover"), _) => json!({"resultType": "complete",
            "supportedVersions": [mcpwire_core::MODERN_VERSION], "capabilities": {"tools": {}},
            "ttlMs": 0, "cacheScope": "private"}),
        (_, Some("hang")) => return Reply::endless(200, &sse, ping, Duration::from_millis(50)),
        (_, Some("flood")) => return Reply::endless(200, &sse, &ping.repeat(4096), Duration::ZERO),
        (_, Some("open")) => {
            let text = json!({"resultType": "complete", "content": [{"type": "text", "text": "early"}]});
            let message = json!({"jsonrpc": "2.0", "id": request["id"], "result": text});
            let event = format!("event: message\ndata: {message}\n\n");
            let head = Step::Head {
                status: 200,
                headers: vec![
                    ("content-type".into(), "text/event-stream".into()),
                    ("transfer-encoding".into(), "chunked".into()),
                ],
            };
            let rest = Step::Endless { chunk: chunk(ping), every: Duration::from_millis(50) };
            return Reply::raw(vec![head, Step::Send(chunk(event.as_bytes())), rest]);
        }
        _ => {
            let text = request["params"]["arguments"]["message"].clone();
            json!({"resultType": "complete", "content": [{"type": "text", "text": text}]})
        }
    };
    Reply::json(&json!({"jsonrpc": "2.0", "id": request["id"], "result": result}))
}

type Handler = dyn Fn(&SeenRequest) -> Reply + Send + Sync;

#[derive(Default)]
struct Record {
    requests: Vec<SeenRequest>,
    /// Connections (by number) whose peer closed while an endless reply was streamed.
    closed_by_peer: Vec<usize>,
    /// Connections the server closed after a reply ([`Reply::close`]).
    closed_by_server: usize,
}

struct State {
    handler: Box<Handler>,
    tls: Option<Arc<rustls::ServerConfig>>,
    accepts: AtomicUsize,
    stop: AtomicBool,
    record: Mutex<Record>,
    changed: Condvar,
}

/// The server; it stops accepting when dropped (open connections end with their threads).
pub struct ScriptedHttpServer {
    addr: SocketAddr,
    state: Arc<State>,
}

impl std::fmt::Debug for ScriptedHttpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScriptedHttpServer")
            .field("addr", &self.addr)
            .field("tls", &self.state.tls.is_some())
            .finish_non_exhaustive()
    }
}

impl ScriptedHttpServer {
    /// Starts a server on a free loopback port; `handler` scripts the reply to each request.
    pub fn start(handler: impl Fn(&SeenRequest) -> Reply + Send + Sync + 'static) -> Self {
        Self::spawn(Box::new(handler), None)
    }

    /// Starts an HTTPS server with this certificate chain and PKCS#8 key (PEM).
    pub fn start_tls(
        cert_pem: &[u8],
        key_pem: &[u8],
        handler: impl Fn(&SeenRequest) -> Reply + Send + Sync + 'static,
    ) -> Self {
        Self::spawn(Box::new(handler), Some(tls_server_config(cert_pem, key_pem)))
    }

    fn spawn(handler: Box<Handler>, tls: Option<Arc<rustls::ServerConfig>>) -> Self {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("bind a loopback port");
        let addr = listener.local_addr().expect("local address");
        let state = Arc::new(State {
            handler,
            tls,
            accepts: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
            record: Mutex::new(Record::default()),
            changed: Condvar::new(),
        });
        let accept_state = state.clone();
        thread::Builder::new()
            .name("scripted-http-accept".into())
            .spawn(move || accept_loop(&listener, &accept_state))
            .expect("start the accept thread");
        Self { addr, state }
    }

    /// `http://127.0.0.1:<port><path>`, or `https://localhost:<port><path>` over TLS (the
    /// name the test certificate is for).
    pub fn url(&self, path: &str) -> String {
        match self.state.tls {
            None => format!("http://{}{path}", self.addr),
            Some(_) => format!("https://localhost:{}{path}", self.addr.port()),
        }
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

    /// Waits until the server has closed `count` connections after their replies (true), or
    /// `timeout` passed (false).
    pub fn wait_server_closes(&self, count: usize, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut record = lock(&self.state.record);
        while record.closed_by_server < count {
            let Some(left) = deadline.checked_duration_since(Instant::now()) else { return false };
            record = self.state.changed.wait_timeout(record, left).unwrap_or_else(|p| p.into_inner()).0;
        }
        true
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

impl Drop for ScriptedHttpServer {
    fn drop(&mut self) {
        self.state.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// A rustls server configuration (ring provider) for this certificate chain and PKCS#8 key
/// (PEM).
pub fn tls_server_config(cert_pem: &[u8], key_pem: &[u8]) -> Arc<rustls::ServerConfig> {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let certs: Vec<CertificateDer<'static>> =
        CertificateDer::pem_slice_iter(cert_pem).collect::<Result<_, _>>().expect("certificate PEM");
    let key = PrivateKeyDer::from_pem_slice(key_pem).expect("key PEM");
    #[allow(deprecated)] // ring on purpose: the fixture's provider, whatever the client's is.
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("TLS versions")
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .expect("server certificate");
    Arc::new(config)
}

fn accept_loop(listener: &TcpListener, state: &Arc<State>) {
    for stream in listener.incoming() {
        if state.stop.load(Ordering::SeqCst) {
            return;
        }
        let Ok(stream) = stream else { continue };
        let n = state.accepts.fetch_add(1, Ordering::SeqCst) + 1;
        let state = state.clone();
        let _ = thread::Builder::new().name(format!("scripted-http-conn-{n}")).spawn(move || {
            let conn = match &state.tls {
                None => Conn::Plain(stream),
                Some(config) => match rustls::ServerConnection::new(config.clone()) {
                    Ok(tls) => Conn::Tls(Box::new(rustls::StreamOwned::new(tls, stream))),
                    Err(_) => return,
                },
            };
            serve_connection(conn, n, &state);
        });
    }
}

/// An accepted connection, plain or TLS (the handshake happens on its first read).
enum Conn {
    Plain(TcpStream),
    Tls(Box<rustls::StreamOwned<rustls::ServerConnection, TcpStream>>),
}

impl Conn {
    fn tcp(&self) -> &TcpStream {
        match self {
            Self::Plain(tcp) => tcp,
            Self::Tls(tls) => &tls.sock,
        }
    }

    /// Ends the connection (with a TLS `close_notify` first).
    fn close(&mut self) {
        if let Self::Tls(tls) = self {
            tls.conn.send_close_notify();
            let _ = tls.flush();
        }
        let _ = self.tcp().shutdown(Shutdown::Both);
    }

    /// True if the peer closed its side (a read of the socket would return end of file or
    /// fail; for TLS this looks at the TCP stream under it).
    fn peer_closed(&self) -> bool {
        let tcp = self.tcp();
        if tcp.set_nonblocking(true).is_err() {
            return true;
        }
        let mut byte = [0u8; 1];
        let closed = match tcp.peek(&mut byte) {
            Ok(0) => true,
            Ok(_) => false,
            Err(e) => e.kind() != io::ErrorKind::WouldBlock,
        };
        let _ = tcp.set_nonblocking(false);
        closed
    }

    fn send(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.write_all(bytes)?;
        self.flush()
    }
}

impl Read for Conn {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Self::Plain(tcp) => tcp.read(buf),
            Self::Tls(tls) => tls.read(buf),
        }
    }
}

impl Write for Conn {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Self::Plain(tcp) => tcp.write(buf),
            Self::Tls(tls) => tls.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Self::Plain(tcp) => tcp.flush(),
            Self::Tls(tls) => tls.flush(),
        }
    }
}

fn serve_connection(mut conn: Conn, connection: usize, state: &State) {
    let mut buffered = Vec::new();
    loop {
        let Ok(Some(request)) = read_request(&mut conn, &mut buffered, connection) else { return };
        let reply = (state.handler)(&request);
        {
            let mut record = lock(&state.record);
            record.requests.push(request);
            state.changed.notify_all();
        }
        for step in reply.steps {
            let sent = match step {
                Step::Head { status, headers } => {
                    let mut head = format!("HTTP/1.1 {status} Scripted\r\n");
                    let close = reply.close.then_some(("connection", "close"));
                    for (n, v) in headers.iter().map(|(n, v)| (n.as_str(), v.as_str())).chain(close) {
                        head.push_str(&format!("{n}: {v}\r\n"));
                    }
                    head.push_str("\r\n");
                    conn.send(head.as_bytes())
                }
                Step::Send(bytes) => conn.send(&bytes),
                Step::Pause(d) => {
                    thread::sleep(d);
                    Ok(())
                }
                Step::Chunks(pieces) => send_chunks(&mut conn, pieces),
                Step::Endless { chunk, every } => {
                    stream_until_closed(&mut conn, &chunk, every);
                    lock(&state.record).closed_by_peer.push(connection);
                    state.changed.notify_all();
                    return;
                }
            };
            if sent.is_err() {
                return;
            }
        }
        if reply.close {
            conn.close();
            lock(&state.record).closed_by_server += 1;
            state.changed.notify_all();
            return;
        }
    }
}

/// Writes each piece as one chunk, then the last chunk.
fn send_chunks(conn: &mut Conn, pieces: impl Iterator<Item = Vec<u8>>) -> io::Result<()> {
    for piece in pieces.filter(|p| !p.is_empty()) {
        conn.write_all(&chunk(&piece))?;
    }
    conn.send(b"0\r\n\r\n")
}

/// Writes `chunk` every `every` until the peer closes (end of file or a write error), which
/// is noticed within a few milliseconds even between writes.
fn stream_until_closed(conn: &mut Conn, chunk: &[u8], every: Duration) {
    loop {
        if conn.send(chunk).is_err() {
            return;
        }
        let next = Instant::now() + every;
        while Instant::now() < next {
            if conn.peer_closed() {
                return;
            }
            thread::sleep(Duration::from_millis(5).min(every));
        }
    }
}

/// Reads one request (`None` at a clean end of file between requests).
fn read_request(
    conn: &mut Conn,
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
        let n = conn.read(&mut buf)?;
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
        let n = conn.read(&mut buf)?;
        if n == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        buffered.extend_from_slice(&buf[..n]);
    }
    let body = buffered.drain(..length).collect();
    Ok(Some(SeenRequest { method, target, headers, body, connection }))
}
