//! What a call's future polls itself while it waits for its outcome (see
//! [`mcpwire_host::CallerScope`]): the HTTP exchange carrying its request, or the stdout of the
//! stdio server it wrote to.

use std::sync::Arc;
use std::task::{Context, Poll, Waker};

#[cfg(feature = "http")]
use crate::http::InlineExchange;
use crate::stdout::SharedStdout;

/// The IO a caller took while issuing its request.
pub(crate) enum CallerIo {
    /// The exchange carrying the request; the runtime finishes it if the caller stops first.
    #[cfg(feature = "http")]
    Exchange(InlineExchange),
    /// The stdout the reply will come on, and the caller's waker once it polled it.
    Stdout(Arc<SharedStdout>, Option<Waker>),
}

impl CallerIo {
    /// Polls it for the caller; `Ready` when there is nothing more to poll.
    pub(crate) fn poll(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        match self {
            #[cfg(feature = "http")]
            Self::Exchange(exchange) => exchange.poll(cx),
            Self::Stdout(stdout, polled) => {
                if !polled.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
                    *polled = Some(cx.waker().clone());
                }
                stdout.poll_caller(cx)
            }
        }
    }

    /// The caller stops polling (its outcome came, or its future was dropped).
    pub(crate) fn stop(self) {
        match self {
            #[cfg(feature = "http")]
            Self::Exchange(exchange) => exchange.hand_off(),
            Self::Stdout(stdout, Some(caller)) => stdout.hand_back(&caller),
            Self::Stdout(_, None) => {}
        }
    }

    /// Offered but never polled: only an exchange needs someone to run it.
    pub(crate) fn unclaimed(self) {
        #[cfg(feature = "http")]
        if let Self::Exchange(exchange) = self {
            exchange.hand_off();
        }
    }
}
