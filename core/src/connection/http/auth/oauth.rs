//! The OAuth side of an authorization round: the [`AuthFlow`] the connection drives (its
//! fetches as exchanges, its browser step as a [`ServerRequestKind::Authorization`] host
//! request, its saved record as [`Event::AuthorizationSaved`]) and the refresh of a token
//! about to expire.

use std::time::{Duration, Instant};

use super::{AuthState, Mode, Round};
use crate::connection::Connection;
use crate::error::{RequestError, Warning};
use crate::event::{Event, ServerRequest};
use crate::handle::ExchangeId;
use crate::io::{HttpHead, HttpRequest, Io};
use crate::oauth::{AuthFlow, AuthNotice, AuthStep, FetchId, OAuthError, OAuthSetup};
use crate::timers::Timer;
use crate::types::ServerRequestKind;
use crate::types::{AuthorizationCallback, AuthorizationRequest, HostRequest};

/// Largest answer to one authorization fetch (metadata, registration, token), in bytes.
const MAX_FETCH_BODY: usize = 256 * 1024;
/// How long one authorization fetch may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(30);

/// An OAuth connection's flow.
pub(super) enum OAuthMode {
    /// The flow, and how long its browser step may take.
    Flow {
        flow: Box<AuthFlow>,
        browser_timeout: Duration,
        /// A round failed: no proactive refresh until a request succeeds (or a round does).
        refresh_blocked: bool,
    },
    /// `HttpAuth::OAuth` whose setup was refused (bad configuration): every challenge fails.
    Broken(OAuthError),
}

/// One authorization fetch in flight.
pub(super) struct Fetch {
    id: FetchId,
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl std::fmt::Debug for OAuthMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OAuthMode::Flow { flow, .. } => write!(f, "{flow:?}"),
            OAuthMode::Broken(e) => write!(f, "Broken({e})"),
        }
    }
}

impl OAuthMode {
    /// The flow of `setup` for the server at `url`, its wall clock anchored at `now`. A record
    /// that cannot be restored is dropped (the warning says why).
    pub(super) fn new(setup: &OAuthSetup, url: &str, now: Instant) -> (Self, Option<Warning>) {
        let browser_timeout = setup.authorization_timeout;
        let mut flow = match AuthFlow::new(url, setup.config.clone(), &setup.entropy) {
            Ok(flow) => flow,
            Err(e) => return (OAuthMode::Broken(e), None),
        };
        flow.set_wall_clock(now, setup.unix_now);
        let mut warning = None;
        if let Some(stored) = setup.stored.clone() {
            // `with_stored` consumes the flow; a refused record leaves a fresh one.
            let fresh = AuthFlow::new(url, setup.config.clone(), &setup.entropy);
            match flow.with_stored(stored, now, setup.unix_now) {
                Ok(restored) => flow = restored,
                Err(e) => {
                    warning =
                        Some(Warning::Http { detail: format!("the saved authorization was not used: {e}") });
                    match fresh {
                        Ok(f) => flow = f,
                        Err(e) => return (OAuthMode::Broken(e), warning),
                    }
                    flow.set_wall_clock(now, setup.unix_now);
                }
            }
        }
        (OAuthMode::Flow { flow: Box::new(flow), browser_timeout, refresh_blocked: false }, warning)
    }

    /// A response from the MCP server: a `DPoP-Nonce` is kept; a success lifts the refresh
    /// block and resets the step-up budget.
    pub(super) fn on_server_head(&mut self, head: &HttpHead, success: bool) {
        let OAuthMode::Flow { flow, refresh_blocked, .. } = self else { return };
        if let Some(nonce) = head.header("dpop-nonce") {
            flow.set_resource_nonce(nonce);
        }
        if success {
            *refresh_blocked = false;
            flow.on_request_succeeded();
        }
    }

    /// The headers a request to the MCP server carries while a token is held.
    pub(super) fn request_headers(&mut self, now: Instant, request: &HttpRequest) -> Vec<(String, String)> {
        match self {
            OAuthMode::Flow { flow, .. } if flow.tokens().is_some() => {
                flow.request_headers(now, request.method.as_str(), &request.url)
            }
            _ => Vec::new(),
        }
    }

    /// A round ended: a failed one blocks proactive refreshes until a request succeeds.
    pub(super) fn round_over(&mut self, failed: bool) {
        if let OAuthMode::Flow { refresh_blocked, .. } = self {
            *refresh_blocked = failed;
        }
    }
}

impl AuthState {
    /// The OAuth flow, if this connection authorizes with one that works.
    fn flow_mut(&mut self) -> Option<(&mut AuthFlow, Duration)> {
        match &mut self.mode {
            Mode::OAuth(OAuthMode::Flow { flow, browser_timeout, .. }) => Some((flow, *browser_timeout)),
            _ => None,
        }
    }

    /// The round's fetch for `exchange`.
    fn fetch_mut(&mut self, exchange: ExchangeId) -> Option<&mut Fetch> {
        self.round.as_mut().and_then(|r| r.fetches.get_mut(&exchange))
    }

    /// Removes the round's fetch for `exchange`.
    fn take_fetch(&mut self, exchange: ExchangeId) -> Option<Fetch> {
        self.round.as_mut().and_then(|r| r.fetches.remove(&exchange))
    }
}

impl Connection {
    /// An OAuth connection was challenged (its round is set up): the flow starts, or a refused
    /// setup fails the round at once.
    pub(super) fn oauth_challenge(&mut self, now: Instant, status: u16, www_authenticate: Option<&str>) {
        let Some(auth) = self.auth_mut() else { return };
        match &mut auth.mode {
            Mode::OAuth(OAuthMode::Flow { flow, .. }) => flow.on_challenge(now, status, www_authenticate),
            Mode::OAuth(OAuthMode::Broken(e)) => {
                let e = e.clone();
                let err = RequestError::AuthorizationFailed { detail: e.to_string(), oauth: Some(e) };
                return self.auth_round_over(now, Err(err));
            }
            Mode::Provider { .. } => return,
        }
        self.auth_drive(now);
    }

    /// Before requests go out: a token about to expire (with a refresh token) is refreshed
    /// first, in a round of its own that the requests wait for.
    pub(in crate::connection) fn oauth_refresh_if_due(&mut self, now: Instant) {
        let Some(auth) = self.auth_mut() else { return };
        if auth.round.is_some() {
            return;
        }
        let Mode::OAuth(OAuthMode::Flow { flow, refresh_blocked: false, .. }) = &mut auth.mode else {
            return;
        };
        let refreshable = flow.tokens().is_some_and(|t| t.refresh_token.is_some());
        if !refreshable || !flow.needs_refresh(now) {
            return;
        }
        flow.refresh(now);
        auth.round = Some(Round::default());
        self.auth_drive(now);
    }

    /// Whether `exchange` is an authorization fetch.
    pub(in crate::connection::http) fn auth_owns(&self, exchange: ExchangeId) -> bool {
        self.auth().and_then(|a| a.round.as_ref()).is_some_and(|r| r.fetches.contains_key(&exchange))
    }

    /// The head of an authorization fetch arrived.
    pub(in crate::connection::http) fn auth_fetch_head(&mut self, exchange: ExchangeId, head: HttpHead) {
        if let Some(f) = self.auth_mut().and_then(|a| a.fetch_mut(exchange)) {
            f.status = head.status;
            f.headers = head.headers;
        }
    }

    /// Body bytes of an authorization fetch; past the bound the fetch fails.
    pub(in crate::connection::http) fn auth_fetch_body(
        &mut self,
        now: Instant,
        exchange: ExchangeId,
        bytes: &[u8],
    ) {
        let Some(f) = self.auth_mut().and_then(|a| a.fetch_mut(exchange)) else { return };
        if f.body.len() + bytes.len() > MAX_FETCH_BODY {
            self.io.push_back(Io::HttpAbort { exchange });
            let detail = format!("the answer is over {MAX_FETCH_BODY} bytes");
            self.auth_fetch_failed(now, exchange, &detail);
            return;
        }
        f.body.extend_from_slice(bytes);
    }

    /// An authorization fetch ended: the flow gets its answer.
    pub(in crate::connection::http) fn auth_fetch_end(&mut self, now: Instant, exchange: ExchangeId) {
        let Some(auth) = self.auth_mut() else { return };
        let Some(fetch) = auth.take_fetch(exchange) else { return };
        if let Some((flow, _)) = auth.flow_mut() {
            flow.on_response(now, fetch.id, fetch.status, &fetch.headers, &fetch.body);
        }
        self.timers.clear(Timer::Auth);
        self.auth_drive(now);
    }

    /// An authorization fetch failed in transport (or passed a bound).
    pub(in crate::connection::http) fn auth_fetch_failed(
        &mut self,
        now: Instant,
        exchange: ExchangeId,
        detail: &str,
    ) {
        let Some(auth) = self.auth_mut() else { return };
        let Some(fetch) = auth.take_fetch(exchange) else { return };
        if let Some((flow, _)) = auth.flow_mut() {
            flow.on_fetch_failed(now, fetch.id, detail);
        }
        self.timers.clear(Timer::Auth);
        self.auth_drive(now);
    }

    /// The runtime refused the round's fetch `exchange` for its resolved address.
    pub(in crate::connection::http) fn auth_fetch_refused(
        &mut self,
        now: Instant,
        exchange: ExchangeId,
        refusal: &crate::UnsafeAddress,
    ) {
        let Some(auth) = self.auth_mut() else { return };
        let Some(fetch) = auth.take_fetch(exchange) else { return };
        if let Some((flow, _)) = auth.flow_mut() {
            flow.on_fetch_refused(now, fetch.id, refusal);
        }
        self.timers.clear(Timer::Auth);
        self.auth_drive(now);
    }

    /// The host answered the browser step with `value` (the callback, if it is one).
    pub(super) fn oauth_callback(&mut self, now: Instant, value: &serde_json::Value) {
        if self.auth_mut().and_then(AuthState::flow_mut).is_none() {
            return;
        }
        match AuthorizationCallback::from_value(value) {
            Ok(cb) => {
                if let Some((flow, _)) = self.auth_mut().and_then(AuthState::flow_mut) {
                    flow.on_callback(now, &cb.callback);
                    self.auth_drive(now);
                }
            }
            Err(e) => {
                let detail = format!("the authorization handler's answer is not a callback: {e}");
                self.auth_round_over(now, Err(super::failed(detail)));
            }
        }
    }

    /// Does what the flow asks until it waits (for a fetch, the browser) or ends.
    fn auth_drive(&mut self, now: Instant) {
        loop {
            let Some((flow, browser_timeout)) = self.auth_mut().and_then(AuthState::flow_mut) else { return };
            let Some(step) = flow.poll() else { return };
            match step {
                AuthStep::Fetch { id, request } => {
                    let Some(link) = self.http_mut() else { return };
                    let exchange = link.exchanges.reserve_id();
                    if let Some(round) = link.auth.as_deref_mut().and_then(|a| a.round.as_mut()) {
                        let fetch = Fetch { id, status: 0, headers: Vec::new(), body: Vec::new() };
                        round.fetches.insert(exchange, fetch);
                    }
                    self.timers.set(Timer::Auth, now + FETCH_TIMEOUT);
                    self.trace_http_request(exchange, &request, false);
                    self.io.push_back(Io::HttpStart { exchange, request });
                }
                AuthStep::Authorize { url } => {
                    let redirect = flow.redirect_uri().to_owned();
                    let request = ServerRequest {
                        kind: ServerRequestKind::Authorization,
                        request: HostRequest::Authorization(Box::new(AuthorizationRequest::new(
                            &url, &redirect,
                        ))),
                    };
                    self.prompt_host(now, request, browser_timeout);
                    self.extend_waiting_deadlines(now, browser_timeout);
                }
                AuthStep::Notice(notice) => self.auth_notice(notice),
                AuthStep::AuthServerChanged { .. } => self.auth_save(now),
                AuthStep::Done(_) => {
                    self.auth_save(now);
                    self.auth_round_over(now, Ok(()));
                }
                AuthStep::Failed(e) => {
                    let err = RequestError::AuthorizationFailed { detail: e.to_string(), oauth: Some(e) };
                    self.auth_round_over(now, Err(err));
                }
            }
        }
    }

    /// The flow's record changed (new tokens, or a grant set aside): the host persists it
    /// ([`Event::AuthorizationSaved`] replaces the server's record).
    fn auth_save(&mut self, now: Instant) {
        let Some((flow, _)) = self.auth_mut().and_then(AuthState::flow_mut) else { return };
        let record = flow.stored(now, flow.unix_at(now));
        self.emit(Event::AuthorizationSaved(Box::new(record)));
    }

    fn auth_notice(&mut self, notice: AuthNotice) {
        match notice {
            AuthNotice::DynamicClientRegistration { .. } => self.note_deprecated(
                crate::Deprecation::DynamicClientRegistration,
                crate::deprecation::UsedBy::Server,
            ),
            AuthNotice::LegacyDiscovery { issuer } => self.warn(Warning::Http {
                detail: format!(
                    "the server publishes no protected resource metadata; using {issuer} as its authorization server (2025-03-26 discovery)"
                ),
            }),
            AuthNotice::DefaultEndpoints { issuer } => self.warn(Warning::Http {
                detail: format!(
                    "{issuer} publishes no authorization server metadata; using its default /authorize, /token and /register"
                ),
            }),
        }
    }
}
