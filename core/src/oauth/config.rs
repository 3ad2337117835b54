//! [`AuthConfig`]: what the host decides about authorization (grant, redirect URI, client
//! identity, DPoP, limits).

use std::time::Duration;

use crate::http_url::HttpUrl;
use crate::oauth::error::OAuthError;
use crate::oauth::jwt::EsKey;
use crate::oauth::registration::TokenAuthMethod;
use crate::oauth::secret::Secret;
use crate::oauth::url::{check_redirect_uri, clip};

/// Which OAuth grant obtains the tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GrantType {
    /// Authorization code with PKCE: a user signs in through a browser.
    AuthorizationCode,
    /// Client credentials (SEP-1046): the client acts on its own behalf with a pre-registered
    /// client id and a secret or a private key (`private_key_jwt`); no browser.
    ClientCredentials,
    /// The JWT bearer grant (RFC 7523 §2.1) with an assertion the host obtained, such as a
    /// workload identity token (SEP-1933): [`AuthConfig::assertion`]. A refused assertion is
    /// not sent again until [`crate::oauth::AuthFlow::set_assertion`] supplies a new one.
    JwtBearer,
    /// Enterprise-managed authorization (SEP-990, cross-app access): the IdP's ID token is
    /// exchanged at the IdP for an ID-JAG (RFC 8693), which the JWT bearer grant presents at
    /// the MCP server's authorization server: [`AuthConfig::identity_provider`].
    EnterpriseManaged,
}

/// Whether token requests carry DPoP proofs (RFC 9449), binding the tokens to a key the flow
/// derives from its entropy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DpopPolicy {
    /// When the authorization server lists `ES256` in `dpop_signing_alg_values_supported`.
    #[default]
    Auto,
    /// On every token request to the MCP server's authorization server (a server that ignores
    /// DPoP answers with a Bearer token, which is accepted).
    Always,
    /// Never: Bearer tokens only.
    Never,
}

/// The enterprise identity provider of [`GrantType::EnterpriseManaged`] (SEP-990).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct IdentityProvider {
    /// The IdP's issuer; its token endpoint must be on the same origin.
    pub issuer: String,
    /// The IdP's token endpoint, where the ID token is exchanged for an ID-JAG.
    pub token_endpoint: String,
    /// The client id at the IdP.
    pub client_id: String,
    /// The client secret at the IdP, if it is a confidential client (sent in the form body).
    pub client_secret: Option<Secret>,
    /// The user's ID token from signing in at the IdP (the exchange's `subject_token`).
    pub id_token: Secret,
}

impl IdentityProvider {
    /// The client secret at the IdP, if it is a confidential client (sent in the form body).
    pub fn client_secret(mut self, client_secret: Secret) -> Self {
        self.client_secret = Some(client_secret);
        self
    }

    /// An IdP with a public client.
    pub fn new(issuer: &str, token_endpoint: &str, client_id: &str, id_token: &str) -> Self {
        Self {
            issuer: issuer.to_owned(),
            token_endpoint: token_endpoint.to_owned(),
            client_id: client_id.to_owned(),
            client_secret: None,
            id_token: Secret::new(id_token),
        }
    }

    fn validate(&self) -> Result<(), OAuthError> {
        let bad = |why: &str| OAuthError::InvalidConfig(format!("identity provider: {why}"));
        let issuer = HttpUrl::parse(&self.issuer).map_err(|_| bad("issuer is not an http(s) URL"))?;
        let endpoint =
            HttpUrl::parse(&self.token_endpoint).map_err(|_| bad("token endpoint is not an http(s) URL"))?;
        if issuer.origin() != endpoint.origin() {
            return Err(bad("token endpoint is not on the issuer's origin"));
        }
        if self.client_id.is_empty() || self.id_token.expose().is_empty() {
            return Err(bad("empty client id or ID token"));
        }
        Ok(())
    }
}

/// Client credentials obtained out of band (a developer portal, a configuration file), valid
/// at one authorization server: they are only sent to the issuer they name.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PreRegisteredClient {
    /// The issuer the credentials belong to. `None` is only accepted for a Client ID Metadata
    /// Document URL as the client id (it answers for every server); any other client without
    /// an issuer fails with [`OAuthError::PreRegisteredWithoutIssuer`].
    pub issuer: Option<String>,
    /// The client id.
    pub client_id: String,
    /// The client secret (confidential clients).
    pub client_secret: Option<Secret>,
    /// A PEM private key (PKCS#8 or SEC1, P-256) for `private_key_jwt` authentication
    /// (RFC 7523 §2.2, ES256).
    pub private_key: Option<Secret>,
    /// How to authenticate at the token endpoint; `None` picks from the server's methods
    /// (`private_key_jwt` when a key is set and the server lists it or no secret is set).
    pub auth_method: Option<TokenAuthMethod>,
}

impl PreRegisteredClient {
    /// How to authenticate at the token endpoint; `None` picks from the server's methods (`private_key_jwt` when a key is set and the server lists it or no secret is set).
    pub fn auth_method(mut self, auth_method: TokenAuthMethod) -> Self {
        self.auth_method = Some(auth_method);
        self
    }

    /// A client id (and secret) for one issuer.
    pub fn for_issuer(issuer: &str, client_id: &str, client_secret: Option<&str>) -> Self {
        Self {
            issuer: Some(issuer.to_owned()),
            client_id: client_id.to_owned(),
            client_secret: client_secret.map(Secret::new),
            private_key: None,
            auth_method: None,
        }
    }

    /// Authenticates with `private_key_jwt`: assertions signed (ES256) with this PEM key.
    pub fn with_private_key(mut self, pem: &str) -> Self {
        self.private_key = Some(Secret::new(pem));
        self.auth_method = Some(TokenAuthMethod::PrivateKeyJwt);
        self
    }

    /// A Client ID Metadata Document URL (`https` with a path) as the client id, offered to
    /// whichever authorization server the server names: the document answers for every one.
    pub fn metadata_document(client_id_url: &str) -> Self {
        Self { issuer: None, ..Self::for_issuer("", client_id_url, None) }
    }

    /// Whether the client id is a Client ID Metadata Document URL.
    pub fn is_metadata_document(&self) -> bool {
        is_client_metadata_url(&self.client_id)
    }
}

/// Whether `url` can be a Client ID Metadata Document URL: `https` with a path, at most 2048
/// bytes.
pub(crate) fn is_client_metadata_url(url: &str) -> bool {
    HttpUrl::parse(url).is_ok_and(|u| u.is_https() && u.request_target().len() > 1 && url.len() <= 2048)
}

/// Host decisions for an [`crate::oauth::AuthFlow`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
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
    /// DPoP-bound tokens (RFC 9449).
    pub dpop: DpopPolicy,
    /// The assertion of [`GrantType::JwtBearer`] (a workload identity JWT).
    pub assertion: Option<Secret>,
    /// The identity provider of [`GrantType::EnterpriseManaged`].
    pub identity_provider: Option<IdentityProvider>,
    /// For development on private networks: let the flow contact private, link-local and
    /// (for a remote MCP server) loopback addresses, whether written in a URL or resolved
    /// from a name. Off by default: such fetches are refused ([`OAuthError::UnsafeUrl`],
    /// [`OAuthError::UnsafeAddress`]).
    pub allow_private_addresses: bool,
}

impl AuthConfig {
    /// The grant.
    pub fn grant(mut self, grant: GrantType) -> Self {
        self.grant = grant;
        self
    }

    /// Where the authorization server sends the browser back: `https`, or `http` on loopback (the host listens there and passes the query to `on_callback`).
    pub fn redirect_uri(mut self, redirect_uri: String) -> Self {
        self.redirect_uri = redirect_uri;
        self
    }

    /// `client_name` for registration.
    pub fn client_name(mut self, client_name: String) -> Self {
        self.client_name = client_name;
        self
    }

    /// A Client ID Metadata Document URL (`https` with a path) used as the client id when the authorization server advertises `client_id_metadata_document_supported`.
    pub fn client_metadata_url(mut self, client_metadata_url: String) -> Self {
        self.client_metadata_url = Some(client_metadata_url);
        self
    }

    /// Pre-registered clients; issuer-specific entries win over `issuer: None`.
    pub fn pre_registered(mut self, pre_registered: Vec<PreRegisteredClient>) -> Self {
        self.pre_registered = pre_registered;
        self
    }

    /// Add `offline_access` to the requested scopes when the authorization server lists it.
    pub fn request_offline_access(mut self, yes: bool) -> Self {
        self.request_offline_access = yes;
        self
    }

    /// How many `insufficient_scope` step-ups may follow each other before giving up.
    pub fn max_step_ups(mut self, max_step_ups: u32) -> Self {
        self.max_step_ups = max_step_ups;
        self
    }

    /// The connect timeout put on every HTTP request the flow emits.
    pub fn connect_timeout(mut self, connect_timeout: Duration) -> Self {
        self.connect_timeout = connect_timeout;
        self
    }

    /// A token this close to its expiry counts as expired ([`crate::oauth::AuthFlow::needs_refresh`]).
    pub fn refresh_margin(mut self, refresh_margin: Duration) -> Self {
        self.refresh_margin = refresh_margin;
        self
    }

    /// DPoP-bound tokens (RFC 9449).
    pub fn dpop(mut self, dpop: DpopPolicy) -> Self {
        self.dpop = dpop;
        self
    }

    /// The assertion of [`GrantType::JwtBearer`] (a workload identity JWT).
    pub fn assertion(mut self, assertion: Secret) -> Self {
        self.assertion = Some(assertion);
        self
    }

    /// The identity provider of [`GrantType::EnterpriseManaged`].
    pub fn identity_provider(mut self, identity_provider: IdentityProvider) -> Self {
        self.identity_provider = Some(identity_provider);
        self
    }

    /// For development on private networks: let the flow contact private, link-local and (for a remote MCP server) loopback addresses, whether written in a URL or resolved from a name.
    pub fn allow_private_addresses(mut self, yes: bool) -> Self {
        self.allow_private_addresses = yes;
        self
    }

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
            dpop: DpopPolicy::Auto,
            assertion: None,
            identity_provider: None,
            allow_private_addresses: false,
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

    /// The JWT bearer grant (workload identity, SEP-1933) with this client (its id, and a
    /// secret or key when the authorization server wants client authentication) and the
    /// host's assertion.
    pub fn jwt_bearer(client: PreRegisteredClient, assertion: &str) -> Self {
        Self {
            grant: GrantType::JwtBearer,
            assertion: Some(Secret::new(assertion)),
            ..Self::client_credentials(client)
        }
    }

    /// Enterprise-managed authorization (SEP-990): `client` at the MCP server's authorization
    /// server, and the identity provider that issues the ID-JAG.
    pub fn enterprise_managed(client: PreRegisteredClient, identity_provider: IdentityProvider) -> Self {
        Self {
            grant: GrantType::EnterpriseManaged,
            identity_provider: Some(identity_provider),
            ..Self::client_credentials(client)
        }
    }

    /// Checks the configuration.
    pub(crate) fn validate(&self) -> Result<(), OAuthError> {
        let config = |why: &str| Err(OAuthError::InvalidConfig(why.into()));
        match self.grant {
            GrantType::AuthorizationCode => {
                check_redirect_uri(&self.redirect_uri)?;
            }
            GrantType::ClientCredentials => {
                if !self.pre_registered.iter().any(|c| c.client_secret.is_some() || c.private_key.is_some()) {
                    return config(
                        "client credentials need a pre-registered client with a secret or a private key",
                    );
                }
            }
            GrantType::JwtBearer => {
                if self.pre_registered.is_empty() {
                    return config("the JWT bearer grant needs a pre-registered client id");
                }
                if self.assertion.as_ref().is_none_or(|a| a.expose().is_empty()) {
                    return config("the JWT bearer grant needs an assertion");
                }
            }
            GrantType::EnterpriseManaged => {
                if self.pre_registered.is_empty() {
                    return config("enterprise-managed authorization needs a pre-registered client");
                }
                match &self.identity_provider {
                    Some(idp) => idp.validate()?,
                    None => return config("enterprise-managed authorization needs an identity provider"),
                }
            }
        }
        for c in &self.pre_registered {
            if c.issuer.as_deref().is_none_or(str::is_empty) && !c.is_metadata_document() {
                return Err(OAuthError::PreRegisteredWithoutIssuer { client_id: clip(&c.client_id, 200) });
            }
            match &c.private_key {
                Some(pem) => {
                    EsKey::from_pem(pem.expose())?;
                }
                None if c.auth_method == Some(TokenAuthMethod::PrivateKeyJwt) => {
                    return config("private_key_jwt needs a private key");
                }
                None => {}
            }
        }
        if let Some(url) = &self.client_metadata_url {
            if !is_client_metadata_url(url) {
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
        let cc =
            AuthConfig::client_credentials(PreRegisteredClient::for_issuer("https://as.example", "id", None));
        assert!(cc.validate().is_err(), "a secret or key is required");
        let mut bad_key =
            PreRegisteredClient::for_issuer("https://as.example", "id", None).with_private_key("not a key");
        assert!(AuthConfig::client_credentials(bad_key.clone()).validate().is_err());
        bad_key.private_key = None;
        assert!(AuthConfig::client_credentials(bad_key).validate().is_err(), "private_key_jwt needs a key");
        let wif =
            AuthConfig::jwt_bearer(PreRegisteredClient::for_issuer("https://as.example", "w", None), "");
        assert!(wif.validate().is_err(), "an assertion is required");
        assert!(AuthConfig::jwt_bearer(
            PreRegisteredClient::for_issuer("https://as.example", "w", None),
            "a.b.c"
        )
        .validate()
        .is_ok());
        let idp = IdentityProvider::new("https://idp.example", "https://idp.example/token", "c", "id.tok.en");
        let ema = AuthConfig::enterprise_managed(
            PreRegisteredClient::for_issuer("https://as.example", "x", Some("s")),
            idp.clone(),
        );
        assert!(ema.validate().is_ok());
        let elsewhere = IdentityProvider { token_endpoint: "https://evil.example/token".into(), ..idp };
        let ema = AuthConfig::enterprise_managed(
            PreRegisteredClient::for_issuer("https://as.example", "x", Some("s")),
            elsewhere,
        );
        assert!(ema.validate().is_err(), "the ID token goes only to the IdP's origin");
        let cc = AuthConfig::client_credentials(PreRegisteredClient::for_issuer(
            "https://as.example",
            "id",
            Some("s"),
        ));
        assert!(cc.validate().is_ok());
        let unbound =
            PreRegisteredClient { issuer: None, ..PreRegisteredClient::for_issuer("", "id", Some("s")) };
        assert!(matches!(
            AuthConfig::client_credentials(unbound).validate(),
            Err(OAuthError::PreRegisteredWithoutIssuer { .. })
        ));
        let cimd = PreRegisteredClient::metadata_document("https://app.example/client.json");
        assert!(cimd.is_metadata_document());
        assert!(
            AuthConfig::jwt_bearer(cimd, "a.b.c").validate().is_ok(),
            "a metadata document needs no issuer"
        );
        assert!(!format!("{cc:?}").contains("\"s\""), "secrets are redacted: {cc:?}");
    }
}
