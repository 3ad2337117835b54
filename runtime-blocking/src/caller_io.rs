//! What a blocking caller does itself while it waits (see [`mcpwire_host::CallerScope`]): the
//! HTTP exchange carrying its request, or reading its stdio server's stdout (Unix).

#[cfg(unix)]
use std::sync::Arc;

#[cfg(feature = "http")]
use crate::http::PreparedExchange;
#[cfg(unix)]
use crate::stdout::SharedStdout;

/// The IO a caller took while issuing its request.
pub(crate) enum CallerIo {
    /// Performed on the caller's thread.
    #[cfg(feature = "http")]
    Exchange(PreparedExchange),
    /// Read by the caller while it waits for its reply.
    #[cfg(unix)]
    Stdout(Arc<SharedStdout>),
}

impl CallerIo {
    /// Offered but not taken: an exchange goes to the worker pool.
    pub(crate) fn unclaimed(self) {
        #[cfg(feature = "http")]
        if let Self::Exchange(exchange) = self {
            exchange.run_unclaimed();
        }
    }
}
