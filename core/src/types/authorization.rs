//! What the connection's OAuth flow asks the host: open a browser ([`AuthorizationRequest`],
//! answered with an [`AuthorizationCallback`]). It travels as a [`crate::ServerRequest`] of
//! kind [`crate::ServerRequestKind::Authorization`], so every runtime runs its handler as it
//! runs the others.

use serde_json::{json, Value};

use crate::types::DecodeError;

/// Sign the user in: open `url` in a browser; the authorization server sends the browser back
/// to `redirect_uri` with the result in its query.
#[derive(Debug, Clone, PartialEq)]
pub struct AuthorizationRequest {
    /// The authorization URL to open.
    pub url: String,
    /// Where the browser comes back (the host listens there).
    pub redirect_uri: String,
    raw: Value,
}

impl AuthorizationRequest {
    /// A request to open `url`, coming back to `redirect_uri`.
    pub fn new(url: &str, redirect_uri: &str) -> Self {
        Self {
            url: url.to_owned(),
            redirect_uri: redirect_uri.to_owned(),
            raw: json!({"url": url, "redirectUri": redirect_uri}),
        }
    }

    /// Decodes the JSON form (`{"url", "redirectUri"}`).
    pub fn from_value(value: Value) -> Result<Self, DecodeError> {
        let field =
            |name: &str| {
                value.get(name).and_then(Value::as_str).map(str::to_owned).ok_or_else(|| {
                    DecodeError::new("AuthorizationRequest", format!("{name} must be a string"))
                })
            };
        Ok(Self { url: field("url")?, redirect_uri: field("redirectUri")?, raw: value })
    }

    /// The JSON form.
    pub fn raw(&self) -> &Value {
        &self.raw
    }
}

/// Where the browser came back: the whole redirect URL, or just its query string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthorizationCallback {
    /// The redirect URL (or its query).
    pub callback: String,
}

impl AuthorizationCallback {
    /// The callback as received.
    pub fn new(callback: impl Into<String>) -> Self {
        Self { callback: callback.into() }
    }

    /// The JSON form a handler answers with.
    pub fn into_value(self) -> Value {
        json!({"callback": self.callback})
    }

    /// Decodes the JSON form.
    pub fn from_value(value: &Value) -> Result<Self, DecodeError> {
        match value.get("callback").and_then(Value::as_str) {
            Some(c) => Ok(Self::new(c)),
            None => Err(DecodeError::new("AuthorizationCallback", "callback must be a string")),
        }
    }
}
