//! [`Server`]: one server of a client. Its requests are values ([`RequestBuilder`]) that carry
//! their options and are then awaited (async) or sent (blocking).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use mcpwire_core::calls::{
    Call, CallTool, Complete, Connect, Discover, GetPrompt, ListPrompts, ListResourceTemplates,
    ListResources, ListTools, Ping, ReadResource, SetLogLevel,
};
use mcpwire_core::types::{CompletionReference, LoggingLevel, Tool};
use mcpwire_core::{CacheInfo, CacheKey, ClientError, CommandError, InputResume, Request, Root, ServerInfo};
use serde::Serialize;

use crate::dispatch::{lock, SharedView};
use crate::family::{Family, StartedServer};
use crate::request_builder::RequestBuilder;
use crate::subscription::ResourceSubscriptions;

/// One server of a [`Client`](crate::Client). Cheap to clone; every clone talks to the same
/// engine, and the server shuts down when the last clone (with its client) is gone.
///
/// Its requests are values that carry their options: `server.call_tool("echo", args).await?`
/// with an async client, `server.call_tool("echo", args).send()?` with the blocking one (see
/// [`RequestBuilder`] for timeouts, `_meta`, progress and cancellation).
pub struct Server<F: Family> {
    inner: Arc<ServerInner<F>>,
}

/// What every clone of a server shares.
pub(crate) struct ServerInner<F: Family> {
    pub(crate) name: Arc<str>,
    pub(crate) view: SharedView,
    pub(crate) resources: ResourceSubscriptions,
    calls: AtomicU64,
    pub(crate) link: F::Link,
}

impl<F: Family> Clone for Server<F> {
    fn clone(&self) -> Self {
        Self { inner: self.inner.clone() }
    }
}

impl<F: Family> std::fmt::Debug for Server<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server").field("name", &self.inner.name).finish_non_exhaustive()
    }
}

impl<F: Family> Server<F> {
    pub(crate) fn new(started: StartedServer<F::Link>) -> Self {
        let StartedServer { name, view, link } = started;
        let resources = ResourceSubscriptions::default();
        Self { inner: Arc::new(ServerInner { name, view, resources, calls: AtomicU64::new(1), link }) }
    }

    pub(crate) fn inner(&self) -> &Arc<ServerInner<F>> {
        &self.inner
    }

    /// The number of this server's next API call.
    pub(crate) fn next_call(&self) -> u64 {
        self.inner.calls.fetch_add(1, Ordering::Relaxed)
    }

    /// The family's link to the engine.
    pub(crate) fn link(&self) -> &F::Link {
        &self.inner.link
    }

    /// The server's name in the client.
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// What is known about the server while it is connected.
    pub fn info(&self) -> Option<ServerInfo> {
        lock(&self.inner.view).info.clone()
    }

    /// The tools of the last complete listing, unless invalidated since.
    pub fn known_tools(&self) -> Option<Vec<Tool>> {
        lock(&self.inner.view).tools.clone()
    }

    /// Any request described by a [`Call`] descriptor, with its typed outcome.
    pub fn send<K: Call>(&self, call: K) -> RequestBuilder<'_, F, K> {
        RequestBuilder::to_server(self, Ok(call))
    }

    /// Any request, answered with the untyped [`Response`](mcpwire_core::Response).
    pub fn request(&self, request: Request) -> RequestBuilder<'_, F, Request> {
        self.send(request)
    }

    /// Goes on with a multi-round-trip request (2026-07-28 `input_required`) that stopped with
    /// a resumable error ([`RequestError::input_resume`](mcpwire_core::RequestError::input_resume):
    /// the input budget ran out, the input-wait hook stopped it, or the server asked for input
    /// this client has no handler for or sent malformed input requests; `resume` is plain
    /// data, so a client built with the missing handlers can go on): the original request goes
    /// out again with the server's last `requestState` and the answers in `resume`, with a
    /// fresh input budget. Answers what the original request would have.
    pub fn resume(&self, resume: InputResume) -> RequestBuilder<'_, F, Request> {
        let (request, state) = resume.into_parts();
        let mut builder = self.send(request);
        builder.options_mut().input_state = Some(state);
        builder
    }

    /// Starts the server if needed and waits until its era is known.
    pub fn connect(&self) -> RequestBuilder<'_, F, Connect> {
        self.send(Connect)
    }

    /// All tools (every page).
    pub fn list_tools(&self) -> RequestBuilder<'_, F, ListTools> {
        self.send(ListTools)
    }

    /// All prompts.
    pub fn list_prompts(&self) -> RequestBuilder<'_, F, ListPrompts> {
        self.send(ListPrompts)
    }

    /// All resources.
    pub fn list_resources(&self) -> RequestBuilder<'_, F, ListResources> {
        self.send(ListResources)
    }

    /// All resource templates.
    pub fn list_resource_templates(&self) -> RequestBuilder<'_, F, ListResourceTemplates> {
        self.send(ListResourceTemplates)
    }

    /// Calls a tool. `arguments` ([`Arguments`]) is a JSON object (or `null`): a `Value`, a
    /// `Map`, `()`, or `&args` of any `Serialize` type; a `_meta` key in it is sent as the
    /// request's `_meta`. A tool failure is a result with `is_error`, not an `Err`.
    pub fn call_tool(&self, name: &str, arguments: impl Arguments) -> RequestBuilder<'_, F, CallTool> {
        RequestBuilder::to_server(self, call_tool(name, arguments))
    }

    /// Gets a prompt; `arguments` ([`Arguments`]) is an object of strings (or `()`).
    pub fn get_prompt(&self, name: &str, arguments: impl Arguments) -> RequestBuilder<'_, F, GetPrompt> {
        RequestBuilder::to_server(self, get_prompt(name, arguments))
    }

    /// Reads a resource.
    pub fn read_resource(&self, uri: &str) -> RequestBuilder<'_, F, ReadResource> {
        self.send(ReadResource::new(uri))
    }

    /// Asks for completions of an argument (the values of the arguments already resolved go
    /// in [`RequestBuilder::context`]).
    pub fn complete(
        &self,
        reference: CompletionReference,
        argument: &str,
        value: &str,
    ) -> RequestBuilder<'_, F, Complete> {
        self.send(Complete::new(reference, argument, value))
    }

    /// Checks the server is alive (`ping`, or `server/discover` on 2026-07-28 servers).
    pub fn ping(&self) -> RequestBuilder<'_, F, Ping> {
        self.send(Ping)
    }

    /// Sets the server's log level.
    pub fn set_log_level(&self, level: LoggingLevel) -> RequestBuilder<'_, F, SetLogLevel> {
        self.send(SetLogLevel(level))
    }

    /// What the server is now: on 2026-07-28 servers the last `server/discover` result while
    /// its `ttlMs` keeps it fresh, else a new `server/discover` (whose answer replaces
    /// [`Self::info`]); on legacy servers the `initialize` answer.
    pub fn discover(&self) -> RequestBuilder<'_, F, Discover> {
        self.send(Discover)
    }

    /// What is cached for `key` that a request with default options may be answered from
    /// (see [`Connection::cache_info`](mcpwire_core::Connection::cache_info)); `None` when nothing
    /// is. Answers at once (callbacks may call it too).
    pub fn cache_info(&self, key: CacheKey) -> Option<CacheInfo> {
        let mut key = Some(key);
        let mut info = None;
        F::inspect(self.link(), &mut |conn, now| info = key.take().and_then(|key| conn.cache_info(now, key)));
        info
    }

    /// Drops every cached result of this server: the next request of each kind goes to it.
    pub fn clear_cache(&self) {
        F::inspect(self.link(), &mut |conn, _| conn.clear_cache());
    }

    /// Replaces the roots this server is told (set up with `ClientBuilder::roots`). A legacy
    /// server is sent `notifications/roots/list_changed` (the client declared
    /// `roots.listChanged`) and gets the new list when it asks again; a 2026-07-28 server gets
    /// it the next time it asks. Answers at once; fails with
    /// [`CommandError::RootsNotManaged`] when the client answers roots with a handler (or has
    /// none). Callbacks may call it too.
    pub fn set_roots<I>(&self, roots: I) -> Result<(), ClientError>
    where
        I: IntoIterator<Item = Root>,
    {
        let mut roots = Some(roots.into_iter().collect::<Vec<_>>());
        let mut outcome = Ok(());
        F::inspect(self.link(), &mut |conn, now| {
            if let Some(roots) = roots.take() {
                outcome = conn.set_roots(now, roots);
            }
        });
        outcome.map_err(ClientError::Command)
    }
}

/// The arguments of a tool call or a prompt: a JSON [`Value`](serde_json::Value) or
/// [`Map`](serde_json::Map), taken as they are, `()` for none, or a reference to anything
/// that implements `serde::Serialize` (`&MyArgs { .. }`), serialised when the request is built.
#[diagnostic::on_unimplemented(
    message = "tool and prompt arguments are a serde_json::Value, a Map, `()`, or a reference to a `Serialize` type",
    label = "a `Serialize` value goes by reference: `&args`"
)]
pub trait Arguments {
    /// The arguments as JSON.
    fn into_value(self) -> Result<serde_json::Value, serde_json::Error>;
}

/// Taken as it is (no copy).
impl Arguments for serde_json::Value {
    fn into_value(self) -> Result<serde_json::Value, serde_json::Error> {
        Ok(self)
    }
}

/// Taken as it is (no copy).
impl Arguments for serde_json::Map<String, serde_json::Value> {
    fn into_value(self) -> Result<serde_json::Value, serde_json::Error> {
        Ok(serde_json::Value::Object(self))
    }
}

/// No arguments (`null`).
impl Arguments for () {
    fn into_value(self) -> Result<serde_json::Value, serde_json::Error> {
        Ok(serde_json::Value::Null)
    }
}

/// Any `Serialize` value, serialised.
impl<T: Serialize + ?Sized> Arguments for &T {
    fn into_value(self) -> Result<serde_json::Value, serde_json::Error> {
        serde_json::to_value(self)
    }
}

/// The descriptor of a `tools/call`, or why its arguments cannot be sent.
pub(crate) fn call_tool(name: &str, arguments: impl Arguments) -> Result<CallTool, ClientError> {
    Ok(CallTool::new(name, arguments_value(name, arguments)?))
}

/// The descriptor of a `prompts/get`, or why its arguments cannot be sent.
pub(crate) fn get_prompt(name: &str, arguments: impl Arguments) -> Result<GetPrompt, ClientError> {
    match arguments_value(name, arguments)? {
        serde_json::Value::Object(map) => Ok(GetPrompt::new(name, map)),
        serde_json::Value::Null => Ok(GetPrompt::new(name, serde_json::Map::new())),
        _ => Err(invalid(name, "the arguments must serialise to a JSON object")),
    }
}

fn arguments_value(name: &str, arguments: impl Arguments) -> Result<serde_json::Value, ClientError> {
    arguments.into_value().map_err(|e| invalid(name, &e.to_string()))
}

fn invalid(name: &str, why: &str) -> ClientError {
    ClientError::Command(CommandError::InvalidArgument(format!("arguments of {name:?}: {why}")))
}

/// The context of a completion (the values of the arguments already resolved).
pub(crate) type CompletionContext = BTreeMap<String, String>;
