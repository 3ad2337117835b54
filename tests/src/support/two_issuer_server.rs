//! A protected MCP server whose authorization server can change: one scripted loopback HTTP
//! server plays the MCP server (`/mcp`, modern, one `echo` tool), its Protected Resource
//! Metadata (naming the issuer in charge now) and two authorization servers, issuers
//! `<base>/a` and `<base>/b` (metadata, registration, an authorization code that the test's
//! authorization handler makes up, and the token endpoint with rotating refresh tokens). The
//! MCP server accepts only tokens issued by the issuer in charge; every request is recorded,
//! so a test can check which token went where.

use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use crate::support::scripted_http::{Reply, ScriptedHttpServer, SeenRequest};

/// The two authorization servers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Issuer {
    /// `<base>/a`.
    A,
    /// `<base>/b`.
    B,
}

impl Issuer {
    /// Its path segment (`a` or `b`).
    pub fn name(self) -> &'static str {
        match self {
            Issuer::A => "a",
            Issuer::B => "b",
        }
    }

    fn from_name(name: &str) -> Option<Self> {
        match name {
            "a" => Some(Issuer::A),
            "b" => Some(Issuer::B),
            _ => None,
        }
    }
}

#[derive(Debug)]
struct World {
    in_charge: Issuer,
    /// Access and refresh tokens issued, with their issuer.
    access: Vec<(String, Issuer)>,
    refresh: Vec<(String, Issuer)>,
    issued: usize,
}

/// The running server.
#[derive(Debug)]
pub struct TwoIssuerServer {
    http: ScriptedHttpServer,
    world: Arc<Mutex<World>>,
}

impl TwoIssuerServer {
    /// Starts it with `in_charge` as the MCP server's authorization server.
    pub fn start(in_charge: Issuer) -> Self {
        let world =
            Arc::new(Mutex::new(World { in_charge, access: Vec::new(), refresh: Vec::new(), issued: 0 }));
        let handler_world = world.clone();
        let http = ScriptedHttpServer::start(move |req| answer(&handler_world, req));
        Self { http, world }
    }

    /// The MCP endpoint.
    pub fn mcp_url(&self) -> String {
        self.http.url("/mcp")
    }

    /// The issuer URL of `issuer`.
    pub fn issuer_url(&self, issuer: Issuer) -> String {
        self.http.url(&format!("/{}", issuer.name()))
    }

    /// Puts `issuer` in charge: from now on the MCP server accepts only its tokens.
    pub fn hand_over_to(&self, issuer: Issuer) {
        self.world.lock().unwrap().in_charge = issuer;
    }

    /// The access tokens `issuer` issued, in order.
    pub fn tokens_of(&self, issuer: Issuer) -> Vec<String> {
        let world = self.world.lock().unwrap();
        world.access.iter().filter(|(_, i)| *i == issuer).map(|(t, _)| t.clone()).collect()
    }

    /// Every request seen so far.
    pub fn requests(&self) -> Vec<SeenRequest> {
        self.http.requests()
    }

    /// The `Authorization` headers of the requests to the MCP endpoint, in order.
    pub fn presented(&self) -> Vec<Option<String>> {
        self.requests()
            .iter()
            .filter(|r| r.target == "/mcp")
            .map(|r| r.header("authorization").map(str::to_owned))
            .collect()
    }

    /// The requests to `issuer`'s endpoints (metadata, registration, token).
    pub fn requests_to(&self, issuer: Issuer) -> Vec<SeenRequest> {
        let prefix = format!("/{}/", issuer.name());
        let metadata = format!("/.well-known/oauth-authorization-server/{}", issuer.name());
        self.requests()
            .into_iter()
            .filter(|r| r.target.starts_with(&prefix) || r.target == metadata)
            .collect()
    }

    /// The `grant_type`s of the token requests `issuer` got, in order.
    pub fn grants_at(&self, issuer: Issuer) -> Vec<String> {
        let token = format!("/{}/token", issuer.name());
        self.requests()
            .iter()
            .filter(|r| r.target == token)
            .filter_map(|r| form_value(&r.body, "grant_type"))
            .collect()
    }
}

/// The callback a browser would come back with from `url` (an authorization URL of this
/// server): a code naming the issuer, and the `state`.
pub fn approve(url: &str, redirect_uri: &str) -> String {
    let query = url.split_once('?').map_or("", |(_, q)| q);
    let state = form_value(query.as_bytes(), "state").expect("a state in the authorization URL");
    let issuer = if url.contains("/a/authorize") { "a" } else { "b" };
    format!("{redirect_uri}?code=code-{issuer}&state={state}")
}

/// A form (or query) value; the values this server reads are plain tokens, not encoded.
fn form_value(body: &[u8], name: &str) -> Option<String> {
    let text = String::from_utf8_lossy(body);
    text.split('&')
        .find_map(|pair| pair.split_once('=').filter(|(k, _)| *k == name).map(|(_, v)| v.to_owned()))
}

fn answer(world: &Mutex<World>, req: &SeenRequest) -> Reply {
    let base = format!("http://{}", req.header("host").unwrap_or("127.0.0.1"));
    let path = req.target.split('?').next().unwrap_or("");
    if path == "/mcp" {
        return mcp(world, req, &base);
    }
    if path.starts_with("/.well-known/oauth-protected-resource") {
        let in_charge = world.lock().unwrap().in_charge;
        let servers = [format!("{base}/{}", in_charge.name())];
        return Reply::json(&json!({"resource": format!("{base}/mcp"), "authorization_servers": servers}))
            .then_close();
    }
    if let Some(name) = path.strip_prefix("/.well-known/oauth-authorization-server/") {
        if Issuer::from_name(name).is_some() {
            let issuer = format!("{base}/{name}");
            return Reply::json(&json!({
                "issuer": issuer,
                "authorization_endpoint": format!("{issuer}/authorize"),
                "token_endpoint": format!("{issuer}/token"),
                "registration_endpoint": format!("{issuer}/register"),
                "code_challenge_methods_supported": ["S256"],
                "token_endpoint_auth_methods_supported": ["none"],
                "grant_types_supported": ["authorization_code", "refresh_token"],
            }))
            .then_close();
        }
    }
    let mut parts = path.trim_start_matches('/').splitn(2, '/');
    let (Some(issuer), Some(endpoint)) = (parts.next().and_then(Issuer::from_name), parts.next()) else {
        return Reply::fixed(404, &[], b"").then_close();
    };
    match endpoint {
        "register" => {
            let client = json!({"client_id": format!("client-{}", issuer.name())});
            Reply::fixed(201, &[("content-type", "application/json")], client.to_string().as_bytes())
                .then_close()
        }
        "token" => token(world, issuer, &req.body),
        _ => Reply::fixed(404, &[], b"").then_close(),
    }
}

/// The token endpoint of `issuer`: a code it made up, or a refresh token it issued.
fn token(world: &Mutex<World>, issuer: Issuer, body: &[u8]) -> Reply {
    let mut world = world.lock().unwrap();
    let granted = match form_value(body, "grant_type").as_deref() {
        Some("authorization_code") => form_value(body, "code") == Some(format!("code-{}", issuer.name())),
        Some("refresh_token") => {
            let presented = form_value(body, "refresh_token").unwrap_or_default();
            let known = world.refresh.iter().position(|(t, i)| *t == presented && *i == issuer);
            known.map(|at| world.refresh.remove(at)).is_some()
        }
        _ => false,
    };
    if !granted {
        let error = json!({"error": "invalid_grant"}).to_string();
        return Reply::fixed(400, &[("content-type", "application/json")], error.as_bytes()).then_close();
    }
    world.issued += 1;
    let (access, refresh) =
        (format!("tok-{}-{}", issuer.name(), world.issued), format!("rt-{}-{}", issuer.name(), world.issued));
    world.access.push((access.clone(), issuer));
    world.refresh.push((refresh.clone(), issuer));
    Reply::json(&json!({"access_token": access, "token_type": "Bearer", "expires_in": 3600,
                        "refresh_token": refresh}))
    .then_close()
}

/// The MCP endpoint: a token of the issuer in charge, else `401` pointing at the metadata.
fn mcp(world: &Mutex<World>, req: &SeenRequest, base: &str) -> Reply {
    let accepted = {
        let world = world.lock().unwrap();
        let bearer = req.header("authorization").and_then(|v| v.strip_prefix("Bearer "));
        bearer.is_some_and(|b| world.access.iter().any(|(t, i)| t == b && *i == world.in_charge))
    };
    if !accepted {
        let www = format!(r#"Bearer resource_metadata="{base}/.well-known/oauth-protected-resource/mcp""#);
        return Reply::fixed(401, &[("www-authenticate", www.as_str())], b"").then_close();
    }
    let request = req.json();
    let result: Value = match request["method"].as_str() {
        Some("server/discover") => json!({"resultType": "complete",
            "supportedVersions": [mcpwire_core::MODERN_VERSION], "capabilities": {"tools": {}},
            "ttlMs": 0, "cacheScope": "private"}),
        Some("tools/list") => json!({"resultType": "complete",
            "tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}),
        _ => json!({"resultType": "complete", "content": [{"type": "text", "text": "ok"}]}),
    };
    Reply::json(&json!({"jsonrpc": "2.0", "id": request["id"], "result": result})).then_close()
}
