//! Host handlers for server-to-client requests (synchronous closures).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use mcp_core::{ClientFeatures, ServerRequest, ServerRequestKind};
use serde_json::{json, Value};

/// A handler: gets the server's name and the request, answers with the result JSON or a local
/// error description (the server only ever sees a generic error). Each request runs it on a
/// thread of its own, so it may block (e.g. to ask a user) without stalling the server.
pub type Handler = Arc<dyn Fn(&str, ServerRequest) -> Result<Value, String> + Send + Sync>;

/// The handlers a client has; capabilities are derived from which are present.
#[derive(Clone, Default)]
pub struct Handlers {
    pub(crate) roots: Option<Handler>,
    pub(crate) sampling: Option<Handler>,
    pub(crate) elicitation: Option<Handler>,
}

impl std::fmt::Debug for Handlers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Handlers")
            .field("roots", &self.roots.is_some())
            .field("sampling", &self.sampling.is_some())
            .field("elicitation", &self.elicitation.is_some())
            .finish()
    }
}

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
    let list: Vec<Value> = roots
        .into_iter()
        .map(|(uri, name)| match name {
            Some(n) => json!({ "uri": uri.into(), "name": n.into() }),
            None => json!({ "uri": uri.into() }),
        })
        .collect();
    let answer = json!({ "roots": list });
    Arc::new(move |_: &str, _: ServerRequest| Ok(answer.clone()))
}

impl Handlers {
    /// The client features these handlers serve.
    pub fn features(&self) -> ClientFeatures {
        ClientFeatures {
            roots: self.roots.is_some(),
            sampling: self.sampling.is_some(),
            elicitation_form: self.elicitation.is_some(),
            elicitation_url: false,
        }
    }

    /// Runs the handler for `request` (on the caller's thread); a panic becomes an error.
    pub(crate) fn answer(&self, server: &str, request: ServerRequest) -> Result<Value, String> {
        let handler = match request.kind {
            ServerRequestKind::Roots => &self.roots,
            ServerRequestKind::Sampling => &self.sampling,
            ServerRequestKind::Elicitation => &self.elicitation,
        };
        match handler {
            Some(h) => catch_unwind(AssertUnwindSafe(|| h(server, request)))
                .unwrap_or_else(|_| Err("the handler panicked".to_owned())),
            None => Err("no handler installed".to_owned()),
        }
    }
}
