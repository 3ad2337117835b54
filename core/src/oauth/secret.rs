//! [`Secret`]: a credential that never prints.

use std::fmt;

/// A credential (access or refresh token, client secret, PKCE verifier, authorization code).
/// `Debug` and `Display` print `***`; [`Secret::expose`] gives the value to the code that must
/// send it. It serialises as the plain string so a host can store it (in a keychain, an
/// encrypted file): storing it safely is the host's job.
#[derive(Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct Secret(pub(crate) String);

impl Secret {
    /// Wraps a value.
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The value itself, for the request that carries it. Never log it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

/// Longest access or refresh token accepted, in bytes (from a token endpoint, or from the
/// host's token provider).
pub const MAX_TOKEN_LEN: usize = 16 * 1024;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_never_prints() {
        let s = Secret::new("tok-123");
        assert_eq!(format!("{s:?}"), "Secret(***)");
        assert_eq!(s.to_string(), "***");
        assert_eq!(s.expose(), "tok-123");
        assert_eq!(serde_json::to_string(&s).unwrap(), "\"tok-123\"");
    }
}
