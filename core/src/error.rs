//! Errors, split by who is at fault: the host (commands), the request's outcome, or the peer.

use std::time::Duration;

use serde_json::Value;

/// A JSON-RPC error returned by the server, with its code, message and data kept intact.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("server error {code}: {message}")]
pub struct RpcError {
    /// The JSON-RPC error code.
    pub code: i64,
    /// The server's message.
    pub message: String,
    /// Structured data, if the server sent any.
    pub data: Option<Value>,
}

/// The meaning of a JSON-RPC error code, where the specification gives one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum RpcErrorKind {
    /// -32700.
    ParseError,
    /// -32600.
    InvalidRequest,
    /// -32601.
    MethodNotFound,
    /// -32602 (also "resource not found" in 2026-07-28).
    InvalidParams,
    /// -32603.
    InternalError,
    /// -32002, resource not found in revisions up to 2025-11-25.
    ResourceNotFound,
    /// -32020: an HTTP header is missing or does not match the body.
    HeaderMismatch,
    /// -32021: the request lacks a client capability the server needs.
    MissingRequiredClientCapability,
    /// -32022: the server does not serve the requested protocol version.
    UnsupportedProtocolVersion,
    /// Any other code (implementation-defined).
    Other,
}

impl RpcError {
    /// Classifies the code.
    pub fn kind(&self) -> RpcErrorKind {
        match self.code {
            -32700 => RpcErrorKind::ParseError,
            -32600 => RpcErrorKind::InvalidRequest,
            -32601 => RpcErrorKind::MethodNotFound,
            -32602 => RpcErrorKind::InvalidParams,
            -32603 => RpcErrorKind::InternalError,
            -32002 => RpcErrorKind::ResourceNotFound,
            -32020 => RpcErrorKind::HeaderMismatch,
            -32021 => RpcErrorKind::MissingRequiredClientCapability,
            -32022 => RpcErrorKind::UnsupportedProtocolVersion,
            _ => RpcErrorKind::Other,
        }
    }

    /// True for the errors only a 2026-07-28 server sends (they identify a modern server).
    pub fn is_modern_error(&self) -> bool {
        matches!(
            self.kind(),
            RpcErrorKind::HeaderMismatch
                | RpcErrorKind::MissingRequiredClientCapability
                | RpcErrorKind::UnsupportedProtocolVersion
        )
    }

    /// For -32022: the versions the server says it supports.
    pub fn supported_versions(&self) -> Vec<String> {
        self.data
            .as_ref()
            .and_then(|d| d.get("supported"))
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).map(str::to_owned).collect())
            .unwrap_or_default()
    }
}

/// Host misuse, reported synchronously by a command.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CommandError {
    /// The connection was closed; no more commands are accepted.
    #[error("the connection is closed")]
    Closed,
    /// Too many requests are in flight.
    #[error("too many requests in flight (limit {limit})")]
    TooManyInFlight {
        /// The configured limit.
        limit: usize,
    },
    /// An argument is unusable (e.g. tool arguments that are not a JSON object).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// The roots cannot be changed: this connection does not answer `roots/list` itself (it
    /// was configured without [`crate::ConnectionConfig::roots`]; a roots handler, if any,
    /// answers instead).
    #[error("the roots are not held by the client (configure them as a list, not a handler)")]
    RootsNotManaged,
}

/// Why a request did not produce a result.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum RequestError {
    /// The server answered with a JSON-RPC error.
    #[error(transparent)]
    Rpc(#[from] RpcError),
    /// No answer within the timeout; a cancellation was sent to the server if the request was
    /// in flight (a paced input wait that would outlast the timeout ends it early, unsent).
    #[error("request timed out after {after:?}")]
    Timeout {
        /// The timeout that expired.
        after: Duration,
    },
    /// The host cancelled the request.
    #[error("request cancelled")]
    Cancelled,
    /// The transport to the server was lost (process exited, stdout closed).
    #[error("connection to the server was lost: {detail}")]
    TransportClosed {
        /// What happened, with the server's last stderr lines when there were any.
        detail: String,
        /// The operating system's error, when one caused it (see [`RequestError::io_error`]).
        source: Option<crate::IoError>,
    },
    /// The server process could not be started.
    #[error("could not start the server: {detail}")]
    Spawn {
        /// The program and the operating system's reason.
        detail: String,
        /// The operating system's error (`NotFound` for a missing program, ...).
        source: crate::IoError,
    },
    /// A legacy server answered `initialize` with a revision this client cannot speak.
    #[error(
        "server answered protocol version {answered}, which this client does not speak (offered {offered})"
    )]
    UnsupportedProtocolVersion {
        /// The version this client offered.
        offered: String,
        /// The version the server answered.
        answered: String,
    },
    /// A modern server supports none of the versions this client speaks.
    #[error("no common protocol version: server supports {server:?}, client speaks {client:?}")]
    NoCommonVersion {
        /// Versions the server listed.
        server: Vec<String>,
        /// Versions this client speaks.
        client: Vec<String>,
    },
    /// The connection was configured for 2026-07-28 only, but the server does not speak it.
    #[error("server does not speak protocol 2026-07-28 (modern mode): {detail}")]
    ModernRequired {
        /// What the probe saw.
        detail: String,
    },
    /// The legacy `initialize` handshake failed.
    #[error("initialize failed: {detail}")]
    Handshake {
        /// The reason.
        detail: String,
    },
    /// The server's response could not be understood.
    #[error("invalid response from server: {detail}")]
    InvalidResponse {
        /// What was wrong.
        detail: String,
    },
    /// A host handler failed to produce the input a server asked for (`input_required`); the
    /// request was not retried.
    #[error("the {method} input the server asked for failed: {detail}")]
    InputFailed {
        /// The input request's method.
        method: String,
        /// The handler's error.
        detail: String,
    },
    /// 2026-07-28: the server asked for input the client refuses (an elicitation mode it did
    /// not declare, sampling with tools without the opt-in, an invalid sampling history, ...);
    /// no handler was called and the request was not retried. Resumable (except a task's
    /// call), like [`RequestError::InputUndeclared`].
    #[error("refused the {method} input the server asked for: {reason}")]
    InputRefused {
        /// The input request's method.
        method: String,
        /// Why.
        reason: crate::host_requests::Refusal,
        /// The round's input requests (empty for a task's call).
        outstanding: Vec<crate::OutstandingInput>,
        /// The original request and the round's `requestState` (`None` for a task's call).
        resume: Option<Box<crate::InputResume>>,
    },
    /// The server returned a `resultType` this client does not handle for this request.
    #[error("unsupported resultType {result_type:?}")]
    UnsupportedResultType {
        /// The value received.
        result_type: String,
    },
    /// A paginated list did not end within the configured bounds.
    #[error("pagination stopped: {detail}")]
    Pagination {
        /// Which bound was hit (page count, item count, or a repeated cursor).
        detail: String,
    },
    /// The connection was closed by the host while the request was pending.
    #[error("the connection was closed")]
    Closed,
    /// The HTTP server refused the credentials (401) or the access (403). The parsed
    /// `WWW-Authenticate` challenges say what it wants.
    #[error("HTTP {status}: {}", if *status == 401 { "authentication required" } else { "access forbidden" })]
    #[cfg(feature = "http")]
    Unauthorized {
        /// 401 or 403.
        status: u16,
        /// The challenges of `WWW-Authenticate`, if the server sent any.
        challenges: Vec<crate::headers::Challenge>,
        /// The JSON-RPC error of the body, if there was one.
        rpc: Option<RpcError>,
    },
    /// Authorizing with the HTTP server failed: the OAuth flow (`oauth` says how), the
    /// browser step, or the host's token provider.
    #[error("authorization failed: {detail}")]
    #[cfg(feature = "http")]
    AuthorizationFailed {
        /// What failed.
        detail: String,
        /// The OAuth flow's error, when it was the flow.
        #[cfg(feature = "oauth")]
        oauth: Option<crate::oauth::OAuthError>,
    },
    /// The HTTP server failed (5xx), after any configured retries: a server error that may go
    /// away on its own.
    #[error("HTTP {status} from the server (transient server error): {detail}")]
    #[cfg(feature = "http")]
    TransientServer {
        /// The status code.
        status: u16,
        /// The start of the body, sanitised.
        detail: String,
    },
    /// The HTTP server answered with an error status and no JSON-RPC error.
    #[error("HTTP {status} from the server: {detail}")]
    #[cfg(feature = "http")]
    Http {
        /// The status code.
        status: u16,
        /// The start of the body, sanitised.
        detail: String,
    },
    /// The HTTP server answered with a redirect the connection does not follow (another
    /// origin, a status other than `307`/`308`, a missing or invalid `Location`, too many in a
    /// row, a loop). Same-origin `307` and `308` redirects are followed, never reported.
    #[error(transparent)]
    #[cfg(feature = "http")]
    Redirect(#[from] crate::RedirectError),
    /// Detecting the HTTP transport found none: every transport tried was refused. The
    /// message lists each try (transport, method, URL, outcome) and, when every one got 404,
    /// the common endpoints to try instead.
    #[error("{}", crate::transport_attempt::describe(.attempts, .suggestions))]
    #[cfg(feature = "http")]
    NoTransport {
        /// Each transport tried, in order, with what the server answered.
        attempts: Vec<crate::TransportAttempt>,
        /// When every try got 404: the common endpoints below the URL (`…/mcp`, `…/sse`).
        suggestions: Vec<String>,
    },
    /// The response stream closed before the result arrived (after the one re-issue the
    /// protocol allows, for modern servers).
    #[error("the response stream closed before the result: {detail}")]
    StreamClosed {
        /// What happened.
        detail: String,
    },
    /// The legacy HTTP session expired (404) while a non-idempotent request (`tools/call`) was
    /// in flight; it is not re-sent automatically: the caller decides.
    #[error("the HTTP session expired before the result (the request was not re-sent)")]
    #[cfg(feature = "http")]
    SessionExpired,
    /// The response exceeded a size limit and was discarded: a message over
    /// `max_message_bytes` (a stdio line, an HTTP JSON body, an SSE event; failed as soon as
    /// the transport could tell which request it answered), or a body over
    /// `max_decompressed_body_bytes` after decompression.
    #[error("response too large: {detail}")]
    ResponseTooLarge {
        /// The limit passed, in bytes.
        limit: usize,
        /// How many bytes the response was known to have when it was refused (at least
        /// `limit + 1`; the exact size when the whole of it had been seen).
        seen_at_least: usize,
        /// Which limit, in words.
        detail: String,
    },
    /// A tool's schema cannot be used: an `inputSchema` dialect this client does not implement
    /// (the call was not sent), or an `outputSchema` that cannot check the result (unsupported
    /// dialect in every validating mode; any other problem in strict mode). Feature `schema`.
    #[cfg(feature = "schema")]
    #[error("tool {tool:?}: {which} unusable: {problem}")]
    ToolSchema {
        /// The tool.
        tool: String,
        /// `"inputSchema"` or `"outputSchema"`.
        which: &'static str,
        /// What is wrong with it.
        problem: crate::schema::SchemaProblem,
    },
    /// The server cannot do this: its protocol revision does not have the method (e.g.
    /// `subscriptions/listen` on a handshake server, `resources/subscribe` on a 2026-07-28
    /// one). Nothing was sent. (A missing capability is [`RequestError::CapabilityMissing`].)
    #[error("not supported by this server: {detail}")]
    Unsupported {
        /// What is missing.
        detail: String,
    },
    /// The server did not declare the capability the request needs (in `initialize` or
    /// `server/discover`), so the request was not sent. Checked once the capabilities are
    /// known: a request issued before the handshake fails after it, still unsent.
    #[error("the server does not declare the {capability} capability that {method} needs")]
    CapabilityMissing {
        /// The capability as the spec names it: `"tools"`, `"prompts"`, `"resources"`,
        /// `"resources.subscribe"`, `"completions"`, `"logging"`, `"tasks"`, `"tasks.list"`,
        /// `"tasks.cancel"`, `"tasks.requests.tools.call"`,
        /// `"extensions.io.modelcontextprotocol/tasks"`.
        capability: &'static str,
        /// The method that needs it (`"logging/setLevel"`, ...).
        method: &'static str,
    },
    /// A listen that must be honoured in full (a resource subscription) was acknowledged
    /// without part of what it asked for; the stream was closed.
    #[error("the server did not grant the subscription: {detail}")]
    SubscriptionRefused {
        /// What the acknowledgment left out.
        detail: String,
    },
    /// A task the call turned into ended without a result: cancelled by the server, or its
    /// `ttlMs` passed.
    #[error("task {task_id}: {detail}")]
    Task {
        /// The server's id of the task.
        task_id: String,
        /// What happened.
        detail: String,
    },
    /// Strict mode: the tool's `structuredContent` breaks its `outputSchema` (or is missing).
    /// Feature `schema`.
    #[cfg(feature = "schema")]
    #[error("tool {tool:?} returned structured content that breaks its outputSchema: {failure}")]
    StructuredContent {
        /// The tool.
        tool: String,
        /// The violations.
        failure: crate::schema::ValidationFailure,
    },
    /// 2026-07-28 Streamable HTTP: the server rejected a `tools/call`'s headers (`-32020`)
    /// again after the tool list was refreshed and the call retried once with the headers of
    /// the refreshed definition. Nothing ran on the server.
    #[error("tool {tool:?}: the server rejected the call's headers again after the tool list was refreshed: {error}")]
    #[cfg(feature = "http")]
    HeaderMismatch {
        /// The tool.
        tool: String,
        /// The server's second `-32020` error, as sent.
        error: RpcError,
    },
    /// The tool a call names is no longer in the server's tool list: a `tools/list` refreshed
    /// after a header mismatch (`-32020`) left it out. The call was not retried.
    #[error("tool {tool:?} is no longer offered by the server")]
    #[cfg(feature = "http")]
    UnknownTool {
        /// The tool.
        tool: String,
    },
    /// 2026-07-28: the server answered `input_required` more often than the input budget
    /// ([`Limits::max_input_rounds`](crate::Limits::max_input_rounds)) allows. Resumable:
    /// `resume` goes on from the last answer with a fresh budget (a host's `Server::resume`).
    #[error("the server asked for input more than {rounds} times (the input budget)")]
    InputBudgetExhausted {
        /// The budget: the input rounds taken before the one refused.
        rounds: u32,
        /// The input requests of the refused round (none when it only carried a state).
        outstanding: Vec<crate::OutstandingInput>,
        /// The original request and the refused round's `requestState`.
        resume: Box<crate::InputResume>,
    },
    /// 2026-07-28: the host's input-wait hook stopped the request during a paced wait for a
    /// state-only `input_required` retry. Nothing was in flight. Resumable, like
    /// [`RequestError::InputBudgetExhausted`].
    #[error("the host stopped the request while it waited for the server ({rounds} input rounds)")]
    InputWaitCancelled {
        /// The input rounds taken.
        rounds: u32,
        /// The original request and the `requestState` the retry would have echoed.
        resume: Box<crate::InputResume>,
    },
    /// 2026-07-28: an `input_required` round asked for input this client did not declare (a
    /// kind it has no handler for: elicitation, sampling or roots). No handler was called.
    /// Resumable: with the handlers installed, `resume` answered for `outstanding` goes on
    /// from this round (a host's `Server::resume`).
    #[error("the server asked for {} input, which this client did not declare", .methods.join(", "))]
    InputUndeclared {
        /// The undeclared methods (sanitised, each once).
        methods: Vec<String>,
        /// The round's input requests (all of them, declared ones included).
        outstanding: Vec<crate::OutstandingInput>,
        /// The original request and the round's `requestState`.
        resume: Box<crate::InputResume>,
    },
    /// 2026-07-28: an `input_required` round's `inputRequests` is malformed (not an object, or
    /// an entry that is not an object with a method string and object params). Nothing was
    /// asked of the host. Resumable, like [`RequestError::InputUndeclared`].
    #[error("the server's input requests are malformed: {detail}")]
    InputMalformed {
        /// What is wrong.
        detail: String,
        /// The round's input requests that parse.
        outstanding: Vec<crate::OutstandingInput>,
        /// The original request and the round's `requestState`.
        resume: Box<crate::InputResume>,
    },
}

impl RequestError {
    /// What resuming a stopped multi-round-trip request needs, for the errors that carry it
    /// ([`RequestError::InputBudgetExhausted`], [`RequestError::InputWaitCancelled`],
    /// [`RequestError::InputUndeclared`], [`RequestError::InputMalformed`],
    /// [`RequestError::InputRefused`] of a request that is not a task's call).
    pub fn input_resume(&self) -> Option<&crate::InputResume> {
        match self {
            RequestError::InputBudgetExhausted { resume, .. }
            | RequestError::InputWaitCancelled { resume, .. }
            | RequestError::InputUndeclared { resume, .. }
            | RequestError::InputMalformed { resume, .. }
            | RequestError::InputRefused { resume: Some(resume), .. } => Some(resume),
            _ => None,
        }
    }

    /// The JSON-RPC error, when the server sent one.
    pub fn rpc(&self) -> Option<&RpcError> {
        match self {
            RequestError::Rpc(e) => Some(e),
            #[cfg(feature = "http")]
            RequestError::HeaderMismatch { error: e, .. } => Some(e),
            _ => None,
        }
    }

    /// The operating system's error behind a failed start or a lost transport, when there
    /// was one: its [`kind`](std::io::Error::kind) tells a missing program (`NotFound`) or a
    /// refused connection (`ConnectionRefused`) apart.
    pub fn io_error(&self) -> Option<&std::io::Error> {
        match self {
            RequestError::Spawn { source, .. }
            | RequestError::TransportClosed { source: Some(source), .. } => Some(source.get()),
            _ => None,
        }
    }

    /// The HTTP status the server answered with, for the errors that come from one (an error
    /// status, with or without a JSON-RPC error in its body; 401/403; a transient 5xx; a
    /// redirect not followed).
    #[cfg(feature = "http")]
    pub fn http_status(&self) -> Option<u16> {
        match self {
            RequestError::Unauthorized { status, .. }
            | RequestError::TransientServer { status, .. }
            | RequestError::Http { status, .. } => Some(*status),
            RequestError::Redirect(r) => Some(r.status),
            _ => None,
        }
    }

    /// True when the request ran out of time.
    pub fn is_timeout(&self) -> bool {
        matches!(self, RequestError::Timeout { .. })
    }

    /// True when the failure happened on the way to or from the server (not the server's
    /// verdict), i.e. retrying on a fresh connection could succeed.
    pub fn is_transport(&self) -> bool {
        matches!(
            self,
            RequestError::TransportClosed { .. }
                | RequestError::Spawn { .. }
                | RequestError::StreamClosed { .. }
        )
    }

    /// True for errors the server is responsible for: a JSON-RPC error, an HTTP error status
    /// (including transient 5xx ones), a redirect not followed.
    pub fn is_server_error(&self) -> bool {
        match self {
            RequestError::Rpc(_) => true,
            #[cfg(feature = "http")]
            RequestError::TransientServer { .. }
            | RequestError::Http { .. }
            | RequestError::Redirect(_)
            | RequestError::HeaderMismatch { .. } => true,
            _ => false,
        }
    }
}

/// Why [`crate::Connection::respond_to_server`] did not send an answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AnswerError {
    /// The server request is gone (answered already, withdrawn, or its process ended).
    #[error("the server request is gone (answered, withdrawn, or its process ended)")]
    Gone,
    /// The elicitation answer does not match the requested form; nothing was sent and the
    /// request still waits for an answer.
    #[error(transparent)]
    InvalidAnswer(#[from] crate::schema::elicitation::ElicitationError),
}

/// Non-fatal peer misbehaviour and dropped data, reported as events.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Warning {
    /// A stdout line was not JSON and was skipped.
    NonJsonLine {
        /// The start of the line, sanitised.
        excerpt: String,
    },
    /// A message exceeded `max_message_bytes` and was discarded.
    OversizeMessage {
        /// Bytes discarded.
        len: usize,
        /// The limit.
        limit: usize,
    },
    /// JSON that is not a valid JSON-RPC message.
    InvalidMessage {
        /// Why.
        reason: String,
    },
    /// A response for an id with no pending request.
    UnknownResponseId {
        /// The id, as JSON text.
        id: String,
    },
    /// A notification tagged with a subscription id that names no listen stream of this
    /// client (notifications for a stream it closed are dropped without a warning).
    UnknownSubscription {
        /// The id, as JSON text.
        id: String,
    },
    /// A listen stream carried a notification it did not ask for (a list kind, resource URI
    /// or task id outside its filter, or a method a stream never carries: logs, progress,
    /// unknown ones). It was dropped. Reported for the first on each stream; every one is
    /// counted by [`crate::SubscriptionUpdate::Unrequested`].
    UnrequestedNotification {
        /// The first such notification's method, sanitised.
        method: String,
    },
    /// A response for a request that already ended (timed out or cancelled).
    LateResponse {
        /// The id, as JSON text.
        id: String,
    },
    /// A progress notification whose token names no live request.
    StaleProgress {
        /// The token, as JSON text.
        token: String,
    },
    /// A modern server sent a request (2026-07-28 servers must not); it was refused.
    UnexpectedServerRequest {
        /// The method.
        method: String,
    },
    /// A server-to-client request was refused (no handler, or too many at once).
    ServerRequestRefused {
        /// The method.
        method: String,
        /// Why.
        reason: String,
    },
    /// A host handler failed; the server got a generic error (unless the handler's
    /// [`crate::HandlerError`] named a code), the detail is only here.
    HandlerFailed {
        /// The method handled.
        method: String,
        /// The handler's error.
        detail: String,
    },
    /// An item of a list result was malformed and skipped.
    InvalidListItem {
        /// Which list.
        list: &'static str,
        /// Why.
        detail: String,
    },
    /// Host events were dropped because the host did not poll them in time.
    EventsDropped {
        /// How many.
        count: usize,
    },
    /// The probe or handshake saw something odd but carried on.
    Handshake {
        /// What.
        detail: String,
    },
    /// An HTTP transport misbehaved but the connection carried on.
    #[cfg(feature = "http")]
    Http {
        /// What.
        detail: String,
    },
    /// A deprecated protocol feature is in use (see [`crate::deprecation`]). Never blocks
    /// anything; reported once per process, once per connection or not at all
    /// ([`crate::DeprecationNotices`]).
    Deprecated {
        /// The feature (its entry in the registry: revision, removal, replacement, notice).
        what: crate::Deprecation,
        /// Who relies on it: the server, or this client's own calls.
        by: crate::UsedBy,
    },
    /// A tool's `structuredContent` breaks its `outputSchema` (or is missing); the result was
    /// delivered anyway (warn mode). Feature `schema`.
    #[cfg(feature = "schema")]
    StructuredContent {
        /// The tool.
        tool: String,
        /// The violations.
        failure: crate::schema::ValidationFailure,
    },
    /// A tool's schema cannot be used, so its results are not validated (reported once per
    /// tool definition). Feature `schema`.
    #[cfg(feature = "schema")]
    ToolSchema {
        /// The tool.
        tool: String,
        /// `"inputSchema"` or `"outputSchema"`.
        which: &'static str,
        /// What is wrong with it.
        problem: crate::schema::SchemaProblem,
    },
    /// A tool's `outputSchema` uses keywords that are not asserted, so validation of its
    /// results is partial (reported once per tool definition). Feature `schema`.
    #[cfg(feature = "schema")]
    PartialValidation {
        /// The tool.
        tool: String,
        /// The keywords (`format`, `contentMediaType`, `contentEncoding`, `contentSchema`).
        keywords: Vec<&'static str>,
    },
    /// Re-fetching a stale cached result failed transiently (HTTP 5xx, a transport failure or
    /// a broken stream, after retries): the stale copy was served instead.
    #[cfg(feature = "http")]
    StaleCacheServed {
        /// The method whose result was served (`tools/list`, `resources/read`, ...).
        method: &'static str,
        /// What the re-fetch failed with.
        detail: String,
    },
    /// Refreshing a 2026-07-28 server's expired `server/discover` answer before a request it
    /// gates failed (an error answer, a timeout, a transport failure): the old answer was kept,
    /// and the requests waiting for the refresh went out on it.
    DiscoverRefreshFailed {
        /// What the refresh failed with.
        detail: String,
    },
    /// The client changed a server's request to the host before a handler saw it, or a
    /// handler's answer before the server did (see [`crate::host_requests`]).
    HostRequestAdjusted {
        /// The request's method.
        method: &'static str,
        /// What changed.
        adjustment: crate::host_requests::Adjustment,
    },
    /// The host's OAuth token store could not load or save a server's record (the server
    /// goes on without it).
    #[cfg(feature = "oauth")]
    TokenStore {
        /// What failed.
        detail: String,
    },
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Warning::NonJsonLine { excerpt } => {
                write!(f, "skipped a non-JSON line from the server: {excerpt}")
            }
            Warning::OversizeMessage { len, limit } => {
                write!(f, "discarded a {len}-byte message from the server (limit {limit})")
            }
            Warning::InvalidMessage { reason } => write!(f, "ignored an invalid JSON-RPC message: {reason}"),
            Warning::UnknownResponseId { id } => write!(f, "dropped a response for unknown id {id}"),
            Warning::LateResponse { id } => write!(f, "dropped a late response for finished request {id}"),
            Warning::UnknownSubscription { id } => {
                write!(f, "dropped a notification for unknown subscription {id}")
            }
            Warning::UnrequestedNotification { method } => write!(
                f,
                "dropped {method} from a listen stream that did not ask for it (later ones on that stream are only counted)"
            ),
            Warning::StaleProgress { token } => write!(f, "dropped progress for unknown token {token}"),
            Warning::UnexpectedServerRequest { method } => {
                write!(f, "refused server request {method}: 2026-07-28 servers must not send requests")
            }
            Warning::ServerRequestRefused { method, reason } => {
                write!(f, "refused server request {method}: {reason}")
            }
            Warning::HandlerFailed { method, detail } => write!(f, "handler for {method} failed: {detail}"),
            Warning::InvalidListItem { list, detail } => {
                write!(f, "skipped an invalid item in {list}: {detail}")
            }
            Warning::EventsDropped { count } => {
                write!(f, "dropped {count} events the host did not poll in time")
            }
            Warning::Handshake { detail } => write!(f, "handshake: {detail}"),
            #[cfg(feature = "http")]
            Warning::Http { detail } => write!(f, "HTTP: {detail}"),
            Warning::Deprecated { what, by } => write!(f, "deprecated: {} (used by {by})", what.notice()),
            #[cfg(feature = "schema")]
            Warning::StructuredContent { tool, failure } => {
                write!(f, "tool {tool:?} returned structured content that breaks its outputSchema: {failure}")
            }
            #[cfg(feature = "schema")]
            Warning::ToolSchema { tool, which, problem } => {
                write!(f, "tool {tool:?}: {which} unusable, not validated: {problem}")
            }
            #[cfg(feature = "schema")]
            Warning::PartialValidation { tool, keywords } => write!(
                f,
                "tool {tool:?}: outputSchema validation is partial ({} not asserted)",
                keywords.join(", ")
            ),
            #[cfg(feature = "http")]
            Warning::StaleCacheServed { method, detail } => {
                write!(f, "served a stale cached {method} result: {detail}")
            }
            Warning::DiscoverRefreshFailed { detail } => {
                write!(f, "refreshing the expired server/discover answer failed (kept the old one): {detail}")
            }
            Warning::HostRequestAdjusted { method, adjustment } => write!(f, "{method}: {adjustment}"),
            #[cfg(feature = "oauth")]
            Warning::TokenStore { detail } => write!(f, "{detail}"),
        }
    }
}

/// The error of the high-level clients (async and blocking): one type for every failure.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// The request failed (server error, timeout, transport loss, ...). A request ended by
    /// closing the client is [`ClientError::Closed`] instead.
    #[error(transparent)]
    Request(RequestError),
    /// The request could not be issued (a closed connection is reported as
    /// [`ClientError::Closed`] instead).
    #[error(transparent)]
    Command(CommandError),
    /// A tool name could not be routed to a server.
    #[error(transparent)]
    Route(#[from] crate::routing::RouteError),
    /// A provider's tool call could not be read or names no converted tool.
    #[error(transparent)]
    ToolCall(#[from] crate::tool_formats::ToolCallError),
    /// A target string or server configuration could not be understood.
    #[error(transparent)]
    Target(#[from] crate::target::TargetConfigError),
    /// The server answered with a response of the wrong kind (a client bug or a hostile peer).
    #[error("unexpected response kind: expected {expected}")]
    UnexpectedResponse {
        /// What was expected.
        expected: &'static str,
    },
    /// The client configuration is unusable (e.g. two servers with the same name).
    #[error("invalid configuration: {0}")]
    Config(String),
    /// The client is closed (or its driver stopped): the request was refused, or ended by the
    /// close while it was in flight.
    #[error("the client is closed")]
    Closed,
}

impl From<RequestError> for ClientError {
    fn from(e: RequestError) -> Self {
        match e {
            RequestError::Closed => ClientError::Closed,
            other => ClientError::Request(other),
        }
    }
}

impl ClientError {
    /// The request outcome, when the failure is one.
    pub fn request_error(&self) -> Option<&RequestError> {
        match self {
            ClientError::Request(e) => Some(e),
            _ => None,
        }
    }

    /// The server's JSON-RPC error, when it sent one.
    pub fn rpc(&self) -> Option<&RpcError> {
        self.request_error().and_then(RequestError::rpc)
    }

    /// True when the request ran out of time.
    pub fn is_timeout(&self) -> bool {
        self.request_error().is_some_and(RequestError::is_timeout)
    }

    /// The HTTP status the server answered with, when the failure comes from one (see
    /// [`RequestError::http_status`]).
    #[cfg(feature = "http")]
    pub fn http_status(&self) -> Option<u16> {
        self.request_error().and_then(RequestError::http_status)
    }

    /// The operating system's error behind the failure, when there was one (see
    /// [`RequestError::io_error`]).
    pub fn io_error(&self) -> Option<&std::io::Error> {
        self.request_error().and_then(RequestError::io_error)
    }

    /// True when the request was cancelled (explicitly, or by dropping its future).
    pub fn is_cancelled(&self) -> bool {
        matches!(self, ClientError::Request(RequestError::Cancelled))
    }

    /// True when the client is closed: the one meaning of "closed" at this level.
    pub fn is_closed(&self) -> bool {
        matches!(self, ClientError::Closed)
    }

    /// True when the failure happened on the way to or from the server; a fresh attempt could
    /// succeed (see [`RequestError::is_transport`]).
    pub fn is_transport(&self) -> bool {
        self.request_error().is_some_and(RequestError::is_transport)
    }
}

impl From<crate::target::TargetError> for ClientError {
    fn from(e: crate::target::TargetError) -> Self {
        ClientError::Target(e.into())
    }
}

impl From<CommandError> for ClientError {
    fn from(e: CommandError) -> Self {
        match e {
            CommandError::Closed => ClientError::Closed,
            other => ClientError::Command(other),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_ended_by_close_is_the_closed_client_error() {
        let e = ClientError::from(RequestError::Closed);
        assert_eq!(e, ClientError::Closed);
        assert!(e.is_closed() && !e.is_transport() && e.request_error().is_none());
        let e = ClientError::from(RequestError::Cancelled);
        assert!(e.is_cancelled() && !e.is_closed());
        assert_eq!(e.request_error(), Some(&RequestError::Cancelled));
    }

    #[cfg(feature = "http")]
    #[test]
    fn http_status_answers_from_the_variant() {
        let status = |e: RequestError| ClientError::from(e).http_status();
        assert_eq!(status(RequestError::Http { status: 418, detail: String::new() }), Some(418));
        assert_eq!(status(RequestError::TransientServer { status: 503, detail: String::new() }), Some(503));
        let unauthorized = RequestError::Unauthorized { status: 401, challenges: Vec::new(), rpc: None };
        assert_eq!(status(unauthorized), Some(401));
        assert_eq!(status(RequestError::Cancelled), None);
        let timeout = ClientError::from(RequestError::Timeout { after: std::time::Duration::from_secs(1) });
        assert!(timeout.http_status().is_none());
    }

    #[test]
    fn accessors_answer_from_the_variant() {
        let timeout = ClientError::from(RequestError::Timeout { after: std::time::Duration::from_secs(1) });
        assert!(timeout.is_timeout() && timeout.io_error().is_none());
        let lost = RequestError::TransportClosed {
            detail: "reset".into(),
            source: Some(crate::IoError::new(std::io::ErrorKind::ConnectionReset.into())),
        };
        assert_eq!(lost.io_error().map(std::io::Error::kind), Some(std::io::ErrorKind::ConnectionReset));
        assert!(std::error::Error::source(&lost).is_some());
        assert!(RequestError::TransportClosed { detail: "eof".into(), source: None }.io_error().is_none());
    }
}
