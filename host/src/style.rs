//! [`Style`]: how a family's callers wait and its handlers answer — [`Awaiting`] (requests are
//! awaited, handlers return futures) or [`Returning`] (requests are sent with a blocking
//! `.send()`, handlers return their answer) — and the handler closures of each style, erased
//! to [`Handler`].

use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use mcpwire_core::{HandlerError, ServerRequest};
use serde_json::Value;

use crate::family::BoxFuture;
use crate::handlers::{call_typed, FromServer, HandlerAnswer, HandlerSet, TypedRequest, NO_HANDLER};

/// How a family's callers wait and its handlers answer.
pub trait Style: Send + Sync + 'static {
    /// A handler's answer as the client keeps it: the result JSON or a [`HandlerError`]
    /// (a future of it for [`Awaiting`]).
    type Answer: Send + 'static;

    /// The answer of a request no handler can take.
    fn refused(error: HandlerError) -> Self::Answer;
}

/// The async style: requests are awaited (`IntoFuture`) and handlers return futures.
#[derive(Debug, Clone, Copy)]
pub struct Awaiting;

/// The blocking style: requests are sent with a blocking `.send()` and handlers return their
/// answer (each request runs its handler on a thread of its own, so it may block, e.g. to ask
/// a user, without stalling the server).
#[derive(Debug, Clone, Copy)]
pub struct Returning;

impl Style for Awaiting {
    type Answer = BoxFuture<'static, Result<Value, HandlerError>>;

    fn refused(error: HandlerError) -> Self::Answer {
        Box::pin(async move { Err(error) })
    }
}

impl Style for Returning {
    type Answer = Result<Value, HandlerError>;

    fn refused(error: HandlerError) -> Self::Answer {
        Err(error)
    }
}

/// A handler as the client keeps it: the server's name and the decoded request in, the answer
/// of its style out. Built from a typed closure by the `ClientBuilder`'s `*_handler` methods.
pub type Handler<S> = Arc<dyn Fn(&str, ServerRequest) -> <S as Style>::Answer + Send + Sync>;

/// The handlers a client has; capabilities are derived from which are present.
pub type Handlers<S> = HandlerSet<Handler<S>>;

/// What a typed handler closure of style `S` returns for an answer of type `T`: a future of
/// `Result<T, HandlerError>` ([`Awaiting`]), or the `Result` itself ([`Returning`]).
pub trait HandlerOutput<S: Style, T>: Send + 'static {
    /// The answer as result JSON.
    fn into_answer(self) -> S::Answer;
}

impl<T, Fut> HandlerOutput<Awaiting, T> for Fut
where
    T: HandlerAnswer,
    Fut: Future<Output = Result<T, HandlerError>> + Send + 'static,
{
    fn into_answer(self) -> BoxFuture<'static, Result<Value, HandlerError>> {
        Box::pin(async move { self.await.map(HandlerAnswer::into_result) })
    }
}

impl<T: HandlerAnswer> HandlerOutput<Returning, T> for Result<T, HandlerError> {
    fn into_answer(self) -> Result<Value, HandlerError> {
        self.map(HandlerAnswer::into_result)
    }
}

/// The ready-made browser sign-in (`ClientBuilder::browser_authorization`, or
/// [`BrowserAuthorization::start`](crate::auth::BrowserAuthorization::start) in an
/// authorization handler) waits for the browser on the handler's thread.
#[cfg(feature = "oauth")]
impl HandlerOutput<Returning, mcpwire_core::types::AuthorizationCallback> for crate::auth::AuthorizationWait {
    fn into_answer(self) -> Result<Value, HandlerError> {
        self.wait().map(HandlerAnswer::into_result)
    }
}

/// Wraps a typed closure (a [`FromServer`] request in, its answer out) as a [`Handler`].
pub fn typed_handler<S, Req, F, O>(f: F) -> Handler<S>
where
    S: Style,
    Req: TypedRequest,
    F: Fn(FromServer<Req>) -> O + Send + Sync + 'static,
    O: HandlerOutput<S, Req::Answer>,
{
    Arc::new(move |server: &str, request: ServerRequest| match call_typed(server, request.request, &f) {
        Ok(answer) => answer.into_answer(),
        Err(e) => S::refused(e),
    })
}

/// Starts the installed handler for `request` (a refusal if none is installed); a blocking
/// handler that panics answers an error.
pub fn answer<S: Style>(handlers: &Handlers<S>, server: &str, request: ServerRequest) -> S::Answer {
    match handlers.for_kind(request.kind) {
        Some(h) => match catch_unwind(AssertUnwindSafe(|| h(server, request))) {
            Ok(answer) => answer,
            Err(_) => S::refused(HandlerError::new("the handler panicked")),
        },
        None => S::refused(HandlerError::new(NO_HANDLER)),
    }
}
