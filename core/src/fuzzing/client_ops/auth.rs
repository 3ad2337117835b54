//! The op-list body over an HTTP server that asks for authorization: the connection runs its
//! OAuth flow (or asks the host's token provider) against an authorization server the input
//! scripts, mixing plausible documents with hostile ones, while the usual requests, answers,
//! cancels and faults go on. Extra invariant: no access token ever goes to an origin other
//! than the MCP server's.

use serde_json::{json, Value};

use super::{Reader, World};
use crate::io::HttpRequest;
use crate::oauth::{AuthConfig, HttpAuth, OAuthSetup};
use crate::ServerRequestHandle;

/// The MCP server the world plays.
pub(super) const SERVER: &str = "http://127.0.0.1:9/mcp";
const ORIGIN: &str = "http://127.0.0.1:9";

/// The configuration: OAuth (`provider == false`) or the host's token provider.
pub(super) fn config(provider: bool) -> crate::ConnectionConfig {
    let mut http = crate::HttpConfig::new(SERVER).expect("a valid URL");
    http.auth = if provider {
        HttpAuth::TokenProvider
    } else {
        let config = AuthConfig::authorization_code("http://127.0.0.1:8765/callback");
        HttpAuth::OAuth(Box::new(OAuthSetup::new(config, vec![5; 32], 1_700_000_000)))
    };
    let mut cfg = crate::ConnectionConfig::http(http);
    cfg.limits.max_message_bytes = 8192;
    cfg.features.elicitation_form = true;
    cfg
}

/// Whether a request goes to the authorization server (not the MCP endpoint).
pub(super) fn is_auth_fetch(request: &HttpRequest) -> bool {
    request.url != SERVER
}

/// Checks a request the connection started: credentials only for the MCP server's origin.
pub(super) fn check_request(request: &HttpRequest) {
    if request.url.starts_with(ORIGIN) {
        return;
    }
    for (name, value) in &request.headers {
        let credential = name.eq_ignore_ascii_case("authorization")
            && (value.starts_with("Bearer ") || value.starts_with("DPoP "));
        assert!(!credential, "an access token went to {}", request.url);
    }
}

/// A document an authorization server might answer `url` with (plausible, or not).
fn document(r: &mut Reader<'_>, url: &str) -> (u16, Value) {
    let ok = r.pick(5) != 0;
    let status = if ok { 200 } else { [400u16, 401, 404, 500][r.pick(4)] };
    let doc = if url.contains("oauth-protected-resource") {
        let resource = if r.pick(6) == 0 { "http://127.0.0.1:9/other" } else { SERVER };
        json!({"resource": resource, "authorization_servers": [ORIGIN], "scopes_supported": ["read"]})
    } else if url.contains("oauth-authorization-server") || url.contains("openid-configuration") {
        let mut meta = json!({
            "issuer": if r.pick(8) == 0 { "http://127.0.0.1:9/elsewhere" } else { ORIGIN },
            "authorization_endpoint": format!("{ORIGIN}/authorize"),
            "token_endpoint": format!("{ORIGIN}/token"),
            "registration_endpoint": format!("{ORIGIN}/register"),
            "token_endpoint_auth_methods_supported": ["none"],
            "authorization_response_iss_parameter_supported": r.pick(2) == 0,
        });
        if r.pick(6) != 0 {
            meta["code_challenge_methods_supported"] = json!(["S256"]);
        }
        meta
    } else if url.ends_with("/register") {
        json!({"client_id": "fuzz-client"})
    } else if url.ends_with("/token") {
        let expires = [0u64, 1, 60, 3600][r.pick(4)];
        let token_type = ["Bearer", "bearer", "MAC"][r.pick(3)];
        let mut t = json!({"access_token": format!("tok-{}", r.pick(1000)), "token_type": token_type,
                           "expires_in": expires});
        if r.pick(2) == 0 {
            t["refresh_token"] = json!("refresh");
        }
        t
    } else {
        json!({"error": "not_found"})
    };
    (status, doc)
}

impl World {
    /// What a protected server and its authorization server do between ops, as the input
    /// decides (a byte each): refuse requests without credentials, answer the authorization
    /// server fetches (mostly with plausible documents), answer the browser step and the token
    /// provider (mostly correctly).
    pub(super) fn auth_service(&mut self, r: &mut Reader<'_>) {
        let bare: Vec<_> = self
            .open
            .iter()
            .filter(|(_, e)| e.bare && e.auth.is_none() && e.head.is_none())
            .map(|(x, _)| *x)
            .collect();
        for x in bare {
            if r.pick(4) != 0 && self.open.contains_key(&x) {
                self.challenge(x, false);
            }
        }
        let fetches: Vec<_> = self.open.iter().filter(|(_, e)| e.auth.is_some()).map(|(x, _)| *x).collect();
        for x in fetches {
            if r.pick(5) != 0 && self.open.contains_key(&x) {
                self.answer_fetch(r, x);
            }
        }
        if !self.auth_prompts.is_empty() && r.pick(3) != 0 {
            self.answer_auth_prompt(r);
        }
    }

    /// Answers the authorization server fetch `x` with a document for its URL.
    fn answer_fetch(&mut self, r: &mut Reader<'_>, x: crate::ExchangeId) {
        let url = self.open[&x].auth.clone().unwrap_or_default();
        let (status, doc) = document(r, &url);
        self.head(x, status, false);
        if self.open.contains_key(&x) {
            let body = doc.to_string();
            self.body(r, x, body.as_bytes());
        }
        if self.open.contains_key(&x) {
            self.finish(x, true);
        }
    }

    /// Refuses the MCP exchange `x`: 401 with the resource metadata, or (`scope`) 403 asking
    /// for more scope.
    fn challenge(&mut self, x: crate::ExchangeId, scope: bool) {
        let (status, www) = if scope {
            (403, r#"Bearer error="insufficient_scope", scope="write""#.to_owned())
        } else {
            (401, format!(r#"Bearer resource_metadata="{ORIGIN}/.well-known/oauth-protected-resource/mcp""#))
        };
        let headers = vec![("www-authenticate".to_owned(), www)];
        if let Some(e) = self.open.get_mut(&x) {
            e.head = Some(false);
        }
        self.refused(x);
        self.conn.handle_http_head(self.now, x, crate::HttpHead { status, headers });
        self.drain();
        if self.open.contains_key(&x) {
            self.finish(x, true);
        }
    }

    /// One authorization move: an answer to an authorization server fetch, to the browser
    /// step or the token provider, or a challenge on an open MCP exchange.
    pub(super) fn auth_op(&mut self, r: &mut Reader<'_>) {
        match r.pick(4) {
            0 => {
                let fetches: Vec<_> =
                    self.open.iter().filter(|(_, e)| e.auth.is_some()).map(|(x, _)| *x).collect();
                if let Some(&x) = super::pick(r, &fetches) {
                    self.answer_fetch(r, x);
                }
            }
            1 => self.answer_auth_prompt(r),
            n => {
                let mcp: Vec<_> = self
                    .open
                    .iter()
                    .filter(|(_, e)| e.auth.is_none() && e.head.is_none())
                    .map(|(x, _)| *x)
                    .collect();
                if let Some(&x) = super::pick(r, &mcp) {
                    self.challenge(x, n == 3);
                }
            }
        }
    }

    /// Answers a pending browser step (a callback with the right or a wrong `state`, or a
    /// refusal) or token request (a token, junk, or a refusal).
    fn answer_auth_prompt(&mut self, r: &mut Reader<'_>) {
        let Some((handle, url)) = super::pick(r, &self.auth_prompts).cloned() else { return };
        let answer = match (url, r.pick(6)) {
            (_, 0) => Err(crate::HandlerError::new("the user closed the window")),
            (Some(url), n) => {
                let state = url.split("state=").nth(1).and_then(|s| s.split('&').next()).unwrap_or("");
                let state = if n == 1 { "forged" } else { state };
                let iss = if n == 3 { "&iss=http%3A%2F%2Fevil.example" } else { "" };
                Ok(json!({"callback": format!("http://127.0.0.1:8765/callback?code=c&state={state}{iss}")}))
            }
            (None, 1) => Ok(json!({"accessToken": "has space"})),
            (None, _) => Ok(json!({"accessToken": "host-token"})),
        };
        self.auth_prompts.retain(|(h, _)| *h != handle);
        let _ = self.conn.respond_to_server(self.now, handle, answer);
        self.drain();
    }

    /// Remembers a browser step or token request the connection asked for.
    pub(super) fn note_auth_prompt(&mut self, handle: ServerRequestHandle, request: &crate::ServerRequest) {
        match &request.request {
            crate::types::HostRequest::Authorization(a) => {
                self.auth_prompts.push((handle, Some(a.url.clone())))
            }
            crate::types::HostRequest::AccessToken(_) => self.auth_prompts.push((handle, None)),
            _ => {}
        }
    }
}
