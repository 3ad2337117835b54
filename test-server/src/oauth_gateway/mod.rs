//! `mcp-test-server oauth-gateway`: an OAuth 2.1 authorization server and a protected-resource
//! reverse proxy in one process, put in front of a real MCP server over Streamable HTTP so a
//! client's whole OAuth round trip (discovery, registration, browser step, tokens, refresh)
//! runs against a real peer.
//!
//! ```text
//! mcp-test-server oauth-gateway --upstream http://127.0.0.1:3001/mcp
//!     [--listen 127.0.0.1:0] [--token-ttl SECS] [--require-scope S] [--client ID:SECRET]... [--static-token T]...
//! ```
//!
//! The first line on stdout is the base URL (`http://127.0.0.1:<port>`); the MCP endpoint is
//! `<base>/mcp`. The gateway serves until its stdin reaches end-of-file (start it with a piped
//! stdin; it goes away with its parent), or until killed.
//!
//! * `GET /.well-known/oauth-protected-resource/mcp` (also at the root): RFC 9728 metadata,
//!   `resource` = `<base>/mcp`, `authorization_servers` = `[<base>]`.
//! * `GET /.well-known/oauth-authorization-server`: RFC 8414 metadata (PKCE `S256`, RFC 9207
//!   `iss`, token auth `none` / `client_secret_post` / `client_secret_basic`, the
//!   `authorization_code`, `refresh_token` and `client_credentials` grants).
//! * `POST /register`: dynamic client registration (RFC 7591).
//! * `GET /authorize`: checks `client_id`, the registered redirect URI (`https` or loopback
//!   `http`, any port on a loopback IP), `response_type=code`, the PKCE `S256` challenge,
//!   `state`, `resource` and `scope`, then approves at once: `302` to the redirect URI with
//!   `code`, `state` and `iss` (errors after the redirect URI is known go there too).
//! * `POST /token`: `authorization_code` (the PKCE verifier, redirect URI and `resource`
//!   checked; a code works once), `refresh_token` (rotated on every use), `client_credentials`
//!   (confidential clients); RFC 6749 JSON errors. Access tokens live `--token-ttl` seconds
//!   (default 3600).
//! * `/mcp` and below: needs `Authorization: Bearer <valid token>`, else `401` with
//!   `WWW-Authenticate: Bearer resource_metadata="<base>/.well-known/oauth-protected-resource/mcp"`
//!   (plus `scope="S"` with `--require-scope S`; a token without that scope gets `403
//!   insufficient_scope`). With one, the request goes upstream verbatim minus `Authorization`,
//!   and the answer streams back (see `proxy`).
//! * `GET /__stats`: the counters ([`Stats`]) as JSON.
//!
//! `--client ID:SECRET` pre-registers a confidential client for the client credentials grant.

mod authz;
#[cfg(test)]
mod authz_tests;
pub mod browse;
mod crypto;
mod http;
mod proxy;
mod urls;

use std::io::{self, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use authz::AuthServer;
pub use authz::Stats;
use http::{read_request, ReadError, Request, Response};
use urls::Url;

/// The subcommand's name (the first argument of `mcp-test-server`).
pub const SUBCOMMAND: &str = "oauth-gateway";

/// How long a client connection may sit idle between requests.
const IDLE_TIMEOUT: Duration = Duration::from_secs(120);

const USAGE: &str = "usage: mcp-test-server oauth-gateway --upstream URL [--listen ADDR] \
                     [--token-ttl SECS] [--require-scope SCOPE] [--client ID:SECRET]... [--static-token TOKEN]...";

/// The gateway's settings (the subcommand's flags).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GatewayConfig {
    /// The upstream MCP endpoint (`http://host:port/path`).
    pub upstream: String,
    /// Where to listen (default `127.0.0.1:0`, a free port).
    pub listen: SocketAddr,
    /// How long access tokens live.
    pub token_ttl: Duration,
    /// A scope the protected resource demands, if any.
    pub require_scope: Option<String>,
    /// Pre-registered confidential clients `(id, secret)`.
    pub clients: Vec<(String, String)>,
    /// Access tokens issued elsewhere, accepted as they are (`--static-token`).
    pub static_tokens: Vec<String>,
}

impl GatewayConfig {
    /// Defaults for `upstream`: a free loopback port, one-hour tokens, no required scope.
    pub fn new(upstream: &str) -> Self {
        Self {
            upstream: upstream.to_owned(),
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            token_ttl: Duration::from_secs(3600),
            require_scope: None,
            clients: Vec::new(),
            static_tokens: Vec::new(),
        }
    }

    /// Parses the subcommand's flags (after `oauth-gateway`); `--flag=value` works too.
    pub fn parse<I: Iterator<Item = String>>(args: I) -> Result<Self, String> {
        let mut args = args.flat_map(|a| match a.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => vec![flag.to_owned(), value.to_owned()],
            _ => vec![a],
        });
        let mut upstream = None;
        let mut cfg = Self::new("");
        while let Some(flag) = args.next() {
            let mut value = || args.next().ok_or_else(|| format!("{flag} needs a value"));
            match flag.as_str() {
                "--upstream" => upstream = Some(value()?),
                "--listen" => cfg.listen = value()?.parse().map_err(|e| format!("--listen: {e}"))?,
                "--token-ttl" => {
                    let secs: u64 = value()?.parse().map_err(|e| format!("--token-ttl: {e}"))?;
                    cfg.token_ttl = Duration::from_secs(secs);
                }
                "--require-scope" => {
                    let scope = value()?;
                    let ok = !scope.is_empty()
                        && scope.bytes().all(|b| b.is_ascii_graphic() && b != b'"' && b != b'\\');
                    if !ok {
                        return Err("--require-scope: one scope token (visible ASCII, no quotes)".into());
                    }
                    cfg.require_scope = Some(scope);
                }
                "--client" => {
                    let v = value()?;
                    let (id, secret) = v
                        .split_once(':')
                        .filter(|(i, s)| !i.is_empty() && !s.is_empty())
                        .ok_or("--client: ID:SECRET")?;
                    cfg.clients.push((id.to_owned(), secret.to_owned()));
                }
                "--static-token" => {
                    let token = value()?;
                    if token.is_empty() || !token.bytes().all(|b| b.is_ascii_graphic()) {
                        return Err("--static-token: visible ASCII".into());
                    }
                    cfg.static_tokens.push(token);
                }
                other => return Err(format!("unknown flag {other}")),
            }
        }
        let upstream = upstream.ok_or("--upstream is required")?;
        match Url::parse(&upstream) {
            Some(u) if u.scheme == "http" => cfg.upstream = upstream,
            _ => return Err(format!("--upstream {upstream}: an http:// URL")),
        }
        Ok(cfg)
    }
}

/// A running gateway (its accept loop runs on a thread of its own).
#[derive(Debug)]
pub struct Gateway {
    base: String,
    auth: Arc<AuthServer>,
}

struct Shared {
    auth: Arc<AuthServer>,
    upstream: Url,
}

impl Gateway {
    /// Binds `cfg.listen` and starts serving.
    pub fn start(cfg: &GatewayConfig) -> io::Result<Gateway> {
        let upstream = Url::parse(&cfg.upstream).filter(|u| u.scheme == "http").ok_or_else(|| {
            io::Error::new(io::ErrorKind::InvalidInput, "the upstream must be an http:// URL")
        })?;
        let listener = TcpListener::bind(cfg.listen)?;
        let base = format!("http://{}", listener.local_addr()?);
        let auth = Arc::new(AuthServer::new(&base, cfg.token_ttl, cfg.require_scope.clone(), &cfg.clients));
        for token in &cfg.static_tokens {
            auth.accept_static_token(token, Instant::now());
        }
        let shared = Arc::new(Shared { auth: Arc::clone(&auth), upstream });
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                let Ok(conn) = conn else { continue };
                let shared = Arc::clone(&shared);
                std::thread::spawn(move || serve_connection(&shared, conn));
            }
        });
        Ok(Gateway { base, auth })
    }

    /// `http://<address>:<port>`: the issuer; the MCP endpoint is this plus `/mcp`.
    pub fn base_url(&self) -> &str {
        &self.base
    }

    /// The counters so far.
    pub fn stats(&self) -> Stats {
        self.auth.stats()
    }
}

/// Runs the subcommand: prints the base URL, serves until stdin ends.
pub fn run<I: Iterator<Item = String>>(args: I) -> ExitCode {
    let cfg = match GatewayConfig::parse(args) {
        Ok(cfg) => cfg,
        Err(message) => {
            eprintln!("mcp-test-server oauth-gateway: {message}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let gateway = match Gateway::start(&cfg) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("mcp-test-server oauth-gateway: cannot listen on {}: {e}", cfg.listen);
            return ExitCode::from(2);
        }
    };
    let mut stdout = io::stdout().lock();
    if writeln!(stdout, "{}", gateway.base_url()).and_then(|()| stdout.flush()).is_err() {
        return ExitCode::from(2);
    }
    drop(stdout);
    let _ = io::copy(&mut io::stdin().lock(), &mut io::sink());
    ExitCode::SUCCESS
}

fn serve_connection(shared: &Shared, conn: TcpStream) {
    let _ = conn.set_nodelay(true);
    let _ = conn.set_read_timeout(Some(IDLE_TIMEOUT));
    let (Ok(read_half), mut write_half) = (conn.try_clone(), conn) else { return };
    let mut reader = BufReader::new(read_half);
    loop {
        let req = match read_request(&mut reader, &mut write_half) {
            Ok(req) => req,
            Err(ReadError::Closed) => return,
            Err(ReadError::Bad(status, why)) => {
                let _ = Response::oauth_error(status, "invalid_request", why).write_to(&mut write_half, true);
                return;
            }
        };
        let keep = match route(shared, &req, &mut write_half) {
            Ok(proxy::Outcome::KeepAlive) => !req.close,
            Ok(proxy::Outcome::Close) | Err(_) => false,
        };
        if !keep {
            let _ = write_half.shutdown(std::net::Shutdown::Both);
            return;
        }
    }
}

fn route(shared: &Shared, req: &Request, out: &mut TcpStream) -> io::Result<proxy::Outcome> {
    let auth = &shared.auth;
    let now = Instant::now();
    let path = req.path();
    let is_mcp = path == "/mcp" || path.starts_with("/mcp/");
    let answer = match (req.method.as_str(), path) {
        (_, _) if is_mcp => match auth.check_bearer(now, req.header("authorization")) {
            Ok(()) => {
                auth.count_proxied();
                return proxy::forward(&shared.upstream, req, out);
            }
            Err(refusal) => refusal,
        },
        ("GET", "/.well-known/oauth-protected-resource/mcp" | "/.well-known/oauth-protected-resource") => {
            Response::json(200, &auth.resource_metadata())
        }
        ("GET", "/.well-known/oauth-authorization-server") => Response::json(200, &auth.server_metadata()),
        ("POST", "/register") => auth.register(&req.body),
        ("GET", "/authorize") => auth.authorize(now, req.query()),
        ("POST", "/token") => auth.token(now, req),
        ("GET", "/__stats") => Response::json(200, &auth.stats().to_value()),
        (_, "/register" | "/authorize" | "/token" | "/__stats") => {
            Response::oauth_error(405, "invalid_request", "method not allowed")
        }
        _ => Response::oauth_error(404, "not_found", "no such endpoint"),
    };
    answer.write_to(out, req.close)?;
    Ok(proxy::Outcome::KeepAlive)
}
