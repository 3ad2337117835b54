//! [`Phase`]: where the flow is in its round, with what only that phase has: the exchange
//! out and what it is for ([`Purpose`]: resource metadata, authorization server metadata,
//! registration, a token request), or the authorization the browser's redirect answers.

use std::fmt;

use crate::oauth::callback::PendingAuthorization;
use crate::oauth::registration::TokenAuthMethod;
use crate::oauth::secret::Secret;

/// Names one HTTP exchange the flow asked for; pass it back to
/// [`AuthFlow::on_response`](crate::oauth::AuthFlow::on_response).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FetchId(pub(crate) u64);

impl fmt::Display for FetchId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "oauth-fetch-{}", self.0)
    }
}

/// Where the flow is.
#[derive(Debug, Default)]
pub(crate) enum Phase {
    /// No round started yet.
    #[default]
    Idle,
    /// One exchange is out; its answer moves the flow on.
    Fetching(InFlight),
    /// The browser was sent to the authorization endpoint; its redirect is awaited.
    AwaitingCallback(Box<PendingAuthorization>),
    /// The round ended with tokens handed to the host ([`crate::oauth::AuthStep::Done`]).
    Authorized,
    /// The round gave up ([`crate::oauth::AuthStep::Failed`]); a new challenge starts over.
    Failed,
}

impl Phase {
    /// The exchange `id`, taken out of the phase (which becomes [`Phase::Idle`]); `None` when
    /// the flow waits for no such exchange (a new challenge restarted it).
    pub(crate) fn take_fetch(&mut self, id: FetchId) -> Option<InFlight> {
        match std::mem::take(self) {
            Phase::Fetching(i) if i.id == id => Some(i),
            other => {
                *self = other;
                None
            }
        }
    }

    /// The pending authorization, taken out of the phase (which becomes [`Phase::Idle`]).
    pub(crate) fn take_pending(&mut self) -> Option<PendingAuthorization> {
        match std::mem::take(self) {
            Phase::AwaitingCallback(p) => Some(*p),
            other => {
                *self = other;
                None
            }
        }
    }

    /// The exchange out, if any.
    pub(crate) fn fetch_id(&self) -> Option<FetchId> {
        match self {
            Phase::Fetching(i) => Some(i.id),
            _ => None,
        }
    }

    /// A short name, for `Debug` output that shows no secret.
    pub(crate) fn name(&self) -> &'static str {
        match self {
            Phase::Idle => "idle",
            Phase::Fetching(i) => i.purpose.name(),
            Phase::AwaitingCallback(_) => "awaiting callback",
            Phase::Authorized => "authorized",
            Phase::Failed => "failed",
        }
    }
}

/// Why the exchange out was sent.
#[derive(Debug)]
pub(crate) enum Purpose {
    /// Discovering the Protected Resource Metadata: `candidates[index]` is out.
    Prm { candidates: Vec<String>, index: usize, hinted: bool },
    /// Discovering the authorization server metadata of `issuer`: `candidates[index]` is out.
    AsMeta { issuer: String, candidates: Vec<String>, index: usize, legacy: bool },
    /// Dynamic client registration.
    Register { method: TokenAuthMethod },
    /// Exchanging the authorization code.
    Code { pending: Box<PendingAuthorization>, code: Secret },
    /// Refreshing; on failure a `fallback` refresh goes on to a new grant.
    Refresh { fallback: bool },
    /// The client credentials grant.
    ClientCredentials { scopes: Vec<String> },
    /// The JWT bearer grant.
    JwtBearer { scopes: Vec<String>, assertion: Secret },
    /// The SEP-990 token exchange at the identity provider.
    Exchange { scopes: Vec<String> },
}

impl Purpose {
    /// Whether the answer comes from a token endpoint (the authorization server's, or the
    /// identity provider's for the exchange).
    pub(crate) fn is_token_request(&self) -> bool {
        !matches!(self, Purpose::Prm { .. } | Purpose::AsMeta { .. } | Purpose::Register { .. })
    }

    fn name(&self) -> &'static str {
        match self {
            Purpose::Prm { .. } => "discovering resource metadata",
            Purpose::AsMeta { .. } => "discovering authorization server metadata",
            Purpose::Register { .. } => "registering",
            Purpose::Code { .. } => "exchanging the code",
            Purpose::Refresh { .. } => "refreshing",
            Purpose::ClientCredentials { .. } | Purpose::JwtBearer { .. } => "requesting tokens",
            Purpose::Exchange { .. } => "exchanging the ID token",
        }
    }
}

/// One exchange out.
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
