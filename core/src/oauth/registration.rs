//! Client registration: pre-registered credentials, Client ID Metadata Documents and dynamic
//! client registration (RFC 7591), chosen in the MCP priority order and kept per issuer.

use serde_json::{json, Value};

use crate::oauth::config::{AuthConfig, GrantType};
use crate::oauth::error::{OAuthError, OAuthErrorCode};
use crate::oauth::metadata::AuthServerMetadata;
use crate::oauth::secret::Secret;
use crate::oauth::url::{check_redirect_uri, clip, is_loopback};

/// Largest registration response accepted, in bytes.
pub const MAX_REGISTRATION_BYTES: usize = 64 * 1024;

/// How the client authenticates at the token endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum TokenAuthMethod {
    /// `none`: a public client sends only `client_id`.
    None,
    /// `client_secret_basic`: HTTP Basic with the form-encoded id and secret.
    ClientSecretBasic,
    /// `client_secret_post`: id and secret in the form body.
    ClientSecretPost,
    /// `private_key_jwt`: a JWT signed with the client's private key (RFC 7523 §2.2), for a
    /// pre-registered client with [`crate::oauth::PreRegisteredClient::private_key`].
    PrivateKeyJwt,
}

impl TokenAuthMethod {
    /// The registered name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::ClientSecretBasic => "client_secret_basic",
            Self::ClientSecretPost => "client_secret_post",
            Self::PrivateKeyJwt => "private_key_jwt",
        }
    }

    /// Parses a registered name; `None` for methods this client does not implement.
    pub fn parse(s: &str) -> Option<Self> {
        [Self::None, Self::ClientSecretBasic, Self::ClientSecretPost, Self::PrivateKeyJwt]
            .into_iter()
            .find(|m| m.as_str() == s)
    }
}

/// Picks the method for a client from the server's list: with a secret `client_secret_basic`,
/// then `client_secret_post`; without one `none`. A server listing none of these gets the
/// secret methods' default (basic) or `none`.
pub(crate) fn choose_auth_method(supported: &[String], has_secret: bool) -> TokenAuthMethod {
    let has = |m: TokenAuthMethod| supported.iter().any(|s| s == m.as_str());
    if !has_secret {
        return TokenAuthMethod::None;
    }
    if has(TokenAuthMethod::ClientSecretBasic) {
        TokenAuthMethod::ClientSecretBasic
    } else if has(TokenAuthMethod::ClientSecretPost) {
        TokenAuthMethod::ClientSecretPost
    } else if has(TokenAuthMethod::None) {
        TokenAuthMethod::None
    } else {
        TokenAuthMethod::ClientSecretBasic
    }
}

/// Where a client id came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum RegistrationSource {
    /// Configured by the host.
    PreRegistered,
    /// A Client ID Metadata Document URL.
    MetadataDocument,
    /// Dynamic client registration.
    Dynamic,
}

/// A client identity at one authorization server (storable; the secret serialises in clear).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ClientRegistration {
    /// The issuer it is valid at.
    pub issuer: String,
    /// The client id.
    pub client_id: String,
    /// The client secret, if any.
    pub client_secret: Option<Secret>,
    /// Token endpoint authentication.
    pub auth_method: TokenAuthMethod,
    /// How it was obtained.
    pub source: RegistrationSource,
    /// The redirect URI registered with it (dynamic registration), so a changed redirect URI
    /// registers again.
    pub redirect_uri: Option<String>,
}

/// What the flow does to get a client id at `meta.issuer`.
#[derive(Debug)]
pub(crate) enum Choice {
    /// Use this registration.
    Use(ClientRegistration),
    /// Register dynamically at this endpoint.
    Register(String),
}

/// Chooses a client in the MCP priority order: pre-registered for this issuer, a
/// pre-registered Client ID Metadata Document URL, a stored dynamic registration for this
/// issuer (same redirect URI), the Client ID Metadata Document, dynamic registration.
/// Pre-registered credentials for other issuers are never sent: when some are configured and
/// none is for this issuer, the flow fails with [`OAuthError::IssuerMismatch`].
pub(crate) fn choose(
    config: &AuthConfig,
    stored: &[ClientRegistration],
    meta: &AuthServerMetadata,
) -> Result<Choice, OAuthError> {
    let methods = meta.auth_methods();
    let pre = config
        .pre_registered
        .iter()
        .find(|c| c.issuer.as_deref().is_some_and(|i| crate::oauth::url::issuer_matches(i, &meta.issuer)))
        .or_else(|| config.pre_registered.iter().find(|c| c.issuer.is_none() && c.is_metadata_document()));
    if let (None, Some(other)) = (pre, config.pre_registered.iter().find_map(|c| c.issuer.as_deref())) {
        return Err(OAuthError::IssuerMismatch {
            configured: clip(other, 200),
            discovered: clip(&meta.issuer, 200),
        });
    }
    if let Some(c) = pre {
        let key_wanted = c.private_key.is_some()
            && (c.client_secret.is_none()
                || methods.iter().any(|m| m == TokenAuthMethod::PrivateKeyJwt.as_str()));
        let auth_method = c.auth_method.unwrap_or_else(|| {
            if key_wanted {
                TokenAuthMethod::PrivateKeyJwt
            } else {
                choose_auth_method(&methods, c.client_secret.is_some())
            }
        });
        return Ok(Choice::Use(ClientRegistration {
            issuer: meta.issuer.clone(),
            client_id: c.client_id.clone(),
            client_secret: c.client_secret.clone(),
            auth_method,
            source: RegistrationSource::PreRegistered,
            redirect_uri: None,
        }));
    }
    if config.grant != GrantType::AuthorizationCode {
        return Err(OAuthError::NoClientRegistration { issuer: clip(&meta.issuer, 200) });
    }
    if let Some(r) = stored.iter().find(|r| {
        r.issuer == meta.issuer
            && r.source == RegistrationSource::Dynamic
            && r.redirect_uri.as_deref() == Some(config.redirect_uri.as_str())
    }) {
        return Ok(Choice::Use(r.clone()));
    }
    if let (Some(url), true) = (&config.client_metadata_url, meta.client_id_metadata_document_supported) {
        return Ok(Choice::Use(ClientRegistration {
            issuer: meta.issuer.clone(),
            client_id: url.clone(),
            client_secret: None,
            auth_method: TokenAuthMethod::None,
            source: RegistrationSource::MetadataDocument,
            redirect_uri: None,
        }));
    }
    match &meta.registration_endpoint {
        Some(endpoint) => Ok(Choice::Register(endpoint.clone())),
        None => Err(OAuthError::NoClientRegistration { issuer: clip(&meta.issuer, 200) }),
    }
}

/// The RFC 7591 registration request body and the auth method it asks for.
pub(crate) fn registration_request(
    config: &AuthConfig,
    meta: &AuthServerMetadata,
) -> (Vec<u8>, TokenAuthMethod) {
    let methods = meta.auth_methods();
    // Prefer a public client when the server allows it; otherwise ask for a secret.
    let method = if methods.iter().any(|m| m == "none") {
        TokenAuthMethod::None
    } else {
        choose_auth_method(&methods, true)
    };
    let native = check_redirect_uri(&config.redirect_uri).is_ok_and(|u| is_loopback(&u));
    let body = json!({
        "client_name": config.client_name,
        "redirect_uris": [config.redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": method.as_str(),
        "application_type": if native { "native" } else { "web" },
    });
    (serde_json::to_vec(&body).unwrap_or_default(), method)
}

/// Parses a registration response (RFC 7591 §3.2).
pub(crate) fn parse_registration_response(
    config: &AuthConfig,
    issuer: &str,
    status: u16,
    body: &[u8],
    requested: TokenAuthMethod,
) -> Result<ClientRegistration, OAuthError> {
    let value: Option<Value> =
        (body.len() <= MAX_REGISTRATION_BYTES).then(|| serde_json::from_slice(body).ok()).flatten();
    let fail = |error| OAuthError::RegistrationFailed { issuer: clip(issuer, 200), status, error };
    if !(200..300).contains(&status) {
        let code = value.as_ref().and_then(|v| v.get("error")).and_then(Value::as_str);
        return Err(fail(code.map(OAuthErrorCode::parse)));
    }
    let Some(Value::Object(map)) = value else { return Err(fail(None)) };
    let text =
        |name: &str| map.get(name).and_then(Value::as_str).filter(|s| !s.is_empty() && s.len() <= 4096);
    let client_id = text("client_id").ok_or_else(|| fail(None))?;
    let client_secret = text("client_secret").map(Secret::new);
    let auth_method = match map.get("token_endpoint_auth_method").and_then(Value::as_str) {
        Some(m) => TokenAuthMethod::parse(m).ok_or_else(|| fail(None))?,
        // Omitted: a secret means RFC 7591's default (what was asked for, else basic); no
        // secret means a public client.
        None if client_secret.is_none() => TokenAuthMethod::None,
        None if requested == TokenAuthMethod::None => TokenAuthMethod::ClientSecretBasic,
        None => requested,
    };
    // Registration never asks for private_key_jwt, and the secret methods need a secret.
    if auth_method == TokenAuthMethod::PrivateKeyJwt
        || (auth_method != TokenAuthMethod::None && client_secret.is_none())
    {
        return Err(fail(None));
    }
    Ok(ClientRegistration {
        issuer: issuer.to_owned(),
        client_id: client_id.to_owned(),
        client_secret,
        auth_method,
        source: RegistrationSource::Dynamic,
        redirect_uri: Some(config.redirect_uri.clone()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oauth::config::PreRegisteredClient;

    fn meta(extra: impl FnOnce(&mut AuthServerMetadata)) -> AuthServerMetadata {
        let mut m = AuthServerMetadata::defaults("https://as.example");
        m.defaulted = false;
        m.registration_endpoint = Some("https://as.example/register".into());
        extra(&mut m);
        m
    }

    fn cfg() -> AuthConfig {
        AuthConfig::authorization_code("http://127.0.0.1:5/cb")
    }

    #[test]
    fn priority_order() {
        let mut c = cfg();
        c.client_metadata_url = Some("https://app.example/client.json".into());
        let cimd = meta(|m| m.client_id_metadata_document_supported = true);
        // Without pre-registration: CIMD when supported, else DCR.
        assert!(
            matches!(choose(&c, &[], &cimd), Ok(Choice::Use(r)) if r.source == RegistrationSource::MetadataDocument)
        );
        assert!(matches!(choose(&c, &[], &meta(|_| {})), Ok(Choice::Register(_))));
        // Pre-registered wins; the issuer's entry over a pre-registered metadata document URL.
        let any = "https://app.example/any.json";
        c.pre_registered = vec![
            PreRegisteredClient::metadata_document(any),
            PreRegisteredClient::for_issuer("https://as.example/", "mine", Some("s")),
        ];
        let Ok(Choice::Use(r)) = choose(&c, &[], &cimd) else { panic!() };
        assert_eq!((r.client_id.as_str(), r.auth_method), ("mine", TokenAuthMethod::ClientSecretBasic));
        c.pre_registered.remove(1);
        let Ok(Choice::Use(r)) = choose(&c, &[], &cimd) else { panic!() };
        assert_eq!(r.client_id, any, "a metadata document URL answers for every issuer");
        // Credentials of another issuer are never offered, even beside a way to register.
        c.pre_registered =
            vec![PreRegisteredClient::for_issuer("https://other.example", "theirs", Some("s"))];
        let Err(OAuthError::IssuerMismatch { configured, discovered }) = choose(&c, &[], &cimd) else {
            panic!()
        };
        assert_eq!(
            (configured.as_str(), discovered.as_str()),
            ("https://other.example", "https://as.example")
        );
        // A key: private_key_jwt without a secret, or when the server lists it.
        c.pre_registered =
            vec![PreRegisteredClient::for_issuer("https://as.example", "k", None).with_private_key("pem")];
        c.pre_registered[0].auth_method = None;
        let Ok(Choice::Use(r)) = choose(&c, &[], &cimd) else { panic!() };
        assert_eq!(r.auth_method, TokenAuthMethod::PrivateKeyJwt);
        c.pre_registered[0].client_secret = Some(Secret::new("s"));
        let Ok(Choice::Use(r)) = choose(&c, &[], &cimd) else { panic!() };
        assert_eq!(r.auth_method, TokenAuthMethod::ClientSecretBasic);
        let jwt = meta(|m| m.token_endpoint_auth_methods_supported = Some(vec!["private_key_jwt".into()]));
        let Ok(Choice::Use(r)) = choose(&c, &[], &jwt) else { panic!() };
        assert_eq!(r.auth_method, TokenAuthMethod::PrivateKeyJwt);
        let none = meta(|m| m.registration_endpoint = None);
        assert!(matches!(choose(&cfg(), &[], &none), Err(OAuthError::NoClientRegistration { .. })));
    }

    #[test]
    fn stored_dynamic_registration_is_reused_per_issuer() {
        let reg = ClientRegistration {
            issuer: "https://as.example".into(),
            client_id: "dyn".into(),
            client_secret: None,
            auth_method: TokenAuthMethod::None,
            source: RegistrationSource::Dynamic,
            redirect_uri: Some("http://127.0.0.1:5/cb".into()),
        };
        assert!(
            matches!(choose(&cfg(), std::slice::from_ref(&reg), &meta(|_| {})), Ok(Choice::Use(r)) if r.client_id == "dyn")
        );
        let other = meta(|m| m.issuer = "https://as2.example".into());
        assert!(matches!(choose(&cfg(), &[reg], &other), Ok(Choice::Register(_))));
    }

    #[test]
    fn auth_method_choice() {
        let l = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(choose_auth_method(&l(&["client_secret_post"]), true), TokenAuthMethod::ClientSecretPost);
        assert_eq!(
            choose_auth_method(&l(&["client_secret_basic"]), true),
            TokenAuthMethod::ClientSecretBasic
        );
        assert_eq!(choose_auth_method(&l(&["none"]), false), TokenAuthMethod::None);
        assert_eq!(choose_auth_method(&l(&["private_key_jwt"]), true), TokenAuthMethod::ClientSecretBasic);
    }

    #[test]
    fn registration_request_and_response() {
        let m = meta(|m| m.token_endpoint_auth_methods_supported = Some(vec!["client_secret_post".into()]));
        let (body, method) = registration_request(&cfg(), &m);
        assert_eq!(method, TokenAuthMethod::ClientSecretPost);
        let v: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(v["application_type"], "native");
        assert_eq!(v["grant_types"][1], "refresh_token");
        assert_eq!(v["redirect_uris"][0], "http://127.0.0.1:5/cb");
        let r = parse_registration_response(
            &cfg(),
            "https://as.example",
            201,
            br#"{"client_id":"c","client_secret":"s"}"#,
            method,
        )
        .unwrap();
        assert_eq!(r.auth_method, TokenAuthMethod::ClientSecretPost);
        assert!(!format!("{r:?}").contains("\"s\""));
        let e = parse_registration_response(&cfg(), "i", 400, br#"{"error":"invalid_redirect_uri"}"#, method);
        assert!(matches!(
            e,
            Err(OAuthError::RegistrationFailed { error: Some(OAuthErrorCode::InvalidRedirectUri), .. })
        ));
        let public = parse_registration_response(&cfg(), "i", 201, br#"{"client_id":"c"}"#, method).unwrap();
        assert_eq!(public.auth_method, TokenAuthMethod::None, "no secret, no method: a public client");
        for bad in [
            &br#"{"client_secret":"s"}"#[..],
            br#"{"client_id":"c","token_endpoint_auth_method":"client_secret_basic"}"#,
            b"[]",
            br#"{"client_id":"c","token_endpoint_auth_method":"tls"}"#,
            br#"{"client_id":"c","client_secret":"s","token_endpoint_auth_method":"private_key_jwt"}"#,
        ] {
            assert!(parse_registration_response(&cfg(), "i", 201, bad, method).is_err());
        }
        let mut web = cfg();
        web.redirect_uri = "https://app.example/cb".into();
        let (body, _) = registration_request(&web, &meta(|_| {}));
        assert!(String::from_utf8(body).unwrap().contains("\"web\""));
    }
}
