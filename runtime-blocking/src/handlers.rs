//! Host handlers for server-to-client requests (synchronous closures).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use mcp_core::ServerRequest;
use mcp_host::{roots_result, HandlerSet, NO_HANDLER};
use serde_json::Value;

/// A handler: gets the server's name and the request, answers with the result JSON or a local
/// error description (the server only ever sees a generic error). Each request runs it on a
/// thread of its own, so it may block (e.g. to ask a user) without stalling the server.
pub type Handler = Arc<dyn Fn(&str, ServerRequest) -> Result<Value, String> + Send + Sync>;

/// The handlers a client has; capabilities are derived from which are present.
pub type Handlers = HandlerSet<Handler>;

/// Wraps a closure as a [`Handler`].
pub fn handler<F>(f: F) -> Handler
where
    F: Fn(&str, ServerRequest) -> Result<Value, String> + Send + Sync + 'static,
{
    Arc::new(f)
}

/// A roots handler that always answers the same roots: `(uri, optional name)` pairs.
pub fn static_roots<I, S>(roots: I) -> Handler
where
    I: IntoIterator<Item = (S, Option<S>)>,
    S: Into<String>,
{
    let answer = roots_result(roots);
    Arc::new(move |_: &str, _: ServerRequest| Ok(answer.clone()))
}

/// Runs the handler for `request` on the caller's thread; a panic becomes an error.
pub(crate) fn answer(handlers: &Handlers, server: &str, request: ServerRequest) -> Result<Value, String> {
    match handlers.for_kind(request.kind) {
        Some(h) => catch_unwind(AssertUnwindSafe(|| h(server, request)))
            .unwrap_or_else(|_| Err("the handler panicked".to_owned())),
        None => Err(NO_HANDLER.to_owned()),
    }
}
