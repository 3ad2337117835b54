//! Host handlers for server-to-client requests, and the event hook.

use std::future::Future;
use std::sync::Arc;

use mcp_core::ServerRequest;
use mcp_host::{roots_result, HandlerSet, NO_HANDLER};
use serde_json::Value;

use crate::runtime::BoxFuture;

/// An async handler: gets the server's name and the request, answers with the result JSON or a
/// local error description (the server only ever sees a generic error).
pub type Handler =
    Arc<dyn Fn(&str, ServerRequest) -> BoxFuture<'static, Result<Value, String>> + Send + Sync>;

/// The handlers a client has; capabilities are derived from which are present.
pub type Handlers = HandlerSet<Handler>;

/// Wraps an async closure as a [`Handler`].
pub fn handler<F, Fut>(f: F) -> Handler
where
    F: Fn(&str, ServerRequest) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Value, String>> + Send + 'static,
{
    Arc::new(move |server: &str, req: ServerRequest| Box::pin(f(server, req)) as BoxFuture<'static, _>)
}

/// A roots handler that always answers the same roots: `(uri, optional name)` pairs.
pub fn static_roots<I, S>(roots: I) -> Handler
where
    I: IntoIterator<Item = (S, Option<S>)>,
    S: Into<String>,
{
    let answer = roots_result(roots);
    Arc::new(move |_: &str, _: ServerRequest| {
        let answer = answer.clone();
        Box::pin(async move { Ok(answer) }) as BoxFuture<'static, _>
    })
}

/// Starts the installed handler for `request` (an error future if none is installed).
pub(crate) fn answer(
    handlers: &Handlers,
    server: &str,
    request: ServerRequest,
) -> BoxFuture<'static, Result<Value, String>> {
    match handlers.for_kind(request.kind) {
        Some(h) => h(server, request),
        None => Box::pin(async { Err(NO_HANDLER.to_owned()) }),
    }
}
