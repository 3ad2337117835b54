//! [`OAuthOptions`]: how a server spec asks for OAuth (`ServerSpec::oauth`), built from the
//! core's [`AuthConfig`] with helpers for the common cases.

use std::time::Duration;

use mcpwire_core::oauth::{AuthConfig, OAuthSetup, PreRegisteredClient};

use super::loopback::{DEFAULT_AUTHORIZATION_TIMEOUT, DEFAULT_CALLBACK_PATH};

/// OAuth for one HTTP server: the grant, the redirect URI, the client identity and limits
/// ([`AuthConfig`]), and how long the browser step may take. Give it to
/// [`ServerSpec::oauth`](mcpwire_core::ServerSpec::oauth); the client fills in the OS entropy,
/// the wall clock and the stored record (`ClientBuilder::token_store`) when it is built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OAuthOptions {
    config: AuthConfig,
    authorization_timeout: Duration,
}

impl OAuthOptions {
    /// From a full [`AuthConfig`].
    pub fn new(config: AuthConfig) -> Self {
        Self { config, authorization_timeout: DEFAULT_AUTHORIZATION_TIMEOUT }
    }

    /// The authorization code grant with a browser sign-in coming back to
    /// `http://127.0.0.1:<port>/callback` (pair it with `ClientBuilder::browser_authorization`,
    /// which listens there). Port `0` picks a free port now; a fixed port keeps the redirect
    /// URI of a stored client registration valid across runs.
    pub fn browser(port: u16) -> Self {
        let port = if port == 0 { free_loopback_port().unwrap_or(0) } else { port };
        Self::authorization_code(&format!("http://127.0.0.1:{port}{DEFAULT_CALLBACK_PATH}"))
    }

    /// The authorization code grant coming back to `redirect_uri` (`https`, or `http` on a
    /// loopback address); the host's authorization handler receives the redirect.
    pub fn authorization_code(redirect_uri: &str) -> Self {
        Self::new(AuthConfig::authorization_code(redirect_uri))
    }

    /// The client credentials grant with a client id and secret registered at the
    /// authorization server `issuer`; no browser. They are only sent there: a server whose
    /// authorization server has another issuer fails with
    /// [`OAuthError::IssuerMismatch`](mcpwire_core::oauth::OAuthError::IssuerMismatch).
    pub fn client_credentials(issuer: &str, client_id: &str, client_secret: &str) -> Self {
        Self::new(AuthConfig::client_credentials(PreRegisteredClient::for_issuer(
            issuer,
            client_id,
            Some(client_secret),
        )))
    }

    /// A Client ID Metadata Document URL (`https` with a path), used as the client id where
    /// the authorization server supports it.
    pub fn client_metadata_url(mut self, url: &str) -> Self {
        self.config.client_metadata_url = Some(url.to_owned());
        self
    }

    /// Adds a pre-registered client (for its issuer; a client without one must have a Client
    /// ID Metadata Document URL as its id).
    pub fn pre_registered(mut self, client: PreRegisteredClient) -> Self {
        self.config.pre_registered.push(client);
        self
    }

    /// The `client_name` sent in dynamic registration (default `mcp-client`).
    pub fn client_name(mut self, name: &str) -> Self {
        self.config.client_name = name.to_owned();
        self
    }

    /// Whether to ask for `offline_access` (a refresh token) when the server offers it.
    pub fn offline_access(mut self, yes: bool) -> Self {
        self.config.request_offline_access = yes;
        self
    }

    /// For development on private networks only: lets the OAuth flow contact private
    /// (`10/8`, `172.16/12`, `192.168/16`, `fc00::/7`, ...), link-local and, for a remote MCP
    /// server, loopback addresses. By default every OAuth-related fetch (discovery, metadata,
    /// registration, token) is refused when its URL names such an address
    /// ([`OAuthError::UnsafeUrl`](mcpwire_core::oauth::OAuthError::UnsafeUrl)) or its host
    /// resolves only to such addresses
    /// ([`OAuthError::UnsafeAddress`](mcpwire_core::oauth::OAuthError::UnsafeAddress)): a
    /// malicious server cannot point the client's fetches into its network. Plain `http` stays
    /// refused off loopback either way.
    pub fn allow_private_addresses(mut self, yes: bool) -> Self {
        self.config.allow_private_addresses = yes;
        self
    }

    /// How many `insufficient_scope` step-ups may follow each other (default 2).
    pub fn max_step_ups(mut self, n: u32) -> Self {
        self.config.max_step_ups = n;
        self
    }

    /// How close to its expiry a token is refreshed (default 30 s).
    pub fn refresh_margin(mut self, margin: Duration) -> Self {
        self.config.refresh_margin = margin;
        self
    }

    /// How long the browser step may take before the authorization fails (default 5 min).
    pub fn authorization_timeout(mut self, timeout: Duration) -> Self {
        self.authorization_timeout = timeout;
        self
    }

    /// The configuration so far.
    pub fn config(&self) -> &AuthConfig {
        &self.config
    }
}

impl From<AuthConfig> for OAuthOptions {
    fn from(config: AuthConfig) -> Self {
        Self::new(config)
    }
}

/// The setup the spec carries; entropy and the wall clock are left empty for the client
/// builder to fill.
impl From<OAuthOptions> for OAuthSetup {
    fn from(options: OAuthOptions) -> Self {
        let mut setup = OAuthSetup::new(options.config, Vec::new(), 0);
        setup.authorization_timeout = options.authorization_timeout;
        setup
    }
}

fn free_loopback_port() -> Option<u16> {
    let listener = std::net::TcpListener::bind(("127.0.0.1", 0)).ok()?;
    listener.local_addr().ok().map(|a| a.port())
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpwire_core::oauth::GrantType;

    #[test]
    fn helpers_shape_the_config() {
        let o = OAuthOptions::browser(8765)
            .client_name("my-app")
            .client_metadata_url("https://app.example/client.json")
            .offline_access(false)
            .max_step_ups(1)
            .authorization_timeout(Duration::from_secs(60));
        assert_eq!(o.config().redirect_uri, "http://127.0.0.1:8765/callback");
        assert_eq!(o.config().grant, GrantType::AuthorizationCode);
        assert_eq!(o.config().client_name, "my-app");
        assert!(!o.config().request_offline_access);
        let setup: OAuthSetup = o.into();
        assert_eq!(setup.authorization_timeout, Duration::from_secs(60));
        assert!(setup.entropy.is_empty() && setup.unix_now == 0 && setup.stored.is_none());

        let any = OAuthOptions::browser(0);
        let port = any.config().redirect_uri.rsplit(':').next().unwrap().trim_end_matches("/callback");
        assert_ne!(port.parse::<u16>().unwrap(), 0, "a free port is picked");

        let cc = OAuthOptions::client_credentials("https://as.example", "id", "secret");
        assert_eq!(cc.config().grant, GrantType::ClientCredentials);
        assert!(!format!("{cc:?}").contains("\"secret\""), "secret redacted: {cc:?}");
    }
}
