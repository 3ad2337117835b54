//! The answers [`AuthFlow`] consumes: discovery documents, registration and token responses,
//! and the step each one leads to.

use std::time::Instant;

use crate::destination::Destination;
use crate::io::{HttpMethod, HttpRequest};
use crate::oauth::callback::{authorization_url, PendingAuthorization};
use crate::oauth::config::GrantType;
use crate::oauth::entropy::pkce_verifier;
use crate::oauth::flow::{AuthFlow, AuthNotice, AuthStep, FetchId, InFlight, Purpose};
use crate::oauth::metadata::{parse_auth_server_metadata, parse_resource_metadata, AuthServerMetadata};
use crate::oauth::registration::{choose, parse_registration_response, registration_request, Choice};
use crate::oauth::registration::{ClientRegistration, RegistrationSource};
use crate::oauth::url::{as_metadata_candidates, check_endpoint, clip};
use crate::oauth::{OAuthError, Secret};
use crate::redact::redact_url;

/// Most client registrations kept (one per authorization server met).
pub const MAX_REGISTRATIONS: usize = 16;

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
        self.now = Some(now);
        let Some(inflight) = self.take_inflight(id) else { return };
        let ok = (200..300).contains(&status);
        if matches!(
            inflight.purpose,
            Purpose::Code { .. }
                | Purpose::Refresh { .. }
                | Purpose::ClientCredentials { .. }
                | Purpose::JwtBearer { .. }
                | Purpose::Exchange { .. }
        ) {
            self.on_token_answer(now, inflight, status, headers, body);
            return;
        }
        let InFlight { url, purpose, .. } = inflight;
        match purpose {
            Purpose::Prm { .. } | Purpose::AsMeta { .. } if !ok => self.next_candidate(purpose, &url, status),
            Purpose::Prm { .. } => match parse_resource_metadata(&url, body, &self.server) {
                Ok(prm) => {
                    self.prm = Some(prm);
                    self.select_auth_server();
                }
                Err(e) => self.fail(e),
            },
            Purpose::AsMeta { issuer, legacy, .. } => {
                let needs_pkce = self.config.grant == GrantType::AuthorizationCode;
                let destination = self.destination();
                match parse_auth_server_metadata(&url, body, &issuer, destination, needs_pkce, legacy) {
                    Ok(meta) => self.use_metadata(meta),
                    Err(e) => self.fail(e),
                }
            }
            Purpose::Register { method } => {
                let Some(issuer) = self.meta.as_ref().map(|m| m.issuer.clone()) else { return };
                match parse_registration_response(&self.config, &issuer, status, body, method) {
                    Ok(reg) => {
                        self.registrations.retain(|r| r.issuer != reg.issuer);
                        if self.registrations.len() >= MAX_REGISTRATIONS {
                            self.registrations.remove(0);
                        }
                        self.registrations.push(reg.clone());
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
        self.now = Some(now);
        let Some(InFlight { url, purpose, .. }) = self.take_inflight(id) else { return };
        match purpose {
            Purpose::Prm { .. } | Purpose::AsMeta { .. } => self.next_candidate(purpose, &url, 0),
            Purpose::Refresh { fallback: true } => self.after_metadata(),
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
        self.now = Some(now);
        if self.take_inflight(id).is_none() {
            return;
        }
        let crate::UnsafeAddress { url, address, class } = refusal.clone();
        self.fail(OAuthError::UnsafeAddress { url, address, class });
    }

    fn take_inflight(&mut self, id: FetchId) -> Option<InFlight> {
        match self.inflight.take() {
            Some(i) if i.id == id => Some(i),
            other => {
                self.inflight = other;
                None
            }
        }
    }

    /// A discovery URL answered non-2xx (or failed): try the next, or fall back.
    fn next_candidate(&mut self, purpose: Purpose, url: &str, status: u16) {
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
                    self.prm = None;
                    let issuer = self.server.origin();
                    self.steps
                        .push_back(AuthStep::Notice(AuthNotice::LegacyDiscovery { issuer: issuer.clone() }));
                    self.discover_metadata(issuer, true);
                }
            }
            Purpose::AsMeta { issuer, candidates, index, legacy } => {
                if index + 1 < candidates.len() {
                    self.fetch_candidate(Purpose::AsMeta { issuer, candidates, index: index + 1, legacy });
                } else if legacy {
                    self.steps
                        .push_back(AuthStep::Notice(AuthNotice::DefaultEndpoints { issuer: issuer.clone() }));
                    self.use_metadata(AuthServerMetadata::defaults(&issuer));
                } else {
                    self.fail(OAuthError::AuthServerMetadataUnavailable { issuer: clip(&issuer, 200) });
                }
            }
            _ => {}
        }
    }

    /// Picks the authorization server from the resource metadata: the first one listed for
    /// which a pre-registered client exists, else the first one.
    fn select_auth_server(&mut self) {
        let Some(prm) = &self.prm else { return };
        let preferred = prm.authorization_servers.iter().find(|a| {
            self.config
                .pre_registered
                .iter()
                .any(|c| c.issuer.as_deref().is_some_and(|i| crate::oauth::url::issuer_matches(i, a)))
        });
        let Some(issuer) = preferred.or(prm.authorization_servers.first()).cloned() else { return };
        if let Some(meta) = self.meta.clone().filter(|m| !m.defaulted && m.issuer == issuer) {
            self.use_metadata(meta);
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
    fn use_metadata(&mut self, meta: AuthServerMetadata) {
        let switched = self.meta.as_ref().is_none_or(|m| m.issuer != meta.issuer);
        let held = self.tokens.is_some();
        let resumed = switched && self.switch_grant(&meta.issuer);
        if self.tokens.as_ref().is_some_and(|t| t.issuer != meta.issuer) {
            self.tokens = None;
        }
        if self.client.as_ref().is_some_and(|c| c.issuer != meta.issuer) {
            self.client = None;
        }
        if self.tokens.as_ref().is_some_and(|t| t.resource != self.resource()) {
            // Obtained for another audience (the resource metadata changed its `resource`).
            self.tokens = None;
        }
        let issuer = meta.issuer.clone();
        self.meta = Some(meta);
        if switched && (held || resumed) {
            self.steps.push_back(AuthStep::AuthServerChanged { issuer, resumed });
        }
        if resumed {
            if let Some(tokens) = self.resumable_as_is() {
                self.round.try_refresh = false;
                self.steps.push_back(AuthStep::Done(tokens));
                return;
            }
            self.round.try_refresh = self.resumed_covers_round();
        }
        self.after_metadata();
    }

    /// The resumed tokens, if they can go out as they are: not about to expire, and holding
    /// every scope the round asks for.
    fn resumable_as_is(&self) -> Option<crate::oauth::Tokens> {
        let now = self.now?;
        let tokens = self.tokens.as_ref()?;
        let fresh = !tokens.expires_within(now, self.config.refresh_margin);
        (fresh && self.resumed_covers_round()).then(|| tokens.clone())
    }

    /// Whether the tokens held carry every scope the round asks for (a refresh keeps the
    /// scopes, so it is worth trying only then).
    fn resumed_covers_round(&self) -> bool {
        let held = self.tokens.as_ref().map(|t| t.scopes.as_slice()).unwrap_or_default();
        self.round.scopes.as_ref().is_none_or(|wanted| wanted.iter().all(|s| held.contains(s)))
    }

    /// With the authorization server known: refresh, or obtain a client and a grant.
    pub(crate) fn after_metadata(&mut self) {
        let Some(meta) = self.meta.clone() else { return };
        if self.round.try_refresh && self.can_refresh() {
            self.round.try_refresh = false;
            self.send_refresh(true);
            return;
        }
        self.round.try_refresh = false;
        let choice = match choose(&self.config, &self.registrations, &meta) {
            Ok(c) => c,
            Err(e) => return self.fail(e),
        };
        match choice {
            Choice::Use(reg) if self.config.grant != GrantType::AuthorizationCode => {
                self.start_grant(reg, &meta)
            }
            Choice::Use(reg) => self.authorize(reg),
            Choice::Register(endpoint) => {
                self.steps.push_back(AuthStep::Notice(AuthNotice::DynamicClientRegistration {
                    issuer: meta.issuer.clone(),
                }));
                let (body, method) = registration_request(&self.config, &meta);
                let request = HttpRequest {
                    method: HttpMethod::Post,
                    url: endpoint,
                    headers: vec![
                        ("Content-Type".to_owned(), "application/json".to_owned()),
                        ("Accept".to_owned(), "application/json".to_owned()),
                    ],
                    body,
                    connect_timeout: self.config.connect_timeout,
                    destination: Destination::Any,
                };
                self.send(request, Purpose::Register { method });
            }
        }
    }

    /// Records a pending authorization (PKCE verifier, `state`, issuer, client, scopes) and
    /// asks the host to open the authorization URL.
    fn authorize(&mut self, client: ClientRegistration) {
        let Some(meta) = self.meta.clone() else { return };
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
            state: Secret::new(self.entropy.token(24)),
            verifier: pkce_verifier(&mut self.entropy),
            issuer: meta.issuer.clone(),
            iss_supported: meta.iss_parameter_supported,
            client: client.clone(),
            redirect_uri: self.config.redirect_uri.clone(),
            scopes: scopes.clone(),
            resource: self.resource().to_owned(),
            token_endpoint: meta.token_endpoint.clone(),
        };
        let url = authorization_url(&endpoint, &pending);
        self.requested_scopes = scopes;
        self.client = Some(client);
        self.awaiting = Some(pending);
        self.steps.push_back(AuthStep::Authorize { url });
    }

    pub(crate) fn finish_tokens(&mut self, result: Result<crate::oauth::Tokens, OAuthError>) {
        match result {
            Ok(tokens) => {
                self.tokens = Some(tokens.clone());
                self.steps.push_back(AuthStep::Done(tokens));
            }
            Err(e) => self.fail(e),
        }
    }

    /// The registrations obtained by dynamic registration, one per authorization server.
    pub fn registrations(&self) -> &[ClientRegistration] {
        &self.registrations
    }

    /// Whether a registration came from dynamic registration and is kept for reuse.
    pub(crate) fn is_kept(r: &ClientRegistration) -> bool {
        r.source == RegistrationSource::Dynamic
    }
}
