//! Non-fatal peer misbehaviour and dropped data, reported as events.

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
    /// handler's answer before the server did (see [`crate::server_requests`]).
    HostRequestAdjusted {
        /// The request's method.
        method: &'static str,
        /// What changed.
        adjustment: crate::server_requests::Adjustment,
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
