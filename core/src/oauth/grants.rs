//! Token requests and their answers for every grant: client authentication (including the
//! `private_key_jwt` assertion), DPoP proofs and the authorization server's DPoP nonce, the JWT
//! bearer grant and the SEP-990 token exchange in front of it.

use std::time::Instant;

use serde_json::{json, Value};

use crate::oauth::config::DpopPolicy;
use crate::oauth::config::GrantType;
use crate::oauth::error::{OAuthError, OAuthErrorCode};
use crate::oauth::exchange::{exchange_request, parse_exchange_response};
use crate::oauth::flow::AuthFlow;
use crate::oauth::jwt::EsKey;
use crate::oauth::metadata::AuthServerMetadata;
use crate::oauth::phase::{InFlight, Purpose};
use crate::oauth::registration::{ClientRegistration, TokenAuthMethod};
use crate::oauth::token::{parse_token_response, token_request, Grant, TokenContext};
use crate::oauth::url::{check_endpoint, issuer_matches};

/// Lifetime of a `private_key_jwt` client assertion, in seconds.
const ASSERTION_LIFETIME: u64 = 300;

impl AuthFlow {
    /// With a client at the authorization server `meta`: the token request of a grant that
    /// needs no browser (client credentials, JWT bearer), or the token exchange at the
    /// identity provider that comes before the JWT bearer grant (enterprise-managed).
    pub(crate) fn start_grant(
        &mut self,
        now: Instant,
        client: ClientRegistration,
        meta: &AuthServerMetadata,
    ) {
        let scopes = self.scopes_for_request(meta);
        self.scopes_mut().set_requested(scopes.clone());
        self.credentials_mut().use_client(client);
        match self.config().grant {
            GrantType::AuthorizationCode => {}
            GrantType::ClientCredentials => {
                self.send_token(now, Purpose::ClientCredentials { scopes }, false)
            }
            _ if self.assertion_rejected() => self.fail(OAuthError::AssertionRejected),
            GrantType::JwtBearer => match self.config().assertion.clone() {
                Some(assertion) => self.send_token(now, Purpose::JwtBearer { scopes, assertion }, false),
                None => self.fail(OAuthError::InvalidConfig("no assertion".into())),
            },
            GrantType::EnterpriseManaged => {
                let Some(idp) = self.config().identity_provider.clone() else {
                    return self.fail(OAuthError::InvalidConfig("no identity provider".into()));
                };
                if let Err(e) = check_endpoint(&idp.token_endpoint, self.destination()) {
                    return self.fail(e);
                }
                let scope = scopes.join(" ");
                let request = exchange_request(
                    &idp,
                    &meta.issuer,
                    self.resource(),
                    (!scope.is_empty()).then_some(scope.as_str()),
                    self.config().connect_timeout,
                );
                self.send(request, Purpose::Exchange { scopes }, false, false);
            }
        }
    }

    /// Sends the token-endpoint request of `purpose` with client authentication and, when DPoP
    /// is in use, a proof (carrying the server's nonce once known). `retried` marks the one
    /// retry after a `use_dpop_nonce` answer.
    pub(crate) fn send_token(&mut self, now: Instant, purpose: Purpose, retried: bool) {
        let Some(meta) = self.discovered().meta().cloned() else {
            return self.fail(OAuthError::InvalidConfig("no authorization server".into()));
        };
        let (endpoint, client, resource) = match &purpose {
            Purpose::Code { pending, .. } => {
                (pending.token_endpoint.clone(), pending.client.clone(), pending.resource.clone())
            }
            Purpose::Refresh { .. } => match (self.credentials().tokens(), self.credentials().client()) {
                (Some(t), Some(c)) => (meta.token_endpoint.clone(), c.clone(), t.resource.clone()),
                _ => return self.fail(OAuthError::NoRefreshToken),
            },
            _ => match self.credentials().client() {
                Some(c) => (meta.token_endpoint.clone(), c.clone(), self.resource().to_owned()),
                None => return self.fail(OAuthError::NoClientRegistration { issuer: meta.issuer.clone() }),
            },
        };
        let assertion = match self.client_assertion(now, &client) {
            Ok(a) => a,
            Err(e) => return self.fail(e),
        };
        let dpop = self.wants_dpop(&meta);
        let proof = if dpop {
            match self.jwt_now(now) {
                Ok(unix) => {
                    let (dpop, entropy) = self.dpop_with_entropy();
                    let nonce = dpop.as_nonce_for(&endpoint);
                    Some(dpop.proof(entropy, unix, "POST", &endpoint, None, nonce.as_deref()))
                }
                Err(e) => return self.fail(e),
            }
        } else {
            None
        };
        let refresh_token = self.credentials().tokens().and_then(|t| t.refresh_token.clone());
        let scope = match &purpose {
            Purpose::ClientCredentials { scopes } | Purpose::JwtBearer { scopes, .. } => scopes.join(" "),
            _ => String::new(),
        };
        let scope = (!scope.is_empty()).then_some(scope.as_str());
        let grant = match &purpose {
            Purpose::Code { pending, code } => Grant::AuthorizationCode {
                code,
                verifier: &pending.verifier,
                redirect_uri: &pending.redirect_uri,
            },
            Purpose::Refresh { .. } => match &refresh_token {
                Some(rt) => Grant::Refresh { refresh_token: rt },
                None => return self.fail(OAuthError::NoRefreshToken),
            },
            Purpose::ClientCredentials { .. } => Grant::ClientCredentials { scope },
            Purpose::JwtBearer { assertion, .. } => Grant::JwtBearer { assertion, scope },
            _ => return,
        };
        let mut request = token_request(
            &endpoint,
            &client,
            &grant,
            &resource,
            self.config().connect_timeout,
            assertion.as_deref(),
        );
        if let Some(p) = proof {
            request.headers.push(("DPoP".to_owned(), p));
        }
        self.send(request, purpose, dpop, retried);
    }

    /// The answer of a token-endpoint request (or of the token exchange).
    pub(crate) fn on_token_answer(
        &mut self,
        now: Instant,
        inflight: InFlight,
        status: u16,
        headers: &[(String, String)],
        body: &[u8],
    ) {
        let InFlight { url, purpose, dpop, retried, .. } = inflight;
        if dpop {
            let nonce = headers.iter().find(|(n, _)| n.eq_ignore_ascii_case("dpop-nonce")).map(|(_, v)| v);
            if let Some(n) = nonce.filter(|n| valid_nonce(n)) {
                self.dpop_mut().set_as_nonce(url, n.clone());
                if !retried && status == 400 && error_code(body).as_deref() == Some("use_dpop_nonce") {
                    return self.send_token(now, purpose, true);
                }
            }
        }
        let meta = self.discovered().meta().cloned();
        let resource = self.resource().to_owned();
        match purpose {
            Purpose::Exchange { scopes } => match parse_exchange_response(status, body) {
                Ok(id_jag) => self.send_token(now, Purpose::JwtBearer { scopes, assertion: id_jag }, false),
                Err(e) => {
                    if matches!(
                        &e,
                        OAuthError::TokenExchangeRejected { error: OAuthErrorCode::InvalidGrant, .. }
                    ) {
                        self.reject_assertion();
                    }
                    self.fail(e);
                }
            },
            Purpose::Code { pending, .. } => {
                let ctx = TokenContext {
                    requested_scopes: &pending.scopes,
                    issuer: &pending.issuer,
                    resource: &pending.resource,
                    previous_refresh: None,
                    dpop,
                };
                let result = parse_token_response(now, status, body, &ctx);
                self.finish_tokens(result);
            }
            Purpose::ClientCredentials { scopes } | Purpose::JwtBearer { scopes, .. } => {
                let Some(meta) = meta else { return };
                let ctx = TokenContext {
                    requested_scopes: &scopes,
                    issuer: &meta.issuer,
                    resource: &resource,
                    previous_refresh: None,
                    dpop,
                };
                let result = parse_token_response(now, status, body, &ctx);
                if matches!(result, Err(OAuthError::TokenRejected { .. }))
                    && self.config().grant == GrantType::JwtBearer
                {
                    // SEP-1933: a refused assertion is not retried, nor another grant tried.
                    self.reject_assertion();
                }
                self.finish_tokens(result);
            }
            Purpose::Refresh { fallback } => {
                let Some(old) = self.credentials().tokens().cloned() else { return };
                let ctx = TokenContext {
                    requested_scopes: &old.scopes,
                    issuer: &old.issuer,
                    resource: &old.resource,
                    previous_refresh: old.refresh_token.as_ref(),
                    dpop,
                };
                match parse_token_response(now, status, body, &ctx) {
                    Ok(t) => self.finish_tokens(Ok(t)),
                    Err(e) => {
                        let grant_dead = matches!(
                            &e,
                            OAuthError::TokenRejected { error: OAuthErrorCode::InvalidGrant, .. }
                        );
                        if grant_dead || fallback {
                            self.credentials_mut().drop_refresh_token();
                        }
                        if fallback {
                            self.after_metadata(now);
                        } else {
                            self.fail(e);
                        }
                    }
                }
            }
            Purpose::Prm { .. } | Purpose::AsMeta { .. } | Purpose::Register { .. } => {}
        }
    }

    /// Whether token requests to this authorization server carry DPoP proofs.
    fn wants_dpop(&self, meta: &AuthServerMetadata) -> bool {
        match self.config().dpop {
            DpopPolicy::Never => false,
            DpopPolicy::Always => true,
            DpopPolicy::Auto => meta.supports_dpop_es256(),
        }
    }

    /// The `private_key_jwt` assertion for `client` (RFC 7523 §2.2): `iss` = `sub` = the
    /// client id, `aud` = the authorization server's issuer, five minutes of validity, a
    /// fresh `jti`. `None` for the other methods.
    fn client_assertion(
        &mut self,
        now: Instant,
        client: &ClientRegistration,
    ) -> Result<Option<String>, OAuthError> {
        if client.auth_method != TokenAuthMethod::PrivateKeyJwt {
            return Ok(None);
        }
        let pem = self
            .config()
            .pre_registered
            .iter()
            .filter(|c| c.client_id == client.client_id)
            .filter(|c| c.issuer.as_deref().is_none_or(|i| issuer_matches(i, &client.issuer)))
            .find_map(|c| c.private_key.clone())
            .ok_or_else(|| OAuthError::InvalidConfig("private_key_jwt without a private key".into()))?;
        let key = EsKey::from_pem(pem.expose())?;
        let iat = self.jwt_now(now)?;
        let claims = json!({
            "iss": client.client_id,
            "sub": client.client_id,
            "aud": client.issuer,
            "iat": iat,
            "exp": iat + ASSERTION_LIFETIME,
            "jti": self.entropy_mut().token(16),
        });
        Ok(Some(key.sign(json!({"typ": "JWT"}), &claims)))
    }
}

/// A nonce fit for a header and a JWT claim: 1 to 512 visible ASCII characters.
pub(crate) fn valid_nonce(n: &str) -> bool {
    !n.is_empty() && n.len() <= 512 && n.bytes().all(|b| (0x21..=0x7e).contains(&b))
}

/// The `error` member of a JSON error body.
fn error_code(body: &[u8]) -> Option<String> {
    if body.len() > crate::oauth::MAX_TOKEN_RESPONSE_BYTES {
        return None;
    }
    let v: Value = serde_json::from_slice(body).ok()?;
    v.get("error")?.as_str().map(str::to_owned)
}
