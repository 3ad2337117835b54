//! Host handlers for server-to-client requests: typed synchronous closures, erased to
//! [`Handler`].

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use mcp_core::{HandlerError, ServerRequest};
use mcp_host::{call_typed, FromServer, HandlerAnswer, HandlerSet, TypedRequest, NO_HANDLER};
use serde_json::Value;

/// A handler as the client keeps it: gets the server's name and the decoded request, answers
/// with the result JSON or a [`HandlerError`]. Each request runs it on a thread of its own, so
/// it may block (e.g. to ask a user) without stalling the server. Built from a typed closure
/// by the `ClientBuilder`'s `*_handler` methods.
pub type Handler = Arc<dyn Fn(&str, ServerRequest) -> Result<Value, HandlerError> + Send + Sync>;

/// The handlers a client has; capabilities are derived from which are present.
pub type Handlers = HandlerSet<Handler>;

/// What a typed blocking handler returns: `Result<T, HandlerError>`.
pub trait HandlerOutput<T> {
    /// The answer as result JSON.
    fn into_answer(self) -> Result<Value, HandlerError>;
}

impl<T: HandlerAnswer> HandlerOutput<T> for Result<T, HandlerError> {
    fn into_answer(self) -> Result<Value, HandlerError> {
        self.map(HandlerAnswer::into_result)
    }
}

/// The ready-made browser sign-in (`ClientBuilder::browser_authorization`, or
/// [`BrowserAuthorization::start`](mcp_host::auth::BrowserAuthorization::start) in an
/// authorization handler) waits for the browser on this handler's thread.
impl HandlerOutput<mcp_core::types::AuthorizationCallback> for mcp_host::auth::AuthorizationWait {
    fn into_answer(self) -> Result<Value, HandlerError> {
        self.wait().map(HandlerAnswer::into_result)
    }
}

/// Wraps a typed closure (a [`FromServer`] request in, its answer out) as a [`Handler`].
pub fn typed_handler<Req, F, O>(f: F) -> Handler
where
    Req: TypedRequest,
    F: Fn(FromServer<Req>) -> O + Send + Sync + 'static,
    O: HandlerOutput<Req::Answer>,
{
    Arc::new(move |server: &str, request: ServerRequest| {
        call_typed(server, request.request, &f).and_then(HandlerOutput::into_answer)
    })
}

/// Runs the handler for `request` on the caller's thread; a panic becomes an error.
pub(crate) fn answer(
    handlers: &Handlers,
    server: &str,
    request: ServerRequest,
) -> Result<Value, HandlerError> {
    match handlers.for_kind(request.kind) {
        Some(h) => catch_unwind(AssertUnwindSafe(|| h(server, request)))
            .unwrap_or_else(|_| Err(HandlerError::new("the handler panicked"))),
        None => Err(HandlerError::new(NO_HANDLER)),
    }
}
