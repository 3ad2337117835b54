//! The one error type of the high-level clients.

use super::{CommandError, RequestError, RpcError};

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
    ToolCall(#[from] super::ToolCallError),
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
    /// The client is closed (or its engine stopped): the request was refused, or ended by the
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
