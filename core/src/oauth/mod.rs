//! OAuth 2.1 authorization for HTTP MCP servers, sans-IO (MCP 2026-07-28
//! `basic/authorization`, with the 2025-03-26 fallbacks).
//!
//! The flow needs the `oauth` feature. With `http` alone this module holds what a connection
//! needs without it: [`HttpAuth`] (no authorization, or the host's token provider), [`Secret`]
//! and [`MAX_TOKEN_LEN`].
//!
//! [`AuthFlow`] never opens a socket, reads a clock or draws randomness: it emits HTTP
//! exchanges for the host to perform, a URL for the host to open in a browser, and consumes
//! the answers. Time comes in as `now: Instant`; randomness comes in once, as entropy bytes the
//! host reads from its OS generator, and seeds every PKCE verifier and `state`.
//!
//! # Driving the flow
//!
//! 1. The MCP server answers `401` (or `403 insufficient_scope`): call
//!    [`AuthFlow::on_challenge`] with the status and the `WWW-Authenticate` value.
//! 2. Drain [`AuthFlow::poll`] until `None`, handling each [`AuthStep`]:
//!    - [`AuthStep::Fetch`]: perform the request (no redirects followed, the body capped), then
//!      call [`AuthFlow::on_response`] with its status, headers and body (or
//!      [`AuthFlow::on_fetch_failed`]); drain again.
//!    - [`AuthStep::Authorize`]: open the URL in a browser; when the redirect arrives at the
//!      configured redirect URI, call [`AuthFlow::on_callback`] with its query; drain again.
//!    - [`AuthStep::Notice`]: log it.
//!    - [`AuthStep::AuthServerChanged`]: persist [`AuthFlow::stored`] now (the old
//!      authorization server's token was set aside); drain again.
//!    - [`AuthStep::Done`]: retry the MCP request with [`AuthFlow::authorization_header`].
//!    - [`AuthStep::Failed`]: report the error; a later challenge starts over.
//! 3. Before a request, [`AuthFlow::needs_refresh`] says whether to call [`AuthFlow::refresh`];
//!    after the server accepts one, [`AuthFlow::on_request_succeeded`] resets the step-up budget.
//! 4. Persist [`AuthFlow::stored`] and give it back with [`AuthFlow::with_stored`] next run.
//!
//! A token belongs to one authorization server. When the MCP server names another one, the
//! grant in use (client and tokens) is set aside under its issuer and the new server's own
//! grant, if one was set aside before, is resumed: presented again (refreshed first when it
//! is about to expire, at its own issuer's token endpoint) without a new sign-in. Tokens are
//! only ever presented to the MCP server's origin, for the resource they were obtained for.
//!
//! What the flow does, in order: Protected Resource Metadata from the challenge's
//! `resource_metadata`, else the well-known URLs (path-inserted, then root), checking that its
//! `resource` names the server; authorization server metadata from the well-known URLs in spec
//! order (RFC 8414 then OpenID Connect, path variants), checking `issuer` and PKCE `S256`;
//! without resource metadata, the 2025-03-26 fallback (metadata at the server's origin, else
//! `/authorize`, `/token`, `/register`); a client from pre-registration, a Client ID Metadata
//! Document or dynamic registration, kept per authorization server; then the grant
//! ([`GrantType`]): the authorization code grant with PKCE and RFC 8707 `resource`, the
//! callback's `state` and RFC 9207 `iss` checked; client credentials; the JWT bearer grant with
//! a host-supplied assertion (workload identity); or enterprise-managed authorization (SEP-990:
//! the IdP's ID token exchanged at the IdP for an ID-JAG, presented with the JWT bearer
//! grant). Every URL contacted is `https` (plain `http` only on loopback for a loopback server)
//! and never a literal private or link-local address.
//!
//! Client authentication at the token endpoint: `none`, `client_secret_basic`,
//! `client_secret_post`, or `private_key_jwt` (RFC 7523 §2.2, ES256 from a PEM key,
//! [`PreRegisteredClient::with_private_key`]). With [`AuthConfig::dpop`] (by default when the
//! authorization server offers ES256 DPoP) token requests carry DPoP proofs (RFC 9449) from a
//! key derived from the entropy, the server's `use_dpop_nonce` is honoured once, and a `DPoP`
//! token is presented by [`AuthFlow::request_headers`] with a fresh proof per request. The
//! signed JWTs take their `iat` from the host's wall clock ([`AuthFlow::set_wall_clock`]);
//! signatures are deterministic (RFC 6979), so no random generator is used.
//!
//! ```
//! use std::time::Instant;
//! use mcpwire_core::oauth::{AuthConfig, AuthFlow, AuthStep};
//!
//! // `now` comes from the host's clock at each step; the core never reads one. (The same walk
//! // runs with a fake clock in `core/tests/oauth`.)
//! fn walk(now: Instant) {
//! let config = AuthConfig::authorization_code("http://127.0.0.1:8765/callback");
//! let entropy = [7u8; 32]; // in a real host: 32 bytes from the OS random generator
//! let mut flow = AuthFlow::new("https://mcp.example.com/mcp", config, &entropy).unwrap();
//!
//! // The server said 401 and pointed at its resource metadata.
//! flow.on_challenge(now, 401, Some(
//!     r#"Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp""#,
//! ));
//! let mut answers = vec![
//!     r#"{"resource":"https://mcp.example.com/mcp","authorization_servers":["https://auth.example.com"],"scopes_supported":["files:read"]}"#,
//!     r#"{"issuer":"https://auth.example.com","authorization_endpoint":"https://auth.example.com/authorize",
//!         "token_endpoint":"https://auth.example.com/token","registration_endpoint":"https://auth.example.com/register",
//!         "code_challenge_methods_supported":["S256"],"token_endpoint_auth_methods_supported":["none"]}"#,
//!     r#"{"client_id":"abc"}"#,
//! ].into_iter();
//! let mut tokens = None;
//! while tokens.is_none() {
//!     match flow.poll() {
//!         Some(AuthStep::Fetch { id, request }) => {
//!             // The host performs `request` over HTTP; here the answers are canned.
//!             let body = answers.next().unwrap_or(
//!                 r#"{"access_token":"at-1","token_type":"Bearer","expires_in":3600}"#);
//!             assert!(request.url.starts_with("https://"));
//!             flow.on_response(now, id, 200, &[], body.as_bytes());
//!         }
//!         Some(AuthStep::Authorize { url }) => {
//!             // The host opens `url`; the browser comes back to the redirect URI with a code.
//!             assert!(url.contains("code_challenge_method=S256"));
//!             let state = url.split("state=").nth(1).unwrap().split('&').next().unwrap();
//!             flow.on_callback(now, &format!("code=xyz&state={state}"));
//!         }
//!         Some(AuthStep::Notice(_)) => {} // dynamic registration is deprecated: worth a log line
//!         Some(AuthStep::AuthServerChanged { .. }) => {} // a real host saves `flow.stored(..)`
//!         Some(AuthStep::Done(t)) => tokens = Some(t),
//!         Some(AuthStep::Failed(e)) => panic!("{e}"),
//!         None => unreachable!("nothing pending"),
//!     }
//! }
//! assert_eq!(flow.authorization_header("https://mcp.example.com/mcp").as_deref(), Some("Bearer at-1"));
//! assert_eq!(flow.authorization_header("https://elsewhere.example/"), None);
//! }
//! ```
//!
//! Not implemented: other signing algorithms than ES256 (RS256, EdDSA) for client assertions
//! and DPoP, and discovery of the identity provider's token endpoint from its issuer (the host
//! configures the endpoint).

// The OAuth flow (only with the `oauth` feature).
#[cfg(feature = "oauth")]
mod callback;
#[cfg(feature = "oauth")]
mod config;
#[cfg(feature = "oauth")]
mod credentials;
#[cfg(feature = "oauth")]
mod discovered;
#[cfg(feature = "oauth")]
mod dpop;
#[cfg(feature = "oauth")]
mod entropy;
#[cfg(feature = "oauth")]
mod error;
#[cfg(feature = "oauth")]
mod exchange;
#[cfg(feature = "oauth")]
mod flow;
#[cfg(feature = "oauth")]
mod flow_steps;
#[cfg(feature = "oauth")]
mod grants;
#[cfg(feature = "oauth")]
mod jwt;
#[cfg(feature = "oauth")]
mod metadata;
#[cfg(feature = "oauth")]
mod phase;
#[cfg(feature = "oauth")]
mod registration;
#[cfg(feature = "oauth")]
mod request_headers;
#[cfg(feature = "oauth")]
mod round;
#[cfg(feature = "oauth")]
mod set_aside;
#[cfg(feature = "oauth")]
mod setup;
#[cfg(feature = "oauth")]
mod store;
#[cfg(feature = "oauth")]
mod token;
#[cfg(feature = "oauth")]
pub(crate) mod url;
// What an HTTP connection needs without the flow: how it answers a challenge, and secrets.
mod http_auth;
mod secret;

pub use http_auth::HttpAuth;
pub use secret::{Secret, MAX_TOKEN_LEN};

#[cfg(feature = "oauth")]
pub use self::{
    callback::{MAX_CALLBACK_BYTES, MAX_CALLBACK_PARAMS},
    config::{AuthConfig, DpopPolicy, GrantType, IdentityProvider, PreRegisteredClient},
    credentials::MAX_REGISTRATIONS,
    entropy::{pkce_challenge, MIN_ENTROPY_BYTES},
    error::{OAuthError, OAuthErrorCode},
    flow::{AuthFlow, AuthNotice, AuthStep, MAX_SCOPES},
    metadata::{AuthServerMetadata, ResourceMetadata, MAX_LIST_ENTRIES, MAX_METADATA_BYTES, MAX_SCOPE_LEN},
    phase::FetchId,
    registration::{ClientRegistration, RegistrationSource, TokenAuthMethod, MAX_REGISTRATION_BYTES},
    set_aside::MAX_SET_ASIDE,
    setup::OAuthSetup,
    store::{StoredAuth, StoredGrant, StoredTokens, STORED_VERSION},
    token::{TokenType, Tokens, MAX_EXPIRES_IN, MAX_TOKEN_RESPONSE_BYTES},
};
