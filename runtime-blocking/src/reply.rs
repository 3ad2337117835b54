//! A caller's reply slot: the engine delivers one outcome into it, and the caller waits on it
//! (blocked on a condition variable, or in `poll` on its server's stdout, see
//! [`crate::stdout`]: then a delivery from another thread nudges it).

use std::sync::{Arc, Condvar, Mutex};
use std::thread::ThreadId;

use mcpwire_core::ClientError;
use mcpwire_host::{lock, Outcome, Reply};

/// Wakes a caller waiting somewhere other than on the slot's condition variable.
pub(crate) type Nudge = Arc<dyn Fn() + Send + Sync>;

#[derive(Default)]
struct State {
    outcome: Option<Outcome>,
    /// The sending half is gone without delivering (the engine ended).
    abandoned: bool,
    /// The waiting caller's thread and how to wake it, while it waits in `poll`.
    nudge: Option<(ThreadId, Nudge)>,
    /// Callers blocked on the condition variable (a delivery notifies it only for them: a
    /// notification costs a system call even when nobody waits).
    blocked: usize,
}

#[derive(Default)]
struct Inner {
    state: Mutex<State>,
    ready: Condvar,
}

/// A new slot: the engine's half and the caller's half.
pub(crate) fn slot() -> (ReplyTo, Slot) {
    let inner = Arc::new(Inner::default());
    (ReplyTo(Some(inner.clone())), Slot(inner))
}

/// The engine's half: delivers once; dropped undelivered, the caller gets `Closed`.
pub(crate) struct ReplyTo(Option<Arc<Inner>>);

impl ReplyTo {
    fn settle(&mut self, outcome: Option<Outcome>) {
        let Some(inner) = self.0.take() else { return };
        let (nudge, blocked) = {
            let mut state = lock(&inner.state);
            match outcome {
                Some(outcome) => state.outcome = Some(outcome),
                None => state.abandoned = true,
            }
            (state.nudge.clone(), state.blocked > 0)
        };
        if blocked {
            inner.ready.notify_all();
        }
        // The caller reading stdout on this very thread sees the outcome without help.
        if let Some((thread, nudge)) = nudge {
            if thread != std::thread::current().id() {
                nudge();
            }
        }
    }
}

impl Reply for ReplyTo {
    fn deliver(mut self, outcome: Outcome) {
        self.settle(Some(outcome));
    }
}

impl Drop for ReplyTo {
    fn drop(&mut self) {
        self.settle(None);
    }
}

/// The caller's half.
pub(crate) struct Slot(Arc<Inner>);

impl Slot {
    /// The outcome, if it came.
    pub(crate) fn try_take(&self) -> Option<Outcome> {
        let mut state = lock(&self.0.state);
        match state.outcome.take() {
            Some(outcome) => Some(outcome),
            None if state.abandoned => Some(Err(ClientError::Closed)),
            None => None,
        }
    }

    /// Blocks until the outcome comes.
    pub(crate) fn wait(&self) -> Outcome {
        let mut state = lock(&self.0.state);
        loop {
            if let Some(outcome) = state.outcome.take() {
                return outcome;
            }
            if state.abandoned {
                return Err(ClientError::Closed);
            }
            state.blocked += 1;
            state = self.0.ready.wait(state).unwrap_or_else(std::sync::PoisonError::into_inner);
            state.blocked -= 1;
        }
    }

    /// While set, a delivery from another thread than this one also calls `nudge`.
    #[cfg_attr(not(unix), allow(dead_code))]
    pub(crate) fn set_nudge(&self, nudge: Option<Nudge>) {
        lock(&self.0.state).nudge = nudge.map(|n| (std::thread::current().id(), n));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slot_gets_its_outcome_or_closed() {
        let (reply, slot) = slot();
        assert!(slot.try_take().is_none());
        reply.deliver(Err(ClientError::Closed));
        assert!(matches!(slot.wait(), Err(ClientError::Closed)));
        let (reply, slot) = super::slot();
        drop(reply);
        assert!(matches!(slot.try_take(), Some(Err(ClientError::Closed))));
    }

    #[test]
    fn a_delivery_from_another_thread_nudges_the_caller() {
        let (reply, slot) = super::slot();
        let nudged = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counter = nudged.clone();
        slot.set_nudge(Some(Arc::new(move || {
            counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        })));
        std::thread::spawn(move || reply.deliver(Err(ClientError::Closed))).join().unwrap();
        assert_eq!(nudged.load(std::sync::atomic::Ordering::SeqCst), 1);
        assert!(slot.try_take().is_some());
        // From the caller's own thread: no nudge.
        let (reply, slot) = super::slot();
        let counter = nudged.clone();
        slot.set_nudge(Some(Arc::new(move || {
            counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        })));
        reply.deliver(Err(ClientError::Closed));
        assert_eq!(nudged.load(std::sync::atomic::Ordering::SeqCst), 1);
    }
}
