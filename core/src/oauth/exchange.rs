//! Enterprise-managed authorization (SEP-990), first leg: the RFC 8693 token exchange at the
//! identity provider that turns the user's ID token into an Identity Assertion JWT
//! Authorization Grant (ID-JAG) for the MCP server's authorization server.

use std::time::Duration;

use serde_json::Value;

use crate::destination::Destination;
use crate::io::{HttpMethod, HttpRequest};
use crate::oauth::config::IdentityProvider;
use crate::oauth::error::{OAuthError, OAuthErrorCode};
use crate::oauth::secret::{Secret, MAX_TOKEN_LEN};
use crate::oauth::token::MAX_TOKEN_RESPONSE_BYTES;
use crate::oauth::url::{clip, form_body};

const TOKEN_EXCHANGE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
const ID_TOKEN: &str = "urn:ietf:params:oauth:token-type:id_token";
/// The token type of an ID-JAG.
pub(crate) const ID_JAG: &str = "urn:ietf:params:oauth:token-type:id-jag";

/// The exchange request: the ID token for an ID-JAG whose audience is the authorization
/// server's `issuer` and whose resource is the MCP server.
pub(crate) fn exchange_request(
    idp: &IdentityProvider,
    audience: &str,
    resource: &str,
    scope: Option<&str>,
    connect_timeout: Duration,
) -> HttpRequest {
    let mut pairs = vec![
        ("grant_type", TOKEN_EXCHANGE),
        ("requested_token_type", ID_JAG),
        ("audience", audience),
        ("resource", resource),
    ];
    if let Some(s) = scope {
        pairs.push(("scope", s));
    }
    pairs.push(("subject_token", idp.id_token.expose()));
    pairs.push(("subject_token_type", ID_TOKEN));
    pairs.push(("client_id", &idp.client_id));
    if let Some(secret) = &idp.client_secret {
        pairs.push(("client_secret", secret.expose()));
    }
    HttpRequest {
        method: HttpMethod::Post,
        url: idp.token_endpoint.clone(),
        headers: vec![
            ("Content-Type".to_owned(), "application/x-www-form-urlencoded".to_owned()),
            ("Accept".to_owned(), "application/json".to_owned()),
        ],
        body: form_body(&pairs).into_bytes(),
        connect_timeout,
        destination: Destination::Any,
    }
}

/// Parses the exchange response (RFC 8693 §2.2): the ID-JAG in `access_token`, with
/// `issued_token_type` naming an ID-JAG.
pub(crate) fn parse_exchange_response(status: u16, body: &[u8]) -> Result<Secret, OAuthError> {
    let refused = |error: &str, description: Option<&str>| OAuthError::TokenExchangeRejected {
        status,
        error: OAuthErrorCode::parse(error),
        description: description.map(|d| clip(d, 300)),
    };
    let map = match (body.len() <= MAX_TOKEN_RESPONSE_BYTES).then(|| serde_json::from_slice(body).ok()) {
        Some(Some(Value::Object(map))) => map,
        _ if !(200..300).contains(&status) => return Err(refused("", None)),
        _ => return Err(refused("", Some("the answer is not a JSON object"))),
    };
    let text = |name: &str| map.get(name).and_then(Value::as_str);
    if !(200..300).contains(&status) || map.contains_key("error") {
        return Err(refused(text("error").unwrap_or(""), text("error_description")));
    }
    if text("issued_token_type") != Some(ID_JAG) {
        return Err(refused("", Some("issued_token_type is not an ID-JAG")));
    }
    match text("access_token") {
        Some(t)
            if !t.is_empty() && t.len() <= MAX_TOKEN_LEN && t.bytes().all(|b| (0x21..0x7f).contains(&b)) =>
        {
            Ok(Secret::new(t))
        }
        _ => Err(refused("", Some("no usable access_token"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_carries_the_sep990_parameters() {
        let mut idp =
            IdentityProvider::new("https://idp.example", "https://idp.example/token", "c1", "id-tok");
        let r = exchange_request(&idp, "https://as.example", "https://mcp.example/mcp", None, Duration::ZERO);
        let body = String::from_utf8(r.body).unwrap();
        assert!(body.starts_with("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Atoken-exchange"));
        assert!(body.contains("requested_token_type=urn%3Aietf%3Aparams%3Aoauth%3Atoken-type%3Aid-jag"));
        assert!(body.contains("&audience=https%3A%2F%2Fas.example&resource=https%3A%2F%2Fmcp.example%2Fmcp"));
        assert!(body.ends_with("subject_token=id-tok&subject_token_type=urn%3Aietf%3Aparams%3Aoauth%3Atoken-type%3Aid_token&client_id=c1"));
        idp.client_secret = Some(Secret::new("s"));
        let r = exchange_request(&idp, "a", "r", Some("x"), Duration::ZERO);
        assert!(String::from_utf8(r.body).unwrap().ends_with("client_id=c1&client_secret=s"));
        assert!(!format!("{idp:?}").contains("id-tok"));
    }

    #[test]
    fn response_must_be_an_id_jag() {
        let ok = format!(r#"{{"access_token":"a.b.c","issued_token_type":"{ID_JAG}","token_type":"N_A"}}"#);
        assert_eq!(parse_exchange_response(200, ok.as_bytes()).unwrap().expose(), "a.b.c");
        let access =
            r#"{"access_token":"a","issued_token_type":"urn:ietf:params:oauth:token-type:access_token"}"#;
        for (status, body) in [
            (200, access),
            (200, "[]"),
            (200, r#"{"issued_token_type":"urn:ietf:params:oauth:token-type:id-jag"}"#),
            (400, r#"{"error":"invalid_grant","error_description":"expired"}"#),
            (500, "oops"),
        ] {
            assert!(matches!(
                parse_exchange_response(status, body.as_bytes()),
                Err(OAuthError::TokenExchangeRejected { .. })
            ));
        }
        let e = parse_exchange_response(400, br#"{"error":"invalid_grant"}"#).unwrap_err();
        assert!(matches!(e, OAuthError::TokenExchangeRejected { error: OAuthErrorCode::InvalidGrant, .. }));
    }
}
