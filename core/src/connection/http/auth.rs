//! Answering a protected server's `401`/`403` ([`HttpAuth`]): the OAuth flow or the host's
//! token provider, driven by the connection.
//!
//! A refused request (the handshake, a host request, the HTTP+SSE stream, the legacy GET
//! stream) is parked and an authorization round starts: the [`AuthFlow`]'s fetches go out as
//! ordinary [`Io::HttpStart`] exchanges (their bodies collected, bounded), its browser step
//! reaches the host as a [`ServerRequestKind::Authorization`] request, and once it is done
//! every parked request goes out again with the new credentials. Requests that are not sent
//! yet wait while a round runs. A failed round fails what it parked with
//! [`RequestError::AuthorizationFailed`].
//!
//! Tokens are refreshed before a request when they are about to expire and a refresh token is
//! held. A round that succeeds but whose credentials the server refuses again counts: after
//! [`MAX_ROUNDS_WITHOUT_SUCCESS`] such rounds in a row the refusal is final
//! ([`RequestError::Unauthorized`]), so a server that never accepts a token cannot loop the
//! client. The token provider is asked at most [`MAX_PROVIDER_ATTEMPTS`] times in a row.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use super::super::{Connection, Proc, Session};
use super::exchange::Role;
use crate::error::{RequestError, Warning};
use crate::event::{Event, ServerRequest, ServerRequestKind};
use crate::handle::{Epoch, ExchangeId, RequestHandle, ServerRequestHandle};
use crate::headers::parse_www_authenticate;
use crate::io::{HttpHead, HttpRequest, Io};
use crate::oauth::{AuthFlow, AuthNotice, AuthStep, FetchId, HttpAuth, OAuthError, OAuthSetup, Secret};
use crate::timers::Timer;
use crate::types::{
    AccessTokenAnswer, AccessTokenRequest, AuthorizationCallback, AuthorizationRequest, HandlerError,
    HostRequest,
};

/// Authorization rounds that may succeed in a row while the server keeps refusing.
pub const MAX_ROUNDS_WITHOUT_SUCCESS: u32 = 3;
/// Times in a row the token provider is asked before a refusal is final.
pub const MAX_PROVIDER_ATTEMPTS: u32 = 2;
/// Largest answer to one authorization fetch (metadata, registration, token), in bytes.
const MAX_FETCH_BODY: usize = 256 * 1024;
/// How long one authorization fetch may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(30);
/// How long the token provider may take.
const PROVIDER_TIMEOUT: Duration = Duration::from_secs(60);

/// What to send again once authorized.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Parked {
    /// The handshake (the probe) of this session.
    Handshake(Epoch),
    /// The legacy `initialize` of this session.
    Initialize(Epoch),
    /// A host request.
    Op(RequestHandle),
    /// The HTTP+SSE event stream of this session, before its `endpoint` event.
    SseStream(Epoch),
    /// The legacy GET stream of this session.
    Listen(Epoch),
}

/// How the connection authorizes.
enum Mode {
    OAuth {
        flow: Box<AuthFlow>,
        browser_timeout: Duration,
    },
    /// `HttpAuth::OAuth` whose setup was refused (bad configuration): every challenge fails.
    Broken(OAuthError),
    Provider {
        token: Option<Secret>,
        attempts: u32,
    },
}

/// One authorization fetch in flight.
struct Fetch {
    id: FetchId,
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

/// An authorization round under way.
#[derive(Default)]
struct Round {
    /// What goes out again (or fails) when it ends.
    parked: Vec<Parked>,
    /// Its fetch in flight (the flow has one at a time).
    fetches: BTreeMap<ExchangeId, Fetch>,
    /// Its host request (browser step or token provider).
    prompt: Option<ServerRequestHandle>,
}

/// The authorization state of an HTTP connection.
pub(super) struct AuthState {
    mode: Mode,
    /// The round under way, if any.
    round: Option<Round>,
    rounds_without_success: u32,
    /// A round failed: no proactive refresh until a request succeeds (or a round does).
    refresh_blocked: bool,
    server_url: String,
}

impl std::fmt::Debug for AuthState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mode = match &self.mode {
            Mode::OAuth { flow, .. } => format!("{flow:?}"),
            Mode::Broken(e) => format!("Broken({e})"),
            Mode::Provider { token, attempts } => {
                format!("Provider {{ token: {}, attempts: {attempts} }}", token.is_some())
            }
        };
        f.debug_struct("AuthState")
            .field("mode", &mode)
            .field("parked", &self.round.as_ref().map(|r| &r.parked))
            .finish_non_exhaustive()
    }
}

impl AuthState {
    /// The state for `auth` on the server at `url`, at `now`. A record that cannot be restored
    /// is dropped (the warning says why).
    pub(super) fn new(auth: &HttpAuth, url: &str, now: Instant) -> (Option<Self>, Option<Warning>) {
        let (mode, warning) = match auth {
            HttpAuth::None => return (None, None),
            HttpAuth::TokenProvider => (Mode::Provider { token: None, attempts: 0 }, None),
            HttpAuth::OAuth(setup) => oauth_mode(setup, url, now),
        };
        let state = Self {
            mode,
            round: None,
            rounds_without_success: 0,
            refresh_blocked: false,
            server_url: url.to_owned(),
        };
        (Some(state), warning)
    }
}

fn oauth_mode(setup: &OAuthSetup, url: &str, now: Instant) -> (Mode, Option<Warning>) {
    let browser_timeout = setup.authorization_timeout;
    let mut flow = match AuthFlow::new(url, setup.config.clone(), &setup.entropy) {
        Ok(flow) => flow,
        Err(e) => return (Mode::Broken(e), None),
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
                    Err(e) => return (Mode::Broken(e), warning),
                }
                flow.set_wall_clock(now, setup.unix_now);
            }
        }
    }
    (Mode::OAuth { flow: Box::new(flow), browser_timeout }, warning)
}

/// Whether a challenge is one authorization can answer: a 401, or a 403 asking for more
/// scope.
fn answerable(status: u16, www_authenticate: Option<&str>) -> bool {
    match status {
        401 => true,
        403 => parse_www_authenticate(www_authenticate.unwrap_or(""))
            .iter()
            .any(|c| c.error() == Some("insufficient_scope")),
        _ => false,
    }
}

impl Connection {
    fn auth(&self) -> Option<&AuthState> {
        self.http().and_then(|l| l.auth.as_deref())
    }

    fn auth_mut(&mut self) -> Option<&mut AuthState> {
        self.http_mut().and_then(|l| l.auth.as_deref_mut())
    }

    /// Whether requests must wait: an authorization round is under way.
    pub(in crate::connection) fn http_auth_busy(&self) -> bool {
        self.auth().is_some_and(|a| a.round.is_some())
    }

    /// The server refused a request with `status`: park `parked` and authorize (returns true),
    /// or leave the refusal as it is (false: no authorization configured, not a challenge it
    /// can answer, or too many rounds already).
    pub(super) fn auth_challenge(
        &mut self,
        now: Instant,
        status: u16,
        www_authenticate: Option<&str>,
        parked: Parked,
    ) -> bool {
        let Some(auth) = self.auth_mut() else { return false };
        if !answerable(status, www_authenticate) {
            return false;
        }
        if let Some(round) = &mut auth.round {
            if !round.parked.contains(&parked) {
                round.parked.push(parked);
            }
            return true;
        }
        let provider_exhausted =
            matches!(auth.mode, Mode::Provider { attempts, .. } if attempts >= MAX_PROVIDER_ATTEMPTS);
        if auth.rounds_without_success >= MAX_ROUNDS_WITHOUT_SUCCESS || provider_exhausted {
            // This refusal is final; the next request starts counting again.
            auth.rounds_without_success = 0;
            if let Mode::Provider { attempts, .. } = &mut auth.mode {
                *attempts = 0;
            }
            return false;
        }
        match &mut auth.mode {
            Mode::Broken(_) => {}
            Mode::OAuth { flow, .. } => flow.on_challenge(now, status, www_authenticate),
            Mode::Provider { attempts, .. } => *attempts += 1,
        }
        auth.round = Some(Round { parked: vec![parked], ..Round::default() });
        auth.rounds_without_success += 1;
        if let Some(Mode::Broken(e)) = self.auth().map(|a| &a.mode) {
            let e = e.clone();
            self.auth_round_over(
                now,
                Err(RequestError::AuthorizationFailed { detail: e.to_string(), oauth: Some(e) }),
            );
            return true;
        }
        let provider_attempt = match self.auth().map(|a| &a.mode) {
            Some(Mode::Provider { attempts, .. }) => Some(*attempts),
            _ => None,
        };
        match provider_attempt {
            Some(attempt) => self.ask_provider(now, status, www_authenticate, attempt),
            None => self.auth_drive(now),
        }
        true
    }

    /// Before requests go out: a token about to expire is refreshed first (returns true: the
    /// requests wait for it).
    pub(in crate::connection) fn auth_refresh_due(&mut self, now: Instant) -> bool {
        let Some(auth) = self.auth_mut() else { return false };
        if auth.round.is_some() {
            return true;
        }
        if auth.refresh_blocked {
            return false;
        }
        let Mode::OAuth { flow, .. } = &mut auth.mode else { return false };
        let refreshable = flow.tokens().is_some_and(|t| t.refresh_token.is_some());
        if !refreshable || !flow.needs_refresh(now) {
            return false;
        }
        flow.refresh(now);
        auth.round = Some(Round::default());
        self.auth_drive(now);
        self.http_auth_busy()
    }

    /// A response from the MCP server: a `DPoP-Nonce` is kept; a success resets the counts
    /// of refused rounds.
    pub(super) fn auth_on_server_head(&mut self, head: &HttpHead) {
        let Some(auth) = self.auth_mut() else { return };
        if let (Some(nonce), Mode::OAuth { flow, .. }) = (head.header("dpop-nonce"), &mut auth.mode) {
            flow.set_resource_nonce(nonce);
        }
        if (200..300).contains(&head.status) {
            auth.rounds_without_success = 0;
            auth.refresh_blocked = false;
            match &mut auth.mode {
                Mode::OAuth { flow, .. } => flow.on_request_succeeded(),
                Mode::Provider { attempts, .. } => *attempts = 0,
                Mode::Broken(_) => {}
            }
        }
    }

    /// Puts the credentials on a request to the MCP server (replacing any configured
    /// `Authorization`).
    pub(super) fn auth_decorate(&mut self, request: &mut HttpRequest) {
        let now = self.now;
        let Some(auth) = self.auth_mut() else { return };
        let added = match &mut auth.mode {
            Mode::OAuth { flow, .. } => match now {
                Some(now) if flow.tokens().is_some() => {
                    flow.request_headers(now, request.method.as_str(), &request.url)
                }
                _ => Vec::new(),
            },
            Mode::Provider { token: Some(t), .. } => {
                vec![("authorization".to_owned(), format!("Bearer {}", t.expose()))]
            }
            Mode::Provider { token: None, .. } | Mode::Broken(_) => Vec::new(),
        };
        if added.is_empty() {
            return;
        }
        request.headers.retain(|(n, _)| !added.iter().any(|(a, _)| a.eq_ignore_ascii_case(n)));
        request.headers.extend(added);
    }

    /// Whether `exchange` is an authorization fetch.
    pub(super) fn auth_owns(&self, exchange: ExchangeId) -> bool {
        self.auth().and_then(|a| a.round.as_ref()).is_some_and(|r| r.fetches.contains_key(&exchange))
    }

    /// The head of an authorization fetch arrived.
    pub(super) fn auth_fetch_head(&mut self, exchange: ExchangeId, head: HttpHead) {
        if let Some(f) =
            self.auth_mut().and_then(|a| a.round.as_mut()).and_then(|r| r.fetches.get_mut(&exchange))
        {
            f.status = head.status;
            f.headers = head.headers;
        }
    }

    /// Body bytes of an authorization fetch; past the bound the fetch fails.
    pub(super) fn auth_fetch_body(&mut self, now: Instant, exchange: ExchangeId, bytes: &[u8]) {
        let Some(f) =
            self.auth_mut().and_then(|a| a.round.as_mut()).and_then(|r| r.fetches.get_mut(&exchange))
        else {
            return;
        };
        if f.body.len() + bytes.len() > MAX_FETCH_BODY {
            self.io.push_back(Io::HttpAbort { exchange });
            let detail = format!("the answer is over {MAX_FETCH_BODY} bytes");
            self.auth_fetch_failed(now, exchange, &detail);
            return;
        }
        f.body.extend_from_slice(bytes);
    }

    /// An authorization fetch ended: the flow gets its answer.
    pub(super) fn auth_fetch_end(&mut self, now: Instant, exchange: ExchangeId) {
        let Some(auth) = self.auth_mut() else { return };
        let Some(fetch) = auth.round.as_mut().and_then(|r| r.fetches.remove(&exchange)) else { return };
        if let Mode::OAuth { flow, .. } = &mut auth.mode {
            flow.on_response(now, fetch.id, fetch.status, &fetch.headers, &fetch.body);
        }
        self.timers.clear(Timer::Auth);
        self.auth_drive(now);
    }

    /// An authorization fetch failed in transport (or passed a bound).
    pub(super) fn auth_fetch_failed(&mut self, now: Instant, exchange: ExchangeId, detail: &str) {
        let Some(auth) = self.auth_mut() else { return };
        let Some(fetch) = auth.round.as_mut().and_then(|r| r.fetches.remove(&exchange)) else { return };
        if let Mode::OAuth { flow, .. } = &mut auth.mode {
            flow.on_fetch_failed(now, fetch.id, detail);
        }
        self.timers.clear(Timer::Auth);
        self.auth_drive(now);
    }

    /// The runtime refused the round's fetch `exchange` for its resolved address.
    pub(super) fn auth_fetch_refused(
        &mut self,
        now: Instant,
        exchange: ExchangeId,
        refusal: &crate::UnsafeAddress,
    ) {
        let Some(auth) = self.auth_mut() else { return };
        let Some(fetch) = auth.round.as_mut().and_then(|r| r.fetches.remove(&exchange)) else { return };
        if let Mode::OAuth { flow, .. } = &mut auth.mode {
            flow.on_fetch_refused(now, fetch.id, refusal);
        }
        self.timers.clear(Timer::Auth);
        self.auth_drive(now);
    }

    /// The round's step took too long (a fetch, the browser, the token provider).
    pub(in crate::connection) fn on_auth_timeout(&mut self, now: Instant) {
        let Some(round) = self.auth().and_then(|a| a.round.as_ref()) else { return };
        let what = if round.prompt.is_some() {
            "the sign-in (or token provider)"
        } else {
            "an authorization request"
        };
        let detail = format!("{what} took too long");
        self.auth_round_over(now, Err(RequestError::AuthorizationFailed { detail, oauth: None }));
    }

    /// Whether `handle` is the round's host request.
    pub(in crate::connection) fn auth_prompt_is(&self, handle: ServerRequestHandle) -> bool {
        self.auth().and_then(|a| a.round.as_ref()).is_some_and(|r| r.prompt == Some(handle))
    }

    /// The host answered the round's browser step or token request.
    pub(in crate::connection) fn auth_answer(
        &mut self,
        now: Instant,
        handle: ServerRequestHandle,
        outcome: Result<serde_json::Value, HandlerError>,
    ) {
        let Some(round) = self.auth_mut().and_then(|a| a.round.as_mut()) else { return };
        if round.prompt != Some(handle) {
            return;
        }
        round.prompt = None;
        self.timers.clear(Timer::Auth);
        let Some(auth) = self.auth_mut() else { return };
        match (&mut auth.mode, outcome) {
            (Mode::OAuth { flow, .. }, Ok(value)) => match AuthorizationCallback::from_value(&value) {
                Ok(cb) => {
                    flow.on_callback(now, &cb.callback);
                    self.auth_drive(now);
                }
                Err(e) => {
                    let detail = format!("the authorization handler's answer is not a callback: {e}");
                    self.auth_round_over(now, Err(RequestError::AuthorizationFailed { detail, oauth: None }));
                }
            },
            (Mode::Provider { token, .. }, Ok(value)) => match AccessTokenAnswer::from_value(&value) {
                Ok(answer) => {
                    *token = Some(answer.token);
                    self.auth_round_over(now, Ok(()));
                }
                Err(e) => {
                    let detail = format!("the token provider's answer is not a token: {e}");
                    self.auth_round_over(now, Err(RequestError::AuthorizationFailed { detail, oauth: None }));
                }
            },
            (_, Err(e)) => {
                let detail = format!("the host declined to authorize: {}", e.message);
                self.auth_round_over(now, Err(RequestError::AuthorizationFailed { detail, oauth: None }));
            }
            (Mode::Broken(_), Ok(_)) => {}
        }
    }

    /// Asks the host's token provider for a token.
    fn ask_provider(&mut self, now: Instant, status: u16, www_authenticate: Option<&str>, attempt: u32) {
        let Some(auth) = self.auth() else { return };
        let request = AccessTokenRequest::new(&auth.server_url, status, www_authenticate, attempt);
        let request = ServerRequest {
            kind: ServerRequestKind::AccessToken,
            request: HostRequest::AccessToken(Box::new(request)),
        };
        self.prompt_host(now, request, PROVIDER_TIMEOUT);
        self.extend_waiting_deadlines(now, PROVIDER_TIMEOUT);
    }

    fn prompt_host(&mut self, now: Instant, request: ServerRequest, timeout: Duration) {
        let handle = ServerRequestHandle::new(self.counters.server.next());
        if let Some(round) = self.auth_mut().and_then(|a| a.round.as_mut()) {
            round.prompt = Some(handle);
        }
        self.timers.set(Timer::Auth, now + timeout);
        self.emit(Event::ServerRequest { handle, request });
    }

    /// Does what the flow asks until it waits (for a fetch, the browser) or ends.
    fn auth_drive(&mut self, now: Instant) {
        loop {
            let Some(auth) = self.auth_mut() else { return };
            let Mode::OAuth { flow, browser_timeout } = &mut auth.mode else { return };
            let browser_timeout = *browser_timeout;
            let Some(step) = flow.poll() else { return };
            match step {
                AuthStep::Fetch { id, request } => {
                    let Some(link) = self.http_mut() else { return };
                    let exchange = ExchangeId::new(link.exchanges.ids.next());
                    if let Some(auth) = link.auth.as_deref_mut() {
                        let fetch = Fetch { id, status: 0, headers: Vec::new(), body: Vec::new() };
                        if let Some(round) = auth.round.as_mut() {
                            round.fetches.insert(exchange, fetch);
                        }
                    }
                    self.timers.set(Timer::Auth, now + FETCH_TIMEOUT);
                    self.io.push_back(Io::HttpStart { exchange, request });
                }
                AuthStep::Authorize { url } => {
                    let redirect = match self.auth().map(|a| &a.mode) {
                        Some(Mode::OAuth { flow, .. }) => flow.redirect_uri().to_owned(),
                        _ => String::new(),
                    };
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
        let Some(Mode::OAuth { flow, .. }) = self.auth().map(|a| &a.mode) else { return };
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

    /// The round ended: what it parked goes out again, or fails with `outcome`'s error.
    fn auth_round_over(&mut self, now: Instant, outcome: Result<(), RequestError>) {
        self.timers.clear(Timer::Auth);
        let Some(auth) = self.auth_mut() else { return };
        auth.refresh_blocked = outcome.is_err();
        let Round { parked, fetches, prompt } = auth.round.take().unwrap_or_default();
        for exchange in fetches.into_keys() {
            self.io.push_back(Io::HttpAbort { exchange });
        }
        if let Some(handle) = prompt {
            self.emit(Event::ServerRequestCancelled { handle });
        }
        for p in parked {
            match &outcome {
                Ok(()) => self.auth_resume(now, p),
                Err(e) => self.auth_give_up(now, p, e.clone()),
            }
        }
        self.pump(now);
    }

    fn auth_resume(&mut self, now: Instant, parked: Parked) {
        match parked {
            Parked::Handshake(epoch) if self.handshaking(epoch) => self.start_handshake(now, epoch),
            Parked::Initialize(epoch) if self.handshaking(epoch) => self.send_initialize(now, epoch),
            Parked::SseStream(epoch) if self.current_epoch() == Some(epoch) => {
                self.start_stream(epoch, Role::SseStream, None);
                self.timers.set(Timer::Handshake, now + self.cfg.timeouts.initialize);
            }
            Parked::Listen(epoch) if self.current_epoch() == Some(epoch) => self.start_listen(now, epoch),
            Parked::Op(handle)
                if self.ops.get(&handle).is_some_and(|op| op.sent.is_none())
                    && !self.queue.contains(&handle) =>
            {
                self.queue.push_front(handle);
            }
            _ => {}
        }
    }

    fn auth_give_up(&mut self, now: Instant, parked: Parked, err: RequestError) {
        match parked {
            Parked::Handshake(epoch) | Parked::Initialize(epoch) | Parked::SseStream(epoch)
                if self.current_epoch() == Some(epoch) =>
            {
                self.fail_handshake(now, err)
            }
            Parked::Listen(epoch) if self.current_epoch() == Some(epoch) => {
                self.listen_given_up();
                let detail = format!("the event stream needs authorization, which failed: {err}");
                self.warn(Warning::Http { detail });
            }
            Parked::Op(handle) => self.finish(handle, Err(err)),
            _ => {}
        }
    }

    /// The host is asked now (a person signs in, or the token provider fetches a token):
    /// requests that have not gone out (waiting for this round, or queued) get that step's
    /// time on top of their own, so a slow answer does not time them out.
    fn extend_waiting_deadlines(&mut self, now: Instant, browser_timeout: Duration) {
        let waiting: Vec<(RequestHandle, Duration)> =
            self.ops.iter().filter(|(_, op)| op.sent.is_none()).map(|(h, op)| (*h, op.timeout)).collect();
        for (handle, timeout) in waiting {
            let key = Timer::Request(handle);
            if let Some(at) = self.timers.at(key) {
                self.timers.set(key, at.max(now + browser_timeout + timeout));
            }
        }
    }

    /// Whether session `epoch` is still in its handshake.
    fn handshaking(&self, epoch: Epoch) -> bool {
        matches!(self.proc, Proc::Running { epoch: e, session: Session::Probing | Session::Initializing } if e == epoch)
    }

    /// At close: the round stops (its fetches aborted, its host request withdrawn); what it
    /// parked fails with the close.
    pub(super) fn auth_abandon(&mut self, now: Instant) {
        if self.http_auth_busy() {
            let err =
                RequestError::AuthorizationFailed { detail: "the connection closed".into(), oauth: None };
            self.auth_round_over(now, Err(err));
        }
    }
}
