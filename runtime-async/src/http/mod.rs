//! The HTTP half of the IO contract ([`mcpwire_core::Io::HttpStart`] / [`mcpwire_core::Io::HttpAbort`]),
//! written once on hyper 1.x for every async runtime: connection pool with keep-alive, TLS
//! (rustls with the provider and roots mcpwire-host chooses), proxies (`http://`, `https://`,
//! SOCKS4/4a/5/5h), connect timeouts, and a [`Connector`] hook to replace how byte streams are
//! opened.
//!
//! An OAuth-related request ([`mcpwire_core::Destination::Public`]) has its host resolved here
//! ([`Runtime::resolve`](crate::Runtime::resolve), or `HttpClientConfig::resolve`), the
//! addresses outside its rule dropped, and is refused ([`Input::HttpRefused`]) when none
//! remain; it connects only to a checked address, through a proxy by a tunnel (`CONNECT` or
//! SOCKS) to that address, and its connections are pooled apart from MCP traffic.

mod hyper_io;
mod proxy;
mod socks;
mod tls;

use std::collections::{BTreeMap, HashMap};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_channel::{Receiver, Sender};
use bytes::Bytes;
use futures_lite::FutureExt;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::SendRequest;
use mcpwire_core::mcp_servers::HttpUrl;
use mcpwire_core::Input;
use mcpwire_core::{Destination, ExchangeFailure, ExchangeId, HttpHead, HttpMethod, HttpRequest};
use mcpwire_host::Feed;

pub use hyper_io::{AsyncStream, BoxedStream};

use crate::caller_io::CallerIo;
use crate::runtime::{BoxFuture, Runtime};
use hyper_io::HyperIo;
use mcpwire_host::{HttpClientConfig, Proxies, Proxy, ProxyKind};

/// Opens byte streams to `host:port` (a server's, or a proxy's). The default uses the runtime's
/// TCP; install your own with [`AsyncOptions::connector`](crate::AsyncOptions::connector)
/// (custom DNS, Unix sockets, an in-process transport for tests...). TLS and proxy tunnels are
/// layered on top of it. A pooled connection opened by a connector is not checked on its
/// socket before reuse (the runtime's TCP is): a close its stream has not reported yet costs
/// the request sent on it. For an OAuth-related request ([`mcpwire_core::Destination::Public`])
/// and for a name given to `HttpClientConfig::resolve`, the connector is handed a checked (or
/// configured) IP address, not the name: the client resolved the name itself.
pub trait Connector: Send + Sync + 'static {
    /// Opens a stream. The client bounds the time it may take (`Timeouts::http_connect`).
    fn connect(&self, host: &str, port: u16) -> BoxFuture<'static, std::io::Result<BoxedStream>>;
}

type Sender1 = SendRequest<Full<Bytes>>;
type Driver = hyper::client::conn::http1::Connection<HyperIo, Full<Bytes>>;

/// A TCP connection as a [`Runtime`] opens it: the stream, and a check of its socket.
pub struct TcpConnection {
    /// The byte stream.
    pub stream: BoxedStream,
    /// Asks the kernel, without blocking, whether the socket is open with nothing to read:
    /// what a pooled connection must be before a request goes out on it (see [`socket_idle`]).
    pub idle_check: IdleCheck,
}

impl std::fmt::Debug for TcpConnection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TcpConnection").finish_non_exhaustive()
    }
}

/// See [`TcpConnection::idle_check`].
pub type IdleCheck = Box<dyn Fn() -> bool + Send + Sync>;

/// Whether a non-blocking socket is open with nothing to read: one `recv` that peeks. A
/// connection the server closed (end of stream), reset, or sent something on while it was
/// idle (a `408`, a TLS alert before its close) is not fit for another request.
pub fn socket_idle(socket: &std::net::TcpStream) -> bool {
    let mut byte = [0u8; 1];
    loop {
        match socket.peek(&mut byte) {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return e.kind() == std::io::ErrorKind::WouldBlock,
            Ok(_) => return false,
        }
    }
}

/// A keep-alive connection: its request half and its driver (the future that moves the bytes),
/// polled by whichever exchange holds the connection, on that exchange's task: no task per
/// connection and no hop between tasks per request. An idle connection is not polled; before
/// the next exchange takes it, its socket is asked whether the server closed it meanwhile (a
/// reactor may not have reported that yet, and a request written on it would be lost).
struct Conn {
    sender: Sender1,
    /// `None` once the connection ended.
    driver: Option<Driver>,
    /// The socket's check, when the runtime opened it (a [`Connector`]'s stream has none: its
    /// own reads find the close).
    idle_check: Option<IdleCheck>,
}

impl Conn {
    /// Whether a request may go out on this pooled connection.
    fn reusable(&self) -> bool {
        self.driver.is_some()
            && !self.sender.is_closed()
            && self.idle_check.as_ref().is_none_or(|idle| idle())
    }
}

/// Awaits `work` while polling the connection's driver, which `work` depends on.
async fn driving<F: std::future::Future>(driver: &mut Option<Driver>, work: F) -> F::Output {
    let mut work = std::pin::pin!(work);
    std::future::poll_fn(|cx| {
        if let Some(d) = driver.as_mut() {
            if std::pin::Pin::new(d).poll(cx).is_ready() {
                *driver = None;
            }
        }
        work.as_mut().poll(cx)
    })
    .await
}

/// One client's HTTP machinery, shared by its servers' IO sides.
pub(crate) struct HttpClient {
    tls: tls::LazyConfig,
    proxies: Proxies,
    /// The names answered without DNS (`HttpClientConfig::resolve`).
    hosts: HttpClientConfig,
    connector: Option<Arc<dyn Connector>>,
    max_idle: usize,
    pool: Mutex<HashMap<String, Vec<Conn>>>,
    /// The URLs exchanges went to, parsed once each (a server's URL repeats on every request).
    targets: Mutex<HashMap<String, Arc<Target>>>,
}

/// At most this many parsed URLs are kept; past it the table starts over.
const MAX_TARGETS: usize = 64;

/// Response body bytes an exchange feeds before it lets its executor run others once (a server
/// writing without pause keeps every read ready, and async-io has no cooperative budget).
const YIELD_EVERY: usize = 64 * 1024;

/// An exchange's URL, parsed, with what every request to it needs.
struct Target {
    url: HttpUrl,
    proxy: Option<Proxy>,
    /// The `Proxy-Authorization` value for an HTTP proxy with credentials.
    proxy_auth: Option<String>,
    /// The pool key: the origin, and the proxy if any.
    key: String,
    /// The request target (origin-form, or absolute-form through an HTTP proxy).
    uri: hyper::Uri,
    /// The `Host` header.
    host: hyper::header::HeaderValue,
    absolute: bool,
}

impl Target {
    fn new(raw: &str, proxies: &Proxies) -> Result<Self, String> {
        let url = HttpUrl::parse(raw).map_err(|e| format!("invalid URL: {e}"))?;
        let proxy = proxies.for_url(&url).cloned();
        // `http://` servers through an HTTP proxy get absolute-form requests; SOCKS proxies
        // and `https://` servers get a tunnel.
        let absolute = proxy.as_ref().is_some_and(|p| p.kind.is_http()) && !url.is_https();
        let key = match &proxy {
            Some(p) => format!("{} via {}://{}:{}", url.origin(), p.kind.scheme(), p.host, p.port),
            None => url.origin(),
        };
        let proxy_auth = proxy.as_ref().and_then(Proxy::basic_authorization);
        let target = if absolute { url.as_str().to_owned() } else { url.request_target() };
        let uri = hyper::Uri::try_from(target).map_err(|e| format!("the request cannot be sent: {e}"))?;
        let host = hyper::header::HeaderValue::try_from(url.authority())
            .map_err(|e| format!("the request cannot be sent: {e}"))?;
        Ok(Self { url, proxy, proxy_auth, key, uri, host, absolute })
    }
}

impl std::fmt::Debug for HttpClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpClient").field("proxies", &self.proxies).finish_non_exhaustive()
    }
}

impl HttpClient {
    /// Builds the client: TLS roots, proxies (the environment is read here, once).
    pub(crate) fn new(
        config: &HttpClientConfig,
        connector: Option<Arc<dyn Connector>>,
    ) -> Result<Self, String> {
        Ok(Self {
            tls: tls::LazyConfig::new(config)?,
            proxies: Proxies::resolve(&config.proxy)?,
            hosts: {
                let mut hosts = HttpClientConfig::default();
                hosts.resolve_overrides = config.resolve_overrides.clone();
                hosts
            },
            connector,
            max_idle: config.max_idle_per_host,
            pool: Mutex::new(HashMap::new()),
            targets: Mutex::new(HashMap::new()),
        })
    }

    /// The parsed form of `url`, parsed on first use.
    fn target(&self, url: &str) -> Result<Arc<Target>, String> {
        if let Some(target) = mcpwire_host::lock(&self.targets).get(url) {
            return Ok(target.clone());
        }
        let target = Arc::new(Target::new(url, &self.proxies)?);
        let mut targets = mcpwire_host::lock(&self.targets);
        if targets.len() >= MAX_TARGETS {
            targets.clear();
        }
        targets.insert(url.to_owned(), target.clone());
        Ok(target)
    }

    fn checkout(&self, key: &str) -> Option<Conn> {
        let mut pool = mcpwire_host::lock(&self.pool);
        let idle = pool.get_mut(key)?;
        while let Some(conn) = idle.pop() {
            if conn.reusable() {
                return Some(conn);
            }
        }
        None
    }

    fn checkin(&self, key: &str, conn: Conn) {
        if self.max_idle == 0 || conn.driver.is_none() || conn.sender.is_closed() {
            return;
        }
        let mut pool = mcpwire_host::lock(&self.pool);
        match pool.get_mut(key) {
            Some(idle) if idle.len() < self.max_idle => idle.push(conn),
            Some(_) => {}
            None => {
                pool.insert(key.to_owned(), vec![conn]);
            }
        }
    }

    /// A new connection to the server (through its proxy, if any), handshaken. For a
    /// [`Destination::Public`] request the server's name is resolved here, the addresses
    /// checked, and only a checked one connected to; through a proxy, a tunnel (`CONNECT`, or
    /// SOCKS) to the first checked address, for `http://` URLs too (the proxy never resolves
    /// the name), with the TLS name and `Host` still the URL's.
    async fn connect<R: Runtime>(
        &self,
        rt: &R,
        url: &HttpUrl,
        proxy: Option<&Proxy>,
        timeout: Duration,
        destination: Destination,
    ) -> Result<Conn, ExchangeFailure> {
        let deadline = rt.now() + timeout;
        let open = async {
            let checked = self.checked_addresses(rt, url, destination).await?;
            let (mut stream, idle_check) = match (proxy, &checked) {
                (Some(p), _) => self.open_host(rt, &p.host, p.port).await?,
                (None, Some(addrs)) => self.open_any(rt, addrs).await?,
                (None, None) => self.open_host(rt, url.host(), url.port()).await?,
            };
            if let Some(p) = proxy {
                stream = self.through_proxy(rt, stream, p, url, checked.as_deref(), destination).await?;
            }
            if url.is_https() {
                stream = tls::wrap(self.tls.get()?, stream, url.host()).await?;
            }
            Ok::<_, ExchangeFailure>((stream, idle_check))
        };
        let expired = async {
            rt.sleep_until(deadline).await;
            let late = std::io::ErrorKind::TimedOut.into();
            Err(ExchangeFailure::io(&format!("connecting to the server took longer than {timeout:?}"), late))
        };
        let (stream, idle_check) = open.or(expired).await?;
        let (sender, driver) = hyper::client::conn::http1::handshake(HyperIo::new(stream))
            .await
            .map_err(|e| ExchangeFailure::described("HTTP handshake failed", &e))?;
        Ok(Conn { sender, driver: Some(driver), idle_check })
    }

    /// `stream`, opened to `proxy`, made a stream to the server of `url`: TLS to an `https://`
    /// proxy first, then a tunnel to the checked (or configured) address if any, else to the
    /// name (resolved here first for SOCKS4 and SOCKS5 without `h`). Plain `http` to any address
    /// through an HTTP proxy needs no tunnel: it goes in absolute form (the proxy resolves the
    /// name).
    async fn through_proxy<R: Runtime>(
        &self,
        rt: &R,
        mut stream: BoxedStream,
        proxy: &Proxy,
        url: &HttpUrl,
        checked: Option<&[SocketAddr]>,
        destination: Destination,
    ) -> Result<BoxedStream, ExchangeFailure> {
        if proxy.kind == ProxyKind::Https {
            stream = tls::wrap(self.tls.get()?, stream, &proxy.host).await?;
        }
        let checked_first = checked.and_then(|a| a.first());
        if proxy.kind.is_http() {
            let target = match checked_first {
                Some(addr) if url.is_https() || destination != Destination::Any => addr.to_string(),
                _ if url.is_https() => url.authority_with_port(),
                _ => return Ok(stream),
            };
            return Ok(proxy::tunnel(stream, proxy, &target).await?);
        }
        let target = match checked_first {
            Some(addr) => socks::Destination::Address(*addr),
            None if proxy.kind.resolves_names() => socks::Destination::Name(url.host(), url.port()),
            None => {
                let (host, port) = (url.host(), url.port());
                let resolved = match self.hosts.known_addresses(host, port) {
                    Some(known) => known,
                    None => rt
                        .resolve(host, port)
                        .await
                        .map_err(|e| ExchangeFailure::io(&format!("resolving {host} failed"), e))?,
                };
                let usable = resolved.iter().find(|a| a.is_ipv4() || proxy.kind != ProxyKind::Socks4);
                let addr = usable.ok_or_else(|| {
                    ExchangeFailure::from(format!("{host} has no IPv4 address, which a SOCKS4 proxy needs"))
                })?;
                socks::Destination::Address(*addr)
            }
        };
        Ok(socks::connect(stream, proxy, target).await?)
    }

    /// The addresses to connect to for `url`, checked against `destination`: `None` for a
    /// request to any address whose host has no configured addresses (the name is connected
    /// to as is); resolved (or configured) and checked otherwise.
    async fn checked_addresses<R: Runtime>(
        &self,
        rt: &R,
        url: &HttpUrl,
        destination: Destination,
    ) -> Result<Option<Vec<SocketAddr>>, ExchangeFailure> {
        let (host, port) = (url.host(), url.port());
        let resolved = match (destination, self.hosts.known_addresses(host, port)) {
            (Destination::Any, _) => return Ok(self.hosts.overridden(host, port)),
            (_, Some(known)) => known,
            (_, None) => rt
                .resolve(host, port)
                .await
                .map_err(|e| ExchangeFailure::io(&format!("resolving {host} failed"), e))?,
        };
        let checked = destination.check(url.as_str(), &resolved).map_err(ExchangeFailure::Refused)?;
        if checked.is_empty() {
            return Err(ExchangeFailure::from(format!("{host} resolved to no address")));
        }
        Ok(Some(checked))
    }

    /// A stream to `host:port` (the configured addresses of a name, else the name itself).
    async fn open_host<R: Runtime>(&self, rt: &R, host: &str, port: u16) -> Result<Opened, ExchangeFailure> {
        if let Some(addrs) = self.hosts.overridden(host, port) {
            return self.open_any(rt, &addrs).await;
        }
        let opened = match &self.connector {
            Some(c) => c.connect(host, port).await.map(|stream| (stream, None)),
            None => rt.connect_tcp(host, port).await.map(|tcp| (tcp.stream, Some(tcp.idle_check))),
        };
        opened.map_err(|e| ExchangeFailure::io(&format!("connecting to {host}:{port} failed"), e))
    }

    /// A stream to the first of `addrs` that accepts (tried in order).
    async fn open_any<R: Runtime>(&self, rt: &R, addrs: &[SocketAddr]) -> Result<Opened, ExchangeFailure> {
        let mut failed = ExchangeFailure::from("no address to connect to".to_owned());
        for addr in addrs {
            let ip = addr.ip().to_string();
            let opened = match &self.connector {
                Some(c) => c.connect(&ip, addr.port()).await.map(|stream| (stream, None)),
                None => rt.connect_tcp(&ip, addr.port()).await.map(|tcp| (tcp.stream, Some(tcp.idle_check))),
            };
            match opened {
                Ok(opened) => return Ok(opened),
                Err(e) => failed = ExchangeFailure::io(&format!("connecting to {addr} failed"), e),
            }
        }
        Err(failed)
    }
}

/// An opened stream and, when the runtime opened it, its socket's check.
type Opened = (BoxedStream, Option<IdleCheck>);

/// The pool key of `target` for a request to `destination`: connections opened under an
/// address rule serve only requests under the same rule.
fn pool_key(target: &Target, destination: Destination) -> std::borrow::Cow<'_, str> {
    match destination {
        Destination::Any => std::borrow::Cow::Borrowed(&target.key),
        checked => std::borrow::Cow::Owned(format!("{} {checked:?}", target.key)),
    }
}

/// Runs one exchange to its end, reporting to the engine, unless `abort` fires (or its sender is
/// dropped) first: then the connection is closed and nothing more is reported.
pub(crate) async fn run_exchange<R: Runtime>(
    client: Arc<HttpClient>,
    rt: R,
    id: ExchangeId,
    request: HttpRequest,
    feed: Arc<dyn Feed>,
    abort: Receiver<()>,
) {
    let work = async {
        match exchange(&client, &rt, id, request, &*feed).await {
            Ok(()) => {}
            Err(failure) => {
                feed.feed(failure.into_input(id));
            }
        }
    };
    let aborted = async {
        let _ = abort.recv().await;
    };
    work.or(aborted).await;
}

fn method_of(m: HttpMethod) -> hyper::Method {
    match m {
        HttpMethod::Get => hyper::Method::GET,
        HttpMethod::Post => hyper::Method::POST,
        HttpMethod::Delete => hyper::Method::DELETE,
    }
}

/// The hyper request: origin-form (or absolute-form through a plain-HTTP proxy, unless the
/// request's destination has it tunnelled to a checked address), `Host`, then exactly the
/// core's headers.
fn build(
    target: &Target,
    request: &HttpRequest,
    body: &Bytes,
) -> Result<hyper::Request<Full<Bytes>>, String> {
    let absolute = target.absolute && request.destination == Destination::Any;
    let uri = if target.absolute && !absolute {
        hyper::Uri::try_from(target.url.request_target())
            .map_err(|e| format!("the request cannot be sent: {e}"))?
    } else {
        target.uri.clone()
    };
    let mut builder = hyper::Request::builder().method(method_of(request.method)).uri(uri);
    builder = builder.header(hyper::header::HOST, target.host.clone());
    builder = mcpwire_host::with_request_headers(builder, &request.headers);
    if let (true, Some(auth)) = (absolute, target.proxy_auth.as_deref()) {
        builder = builder.header(hyper::header::PROXY_AUTHORIZATION, auth);
    }
    builder.body(Full::new(body.clone())).map_err(|e| format!("the request cannot be sent: {e}"))
}

async fn exchange<R: Runtime>(
    client: &HttpClient,
    rt: &R,
    id: ExchangeId,
    mut request: HttpRequest,
    feed: &dyn Feed,
) -> Result<(), ExchangeFailure> {
    let target = client.target(&request.url)?;
    let (url, proxy) = (&target.url, target.proxy.as_ref());
    let key = pool_key(&target, request.destination);
    let body = Bytes::from(std::mem::take(&mut request.body));
    let (mut conn, reused) = match client.checkout(&key) {
        Some(c) => (c, true),
        None => (client.connect(rt, url, proxy, request.connect_timeout, request.destination).await?, false),
    };
    let mut sent = send(&mut conn, build(&target, &request, &body)?).await;
    if let (Err(e), true) = (&sent, reused) {
        // A pooled connection the server closed while idle: the request never went out.
        if e.is_canceled() || e.is_closed() {
            conn = client.connect(rt, url, proxy, request.connect_timeout, request.destination).await?;
            sent = send(&mut conn, build(&target, &request, &body)?).await;
        }
    }
    let response = sent.map_err(|e| ExchangeFailure::described("HTTP request failed", &e))?;
    let head = HttpHead {
        status: response.status().as_u16(),
        headers: response
            .headers()
            .iter()
            .filter_map(|(n, v)| v.to_str().ok().map(|v| (n.as_str().to_owned(), v.to_owned())))
            .collect(),
    };
    if !feed.feed(Input::HttpHead(id, head)) {
        return Ok(());
    }
    let mut body = response.into_body();
    let mut since_yield = 0;
    while let Some(frame) = driving(&mut conn.driver, body.frame()).await {
        let frame = frame.map_err(|e| ExchangeFailure::described("the response body broke", &e))?;
        if let Ok(data) = frame.into_data() {
            if !data.is_empty() && !feed.feed(Input::HttpBody(id, data.to_vec())) {
                return Ok(());
            }
            since_yield += data.len();
        }
        if since_yield >= YIELD_EVERY {
            since_yield = 0;
            futures_lite::future::yield_now().await;
        }
    }
    client.checkin(&key, conn);
    feed.feed(Input::HttpEnd(id));
    Ok(())
}

/// Sends a request once the connection is ready for it, driving the connection meanwhile.
async fn send(
    conn: &mut Conn,
    request: hyper::Request<Full<Bytes>>,
) -> Result<hyper::Response<hyper::body::Incoming>, hyper::Error> {
    let Conn { sender, driver, .. } = conn;
    driving(driver, sender.ready()).await?;
    driving(driver, sender.send_request(request)).await
}

/// A driver's exchanges in flight: dropping an exchange's abort sender aborts it.
#[derive(Debug, Default)]
pub(crate) struct Exchanges {
    aborts: BTreeMap<ExchangeId, Sender<()>>,
}

impl Exchanges {
    /// Starts an exchange: a `POST` is offered to the caller issuing its request (who then
    /// polls it in its own future, see [`mcpwire_host::CallerScope`]); anything else, or a `POST`
    /// no caller takes, runs as a task of the runtime.
    pub(crate) fn start<R: Runtime>(
        &mut self,
        client: &Arc<HttpClient>,
        rt: &R,
        spawner: &Spawner,
        id: ExchangeId,
        request: HttpRequest,
        feed: Arc<dyn Feed>,
    ) {
        let (abort_tx, abort_rx) = async_channel::bounded(1);
        self.aborts.insert(id, abort_tx);
        let post = request.method == HttpMethod::Post;
        let future: BoxFuture<'static, ()> =
            Box::pin(run_exchange(client.clone(), rt.clone(), id, request, feed, abort_rx));
        let exchange = InlineExchange { future, spawner: spawner.clone() };
        let unclaimed = if post {
            mcpwire_host::offer_to_caller(CallerIo::Exchange(exchange))
        } else {
            Some(CallerIo::Exchange(exchange))
        };
        if let Some(io) = unclaimed {
            io.unclaimed();
        }
    }

    /// Aborts an exchange (a no-op if it ended).
    pub(crate) fn abort(&mut self, id: ExchangeId) {
        self.aborts.remove(&id);
    }

    /// Forgets an exchange that ended (its last report arrived).
    pub(crate) fn ended(&mut self, input: &Input) {
        if let Input::HttpEnd(id) | Input::HttpFailed(id, _) | Input::HttpRefused(id, _) = input {
            self.aborts.remove(id);
        }
    }
}

/// Runs futures on the runtime, whatever the runtime (one per engine, cloned cheaply).
pub(crate) type Spawner = Arc<dyn Fn(BoxFuture<'static, ()>) + Send + Sync>;

/// An exchange's future, polled by the caller whose request it carries until it ends or the
/// caller stops (its outcome came first, or its future was dropped): then the runtime
/// polls the rest.
pub(crate) struct InlineExchange {
    future: BoxFuture<'static, ()>,
    spawner: Spawner,
}

impl InlineExchange {
    /// Polls the exchange on the caller's behalf.
    pub(crate) fn poll(&mut self, cx: &mut std::task::Context<'_>) -> std::task::Poll<()> {
        self.future.as_mut().poll(cx)
    }

    /// Hands the rest of the exchange to the runtime.
    pub(crate) fn hand_off(self) {
        (self.spawner)(self.future);
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::net::{TcpListener, TcpStream};

    use super::socket_idle;

    /// A connected pair: (the client's non-blocking end, the server's end).
    fn pair() -> (TcpStream, TcpStream) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        client.set_nonblocking(true).unwrap();
        (client, listener.accept().unwrap().0)
    }

    /// Waits (boundedly) until the socket stops being idle: the kernel took what the peer did.
    fn becomes_busy(socket: &TcpStream) -> bool {
        for _ in 0..5_000 {
            if !socket_idle(socket) {
                return true;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        false
    }

    #[test]
    fn an_open_quiet_socket_is_idle() {
        let (client, _server) = pair();
        assert!(socket_idle(&client));
        assert!(socket_idle(&client), "the check reads nothing");
    }

    #[test]
    fn a_socket_the_peer_closed_or_wrote_on_is_not() {
        let (client, server) = pair();
        drop(server);
        assert!(becomes_busy(&client), "the peer's close is seen");

        let (client, mut server) = pair();
        server.write_all(b"HTTP/1.1 408 Request Timeout\r\n\r\n").unwrap();
        assert!(becomes_busy(&client), "bytes on an idle connection are seen");
        let mut kept = [0u8; 8];
        assert_eq!(client.peek(&mut kept).unwrap(), 8, "and left where they were");
    }
}
