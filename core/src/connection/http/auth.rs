//! Answering a protected server's `401`/`403` ([`HttpAuth`]): the host's token provider, or
//! (with the `oauth` feature) the OAuth flow, driven by the connection.
//!
//! A refused request (the handshake, a host request, the HTTP+SSE stream, the legacy GET
//! stream) is parked and an authorization round starts: the token provider is asked through a
//! [`ServerRequestKind::AccessToken`] host request; the OAuth flow's fetches go out as
//! ordinary [`crate::Io::HttpStart`] exchanges (their bodies collected, bounded) and its
//! browser step reaches the host as a `ServerRequestKind::Authorization` request (see
//! `auth/oauth.rs`). Once the round is done every parked request goes out again with the new
//! credentials. Requests that are not sent yet wait while a round runs. A failed round fails
//! what it parked with [`RequestError::AuthorizationFailed`].
//!
//! OAuth tokens are refreshed before a request when they are about to expire and a refresh
//! token is held. A round that succeeds but whose credentials the server refuses again counts:
//! after [`MAX_ROUNDS_WITHOUT_SUCCESS`] such rounds in a row the refusal is final
//! ([`RequestError::Unauthorized`]), so a server that never accepts a token cannot loop the
//! client. The token provider is asked at most [`MAX_PROVIDER_ATTEMPTS`] times in a row.

#[cfg(feature = "oauth")]
mod oauth;

#[cfg(feature = "oauth")]
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use super::super::{Connection, Proc, Session};
use super::exchange::Role;
use crate::error::{RequestError, Warning};
use crate::event::{Event, ServerRequest};
#[cfg(feature = "oauth")]
use crate::handle::ExchangeId;
use crate::handle::{Epoch, RequestHandle, ServerRequestHandle};
use crate::headers::parse_www_authenticate;
use crate::io::{HttpHead, HttpRequest};
use crate::oauth::{HttpAuth, Secret};
use crate::timers::Timer;
use crate::types::ServerRequestKind;
use crate::types::{AccessTokenAnswer, AccessTokenRequest, HandlerError, HostRequest};

/// Authorization rounds that may succeed in a row while the server keeps refusing.
pub const MAX_ROUNDS_WITHOUT_SUCCESS: u32 = 3;
/// Times in a row the token provider is asked before a refusal is final.
pub const MAX_PROVIDER_ATTEMPTS: u32 = 2;
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
    /// OAuth 2.1 through the flow (or its refused setup: every challenge fails).
    #[cfg(feature = "oauth")]
    OAuth(oauth::OAuthMode),
    /// The host's token provider.
    Provider { token: Option<Secret>, attempts: u32 },
}

/// An authorization round under way.
#[derive(Default)]
struct Round {
    /// What goes out again (or fails) when it ends.
    parked: Vec<Parked>,
    /// Its OAuth fetch in flight (the flow has one at a time).
    #[cfg(feature = "oauth")]
    fetches: BTreeMap<ExchangeId, oauth::Fetch>,
    /// Its host request (browser step or token provider).
    prompt: Option<ServerRequestHandle>,
}

/// The authorization state of an HTTP connection.
pub(super) struct AuthState {
    mode: Mode,
    /// The round under way, if any.
    round: Option<Round>,
    rounds_without_success: u32,
    server_url: String,
}

impl std::fmt::Debug for AuthState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mode = match &self.mode {
            #[cfg(feature = "oauth")]
            Mode::OAuth(oauth) => format!("{oauth:?}"),
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
    /// The state for `auth` on the server at `url`, at `now` (OAuth: the flow's wall clock is
    /// anchored there). A record that cannot be restored is dropped (the warning says why).
    #[cfg_attr(not(feature = "oauth"), allow(unused_variables))]
    pub(super) fn new(auth: &HttpAuth, url: &str, now: Instant) -> (Option<Self>, Option<Warning>) {
        let (mode, warning) = match auth {
            HttpAuth::None => return (None, None),
            HttpAuth::TokenProvider => (Mode::Provider { token: None, attempts: 0 }, None),
            #[cfg(feature = "oauth")]
            HttpAuth::OAuth(setup) => {
                let (mode, warning) = oauth::OAuthMode::new(setup, url, now);
                (Mode::OAuth(mode), warning)
            }
        };
        let state = Self { mode, round: None, rounds_without_success: 0, server_url: url.to_owned() };
        (Some(state), warning)
    }

    /// A response from the MCP server: a success resets the counts of refused rounds (and
    /// OAuth keeps a `DPoP-Nonce`).
    pub(super) fn on_server_head(&mut self, head: &HttpHead) {
        let success = (200..300).contains(&head.status);
        if success {
            self.rounds_without_success = 0;
        }
        match &mut self.mode {
            Mode::Provider { attempts, .. } => {
                if success {
                    *attempts = 0;
                }
            }
            #[cfg(feature = "oauth")]
            Mode::OAuth(oauth) => oauth.on_server_head(head, success),
        }
    }

    /// Puts the credentials on a request to the MCP server (replacing any configured
    /// `Authorization`); `now` is the connection's clock.
    #[cfg_attr(not(feature = "oauth"), allow(unused_variables))]
    pub(super) fn decorate(&mut self, now: Instant, request: &mut HttpRequest) {
        let added = match &mut self.mode {
            #[cfg(feature = "oauth")]
            Mode::OAuth(oauth) => oauth.request_headers(now, request),
            Mode::Provider { token: Some(t), .. } => {
                vec![("authorization".to_owned(), format!("Bearer {}", t.expose()))]
            }
            Mode::Provider { token: None, .. } => Vec::new(),
        };
        if added.is_empty() {
            return;
        }
        request.headers.retain(|(n, _)| !added.iter().any(|(a, _)| a.eq_ignore_ascii_case(n)));
        request.headers.extend(added);
    }
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

/// [`RequestError::AuthorizationFailed`] for a failure that is not an error of the OAuth flow.
fn failed(detail: String) -> RequestError {
    RequestError::AuthorizationFailed {
        detail,
        #[cfg(feature = "oauth")]
        oauth: None,
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
            match &mut auth.mode {
                Mode::Provider { attempts, .. } => *attempts = 0,
                #[cfg(feature = "oauth")]
                Mode::OAuth(_) => {}
            }
            return false;
        }
        auth.round = Some(Round { parked: vec![parked], ..Round::default() });
        auth.rounds_without_success += 1;
        match &mut auth.mode {
            Mode::Provider { attempts, .. } => {
                *attempts += 1;
                let attempt = *attempts;
                self.ask_provider(now, status, www_authenticate, attempt);
            }
            #[cfg(feature = "oauth")]
            Mode::OAuth(_) => self.oauth_challenge(now, status, www_authenticate),
        }
        true
    }

    /// The round's step took too long (a fetch, the browser, the token provider).
    pub(in crate::connection) fn on_auth_timeout(&mut self, now: Instant) {
        let Some(round) = self.auth().and_then(|a| a.round.as_ref()) else { return };
        let what = if round.prompt.is_some() {
            "the sign-in (or token provider)"
        } else {
            "an authorization request"
        };
        self.auth_round_over(now, Err(failed(format!("{what} took too long"))));
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
            (_, Err(e)) => {
                let detail = format!("the host declined to authorize: {}", e.message);
                self.auth_round_over(now, Err(failed(detail)));
            }
            (Mode::Provider { token, .. }, Ok(value)) => match AccessTokenAnswer::from_value(&value) {
                Ok(answer) => {
                    *token = Some(answer.token);
                    self.auth_round_over(now, Ok(()));
                }
                Err(e) => {
                    let detail = format!("the token provider's answer is not a token: {e}");
                    self.auth_round_over(now, Err(failed(detail)));
                }
            },
            #[cfg(feature = "oauth")]
            (Mode::OAuth(_), Ok(value)) => self.oauth_callback(now, &value),
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

    /// The round ended: what it parked goes out again, or fails with `outcome`'s error.
    fn auth_round_over(&mut self, now: Instant, outcome: Result<(), RequestError>) {
        self.timers.clear(Timer::Auth);
        let Some(auth) = self.auth_mut() else { return };
        let round = auth.round.take().unwrap_or_default();
        #[cfg(feature = "oauth")]
        {
            if let Mode::OAuth(oauth) = &mut auth.mode {
                oauth.round_over(outcome.is_err());
            }
            for exchange in round.fetches.into_keys() {
                self.io.push_back(crate::io::Io::HttpAbort { exchange });
            }
        }
        if let Some(handle) = round.prompt {
            self.emit(Event::ServerRequestCancelled { handle });
        }
        for p in round.parked {
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
            Parked::Op(handle) if self.in_flight.is_unsent(handle) => self.in_flight.queue_first_once(handle),
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
        let waiting: Vec<(RequestHandle, Duration)> = self
            .in_flight
            .iter()
            .filter(|(_, op)| op.sent.is_none())
            .map(|(h, op)| (h, op.timeout))
            .collect();
        for (handle, timeout) in waiting {
            let key = Timer::Request(handle);
            if let Some(at) = self.timers.at(key) {
                self.timers.set(key, at.max(now + browser_timeout + timeout));
            }
        }
    }

    /// Whether session `epoch` is still in its handshake.
    fn handshaking(&self, epoch: Epoch) -> bool {
        matches!(self.proc, Proc::Running { epoch: e, session: Session::Probing { .. } | Session::Initializing } if e == epoch)
    }

    /// At close: the round stops (its fetches aborted, its host request withdrawn); what it
    /// parked fails with the close.
    pub(super) fn auth_abandon(&mut self, now: Instant) {
        if self.http_auth_busy() {
            self.auth_round_over(now, Err(failed("the connection closed".into())));
        }
    }
}
