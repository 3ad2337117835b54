//! Host handlers for server-to-client requests, and the event hook.

use std::future::Future;
use std::sync::Arc;

use mcp_core::{ClientFeatures, Event, ServerRequest, ServerRequestKind};
use serde_json::{json, Value};

use crate::runtime::BoxFuture;

/// An async handler: gets the server's name and the request, answers with the result JSON or a
/// local error description (the server only ever sees a generic error).
pub type Handler =
    Arc<dyn Fn(&str, ServerRequest) -> BoxFuture<'static, Result<Value, String>> + Send + Sync>;

/// A callback for every non-response event of every server (notifications, log messages,
/// stderr lines, warnings, connection changes). It runs on the driver: keep it short.
pub type EventHook = Arc<dyn Fn(&str, &Event) + Send + Sync>;

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
    let list: Vec<Value> = roots
        .into_iter()
        .map(|(uri, name)| {
            let mut root = json!({ "uri": uri.into() });
            if let Some(n) = name {
                root["name"] = Value::String(n.into());
            }
            root
        })
        .collect();
    let answer = json!({ "roots": list });
    Arc::new(move |_: &str, _: ServerRequest| {
        let answer = answer.clone();
        Box::pin(async move { Ok(answer) }) as BoxFuture<'static, _>
    })
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

    pub(crate) fn answer(
        &self,
        server: &str,
        request: ServerRequest,
    ) -> BoxFuture<'static, Result<Value, String>> {
        let handler = match request.kind {
            ServerRequestKind::Roots => &self.roots,
            ServerRequestKind::Sampling => &self.sampling,
            ServerRequestKind::Elicitation => &self.elicitation,
        };
        match handler {
            Some(h) => h(server, request),
            None => Box::pin(async { Err("no handler installed".to_owned()) }),
        }
    }
}
