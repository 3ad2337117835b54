//! The host's handlers for server-to-client requests, and the server list they serve: which
//! client features the installed handlers declare, roots the client holds itself, server-name
//! validation.
//!
//! Handlers are typed: a family wraps a closure over a typed request ([`SamplingRequest`],
//! [`ElicitationRequest`], [`RootsListRequest`]: the decoded request and the asking server's
//! name) returning a typed answer ([`CreateMessageResult`], [`ElicitResult`], `Vec<Root>`) or
//! a [`HandlerError`] into its erased handler type `H` (see [`TypedRequest`] and
//! [`HandlerAnswer`]); the core decodes every request before a handler runs (one that does not
//! decode is answered `-32602`).

use std::sync::Arc;

use serde_json::Value;

#[cfg(feature = "http")]
use mcpwire_core::types::{AccessTokenAnswer, AccessTokenRequest};
#[cfg(feature = "oauth")]
use mcpwire_core::types::{AuthorizationCallback, AuthorizationRequest};
use mcpwire_core::types::{
    CreateMessageRequest, CreateMessageResult, DecodeError, ElicitRequest, ElicitResult, HostRequest, Root,
    RootsRequest,
};
use mcpwire_core::{ClientError, ClientFeatures, HandlerError, ServerRequestKind, ServerSpec};

/// The host's handlers for server-to-client requests, of whatever callable type a runtime uses.
/// Client capabilities are derived from which handlers are present, never assumed.
#[derive(Clone)]
pub struct HandlerSet<H> {
    /// Answers `roots/list`.
    pub roots: Option<H>,
    /// Answers `sampling/createMessage`.
    pub sampling: Option<H>,
    /// Answers `elicitation/create` (form mode).
    pub elicitation: Option<H>,
    /// Answers `elicitation/create` in URL mode (declares `elicitation.url`). Its answer is
    /// consent only: the `action` (and `_meta`) are sent, any `content` is dropped.
    pub elicitation_url: Option<H>,
    /// Roots the client holds and answers `roots/list` with itself, instead of a roots handler
    /// (declares `roots.listChanged`: they can change while connected).
    pub fixed_roots: Option<Vec<Root>>,
    /// The sampling handler takes tool-enabled requests (declares `sampling.tools`).
    pub sampling_tools: bool,
    /// The sampling handler honours `includeContext` (declares `sampling.context`).
    pub sampling_context: bool,
    /// Opens the browser for an OAuth sign-in and gives back where it was redirected.
    #[cfg(feature = "oauth")]
    pub authorization: Option<H>,
    /// Gives access tokens for servers authorized by the host itself (token provider).
    #[cfg(feature = "http")]
    pub access_token: Option<H>,
}

impl<H> Default for HandlerSet<H> {
    fn default() -> Self {
        Self {
            roots: None,
            sampling: None,
            elicitation: None,
            elicitation_url: None,
            fixed_roots: None,
            sampling_tools: false,
            sampling_context: false,
            #[cfg(feature = "oauth")]
            authorization: None,
            #[cfg(feature = "http")]
            access_token: None,
        }
    }
}

impl<H> std::fmt::Debug for HandlerSet<H> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut d = f.debug_struct("HandlerSet");
        d.field("roots", &self.roots.is_some())
            .field("sampling", &self.sampling.is_some())
            .field("elicitation", &self.elicitation.is_some())
            .field("elicitation_url", &self.elicitation_url.is_some())
            .field("fixed_roots", &self.fixed_roots.as_ref().map(Vec::len))
            .field("sampling_tools", &self.sampling_tools)
            .field("sampling_context", &self.sampling_context);
        #[cfg(feature = "oauth")]
        d.field("authorization", &self.authorization.is_some());
        #[cfg(feature = "http")]
        d.field("access_token", &self.access_token.is_some());
        d.finish()
    }
}

impl<H> HandlerSet<H> {
    /// The client features these handlers serve.
    pub fn features(&self) -> ClientFeatures {
        ClientFeatures::default()
            .roots(self.roots.is_some() || self.fixed_roots.is_some())
            .sampling(self.sampling.is_some())
            .elicitation_form(self.elicitation.is_some())
            .elicitation_url(self.elicitation_url.is_some())
            .sampling_tools(self.sampling.is_some() && self.sampling_tools)
            .sampling_context(self.sampling.is_some() && self.sampling_context)
            .roots_list_changed(self.fixed_roots.is_some())
    }

    /// The handler for a kind of request, if installed.
    pub fn for_kind(&self, kind: ServerRequestKind) -> Option<&H> {
        match kind {
            ServerRequestKind::Roots => self.roots.as_ref(),
            ServerRequestKind::Sampling => self.sampling.as_ref(),
            ServerRequestKind::Elicitation => self.elicitation.as_ref(),
            ServerRequestKind::ElicitationUrl => self.elicitation_url.as_ref(),
            #[cfg(feature = "oauth")]
            ServerRequestKind::Authorization => self.authorization.as_ref(),
            #[cfg(feature = "http")]
            ServerRequestKind::AccessToken => self.access_token.as_ref(),
            // Kinds of a feature this crate is built without (the core's variants exist only
            // with its own features): never asked for, since such servers are refused.
            #[allow(unreachable_patterns)]
            _ => None,
        }
    }
}

/// The local error reported when a request arrives for a handler that is not installed.
pub const NO_HANDLER: &str = "no handler installed";

/// A server's request to a host handler: the decoded request (reachable through `Deref`) and
/// the name of the server that asks.
#[derive(Debug, Clone, PartialEq)]
pub struct FromServer<T> {
    /// The asking server's name (as configured in the client).
    pub server: Arc<str>,
    /// The request.
    pub request: T,
}

impl<T> std::ops::Deref for FromServer<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.request
    }
}

/// What a sampling handler gets: a `sampling/createMessage` request and its server.
pub type SamplingRequest = FromServer<CreateMessageRequest>;

/// What an elicitation handler gets (form or URL mode): an `elicitation/create` request and
/// its server.
pub type ElicitationRequest = FromServer<ElicitRequest>;

/// What a roots handler gets: a `roots/list` request and its server.
pub type RootsListRequest = FromServer<RootsRequest>;

/// What an authorization handler gets: the browser sign-in an OAuth flow needs, and the
/// server it is for.
#[cfg(feature = "oauth")]
pub type AuthorizationPrompt = FromServer<AuthorizationRequest>;

/// What a token provider gets: a server's challenge to answer with an access token.
#[cfg(feature = "http")]
pub type TokenRequest = FromServer<AccessTokenRequest>;

/// A typed request a handler takes, and the answer it gives.
pub trait TypedRequest: Sized + Send + 'static {
    /// The handler's answer.
    type Answer: HandlerAnswer;

    /// The typed request inside `request`, if it is one.
    fn take(request: HostRequest) -> Option<Self>;

    /// The params as received (after the client's adjustments).
    fn raw(&self) -> &Value;
}

impl TypedRequest for RootsRequest {
    type Answer = Vec<Root>;

    fn take(request: HostRequest) -> Option<Self> {
        match request {
            HostRequest::Roots(r) => Some(r),
            _ => None,
        }
    }

    fn raw(&self) -> &Value {
        RootsRequest::raw(self)
    }
}

impl TypedRequest for CreateMessageRequest {
    type Answer = CreateMessageResult;

    fn take(request: HostRequest) -> Option<Self> {
        match request {
            HostRequest::Sampling(r) => Some(*r),
            _ => None,
        }
    }

    fn raw(&self) -> &Value {
        CreateMessageRequest::raw(self)
    }
}

impl TypedRequest for ElicitRequest {
    type Answer = ElicitResult;

    fn take(request: HostRequest) -> Option<Self> {
        match request {
            HostRequest::Elicitation(r) => Some(*r),
            _ => None,
        }
    }

    fn raw(&self) -> &Value {
        ElicitRequest::raw(self)
    }
}

#[cfg(feature = "oauth")]
impl TypedRequest for AuthorizationRequest {
    type Answer = AuthorizationCallback;

    fn take(request: HostRequest) -> Option<Self> {
        match request {
            HostRequest::Authorization(r) => Some(*r),
            _ => None,
        }
    }

    fn raw(&self) -> &Value {
        AuthorizationRequest::raw(self)
    }
}

#[cfg(feature = "http")]
impl TypedRequest for AccessTokenRequest {
    type Answer = AccessTokenAnswer;

    fn take(request: HostRequest) -> Option<Self> {
        match request {
            HostRequest::AccessToken(r) => Some(*r),
            _ => None,
        }
    }

    fn raw(&self) -> &Value {
        AccessTokenRequest::raw(self)
    }
}

/// A handler's typed answer, as the result JSON sent to the server (and back).
pub trait HandlerAnswer: Sized + Send + 'static {
    /// The result JSON.
    fn into_result(self) -> Value;

    /// Decodes a result JSON (e.g. an answer kept from an earlier session).
    fn from_result(result: Value) -> Result<Self, DecodeError>;
}

impl HandlerAnswer for Vec<Root> {
    fn into_result(self) -> Value {
        mcpwire_core::types::roots_result(&self)
    }

    fn from_result(result: Value) -> Result<Self, DecodeError> {
        mcpwire_core::types::decode_roots_result(&result)
    }
}

impl HandlerAnswer for CreateMessageResult {
    fn into_result(self) -> Value {
        self.to_value()
    }

    fn from_result(result: Value) -> Result<Self, DecodeError> {
        CreateMessageResult::from_value(result)
    }
}

impl HandlerAnswer for ElicitResult {
    fn into_result(self) -> Value {
        self.to_value()
    }

    fn from_result(result: Value) -> Result<Self, DecodeError> {
        ElicitResult::from_value(result)
    }
}

#[cfg(feature = "oauth")]
impl HandlerAnswer for AuthorizationCallback {
    fn into_result(self) -> Value {
        self.into_value()
    }

    fn from_result(result: Value) -> Result<Self, DecodeError> {
        AuthorizationCallback::from_value(&result)
    }
}

#[cfg(feature = "http")]
impl HandlerAnswer for AccessTokenAnswer {
    fn into_result(self) -> Value {
        self.into_value()
    }

    fn from_result(result: Value) -> Result<Self, DecodeError> {
        AccessTokenAnswer::from_value(&result)
    }
}

/// Calls a typed handler `f` with the request it takes (a request of another kind, which the
/// handler set never routes to it, is an error), giving its outcome as result JSON through
/// `finish`: the shared body of every family's typed-handler wrapper.
pub fn call_typed<Req: TypedRequest, O>(
    server: &str,
    request: HostRequest,
    f: impl FnOnce(FromServer<Req>) -> O,
) -> Result<O, HandlerError> {
    match Req::take(request) {
        Some(request) => Ok(f(FromServer { server: server.into(), request })),
        None => Err(HandlerError::new("the request was routed to a handler of another kind")),
    }
}

/// Checks a client's server list (at least one; names non-empty and unique) and gives every
/// server the features of the installed handlers, and the roots the client holds.
pub fn prepare_servers<H>(
    specs: Vec<ServerSpec>,
    handlers: &HandlerSet<H>,
) -> Result<Vec<ServerSpec>, ClientError> {
    if specs.is_empty() {
        return Err(ClientError::Config("no server configured".into()));
    }
    let features = handlers.features();
    let mut seen = std::collections::BTreeSet::new();
    specs
        .into_iter()
        .map(|mut spec| {
            if spec.name.is_empty() || !seen.insert(spec.name.clone()) {
                return Err(ClientError::Config(format!(
                    "server name {:?} is empty or used twice",
                    spec.name
                )));
            }
            spec.config.features = features.clone();
            spec.config.roots = handlers.fixed_roots.clone();
            Ok(spec)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpwire_core::StdioCommand;
    use serde_json::json;

    #[test]
    fn features_follow_handlers() {
        let set: HandlerSet<u8> =
            HandlerSet { roots: Some(1), elicitation: Some(2), sampling_tools: true, ..Default::default() };
        let f = set.features();
        assert!(f.roots && !f.sampling && f.elicitation_form && !f.elicitation_url && !f.roots_list_changed);
        assert!(!f.sampling_tools, "the sampling options need a sampling handler");
        assert_eq!(set.for_kind(ServerRequestKind::Elicitation), Some(&2));
        assert_eq!(set.for_kind(ServerRequestKind::ElicitationUrl), None);
        assert_eq!(set.for_kind(ServerRequestKind::Sampling), None);
        let set: HandlerSet<u8> = HandlerSet {
            sampling: Some(3),
            elicitation_url: Some(4),
            sampling_tools: true,
            sampling_context: true,
            ..Default::default()
        };
        let f = set.features();
        assert!(
            f.sampling && f.sampling_tools && f.sampling_context && f.elicitation_url && !f.elicitation_form
        );
        assert_eq!(set.for_kind(ServerRequestKind::ElicitationUrl), Some(&4));
    }

    #[test]
    fn held_roots_declare_list_changed() {
        let set: HandlerSet<u8> = HandlerSet { fixed_roots: Some(vec![]), ..Default::default() };
        let f = set.features();
        assert!(f.roots && f.roots_list_changed);
        assert_eq!(set.for_kind(ServerRequestKind::Roots), None, "no handler: the core answers");
    }

    #[test]
    fn server_names_must_be_unique() {
        let s = |n: &str| ServerSpec::stdio(n, StdioCommand::new("x"));
        let set: HandlerSet<u8> =
            HandlerSet { fixed_roots: Some(vec![Root::named("file:///a", "a")]), ..Default::default() };
        let ok = prepare_servers(vec![s("a"), s("b")], &set).unwrap();
        assert!(ok
            .iter()
            .all(|s| s.config.features.roots && s.config.roots.as_ref().is_some_and(|r| r.len() == 1)));
        assert!(prepare_servers(vec![s("a"), s("a")], &set).is_err());
        assert!(prepare_servers(vec![s("")], &set).is_err());
        assert!(prepare_servers(vec![], &set).is_err());
    }

    #[test]
    fn typed_calls_and_answers() {
        let roots = HostRequest::Roots(RootsRequest::from_value(Value::Null).unwrap());
        let got = call_typed("srv", roots.clone(), |r: RootsListRequest| {
            assert_eq!(&*r.server, "srv");
            vec![Root::named("file:///a", "a")].into_result()
        });
        assert_eq!(got.unwrap(), json!({"roots": [{"uri": "file:///a", "name": "a"}]}));
        let wrong = call_typed("srv", roots, |_: SamplingRequest| ());
        assert!(wrong.is_err(), "a request of another kind is an error, not a panic");
        assert_eq!(ElicitResult::decline().into_result(), json!({"action": "decline"}));
    }
}
