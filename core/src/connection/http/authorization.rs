//! The `Authorization` header the host set on the connection, replacing a configured one.

/// The header [`crate::connection::Connection::set_authorization`] sets.
pub(super) const AUTHORIZATION: &str = "Authorization";

/// Which `Authorization` header requests go out with.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) enum AuthorizationHeader {
    /// The host set none: the configured headers decide.
    #[default]
    Configured,
    /// The host set this value, replacing any configured one.
    Set(String),
    /// The host removed it: none goes out, even if one is configured.
    Removed,
}

impl AuthorizationHeader {
    /// What the host asked for: a value, or `None` to send none.
    pub(super) fn from_host(value: Option<String>) -> Self {
        match value {
            Some(value) => Self::Set(value),
            None => Self::Removed,
        }
    }

    /// The values requests go out with, given the configured headers.
    pub(super) fn values<'a>(&'a self, configured: &'a [(String, String)]) -> Vec<&'a str> {
        match self {
            Self::Configured => configured
                .iter()
                .filter(|(name, _)| name.eq_ignore_ascii_case(AUTHORIZATION))
                .map(|(_, value)| value.as_str())
                .collect(),
            Self::Set(value) => vec![value.as_str()],
            Self::Removed => Vec::new(),
        }
    }

    /// Applies the host's choice to headers built from the configured ones.
    pub(super) fn apply(&self, headers: &mut Vec<(String, String)>) {
        let value = match self {
            Self::Configured => return,
            Self::Set(value) => Some(value),
            Self::Removed => None,
        };
        headers.retain(|(name, _)| !name.eq_ignore_ascii_case(AUTHORIZATION));
        headers.extend(value.map(|v| (AUTHORIZATION.to_owned(), v.clone())));
    }
}
