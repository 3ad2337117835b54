//! The answers [`AuthFlow`] consumes: discovery documents, registration and token responses,
//! and the step each one leads to.

use std::time::Instant;

use crate::destination::Destination;
use crate::io::{HttpMethod, HttpRequest};
use crate::oauth::callback::{authorization_url, PendingAuthorization};
use crate::oauth::config::GrantType;
use crate::oauth::entropy::pkce_verifier;
use crate::oauth::error::OAuthError;
use crate::oauth::flow::{AuthFlow, AuthNotice, AuthStep};
use crate::oauth::metadata::{parse_auth_server_metadata, parse_resource_metadata, AuthServerMetadata};
use crate::oauth::phase::{FetchId, InFlight, Phase, Purpose};
use crate::oauth::registration::{choose, parse_registration_response, registration_request, Choice};
use crate::oauth::registration::{ClientRegistration, RegistrationSource};
use crate::oauth::secret::Secret;
use crate::oauth::url::{as_metadata_candidates, check_endpoint, clip};
use crate::redact::redact_url;

impl AuthFlow {
    /// The answer to [`AuthStep::Fetch`] `id`: its status, headers (a token endpoint's
    /// `DPoP-Nonce` is read from them) and whole body. Answers for an exchange the flow no
    /// longer waits for (a new challenge restarted it) are ignored.
    pub fn on_response(
        &mut self,
        now: Instant,
        id: FetchId,
        status: u16,
        headers: &[(String, String)],
        body: &[u8],
    ) {
        let Some(inflight) = self.phase_mut().take_fetch(id) else { return };
        let ok = (200..300).contains(&status);
        if inflight.purpose.is_token_request() {
            self.on_token_answer(now, inflight, status, headers, body);
            return;
        }
        let InFlight { url, purpose, .. } = inflight;
        match purpose {
            Purpose::Prm { .. } | Purpose::AsMeta { .. } if !ok => {
                self.next_candidate(now, purpose, &url, status)
            }
            Purpose::Prm { .. } => match parse_resource_metadata(&url, body, self.server_url()) {
                Ok(prm) => {
                    self.discovered_mut().set_prm(Some(prm));
                    self.select_auth_server(now);
                }
                Err(e) => self.fail(e),
            },
            Purpose::AsMeta { issuer, legacy, .. } => {
                let needs_pkce = self.config().grant == GrantType::AuthorizationCode;
                let destination = self.destination();
                match parse_auth_server_metadata(&url, body, &issuer, destination, needs_pkce, legacy) {
                    Ok(meta) => self.use_metadata(now, meta),
                    Err(e) => self.fail(e),
                }
            }
            Purpose::Register { method } => {
                let Some(issuer) = self.discovered().issuer().map(str::to_owned) else { return };
                match parse_registration_response(self.config(), &issuer, status, body, method) {
                    Ok(reg) => {
                        self.credentials_mut().keep_registration(reg.clone());
                        self.authorize(reg);
                    }
                    Err(e) => self.fail(e),
                }
            }
            // Token-endpoint answers went to `on_token_answer` above.
            _ => {}
        }
    }

    /// [`AuthStep::Fetch`] `id` could not be performed (connection refused, TLS, timeout):
    /// discovery moves on to the next well-known URL; anything else fails.
    pub fn on_fetch_failed(&mut self, now: Instant, id: FetchId, detail: &str) {
        let Some(InFlight { url, purpose, .. }) = self.phase_mut().take_fetch(id) else { return };
        match purpose {
            Purpose::Prm { .. } | Purpose::AsMeta { .. } => self.next_candidate(now, purpose, &url, 0),
            Purpose::Refresh { fallback: true } => self.after_metadata(now),
            _ => self.fail(OAuthError::FetchFailed {
                url: clip(&redact_url(&url), 200),
                detail: clip(detail, 200),
            }),
        }
    }

    /// The runtime refused fetch `id`: its host resolved only to addresses outside the flow's
    /// [`Destination`]. The flow fails with [`OAuthError::UnsafeAddress`] (no other candidate
    /// is tried: they share the host or were named by the same server).
    pub fn on_fetch_refused(&mut self, now: Instant, id: FetchId, refusal: &crate::UnsafeAddress) {
        // Like every answer it comes with the time, though failing needs none.
        let _ = now;
        if self.phase_mut().take_fetch(id).is_none() {
            return;
        }
        let crate::UnsafeAddress { url, address, class } = refusal.clone();
        self.fail(OAuthError::UnsafeAddress { url, address, class });
    }

    /// A discovery URL answered non-2xx (or failed): try the next, or fall back.
    fn next_candidate(&mut self, now: Instant, purpose: Purpose, url: &str, status: u16) {
        match purpose {
            Purpose::Prm { candidates, index, hinted } => {
                if index + 1 < candidates.len() {
                    self.fetch_candidate(Purpose::Prm { candidates, index: index + 1, hinted });
                } else if hinted {
                    self.fail(OAuthError::ResourceMetadataUnavailable {
                        url: clip(&redact_url(url), 200),
                        status,
                    });
                } else {
                    // 2025-03-26: no Protected Resource Metadata; the MCP server's origin is
                    // the authorization server.
                    self.discovered_mut().set_prm(None);
                    let issuer = self.server_url().origin();
                    self.emit(AuthStep::Notice(AuthNotice::LegacyDiscovery { issuer: issuer.clone() }));
                    self.discover_metadata(issuer, true);
                }
            }
            Purpose::AsMeta { issuer, candidates, index, legacy } => {
                if index + 1 < candidates.len() {
                    self.fetch_candidate(Purpose::AsMeta { issuer, candidates, index: index + 1, legacy });
                } else if legacy {
                    self.emit(AuthStep::Notice(AuthNotice::DefaultEndpoints { issuer: issuer.clone() }));
                    self.use_metadata(now, AuthServerMetadata::defaults(&issuer));
                } else {
                    self.fail(OAuthError::AuthServerMetadataUnavailable { issuer: clip(&issuer, 200) });
                }
            }
            _ => {}
        }
    }

    /// Picks the authorization server from the resource metadata: the first one listed for
    /// which a pre-registered client exists, else the first one.
    fn select_auth_server(&mut self, now: Instant) {
        let Some(prm) = self.discovered().prm() else { return };
        let preferred = prm.authorization_servers.iter().find(|a| {
            self.config()
                .pre_registered
                .iter()
                .any(|c| c.issuer.as_deref().is_some_and(|i| crate::oauth::url::issuer_matches(i, a)))
        });
        let Some(issuer) = preferred.or(prm.authorization_servers.first()).cloned() else { return };
        if let Some(meta) = self.discovered().meta().filter(|m| !m.defaulted && m.issuer == issuer).cloned() {
            self.use_metadata(now, meta);
        } else {
            self.discover_metadata(issuer, false);
        }
    }

    fn discover_metadata(&mut self, issuer: String, legacy: bool) {
        match check_endpoint(&issuer, self.destination()) {
            Ok(url) => {
                let candidates = as_metadata_candidates(&url);
                self.fetch_candidate(Purpose::AsMeta { issuer, candidates, index: 0, legacy });
            }
            Err(e) => self.fail(e),
        }
    }

    /// Adopts validated metadata. When it names another authorization server than the one in
    /// use, the grant in use is set aside and the new server's own is resumed if one was set
    /// aside ([`AuthStep::AuthServerChanged`]); a resumed token that is still good and covers
    /// the round's scopes ends the round at once, one about to expire is refreshed first.
    /// Tokens and a client of another authorization server are never kept in use (never
    /// presented to, or reused at, a server that did not issue them).
    fn use_metadata(&mut self, now: Instant, meta: AuthServerMetadata) {
        let switched = self.discovered().issuer().is_none_or(|i| i != meta.issuer);
        let held = self.credentials().tokens().is_some();
        let resource = self.resource().to_owned();
        let credentials = self.credentials_mut();
        let resumed = switched && credentials.switch_to(&meta.issuer, &resource);
        credentials.keep_for(&meta.issuer, &resource);
        let issuer = meta.issuer.clone();
        self.discovered_mut().set_meta(meta);
        if switched && (held || resumed) {
            self.emit(AuthStep::AuthServerChanged { issuer, resumed });
        }
        if resumed {
            if let Some(tokens) = self.resumable_as_is(now) {
                self.round_mut().set_try_refresh(false);
                self.done(tokens);
                return;
            }
            let covers = self.resumed_covers_round();
            self.round_mut().set_try_refresh(covers);
        }
        self.after_metadata(now);
    }

    /// The resumed tokens, if they can go out as they are: not about to expire, and holding
    /// every scope the round asks for.
    fn resumable_as_is(&self, now: Instant) -> Option<crate::oauth::token::Tokens> {
        let tokens = self.credentials().tokens()?;
        let fresh = !tokens.expires_within(now, self.config().refresh_margin);
        (fresh && self.resumed_covers_round()).then(|| tokens.clone())
    }

    /// Whether the tokens held carry every scope the round asks for (a refresh keeps the
    /// scopes, so it is worth trying only then).
    fn resumed_covers_round(&self) -> bool {
        let held = self.credentials().tokens().map(|t| t.scopes.as_slice()).unwrap_or_default();
        self.round().covered_by(held)
    }

    /// With the authorization server known: refresh, or obtain a client and a grant.
    pub(crate) fn after_metadata(&mut self, now: Instant) {
        let Some(meta) = self.discovered().meta().cloned() else { return };
        if self.round_mut().take_try_refresh() && self.can_refresh() {
            self.send_refresh(now, true);
            return;
        }
        let choice = match choose(self.config(), self.credentials().registrations(), &meta) {
            Ok(c) => c,
            Err(e) => return self.fail(e),
        };
        match choice {
            Choice::Use(reg) if self.config().grant != GrantType::AuthorizationCode => {
                self.start_grant(now, reg, &meta)
            }
            Choice::Use(reg) => self.authorize(reg),
            Choice::Register(endpoint) => {
                self.emit(AuthStep::Notice(AuthNotice::DynamicClientRegistration {
                    issuer: meta.issuer.clone(),
                }));
                let (body, method) = registration_request(self.config(), &meta);
                let request = HttpRequest {
                    method: HttpMethod::Post,
                    url: endpoint,
                    headers: vec![
                        ("Content-Type".to_owned(), "application/json".to_owned()),
                        ("Accept".to_owned(), "application/json".to_owned()),
                    ],
                    body,
                    connect_timeout: self.config().connect_timeout,
                    destination: Destination::Any,
                };
                self.send(request, Purpose::Register { method }, false, false);
            }
        }
    }

    /// Records a pending authorization (PKCE verifier, `state`, issuer, client, scopes) and
    /// asks the host to open the authorization URL.
    fn authorize(&mut self, client: ClientRegistration) {
        let Some(meta) = self.discovered().meta().cloned() else { return };
        let endpoint =
            match meta.authorization_endpoint.as_deref().map(|e| check_endpoint(e, self.destination())) {
                Some(Ok(u)) => u,
                Some(Err(e)) => return self.fail(e),
                None => {
                    return self.fail(OAuthError::MissingEndpoint {
                        issuer: clip(&meta.issuer, 200),
                        endpoint: "authorization_endpoint",
                    })
                }
            };
        let scopes = self.scopes_for_request(&meta);
        let pending = PendingAuthorization {
            state: Secret::new(self.entropy_mut().token(24)),
            verifier: pkce_verifier(self.entropy_mut()),
            issuer: meta.issuer.clone(),
            iss_supported: meta.iss_parameter_supported,
            client: client.clone(),
            redirect_uri: self.config().redirect_uri.clone(),
            scopes: scopes.clone(),
            resource: self.resource().to_owned(),
            token_endpoint: meta.token_endpoint.clone(),
        };
        let url = authorization_url(&endpoint, &pending);
        self.scopes_mut().set_requested(scopes);
        self.credentials_mut().use_client(client);
        *self.phase_mut() = Phase::AwaitingCallback(Box::new(pending));
        self.emit(AuthStep::Authorize { url });
    }

    pub(crate) fn finish_tokens(&mut self, result: Result<crate::oauth::token::Tokens, OAuthError>) {
        match result {
            Ok(tokens) => {
                self.credentials_mut().use_tokens(tokens.clone());
                self.done(tokens);
            }
            Err(e) => self.fail(e),
        }
    }

    /// Whether a registration came from dynamic registration and is kept for reuse.
    pub(crate) fn is_kept(r: &ClientRegistration) -> bool {
        r.source == RegistrationSource::Dynamic
    }
}
