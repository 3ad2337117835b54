//! [`StoredAuth`]: what a host persists between runs so a later run skips discovery,
//! registration and (while the tokens last) authorization.
//!
//! `Instant`s do not survive a restart, so expiries are stored as Unix seconds: the host passes
//! its wall-clock time in (`unix_now`) next to the monotonic `now`; the core reads neither clock.

use std::time::{Duration, Instant};

use crate::oauth::jwt::EsKey;
use crate::oauth::metadata::{AuthServerMetadata, ResourceMetadata};
use crate::oauth::registration::ClientRegistration;
use crate::oauth::token::{TokenType, Tokens, MAX_EXPIRES_IN};
use crate::oauth::url::check_endpoint;
use crate::oauth::{AuthFlow, OAuthError, Secret};

/// Format version written by [`AuthFlow::stored`].
pub const STORED_VERSION: u32 = 1;

/// Tokens as stored: the expiry in Unix seconds.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct StoredTokens {
    /// The access token.
    pub access_token: Secret,
    /// `Bearer`, or `DPoP` (bound to [`StoredAuth::dpop_key`]).
    #[serde(default)]
    pub token_type: TokenType,
    /// Expiry, Unix seconds.
    pub expires_at_unix: Option<u64>,
    /// The refresh token.
    pub refresh_token: Option<Secret>,
    /// Granted scopes.
    pub scopes: Vec<String>,
    /// Issuer.
    pub issuer: String,
    /// Resource.
    pub resource: String,
}

/// Everything worth keeping about one MCP server's authorization. Contains secrets in clear:
/// store it like a password.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct StoredAuth {
    /// [`STORED_VERSION`].
    pub version: u32,
    /// The canonical MCP server URL this record belongs to.
    pub server: String,
    /// The Protected Resource Metadata last used.
    pub resource_metadata: Option<ResourceMetadata>,
    /// The authorization server metadata last used.
    pub auth_server: Option<AuthServerMetadata>,
    /// The client in use.
    pub client: Option<ClientRegistration>,
    /// Dynamic registrations, one per authorization server.
    pub registrations: Vec<ClientRegistration>,
    /// The tokens.
    pub tokens: Option<StoredTokens>,
    /// The DPoP private key (base64url scalar), which DPoP-bound tokens need.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dpop_key: Option<Secret>,
}

impl AuthFlow {
    /// A record of the current state to persist; `unix_now` is the host's wall-clock time in
    /// Unix seconds at the same moment as `now`.
    pub fn stored(&self, now: Instant, unix_now: u64) -> StoredAuth {
        let tokens = self.tokens.as_ref().map(|t| StoredTokens {
            access_token: t.access_token.clone(),
            token_type: t.token_type,
            expires_at_unix: t
                .expires_at
                .map(|at| unix_now.saturating_add(at.saturating_duration_since(now).as_secs())),
            refresh_token: t.refresh_token.clone(),
            scopes: t.scopes.clone(),
            issuer: t.issuer.clone(),
            resource: t.resource.clone(),
        });
        StoredAuth {
            version: STORED_VERSION,
            server: self.default_resource.clone(),
            resource_metadata: self.prm.clone(),
            auth_server: self.meta.clone(),
            client: self.client.clone(),
            registrations: self.registrations.iter().filter(|r| Self::is_kept(r)).cloned().collect(),
            tokens,
            dpop_key: self.dpop_key.as_ref().map(EsKey::to_secret),
        }
    }

    /// Restores a record written by [`AuthFlow::stored`] for the same server. Endpoints are
    /// re-checked; tokens and a client that do not belong to the stored authorization server
    /// are refused. An expired access token is kept (its refresh token is still useful).
    pub fn with_stored(
        mut self,
        stored: StoredAuth,
        now: Instant,
        unix_now: u64,
    ) -> Result<Self, OAuthError> {
        let bad = |why: &str| OAuthError::InvalidStored(why.to_owned());
        if stored.version != STORED_VERSION {
            return Err(bad("unknown version"));
        }
        if stored.server != self.default_resource {
            return Err(bad("record is for another server"));
        }
        if let Some(meta) = &stored.auth_server {
            let endpoints = [
                Some(&meta.token_endpoint),
                meta.authorization_endpoint.as_ref(),
                meta.registration_endpoint.as_ref(),
            ];
            for e in endpoints.into_iter().flatten() {
                check_endpoint(e, self.destination())?;
            }
        }
        let issuer = stored.auth_server.as_ref().map(|m| m.issuer.as_str());
        if stored.client.as_ref().is_some_and(|c| Some(c.issuer.as_str()) != issuer) {
            return Err(bad("client belongs to another authorization server"));
        }
        if let Some(t) = &stored.tokens {
            if Some(t.issuer.as_str()) != issuer || stored.client.is_none() {
                return Err(bad("tokens without their authorization server and client"));
            }
        }
        let dpop_key = match &stored.dpop_key {
            Some(k) => Some(EsKey::from_secret(k).ok_or_else(|| bad("invalid DPoP key"))?),
            None => None,
        };
        if stored.tokens.as_ref().is_some_and(|t| t.token_type == TokenType::Dpop) && dpop_key.is_none() {
            return Err(bad("DPoP-bound tokens without their key"));
        }
        self.dpop_key = dpop_key;
        self.tokens = stored.tokens.map(|t| Tokens {
            expires_at: t
                .expires_at_unix
                .map(|exp| now + Duration::from_secs(exp.saturating_sub(unix_now)).min(MAX_EXPIRES_IN)),
            access_token: t.access_token,
            token_type: t.token_type,
            refresh_token: t.refresh_token,
            scopes: t.scopes,
            issuer: t.issuer,
            resource: t.resource,
        });
        self.requested_scopes = self.tokens.as_ref().map(|t| t.scopes.clone()).unwrap_or_default();
        self.prm = stored.resource_metadata;
        self.meta = stored.auth_server;
        self.client = stored.client;
        self.registrations = stored
            .registrations
            .into_iter()
            .filter(Self::is_kept)
            .take(crate::oauth::flow_steps::MAX_REGISTRATIONS)
            .collect();
        Ok(self)
    }
}
