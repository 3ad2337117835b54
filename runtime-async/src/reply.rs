//! A one-outcome reply slot between the engine and a waiting caller: one allocation, one
//! short lock, and the caller is woken after the lock is released (so it never wakes up only
//! to wait for the lock its waker still holds).

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use mcpwire_core::ClientError;
use mcpwire_host::{lock, Outcome, Reply};

#[derive(Default)]
struct State {
    outcome: Option<Outcome>,
    waker: Option<Waker>,
    /// The sending side is gone without an outcome (the engine finished).
    closed: bool,
}

/// A new slot: the engine's half and the caller's half.
pub(crate) fn slot() -> (ReplyTo, OutcomeFuture) {
    let shared = Arc::new(Mutex::new(State::default()));
    (ReplyTo(Some(shared.clone())), OutcomeFuture(shared))
}

/// The engine's half: delivers the outcome, or `Closed` when dropped without one.
pub(crate) struct ReplyTo(Option<Arc<Mutex<State>>>);

impl ReplyTo {
    fn finish(&mut self, outcome: Option<Outcome>) {
        let Some(shared) = self.0.take() else { return };
        let waker = {
            let mut st = lock(&shared);
            match outcome {
                Some(o) => st.outcome = Some(o),
                None => st.closed = true,
            }
            st.waker.take()
        };
        if let Some(w) = waker {
            w.wake();
        }
    }
}

impl Reply for ReplyTo {
    fn deliver(mut self, outcome: Outcome) {
        self.finish(Some(outcome));
    }
}

impl Drop for ReplyTo {
    fn drop(&mut self) {
        self.finish(None);
    }
}

/// The caller's half: a future of the outcome.
pub(crate) struct OutcomeFuture(Arc<Mutex<State>>);

impl OutcomeFuture {
    /// Forgets the stored waker: the caller is about to poll its own IO and then this future,
    /// so an outcome delivered meanwhile (most often by that very IO) needs no wake-up. A
    /// wake-up of the task being polled is not free: the runtime polls it once more, and
    /// tokio's current-thread scheduler also polls its driver an extra time.
    pub(crate) fn polling_now(&self) {
        lock(&self.0).waker = None;
    }
}

impl Future for OutcomeFuture {
    type Output = Outcome;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Outcome> {
        let mut st = lock(&self.0);
        if let Some(outcome) = st.outcome.take() {
            return Poll::Ready(outcome);
        }
        if st.closed {
            return Poll::Ready(Err(ClientError::Closed));
        }
        match &st.waker {
            Some(w) if w.will_wake(cx.waker()) => {}
            _ => st.waker = Some(cx.waker().clone()),
        }
        Poll::Pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_streams::counted;

    /// A call polled once on a callback's thread and then by a task of the runtime's (another
    /// waker): its outcome wakes the waker of the most recent poll.
    #[test]
    fn a_delivery_wakes_the_waker_of_the_most_recent_poll() {
        let (reply, mut outcome) = slot();
        let (first_wakes, first) = counted();
        let (second_wakes, second) = counted();
        assert!(Pin::new(&mut outcome).poll(&mut Context::from_waker(&first)).is_pending());
        assert!(Pin::new(&mut outcome).poll(&mut Context::from_waker(&second)).is_pending());
        reply.deliver(Err(ClientError::Closed));
        assert_eq!((first_wakes.count(), second_wakes.count()), (0, 1));
        assert!(Pin::new(&mut outcome).poll(&mut Context::from_waker(&second)).is_ready());
    }
}
