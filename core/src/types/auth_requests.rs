//! What the connection asks the host's token provider while authorizing an HTTP server: give
//! an access token ([`AccessTokenRequest`], answered with an [`AccessTokenAnswer`]). It travels
//! as a [`crate::ServerRequest`] of kind [`crate::ServerRequestKind::AccessToken`], so every
//! runtime runs its handler as it runs the others. (The OAuth flow's browser step is in
//! `authorization.rs`.)

use serde_json::{json, Value};

use crate::oauth::Secret;
use crate::types::DecodeError;

/// Give an access token for the server at `server_url`: it answered `status` (401 or 403) with
/// this `WWW-Authenticate` value. `attempt` counts the challenges in a row (1 the first time).
#[derive(Debug, Clone, PartialEq)]
pub struct AccessTokenRequest {
    /// The MCP server's URL.
    pub server_url: String,
    /// 401 or 403.
    pub status: u16,
    /// The `WWW-Authenticate` value, if any.
    pub www_authenticate: Option<String>,
    /// 1 for the first challenge; a provider may give up (answer an error) on a repeat.
    pub attempt: u32,
    raw: Value,
}

impl AccessTokenRequest {
    /// A request for a token.
    pub fn new(server_url: &str, status: u16, www_authenticate: Option<&str>, attempt: u32) -> Self {
        let raw = json!({
            "serverUrl": server_url,
            "status": status,
            "wwwAuthenticate": www_authenticate,
            "attempt": attempt,
        });
        Self {
            server_url: server_url.to_owned(),
            status,
            www_authenticate: www_authenticate.map(str::to_owned),
            attempt,
            raw,
        }
    }

    /// Decodes the JSON form.
    pub fn from_value(value: Value) -> Result<Self, DecodeError> {
        let bad = |why: &str| DecodeError::new("AccessTokenRequest", why.to_owned());
        let server_url = value.get("serverUrl").and_then(Value::as_str).ok_or_else(|| bad("serverUrl"))?;
        let status = value.get("status").and_then(Value::as_u64).ok_or_else(|| bad("status"))?;
        let attempt = value.get("attempt").and_then(Value::as_u64).ok_or_else(|| bad("attempt"))?;
        let www = value.get("wwwAuthenticate").and_then(Value::as_str);
        let status = u16::try_from(status).map_err(|_| bad("status"))?;
        let attempt = u32::try_from(attempt).map_err(|_| bad("attempt"))?;
        Ok(Self::new(server_url, status, www, attempt))
    }

    /// The JSON form.
    pub fn raw(&self) -> &Value {
        &self.raw
    }
}

/// An access token from the host. Sent as `Authorization: Bearer <token>` to the server's
/// origin only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccessTokenAnswer {
    /// The token.
    pub token: Secret,
}

impl AccessTokenAnswer {
    /// An answer with `token`.
    pub fn new(token: impl Into<String>) -> Self {
        Self { token: Secret::new(token) }
    }

    /// The JSON form a handler answers with.
    pub fn into_value(self) -> Value {
        json!({"accessToken": self.token.expose()})
    }

    /// Decodes the JSON form (the token must be 1–16384 visible ASCII characters).
    pub fn from_value(value: &Value) -> Result<Self, DecodeError> {
        let token = value.get("accessToken").and_then(Value::as_str).unwrap_or("");
        let valid = !token.is_empty()
            && token.len() <= crate::oauth::MAX_TOKEN_LEN
            && token.bytes().all(|b| (0x21..=0x7e).contains(&b));
        if valid {
            Ok(Self::new(token))
        } else {
            Err(DecodeError::new("AccessTokenAnswer", "accessToken must be 1-16384 visible ASCII characters"))
        }
    }
}
