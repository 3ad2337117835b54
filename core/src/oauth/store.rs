//! [`StoredAuth`]: what a host persists between runs so a later run skips discovery,
//! registration and (while the tokens last) authorization.
//!
//! `Instant`s do not survive a restart, so expiries are stored as Unix seconds: the host passes
//! its wall-clock time in (`unix_now`) next to the monotonic `now`; the core reads neither clock.
//!
//! The record keeps the grant in use and, in [`StoredAuth::set_aside`], the grants of
//! authorization servers the MCP server named before, one per issuer. Records written before
//! that field existed (same [`STORED_VERSION`]) load as having none set aside.

use std::time::{Duration, Instant};

use crate::oauth::credentials::{Credentials, MAX_REGISTRATIONS};
use crate::oauth::discovered::Discovered;
use crate::oauth::error::OAuthError;
use crate::oauth::flow::AuthFlow;
use crate::oauth::jwt::EsKey;
use crate::oauth::metadata::{AuthServerMetadata, ResourceMetadata};
use crate::oauth::registration::ClientRegistration;
use crate::oauth::secret::Secret;
use crate::oauth::set_aside::{SetAside, MAX_SET_ASIDE};
use crate::oauth::token::{TokenType, Tokens, MAX_EXPIRES_IN};
use crate::oauth::url::check_endpoint;

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

/// A grant set aside: the tokens of an authorization server the MCP server no longer names,
/// with the client that obtained them, kept to be resumed if it names that server again.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct StoredGrant {
    /// The client the tokens were issued to (its issuer is the tokens' issuer).
    pub client: ClientRegistration,
    /// The tokens.
    pub tokens: StoredTokens,
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
    /// Grants set aside, one per authorization server other than the one in use, the oldest
    /// first (at most [`MAX_SET_ASIDE`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub set_aside: Vec<StoredGrant>,
    /// The DPoP private key (base64url scalar), which DPoP-bound tokens need.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dpop_key: Option<Secret>,
}

impl AuthFlow {
    /// A record of the current state to persist; `unix_now` is the host's wall-clock time in
    /// Unix seconds at the same moment as `now`.
    pub fn stored(&self, now: Instant, unix_now: u64) -> StoredAuth {
        let store = |t: &Tokens| StoredTokens::from_tokens(t, now, unix_now);
        StoredAuth {
            version: STORED_VERSION,
            server: self.default_resource().to_owned(),
            resource_metadata: self.discovered().prm().cloned(),
            auth_server: self.discovered().meta().cloned(),
            client: self.credentials().client().cloned(),
            registrations: self.registrations().iter().filter(|r| Self::is_kept(r)).cloned().collect(),
            tokens: self.credentials().tokens().map(store),
            set_aside: self
                .credentials()
                .set_aside()
                .iter()
                .map(|g| StoredGrant { client: g.client.clone(), tokens: store(&g.tokens) })
                .collect(),
            dpop_key: self.dpop().key().map(EsKey::to_secret),
        }
    }

    /// Restores a record written by [`AuthFlow::stored`] for the same server. Endpoints are
    /// re-checked; tokens and a client that do not belong to the stored authorization server,
    /// tokens obtained for another resource, set-aside tokens without their own client and two
    /// grants for one issuer are refused ([`OAuthError::InvalidStored`]). An expired access
    /// token is kept (its refresh token is still useful).
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
        if stored.server != self.default_resource() {
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
            let resource = stored.resource_metadata.as_ref().map_or(&stored.server, |p| &p.resource);
            if t.resource != *resource {
                return Err(bad("tokens obtained for another resource"));
            }
        }
        let dpop_key = match &stored.dpop_key {
            Some(k) => Some(EsKey::from_secret(k).ok_or_else(|| bad("invalid DPoP key"))?),
            None => None,
        };
        let dpop_tokens = stored.tokens.iter().chain(stored.set_aside.iter().map(|g| &g.tokens));
        if dpop_tokens.into_iter().any(|t| t.token_type == TokenType::Dpop) && dpop_key.is_none() {
            return Err(bad("DPoP-bound tokens without their key"));
        }
        let mut set_aside: Vec<SetAside> = Vec::new();
        for grant in stored.set_aside.into_iter().take(MAX_SET_ASIDE) {
            let issuer = grant.tokens.issuer.as_str();
            if grant.client.issuer != issuer {
                return Err(bad("set-aside tokens without their client"));
            }
            let twice = set_aside.iter().any(|g| g.tokens.issuer == issuer);
            if twice || stored.tokens.as_ref().is_some_and(|t| t.issuer == issuer) {
                return Err(bad("two grants for one authorization server"));
            }
            let tokens = grant.tokens.into_tokens(now, unix_now);
            set_aside.push(SetAside { client: grant.client, tokens });
        }
        self.dpop_mut().restore_key(dpop_key);
        let tokens = stored.tokens.map(|t| t.into_tokens(now, unix_now));
        self.scopes_mut().set_requested(tokens.as_ref().map(|t| t.scopes.clone()).unwrap_or_default());
        let registrations =
            stored.registrations.into_iter().filter(Self::is_kept).take(MAX_REGISTRATIONS).collect();
        *self.credentials_mut() = Credentials::restored(stored.client, tokens, registrations, set_aside);
        *self.discovered_mut() = Discovered::restored(stored.resource_metadata, stored.auth_server);
        Ok(self)
    }
}

impl StoredTokens {
    /// `tokens` as stored, their expiry turned into Unix seconds (`unix_now` is the wall
    /// clock at `now`).
    fn from_tokens(t: &Tokens, now: Instant, unix_now: u64) -> Self {
        Self {
            access_token: t.access_token.clone(),
            token_type: t.token_type,
            expires_at_unix: t
                .expires_at
                .map(|at| unix_now.saturating_add(at.saturating_duration_since(now).as_secs())),
            refresh_token: t.refresh_token.clone(),
            scopes: t.scopes.clone(),
            issuer: t.issuer.clone(),
            resource: t.resource.clone(),
        }
    }

    /// The tokens back, their expiry an `Instant` again (capped at [`MAX_EXPIRES_IN`]).
    fn into_tokens(self, now: Instant, unix_now: u64) -> Tokens {
        Tokens {
            expires_at: self
                .expires_at_unix
                .map(|exp| now + Duration::from_secs(exp.saturating_sub(unix_now)).min(MAX_EXPIRES_IN)),
            access_token: self.access_token,
            token_type: self.token_type,
            refresh_token: self.refresh_token,
            scopes: self.scopes,
            issuer: self.issuer,
            resource: self.resource,
        }
    }
}
