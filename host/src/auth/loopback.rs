//! [`LoopbackCallback`]: the local listener an authorization server sends the browser back to
//! (`http://127.0.0.1:<port>/callback?code=..&state=..`), with std networking only, so it
//! works under any runtime: [`LoopbackCallback::wait`] blocks,
//! [`LoopbackCallback::wait_in_thread`] waits on a thread of its own and gives a
//! [`CallbackWait`] that is both a `Future` and a blocking [`CallbackWait::wait`].

use std::fmt;
use std::future::Future;
use std::io::{self, Read, Write};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpListener, TcpStream};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use mcpwire_core::mcp_servers::HttpUrl;

/// The callback path [`LoopbackCallback::bind`] listens on.
pub const DEFAULT_CALLBACK_PATH: &str = "/callback";

/// The largest request head the listener reads; a longer one is refused (`431`).
pub const MAX_CALLBACK_REQUEST_BYTES: usize = 8 * 1024;

/// How long one connection may take to send its request head before it is dropped, so a
/// silent client cannot hold the listener.
pub const CONNECTION_READ_TIMEOUT: Duration = Duration::from_secs(5);

/// How long a browser sign-in may take by default (5 minutes).
pub const DEFAULT_AUTHORIZATION_TIMEOUT: Duration = Duration::from_secs(300);

/// How often a waiting listener looks for a connection, a deadline or a cancellation.
const ACCEPT_POLL: Duration = Duration::from_millis(20);

/// Why no callback arrived.
#[derive(Debug)]
#[non_exhaustive]
pub enum CallbackError {
    /// The redirect URI is not `http://` on a loopback address with a port and a path.
    InvalidRedirectUri(String),
    /// The listener could not be bound (the port is taken, or not a loopback address).
    Bind {
        /// The address.
        addr: SocketAddr,
        /// The error.
        source: io::Error,
    },
    /// The browser could not be opened.
    OpenBrowser(io::Error),
    /// Accepting connections failed.
    Io(io::Error),
    /// No callback arrived in time.
    TimedOut(Duration),
    /// The wait was given up (its [`CallbackWait`] was dropped).
    Cancelled,
}

impl fmt::Display for CallbackError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidRedirectUri(why) => write!(f, "redirect URI: {why}"),
            Self::Bind { addr, source } => write!(f, "could not listen on {addr}: {source}"),
            Self::OpenBrowser(e) => write!(f, "could not open the browser: {e}"),
            Self::Io(e) => write!(f, "authorization callback listener: {e}"),
            Self::TimedOut(after) => write!(f, "no authorization callback within {} s", after.as_secs()),
            Self::Cancelled => f.write_str("the authorization callback wait was cancelled"),
        }
    }
}

impl std::error::Error for CallbackError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Bind { source, .. } | Self::OpenBrowser(source) | Self::Io(source) => Some(source),
            _ => None,
        }
    }
}

/// A listener on a loopback address for one OAuth redirect. See the module docs.
#[derive(Debug)]
pub struct LoopbackCallback {
    listener: TcpListener,
    /// `http://host:port`, as the redirect URI writes it.
    origin: String,
    path: String,
}

impl LoopbackCallback {
    /// Listens on `127.0.0.1:<port>` (`0`: any free port) for `/callback`.
    pub fn bind(port: u16) -> Result<Self, CallbackError> {
        Self::bind_path(port, DEFAULT_CALLBACK_PATH)
    }

    /// Listens on `127.0.0.1:<port>` for `path` (which must start with `/`).
    pub fn bind_path(port: u16, path: &str) -> Result<Self, CallbackError> {
        check_path(path)?;
        Self::listen(SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port), "127.0.0.1", path)
    }

    /// Listens where `redirect_uri` points: `http://127.0.0.1:<port>/<path>`,
    /// `http://localhost:<port>/<path>` (bound on `127.0.0.1`) or `http://[::1]:<port>/<path>`,
    /// read by the WHATWG parser (so `http://127.1:<port>/` is `127.0.0.1`, and no path is `/`).
    /// The port must be written, and be neither `0` nor `80` (the authorization server must
    /// know it, and `80` is the one a URL leaves out).
    pub fn for_redirect_uri(redirect_uri: &str) -> Result<Self, CallbackError> {
        let bad = |why: &str| CallbackError::InvalidRedirectUri(format!("{why} ({})", clip(redirect_uri)));
        let url = HttpUrl::parse(redirect_uri).map_err(|e| bad(&e.to_string()))?;
        if url.is_https() {
            return Err(bad("must start with http://"));
        }
        let port = url.port();
        if !url.authority().ends_with(&format!(":{port}")) {
            return Err(bad("needs a port"));
        }
        let (ip, host) = match url.ip() {
            Some(IpAddr::V4(v4)) if v4 == Ipv4Addr::LOCALHOST => (IpAddr::V4(v4), "127.0.0.1"),
            Some(IpAddr::V6(v6)) if v6 == Ipv6Addr::LOCALHOST => (IpAddr::V6(v6), "[::1]"),
            None if url.host() == "localhost" => (IpAddr::V4(Ipv4Addr::LOCALHOST), "localhost"),
            _ => return Err(bad("the host must be 127.0.0.1, localhost or [::1]")),
        };
        check_path(url.path())?;
        Self::listen(SocketAddr::new(ip, port), host, url.path())
    }

    fn listen(addr: SocketAddr, host: &str, path: &str) -> Result<Self, CallbackError> {
        let listener = TcpListener::bind(addr).map_err(|source| CallbackError::Bind { addr, source })?;
        let port = listener.local_addr().map_err(CallbackError::Io)?.port();
        Ok(Self { listener, origin: format!("http://{host}:{port}"), path: path.to_owned() })
    }

    /// The port listened on (the one chosen when bound with port `0`).
    pub fn port(&self) -> u16 {
        self.listener.local_addr().map(|a| a.port()).unwrap_or(0)
    }

    /// The redirect URI this listener answers: `http://127.0.0.1:<port>/callback`.
    pub fn redirect_uri(&self) -> String {
        format!("{}{}", self.origin, self.path)
    }

    /// Waits for the browser's redirect: accepts connections until a `GET` to the callback
    /// path with a `code` or `error` parameter arrives, answers it with a page saying the tab
    /// can be closed, and returns the full redirect URL (query included). Other paths get
    /// `404`, other methods `405`, a callback without `code` or `error` `400`, a request
    /// head over [`MAX_CALLBACK_REQUEST_BYTES`] `431`; a connection silent for
    /// [`CONNECTION_READ_TIMEOUT`] is dropped. Fails after `timeout`.
    pub fn wait(&self, timeout: Duration) -> Result<String, CallbackError> {
        self.wait_until(timeout, &AtomicBool::new(false))
    }

    /// [`LoopbackCallback::wait`] on a thread of its own: the [`CallbackWait`] can be awaited
    /// (any runtime) or waited on; dropping it stops the wait.
    pub fn wait_in_thread(self, timeout: Duration) -> CallbackWait {
        CallbackWait::run(move |cancel| self.wait_until(timeout, cancel))
    }

    pub(crate) fn wait_until(&self, timeout: Duration, cancel: &AtomicBool) -> Result<String, CallbackError> {
        let deadline = Instant::now() + timeout;
        self.listener.set_nonblocking(true).map_err(CallbackError::Io)?;
        loop {
            if cancel.load(Ordering::Relaxed) {
                return Err(CallbackError::Cancelled);
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(CallbackError::TimedOut(timeout));
            }
            match self.listener.accept() {
                Ok((stream, _)) => {
                    if let Some(url) = self.serve(stream, deadline) {
                        return Ok(url);
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    std::thread::sleep(ACCEPT_POLL.min(deadline - now));
                }
                Err(e)
                    if matches!(e.kind(), io::ErrorKind::Interrupted | io::ErrorKind::ConnectionAborted) => {}
                Err(e) => return Err(CallbackError::Io(e)),
            }
        }
    }

    /// Answers one connection; the redirect URL when it was the callback.
    fn serve(&self, mut stream: TcpStream, deadline: Instant) -> Option<String> {
        let limit = CONNECTION_READ_TIMEOUT.min(deadline.saturating_duration_since(Instant::now()));
        let limit = limit.max(Duration::from_millis(1));
        let ready = stream.set_nonblocking(false).and_then(|()| stream.set_read_timeout(Some(limit)));
        if ready.and_then(|()| stream.set_write_timeout(Some(limit))).is_err() {
            return None;
        }
        let head = match read_head(&mut stream) {
            Ok(head) => head,
            Err(HeadError::TooLarge) => {
                respond(&mut stream, "431 Request Header Fields Too Large", "Request too large.");
                return None;
            }
            Err(HeadError::Incomplete) => return None,
        };
        let (status, body, url) = self.judge(&head);
        respond(&mut stream, status, body);
        url
    }

    /// The status and page for a request head, and the redirect URL when it is the callback.
    fn judge(&self, head: &str) -> (&'static str, &'static str, Option<String>) {
        let line = head.split("\r\n").next().unwrap_or("");
        let parts: Vec<&str> = line.split(' ').collect();
        let [method, target, version] = parts[..] else {
            return ("400 Bad Request", "Bad request.", None);
        };
        if !version.starts_with("HTTP/1.") || !target.starts_with('/') {
            return ("400 Bad Request", "Bad request.", None);
        }
        let (path, query) = target.split_once('?').unwrap_or((target, ""));
        if path != self.path {
            return ("404 Not Found", "Not found.", None);
        }
        if method != "GET" {
            return ("405 Method Not Allowed", "Method not allowed.", None);
        }
        let keys = query.split('&').map(|pair| pair.split('=').next().unwrap_or(""));
        let mut has = (false, false);
        for key in keys {
            has.0 |= key == "code";
            has.1 |= key == "error";
        }
        match has {
            (_, true) => ("200 OK", FAILED_PAGE, Some(format!("{}{target}", self.origin))),
            (true, false) => ("200 OK", DONE_PAGE, Some(format!("{}{target}", self.origin))),
            _ => ("400 Bad Request", "The callback carries no authorization code.", None),
        }
    }
}

const DONE_PAGE: &str = "<!doctype html><html><head><meta charset=\"utf-8\"><title>Signed in</title></head>\
<body><p>Authorization complete. You can close this tab.</p></body></html>";

const FAILED_PAGE: &str = "<!doctype html><html><head><meta charset=\"utf-8\"><title>Not signed in</title>\
</head><body><p>Authorization was not granted. You can close this tab.</p></body></html>";

fn check_path(path: &str) -> Result<(), CallbackError> {
    let ok = path.starts_with('/') && path.len() <= 1024 && path.bytes().all(|b| b.is_ascii_graphic());
    if ok && !path.contains(['?', '#']) {
        Ok(())
    } else {
        Err(CallbackError::InvalidRedirectUri(format!("invalid callback path {}", clip(path))))
    }
}

fn clip(s: &str) -> String {
    s.chars().take(200).collect()
}

enum HeadError {
    TooLarge,
    Incomplete,
}

/// Reads up to the end of the request head (`\r\n\r\n`), at most
/// [`MAX_CALLBACK_REQUEST_BYTES`].
fn read_head(stream: &mut TcpStream) -> Result<String, HeadError> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 1024];
    loop {
        let n = stream.read(&mut chunk).map_err(|_| HeadError::Incomplete)?;
        if n == 0 {
            return Err(HeadError::Incomplete);
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            if end + 4 > MAX_CALLBACK_REQUEST_BYTES {
                return Err(HeadError::TooLarge);
            }
            return Ok(String::from_utf8_lossy(&buf[..end]).into_owned());
        }
        if buf.len() > MAX_CALLBACK_REQUEST_BYTES {
            return Err(HeadError::TooLarge);
        }
    }
}

fn respond(stream: &mut TcpStream, status: &str, body: &str) {
    let response = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\n\
         Cache-Control: no-store\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.write_all(response.as_bytes());
    let _ = stream.flush();
}

struct Slot {
    outcome: Option<Result<String, CallbackError>>,
    waker: Option<Waker>,
}

struct Shared {
    slot: Mutex<Slot>,
    ready: Condvar,
    cancel: AtomicBool,
}

impl Shared {
    fn finish(&self, outcome: Result<String, CallbackError>) {
        let mut slot = crate::lock(&self.slot);
        slot.outcome = Some(outcome);
        if let Some(waker) = slot.waker.take() {
            waker.wake();
        }
        self.ready.notify_all();
    }
}

/// A callback wait running on a thread of its own: `.await` it (it is a `Future` for any
/// runtime) or call [`CallbackWait::wait`]. Dropping it stops the wait and frees the port.
pub struct CallbackWait {
    shared: Arc<Shared>,
}

impl fmt::Debug for CallbackWait {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let done = crate::lock(&self.shared.slot).outcome.is_some();
        f.debug_struct("CallbackWait").field("done", &done).finish()
    }
}

impl CallbackWait {
    /// Runs `work` on a new thread; its outcome (or an error if it panics, or the thread
    /// cannot start) becomes this wait's. `work` should give up when the flag is set.
    pub(crate) fn run<F>(work: F) -> Self
    where
        F: FnOnce(&AtomicBool) -> Result<String, CallbackError> + Send + 'static,
    {
        let shared = Arc::new(Shared {
            slot: Mutex::new(Slot { outcome: None, waker: None }),
            ready: Condvar::new(),
            cancel: AtomicBool::new(false),
        });
        let theirs = shared.clone();
        let spawned = std::thread::Builder::new().name("mcp-oauth-callback".into()).spawn(move || {
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(&theirs.cancel)))
                .unwrap_or_else(|_| Err(CallbackError::Io(io::Error::other("the callback wait panicked"))));
            theirs.finish(outcome);
        });
        if let Err(e) = spawned {
            shared.finish(Err(CallbackError::Io(e)));
        }
        Self { shared }
    }

    /// Blocks until the wait ends.
    pub fn wait(self) -> Result<String, CallbackError> {
        let mut slot = crate::lock(&self.shared.slot);
        loop {
            if let Some(outcome) = slot.outcome.take() {
                return outcome;
            }
            slot = self.shared.ready.wait(slot).unwrap_or_else(|p| p.into_inner());
        }
    }
}

impl Future for CallbackWait {
    type Output = Result<String, CallbackError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut slot = crate::lock(&self.shared.slot);
        match slot.outcome.take() {
            Some(outcome) => Poll::Ready(outcome),
            None => {
                slot.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

impl Drop for CallbackWait {
    fn drop(&mut self) {
        self.shared.cancel.store(true, Ordering::Relaxed);
    }
}

#[cfg(test)]
#[path = "loopback_tests.rs"]
mod tests;
