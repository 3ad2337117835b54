//! [`AuthFlow`]: the sans-IO state machine that takes a `401`/`403` challenge to a token.
//! Its state lives in parts with their own files: [`Phase`] (where the round is), `Round` and
//! `ScopeHistory` (what it asks for), `Discovered` (metadata), `Credentials` (client, tokens,
//! registrations, grants set aside) and `DpopState`. The step handlers that react to answers
//! live in `flow_steps.rs`, the token requests in `grants.rs`.

use std::collections::VecDeque;
use std::fmt;
use std::time::Instant;

use crate::destination::Destination;
use crate::headers::parse_www_authenticate;
use crate::http_url::HttpUrl;
use crate::io::HttpRequest;
use crate::oauth::callback::check_callback;
use crate::oauth::config::{AuthConfig, GrantType};
use crate::oauth::credentials::Credentials;
use crate::oauth::discovered::Discovered;
use crate::oauth::dpop::DpopState;
use crate::oauth::entropy::{Entropy, MIN_ENTROPY_BYTES};
use crate::oauth::error::OAuthError;
use crate::oauth::jwt::EsKey;
use crate::oauth::metadata::AuthServerMetadata;
use crate::oauth::phase::{FetchId, InFlight, Phase, Purpose};
use crate::oauth::registration::ClientRegistration;
use crate::oauth::round::{Round, ScopeHistory};
use crate::oauth::secret::Secret;
use crate::oauth::token::{TokenType, Tokens};
use crate::oauth::url::{canonical_resource, check_endpoint, is_loopback, prm_candidates};

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

/// The MCP server the flow authorizes for.
#[derive(Debug)]
struct McpServer {
    url: HttpUrl,
    /// It is on a loopback address (then loopback endpoints are allowed too).
    loopback: bool,
    /// The canonical server URL: the `resource` until resource metadata names one.
    default_resource: String,
}

/// The OAuth 2.1 authorization flow of one MCP server, driven by the host. See the
/// [module documentation](crate::oauth) for the loop.
///
/// The flow holds no clock reading: each call that moves it on gets the host's `now` and
/// passes it down to what needs it (token expiry, JWT times).
pub struct AuthFlow {
    server: McpServer,
    config: AuthConfig,
    entropy: Entropy,
    /// The last [`FetchId`] given out.
    next_id: u64,
    /// What the host is to do next, in order ([`AuthFlow::poll`]).
    steps: VecDeque<AuthStep>,
    /// Where the current round is.
    phase: Phase,
    round: Round,
    scopes: ScopeHistory,
    discovered: Discovered,
    credentials: Credentials,
    dpop: DpopState,
    /// The host's wall clock at one instant (see [`AuthFlow::set_wall_clock`]). Optional for
    /// real: until the host gives it, no JWT can be signed ([`OAuthError::NoWallClock`]).
    wall: Option<(Instant, u64)>,
    /// The JWT bearer assertion (or the ID token behind it) was refused; a new one
    /// ([`AuthFlow::set_assertion`]) clears this.
    assertion_rejected: bool,
}

impl fmt::Debug for AuthFlow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AuthFlow")
            .field("server", &self.server.url)
            .field("issuer", &self.discovered.issuer())
            .field("client", &self.credentials.client())
            .field("tokens", &self.credentials.tokens())
            .field("phase", &self.phase.name())
            .field("inflight", &self.phase.fetch_id())
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
        let url = HttpUrl::parse(server_url).map_err(|e| OAuthError::InvalidServerUrl(e.to_string()))?;
        config.validate()?;
        let entropy =
            Entropy::new(entropy).ok_or(OAuthError::InsufficientEntropy { min: MIN_ENTROPY_BYTES })?;
        Ok(Self {
            server: McpServer {
                loopback: is_loopback(&url),
                default_resource: canonical_resource(&url),
                url,
            },
            config,
            entropy,
            next_id: 0,
            steps: VecDeque::new(),
            phase: Phase::Idle,
            round: Round::default(),
            scopes: ScopeHistory::default(),
            discovered: Discovered::default(),
            credentials: Credentials::default(),
            dpop: DpopState::default(),
            wall: None,
            assertion_rejected: false,
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
        self.phase = Phase::Idle;
        let challenges = parse_www_authenticate(www_authenticate.unwrap_or(""));
        let dpop_tokens = self.credentials.tokens().filter(|t| t.token_type == TokenType::Dpop).cloned();
        if let Some(tokens) = dpop_tokens {
            let nonce_wanted = status == 401
                && challenges.iter().any(|c| c.is_scheme("dpop") && c.error() == Some("use_dpop_nonce"));
            if nonce_wanted {
                if self.dpop.retry_with_resource_nonce() {
                    self.done(tokens);
                } else {
                    self.fail(OAuthError::DpopNonceRejected);
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
                    error: crate::oauth::error::OAuthErrorCode::parse(error),
                    description,
                });
                return;
            }
            if let Err(attempts) = self.scopes.step_up(self.config.max_step_ups) {
                self.fail(OAuthError::StepUpLimit { attempts });
                return;
            }
            let mut scopes = self.scopes.requested().to_vec();
            let held = self.credentials.tokens().map(|t| t.scopes.clone()).unwrap_or_default();
            for s in held.into_iter().chain(challenged) {
                if !scopes.contains(&s) && scopes.len() < MAX_SCOPES {
                    scopes.push(s);
                }
            }
            self.round = Round::new(Some(scopes), false);
            if self.discovered.meta().is_some() && hint.is_none() {
                self.after_metadata(now);
                return;
            }
        } else {
            let try_refresh = self.credentials.tokens().is_some_and(|t| t.refresh_token.is_some());
            self.round = Round::new((!challenged.is_empty()).then_some(challenged), try_refresh);
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
        let Some(pending) = self.phase.take_pending() else {
            self.fail(OAuthError::NoPendingAuthorization);
            return;
        };
        match check_callback(query, &pending) {
            Ok(code) => self.send_token(now, Purpose::Code { pending: Box::new(pending), code }, false),
            Err(e) => self.fail(e),
        }
    }

    /// Uses the refresh token now (for instance when [`AuthFlow::needs_refresh`]). Ends in
    /// [`AuthStep::Done`] or [`AuthStep::Failed`] (an `invalid_grant` drops the refresh token;
    /// the next challenge then authorizes anew).
    pub fn refresh(&mut self, now: Instant) {
        self.phase = Phase::Idle;
        if !self.can_refresh() {
            self.fail(OAuthError::NoRefreshToken);
            return;
        }
        self.send_refresh(now, false);
    }

    /// The MCP server accepted a request made with the current token: the step-up budget is
    /// available again.
    pub fn on_request_succeeded(&mut self) {
        self.scopes.reset_step_ups();
        self.dpop.on_request_succeeded();
    }

    /// Replaces the assertion of [`GrantType::JwtBearer`] (a fresh workload identity token), or
    /// the ID token of [`GrantType::EnterpriseManaged`]; a refused one may be retried only
    /// after this.
    pub fn set_assertion(&mut self, assertion: Secret) {
        match self.config.grant {
            GrantType::EnterpriseManaged => {
                if let Some(idp) = self.config.identity_provider.as_mut() {
                    idp.id_token = assertion;
                }
            }
            _ => self.config.assertion = Some(assertion),
        }
        self.assertion_rejected = false;
    }

    /// The tokens in hand.
    pub fn tokens(&self) -> Option<&Tokens> {
        self.credentials.tokens()
    }

    /// Whether the access token is missing, expired or within [`AuthConfig::refresh_margin`]
    /// of expiring.
    pub fn needs_refresh(&self, now: Instant) -> bool {
        self.credentials.tokens().is_none_or(|t| t.expires_within(now, self.config.refresh_margin))
    }

    /// The `Authorization` header for a request to `url`: only for the MCP server's own origin
    /// (a token is never sent anywhere else), and only while a token is held. A DPoP token
    /// also needs its proof: use [`AuthFlow::request_headers`].
    pub fn authorization_header(&self, url: &str) -> Option<String> {
        self.presentable(url).map(Tokens::authorization_header)
    }

    /// The authorization server in use (its metadata), once discovered.
    pub fn auth_server(&self) -> Option<&AuthServerMetadata> {
        self.discovered.meta()
    }

    /// The client registration in use.
    pub fn client(&self) -> Option<&ClientRegistration> {
        self.credentials.client()
    }

    /// The registrations obtained by dynamic registration, one per authorization server.
    pub fn registrations(&self) -> &[ClientRegistration] {
        self.credentials.registrations()
    }

    /// The issuers whose grants are set aside, the oldest first.
    pub fn set_aside_issuers(&self) -> impl Iterator<Item = &str> {
        self.credentials.set_aside().iter().map(|g| g.tokens.issuer.as_str())
    }

    /// The `resource` parameter sent (RFC 8707): the Protected Resource Metadata `resource`
    /// when known, else the canonical server URL.
    pub fn resource(&self) -> &str {
        self.discovered.resource(&self.server.default_resource)
    }

    /// The RFC 7638 thumbprint of the DPoP key (what a bound token's `cnf.jkt` names), once a
    /// key exists (after the first DPoP proof, or restored from a stored record).
    pub fn dpop_thumbprint(&self) -> Option<String> {
        self.dpop.key().map(EsKey::thumbprint)
    }

    /// Anchors the host's wall clock: at `at`, it read `unix_secs` (Unix seconds). Later Unix
    /// times are derived from the monotonic `now` given to each call.
    pub fn set_wall_clock(&mut self, at: Instant, unix_secs: u64) {
        self.wall = Some((at, unix_secs));
    }

    /// The Unix time at `now` (0 when no wall clock was anchored).
    pub fn unix_at(&self, now: Instant) -> u64 {
        match self.wall {
            Some((at, unix)) if now >= at => unix.saturating_add(now.duration_since(at).as_secs()),
            Some((at, unix)) => unix.saturating_sub(at.duration_since(now).as_secs()),
            None => 0,
        }
    }
}

/// The parts, for the sibling files: each acts on the part that owns the data.
impl AuthFlow {
    pub(crate) fn config(&self) -> &AuthConfig {
        &self.config
    }

    pub(crate) fn entropy_mut(&mut self) -> &mut Entropy {
        &mut self.entropy
    }

    /// The MCP server's URL.
    pub(crate) fn server_url(&self) -> &HttpUrl {
        &self.server.url
    }

    /// The canonical MCP server URL (the key of a stored record).
    pub(crate) fn default_resource(&self) -> &str {
        &self.server.default_resource
    }

    pub(crate) fn phase_mut(&mut self) -> &mut Phase {
        &mut self.phase
    }

    pub(crate) fn round(&self) -> &Round {
        &self.round
    }

    pub(crate) fn round_mut(&mut self) -> &mut Round {
        &mut self.round
    }

    pub(crate) fn scopes_mut(&mut self) -> &mut ScopeHistory {
        &mut self.scopes
    }

    pub(crate) fn discovered(&self) -> &Discovered {
        &self.discovered
    }

    pub(crate) fn discovered_mut(&mut self) -> &mut Discovered {
        &mut self.discovered
    }

    pub(crate) fn credentials(&self) -> &Credentials {
        &self.credentials
    }

    pub(crate) fn credentials_mut(&mut self) -> &mut Credentials {
        &mut self.credentials
    }

    pub(crate) fn dpop(&self) -> &DpopState {
        &self.dpop
    }

    pub(crate) fn dpop_mut(&mut self) -> &mut DpopState {
        &mut self.dpop
    }

    /// The DPoP state with the entropy its proofs draw from.
    pub(crate) fn dpop_with_entropy(&mut self) -> (&mut DpopState, &mut Entropy) {
        (&mut self.dpop, &mut self.entropy)
    }

    /// Whether the JWT bearer assertion (or the ID token behind it) was refused.
    pub(crate) fn assertion_rejected(&self) -> bool {
        self.assertion_rejected
    }

    /// The assertion (or the ID token behind it) was refused: it is not sent again until
    /// [`AuthFlow::set_assertion`].
    pub(crate) fn reject_assertion(&mut self) {
        self.assertion_rejected = true;
    }
}

/// Internals shared with the sibling files.
impl AuthFlow {
    /// The tokens to present to `url`: only to the MCP server's own origin, and only tokens
    /// obtained for the resource in use (RFC 8707 audience) from the authorization server in
    /// use.
    pub(crate) fn presentable(&self, url: &str) -> Option<&Tokens> {
        let same_origin = HttpUrl::parse(url).is_ok_and(|u| u.origin() == self.server.url.origin());
        let tokens = self.credentials.tokens().filter(|_| same_origin)?;
        let issuer_in_use = self.discovered.issuer().is_none_or(|i| i == tokens.issuer);
        (issuer_in_use && tokens.resource == self.resource()).then_some(tokens)
    }

    /// The Unix time for a JWT issued at `now`.
    pub(crate) fn jwt_now(&self, now: Instant) -> Result<u64, OAuthError> {
        match self.wall {
            Some(_) => Ok(self.unix_at(now)),
            None => Err(OAuthError::NoWallClock),
        }
    }

    /// Tells the host something (a notice, a change of authorization server).
    pub(crate) fn emit(&mut self, step: AuthStep) {
        self.steps.push_back(step);
    }

    /// The round ends with `tokens`.
    pub(crate) fn done(&mut self, tokens: Tokens) {
        self.phase = Phase::Authorized;
        self.steps.push_back(AuthStep::Done(tokens));
    }

    /// The round gives up.
    pub(crate) fn fail(&mut self, e: OAuthError) {
        self.phase = Phase::Failed;
        self.steps.push_back(AuthStep::Failed(e));
    }

    /// The address rule of every fetch and endpoint of this flow: public addresses, loopback
    /// only for a loopback MCP server; any address with
    /// [`AuthConfig::allow_private_addresses`].
    pub(crate) fn destination(&self) -> Destination {
        if self.config.allow_private_addresses {
            Destination::Any
        } else {
            Destination::Public { loopback: self.server.loopback }
        }
    }

    /// Emits a fetch; every fetch of the flow leaves here, which stamps it with the flow's
    /// [`AuthFlow::destination`] (its builders leave [`Destination::Any`]). `dpop` says the
    /// request carries a DPoP proof, `retried` that it is the retry with the server's nonce.
    pub(crate) fn send(&mut self, mut request: HttpRequest, purpose: Purpose, dpop: bool, retried: bool) {
        request.destination = self.destination();
        self.next_id += 1;
        let id = FetchId(self.next_id);
        self.phase = Phase::Fetching(InFlight { id, url: request.url.clone(), purpose, dpop, retried });
        self.steps.push_back(AuthStep::Fetch { id, request });
    }

    fn get(&self, url: &str) -> HttpRequest {
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
        let candidates = hint.map_or_else(|| prm_candidates(&self.server.url), |h| vec![h]);
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
                self.send(request, purpose, false, false);
            }
            Err(e) => self.fail(e),
        }
    }

    pub(crate) fn can_refresh(&self) -> bool {
        self.credentials.can_refresh(self.discovered.issuer())
    }

    pub(crate) fn send_refresh(&mut self, now: Instant, fallback: bool) {
        if self.can_refresh() {
            self.send_token(now, Purpose::Refresh { fallback }, false);
        } else {
            self.fail(OAuthError::NoRefreshToken);
        }
    }

    /// The scopes for an authorization or client-credentials request: the round's, else the
    /// resource's `scopes_supported`, plus `offline_access` when the server lists it.
    pub(crate) fn scopes_for_request(&self, meta: &AuthServerMetadata) -> Vec<String> {
        let mut scopes = self
            .round
            .scopes()
            .map(<[String]>::to_vec)
            .or_else(|| self.discovered.prm().and_then(|p| p.scopes_supported.clone()))
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
