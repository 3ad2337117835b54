//! The authorization request (URL with PKCE, `state`, `resource`) and the validation of the
//! redirect that answers it (`state`, RFC 9207 `iss`, `error`, `code`).

use crate::http_url::HttpUrl;
use crate::oauth::entropy::pkce_challenge;
use crate::oauth::error::{OAuthError, OAuthErrorCode};
use crate::oauth::registration::ClientRegistration;
use crate::oauth::secret::Secret;
use crate::oauth::url::{clip, parse_query, with_query};

/// Longest callback query accepted, in bytes.
pub const MAX_CALLBACK_BYTES: usize = 16 * 1024;
/// Most parameters accepted in a callback query.
pub const MAX_CALLBACK_PARAMS: usize = 32;

/// One authorization request in flight: everything its callback is checked against and the
/// token request needs, recorded together.
#[derive(Debug, Clone)]
pub(crate) struct PendingAuthorization {
    pub state: Secret,
    pub verifier: Secret,
    /// The validated metadata's `issuer`, compared with the callback's `iss` exactly.
    pub issuer: String,
    pub iss_supported: bool,
    pub client: ClientRegistration,
    pub redirect_uri: String,
    pub scopes: Vec<String>,
    pub resource: String,
    pub token_endpoint: String,
}

/// The URL the user's browser opens.
pub(crate) fn authorization_url(endpoint: &HttpUrl, p: &PendingAuthorization) -> String {
    let challenge = pkce_challenge(p.verifier.expose());
    let scope = p.scopes.join(" ");
    let mut pairs = vec![
        ("response_type", "code"),
        ("client_id", p.client.client_id.as_str()),
        ("redirect_uri", p.redirect_uri.as_str()),
        ("code_challenge", challenge.as_str()),
        ("code_challenge_method", "S256"),
        ("state", p.state.expose()),
    ];
    if !scope.is_empty() {
        pairs.push(("scope", &scope));
    }
    pairs.push(("resource", &p.resource));
    with_query(endpoint, &pairs)
}

/// Validates the redirect's query string (a leading `?` or a whole redirect URL is accepted)
/// and returns the authorization code. Order: parameters well-formed and unique, `state`,
/// `iss` (RFC 9207; on mismatch no `error` field is looked at), then `error`, then `code`.
/// Decoding is WHATWG's form decoding: a `%` without two hex digits stays a literal `%`, and a
/// name or value that is not UTF-8 once decoded makes the callback malformed.
pub(crate) fn check_callback(query: &str, p: &PendingAuthorization) -> Result<Secret, OAuthError> {
    if query.len() > MAX_CALLBACK_BYTES {
        return Err(OAuthError::CallbackMalformed(format!("longer than {MAX_CALLBACK_BYTES} bytes")));
    }
    let query = query.split('#').next().unwrap_or("");
    let query = query.split_once('?').map_or(query, |(_, q)| q);
    let pairs = parse_query(query).ok_or_else(|| OAuthError::CallbackMalformed("invalid encoding".into()))?;
    if pairs.len() > MAX_CALLBACK_PARAMS {
        return Err(OAuthError::CallbackMalformed(format!("more than {MAX_CALLBACK_PARAMS} parameters")));
    }
    for (i, (name, _)) in pairs.iter().enumerate() {
        if pairs[..i].iter().any(|(n, _)| n == name) {
            return Err(OAuthError::DuplicateCallbackParameter(clip(name, 64)));
        }
    }
    let get = |name: &str| pairs.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str());
    if !get("state").is_some_and(|s| constant_time_eq(s.as_bytes(), p.state.expose().as_bytes())) {
        return Err(OAuthError::StateMismatch);
    }
    match get("iss") {
        Some(iss) if iss != p.issuer => {
            return Err(OAuthError::CallbackIssuerMismatch {
                expected: clip(&p.issuer, 200),
                found: clip(iss, 200),
            })
        }
        None if p.iss_supported => return Err(OAuthError::CallbackIssuerMissing),
        _ => {}
    }
    if let Some(error) = get("error") {
        return Err(OAuthError::AuthorizationDenied {
            error: OAuthErrorCode::parse(error),
            description: get("error_description").map(|d| clip(d, 300)),
        });
    }
    match get("code") {
        Some(code) if !code.is_empty() && code.len() <= 4096 => Ok(Secret::new(code)),
        _ => Err(OAuthError::MissingCode),
    }
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oauth::registration::{RegistrationSource, TokenAuthMethod};

    fn pending(iss_supported: bool) -> PendingAuthorization {
        PendingAuthorization {
            state: Secret::new("st"),
            verifier: Secret::new("v".repeat(43)),
            issuer: "https://as.example".into(),
            iss_supported,
            client: ClientRegistration {
                issuer: "https://as.example".into(),
                client_id: "cid".into(),
                client_secret: None,
                auth_method: TokenAuthMethod::None,
                source: RegistrationSource::Dynamic,
                redirect_uri: None,
            },
            redirect_uri: "http://127.0.0.1:1/cb".into(),
            scopes: vec!["a".into(), "b".into()],
            resource: "https://mcp.example/mcp".into(),
            token_endpoint: "https://as.example/token".into(),
        }
    }

    #[test]
    fn url_carries_every_parameter_once() {
        let ep = HttpUrl::parse("https://as.example/authorize?tenant=x&state=old").unwrap();
        let url = authorization_url(&ep, &pending(false));
        let q = parse_query(url.split_once('?').unwrap().1).unwrap();
        let get = |n: &str| q.iter().filter(|(k, _)| k == n).map(|(_, v)| v.as_str()).collect::<Vec<_>>();
        assert_eq!(get("state"), ["st"]);
        assert_eq!(get("tenant"), ["x"]);
        assert_eq!(get("scope"), ["a b"]);
        assert_eq!(get("code_challenge_method"), ["S256"]);
        assert_eq!(get("resource"), ["https://mcp.example/mcp"]);
        assert_eq!(get("code_challenge"), [pkce_challenge(&"v".repeat(43)).as_str()]);
    }

    #[test]
    fn iss_table() {
        let ok = "code=c&state=st&iss=https%3A%2F%2Fas.example";
        assert_eq!(check_callback(ok, &pending(true)).unwrap().expose(), "c");
        assert!(check_callback(ok, &pending(false)).is_ok());
        assert!(matches!(
            check_callback("code=c&state=st", &pending(true)),
            Err(OAuthError::CallbackIssuerMissing)
        ));
        assert!(check_callback("code=c&state=st", &pending(false)).is_ok());
        for wrong in
            ["https%3A%2F%2Fevil.example.com", "https%3A%2F%2Fas.example%2F", "HTTPS%3A%2F%2Fas.example"]
        {
            for supported in [true, false] {
                let q = format!("code=c&state=st&iss={wrong}");
                assert!(matches!(
                    check_callback(&q, &pending(supported)),
                    Err(OAuthError::CallbackIssuerMismatch { .. })
                ));
            }
        }
        // A mismatched iss hides the error fields.
        let q = "error=access_denied&state=st&iss=https%3A%2F%2Fevil";
        assert!(matches!(check_callback(q, &pending(false)), Err(OAuthError::CallbackIssuerMismatch { .. })));
    }

    #[test]
    fn state_errors_and_shape() {
        let p = pending(false);
        assert!(matches!(check_callback("code=c&state=other", &p), Err(OAuthError::StateMismatch)));
        assert!(matches!(check_callback("code=c", &p), Err(OAuthError::StateMismatch)));
        assert!(
            matches!(check_callback("code=c&state=st&code=d", &p), Err(OAuthError::DuplicateCallbackParameter(n)) if n == "code")
        );
        assert!(matches!(
            check_callback("error=access_denied&error_description=no+way&state=st", &p),
            Err(OAuthError::AuthorizationDenied { error: OAuthErrorCode::AccessDenied, description: Some(d) }) if d == "no way"
        ));
        assert!(matches!(check_callback("state=st", &p), Err(OAuthError::MissingCode)));
        // Not UTF-8 once decoded: refused, never altered.
        assert!(matches!(check_callback("state=st&code=%ff", &p), Err(OAuthError::CallbackMalformed(_))));
        assert!(matches!(check_callback("state=%C3&code=c", &p), Err(OAuthError::CallbackMalformed(_))));
        // A malformed escape is literal text (WHATWG); `%+1` is `% 1`, never byte 0x01.
        assert_eq!(check_callback("state=st&code=%zz", &p).unwrap().expose(), "%zz");
        assert_eq!(check_callback("state=st&code=a%+1", &p).unwrap().expose(), "a% 1");
        let many = (0..40).map(|i| format!("p{i}=1")).collect::<Vec<_>>().join("&");
        assert!(matches!(check_callback(&many, &p), Err(OAuthError::CallbackMalformed(_))));
        assert!(check_callback(&"a".repeat(MAX_CALLBACK_BYTES + 1), &p).is_err());
        assert!(check_callback("http://127.0.0.1:1/cb?code=c&state=st#frag", &p).is_ok());
        assert!(check_callback("?code=c&state=st", &p).is_ok());
    }
}
