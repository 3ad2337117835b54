//! Why a request did not produce a result.

use std::time::Duration;

use super::RpcError;

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
        reason: crate::server_requests::Refusal,
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
