//! Host requests: what the host can ask a server ([`Request`]) and how ([`RequestOptions`]).
//! Their typed answers are [`crate::Response`]s.

use std::time::Duration;

use serde_json::{Map, Value};

use crate::types::{CompletionReference, LoggingLevel};

/// Which list a `list_changed` notification is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ListKind {
    /// `tools/list`.
    Tools,
    /// `prompts/list`.
    Prompts,
    /// `resources/list` (and templates).
    Resources,
}

/// What to ask the server.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Request {
    /// Start the server (if needed) and wait until its era is known; answers
    /// [`Response::Connected`](crate::Response::Connected) without sending anything once ready.
    Connect,
    /// `tools/list`, every page.
    ListTools,
    /// `prompts/list`, every page.
    ListPrompts,
    /// `resources/list`, every page.
    ListResources,
    /// `resources/templates/list`, every page.
    ListResourceTemplates,
    /// `tools/call`. A `_meta` key inside `arguments` is moved to `params._meta`.
    CallTool {
        /// The tool name.
        name: String,
        /// The arguments (a JSON object, or `null` for none).
        arguments: Value,
    },
    /// `prompts/get`.
    GetPrompt {
        /// The prompt name.
        name: String,
        /// String arguments.
        arguments: Map<String, Value>,
    },
    /// `resources/read`.
    ReadResource {
        /// The resource URI.
        uri: String,
    },
    /// `completion/complete`.
    Complete {
        /// What is being completed.
        reference: CompletionReference,
        /// The argument name.
        argument: String,
        /// Its partial value.
        value: String,
        /// Values of other arguments already chosen.
        context: Option<Map<String, Value>>,
    },
    /// A liveness check: `ping` (legacy) or `server/discover` (2026-07-28).
    Ping,
    /// What the server is now ([`Response::Connected`](crate::Response::Connected)). 2026-07-28: the last `server/discover`
    /// result while its `ttlMs` keeps it fresh, else `server/discover` is sent again and its
    /// answer replaces the connection's [`ServerInfo`](crate::ServerInfo) (capabilities included), announced by an
    /// [`crate::Event::Connected`]. Legacy servers: the `initialize` answer, without a request.
    Discover,
    /// Server log level: `logging/setLevel` (legacy) or the per-request `logLevel` `_meta`
    /// (2026-07-28, where it is remembered and sent with every later request).
    SetLogLevel(LoggingLevel),
    /// `subscriptions/listen` (2026-07-28): a long-lived stream of the notifications `filter`
    /// asks for. Its updates arrive as [`crate::Event::Subscription`]; its one
    /// [`crate::Event::Response`] comes when it ends. [`RequestOptions::timeout`] bounds the
    /// wait for each acknowledgment (the first, and every one after a re-open), not the stream.
    /// Refused on a legacy server.
    Listen {
        /// What to listen for.
        filter: crate::subscription::SubscriptionFilter,
        /// End the stream ([`crate::RequestError::SubscriptionRefused`]) when an
        /// acknowledgment leaves out anything asked for (resource subscriptions use it).
        require_all: bool,
    },
    /// Legacy `resources/subscribe`; refused unless the server declares
    /// `resources.subscribe`, and on 2026-07-28 servers (which listen instead).
    SubscribeResource {
        /// The resource URI.
        uri: String,
    },
    /// Legacy `resources/unsubscribe` (the same rules as [`Request::SubscribeResource`]).
    UnsubscribeResource {
        /// The resource URI.
        uri: String,
    },
    /// `tools/call` started as a task: [`Response::TaskStarted`](crate::Response::TaskStarted) when the server made one (on
    /// 2025-11-25 the call goes out task-augmented, which the server must declare), or
    /// [`Response::ToolResult`](crate::Response::ToolResult) when a 2026-07-28 server ran the call at once.
    CallToolAsTask {
        /// The tool name.
        name: String,
        /// The arguments (a JSON object, or `null` for none).
        arguments: Value,
    },
    /// `tasks/get`: [`Response::Task`](crate::Response::Task).
    GetTask {
        /// The task.
        task_id: String,
    },
    /// Waits for a task's outcome, polling it like a call that turned into one:
    /// [`Response::ToolResult`](crate::Response::ToolResult) (checked against `tool`'s output schema when named).
    TaskResult {
        /// The task.
        task_id: String,
        /// The tool the task runs, when known.
        tool: Option<String>,
    },
    /// `tasks/cancel`: [`Response::Empty`](crate::Response::Empty) (2025-11-25 servers may answer the task, which is
    /// dropped).
    CancelTask {
        /// The task.
        task_id: String,
    },
    /// `tasks/list`, every page (2025-11-25 servers declaring `tasks.list`): [`Response::Tasks`](crate::Response::Tasks).
    ListTasks,
    /// Any other method, with raw params (the core still adds the modern `_meta` envelope).
    Custom {
        /// The method.
        method: String,
        /// The params (an object or `null`).
        params: Value,
    },
}

impl Request {
    /// The list this request reads, for list requests.
    pub fn list_kind(&self) -> Option<(ListKind, &'static str, &'static str)> {
        match self {
            Request::ListTools => Some((ListKind::Tools, "tools/list", "tools")),
            Request::ListPrompts => Some((ListKind::Prompts, "prompts/list", "prompts")),
            Request::ListResources => Some((ListKind::Resources, "resources/list", "resources")),
            Request::ListResourceTemplates => {
                Some((ListKind::Resources, "resources/templates/list", "resourceTemplates"))
            }
            _ => None,
        }
    }
}

/// Per-request options.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct RequestOptions {
    /// Overrides the connection's default request timeout.
    pub timeout: Option<Duration>,
    /// Ask for progress notifications (the core mints a unique `progressToken`).
    pub progress: bool,
    /// Restart the timeout whenever progress arrives (bounded by `max_total_timeout`).
    pub reset_timeout_on_progress: bool,
    /// Hard bound on the whole request when the timeout resets on progress.
    pub max_total_timeout: Option<Duration>,
    /// Extra `_meta` for this request (merged over the connection's static `_meta`).
    pub meta: Option<Map<String, Value>>,
    /// For cacheable requests (lists, `resources/read`, [`Request::Discover`]): fetch from the
    /// server even if a cached result is fresh (the answer replaces it).
    pub refresh: bool,
    /// Resumes a multi-round-trip exchange (`tools/call`, `prompts/get`, `resources/read`
    /// only): the first attempt carries this `requestState` and `inputResponses`, with a fresh
    /// input budget; never answered from the cache. See [`crate::InputResume`].
    pub input_state: Option<InputState>,
}

/// The input a request's first attempt carries when it resumes a multi-round-trip exchange:
/// the server's `requestState` (echoed verbatim) and `inputResponses`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct InputState {
    /// The last `requestState` the server gave, if any.
    pub request_state: Option<String>,
    /// Answers by the server's `inputRequests` keys (empty: an empty `inputResponses`).
    pub responses: Map<String, Value>,
}

impl Request {
    /// `tools/call` of `name` with `arguments` (an object, or `null`).
    pub fn call_tool(name: &str, arguments: Value) -> Self {
        Request::CallTool { name: name.to_owned(), arguments }
    }

    /// `prompts/get` of `name`.
    pub fn get_prompt(name: &str, arguments: Map<String, Value>) -> Self {
        Request::GetPrompt { name: name.to_owned(), arguments }
    }

    /// `resources/read` of `uri`.
    pub fn read_resource(uri: &str) -> Self {
        Request::ReadResource { uri: uri.to_owned() }
    }

    /// `subscriptions/listen` with `filter`.
    pub fn listen(filter: crate::subscription::SubscriptionFilter) -> Self {
        Request::Listen { filter, require_all: false }
    }

    /// `completion/complete` of one argument, without context.
    pub fn complete(reference: CompletionReference, argument: &str, value: &str) -> Self {
        Request::Complete { reference, argument: argument.to_owned(), value: value.to_owned(), context: None }
    }

    /// What a client with several servers routes the request by when no server is named.
    pub fn routing(&self) -> crate::routing::Routing<'_> {
        use crate::routing::Routing;
        use crate::types::CompletionReference;
        match self {
            Request::CallTool { name, .. } | Request::CallToolAsTask { name, .. } => Routing::Tool(name),
            Request::GetPrompt { name, .. } => Routing::Prompt(name),
            Request::ReadResource { uri } => Routing::Resource(uri),
            Request::Complete { reference: CompletionReference::Prompt { name }, .. } => {
                Routing::Prompt(name)
            }
            Request::Complete { reference: CompletionReference::Resource { uri }, .. } => {
                Routing::Resource(uri)
            }
            _ => Routing::Unrouted,
        }
    }

    /// The MCP method the request is named after (`ping` for [`Request::Ping`] and `connect`
    /// for [`Request::Connect`], whatever the server's era makes of them).
    pub fn method(&self) -> &str {
        match self {
            Request::Connect => "connect",
            Request::ListTools => "tools/list",
            Request::ListPrompts => "prompts/list",
            Request::ListResources => "resources/list",
            Request::ListResourceTemplates => "resources/templates/list",
            Request::CallTool { .. } | Request::CallToolAsTask { .. } => "tools/call",
            Request::GetPrompt { .. } => "prompts/get",
            Request::ReadResource { .. } => "resources/read",
            Request::Complete { .. } => "completion/complete",
            Request::Ping => "ping",
            Request::Discover => "server/discover",
            Request::SetLogLevel(_) => "logging/setLevel",
            Request::Listen { .. } => "subscriptions/listen",
            Request::SubscribeResource { .. } => "resources/subscribe",
            Request::UnsubscribeResource { .. } => "resources/unsubscribe",
            Request::GetTask { .. } => "tasks/get",
            Request::TaskResult { .. } => "tasks/result",
            Request::CancelTask { .. } => "tasks/cancel",
            Request::ListTasks => "tasks/list",
            Request::Custom { method, .. } => method,
        }
    }

    /// What the request is about, when it names one thing: the tool of a call, the prompt of
    /// `prompts/get`, the URI of a resource request, the prompt or URI a completion refers to.
    pub fn target(&self) -> Option<&str> {
        match self {
            Request::CallTool { name, .. }
            | Request::CallToolAsTask { name, .. }
            | Request::GetPrompt { name, .. } => Some(name),
            Request::ReadResource { uri }
            | Request::SubscribeResource { uri }
            | Request::UnsubscribeResource { uri } => Some(uri),
            Request::Complete { reference, .. } => Some(match reference {
                CompletionReference::Prompt { name } => name,
                CompletionReference::Resource { uri } => uri,
            }),
            Request::TaskResult { tool, .. } => tool.as_deref(),
            _ => None,
        }
    }
}

/// What a host's per-request `_meta` provider is told about the request it adds to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct RequestMetaContext<'a> {
    /// The server's name in the client.
    pub server: &'a str,
    /// The MCP method ([`Request::method`]).
    pub method: &'a str,
    /// The tool, prompt or resource the request is about ([`Request::target`]).
    pub name: Option<&'a str>,
}

impl<'a> RequestMetaContext<'a> {
    /// The context of `request` to server `server`.
    pub fn new(server: &'a str, request: &'a Request) -> Self {
        Self { server, method: request.method(), name: request.target() }
    }
}

/// `_meta` keys the protocol sets and a host's provider cannot: the progress token and the
/// 2026-07-28 per-request envelope.
const RESERVED_META: [&str; 6] = [
    "progressToken",
    "io.modelcontextprotocol/protocolVersion",
    "io.modelcontextprotocol/clientInfo",
    "io.modelcontextprotocol/clientCapabilities",
    "io.modelcontextprotocol/logLevel",
    "io.modelcontextprotocol/subscriptionId",
];

/// Whether a `_meta` key is one the protocol sets (see [`RequestOptions::provide_meta`]).
pub fn is_reserved_meta_key(key: &str) -> bool {
    RESERVED_META.contains(&key)
}

impl RequestOptions {
    /// Overrides the connection's default request timeout.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Ask for progress notifications (the core mints a unique `progressToken`).
    pub fn progress(mut self, yes: bool) -> Self {
        self.progress = yes;
        self
    }

    /// Restart the timeout whenever progress arrives (bounded by `max_total_timeout`).
    pub fn reset_timeout_on_progress(mut self, yes: bool) -> Self {
        self.reset_timeout_on_progress = yes;
        self
    }

    /// Hard bound on the whole request when the timeout resets on progress.
    pub fn max_total_timeout(mut self, max_total_timeout: Duration) -> Self {
        self.max_total_timeout = Some(max_total_timeout);
        self
    }

    /// Extra `_meta` for this request (merged over the connection's static `_meta`).
    pub fn meta(mut self, meta: Map<String, Value>) -> Self {
        self.meta = Some(meta);
        self
    }

    /// For cacheable requests (lists, `resources/read`, [`Request::Discover`]): fetch from the server even if a cached result is fresh (the answer replaces it).
    pub fn refresh(mut self, yes: bool) -> Self {
        self.refresh = yes;
        self
    }

    /// Resumes a multi-round-trip exchange (`tools/call`, `prompts/get`, `resources/read` only): the first attempt carries this `requestState` and `inputResponses`, with a fresh input budget; never answered from the cache.
    pub fn input_state(mut self, input_state: InputState) -> Self {
        self.input_state = Some(input_state);
        self
    }

    /// Adds `_meta` a host computed for this request (a per-request provider): it goes over
    /// the connection's static `_meta` and under this request's own [`RequestOptions::meta`],
    /// which wins on a clash. Keys the protocol sets ([`is_reserved_meta_key`]) are dropped.
    pub fn provide_meta(&mut self, provided: Map<String, Value>) {
        let mut meta: Map<String, Value> =
            provided.into_iter().filter(|(k, _)| !is_reserved_meta_key(k)).collect();
        if meta.is_empty() {
            return;
        }
        if let Some(own) = self.meta.take() {
            meta.extend(own);
        }
        self.meta = Some(meta);
    }
}
