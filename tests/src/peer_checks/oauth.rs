//! OAuth round trips against real peers: `mcp-test-server oauth-gateway` (an authorization
//! server and a protected-resource proxy) in front of server-everything or py-mcp-peer over
//! Streamable HTTP, and a client with `ServerSpec::oauth` that discovers, registers, signs in
//! through a scripted browser (`BrowserOpener::custom` doing the user's part with two HTTP
//! GETs), calls tools, reuses the saved record, refreshes an expired token and uses the client
//! credentials grant. The gateway's counters (`/__stats`) say what happened on the wire.
//!
//! [`GatewayProcess`], [`scripted_browser`] and [`http_get`] are the fixtures; the checks are
//! written once ([`crate::define_oauth_peer_checks!`]) for the runtime glue `rt` (`Client`,
//! `build`, `sleep`).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use mcpwire_host::auth::BrowserOpener;
use serde_json::Value;

/// A response read by [`http_get`].
#[derive(Debug, Clone)]
pub struct RawResponse {
    /// The status code.
    pub status: u16,
    /// The headers, names as sent.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
}

impl RawResponse {
    /// The first value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// `GET url` over plain HTTP/1.1 with `Connection: close`, redirects not followed (what a
/// browser's first hop looks like to the authorization server).
pub fn http_get(url: &str) -> std::io::Result<RawResponse> {
    let invalid = |why: &str| std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("{why}: {url}"));
    let rest = url.strip_prefix("http://").ok_or_else(|| invalid("not an http URL"))?;
    let (authority, target) = rest.find('/').map_or((rest, "/"), |i| rest.split_at(i));
    let mut conn = TcpStream::connect(authority)?;
    conn.set_read_timeout(Some(Duration::from_secs(30)))?;
    write!(conn, "GET {target} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n")?;
    let mut raw = Vec::new();
    conn.read_to_end(&mut raw)?;
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").ok_or_else(|| invalid("no response head"))?;
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| invalid("no status"))?;
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_owned(), v.trim().to_owned()))
        .collect::<Vec<_>>();
    let mut body = raw[split + 4..].to_vec();
    let chunked =
        headers.iter().any(|(n, v)| n.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked"));
    if chunked {
        body = dechunk(&body).ok_or_else(|| invalid("malformed chunked body"))?;
    }
    Ok(RawResponse { status, headers, body })
}

fn dechunk(mut data: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let line_end = data.windows(2).position(|w| w == b"\r\n")?;
        let size = std::str::from_utf8(&data[..line_end]).ok()?.split(';').next()?.trim();
        let size = usize::from_str_radix(size, 16).ok()?;
        data = &data[line_end + 2..];
        if size == 0 {
            return Some(out);
        }
        out.extend_from_slice(data.get(..size)?);
        data = data.get(size + 2..)?;
    }
}

/// A "browser" for the authorization code grant: it GETs the authorization URL (the gateway
/// approves at once and answers `302` to the redirect URI), then follows that redirect to the
/// client's loopback listener on a thread of its own (the listener accepts only once the
/// opener has returned). `opens` counts the sign-ins. A refused authorization request fails
/// the opener, and with it the sign-in, at once.
pub fn scripted_browser(opens: &Arc<AtomicUsize>) -> BrowserOpener {
    let opens = Arc::clone(opens);
    BrowserOpener::custom(move |url| {
        opens.fetch_add(1, Ordering::SeqCst);
        let answer = http_get(url)?;
        let location = match (answer.status, answer.header("location")) {
            (302, Some(location)) => location.to_owned(),
            _ => {
                let body = String::from_utf8_lossy(&answer.body);
                return Err(std::io::Error::other(format!("authorize answered {}: {body}", answer.status)));
            }
        };
        std::thread::spawn(move || {
            if let Err(e) = http_get(&location) {
                eprintln!("scripted browser: the redirect to {location} failed: {e}");
            }
        });
        Ok(())
    })
}

/// `mcp-test-server oauth-gateway` as a child process, stopped when dropped (its stdin is a
/// pipe, so it also ends if the test process dies).
#[derive(Debug)]
pub struct GatewayProcess {
    child: Child,
    base: String,
}

impl GatewayProcess {
    /// Starts a gateway in front of `upstream` with extra flags (`--token-ttl 1`, ...) and
    /// reads its base URL.
    pub fn start(upstream: &str, flags: &[&str]) -> Self {
        let mut child = Command::new(crate::support::test_server())
            .args(["oauth-gateway", "--upstream", upstream])
            .args(flags)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start mcp-test-server oauth-gateway");
        let mut line = String::new();
        let stdout = child.stdout.take().expect("the gateway's stdout");
        BufReader::new(stdout).read_line(&mut line).expect("read the gateway's base URL");
        let base = line.trim().to_owned();
        assert!(
            base.starts_with("http://127.0.0.1:"),
            "the gateway printed {line:?} (did it fail to start?)"
        );
        Self { child, base }
    }

    /// The gateway's base URL (the issuer).
    pub fn base(&self) -> &str {
        &self.base
    }

    /// The protected MCP endpoint: `<base>/mcp`.
    pub fn mcp_url(&self) -> String {
        format!("{}/mcp", self.base)
    }

    /// The gateway's counters (`GET /__stats`).
    pub fn stats(&self) -> Value {
        let answer = http_get(&format!("{}/__stats", self.base)).expect("GET /__stats");
        assert_eq!(answer.status, 200);
        serde_json::from_slice(&answer.body).expect("stats JSON")
    }

    /// One counter of [`Self::stats`].
    pub fn count(&self, name: &str) -> u64 {
        let stats = self.stats();
        stats[name].as_u64().unwrap_or_else(|| panic!("no counter {name} in {stats}"))
    }
}

impl Drop for GatewayProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Defines `pub mod oauth_peer_checks` for the glue `rt`: `define_oauth_peer_checks!(async,
/// aw_async)` or `define_oauth_peer_checks!(, aw_sync)`.
#[macro_export]
macro_rules! define_oauth_peer_checks {
    ($($kw:ident)? , $aw:ident) => {
/// The OAuth checks against real peers behind the gateway, instantiated for this runtime.
#[allow(unused_imports)]
pub mod oauth_peer_checks {
    use super::rt;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use std::time::Duration;
    use $crate::support::http_peers::HttpPeer;
    use $crate::mcpwire_core::oauth::{OAuthSetup, StoredAuth};
    use $crate::mcpwire_core::{Event, ServerSpec};
    use $crate::mcpwire_host::auth::{MemoryTokenStore, OAuthOptions, TokenStore};
    use $crate::peer_checks::oauth::{scripted_browser, GatewayProcess};
    use $crate::serde_json::json;
    use $crate::support::Events;

    macro_rules! aw {
        ($e:expr) => {
            $crate::$aw!($e)
        };
    }

    /// The gateway's MCP endpoint with `setup` (a patient timeout: the first request signs in).
    fn spec(gateway: &GatewayProcess, setup: impl Into<OAuthSetup>) -> ServerSpec {
        ServerSpec::from_target("gated", &gateway.mcp_url())
            .expect("a valid URL")
            .request_timeout(Duration::from_secs(30))
            .oauth(setup)
    }

    /// A browser sign-in coming back to a fixed loopback port, failing within 30 s.
    fn browser_options() -> OAuthOptions {
        OAuthOptions::browser(0).authorization_timeout(Duration::from_secs(30))
    }

    fn last_saved(events: &Events) -> Option<StoredAuth> {
        events.snapshot().into_iter().rev().find_map(|(_, e)| match e {
            Event::AuthorizationSaved(record) => Some(*record),
            _ => None,
        })
    }

    /// A client with the browser sign-in, optionally a token store and an event collector.
    fn client(
        gateway: &GatewayProcess,
        setup: impl Into<OAuthSetup>,
        opens: &Arc<AtomicUsize>,
        store: Option<Arc<MemoryTokenStore>>,
        events: &Events,
    ) -> rt::Client {
        let mut builder = rt::Client::builder()
            .server(spec(gateway, setup))
            .browser_authorization(scripted_browser(opens))
            .on_event(events.hook());
        if let Some(store) = store {
            builder = builder.token_store(store);
        }
        rt::build(builder).expect("build the client")
    }

    /// server-everything (legacy, sessions) behind the gateway: the first request is refused,
    /// the client discovers, registers, signs in once through the scripted browser, and
    /// lists and calls tools through the proxy; a second client started from the
    /// `AuthorizationSaved` record and a third from the token store connect with no sign-in.
    pub $($kw)? fn everything_browser_sign_in_and_saved_record() {
        let peer = HttpPeer::start("server-everything", &["streamableHttp"], &[("PORT", "{port}")]);
        let gateway = GatewayProcess::start(&peer.url("/mcp"), &[]);
        let opens = Arc::new(AtomicUsize::new(0));
        let store = Arc::new(MemoryTokenStore::new());
        let events = Events::new();
        let options = browser_options();

        let first = client(&gateway, options.clone(), &opens, Some(Arc::clone(&store)), &events);
        let tools = aw!(first.servers()[0].list_tools()).expect("list_tools through the gateway");
        assert!(tools.iter().any(|t| t.name == "echo"), "{tools:?}");
        let r = aw!(first.call_tool("echo", json!({"message": "behind oauth"}))).expect("echo");
        assert_eq!(r.text(), "Echo: behind oauth", "{:?}", r.raw());
        aw!(first.close());
        assert_eq!(opens.load(Ordering::SeqCst), 1, "one browser sign-in");
        let stats = gateway.stats();
        assert_eq!(stats["registrations"], 1, "{stats}");
        assert_eq!(stats["authorizations"], 1, "{stats}");
        assert_eq!(stats["token_grants"], 1, "{stats}");
        assert!(stats["unauthorized"].as_u64() >= Some(1), "the first request was challenged: {stats}");
        assert!(stats["proxied"].as_u64() >= Some(2), "{stats}");
        let saved = last_saved(&events).expect("an AuthorizationSaved event");
        assert_eq!(store.len(), 1, "the token store kept the record");
        let stored = store.load(&gateway.mcp_url()).expect("load").expect("a record for the server");
        assert_eq!(stored, saved, "the store holds what the event carried");

        // From the event's record, without a store.
        let mut setup: OAuthSetup = options.clone().into();
        setup.stored = Some(saved);
        let second = client(&gateway, setup, &opens, None, &Events::new());
        let r = aw!(second.call_tool("echo", json!({"message": "from the saved record"}))).expect("echo");
        assert_eq!(r.text(), "Echo: from the saved record");
        aw!(second.close());

        // From the token store.
        let third = client(&gateway, options, &opens, Some(store), &Events::new());
        let r = aw!(third.call_tool("echo", json!({"message": "from the store"}))).expect("echo");
        assert_eq!(r.text(), "Echo: from the store");
        aw!(third.close());

        assert_eq!(opens.load(Ordering::SeqCst), 1, "no sign-in for a saved record");
        let after = gateway.stats();
        assert_eq!(after["authorizations"], 1, "{after}");
        assert_eq!(after["token_grants"], 1, "{after}");
        assert!(after["proxied"].as_u64() > stats["proxied"].as_u64(), "{after}");
    }

    /// py-mcp-peer (2026-07-28) behind a gateway whose access tokens live one second: after
    /// the token expired, the next call refreshes (rotating the refresh token) with no
    /// browser step.
    pub $($kw)? fn py_refresh_after_expiry() {
        let peer = HttpPeer::start("py-mcp-peer", &["streamable-http", "--port", "{port}"], &[]);
        let gateway = GatewayProcess::start(&peer.url("/mcp"), &["--token-ttl", "1"]);
        let opens = Arc::new(AtomicUsize::new(0));
        let events = Events::new();
        let options = browser_options().refresh_margin(Duration::ZERO);
        let client = client(&gateway, options, &opens, None, &events);
        let r = aw!(client.call_tool("echo", json!({"message": "before expiry"}))).expect("echo");
        assert_eq!(r.text(), "before expiry", "{:?}", r.raw());
        assert_eq!(gateway.count("authorizations"), 1);
        let saved_before = events.snapshot().iter().filter(|(_, e)| matches!(e, Event::AuthorizationSaved(_))).count();
        aw!(rt::sleep(Duration::from_millis(1500)));
        let r = aw!(client.call_tool("echo", json!({"message": "after expiry"}))).expect("echo after expiry");
        assert_eq!(r.text(), "after expiry", "{:?}", r.raw());
        aw!(client.close());
        let stats = gateway.stats();
        assert!(stats["refreshes"].as_u64() >= Some(1), "{stats}");
        assert_eq!(stats["authorizations"], 1, "{stats}");
        assert_eq!(opens.load(Ordering::SeqCst), 1, "no browser step for the refresh");
        let saved_after = events.snapshot().iter().filter(|(_, e)| matches!(e, Event::AuthorizationSaved(_))).count();
        assert!(saved_after > saved_before, "the refreshed tokens were saved");
    }

    /// The client credentials grant (a pre-registered confidential client): no browser, no
    /// registration, a token per grant.
    pub $($kw)? fn py_client_credentials() {
        let peer = HttpPeer::start("py-mcp-peer", &["streamable-http", "--port", "{port}"], &[]);
        let gateway = GatewayProcess::start(&peer.url("/mcp"), &["--client", "svc:s3cret-value"]);
        let options = OAuthOptions::client_credentials(gateway.base(), "svc", "s3cret-value");
        let builder = rt::Client::builder().server(spec(&gateway, options));
        let client = rt::build(builder).expect("build the client");
        let r = aw!(client.call_tool("echo", json!({"message": "as a service"}))).expect("echo");
        assert_eq!(r.text(), "as a service", "{:?}", r.raw());
        aw!(client.close());
        let stats = gateway.stats();
        assert!(stats["client_credentials"].as_u64() >= Some(1), "{stats}");
        assert_eq!((&stats["authorizations"], &stats["registrations"]), (&json!(0), &json!(0)), "{stats}");
    }

    /// Client credentials registered with another authorization server: the call fails with
    /// the flow's issuer mismatch naming both issuers, and the gateway never sees a token
    /// request (the secret is not sent to it).
    pub $($kw)? fn py_client_credentials_for_another_issuer() {
        let peer = HttpPeer::start("py-mcp-peer", &["streamable-http", "--port", "{port}"], &[]);
        let gateway = GatewayProcess::start(&peer.url("/mcp"), &["--client", "svc:s3cret-value"]);
        let elsewhere = "https://auth.elsewhere.example";
        let options = OAuthOptions::client_credentials(elsewhere, "svc", "s3cret-value");
        let client = rt::build(rt::Client::builder().server(spec(&gateway, options))).expect("build the client");
        let err = aw!(client.call_tool("echo", json!({"message": "unsent"}))).expect_err("refused");
        let mismatch = match err.request_error() {
            Some($crate::mcpwire_core::RequestError::AuthorizationFailed {
                oauth: Some($crate::mcpwire_core::oauth::OAuthError::IssuerMismatch { configured, discovered }),
                ..
            }) => (configured.clone(), discovered.clone()),
            _ => panic!("not an issuer mismatch: {err:?}"),
        };
        assert_eq!(mismatch, (elsewhere.to_owned(), gateway.base().to_owned()));
        aw!(client.close());
        let stats = gateway.stats();
        assert_eq!((&stats["client_credentials"], &stats["token_errors"]), (&json!(0), &json!(0)), "no token request: {stats}");
    }

    /// The host's own tokens (`ServerSpec::token_provider`): the first request is refused, the
    /// provider is asked once (attempt 1, with the challenge), and every request after it
    /// carries its token; no OAuth flow runs.
    pub $($kw)? fn py_token_provider() {
        let peer = HttpPeer::start("py-mcp-peer", &["streamable-http", "--port", "{port}"], &[]);
        let gateway = GatewayProcess::start(&peer.url("/mcp"), &["--static-token", "host-issued-token"]);
        let asked = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&asked);
        let provider = rt::sync_handler(move |req: $crate::mcpwire_host::TokenRequest| {
            counter.fetch_add(1, Ordering::SeqCst);
            assert_eq!((req.status, req.attempt), (401, 1), "{req:?}");
            assert!(req.www_authenticate.as_deref().is_some_and(|w| w.contains("resource_metadata")), "{req:?}");
            Ok($crate::mcpwire_core::types::AccessTokenAnswer::new("host-issued-token"))
        });
        let spec = ServerSpec::from_target("gated", &gateway.mcp_url()).expect("a valid URL").token_provider();
        let client = rt::build(rt::Client::builder().server(spec).token_provider(provider)).expect("build");
        for message in ["first", "second"] {
            let r = aw!(client.call_tool("echo", json!({"message": message}))).expect("echo");
            assert_eq!(r.text(), message, "{:?}", r.raw());
        }
        aw!(client.close());
        assert_eq!(asked.load(Ordering::SeqCst), 1, "the provider is asked once");
        let stats = gateway.stats();
        assert_eq!(stats["unauthorized"], json!(1), "{stats}");
        assert_eq!((&stats["authorizations"], &stats["token_grants"]), (&json!(0), &json!(0)), "{stats}");
    }
}
    };
}

/// Generates the `#[test]`s of [`define_oauth_peer_checks!`].
#[macro_export]
macro_rules! all_oauth_peer_checks {
    ($run:path) => {
        $crate::scenario_tests!(oauth_peer_checks, $run;
            everything_browser_sign_in_and_saved_record, py_refresh_after_expiry, py_client_credentials,
            py_client_credentials_for_another_issuer, py_token_provider);
    };
}
