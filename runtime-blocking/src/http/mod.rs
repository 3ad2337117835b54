//! The HTTP adapter: performs the core's [`Io::HttpStart`](mcpwire_core::Io::HttpStart) and
//! [`Io::HttpAbort`](mcpwire_core::Io::HttpAbort) with [ureq] 3, one thread per exchange.
//!
//! A [`Client`](crate::Client) owns one [`HttpClient`] (one `ureq::Agent`, so keep-alive
//! connections are reused between exchanges and servers), configured by the
//! [`HttpClientConfig`] given to [`ClientBuilder::http_client`](crate::ClientBuilder::http_client).
//! Each server's IO side starts exchanges with [`HttpClient::start`] and keeps the
//! returned [`HttpExchange`] until the exchange ends or the core aborts it.
//!
//! What the adapter does, as the core's [`HttpRequest`] contract requires:
//!
//! - It sends exactly the request's headers (names go out lower-cased), plus `Host` and the
//!   body framing (`Content-Length`): ureq's automatic `User-Agent`, `Accept` and
//!   `Accept-Encoding` are all turned off.
//! - It never decompresses (ureq is built without its `gzip` and `brotli` features): bodies
//!   are reported as they came off the wire.
//! - It never follows redirects: a 3xx is reported like any other status, and no status is an
//!   error.
//! - It reports body bytes as they arrive, in reads of at most 16 KiB, so endless event streams
//!   work; each report waits for room in the IO side's bounded channel (back-pressure).
//! - The only timeout is the request's `connect_timeout` (name resolution, TCP, proxy and TLS);
//!   the core runs every other timer itself.
//! - [`HttpExchange::abort`] shuts the exchange's socket down at once (`shutdown(Both)`, which
//!   wakes a blocked read), so the connection is closed rather than pooled, and nothing more is
//!   reported for the exchange. ureq has no abort of its own: the adapter wraps ureq's
//!   connector chain and keeps the socket handles that ureq's TCP and SOCKS connectors
//!   register, attached to whichever exchange's thread is using the connection.
//!
//! An OAuth-related request ([`mcpwire_core::Destination::Public`]) goes through an agent of its
//! own, without a proxy, whose resolver hands ureq only the addresses the rule allows and
//! refuses ([`HttpReport::Refused`]) when none remain, so ureq connects to a checked address
//! and looks nothing up again. Such a request that would go through a proxy is refused
//! ([`HttpReport::Failed`]): ureq's tunnels name the host, which the proxy would resolve
//! unchecked.
//!
//! TLS is rustls with the crypto provider mcpwire-host picks (*ring* by default, aws-lc-rs with
//! the `aws-lc-rs` feature), trusting the Mozilla (webpki) roots, the operating system's (feature
//! `native-roots`) and [`HttpClientConfig::extra_root_certificates`]. Proxies come from the
//! environment by default (`HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY`, `NO_PROXY`; `http://`,
//! `https://` and `socks*://` proxies), see [`ProxySetting`].

mod abort;
mod resolve;

use std::io::{self, Read};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use ureq::typestate::HttpCrateScope;

use mcpwire_core::Input;
use mcpwire_core::{
    ClientError, Destination, ExchangeFailure, ExchangeId, HttpHead, HttpMethod, HttpRequest, UnsafeAddress,
};
use ureq::config::AutoHeaderValue;
use ureq::http;
use ureq::tls::{Certificate, RootCerts, TlsConfig};
use ureq::unversioned::transport::DefaultConnector;

use abort::{AbortCtl, AbortableConnector};
use resolve::PooledResolver;

/// The size of one body read, hence the largest body chunk reported.
pub const READ_CHUNK: usize = 16 * 1024;

/// The HTTP client settings, shared with the async runtimes: extra roots, proxy, idle
/// connections per host.
pub use mcpwire_host::{HttpClientConfig, ProxySetting};

/// One client's HTTP machinery: `ureq::Agent`s (and their keep-alive pools) configured for the
/// core's contract, made on the first exchange. Cheap to clone; every clone shares them.
#[derive(Debug, Clone)]
pub struct HttpClient {
    /// The agents for requests that need no TLS (an `http` URL, not through an `https` proxy):
    /// made without trusted roots, so plain HTTP never pays for reading them.
    plain: Arc<OnceLock<Agents>>,
    /// The agents for requests that need TLS, with the trusted roots (see [`HttpClient::new`]).
    tls: Arc<OnceLock<Result<Agents, String>>>,
    config: Arc<HttpClientConfig>,
    /// The configured (or environment) proxy, as ureq reads it.
    proxy: Option<ureq::Proxy>,
    /// Which URLs go through a proxy (`None`: a proxy the host's parser does not read, taken
    /// to apply to every URL).
    proxies: Option<mcpwire_host::Proxies>,
}

/// The agents of a client.
#[derive(Debug)]
struct Agents {
    /// For requests to any address ([`Destination::Any`]).
    any: ureq::Agent,
    /// For [`Destination::Public`] requests, without and with loopback: no proxy, and a
    /// resolver that checks the addresses it hands ureq (their connections are pooled apart).
    checked: [ureq::Agent; 2],
    /// Why TLS cannot be used (no crypto provider), if it cannot.
    no_tls: Option<String>,
}

impl HttpClient {
    /// Builds the client: the proxy (the environment is read here, once) and the configured
    /// root certificates are checked. Fails with [`ClientError::Config`] for an unusable
    /// certificate or proxy URL, or when nothing would be trusted. The agents are made on the
    /// first exchange that needs them: those with the trusted roots (the operating system's
    /// are read then, under `native-roots`) on the first that needs TLS, so a client that
    /// only speaks plain `http` never reads them.
    pub fn new(config: &HttpClientConfig) -> Result<Self, ClientError> {
        let proxy = match &config.proxy {
            ProxySetting::None => None,
            ProxySetting::Url(url) => {
                Some(ureq::Proxy::new(url).map_err(|e| ClientError::Config(format!("proxy URL: {e}")))?)
            }
            _ => ureq::Proxy::try_from_env(),
        };
        let proxies = match &proxy {
            None => Some(mcpwire_host::Proxies::default()),
            Some(_) => mcpwire_host::Proxies::resolve(&config.proxy).ok().filter(|p| !p.is_empty()),
        };
        let tls = OnceLock::new();
        if !config.extra_root_certificates.is_empty() || !config.webpki_roots {
            // Bad certificates, or nothing to trust, are the builder's error.
            let (settings, no_tls) = tls_config(config).map_err(ClientError::Config)?;
            let _ = tls.set(Ok(Agents::new(config, proxy.clone(), settings, no_tls)));
        }
        let plain = Arc::new(OnceLock::new());
        Ok(Self { plain, tls: Arc::new(tls), config: Arc::new(config.clone()), proxy, proxies })
    }

    /// The agent for `request`: by its destination. A [`Destination::Public`] request that
    /// would go through a proxy is refused (the proxy would resolve its host unchecked).
    fn agent_for(&self, request: &HttpRequest) -> Result<ureq::Agent, String> {
        let url = mcpwire_core::mcp_servers::HttpUrl::parse(&request.url)
            .map_err(|e| format!("invalid URL: {e}"))?;
        let agents = if needs_tls(&url, self.proxies.as_ref(), self.proxy.as_ref()) {
            let made = self.tls.get_or_init(|| {
                let (settings, no_tls) = tls_config(&self.config)?;
                Ok(Agents::new(&self.config, self.proxy.clone(), settings, no_tls))
            });
            let agents = made.as_ref().map_err(Clone::clone)?;
            if let Some(why) = &agents.no_tls {
                return Err(why.clone());
            }
            agents
        } else {
            self.plain.get_or_init(|| Agents::plain(&self.config, self.proxy.clone()))
        };
        let Destination::Public { loopback } = request.destination else { return Ok(agents.any.clone()) };
        let proxied = self.proxies.as_ref().is_none_or(|p| p.for_url(&url).is_some());
        if proxied {
            return Err(UNCHECKABLE_THROUGH_PROXY.to_owned());
        }
        Ok(agents.checked[usize::from(loopback)].clone())
    }

    /// Starts one exchange on a pooled thread (an idle one when there is one, a new one
    /// otherwise: an exchange never waits for another). `report` receives, in order, the
    /// response head, every body chunk as it arrives, then exactly one of
    /// [`HttpReport::End`] or [`HttpReport::Failed`] (or only [`HttpReport::Refused`], for a
    /// request whose addresses are all outside its destination); nothing is reported once the
    /// exchange is aborted (a report may race with the abort). `report` returns false when its
    /// receiver is gone, which stops the exchange. Fails only if no thread was idle and none
    /// could be started.
    pub fn start<F>(&self, request: HttpRequest, report: F) -> io::Result<HttpExchange>
    where
        F: FnMut(HttpReport) -> bool + Send + 'static,
    {
        let (exchange, prepared) = self.prepare(request, report);
        prepared.run_on_pool()?;
        Ok(exchange)
    }

    /// Like [`HttpClient::start`], but leaves the choice of thread to the caller: the
    /// exchange's handle (which can abort it from now on), and the exchange itself, to run
    /// on the calling thread ([`PreparedExchange::run_here`]) or on a pooled one.
    pub fn prepare<F>(&self, request: HttpRequest, report: F) -> (HttpExchange, PreparedExchange)
    where
        F: FnMut(HttpReport) -> bool + Send + 'static,
    {
        let ctl = Arc::new(AbortCtl::default());
        let agent = self.agent_for(&request);
        let prepared = PreparedExchange { agent, request, ctl: ctl.clone(), report: Box::new(report) };
        (HttpExchange { ctl }, prepared)
    }
}

/// An exchange that has a handle but has not started: run it on some thread, or drop it
/// (then it never starts, and reports nothing).
pub struct PreparedExchange {
    /// The agent, or why the request is refused before it starts.
    agent: Result<ureq::Agent, String>,
    request: HttpRequest,
    ctl: Arc<AbortCtl>,
    report: Box<dyn FnMut(HttpReport) -> bool + Send>,
}

impl std::fmt::Debug for PreparedExchange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PreparedExchange").field("url", &self.request.url).finish_non_exhaustive()
    }
}

impl PreparedExchange {
    /// The HTTP method of the request.
    pub fn method(&self) -> HttpMethod {
        self.request.method
    }

    /// Performs the whole exchange on this thread, reporting as it goes; returns once it
    /// ended or was aborted.
    pub fn run_here(self) {
        run_exchange(&self.agent, self.request, self.ctl, self.report, || ());
    }

    /// For an exchange a caller did not get to run (its request path unwound): a pooled
    /// thread runs it; if none can be started the exchange never reports, and its request
    /// ends by its timeout.
    pub(crate) fn run_unclaimed(self) {
        let _ = self.run_on_pool();
    }

    /// Performs the exchange on a pooled thread. Fails only if no thread was idle and none
    /// could be started.
    pub fn run_on_pool(self) -> io::Result<()> {
        let Self { agent, request, ctl, report } = self;
        crate::pool::run(move |worker| run_exchange(&agent, request, ctl, report, || worker.release()))
    }
}

/// One running exchange. Aborting it, or dropping this handle, closes its connection and
/// stops its reports; both are no-ops once it ended.
#[derive(Debug)]
pub struct HttpExchange {
    ctl: Arc<AbortCtl>,
}

impl HttpExchange {
    /// Aborts the exchange: its socket is shut down (a blocked read wakes at once), its
    /// connection is never reused, and nothing more is reported (a report already on its way
    /// may still arrive). A no-op once the exchange delivered its outcome.
    pub fn abort(&self) {
        self.ctl.abort();
    }

    /// True once the exchange delivered its outcome or was aborted.
    pub fn is_done(&self) -> bool {
        self.ctl.is_done()
    }
}

impl Drop for HttpExchange {
    fn drop(&mut self) {
        self.ctl.abort();
    }
}

/// What an exchange reports, in order: [`Head`](Self::Head), any number of
/// [`Body`](Self::Body), then one of [`End`](Self::End) or [`Failed`](Self::Failed) (which
/// may also come first, when no response arrived); or only [`Refused`](Self::Refused).
#[derive(Debug)]
pub enum HttpReport {
    /// The status and headers (values that are not UTF-8 are left out).
    Head(HttpHead),
    /// Body bytes as they came off the wire (never decompressed), at most [`READ_CHUNK`].
    Body(Vec<u8>),
    /// The body ended normally.
    End,
    /// The exchange failed (connect, TLS, proxy, reset, malformed response...).
    Failed(io::Error),
    /// Refused before connecting: the host resolved only to addresses outside the request's
    /// [`Destination`].
    Refused(UnsafeAddress),
}

impl HttpReport {
    /// The core input for this report of `exchange`.
    pub fn into_input(self, exchange: ExchangeId) -> Input {
        match self {
            Self::Head(head) => Input::HttpHead(exchange, head),
            Self::Body(bytes) => Input::HttpBody(exchange, bytes),
            Self::End => Input::HttpEnd(exchange),
            Self::Failed(detail) => Input::HttpFailed(exchange, detail),
            Self::Refused(refusal) => Input::HttpRefused(exchange, refusal),
        }
    }
}

/// Whether a request to `url` needs TLS: an `https` URL, or one that goes through an `https`
/// proxy. `proxies` says which URLs go through which proxy; `None` is a proxy the host's
/// parser does not read (taken to apply to every URL), whose scheme ureq read as `proxy`'s.
fn needs_tls(
    url: &mcpwire_core::mcp_servers::HttpUrl,
    proxies: Option<&mcpwire_host::Proxies>,
    proxy: Option<&ureq::Proxy>,
) -> bool {
    if url.is_https() {
        return true;
    }
    match proxies {
        Some(proxies) => proxies.for_url(url).is_some_and(|p| p.kind == mcpwire_host::ProxyKind::Https),
        None => proxy.is_some_and(|p| p.protocol() == ureq::ProxyProtocol::Https),
    }
}

impl Agents {
    /// The agents for requests that need no TLS: the same as [`Agents::new`]'s, without
    /// trusted roots (ureq only reads its TLS settings on a TLS connection).
    fn plain(config: &HttpClientConfig, proxy: Option<ureq::Proxy>) -> Self {
        let no_roots =
            TlsConfig::builder().root_certs(RootCerts::from(Vec::<Certificate<'static>>::new())).build();
        // Never used for TLS: `HttpClient::agent_for` gives these only to requests without it.
        Self::new(config, proxy, no_roots, None)
    }

    /// The agents for `config` with the TLS settings `tls` (and `no_tls`, why TLS cannot be
    /// used, if it cannot), going through `proxy` for [`Destination::Any`]. Without a TLS
    /// crypto provider (see `mcpwire_host::tls_provider`) the agents are made for plain `http`
    /// only: ureq would panic on a TLS connection, so [`HttpClient::prepare`] refuses those
    /// that need one.
    fn new(
        config: &HttpClientConfig,
        proxy: Option<ureq::Proxy>,
        tls: TlsConfig,
        no_tls: Option<String>,
    ) -> Self {
        let resolve = Arc::new(config.clone());
        let agent = |proxy: Option<ureq::Proxy>, destination: Destination| {
            let agent_config = ureq::Agent::config_builder()
                .http_status_as_error(false)
                .max_redirects(0)
                .max_redirects_will_error(false)
                .user_agent(AutoHeaderValue::None)
                .accept(AutoHeaderValue::None)
                .accept_encoding(AutoHeaderValue::None)
                .proxy(proxy)
                .max_idle_connections_per_host(config.max_idle_per_host)
                .tls_config(tls.clone())
                .build();
            let connector = AbortableConnector(DefaultConnector::new());
            ureq::Agent::with_parts(
                agent_config,
                connector,
                PooledResolver::new(resolve.clone(), destination),
            )
        };
        Self {
            any: agent(proxy, Destination::Any),
            checked: [
                agent(None, Destination::Public { loopback: false }),
                agent(None, Destination::Public { loopback: true }),
            ],
            no_tls,
        }
    }
}

/// The TLS settings: the webpki roots (unless turned off), the operating system's and the
/// configured ones, and the crypto provider mcpwire-host picks; with no provider, why TLS
/// cannot be used.
fn tls_config(config: &HttpClientConfig) -> Result<(TlsConfig, Option<String>), String> {
    let extra = mcpwire_host::extra_trusted_roots(config)?;
    let mut roots: Vec<Certificate<'static>> = Vec::new();
    if config.webpki_roots {
        roots.extend(
            webpki_root_certs::TLS_SERVER_ROOT_CERTS.iter().map(|c| Certificate::from_der(c).to_owned()),
        );
    }
    roots.extend(extra.native.iter().chain(&extra.configured).map(|c| Certificate::from_der(c).to_owned()));
    let builder = TlsConfig::builder().root_certs(RootCerts::from(roots));
    Ok(match mcpwire_host::tls_provider() {
        Ok(provider) => (builder.unversioned_rustls_crypto_provider(provider).build(), None),
        // Never used for TLS: `HttpClient::agent_for` refuses such exchanges first.
        Err(why) => (builder.build(), Some(why)),
    })
}

/// Forwards reports until the exchange is aborted or the receiver is gone.
struct Reporter<F> {
    report: F,
    ctl: Arc<AbortCtl>,
    gone: bool,
}

impl<F: FnMut(HttpReport) -> bool> Reporter<F> {
    /// Reports `r`; false if the exchange should stop.
    fn send(&mut self, r: HttpReport) -> bool {
        if self.gone || self.ctl.is_aborted() {
            return false;
        }
        self.gone = !(self.report)(r);
        !self.gone
    }
}

/// Performs one exchange; `before_last` runs just before the last report (which may wake
/// the caller that starts the next exchange: a pooled worker makes itself available there).
fn run_exchange<F>(
    agent: &Result<ureq::Agent, String>,
    request: HttpRequest,
    ctl: Arc<AbortCtl>,
    report: F,
    before_last: impl FnOnce(),
) where
    F: FnMut(HttpReport) -> bool,
{
    let _current = abort::set_current(ctl.clone());
    let mut reporter = Reporter { report, ctl, gone: false };
    let outcome = match agent {
        Ok(agent) => exchange(agent, request, &mut reporter),
        Err(refused) => Err(ExchangeFailure::from(refused.clone())),
    };
    // Deciding under the abort lock makes "aborted" and "delivered an outcome" exclusive;
    // finishing also forgets the sockets, so a late abort cannot touch a pooled connection.
    let deliver = reporter.ctl.finish();
    if deliver && !reporter.gone {
        let last = match outcome {
            Ok(Flow::Done) => HttpReport::End,
            Ok(Flow::Stopped) => return,
            Err(ExchangeFailure::Transport(detail)) => HttpReport::Failed(detail),
            Err(ExchangeFailure::Refused(refusal)) => HttpReport::Refused(refusal),
        };
        before_last();
        (reporter.report)(last);
    }
}

/// How an exchange's body loop ended.
enum Flow {
    /// The body ended.
    Done,
    /// Aborted, or nobody listens any more: report nothing.
    Stopped,
}

/// Why a [`Destination::Public`] request through a proxy is refused.
const UNCHECKABLE_THROUGH_PROXY: &str = "refusing an OAuth fetch through a proxy: the proxy would \
     resolve its host, whose address must be checked (mcpwire-blocking cannot tunnel to a checked address)";

fn exchange<F>(
    agent: &ureq::Agent,
    request: HttpRequest,
    reporter: &mut Reporter<F>,
) -> Result<Flow, ExchangeFailure>
where
    F: FnMut(HttpReport) -> bool,
{
    let response = match build(agent, request)? {
        Built::WithBody(req) => agent.run(req),
        Built::Empty(req) => agent.run(req),
    }
    .map_err(describe)?;
    let (parts, body) = response.into_parts();
    let headers = parts
        .headers
        .iter()
        .filter_map(|(name, value)| {
            let value = std::str::from_utf8(value.as_bytes()).ok()?;
            Some((name.as_str().to_owned(), value.to_owned()))
        })
        .collect();
    if !reporter.send(HttpReport::Head(HttpHead { status: parts.status.as_u16(), headers })) {
        return Ok(Flow::Stopped);
    }
    let mut reader = body.into_reader();
    // The thread's buffer, taken for this exchange (a nested exchange would make its own).
    let mut buf = READ_BUF.with(std::cell::RefCell::take);
    buf.resize(READ_CHUNK, 0);
    let flow = loop {
        if reporter.ctl.is_aborted() {
            break Ok(Flow::Stopped);
        }
        match reader.read(&mut buf) {
            Ok(0) => break Ok(Flow::Done),
            Ok(n) => {
                if !reporter.send(HttpReport::Body(buf[..n].to_vec())) {
                    break Ok(Flow::Stopped);
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => break Err(ExchangeFailure::io("reading the response body", e)),
        }
    };
    READ_BUF.with(|b| b.replace(buf));
    flow
}

thread_local! {
    /// The body read buffer of the exchanges this thread runs (zeroed once, not per exchange).
    static READ_BUF: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    /// The URL this thread sent to last, parsed: a server's URL repeats on every request.
    static LAST_URI: std::cell::RefCell<Option<(String, http::Uri)>> = const { std::cell::RefCell::new(None) };
}

/// `url` parsed, from the thread's last one when it is the same.
fn uri_of(url: &str) -> Result<http::Uri, http::Error> {
    let cached = LAST_URI
        .with(|last| last.borrow().as_ref().filter(|(text, _)| text == url).map(|(_, uri)| uri.clone()));
    if let Some(uri) = cached {
        return Ok(uri);
    }
    let uri = http::Uri::try_from(url)?;
    LAST_URI.with(|last| *last.borrow_mut() = Some((url.to_owned(), uri.clone())));
    Ok(uri)
}

/// A request ready for ureq: with a body (`POST`, or any method given one) or without.
enum Built {
    WithBody(http::Request<Vec<u8>>),
    Empty(http::Request<()>),
}

/// The ureq request for `request`, with its connect timeout.
fn build(agent: &ureq::Agent, request: HttpRequest) -> Result<Built, String> {
    let method = match request.method {
        HttpMethod::Get => http::Method::GET,
        HttpMethod::Post => http::Method::POST,
        HttpMethod::Delete => http::Method::DELETE,
    };
    let invalid = |e: http::Error| format!("invalid request: {e}");
    let builder = http::Request::builder().method(method).uri(uri_of(&request.url).map_err(invalid)?);
    let builder = mcpwire_host::with_request_headers(builder, &request.headers);
    let timeout = Some(request.connect_timeout).filter(|t| !t.is_zero());
    if request.body.is_empty() && request.method != HttpMethod::Post {
        let req = builder.body(()).map_err(invalid)?;
        Ok(Built::Empty(with_connect_timeout(agent, req, timeout)))
    } else {
        let req = builder.body(request.body).map_err(invalid)?;
        Ok(Built::WithBody(with_connect_timeout(agent, req, timeout)))
    }
}

/// Bounds name resolution and connecting (TCP, proxy, TLS) of one request.
fn with_connect_timeout<S: ureq::AsSendBody>(
    agent: &ureq::Agent,
    request: http::Request<S>,
    timeout: Option<Duration>,
) -> http::Request<S> {
    let config: ureq::config::ConfigBuilder<HttpCrateScope<S>> = agent.configure_request(request);
    config.timeout_resolve(timeout).timeout_connect(timeout).build()
}

/// A failure as reported to the core: the resolver's refusal as such, anything else described.
fn describe(e: ureq::Error) -> ExchangeFailure {
    if let ureq::Error::Io(io) = &e {
        if let Some(refusal) = io.get_ref().and_then(|inner| inner.downcast_ref::<UnsafeAddress>()) {
            return ExchangeFailure::Refused(refusal.clone());
        }
    }
    match e {
        ureq::Error::Timeout(what) => {
            ExchangeFailure::io(&format!("timed out ({what})"), io::ErrorKind::TimedOut.into())
        }
        ureq::Error::Io(e) => ExchangeFailure::io("io", e),
        e => ExchangeFailure::described("HTTP request failed", &e),
    }
}

#[cfg(test)]
mod tests {
    use mcpwire_core::mcp_servers::HttpUrl;
    use mcpwire_host::{Proxies, ProxySetting};

    use super::needs_tls;

    fn url(s: &str) -> HttpUrl {
        HttpUrl::parse(s).expect("a valid URL")
    }

    fn proxies(proxy: &str) -> Proxies {
        Proxies::resolve(&ProxySetting::Url(proxy.to_owned())).expect("a proxy the host reads")
    }

    #[test]
    fn only_https_urls_and_https_proxies_need_tls() {
        let none = Proxies::default();
        assert!(!needs_tls(&url("http://127.0.0.1:8080/mcp"), Some(&none), None));
        assert!(needs_tls(&url("https://example.com/mcp"), Some(&none), None));
        let https_proxy = proxies("https://proxy.example:443");
        assert!(needs_tls(&url("http://example.com/mcp"), Some(&https_proxy), None));
        let http_proxy = proxies("http://proxy.example:3128");
        assert!(!needs_tls(&url("http://example.com/mcp"), Some(&http_proxy), None));
        assert!(needs_tls(&url("https://example.com/mcp"), Some(&http_proxy), None));
    }

    #[test]
    fn a_proxy_the_host_does_not_read_is_judged_by_its_scheme() {
        let https = ureq::Proxy::new("https://proxy.example:443").expect("proxy");
        let socks = ureq::Proxy::new("socks5://proxy.example:1080").expect("proxy");
        assert!(needs_tls(&url("http://example.com/mcp"), None, Some(&https)));
        assert!(!needs_tls(&url("http://example.com/mcp"), None, Some(&socks)));
    }
}
