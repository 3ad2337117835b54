//! Host handlers for server-to-client requests: typed async closures, erased to [`Handler`].

use std::future::Future;
use std::sync::Arc;

use mcp_core::{HandlerError, ServerRequest};
use mcp_host::{call_typed, FromServer, HandlerAnswer, HandlerSet, TypedRequest, NO_HANDLER};
use serde_json::Value;

use crate::runtime::BoxFuture;

/// A handler as the client keeps it: gets the server's name and the decoded request, answers
/// with the result JSON or a [`HandlerError`]. Built from a typed closure by the
/// `ClientBuilder`'s `*_handler` methods.
pub type Handler =
    Arc<dyn Fn(&str, ServerRequest) -> BoxFuture<'static, Result<Value, HandlerError>> + Send + Sync>;

/// The handlers a client has; capabilities are derived from which are present.
pub type Handlers = HandlerSet<Handler>;

/// What a typed async handler returns: a future of `Result<T, HandlerError>`.
pub trait HandlerOutput<T>: Send + 'static {
    /// The future of the answer as result JSON.
    fn into_answer(self) -> BoxFuture<'static, Result<Value, HandlerError>>;
}

impl<T, Fut> HandlerOutput<T> for Fut
where
    T: HandlerAnswer,
    Fut: Future<Output = Result<T, HandlerError>> + Send + 'static,
{
    fn into_answer(self) -> BoxFuture<'static, Result<Value, HandlerError>> {
        Box::pin(async move { self.await.map(HandlerAnswer::into_result) })
    }
}

/// Wraps a typed async closure (a [`FromServer`] request in, a future of its answer out) as a
/// [`Handler`].
pub fn typed_handler<Req, F, O>(f: F) -> Handler
where
    Req: TypedRequest,
    F: Fn(FromServer<Req>) -> O + Send + Sync + 'static,
    O: HandlerOutput<Req::Answer>,
{
    Arc::new(move |server: &str, request: ServerRequest| match call_typed(server, request.request, &f) {
        Ok(answer) => answer.into_answer(),
        Err(e) => Box::pin(async move { Err(e) }) as BoxFuture<'static, _>,
    })
}

/// Starts the installed handler for `request` (an error future if none is installed).
pub(crate) fn answer(
    handlers: &Handlers,
    server: &str,
    request: ServerRequest,
) -> BoxFuture<'static, Result<Value, HandlerError>> {
    match handlers.for_kind(request.kind) {
        Some(h) => h(server, request),
        None => Box::pin(async { Err(HandlerError::new(NO_HANDLER)) }),
    }
}
