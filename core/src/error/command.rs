//! Host misuse, reported synchronously by a command.

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
