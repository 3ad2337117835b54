//! The token endpoint: requests for the `authorization_code`, `refresh_token`,
//! `client_credentials` and JWT bearer grants, and the response, validated ([`Tokens`]).

use std::time::{Duration, Instant};

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use serde_json::Value;

use crate::destination::Destination;
use crate::io::{HttpMethod, HttpRequest};
use crate::oauth::error::{OAuthError, OAuthErrorCode};
use crate::oauth::registration::{ClientRegistration, TokenAuthMethod};
use crate::oauth::secret::{Secret, MAX_TOKEN_LEN};
use crate::oauth::url::{clip, form_body, form_encode};

/// Largest token response accepted, in bytes.
pub const MAX_TOKEN_RESPONSE_BYTES: usize = 64 * 1024;
/// `expires_in` values are capped at this (ten years) so the expiry instant never overflows.
pub const MAX_EXPIRES_IN: Duration = Duration::from_secs(10 * 365 * 24 * 3600);

/// The grant type URN of the JWT bearer grant (RFC 7523 §2.1).
pub(crate) const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/// How an access token is presented (RFC 6749 §7.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum TokenType {
    /// `Authorization: Bearer <token>` (RFC 6750).
    #[default]
    Bearer,
    /// `Authorization: DPoP <token>` with a `DPoP` proof on every request (RFC 9449): the
    /// token is bound to the flow's key.
    #[serde(rename = "DPoP")]
    Dpop,
}

impl TokenType {
    /// The `Authorization` scheme.
    pub fn scheme(self) -> &'static str {
        match self {
            Self::Bearer => "Bearer",
            Self::Dpop => "DPoP",
        }
    }
}

/// Tokens from a successful grant. `Debug` redacts them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tokens {
    /// The access token: send it to the MCP server only (see [`Tokens::token_type`]).
    pub access_token: Secret,
    /// `Bearer`, or `DPoP` for a token bound to the flow's DPoP key.
    pub token_type: TokenType,
    /// When it expires (`now` of the response plus `expires_in`); `None` when not stated.
    pub expires_at: Option<Instant>,
    /// The refresh token, if one was issued (rotation replaces it).
    pub refresh_token: Option<Secret>,
    /// The scopes granted (the `scope` of the response, else the scopes requested).
    pub scopes: Vec<String>,
    /// The issuer of the authorization server that issued them.
    pub issuer: String,
    /// The resource (RFC 8707) they were requested for.
    pub resource: String,
}

impl Tokens {
    /// Whether the access token is expired, or will be within `margin`, at `now`.
    pub fn expires_within(&self, now: Instant, margin: Duration) -> bool {
        self.expires_at.is_some_and(|at| now + margin >= at)
    }

    /// The `Authorization` header value (`Bearer …` or `DPoP …`; a DPoP token also needs the
    /// proof that [`crate::oauth::AuthFlow::request_headers`] adds).
    pub fn authorization_header(&self) -> String {
        format!("{} {}", self.token_type.scheme(), self.access_token.expose())
    }
}

/// The grant a token request is for.
#[derive(Debug)]
pub(crate) enum Grant<'a> {
    AuthorizationCode { code: &'a Secret, verifier: &'a Secret, redirect_uri: &'a str },
    Refresh { refresh_token: &'a Secret },
    ClientCredentials { scope: Option<&'a str> },
    JwtBearer { assertion: &'a Secret, scope: Option<&'a str> },
}

/// Builds a token request: the form body with `resource`, and client authentication per the
/// registration's method (`client_assertion` is the signed JWT for `private_key_jwt`).
pub(crate) fn token_request(
    endpoint: &str,
    client: &ClientRegistration,
    grant: &Grant<'_>,
    resource: &str,
    connect_timeout: Duration,
    client_assertion: Option<&str>,
) -> HttpRequest {
    let mut pairs: Vec<(&str, &str)> = match grant {
        Grant::AuthorizationCode { code, verifier, redirect_uri } => vec![
            ("grant_type", "authorization_code"),
            ("code", code.expose()),
            ("redirect_uri", redirect_uri),
            ("code_verifier", verifier.expose()),
        ],
        Grant::Refresh { refresh_token } => {
            vec![("grant_type", "refresh_token"), ("refresh_token", refresh_token.expose())]
        }
        Grant::ClientCredentials { scope } => {
            let mut p = vec![("grant_type", "client_credentials")];
            if let Some(s) = scope {
                p.push(("scope", s));
            }
            p
        }
        Grant::JwtBearer { assertion, scope } => {
            let mut p = vec![("grant_type", JWT_BEARER), ("assertion", assertion.expose())];
            if let Some(s) = scope {
                p.push(("scope", s));
            }
            p
        }
    };
    pairs.push(("resource", resource));
    let mut headers = vec![
        ("Content-Type".to_owned(), "application/x-www-form-urlencoded".to_owned()),
        ("Accept".to_owned(), "application/json".to_owned()),
    ];
    let secret = client.client_secret.as_ref().map(Secret::expose).unwrap_or("");
    match client.auth_method {
        TokenAuthMethod::None => pairs.push(("client_id", &client.client_id)),
        TokenAuthMethod::ClientSecretPost => {
            pairs.push(("client_id", &client.client_id));
            pairs.push(("client_secret", secret));
        }
        TokenAuthMethod::ClientSecretBasic => {
            // RFC 6749 §2.3.1: both parts form-encoded before Base64.
            let raw = format!("{}:{}", form_encode(&client.client_id), form_encode(secret));
            headers.push(("Authorization".to_owned(), format!("Basic {}", STANDARD.encode(raw))));
        }
        TokenAuthMethod::PrivateKeyJwt => {
            pairs.push(("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"));
            pairs.push(("client_assertion", client_assertion.unwrap_or("")));
        }
    }
    HttpRequest {
        method: HttpMethod::Post,
        url: endpoint.to_owned(),
        headers,
        body: form_body(&pairs).into_bytes(),
        connect_timeout,
        destination: Destination::Any,
    }
}

/// What a token response is checked against and completed with.
#[derive(Debug)]
pub(crate) struct TokenContext<'a> {
    pub requested_scopes: &'a [String],
    pub issuer: &'a str,
    pub resource: &'a str,
    /// The refresh token sent (kept when the server issues no new one).
    pub previous_refresh: Option<&'a Secret>,
    /// Whether the request carried a DPoP proof (only then is `token_type: DPoP` accepted).
    pub dpop: bool,
}

/// Parses a token endpoint response (RFC 6749 §5.1 / §5.2).
pub(crate) fn parse_token_response(
    now: Instant,
    status: u16,
    body: &[u8],
    ctx: &TokenContext<'_>,
) -> Result<Tokens, OAuthError> {
    if body.len() > MAX_TOKEN_RESPONSE_BYTES {
        return Err(OAuthError::InvalidTokenResponse(format!(
            "larger than {MAX_TOKEN_RESPONSE_BYTES} bytes"
        )));
    }
    let value: Option<Value> = serde_json::from_slice(body).ok();
    let map = match value {
        Some(Value::Object(map)) => map,
        _ if !(200..300).contains(&status) => {
            return Err(OAuthError::TokenRejected {
                status,
                error: OAuthErrorCode::Other(String::new()),
                description: None,
            })
        }
        _ => return Err(OAuthError::InvalidTokenResponse("not a JSON object".into())),
    };
    let text = |name: &str| map.get(name).and_then(Value::as_str);
    if !(200..300).contains(&status) || map.contains_key("error") {
        let error = OAuthErrorCode::parse(text("error").unwrap_or(""));
        let description = text("error_description").map(|d| clip(d, 300));
        return Err(OAuthError::TokenRejected { status, error, description });
    }
    let token = |name: &str| -> Result<Option<Secret>, OAuthError> {
        match map.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) if !s.is_empty() && s.len() <= MAX_TOKEN_LEN && is_token_chars(s) => {
                Ok(Some(Secret::new(s.clone())))
            }
            Some(_) => Err(OAuthError::InvalidTokenResponse(format!("invalid {name}"))),
        }
    };
    let access_token =
        token("access_token")?.ok_or_else(|| OAuthError::InvalidTokenResponse("no access_token".into()))?;
    let token_type = match text("token_type") {
        Some(t) if t.eq_ignore_ascii_case("bearer") => TokenType::Bearer,
        Some(t) if ctx.dpop && t.eq_ignore_ascii_case("dpop") => TokenType::Dpop,
        Some(t) => return Err(OAuthError::UnsupportedTokenType(clip(t, 32))),
        None => return Err(OAuthError::InvalidTokenResponse("no token_type".into())),
    };
    let expires_in = match map.get("expires_in") {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) => Some(n.as_u64().ok_or_else(bad_expiry)?),
        Some(Value::String(s)) => Some(s.parse::<u64>().map_err(|_| bad_expiry())?),
        Some(_) => return Err(bad_expiry()),
    };
    let expires_at = expires_in.map(|s| now + Duration::from_secs(s).min(MAX_EXPIRES_IN));
    let refresh_token = token("refresh_token")?.or_else(|| ctx.previous_refresh.cloned());
    let scopes = match text("scope") {
        Some(s) => s.split(' ').filter(|s| !s.is_empty()).take(64).map(|s| clip(s, 256)).collect(),
        None => ctx.requested_scopes.to_vec(),
    };
    Ok(Tokens {
        access_token,
        token_type,
        expires_at,
        refresh_token,
        scopes,
        issuer: ctx.issuer.to_owned(),
        resource: ctx.resource.to_owned(),
    })
}

fn bad_expiry() -> OAuthError {
    OAuthError::InvalidTokenResponse("expires_in is not a non-negative integer".into())
}

/// Token characters safe in a header: visible ASCII, no spaces.
fn is_token_chars(s: &str) -> bool {
    s.bytes().all(|b| (0x21..0x7f).contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oauth::registration::RegistrationSource;

    fn client(method: TokenAuthMethod) -> ClientRegistration {
        ClientRegistration {
            issuer: "https://as".into(),
            client_id: "id:1".into(),
            client_secret: Some(Secret::new("s&cret")),
            auth_method: method,
            source: RegistrationSource::PreRegistered,
            redirect_uri: None,
        }
    }

    #[test]
    fn request_auth_methods() {
        let rt = Secret::new("rt");
        let g = Grant::Refresh { refresh_token: &rt };
        let t = Duration::from_secs(1);
        let basic = token_request(
            "https://as/token",
            &client(TokenAuthMethod::ClientSecretBasic),
            &g,
            "https://mcp",
            t,
            None,
        );
        let auth = basic.headers.iter().find(|(n, _)| n == "Authorization").unwrap();
        assert_eq!(auth.1, format!("Basic {}", STANDARD.encode("id%3A1:s%26cret")));
        let body = String::from_utf8(basic.body).unwrap();
        assert_eq!(body, "grant_type=refresh_token&refresh_token=rt&resource=https%3A%2F%2Fmcp");
        let post =
            token_request("https://as/token", &client(TokenAuthMethod::ClientSecretPost), &g, "r", t, None);
        let body = String::from_utf8(post.body.clone()).unwrap();
        assert!(body.ends_with("client_id=id%3A1&client_secret=s%26cret"));
        assert!(!post.headers.iter().any(|(n, _)| n == "Authorization"));
        assert!(!format!("{post:?}").contains("cret"));
        let none = token_request("https://as/token", &client(TokenAuthMethod::None), &g, "r", t, None);
        let body = String::from_utf8(none.body).unwrap();
        assert!(body.ends_with("client_id=id%3A1") && !body.contains("secret"));
        let a = Secret::new("h.p.s");
        let jwt = token_request(
            "https://as/token",
            &client(TokenAuthMethod::PrivateKeyJwt),
            &Grant::JwtBearer { assertion: &a, scope: Some("x y") },
            "r",
            t,
            Some("cl.ient.jwt"),
        );
        let body = String::from_utf8(jwt.body).unwrap();
        assert_eq!(
            body,
            "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=h.p.s&scope=x%20y\
             &resource=r&client_assertion_type=urn%3Aietf%3Aparams%3Aoauth%3Aclient-assertion-type%3Ajwt-bearer\
             &client_assertion=cl.ient.jwt"
        );
    }
}
