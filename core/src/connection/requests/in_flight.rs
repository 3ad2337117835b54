//! The table of requests in flight: each request's [`Op`] by handle, the queue of those waiting
//! to be sent, what each wire id on the wire is for, the wire ids finished last, and the
//! progress tokens. It keeps them consistent with each other: a request ended here leaves no
//! queue entry, wire id or progress token behind, and its wire id is remembered as finished.

use std::collections::{BTreeMap, VecDeque};

use super::recent::RecentIds;
use super::{progress_key, Op};
use crate::connection::WireUse;
use crate::handle::{Epoch, RequestHandle};
use crate::jsonrpc::WireId;

/// What the table knows of a wire id that was answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::connection) enum Answered {
    /// It was in flight, for this; it is finished now.
    InFlight(WireUse),
    /// It finished lately: the answer is late.
    Late,
    /// Nothing was ever in flight under it (that the table remembers).
    Unknown,
}

/// The requests in flight and everything that refers to them.
#[derive(Debug)]
pub(in crate::connection) struct InFlight {
    /// Boxed: an `Op` is large (~800 bytes), and a B-tree moves its values within a node on
    /// every insert and remove.
    ops: BTreeMap<RequestHandle, Box<Op>>,
    /// The requests waiting to be sent, in order.
    queue: VecDeque<RequestHandle>,
    /// What each wire id on the wire is for.
    wire: BTreeMap<WireId, WireUse>,
    /// The wire ids of the requests finished last: a response to one of them is late rather
    /// than unknown.
    recent: RecentIds,
    /// How many finished wire ids `recent` keeps.
    recent_limit: usize,
    /// The requests by the JSON text of their progress token ([`progress_key`]).
    progress: BTreeMap<String, RequestHandle>,
}

impl InFlight {
    /// An empty table remembering the last `recent_limit` finished wire ids.
    pub(in crate::connection) fn new(recent_limit: usize) -> Self {
        Self {
            ops: BTreeMap::new(),
            queue: VecDeque::new(),
            wire: BTreeMap::new(),
            recent: RecentIds::default(),
            recent_limit,
            progress: BTreeMap::new(),
        }
    }

    // The requests.

    /// The request of `handle`, if it is in flight.
    pub(in crate::connection) fn get(&self, handle: RequestHandle) -> Option<&Op> {
        self.ops.get(&handle).map(|op| &**op)
    }

    /// The request of `handle`, mutably, if it is in flight.
    pub(in crate::connection) fn get_mut(&mut self, handle: RequestHandle) -> Option<&mut Op> {
        self.ops.get_mut(&handle).map(|op| &mut **op)
    }

    /// Whether `handle` is in flight.
    pub(in crate::connection) fn contains(&self, handle: RequestHandle) -> bool {
        self.ops.contains_key(&handle)
    }

    /// Whether `handle` is in flight and not on the wire.
    pub(in crate::connection) fn is_unsent(&self, handle: RequestHandle) -> bool {
        self.get(handle).is_some_and(|op| op.sent.is_none())
    }

    /// How many requests are in flight, internal ones included.
    pub(in crate::connection) fn len(&self) -> usize {
        self.ops.len()
    }

    /// The handles in flight, in order.
    pub(in crate::connection) fn handles(&self) -> Vec<RequestHandle> {
        self.ops.keys().copied().collect()
    }

    /// The requests in flight, in handle order.
    pub(in crate::connection) fn iter(&self) -> impl Iterator<Item = (RequestHandle, &Op)> {
        self.ops.iter().map(|(h, op)| (*h, &**op))
    }

    /// Adds a request, queued after those waiting.
    pub(in crate::connection) fn add_last(&mut self, handle: RequestHandle, op: Op) {
        self.ops.insert(handle, Box::new(op));
        self.queue.push_back(handle);
    }

    /// Adds a request, queued before those waiting.
    pub(in crate::connection) fn add_first(&mut self, handle: RequestHandle, op: Op) {
        self.ops.insert(handle, Box::new(op));
        self.queue.push_front(handle);
    }

    /// Takes a request out: off the queue, its progress token and wire id forgotten (the wire
    /// id remembered as finished), its `sent` cleared.
    pub(in crate::connection) fn remove(&mut self, handle: RequestHandle) -> Option<Box<Op>> {
        let mut op = self.ops.remove(&handle)?;
        self.queue.retain(|h| *h != handle);
        if let Some(token) = &op.progress_token {
            self.progress.remove(&progress_key(token));
        }
        if let Some((_, id)) = op.sent.take() {
            if self.wire.remove(&id).is_some() {
                self.remember_finished(id);
            }
        }
        Some(op)
    }

    // The queue.

    /// Queues `handle` before those waiting (again, if it was queued already).
    pub(in crate::connection) fn queue_first(&mut self, handle: RequestHandle) {
        self.queue.push_front(handle);
    }

    /// Queues `handle` before those waiting, unless it is queued.
    pub(in crate::connection) fn queue_first_once(&mut self, handle: RequestHandle) {
        if !self.queue.contains(&handle) {
            self.queue.push_front(handle);
        }
    }

    /// Queues `handle` after those waiting, unless it is queued.
    pub(in crate::connection) fn queue_last_once(&mut self, handle: RequestHandle) {
        if !self.queue.contains(&handle) {
            self.queue.push_back(handle);
        }
    }

    /// Queues `handle` after those waiting if it is in flight, unsent and not queued; returns
    /// whether it did.
    pub(in crate::connection) fn requeue_unsent(&mut self, handle: RequestHandle) -> bool {
        let requeue = self.is_unsent(handle) && !self.queue.contains(&handle);
        if requeue {
            self.queue.push_back(handle);
        }
        requeue
    }

    /// Whether any request waits to be sent.
    pub(in crate::connection) fn has_queued(&self) -> bool {
        !self.queue.is_empty()
    }

    /// The next request waiting to be sent, taken off the queue.
    pub(in crate::connection) fn next_queued(&mut self) -> Option<RequestHandle> {
        self.queue.pop_front()
    }

    // The wire.

    /// `handle` went out under `id` on process or session `epoch`.
    pub(in crate::connection) fn mark_sent(&mut self, handle: RequestHandle, epoch: Epoch, id: WireId) {
        if let Some(op) = self.ops.get_mut(&handle) {
            op.sent = Some((epoch, id.clone()));
        }
        self.wire.insert(id, WireUse::Op(handle));
    }

    /// `handle` is no longer on the wire (answered, or its attempt is over).
    pub(in crate::connection) fn clear_sent(&mut self, handle: RequestHandle) {
        if let Some(op) = self.ops.get_mut(&handle) {
            op.sent = None;
        }
    }

    /// Puts `id` on the wire for something that is not a request of the table (the handshake,
    /// a keep-alive ping, a fire-and-forget request).
    pub(in crate::connection) fn bind(&mut self, id: WireId, usage: WireUse) {
        self.wire.insert(id, usage);
    }

    /// What `id` is for, if it is on the wire.
    pub(in crate::connection) fn wire_use(&self, id: &WireId) -> Option<WireUse> {
        self.wire.get(id).copied()
    }

    /// Whether `id` is on the wire.
    pub(in crate::connection) fn is_on_wire(&self, id: &WireId) -> bool {
        self.wire.contains_key(id)
    }

    /// `id` was answered: off the wire and remembered as finished, with what it was for; or
    /// whether the answer is late or unknown. The request it was for keeps its `sent` (see
    /// [`Self::clear_sent`]).
    pub(in crate::connection) fn answered(&mut self, id: &WireId) -> Answered {
        match self.wire.remove(id) {
            Some(usage) => {
                self.remember_finished(id.clone());
                Answered::InFlight(usage)
            }
            None if self.finished_recently(id) => Answered::Late,
            None => Answered::Unknown,
        }
    }

    /// Takes `id` off the wire for good (no answer will come): the request it was for, if any,
    /// is unsent, and `id` is remembered as finished.
    #[cfg(feature = "http")]
    pub(in crate::connection) fn end_id(&mut self, id: &WireId) {
        if let Some(WireUse::Op(handle)) = self.wire.remove(id) {
            self.clear_sent(handle);
        }
        self.remember_finished(id.clone());
    }

    /// The wire ids on the wire for `usage`, in order.
    pub(in crate::connection) fn ids_of(&self, usage: WireUse) -> Vec<WireId> {
        self.wire.iter().filter(|(_, u)| **u == usage).map(|(id, _)| id.clone()).collect()
    }

    /// Ends every wire id of `usage` (the handshake's, once it is over), remembered as finished.
    pub(in crate::connection) fn end_all_of(&mut self, usage: WireUse) {
        for id in self.ids_of(usage) {
            self.wire.remove(&id);
            self.remember_finished(id);
        }
    }

    /// The process or session went away: nothing is on the wire any more. Every id is
    /// remembered as finished, and the requests that were sent are unsent (to be sent again
    /// or failed).
    pub(in crate::connection) fn end_all_ids(&mut self) {
        for (id, usage) in std::mem::take(&mut self.wire) {
            if let WireUse::Op(handle) = usage {
                self.clear_sent(handle);
            }
            self.remember_finished(id);
        }
    }

    fn remember_finished(&mut self, id: WireId) {
        // Ids this client sent are integers; any other id was never in flight.
        if let Some(id) = id.as_int() {
            self.recent.remember(id, self.recent_limit);
        }
    }

    /// Whether `id` finished lately (an answer to it, or a notification naming it, is late).
    pub(in crate::connection) fn finished_recently(&self, id: &WireId) -> bool {
        id.as_int().is_some_and(|n| self.recent.contains(n))
    }

    // Progress.

    /// Progress notifications carrying `token` are for `handle` (which keeps the token: it is
    /// sent again with every attempt, and forgotten with the request).
    pub(in crate::connection) fn track_progress(&mut self, token: String, handle: RequestHandle) {
        let Some(op) = self.ops.get_mut(&handle) else { return };
        self.progress.insert(progress_key(&token), handle);
        op.progress_token = Some(token);
    }

    /// The request whose progress token's JSON text is `key`.
    pub(in crate::connection) fn by_progress(&self, key: &str) -> Option<RequestHandle> {
        self.progress.get(key).copied()
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::request::{Request, RequestOptions};

    fn op() -> Op {
        Op::unbounded(Request::Ping, RequestOptions::default(), Duration::from_secs(1))
    }

    fn handle(n: u64) -> RequestHandle {
        RequestHandle::new(n)
    }

    #[test]
    fn removing_a_request_leaves_nothing_of_it_behind() {
        let mut table = InFlight::new(8);
        table.add_last(handle(1), op());
        table.add_first(handle(2), op());
        table.queue_first(handle(1));
        let id = WireId::from_int(7);
        table.mark_sent(handle(1), Epoch::new(1), id.clone());
        table.track_progress("p".into(), handle(1));
        assert_eq!(table.wire_use(&id), Some(WireUse::Op(handle(1))));
        assert_eq!(table.by_progress(&progress_key("p")), Some(handle(1)));

        let removed = table.remove(handle(1)).expect("in flight");
        assert!(removed.sent.is_none());
        assert!(!table.contains(handle(1)) && table.by_progress(&progress_key("p")).is_none());
        assert!(!table.is_on_wire(&id));
        // Its id is finished (an answer to it is late), and only request 2 is still queued.
        assert_eq!(table.answered(&id), Answered::Late);
        assert_eq!(table.next_queued(), Some(handle(2)));
        assert_eq!(table.next_queued(), None);
        assert!(table.remove(handle(1)).is_none());
    }

    #[test]
    fn answers_are_in_flight_late_or_unknown() {
        let mut table = InFlight::new(1);
        table.add_last(handle(1), op());
        let (first, second) = (WireId::from_int(1), WireId::from_int(2));
        table.mark_sent(handle(1), Epoch::new(1), first.clone());
        table.bind(second.clone(), WireUse::Fire);
        assert_eq!(table.answered(&first), Answered::InFlight(WireUse::Op(handle(1))));
        // The request keeps `sent` until it is cleared.
        assert!(!table.is_unsent(handle(1)));
        table.clear_sent(handle(1));
        assert!(table.is_unsent(handle(1)));
        assert_eq!(table.answered(&first), Answered::Late);
        // Only one finished id is kept: answering the second forgets the first.
        assert_eq!(table.answered(&second), Answered::InFlight(WireUse::Fire));
        assert_eq!(table.answered(&first), Answered::Unknown);
        assert_eq!(table.answered(&WireId::from_value(&serde_json::json!("x"))), Answered::Unknown);
    }

    #[test]
    fn a_lost_process_unsends_every_request_and_queues_each_once() {
        let mut table = InFlight::new(8);
        table.add_last(handle(1), op());
        table.add_last(handle(2), op());
        while table.next_queued().is_some() {}
        table.mark_sent(handle(1), Epoch::new(1), WireId::from_int(1));
        table.bind(WireId::from_int(2), WireUse::Initialize);
        table.bind(WireId::from_int(3), WireUse::Initialize);
        assert_eq!(table.ids_of(WireUse::Initialize).len(), 2);
        table.end_all_of(WireUse::Initialize);
        assert!(table.ids_of(WireUse::Initialize).is_empty());
        assert_eq!(table.answered(&WireId::from_int(3)), Answered::Late);

        table.end_all_ids();
        assert!(table.is_unsent(handle(1)) && !table.is_on_wire(&WireId::from_int(1)));
        assert!(table.requeue_unsent(handle(1)));
        assert!(!table.requeue_unsent(handle(1)), "already queued");
        table.queue_last_once(handle(1));
        table.queue_first_once(handle(2));
        table.queue_first_once(handle(2));
        let order: Vec<_> = std::iter::from_fn(|| table.next_queued()).collect();
        assert_eq!(order, [handle(2), handle(1)]);
        assert_eq!(table.handles(), [handle(1), handle(2)]);
        assert_eq!(table.len(), 2);
    }
}
