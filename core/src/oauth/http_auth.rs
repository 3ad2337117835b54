//! [`HttpAuth`]: how an HTTP connection obtains the credentials a protected server asks for,
//! as the host configures it ([`crate::HttpConfig::auth`]). The OAuth flow needs the `oauth`
//! feature; the host's token provider only `http`.

use std::fmt;

#[cfg(feature = "oauth")]
use crate::oauth::setup::OAuthSetup;

/// How an HTTP connection answers a `401`/`403` challenge.
#[derive(Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum HttpAuth {
    /// It does not: the request fails with [`crate::RequestError::Unauthorized`].
    #[default]
    None,
    /// OAuth 2.1 through an [`crate::oauth::AuthFlow`] the connection drives: discovery,
    /// registration, the browser step (a [`crate::ServerRequestKind::Authorization`] host
    /// request), tokens, refresh and step-up; the refused request goes out again once
    /// authorized.
    #[cfg(feature = "oauth")]
    OAuth(Box<OAuthSetup>),
    /// The host has its own tokens: on a challenge the connection asks for one
    /// ([`crate::ServerRequestKind::AccessToken`]) and sends the request again with it, once
    /// per challenge.
    TokenProvider,
}

impl fmt::Debug for HttpAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HttpAuth::None => f.write_str("None"),
            #[cfg(feature = "oauth")]
            HttpAuth::OAuth(setup) => f.debug_tuple("OAuth").field(setup).finish(),
            HttpAuth::TokenProvider => f.write_str("TokenProvider"),
        }
    }
}
