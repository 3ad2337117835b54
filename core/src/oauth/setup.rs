//! [`OAuthSetup`]: what an OAuth connection ([`crate::oauth::HttpAuth::OAuth`]) starts from.

use std::fmt;
use std::time::Duration;

use crate::oauth::config::AuthConfig;
use crate::oauth::store::StoredAuth;

/// What an OAuth connection starts from.
#[derive(Clone, PartialEq, Eq)]
pub struct OAuthSetup {
    /// The host's decisions (grant, redirect URI, client identity, limits).
    pub config: AuthConfig,
    /// At least [`crate::oauth::MIN_ENTROPY_BYTES`] bytes from the host's OS random generator
    /// (PKCE verifiers, `state`, JWT ids, DPoP keys are derived from them). Never printed.
    pub entropy: Vec<u8>,
    /// A record saved earlier ([`crate::Event::AuthorizationSaved`]), to start from.
    pub stored: Option<StoredAuth>,
    /// The host's wall clock, in Unix seconds, at the `now` given to
    /// [`crate::Connection::new`] (token expiry in stored records, JWT and DPoP times).
    pub unix_now: u64,
    /// How long the browser step may take before the authorization fails. Default 5 minutes.
    pub authorization_timeout: Duration,
}

impl OAuthSetup {
    /// A setup with no stored record and the default browser timeout.
    pub fn new(config: AuthConfig, entropy: Vec<u8>, unix_now: u64) -> Self {
        Self { config, entropy, stored: None, unix_now, authorization_timeout: Duration::from_secs(300) }
    }
}

impl fmt::Debug for OAuthSetup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OAuthSetup")
            .field("config", &self.config)
            .field("entropy", &format_args!("<{} bytes>", self.entropy.len()))
            .field("stored", &self.stored.as_ref().map(|s| &s.server))
            .field("unix_now", &self.unix_now)
            .field("authorization_timeout", &self.authorization_timeout)
            .finish()
    }
}
