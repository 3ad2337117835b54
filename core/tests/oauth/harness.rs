//! A scripted fake MCP resource + authorization server: a map from URL to canned answers,
//! and a driver that plays the host (performs fetches, "opens" the browser, feeds callbacks).

use std::collections::{BTreeMap, VecDeque};
use std::time::Instant;

use mcpwire_core::oauth::{AuthFlow, AuthNotice, AuthStep, OAuthError, Tokens};
use mcpwire_core::HttpRequest;

pub const MCP: &str = "https://mcp.example.com/mcp";
pub const AS: &str = "https://auth.example.com";
pub const PRM_PATH: &str = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp";
pub const PRM_ROOT: &str = "https://mcp.example.com/.well-known/oauth-protected-resource";
pub const AS_META: &str = "https://auth.example.com/.well-known/oauth-authorization-server";
pub const REDIRECT: &str = "http://127.0.0.1:8765/callback";

/// A canned answer: status, body, headers.
pub type Answer = (u16, String, Vec<(String, String)>);

/// How the fake authorization server answers the browser.
pub type Browser = Box<dyn FnMut(&str) -> String>;

pub struct Fake {
    routes: BTreeMap<String, VecDeque<Answer>>,
    pub requests: Vec<HttpRequest>,
    pub authorize_urls: Vec<String>,
    pub notices: Vec<AuthNotice>,
    /// The issuers the flow switched to ([`AuthStep::AuthServerChanged`]).
    pub switches: Vec<String>,
    pub browser: Browser,
}

/// A query parameter of a URL or form body (decoded, `+` as space).
pub fn param(url_or_body: &str, name: &str) -> Option<String> {
    let q = url_or_body.split_once('?').map_or(url_or_body, |(_, q)| q);
    q.split('&').find_map(|p| {
        let (n, v) = p.split_once('=')?;
        (n == name).then(|| decode(v))
    })
}

fn decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' => {
                out.push(u8::from_str_radix(&s[i + 1..i + 3], 16).unwrap());
                i += 2;
            }
            b'+' => out.push(b' '),
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8(out).unwrap()
}

/// A browser that approves and comes back with `code=test-code`, the state, and `iss` if given.
pub fn approve(iss: Option<&str>) -> Browser {
    let iss = iss.map(|i| format!("&iss={}", i.replace(':', "%3A").replace('/', "%2F")));
    Box::new(move |url| {
        format!("code=test-code&state={}{}", param(url, "state").unwrap(), iss.clone().unwrap_or_default())
    })
}

pub fn prm(resource: &str, servers: &[&str], scopes: Option<&[&str]>) -> String {
    let mut v = serde_json::json!({"resource": resource, "authorization_servers": servers});
    if let Some(s) = scopes {
        v["scopes_supported"] = serde_json::json!(s);
    }
    v.to_string()
}

/// Authorization server metadata for `issuer` with endpoints under it; `extra` is merged in.
pub fn as_meta(issuer: &str, extra: serde_json::Value) -> String {
    let mut v = serde_json::json!({
        "issuer": issuer,
        "authorization_endpoint": format!("{issuer}/authorize"),
        "token_endpoint": format!("{issuer}/token"),
        "registration_endpoint": format!("{issuer}/register"),
        "response_types_supported": ["code"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["none"],
    });
    for (k, val) in extra.as_object().unwrap() {
        if val.is_null() {
            v.as_object_mut().unwrap().remove(k);
        } else {
            v[k] = val.clone();
        }
    }
    v.to_string()
}

pub fn token(access: &str, extra: serde_json::Value) -> String {
    let mut v = serde_json::json!({"access_token": access, "token_type": "Bearer", "expires_in": 3600});
    for (k, val) in extra.as_object().unwrap() {
        v[k] = val.clone();
    }
    v.to_string()
}

impl Fake {
    pub fn new() -> Self {
        Self {
            routes: BTreeMap::new(),
            requests: Vec::new(),
            authorize_urls: Vec::new(),
            notices: Vec::new(),
            switches: Vec::new(),
            browser: approve(None),
        }
    }

    /// Queues an answer for `url` (answers are used in order; the last one repeats).
    pub fn on(&mut self, url: &str, status: u16, body: impl Into<String>) -> &mut Self {
        self.on_with(url, status, body, &[])
    }

    /// [`Fake::on`] with response headers.
    pub fn on_with(
        &mut self,
        url: &str,
        status: u16,
        body: impl Into<String>,
        headers: &[(&str, &str)],
    ) -> &mut Self {
        let headers = headers.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect();
        self.routes.entry(url.to_owned()).or_default().push_back((status, body.into(), headers));
        self
    }

    /// The standard happy setup: path PRM naming [`AS`], its metadata, DCR and a token.
    pub fn standard(&mut self, as_extra: serde_json::Value) -> &mut Self {
        self.standard_with(prm(MCP, &[AS], None), as_extra)
    }

    /// [`Fake::standard`] with this resource metadata document.
    pub fn standard_with(&mut self, prm_body: String, as_extra: serde_json::Value) -> &mut Self {
        self.on(PRM_PATH, 200, prm_body)
            .on(AS_META, 200, as_meta(AS, as_extra))
            .on(&format!("{AS}/register"), 201, r#"{"client_id":"dyn-client"}"#)
            .on(&format!("{AS}/token"), 200, token("at-1", serde_json::json!({})))
    }

    /// The next canned answer for `url` (404 when none).
    pub fn answer_for(&mut self, url: &str) -> (u16, String) {
        let (status, body, _) = self.answer_with_headers(url);
        (status, body)
    }

    /// [`Fake::answer_for`] with the response headers.
    pub fn answer_with_headers(&mut self, url: &str) -> Answer {
        match self.routes.get_mut(url) {
            Some(q) if q.len() > 1 => q.pop_front().unwrap(),
            Some(q) => q.front().cloned().unwrap(),
            None => (404, r#"{"error":"not_found"}"#.to_owned(), Vec::new()),
        }
    }

    /// Plays the host until the flow is done, failed, or idle.
    pub fn drive(&mut self, flow: &mut AuthFlow, now: Instant) -> Result<Tokens, OAuthError> {
        for _ in 0..100 {
            match flow.poll() {
                Some(AuthStep::Fetch { id, request }) => {
                    let (status, body, headers) = self.answer_with_headers(&request.url);
                    self.requests.push(request);
                    flow.on_response(now, id, status, &headers, body.as_bytes());
                }
                Some(AuthStep::Authorize { url }) => {
                    let query = (self.browser)(&url);
                    self.authorize_urls.push(url);
                    flow.on_callback(now, &query);
                }
                Some(AuthStep::Notice(n)) => self.notices.push(n),
                Some(AuthStep::AuthServerChanged { issuer, .. }) => self.switches.push(issuer),
                Some(AuthStep::Done(t)) => return Ok(t),
                Some(AuthStep::Failed(e)) => return Err(e),
                None => panic!("flow went idle without an outcome"),
            }
        }
        panic!("flow did not finish in 100 steps")
    }

    /// The URLs fetched, in order.
    pub fn urls(&self) -> Vec<&str> {
        self.requests.iter().map(|r| r.url.as_str()).collect()
    }

    /// The body of the last request to `url`, as text.
    pub fn body_of(&self, url: &str) -> String {
        let r = self
            .requests
            .iter()
            .rev()
            .find(|r| r.url == url)
            .unwrap_or_else(|| panic!("no request to {url}"));
        String::from_utf8(r.body.clone()).unwrap()
    }

    /// A header of the last request to `url`.
    pub fn header_of(&self, url: &str, name: &str) -> Option<String> {
        let r = self.requests.iter().rev().find(|r| r.url == url)?;
        r.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.clone())
    }
}

/// Fixed entropy: tests are deterministic.
pub const ENTROPY: [u8; 32] = [42; 32];

pub fn flow(config: mcpwire_core::oauth::AuthConfig) -> AuthFlow {
    AuthFlow::new(MCP, config, &ENTROPY).unwrap()
}

pub fn code_config() -> mcpwire_core::oauth::AuthConfig {
    mcpwire_core::oauth::AuthConfig::authorization_code(REDIRECT)
}

pub const CHALLENGE: &str =
    r#"Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp""#;

/// The base of the fake clock: the test plays the host, which reads the clock once.
#[allow(clippy::disallowed_methods)]
pub fn t0() -> Instant {
    Instant::now()
}
