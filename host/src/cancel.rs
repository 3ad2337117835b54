//! [`CancelToken`]: cancels requests from anywhere (another thread, a callback, a signal
//! handler), on either family.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use crate::dispatch::lock;

/// Cancels requests from another thread or from a callback: every request sent with the token
/// ([`RequestBuilder::cancel_token`](crate::RequestBuilder::cancel_token)), now and later, ends
/// with [`RequestError::Cancelled`](mcpwire_core::RequestError::Cancelled); the server gets
/// `notifications/cancelled` for requests it had received. Cheap to clone. (An async request
/// is also cancelled by dropping it.)
#[derive(Clone, Default)]
pub struct CancelToken {
    state: Arc<Mutex<TokenState>>,
}

/// Cancels one watched request.
pub type CancelCall = Box<dyn FnOnce() + Send>;

#[derive(Default)]
struct TokenState {
    cancelled: bool,
    next_watch: u64,
    /// Watched requests by watch number.
    calls: BTreeMap<u64, CancelCall>,
}

impl std::fmt::Debug for CancelToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CancelToken").field("cancelled", &self.is_cancelled()).finish()
    }
}

impl CancelToken {
    /// A token not cancelled yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Cancels every request sent with this token. Idempotent; never blocks.
    pub fn cancel(&self) {
        let calls = {
            let mut state = lock(&self.state);
            state.cancelled = true;
            std::mem::take(&mut state.calls)
        };
        for cancel in calls.into_values() {
            cancel();
        }
    }

    /// True once [`CancelToken::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        lock(&self.state).cancelled
    }

    /// Watches a request that was already issued (so a cancel can never overtake it): `cancel`
    /// runs when the token is cancelled, at once if it already is. Returns the watch number
    /// for [`CancelToken::unwatch`] (`None` when it ran at once).
    pub fn watch(&self, cancel: CancelCall) -> Option<u64> {
        let mut state = lock(&self.state);
        if state.cancelled {
            drop(state);
            cancel();
            return None;
        }
        state.next_watch += 1;
        let watch = state.next_watch;
        state.calls.insert(watch, cancel);
        Some(watch)
    }

    /// Stops watching a request that ended.
    pub fn unwatch(&self, watch: u64) {
        lock(&self.state).calls.remove(&watch);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn cancelling_runs_the_watched_and_later_requests_once() {
        let runs = Arc::new(AtomicUsize::new(0));
        let counter = || {
            let runs = runs.clone();
            Box::new(move || {
                runs.fetch_add(1, Ordering::SeqCst);
            }) as CancelCall
        };
        let token = CancelToken::new();
        let first = token.watch(counter());
        let ended = token.watch(counter()).unwrap();
        token.unwatch(ended);
        assert!(first.is_some());
        token.cancel();
        token.cancel();
        assert_eq!(runs.load(Ordering::SeqCst), 1, "the unwatched request is left alone");
        assert!(token.watch(counter()).is_none(), "a request after the cancel is cancelled at once");
        assert_eq!(runs.load(Ordering::SeqCst), 2);
        assert!(token.is_cancelled());
    }
}
