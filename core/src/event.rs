//! Events for the host.

use serde_json::Value;

use crate::error::{RequestError, Warning};
use crate::handle::{RequestHandle, ServerRequestHandle};
// `ListKind` belongs to requests; events name it as the host sees it (`crate::event::ListKind`).
use crate::era::ServerInfo;
pub(crate) use crate::request::ListKind;
use crate::response::Response;
use crate::subscription::SubscriptionFilter;
use crate::types::{LoggingLevel, ServerRequestKind};

/// Something the host should know. Every [`RequestHandle`] gets exactly one
/// [`Event::Response`], and nothing after it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Event {
    /// The era probe or handshake finished; the server is usable (boxed: it is large, and
    /// every event is moved through the layers).
    Connected(Box<ServerInfo>),
    /// The final outcome of a request.
    Response {
        /// The request.
        handle: RequestHandle,
        /// Its outcome.
        result: Result<Response, RequestError>,
    },
    /// Progress reported by the server for a request that asked for it.
    Progress {
        /// The request.
        handle: RequestHandle,
        /// The figures.
        progress: Progress,
    },
    /// The server asks the host something (legacy eras): answer with
    /// [`crate::Connection::respond_to_server`].
    ServerRequest {
        /// The handle to answer with.
        handle: ServerRequestHandle,
        /// What is asked.
        request: ServerRequest,
    },
    /// The server withdrew a request it had sent; any answer to it is dropped.
    ServerRequestCancelled {
        /// The withdrawn request.
        handle: ServerRequestHandle,
    },
    /// A notification from the server (caches are already updated).
    Notification(Notification),
    /// The server reports that the out-of-band interaction of a URL elicitation ended
    /// (`notifications/elicitation/complete`, 2025-11-25). Only ids from this connection's
    /// URL elicitations (requests, or `-32042` errors) not completed yet are passed on.
    ElicitationComplete {
        /// The `elicitationId` of the URL elicitation.
        elicitation_id: String,
    },
    /// Something happened on a [`crate::Request::Listen`] stream: its acknowledgment, a
    /// notification it carried (caches are already updated), or a re-open.
    Subscription {
        /// The listen request.
        handle: RequestHandle,
        /// What happened.
        update: SubscriptionUpdate,
    },
    /// A resource subscription made with [`crate::Request::SubscribeResource`] (handshake
    /// revisions) ended without the host asking: renewing it on a new process or session was
    /// refused (a JSON-RPC error, the new session no longer declares `resources.subscribe`, or
    /// it speaks 2026-07-28). It is no longer in [`crate::Connection::resource_subscriptions`].
    ResourceSubscriptionDropped {
        /// The resource.
        uri: String,
        /// Why the renewal failed.
        reason: RequestError,
    },
    /// A line the server wrote to stderr, sanitised; a line over the limit is cut to the limit
    /// and marked with its full length.
    Stderr(String),
    /// Non-fatal peer misbehaviour or dropped data.
    Warning(Warning),
    /// The server process went away; emitted just before the in-flight requests fail with the
    /// same reason. The next request restarts the process.
    Disconnected {
        /// What happened.
        reason: RequestError,
    },
    /// The connection is closed for good (after [`crate::Connection::close`]).
    Closed,
    /// 2026-07-28: a request waits before retrying a state-only `input_required` (the server
    /// said "not yet"). The host may stop it with [`crate::Connection::cancel_input_wait`].
    InputWait(crate::InputWait),
    /// The OAuth state of an HTTP connection changed (tokens issued or refreshed, a client
    /// registered): a host that keeps tokens across runs saves this record and gives it back
    /// in [`crate::oauth::OAuthSetup::stored`]. It holds secrets in clear.
    #[cfg(feature = "oauth")]
    AuthorizationSaved(Box<crate::oauth::StoredAuth>),
}

/// Progress figures from `notifications/progress`.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// Progress so far (increasing).
    pub progress: f64,
    /// Total, when known.
    pub total: Option<f64>,
    /// A human-readable message (sanitised).
    pub message: Option<String>,
}

/// A server-to-client request for the host to answer: already checked and decoded (a request
/// that does not decode was answered `-32602` without reaching the host).
#[derive(Debug, Clone, PartialEq)]
pub struct ServerRequest {
    /// What is asked (which handler answers).
    pub kind: ServerRequestKind,
    /// The request, typed.
    pub request: crate::types::HostRequest,
}

impl ServerRequest {
    /// The request params as received (after the client's adjustments).
    pub fn params(&self) -> &Value {
        self.request.raw()
    }
}

/// A notification from the server.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Notification {
    /// A list changed; the client's cache for it was already dropped.
    ListChanged(ListKind),
    /// A resource changed.
    ResourceUpdated {
        /// The resource.
        uri: String,
    },
    /// A log message (`notifications/message`).
    Log(LogMessage),
    /// Anything else, as received.
    Other {
        /// The method.
        method: String,
        /// The params.
        params: Value,
    },
}

/// A server log message, made safe to display.
#[derive(Debug, Clone, PartialEq)]
pub struct LogMessage {
    /// Severity (unknown levels read as `Info`).
    pub level: LoggingLevel,
    /// The logger name, sanitised.
    pub logger: Option<String>,
    /// The message text: the `data` string, or its JSON, with control characters escaped and
    /// the length capped.
    pub text: String,
    /// The raw `data` value.
    pub data: Value,
}

/// Something that happened on a listen stream, in the order it happened. Every update for a
/// handle comes before its one [`crate::Event::Response`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum SubscriptionUpdate {
    /// The server acknowledged the listen (the first time, or again after a re-open).
    Acknowledged {
        /// What the server agreed to honour, as it said.
        granted: SubscriptionFilter,
        /// What was asked for and is not in `granted`.
        unsupported: SubscriptionFilter,
    },
    /// A notification delivered on the stream (caches it invalidates are already dropped).
    Notification(Notification),
    /// The server sent a notification on the stream that the listen did not ask for (see
    /// [`SubscriptionFilter::asks_for`]); it was dropped, caches untouched. The first on a
    /// stream is also reported as [`crate::Warning::UnrequestedNotification`].
    Unrequested {
        /// The dropped notification's method, sanitised.
        method: String,
        /// How many the stream has dropped so far, this one included.
        count: u64,
    },
    /// The stream dropped (HTTP) or its process exited (stdio); the listen is being sent
    /// again and waits for a new acknowledgment.
    Reconnecting {
        /// Why the stream dropped.
        reason: RequestError,
    },
}
