//! The authorization server: metadata documents, dynamic client registration, the
//! auto-approving authorization endpoint, the token endpoint (authorization code with PKCE,
//! refresh with rotation, client credentials) and the bearer check of the protected resource.
//! Every method takes `now` so the unit tests control expiry.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};

use crate::oauth_gateway::crypto::{
    base64_decode, base64url, check_pkce, constant_time_eq, pkce_shape_ok, sha256,
};
use crate::oauth_gateway::http::{header, parse_form, percent_decode, Params, Request, Response};
use crate::oauth_gateway::urls::{redirect_uri_allowed, redirect_uri_matches, with_params};

/// How long an authorization code may wait for its exchange.
const CODE_TTL: Duration = Duration::from_secs(60);
/// Most registered clients (bounds the memory a misbehaving client can take).
const MAX_CLIENTS: usize = 1000;
/// Most outstanding codes and tokens of each kind.
const MAX_GRANTS: usize = 10_000;
/// The scope granted when none is requested.
const BASE_SCOPE: &str = "mcp";
const OFFLINE: &str = "offline_access";

/// How a client authenticates at the token endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ClientAuth {
    None,
    Post,
    Basic,
    /// A pre-registered confidential client (`--client`): either secret method.
    AnySecret,
}

impl ClientAuth {
    fn parse(s: &str) -> Option<Self> {
        match s {
            "none" => Some(Self::None),
            "client_secret_post" => Some(Self::Post),
            "client_secret_basic" => Some(Self::Basic),
            _ => None,
        }
    }
}

#[derive(Debug, Clone)]
struct Client {
    secret: Option<String>,
    auth: ClientAuth,
    redirect_uris: Vec<String>,
    grant_types: Vec<String>,
}

#[derive(Debug, Clone)]
struct Code {
    client_id: String,
    redirect_uri: String,
    challenge: String,
    scopes: Vec<String>,
    expires: Instant,
}

#[derive(Debug, Clone)]
struct Grant {
    client_id: String,
    scopes: Vec<String>,
    /// Access tokens expire; refresh tokens do not (they rotate).
    expires: Option<Instant>,
}

/// What the gateway counts, served at `/__stats`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    /// Clients registered through `/register`.
    pub registrations: u64,
    /// Authorization codes issued (browser sign-ins approved).
    pub authorizations: u64,
    /// Authorization requests refused.
    pub authorize_errors: u64,
    /// Authorization codes exchanged for tokens.
    pub token_grants: u64,
    /// Refresh grants answered with new tokens.
    pub refreshes: u64,
    /// Client credentials grants answered with a token.
    pub client_credentials: u64,
    /// Token endpoint error answers.
    pub token_errors: u64,
    /// Requests passed on to the upstream server.
    pub proxied: u64,
    /// `401` answers of the protected resource.
    pub unauthorized: u64,
    /// `403 insufficient_scope` answers of the protected resource.
    pub forbidden: u64,
}

impl Stats {
    /// The JSON form.
    pub fn to_value(self) -> Value {
        json!({
            "registrations": self.registrations,
            "authorizations": self.authorizations,
            "authorize_errors": self.authorize_errors,
            "token_grants": self.token_grants,
            "refreshes": self.refreshes,
            "client_credentials": self.client_credentials,
            "token_errors": self.token_errors,
            "proxied": self.proxied,
            "unauthorized": self.unauthorized,
            "forbidden": self.forbidden,
        })
    }
}

#[derive(Debug)]
struct State {
    clients: HashMap<String, Client>,
    codes: HashMap<String, Code>,
    access: HashMap<String, Grant>,
    refresh: HashMap<String, Grant>,
    minted: u64,
    stats: Stats,
}

/// The authorization server of one gateway.
#[derive(Debug)]
pub struct AuthServer {
    /// The issuer identifier: the gateway's base URL.
    pub issuer: String,
    /// The protected resource: `<issuer>/mcp`.
    pub resource: String,
    token_ttl: Duration,
    require_scope: Option<String>,
    salt: [u8; 32],
    state: Mutex<State>,
}

/// An error answer of the token endpoint.
fn token_error(status: u16, error: &str, description: &str) -> Response {
    Response::oauth_error(status, error, description)
}

impl AuthServer {
    /// A server at `base` issuing access tokens valid for `token_ttl`; with `require_scope`,
    /// the resource also demands that scope. `clients` are pre-registered confidential
    /// `(id, secret)` pairs (for the client credentials grant).
    pub fn new(
        base: &str,
        token_ttl: Duration,
        require_scope: Option<String>,
        clients: &[(String, String)],
    ) -> Self {
        let seed = format!(
            "{}/{:?}/{:p}",
            std::process::id(),
            SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default(),
            &token_ttl
        );
        let clients = clients
            .iter()
            .map(|(id, secret)| {
                let client = Client {
                    secret: Some(secret.clone()),
                    auth: ClientAuth::AnySecret,
                    redirect_uris: Vec::new(),
                    grant_types: vec!["client_credentials".into()],
                };
                (id.clone(), client)
            })
            .collect();
        Self {
            issuer: base.to_owned(),
            resource: format!("{base}/mcp"),
            token_ttl,
            require_scope,
            salt: sha256(seed.as_bytes()),
            state: Mutex::new(State {
                clients,
                codes: HashMap::new(),
                access: HashMap::new(),
                refresh: HashMap::new(),
                minted: 0,
                stats: Stats::default(),
            }),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Accepts `token` at the protected resource for ten years, with every scope it asks for:
    /// a token issued elsewhere (`--static-token`, for hosts that bring their own).
    pub fn accept_static_token(&self, token: &str, now: Instant) {
        let mut scopes = vec![BASE_SCOPE.to_owned()];
        scopes.extend(self.require_scope.iter().filter(|s| *s != BASE_SCOPE).cloned());
        let expires = Some(now + Duration::from_secs(10 * 365 * 24 * 3600));
        let grant = Grant { client_id: "static".to_owned(), scopes, expires };
        self.state().access.insert(token.to_owned(), grant);
    }

    /// The counters so far.
    pub fn stats(&self) -> Stats {
        self.state().stats
    }

    /// Counts one request passed upstream.
    pub fn count_proxied(&self) {
        self.state().stats.proxied += 1;
    }

    /// The URL of the Protected Resource Metadata.
    pub fn resource_metadata_url(&self) -> String {
        format!("{}/.well-known/oauth-protected-resource/mcp", self.issuer)
    }

    fn resource_scopes(&self) -> Vec<String> {
        let mut scopes = vec![BASE_SCOPE.to_owned()];
        scopes.extend(self.require_scope.iter().filter(|s| *s != BASE_SCOPE).cloned());
        scopes
    }

    fn supported_scopes(&self) -> Vec<String> {
        let mut scopes = self.resource_scopes();
        scopes.push(OFFLINE.to_owned());
        scopes
    }

    /// RFC 9728 Protected Resource Metadata.
    pub fn resource_metadata(&self) -> Value {
        json!({
            "resource": self.resource,
            "authorization_servers": [self.issuer],
            "scopes_supported": self.resource_scopes(),
            "bearer_methods_supported": ["header"],
        })
    }

    /// RFC 8414 Authorization Server Metadata.
    pub fn server_metadata(&self) -> Value {
        let base = &self.issuer;
        json!({
            "issuer": base,
            "authorization_endpoint": format!("{base}/authorize"),
            "token_endpoint": format!("{base}/token"),
            "registration_endpoint": format!("{base}/register"),
            "scopes_supported": self.supported_scopes(),
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token", "client_credentials"],
            "token_endpoint_auth_methods_supported": ["none", "client_secret_post", "client_secret_basic"],
            "code_challenge_methods_supported": ["S256"],
            "authorization_response_iss_parameter_supported": true,
        })
    }

    fn mint(&self, state: &mut State, prefix: &str) -> String {
        state.minted += 1;
        let mut input = self.salt.to_vec();
        input.extend_from_slice(prefix.as_bytes());
        input.extend_from_slice(&state.minted.to_be_bytes());
        format!("{prefix}_{}", base64url(&sha256(&input)))
    }

    /// `POST /register` (RFC 7591).
    pub fn register(&self, body: &[u8]) -> Response {
        let bad = |error: &str, why: &str| Response::oauth_error(400, error, why);
        let Ok(Value::Object(meta)) = serde_json::from_slice::<Value>(body) else {
            return bad("invalid_client_metadata", "the body must be a JSON object");
        };
        let strings = |name: &str| -> Result<Option<Vec<String>>, Response> {
            match meta.get(name) {
                None => Ok(None),
                Some(Value::Array(items)) => items
                    .iter()
                    .map(|v| v.as_str().map(str::to_owned))
                    .collect::<Option<Vec<_>>>()
                    .map(Some)
                    .ok_or_else(|| bad("invalid_client_metadata", &format!("{name} must be strings"))),
                Some(_) => Err(bad("invalid_client_metadata", &format!("{name} must be an array"))),
            }
        };
        let (redirect_uris, grant_types, response_types) =
            match (strings("redirect_uris"), strings("grant_types"), strings("response_types")) {
                (Ok(r), Ok(g), Ok(t)) => (r.unwrap_or_default(), g, t),
                (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => return e,
            };
        let method = match meta.get("token_endpoint_auth_method") {
            None => "client_secret_basic",
            Some(m) => m.as_str().unwrap_or(""),
        };
        let Some(auth) = ClientAuth::parse(method) else {
            return bad("invalid_client_metadata", "unsupported token_endpoint_auth_method");
        };
        let grant_types = grant_types.unwrap_or_else(|| vec!["authorization_code".into()]);
        let known = ["authorization_code", "refresh_token", "client_credentials"];
        if grant_types.is_empty() || grant_types.iter().any(|g| !known.contains(&g.as_str())) {
            return bad("invalid_client_metadata", "unsupported grant_types");
        }
        if grant_types.iter().any(|g| g == "client_credentials") && auth == ClientAuth::None {
            return bad("invalid_client_metadata", "client_credentials needs a confidential client");
        }
        if response_types.is_some_and(|t| t.iter().any(|t| t != "code")) {
            return bad("invalid_client_metadata", "only the code response type is supported");
        }
        let wants_code = grant_types.iter().any(|g| g == "authorization_code");
        if wants_code && redirect_uris.is_empty() {
            return bad("invalid_redirect_uri", "redirect_uris is required for authorization_code");
        }
        if let Some(uri) = redirect_uris.iter().find(|u| !redirect_uri_allowed(u)) {
            return bad("invalid_redirect_uri", &format!("{uri} must be https or loopback http"));
        }
        let mut state = self.state();
        if state.clients.len() >= MAX_CLIENTS {
            return bad("invalid_client_metadata", "too many registered clients");
        }
        let client_id = self.mint(&mut state, "client");
        let secret = (auth != ClientAuth::None).then(|| self.mint(&mut state, "secret"));
        let issued = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default().as_secs();
        let mut answer = json!({
            "client_id": client_id,
            "client_id_issued_at": issued,
            "redirect_uris": redirect_uris,
            "grant_types": grant_types,
            "response_types": ["code"],
            "token_endpoint_auth_method": method,
        });
        if let Some(name) = meta.get("client_name").and_then(Value::as_str) {
            answer["client_name"] = json!(name);
        }
        if let Some(secret) = &secret {
            answer["client_secret"] = json!(secret);
            answer["client_secret_expires_at"] = json!(0);
        }
        state.clients.insert(client_id, Client { secret, auth, redirect_uris, grant_types });
        state.stats.registrations += 1;
        Response::json(201, &answer)
    }

    /// Checks a requested `scope` against what this server offers; the default when absent.
    fn scopes(&self, requested: Option<&str>) -> Result<Vec<String>, Response> {
        let Some(requested) = requested else { return Ok(vec![BASE_SCOPE.to_owned()]) };
        let supported = self.supported_scopes();
        let mut scopes: Vec<String> = Vec::new();
        for s in requested.split(' ').filter(|s| !s.is_empty()) {
            if !supported.iter().any(|x| x == s) {
                return Err(token_error(400, "invalid_scope", &format!("unknown scope {s}")));
            }
            if !scopes.iter().any(|x| x == s) {
                scopes.push(s.to_owned());
            }
        }
        Ok(scopes)
    }

    /// `GET /authorize`: checks the request and approves it at once (302 to the redirect URI
    /// with `code`, `state` and `iss`). Errors before the redirect URI is trusted are answered
    /// here (400); later ones go back to the client by redirect (RFC 6749 §4.1.2.1).
    pub fn authorize(&self, now: Instant, query: Option<&str>) -> Response {
        let (answer, approved) = match self.authorize_inner(now, query.unwrap_or("")) {
            Ok(redirect) => (redirect, true),
            Err(refusal) => (refusal, false),
        };
        let mut state = self.state();
        if approved {
            state.stats.authorizations += 1;
        } else {
            state.stats.authorize_errors += 1;
        }
        answer
    }

    /// `Ok` with the redirect carrying a code, `Err` with a refusal (a page or a redirect).
    fn authorize_inner(&self, now: Instant, query: &str) -> Result<Response, Response> {
        let page = |why: &str| Response::oauth_error(400, "invalid_request", why);
        let Some(pairs) = parse_form(query) else { return Err(page("malformed query")) };
        let params = match Params::new(pairs) {
            Ok(p) => p,
            Err(name) => return Err(page(&format!("parameter {name} repeated"))),
        };
        let Some(client_id) = params.get("client_id") else { return Err(page("client_id is required")) };
        let Some(client) = self.state().clients.get(client_id).cloned() else {
            return Err(Response::oauth_error(400, "invalid_client", "unknown client_id"));
        };
        let Some(redirect_uri) = params.get("redirect_uri") else {
            return Err(page("redirect_uri is required"));
        };
        if !client.redirect_uris.iter().any(|r| redirect_uri_matches(r, redirect_uri)) {
            return Err(page("redirect_uri is not registered for this client"));
        }
        let state_param = params.get("state");
        let redirect = |pairs: &[(&str, &str)]| {
            let mut all = pairs.to_vec();
            if let Some(s) = state_param {
                all.push(("state", s));
            }
            all.push(("iss", &self.issuer));
            Response { status: 302, headers: Vec::new(), body: Vec::new() }
                .with_header("Location", with_params(redirect_uri, &all))
        };
        let refuse = |error: &str, why: &str| redirect(&[("error", error), ("error_description", why)]);
        if params.get("response_type") != Some("code") {
            return Err(refuse("unsupported_response_type", "response_type must be code"));
        }
        if !client.grant_types.iter().any(|g| g == "authorization_code") {
            return Err(refuse("unauthorized_client", "the client may not use the authorization code grant"));
        }
        let challenge = params.get("code_challenge").unwrap_or("");
        if params.get("code_challenge_method") != Some("S256")
            || challenge.len() != 43
            || !pkce_shape_ok(challenge)
        {
            return Err(refuse("invalid_request", "a PKCE S256 code_challenge is required"));
        }
        if state_param.is_none() {
            return Err(refuse("invalid_request", "state is required"));
        }
        if params.get("resource") != Some(self.resource.as_str()) {
            return Err(refuse("invalid_target", "resource must name this server's MCP endpoint"));
        }
        let scopes = match self.scopes(params.get("scope")) {
            Ok(s) => s,
            Err(_) => return Err(refuse("invalid_scope", "unknown scope requested")),
        };
        let mut state = self.state();
        state.codes.retain(|_, c| c.expires > now);
        if state.codes.len() >= MAX_GRANTS {
            return Err(refuse("temporarily_unavailable", "too many pending codes"));
        }
        let code = self.mint(&mut state, "code");
        let record = Code {
            client_id: client_id.to_owned(),
            redirect_uri: redirect_uri.to_owned(),
            challenge: challenge.to_owned(),
            scopes,
            expires: now + CODE_TTL,
        };
        state.codes.insert(code.clone(), record);
        drop(state);
        Ok(redirect(&[("code", &code)]))
    }

    /// Authenticates the client of a token request (RFC 6749 §2.3): `Basic`, or the id (and
    /// secret) in the body, as the client registered.
    fn authenticate(&self, req: &Request, params: &Params) -> Result<(String, Client), Response> {
        let invalid = |why: &str| {
            token_error(401, "invalid_client", why).with_header("WWW-Authenticate", "Basic realm=\"token\"")
        };
        let (id, secret, basic) = match header(&req.headers, "authorization") {
            Some(value) if value.len() > 6 && value[..6].eq_ignore_ascii_case("basic ") => {
                let decoded = base64_decode(value[6..].trim()).and_then(|b| String::from_utf8(b).ok());
                let Some((id, secret)) = decoded.as_deref().and_then(|d| d.split_once(':')) else {
                    return Err(invalid("malformed Basic credentials"));
                };
                match (percent_decode(id), percent_decode(secret)) {
                    (Some(id), Some(secret)) => (id, Some(secret), true),
                    _ => return Err(invalid("malformed Basic credentials")),
                }
            }
            Some(_) => return Err(invalid("unsupported Authorization scheme")),
            None => match params.get("client_id") {
                Some(id) => (id.to_owned(), params.get("client_secret").map(str::to_owned), false),
                None => return Err(invalid("client authentication is required")),
            },
        };
        if basic && params.get("client_secret").is_some() {
            return Err(invalid("more than one client authentication method"));
        }
        if basic && params.get("client_id").is_some_and(|body_id| body_id != id) {
            return Err(invalid("client_id does not match the credentials"));
        }
        let Some(client) = self.state().clients.get(&id).cloned() else {
            return Err(invalid("unknown client"));
        };
        let method_ok = matches!(
            (client.auth, basic, &secret),
            (ClientAuth::None, false, None)
                | (ClientAuth::Post, false, Some(_))
                | (ClientAuth::Basic, true, Some(_))
                | (ClientAuth::AnySecret, _, Some(_))
        );
        if !method_ok {
            return Err(invalid("not the client's registered authentication method"));
        }
        let secret_ok = match (&client.secret, &secret) {
            (Some(expected), Some(given)) => constant_time_eq(expected.as_bytes(), given.as_bytes()),
            (None, None) => true,
            _ => false,
        };
        if !secret_ok {
            return Err(invalid("wrong client secret"));
        }
        Ok((id, client))
    }

    /// `POST /token`.
    pub fn token(&self, now: Instant, req: &Request) -> Response {
        let answer = self.token_inner(now, req);
        if answer.status != 200 {
            self.state().stats.token_errors += 1;
        }
        answer
    }

    fn token_inner(&self, now: Instant, req: &Request) -> Response {
        let content_type = req.header("content-type").unwrap_or("");
        if !content_type.to_ascii_lowercase().starts_with("application/x-www-form-urlencoded") {
            return token_error(400, "invalid_request", "the body must be application/x-www-form-urlencoded");
        }
        let Some(pairs) = std::str::from_utf8(&req.body).ok().and_then(parse_form) else {
            return token_error(400, "invalid_request", "malformed form body");
        };
        let params = match Params::new(pairs) {
            Ok(p) => p,
            Err(name) => return token_error(400, "invalid_request", &format!("parameter {name} repeated")),
        };
        let (client_id, client) = match self.authenticate(req, &params) {
            Ok(c) => c,
            Err(answer) => return answer,
        };
        let grant_type = params.get("grant_type").unwrap_or("");
        let allowed = match grant_type {
            "refresh_token" => {
                client.grant_types.iter().any(|g| g == "refresh_token" || g == "authorization_code")
            }
            g => client.grant_types.iter().any(|x| x == g),
        };
        if !matches!(grant_type, "authorization_code" | "refresh_token" | "client_credentials") {
            return token_error(400, "unsupported_grant_type", "unsupported grant_type");
        }
        if !allowed {
            return token_error(400, "unauthorized_client", "the client may not use this grant");
        }
        match params.get("resource") {
            Some(r) if r == self.resource => {}
            Some(_) => {
                return token_error(400, "invalid_target", "resource must name this server's MCP endpoint")
            }
            None => return token_error(400, "invalid_request", "resource is required (RFC 8707)"),
        }
        match grant_type {
            "authorization_code" => self.code_grant(now, &client_id, &params),
            "refresh_token" => self.refresh_grant(now, &client_id, &params),
            _ => self.client_credentials_grant(now, &client_id, &params),
        }
    }

    fn code_grant(&self, now: Instant, client_id: &str, params: &Params) -> Response {
        let invalid_grant = |why: &str| token_error(400, "invalid_grant", why);
        let (Some(code), Some(verifier)) = (params.get("code"), params.get("code_verifier")) else {
            return token_error(400, "invalid_request", "code and code_verifier are required");
        };
        let mut state = self.state();
        // A code works once, whatever the outcome of its exchange.
        let Some(record) = state.codes.remove(code) else { return invalid_grant("unknown or used code") };
        if record.expires <= now {
            return invalid_grant("the code expired");
        }
        if record.client_id != client_id {
            return invalid_grant("the code was issued to another client");
        }
        if params.get("redirect_uri") != Some(record.redirect_uri.as_str()) {
            return invalid_grant("redirect_uri differs from the authorization request's");
        }
        if let Err(e) = check_pkce(verifier, &record.challenge) {
            return invalid_grant(&format!("PKCE verification failed: {e:?}"));
        }
        state.stats.token_grants += 1;
        self.issue(&mut state, now, client_id, record.scopes, true)
    }

    fn refresh_grant(&self, now: Instant, client_id: &str, params: &Params) -> Response {
        let Some(token) = params.get("refresh_token") else {
            return token_error(400, "invalid_request", "refresh_token is required");
        };
        let mut state = self.state();
        let Some(grant) = state.refresh.get(token).cloned() else {
            return token_error(400, "invalid_grant", "unknown or rotated refresh token");
        };
        if grant.client_id != client_id {
            return token_error(400, "invalid_grant", "the refresh token was issued to another client");
        }
        let scopes = match params.get("scope") {
            None => grant.scopes.clone(),
            Some(s) => {
                let asked: Vec<String> = s.split(' ').filter(|s| !s.is_empty()).map(str::to_owned).collect();
                if asked.iter().any(|a| !grant.scopes.contains(a)) {
                    return token_error(400, "invalid_scope", "a refresh cannot widen the scope");
                }
                asked
            }
        };
        // Rotation (OAuth 2.1 §4.3.1): the old refresh token stops working.
        state.refresh.remove(token);
        state.stats.refreshes += 1;
        self.issue(&mut state, now, client_id, scopes, true)
    }

    fn client_credentials_grant(&self, now: Instant, client_id: &str, params: &Params) -> Response {
        let scopes = match self.scopes(params.get("scope")) {
            Ok(s) => s,
            Err(answer) => return answer,
        };
        let mut state = self.state();
        state.stats.client_credentials += 1;
        self.issue(&mut state, now, client_id, scopes, false)
    }

    fn issue(
        &self,
        state: &mut State,
        now: Instant,
        client_id: &str,
        scopes: Vec<String>,
        refresh: bool,
    ) -> Response {
        state.access.retain(|_, g| g.expires.is_some_and(|at| at > now));
        if state.access.len() >= MAX_GRANTS || state.refresh.len() >= MAX_GRANTS {
            return token_error(400, "temporarily_unavailable", "too many outstanding tokens");
        }
        let access = self.mint(state, "at");
        let grant = Grant { client_id: client_id.to_owned(), scopes: scopes.clone(), expires: None };
        state.access.insert(access.clone(), Grant { expires: Some(now + self.token_ttl), ..grant.clone() });
        let mut answer = json!({
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": self.token_ttl.as_secs(),
            "scope": scopes.join(" "),
        });
        if refresh {
            let token = self.mint(state, "rt");
            state.refresh.insert(token.clone(), grant);
            answer["refresh_token"] = json!(token);
        }
        Response::json(200, &answer)
    }

    /// The protected resource's check of `Authorization: Bearer …` (RFC 6750 §3): `Ok` when
    /// the token is known, unexpired and has the required scope; else the 401 (or 403
    /// `insufficient_scope`) answer with its `WWW-Authenticate` challenge.
    pub fn check_bearer(&self, now: Instant, authorization: Option<&str>) -> Result<(), Response> {
        let outcome = self.bearer_outcome(now, authorization);
        let mut state = self.state();
        match &outcome {
            Err(r) if r.status == 401 => state.stats.unauthorized += 1,
            Err(_) => state.stats.forbidden += 1,
            Ok(()) => {}
        }
        outcome
    }

    fn bearer_outcome(&self, now: Instant, authorization: Option<&str>) -> Result<(), Response> {
        let mut challenge = format!("Bearer resource_metadata=\"{}\"", self.resource_metadata_url());
        if let Some(s) = &self.require_scope {
            challenge.push_str(&format!(", scope=\"{s}\""));
        }
        let refuse = |status: u16, error: Option<(&str, &str)>| {
            let mut value = challenge.clone();
            if let Some((code, why)) = error {
                value.push_str(&format!(", error=\"{code}\", error_description=\"{why}\""));
            }
            let (code, why) = error.unwrap_or(("unauthorized", "a bearer token is required"));
            Err(Response::oauth_error(status, code, why).with_header("WWW-Authenticate", value))
        };
        let Some(value) = authorization else { return refuse(401, None) };
        let token = match value.split_once(' ') {
            Some((scheme, token)) if scheme.eq_ignore_ascii_case("bearer") && !token.trim().is_empty() => {
                token.trim()
            }
            _ => return refuse(401, Some(("invalid_token", "not a bearer token"))),
        };
        let mut state = self.state();
        let Some(grant) = state.access.get(token).cloned() else {
            return refuse(401, Some(("invalid_token", "unknown token")));
        };
        if grant.expires.is_none_or(|at| at <= now) {
            state.access.remove(token);
            return refuse(401, Some(("invalid_token", "the token expired")));
        }
        if let Some(needed) = &self.require_scope {
            if !grant.scopes.contains(needed) {
                return refuse(403, Some(("insufficient_scope", "the token lacks the required scope")));
            }
        }
        Ok(())
    }
}
