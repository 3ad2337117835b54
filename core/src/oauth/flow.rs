//! [`AuthFlow`]: the sans-IO state machine that takes a `401`/`403` challenge to a token.
//! The step handlers that react to answers live in `flow_steps.rs`.

use std::collections::VecDeque;
use std::fmt;
use std::time::Instant;

use crate::destination::Destination;
use crate::headers::parse_www_authenticate;
use crate::http_url::HttpUrl;
use crate::io::HttpRequest;
use crate::oauth::callback::{check_callback, PendingAuthorization};
use crate::oauth::config::{AuthConfig, GrantType};
use crate::oauth::entropy::{Entropy, MIN_ENTROPY_BYTES};
use crate::oauth::jwt::EsKey;
use crate::oauth::metadata::{AuthServerMetadata, ResourceMetadata};
use crate::oauth::registration::{ClientRegistration, TokenAuthMethod};
use crate::oauth::set_aside::SetAside;
use crate::oauth::token::{TokenType, Tokens};
use crate::oauth::url::{canonical_resource, check_endpoint, is_loopback, prm_candidates};
use crate::oauth::{OAuthError, Secret};

/// Names one HTTP exchange the flow asked for; pass it back to [`AuthFlow::on_response`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FetchId(pub(crate) u64);

impl fmt::Display for FetchId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "oauth-fetch-{}", self.0)
    }
}

/// Something the host should know but need not act on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuthNotice {
    /// Dynamic client registration is used: it is deprecated in favour of Client ID Metadata
    /// Documents (configure [`AuthConfig::client_metadata_url`]) or pre-registration.
    DynamicClientRegistration {
        /// The issuer registered with.
        issuer: String,
    },
    /// The server publishes no Protected Resource Metadata: the 2025-03-26 fallback (the
    /// authorization server at the MCP server's origin) is used.
    LegacyDiscovery {
        /// The origin used as the issuer.
        issuer: String,
    },
    /// No authorization server metadata either: the default `/authorize`, `/token` and
    /// `/register` endpoints at the origin are used (2025-03-26).
    DefaultEndpoints {
        /// The origin.
        issuer: String,
    },
}

/// What the host does next, from [`AuthFlow::poll`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuthStep {
    /// Perform this HTTP request (no redirects followed, body capped by the host at a sane
    /// size) and report the answer with [`AuthFlow::on_response`] or the failure with
    /// [`AuthFlow::on_fetch_failed`].
    Fetch {
        /// Names the exchange.
        id: FetchId,
        /// The request.
        request: HttpRequest,
    },
    /// Open this URL in the user's browser, then pass the redirect's query string to
    /// [`AuthFlow::on_callback`].
    Authorize {
        /// The authorization URL.
        url: String,
    },
    /// Informational.
    Notice(AuthNotice),
    /// The MCP server's authorization server changed to `issuer`: the previous one's grant
    /// was set aside (kept under its issuer, never presented while set aside), and `issuer`'s
    /// own grant, set aside earlier, was taken back if `resumed`. Persist
    /// [`AuthFlow::stored`] now, replacing the server's record, so that no store keeps the old
    /// token as the server's current one; then go on polling.
    AuthServerChanged {
        /// The issuer now in use.
        issuer: String,
        /// Its grant was set aside earlier and is in use again (no new sign-in needed).
        resumed: bool,
    },
    /// Authorized: retry the MCP request with [`Tokens::authorization_header`].
    Done(Tokens),
    /// The flow gave up; a new challenge starts over.
    Failed(OAuthError),
}

/// Why the current exchange was sent.
#[derive(Debug)]
pub(crate) enum Purpose {
    Prm {
        candidates: Vec<String>,
        index: usize,
        hinted: bool,
    },
    AsMeta {
        issuer: String,
        candidates: Vec<String>,
        index: usize,
        legacy: bool,
    },
    Register {
        method: TokenAuthMethod,
    },
    Code {
        pending: Box<PendingAuthorization>,
        code: Secret,
    },
    Refresh {
        fallback: bool,
    },
    ClientCredentials {
        scopes: Vec<String>,
    },
    JwtBearer {
        scopes: Vec<String>,
        assertion: Secret,
    },
    /// The SEP-990 token exchange at the identity provider.
    Exchange {
        scopes: Vec<String>,
    },
}

/// One in-flight exchange.
#[derive(Debug)]
pub(crate) struct InFlight {
    pub id: FetchId,
    pub url: String,
    pub purpose: Purpose,
    /// The request carried a DPoP proof.
    pub dpop: bool,
    /// It is already the retry with the authorization server's `DPoP-Nonce`.
    pub retried: bool,
}

/// What the current round (one challenge or refresh) aims for.
#[derive(Debug, Default)]
pub(crate) struct Round {
    /// Scopes to request: the challenge's (union with earlier ones on a step-up), else `None`
    /// (the Protected Resource Metadata's `scopes_supported` is used).
    pub scopes: Option<Vec<String>>,
    /// Try the refresh token before a new authorization.
    pub try_refresh: bool,
}

/// The OAuth 2.1 authorization flow of one MCP server, driven by the host. See the
/// [module documentation](crate::oauth) for the loop.
pub struct AuthFlow {
    pub(crate) server: HttpUrl,
    pub(crate) server_loopback: bool,
    pub(crate) default_resource: String,
    pub(crate) config: AuthConfig,
    pub(crate) entropy: Entropy,
    next_id: u64,
    pub(crate) steps: VecDeque<AuthStep>,
    pub(crate) inflight: Option<InFlight>,
    pub(crate) awaiting: Option<PendingAuthorization>,
    pub(crate) prm: Option<ResourceMetadata>,
    pub(crate) meta: Option<AuthServerMetadata>,
    pub(crate) registrations: Vec<ClientRegistration>,
    pub(crate) client: Option<ClientRegistration>,
    pub(crate) tokens: Option<Tokens>,
    /// Grants of authorization servers the MCP server named before, by issuer.
    pub(crate) set_aside: Vec<SetAside>,
    pub(crate) requested_scopes: Vec<String>,
    pub(crate) step_ups: u32,
    pub(crate) round: Round,
    /// The host's wall clock at one instant (see [`AuthFlow::set_wall_clock`]).
    pub(crate) wall: Option<(Instant, u64)>,
    /// The last `DPoP-Nonce` the MCP server sent (RFC 9449 §9).
    pub(crate) resource_nonce: Option<String>,
    /// The last `DPoP-Nonce` an authorization server sent, with its token endpoint (§8).
    pub(crate) as_nonce: Option<(String, String)>,
    /// The DPoP key, derived from the entropy on first use (or restored).
    pub(crate) dpop_key: Option<EsKey>,
    /// A `use_dpop_nonce` challenge was answered with a retry and no request succeeded since.
    pub(crate) rs_nonce_retried: bool,
    /// The JWT bearer assertion (or the ID token behind it) was refused.
    pub(crate) assertion_rejected: bool,
    /// The `now` of the latest call (the time JWTs are issued at).
    pub(crate) now: Option<Instant>,
}

impl fmt::Debug for AuthFlow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AuthFlow")
            .field("server", &self.server)
            .field("issuer", &self.meta.as_ref().map(|m| &m.issuer))
            .field("client", &self.client)
            .field("tokens", &self.tokens)
            .field("inflight", &self.inflight.as_ref().map(|i| i.id))
            .field("awaiting_callback", &self.awaiting.is_some())
            .finish_non_exhaustive()
    }
}

/// Most scopes the flow requests at once (step-up unions are capped here).
pub const MAX_SCOPES: usize = 64;

impl AuthFlow {
    /// A flow for the MCP server at `server_url`, with `entropy` (at least
    /// [`MIN_ENTROPY_BYTES`] bytes from the host's OS random generator) seeding every PKCE
    /// verifier and `state` it will create.
    pub fn new(server_url: &str, config: AuthConfig, entropy: &[u8]) -> Result<Self, OAuthError> {
        let server = HttpUrl::parse(server_url).map_err(|e| OAuthError::InvalidServerUrl(e.to_string()))?;
        config.validate()?;
        let entropy =
            Entropy::new(entropy).ok_or(OAuthError::InsufficientEntropy { min: MIN_ENTROPY_BYTES })?;
        Ok(Self {
            server_loopback: is_loopback(&server),
            default_resource: canonical_resource(&server),
            server,
            config,
            entropy,
            next_id: 0,
            steps: VecDeque::new(),
            inflight: None,
            awaiting: None,
            prm: None,
            meta: None,
            registrations: Vec::new(),
            client: None,
            tokens: None,
            set_aside: Vec::new(),
            requested_scopes: Vec::new(),
            step_ups: 0,
            round: Round::default(),
            wall: None,
            resource_nonce: None,
            as_nonce: None,
            dpop_key: None,
            rs_nonce_retried: false,
            assertion_rejected: false,
            now: None,
        })
    }

    /// The MCP server responded `status` (401 or 403) with this `WWW-Authenticate` value:
    /// start (or restart) authorization. A 401 re-discovers the authorization server (it may
    /// have moved) and tries the refresh token first when that server issued it; a 403
    /// `insufficient_scope` re-authorizes with the union of the scopes held and challenged,
    /// at most [`AuthConfig::max_step_ups`] times in a row. A 401 `DPoP error="use_dpop_nonce"`
    /// for a DPoP token ends in [`AuthStep::Done`] with the tokens held, so the request goes
    /// again with a proof carrying the nonce given to [`AuthFlow::set_resource_nonce`] (once
    /// in a row; a second one fails with [`OAuthError::DpopNonceRejected`]).
    pub fn on_challenge(&mut self, now: Instant, status: u16, www_authenticate: Option<&str>) {
        self.now = Some(now);
        self.inflight = None;
        self.awaiting = None;
        let challenges = parse_www_authenticate(www_authenticate.unwrap_or(""));
        let dpop_tokens = self.tokens.as_ref().filter(|t| t.token_type == TokenType::Dpop).cloned();
        if let Some(tokens) = dpop_tokens {
            let nonce_wanted = status == 401
                && challenges.iter().any(|c| c.is_scheme("dpop") && c.error() == Some("use_dpop_nonce"));
            if nonce_wanted {
                if self.rs_nonce_retried || self.resource_nonce.is_none() {
                    self.fail(OAuthError::DpopNonceRejected);
                } else {
                    self.rs_nonce_retried = true;
                    self.steps.push_back(AuthStep::Done(tokens));
                }
                return;
            }
        }
        let bearer = challenges
            .iter()
            .find(|c| c.is_scheme("bearer"))
            .or_else(|| challenges.iter().find(|c| c.is_scheme("dpop")));
        let hint = bearer
            .and_then(|c| c.resource_metadata())
            .or_else(|| challenges.iter().find_map(|c| c.resource_metadata()))
            .map(str::to_owned);
        let challenged: Vec<String> =
            bearer.map(|c| c.scopes().take(MAX_SCOPES).map(str::to_owned).collect()).unwrap_or_default();
        if status == 403 {
            if bearer.and_then(|c| c.error()) != Some("insufficient_scope") {
                let error = bearer.and_then(|c| c.error()).unwrap_or("forbidden");
                let description =
                    bearer.and_then(|c| c.error_description()).map(|d| d.chars().take(300).collect());
                self.fail(OAuthError::AuthorizationDenied {
                    error: crate::oauth::OAuthErrorCode::parse(error),
                    description,
                });
                return;
            }
            if self.step_ups >= self.config.max_step_ups {
                self.fail(OAuthError::StepUpLimit { attempts: self.step_ups });
                return;
            }
            self.step_ups += 1;
            let mut scopes = self.requested_scopes.clone();
            let held = self.tokens.as_ref().map(|t| t.scopes.clone()).unwrap_or_default();
            for s in held.into_iter().chain(challenged) {
                if !scopes.contains(&s) && scopes.len() < MAX_SCOPES {
                    scopes.push(s);
                }
            }
            self.round = Round { scopes: Some(scopes), try_refresh: false };
            if self.meta.is_some() && hint.is_none() {
                self.after_metadata();
                return;
            }
        } else {
            let try_refresh = self.tokens.as_ref().is_some_and(|t| t.refresh_token.is_some());
            self.round = Round { scopes: (!challenged.is_empty()).then_some(challenged), try_refresh };
        }
        self.start_discovery(hint);
    }

    /// The next thing to do, or `None` while waiting (for a response, a callback or a new
    /// challenge).
    pub fn poll(&mut self) -> Option<AuthStep> {
        self.steps.pop_front()
    }

    /// The redirect came back: `query` is its query string (or the whole redirect URL).
    pub fn on_callback(&mut self, now: Instant, query: &str) {
        self.now = Some(now);
        let Some(pending) = self.awaiting.take() else {
            self.fail(OAuthError::NoPendingAuthorization);
            return;
        };
        match check_callback(query, &pending) {
            Ok(code) => self.send_token(Purpose::Code { pending: Box::new(pending), code }, false),
            Err(e) => self.fail(e),
        }
    }

    /// Uses the refresh token now (for instance when [`AuthFlow::needs_refresh`]). Ends in
    /// [`AuthStep::Done`] or [`AuthStep::Failed`] (an `invalid_grant` drops the refresh token;
    /// the next challenge then authorizes anew).
    pub fn refresh(&mut self, now: Instant) {
        self.now = Some(now);
        self.inflight = None;
        self.awaiting = None;
        if !self.can_refresh() {
            self.fail(OAuthError::NoRefreshToken);
            return;
        }
        self.send_refresh(false);
    }

    /// The MCP server accepted a request made with the current token: the step-up budget is
    /// available again.
    pub fn on_request_succeeded(&mut self) {
        self.step_ups = 0;
        self.rs_nonce_retried = false;
    }

    /// The tokens in hand.
    pub fn tokens(&self) -> Option<&Tokens> {
        self.tokens.as_ref()
    }

    /// Whether the access token is missing, expired or within [`AuthConfig::refresh_margin`]
    /// of expiring.
    pub fn needs_refresh(&self, now: Instant) -> bool {
        self.tokens.as_ref().is_none_or(|t| t.expires_within(now, self.config.refresh_margin))
    }

    /// The `Authorization` header for a request to `url`: only for the MCP server's own origin
    /// (a token is never sent anywhere else), and only while a token is held. A DPoP token
    /// also needs its proof: use [`AuthFlow::request_headers`].
    pub fn authorization_header(&self, url: &str) -> Option<String> {
        self.presentable(url).map(Tokens::authorization_header)
    }

    /// The tokens to present to `url`: only to the MCP server's own origin, and only tokens
    /// obtained for the resource in use (RFC 8707 audience) from the authorization server in
    /// use.
    pub(crate) fn presentable(&self, url: &str) -> Option<&Tokens> {
        let same_origin = HttpUrl::parse(url).is_ok_and(|u| u.origin() == self.server.origin());
        let tokens = self.tokens.as_ref().filter(|_| same_origin)?;
        let issuer_in_use = self.meta.as_ref().is_none_or(|m| m.issuer == tokens.issuer);
        (issuer_in_use && tokens.resource == self.resource()).then_some(tokens)
    }

    /// The authorization server in use (its metadata), once discovered.
    pub fn auth_server(&self) -> Option<&AuthServerMetadata> {
        self.meta.as_ref()
    }

    /// The client registration in use.
    pub fn client(&self) -> Option<&ClientRegistration> {
        self.client.as_ref()
    }

    /// The `resource` parameter sent (RFC 8707): the Protected Resource Metadata `resource`
    /// when known, else the canonical server URL.
    pub fn resource(&self) -> &str {
        self.prm.as_ref().map_or(&self.default_resource, |p| &p.resource)
    }

    // --- internals shared with flow_steps.rs ---

    pub(crate) fn fail(&mut self, e: OAuthError) {
        self.inflight = None;
        self.awaiting = None;
        self.steps.push_back(AuthStep::Failed(e));
    }

    /// The address rule of every fetch and endpoint of this flow: public addresses, loopback
    /// only for a loopback MCP server; any address with
    /// [`AuthConfig::allow_private_addresses`].
    pub(crate) fn destination(&self) -> Destination {
        if self.config.allow_private_addresses {
            Destination::Any
        } else {
            Destination::Public { loopback: self.server_loopback }
        }
    }

    /// Emits a fetch; every fetch of the flow leaves here, which stamps it with the flow's
    /// [`AuthFlow::destination`] (its builders leave [`Destination::Any`]).
    pub(crate) fn send(&mut self, mut request: HttpRequest, purpose: Purpose) {
        request.destination = self.destination();
        self.next_id += 1;
        let id = FetchId(self.next_id);
        self.inflight = Some(InFlight { id, url: request.url.clone(), purpose, dpop: false, retried: false });
        self.steps.push_back(AuthStep::Fetch { id, request });
    }

    pub(crate) fn get(&self, url: &str) -> HttpRequest {
        HttpRequest {
            method: crate::io::HttpMethod::Get,
            url: url.to_owned(),
            headers: vec![("Accept".to_owned(), "application/json".to_owned())],
            body: Vec::new(),
            connect_timeout: self.config.connect_timeout,
            destination: Destination::Any,
        }
    }

    fn start_discovery(&mut self, hint: Option<String>) {
        let hinted = hint.is_some();
        let candidates = hint.map_or_else(|| prm_candidates(&self.server), |h| vec![h]);
        self.fetch_candidate(Purpose::Prm { candidates, index: 0, hinted });
    }

    /// Sends the candidate URL at `index` of a discovery purpose, after the safety check.
    pub(crate) fn fetch_candidate(&mut self, purpose: Purpose) {
        let (Purpose::Prm { candidates, index, .. } | Purpose::AsMeta { candidates, index, .. }) = &purpose
        else {
            return;
        };
        let Some(url) = candidates.get(*index).cloned() else { return };
        match check_endpoint(&url, self.destination()) {
            Ok(u) => {
                let request = self.get(u.as_str());
                self.send(request, purpose);
            }
            Err(e) => self.fail(e),
        }
    }

    pub(crate) fn can_refresh(&self) -> bool {
        match (&self.tokens, &self.meta, &self.client) {
            (Some(t), Some(m), Some(c)) => {
                t.refresh_token.is_some() && t.issuer == m.issuer && c.issuer == m.issuer
            }
            _ => false,
        }
    }

    pub(crate) fn send_refresh(&mut self, fallback: bool) {
        if self.can_refresh() {
            self.send_token(Purpose::Refresh { fallback }, false);
        } else {
            self.fail(OAuthError::NoRefreshToken);
        }
    }

    /// The scopes for an authorization or client-credentials request: the round's, else the
    /// resource's `scopes_supported`, plus `offline_access` when the server lists it.
    pub(crate) fn scopes_for_request(&self, meta: &AuthServerMetadata) -> Vec<String> {
        let mut scopes = self
            .round
            .scopes
            .clone()
            .or_else(|| self.prm.as_ref().and_then(|p| p.scopes_supported.clone()))
            .unwrap_or_default();
        let mut seen = Vec::with_capacity(scopes.len());
        scopes.retain(|s| {
            !s.is_empty() && !seen.contains(s) && {
                seen.push(s.clone());
                true
            }
        });
        let offline = "offline_access";
        if self.config.grant == GrantType::AuthorizationCode
            && self.config.request_offline_access
            && meta.lists_scope(offline)
            && !scopes.is_empty()
            && !scopes.iter().any(|s| s == offline)
        {
            scopes.push(offline.to_owned());
        }
        scopes.truncate(MAX_SCOPES);
        scopes
    }
}
