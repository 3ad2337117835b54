//! [`OAuthError`]: every refusal of the authorization flow, typed.

/// An error code an authorization or token endpoint returned (RFC 6749 §4.1.2.1 and §5.2,
/// RFC 7591 §3.2.2).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum OAuthErrorCode {
    /// `invalid_request`.
    InvalidRequest,
    /// `invalid_client`.
    InvalidClient,
    /// `invalid_grant` (also an expired or revoked refresh token).
    InvalidGrant,
    /// `unauthorized_client`.
    UnauthorizedClient,
    /// `unsupported_grant_type`.
    UnsupportedGrantType,
    /// `invalid_scope`.
    InvalidScope,
    /// `access_denied` (the user refused).
    AccessDenied,
    /// `unsupported_response_type`.
    UnsupportedResponseType,
    /// `server_error`.
    ServerError,
    /// `temporarily_unavailable`.
    TemporarilyUnavailable,
    /// `invalid_redirect_uri` (registration).
    InvalidRedirectUri,
    /// `invalid_client_metadata` (registration).
    InvalidClientMetadata,
    /// Any other code, as sent (truncated).
    Other(String),
}

impl OAuthErrorCode {
    /// Parses a code as sent by the server.
    pub fn parse(code: &str) -> Self {
        match code {
            "invalid_request" => Self::InvalidRequest,
            "invalid_client" => Self::InvalidClient,
            "invalid_grant" => Self::InvalidGrant,
            "unauthorized_client" => Self::UnauthorizedClient,
            "unsupported_grant_type" => Self::UnsupportedGrantType,
            "invalid_scope" => Self::InvalidScope,
            "access_denied" => Self::AccessDenied,
            "unsupported_response_type" => Self::UnsupportedResponseType,
            "server_error" => Self::ServerError,
            "temporarily_unavailable" => Self::TemporarilyUnavailable,
            "invalid_redirect_uri" => Self::InvalidRedirectUri,
            "invalid_client_metadata" => Self::InvalidClientMetadata,
            other => Self::Other(crate::oauth::url::clip(other, 64)),
        }
    }

    /// The wire form.
    pub fn as_str(&self) -> &str {
        match self {
            Self::InvalidRequest => "invalid_request",
            Self::InvalidClient => "invalid_client",
            Self::InvalidGrant => "invalid_grant",
            Self::UnauthorizedClient => "unauthorized_client",
            Self::UnsupportedGrantType => "unsupported_grant_type",
            Self::InvalidScope => "invalid_scope",
            Self::AccessDenied => "access_denied",
            Self::UnsupportedResponseType => "unsupported_response_type",
            Self::ServerError => "server_error",
            Self::TemporarilyUnavailable => "temporarily_unavailable",
            Self::InvalidRedirectUri => "invalid_redirect_uri",
            Self::InvalidClientMetadata => "invalid_client_metadata",
            Self::Other(s) => s,
        }
    }
}

impl std::fmt::Display for OAuthErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why the authorization flow refused to go on. URLs in it are redacted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OAuthError {
    /// The MCP server URL is not a valid `http(s)` URL.
    #[error("invalid MCP server URL: {0}")]
    InvalidServerUrl(String),
    /// The [`crate::oauth::AuthConfig`] is unusable (an unsafe redirect URI, a CIMD URL that is
    /// not `https` with a path, client credentials without a client, ...).
    #[error("invalid OAuth configuration: {0}")]
    InvalidConfig(String),
    /// Fewer than [`crate::oauth::MIN_ENTROPY_BYTES`] bytes of entropy were supplied.
    #[error("at least {min} bytes of entropy are required")]
    InsufficientEntropy {
        /// The minimum.
        min: usize,
    },
    /// A discovery or endpoint URL is not allowed (not `https`, a private or link-local
    /// address, loopback while the MCP server is not).
    #[error("refusing OAuth URL {url}: {reason}")]
    UnsafeUrl {
        /// The URL, redacted.
        url: String,
        /// Why.
        reason: String,
    },
    /// A discovery or endpoint URL's host resolved only to addresses the flow may not contact
    /// (private, link-local, unspecified, or loopback while the MCP server is not), judged by
    /// the runtime on the addresses it would connect to.
    #[error("refusing OAuth URL {url}: it resolves to {address}, a {class} address")]
    UnsafeAddress {
        /// The URL, redacted.
        url: String,
        /// The (first) refused address.
        address: core::net::IpAddr,
        /// Its class.
        class: crate::address_class::AddressClass,
    },
    /// No Protected Resource Metadata document was found (the hinted URL failed).
    #[error("protected resource metadata not available at {url} ({})", fmt_status(*.status))]
    ResourceMetadataUnavailable {
        /// The URL tried.
        url: String,
        /// The status (0 when the exchange failed).
        status: u16,
    },
    /// No authorization server metadata was found at any well-known URL.
    #[error("authorization server metadata not found for issuer {issuer}")]
    AuthServerMetadataUnavailable {
        /// The issuer.
        issuer: String,
    },
    /// A metadata document (or registration / token answer) is malformed or over a limit.
    #[error("invalid document from {url}: {detail}")]
    InvalidDocument {
        /// Where it came from.
        url: String,
        /// What is wrong.
        detail: String,
    },
    /// The Protected Resource Metadata `resource` does not name this MCP server.
    #[error("protected resource metadata is for {found}, not for {expected}")]
    ResourceMismatch {
        /// The MCP server URL.
        expected: String,
        /// The `resource` the metadata declared.
        found: String,
    },
    /// The authorization server metadata `issuer` differs from the issuer it was fetched for.
    #[error("authorization server metadata names issuer {found}, expected {expected}")]
    MetadataIssuerMismatch {
        /// The issuer the well-known URL was built from.
        expected: String,
        /// The document's `issuer`.
        found: String,
    },
    /// The authorization server does not advertise PKCE `S256`.
    #[error("authorization server {issuer} does not support PKCE S256; refusing to proceed")]
    PkceNotSupported {
        /// The issuer.
        issuer: String,
    },
    /// The metadata lacks an endpoint the flow needs.
    #[error("authorization server {issuer} has no {endpoint}")]
    MissingEndpoint {
        /// The issuer.
        issuer: String,
        /// `authorization_endpoint` or `token_endpoint`.
        endpoint: &'static str,
    },
    /// No way to obtain a client id: no pre-registered client, no Client ID Metadata Document
    /// support, no registration endpoint.
    #[error("no client registration possible with {issuer}")]
    NoClientRegistration {
        /// The issuer.
        issuer: String,
    },
    /// Pre-registered credentials name no issuer (only a Client ID Metadata Document URL may
    /// go without one): refused before anything is sent.
    #[error("the pre-registered client {client_id} names no issuer")]
    PreRegisteredWithoutIssuer {
        /// The client id.
        client_id: String,
    },
    /// Discovery found an authorization server other than the one the pre-registered
    /// credentials belong to (issuer identifiers compared as RFC 8414 §3.3 does): the
    /// credentials are not sent.
    #[error("the pre-registered credentials belong to {configured}, but the server uses {discovered}")]
    IssuerMismatch {
        /// The issuer the credentials were registered with.
        configured: String,
        /// The issuer discovery found.
        discovered: String,
    },
    /// Dynamic client registration was refused.
    #[error("client registration at {issuer} failed (HTTP {status}){}", fmt_code(.error))]
    RegistrationFailed {
        /// The issuer.
        issuer: String,
        /// The HTTP status (0 when the exchange failed).
        status: u16,
        /// The error code, when the body carried one.
        error: Option<OAuthErrorCode>,
    },
    /// The redirect query string is malformed (too long, too many parameters, bad encoding).
    #[error("malformed authorization callback: {0}")]
    CallbackMalformed(String),
    /// A callback parameter appeared more than once (RFC 6749 §3.1).
    #[error("authorization callback repeats parameter {0:?}")]
    DuplicateCallbackParameter(String),
    /// A callback arrived while no authorization was pending.
    #[error("no authorization request is pending")]
    NoPendingAuthorization,
    /// The callback `state` is missing or differs from the one sent.
    #[error("authorization callback state does not match the request")]
    StateMismatch,
    /// The callback `iss` differs from the recorded issuer (RFC 9207): a possible mix-up attack.
    #[error("authorization response issuer {found:?} does not match {expected:?}")]
    CallbackIssuerMismatch {
        /// The recorded issuer.
        expected: String,
        /// The `iss` received.
        found: String,
    },
    /// The authorization server advertised `iss` in responses but the callback had none.
    #[error("authorization response lacks the iss parameter its server advertised")]
    CallbackIssuerMissing,
    /// The authorization server answered with an error (the user may have refused).
    #[error("authorization refused: {error}{}", fmt_desc(.description))]
    AuthorizationDenied {
        /// The code.
        error: OAuthErrorCode,
        /// `error_description`, truncated.
        description: Option<String>,
    },
    /// The callback carried neither `code` nor `error`.
    #[error("authorization callback carries no code")]
    MissingCode,
    /// The token endpoint refused the request.
    #[error("token request refused (HTTP {status}): {error}{}", fmt_desc(.description))]
    TokenRejected {
        /// The HTTP status.
        status: u16,
        /// The code.
        error: OAuthErrorCode,
        /// `error_description`, truncated.
        description: Option<String>,
    },
    /// The token response is malformed.
    #[error("invalid token response: {0}")]
    InvalidTokenResponse(String),
    /// The token is neither a `Bearer` token nor a `DPoP` token answering a request that
    /// carried a DPoP proof.
    #[error("unsupported token type {0:?} (Bearer, or DPoP when a proof was sent)")]
    UnsupportedTokenType(String),
    /// A signed JWT (client assertion, DPoP proof) is needed but the host never gave the flow
    /// its wall clock ([`crate::oauth::AuthFlow::set_wall_clock`]).
    #[error("a signed JWT needs the host's wall clock (AuthFlow::set_wall_clock)")]
    NoWallClock,
    /// The JWT bearer assertion (or the ID token it came from) was refused earlier; it is not
    /// sent again until [`crate::oauth::AuthFlow::set_assertion`] supplies a new one.
    #[error("the assertion was refused by the authorization server; a new one is needed")]
    AssertionRejected,
    /// The MCP server asked for a fresh DPoP nonce again right after the retry that used its
    /// nonce (or sent no nonce to use).
    #[error("the MCP server keeps refusing the DPoP nonce")]
    DpopNonceRejected,
    /// The identity provider refused the token exchange for an ID-JAG (SEP-990), or answered
    /// something other than an ID-JAG.
    #[error("token exchange at the identity provider refused (HTTP {status}): {error}{}", fmt_desc(.description))]
    TokenExchangeRejected {
        /// The HTTP status.
        status: u16,
        /// The code (`Other("")` when the answer carried none).
        error: OAuthErrorCode,
        /// `error_description`, truncated.
        description: Option<String>,
    },
    /// A scope step-up was requested more often than allowed.
    #[error("gave up after {attempts} scope step-up attempts")]
    StepUpLimit {
        /// Step-ups made.
        attempts: u32,
    },
    /// A refresh was asked for without a refresh token.
    #[error("no refresh token available")]
    NoRefreshToken,
    /// An HTTP exchange failed or answered an unexpected status.
    #[error("request to {url} failed: {detail}")]
    FetchFailed {
        /// The URL, redacted.
        url: String,
        /// What happened.
        detail: String,
    },
    /// A stored record does not belong to this server or is inconsistent.
    #[error("stored authorization unusable: {0}")]
    InvalidStored(String),
}

fn fmt_desc(d: &Option<String>) -> String {
    d.as_deref().map(|d| format!(" ({d})")).unwrap_or_default()
}

fn fmt_code(c: &Option<OAuthErrorCode>) -> String {
    c.as_ref().map(|c| format!(": {c}")).unwrap_or_default()
}

/// `HTTP 404`, or what a status of 0 stands for (the request itself failed).
fn fmt_status(status: u16) -> String {
    match status {
        0 => "the request failed".to_owned(),
        s => format!("HTTP {s}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_unknown_is_clipped() {
        for c in ["invalid_grant", "access_denied", "invalid_client_metadata"] {
            assert_eq!(OAuthErrorCode::parse(c).as_str(), c);
        }
        let long = "x".repeat(500);
        assert_eq!(OAuthErrorCode::parse(&long).as_str().chars().count(), 64);
    }

    #[test]
    fn messages_name_the_problem() {
        let e = OAuthError::TokenRejected {
            status: 400,
            error: OAuthErrorCode::InvalidGrant,
            description: Some("expired".into()),
        };
        assert_eq!(e.to_string(), "token request refused (HTTP 400): invalid_grant (expired)");
        let e = OAuthError::RegistrationFailed { issuer: "https://as".into(), status: 500, error: None };
        assert_eq!(e.to_string(), "client registration at https://as failed (HTTP 500)");
    }
}
