//! [`AuthConfig`]: what the host decides about authorization (grant, redirect URI, client
//! identity, limits).

use std::time::Duration;

use crate::oauth::registration::TokenAuthMethod;
use crate::oauth::url::{check_redirect_uri, clip};
use crate::oauth::{OAuthError, Secret};

/// Which OAuth grant obtains the tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GrantType {
    /// Authorization code with PKCE: a user signs in through a browser.
    AuthorizationCode,
    /// Client credentials (SEP-1046): the client acts on its own behalf with a pre-registered
    /// client id and secret; no browser.
    ClientCredentials,
}

/// Client credentials obtained out of band (a developer portal, a configuration file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreRegisteredClient {
    /// The issuer the credentials belong to; `None` offers them to any authorization server
    /// (only when no issuer-specific entry matches).
    pub issuer: Option<String>,
    /// The client id.
    pub client_id: String,
    /// The client secret (confidential clients).
    pub client_secret: Option<Secret>,
    /// How to authenticate at the token endpoint; `None` picks from the server's methods.
    pub auth_method: Option<TokenAuthMethod>,
}

impl PreRegisteredClient {
    /// A client id (and secret) for one issuer.
    pub fn for_issuer(issuer: &str, client_id: &str, client_secret: Option<&str>) -> Self {
        Self {
            issuer: Some(issuer.to_owned()),
            client_id: client_id.to_owned(),
            client_secret: client_secret.map(Secret::new),
            auth_method: None,
        }
    }

    /// A client id (and secret) offered to whichever authorization server the server names.
    pub fn any_issuer(client_id: &str, client_secret: Option<&str>) -> Self {
        Self { issuer: None, ..Self::for_issuer("", client_id, client_secret) }
    }
}

/// Host decisions for an [`crate::oauth::AuthFlow`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthConfig {
    /// The grant.
    pub grant: GrantType,
    /// Where the authorization server sends the browser back: `https`, or `http` on loopback
    /// (the host listens there and passes the query to `on_callback`).
    pub redirect_uri: String,
    /// `client_name` for registration.
    pub client_name: String,
    /// A Client ID Metadata Document URL (`https` with a path) used as the client id when the
    /// authorization server advertises `client_id_metadata_document_supported`.
    pub client_metadata_url: Option<String>,
    /// Pre-registered clients; issuer-specific entries win over `issuer: None`.
    pub pre_registered: Vec<PreRegisteredClient>,
    /// Add `offline_access` to the requested scopes when the authorization server lists it.
    pub request_offline_access: bool,
    /// How many `insufficient_scope` step-ups may follow each other before giving up.
    pub max_step_ups: u32,
    /// The connect timeout put on every HTTP request the flow emits.
    pub connect_timeout: Duration,
    /// A token this close to its expiry counts as expired ([`crate::oauth::AuthFlow::needs_refresh`]).
    pub refresh_margin: Duration,
}

impl AuthConfig {
    /// The authorization code grant with this redirect URI, and defaults: client name
    /// `mcp-client`, `offline_access` requested when offered, 2 step-ups, 10 s connect timeout,
    /// 30 s refresh margin.
    pub fn authorization_code(redirect_uri: &str) -> Self {
        Self {
            grant: GrantType::AuthorizationCode,
            redirect_uri: redirect_uri.to_owned(),
            client_name: "mcp-client".to_owned(),
            client_metadata_url: None,
            pre_registered: Vec::new(),
            request_offline_access: true,
            max_step_ups: 2,
            connect_timeout: Duration::from_secs(10),
            refresh_margin: Duration::from_secs(30),
        }
    }

    /// The client credentials grant with this client.
    pub fn client_credentials(client: PreRegisteredClient) -> Self {
        Self {
            grant: GrantType::ClientCredentials,
            redirect_uri: String::new(),
            pre_registered: vec![client],
            request_offline_access: false,
            ..Self::authorization_code("")
        }
    }

    /// Checks the configuration.
    pub(crate) fn validate(&self) -> Result<(), OAuthError> {
        if self.grant == GrantType::AuthorizationCode {
            check_redirect_uri(&self.redirect_uri)?;
        } else if !self.pre_registered.iter().any(|c| c.client_secret.is_some()) {
            return Err(OAuthError::InvalidConfig(
                "client credentials need a pre-registered client with a secret \
                 (private_key_jwt is not supported)"
                    .into(),
            ));
        }
        if let Some(url) = &self.client_metadata_url {
            let ok = crate::http_url::HttpUrl::parse(url)
                .is_ok_and(|u| u.is_https() && u.request_target().len() > 1 && url.len() <= 2048);
            if !ok {
                return Err(OAuthError::InvalidConfig(format!(
                    "client metadata URL {} must be https with a path",
                    clip(url, 200)
                )));
            }
        }
        if self.client_name.len() > 256 || self.pre_registered.iter().any(|c| c.client_id.is_empty()) {
            return Err(OAuthError::InvalidConfig("client name too long or empty client id".into()));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validation() {
        assert!(AuthConfig::authorization_code("http://127.0.0.1:9/cb").validate().is_ok());
        assert!(AuthConfig::authorization_code("http://example.com/cb").validate().is_err());
        let mut c = AuthConfig::authorization_code("http://localhost:9/cb");
        c.client_metadata_url = Some("https://app.example".into());
        assert!(c.validate().is_err(), "CIMD URL needs a path");
        c.client_metadata_url = Some("https://app.example/client.json".into());
        assert!(c.validate().is_ok());
        let cc = AuthConfig::client_credentials(PreRegisteredClient::any_issuer("id", None));
        assert!(cc.validate().is_err(), "a secret is required");
        let cc = AuthConfig::client_credentials(PreRegisteredClient::any_issuer("id", Some("s")));
        assert!(cc.validate().is_ok());
        assert!(!format!("{cc:?}").contains("\"s\""), "secrets are redacted: {cc:?}");
    }
}
