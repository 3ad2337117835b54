//! A bounded queue for server notifications waiting on a slow listener.
//!
//! The server decides how many notifications it sends and how large each one is, so whatever
//! holds them for a listener that has fallen behind must be bounded by both measures. A count
//! limit alone lets a handful of huge payloads pin unbounded memory; a byte limit alone lets a
//! flood of tiny notices grow the backlog (and the per-entry overhead nobody charged for)
//! without end. [`NotificationQueue`] enforces both, given as [`QueueLimits`].
//!
//! When a limit is reached something has to go, and the choice matters more than the limit.
//! Each entry carries a *subject* (what it is about, such as a method plus a resource URI). The
//! queue first drops an older entry of the arriving entry's own subject: the newer notice says
//! at least what the dropped one did ("this resource changed" is still true). Failing that, it
//! drops from the subject holding the most of the queue, because that subject keeps its later
//! entries while a quiet subject's only entry is the one record of something nothing else in the
//! queue would say. A noisy server therefore loses its own repeats, not other subjects' signals.
//!
//! A single entry costing more than the whole byte budget is not refused: it waits in one
//! uncharged *oversize slot*, and a later oversize arrival replaces it. What the queue retains is
//! thus at most `max_bytes` plus one oversize payload, in at most `max_items` entries.
//!
//! Every operation is `O(log n)`: entries are kept by arrival number, each subject keeps ordered
//! sets of its entries, and two ordered indexes name the busiest subject by count and by bytes.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::Arc;

/// The two ceilings of a [`NotificationQueue`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct QueueLimits {
    /// Most entries held at once, the oversize slot included. Default 1024; 0 acts as 1.
    pub max_items: usize,
    /// Most bytes charged at once, summed over the `cost` of every entry except the oversize
    /// one. Default 4 MiB; 0 acts as 1.
    pub max_bytes: usize,
}

impl Default for QueueLimits {
    fn default() -> Self {
        QueueLimits { max_items: 1024, max_bytes: 4 * 1024 * 1024 }
    }
}

impl QueueLimits {
    /// Most entries held at once, the oversize slot included.
    pub fn max_items(mut self, max_items: usize) -> Self {
        self.max_items = max_items;
        self
    }

    /// Most bytes charged at once, summed over the `cost` of every entry except the oversize one.
    pub fn max_bytes(mut self, max_bytes: usize) -> Self {
        self.max_bytes = max_bytes;
        self
    }
}

/// What [`NotificationQueue::push`] did to make room for the arriving entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pushed {
    /// Queued without dropping anything.
    Queued,
    /// Queued after evicting this many older entries (at least one).
    QueuedAfterDropping(usize),
}

/// A FIFO queue bounded by entry count and by bytes, dropping repeats before unique notices.
///
/// The module documentation explains the eviction order. `T` is whatever the host delivers.
pub struct NotificationQueue<T> {
    limits: QueueLimits,
    next_seq: u64,
    entries: BTreeMap<u64, Entry<T>>,
    subjects: BTreeMap<Arc<str>, Subject>,
    index: Index,
    oversize: Option<u64>,
    pending_bytes: usize,
    dropped: u64,
}

struct Entry<T> {
    item: T,
    subject: Arc<str>,
    cost: usize,
    /// False only for the occupant of the oversize slot.
    charged: bool,
}

impl<T> Entry<T> {
    /// Whether evicting this entry lowers `pending_bytes`.
    fn weighs(&self) -> bool {
        self.charged && self.cost > 0
    }
}

/// The queued entries of one subject, by arrival number.
#[derive(Default)]
struct Subject {
    seqs: BTreeSet<u64>,
    /// The charged entries with a nonzero cost, the only ones byte pressure may evict.
    weighing: BTreeSet<u64>,
    bytes: usize,
}

/// `(size, Reverse(oldest arrival))`: the greatest key is the biggest subject, ties going to the
/// one whose oldest entry is oldest. Arrival numbers are unique, so keys never collide.
type Key = (usize, Reverse<u64>);

impl Subject {
    fn count_key(&self) -> Option<Key> {
        self.seqs.first().map(|&seq| (self.seqs.len(), Reverse(seq)))
    }

    fn bytes_key(&self) -> Option<Key> {
        self.weighing.first().map(|&seq| (self.bytes, Reverse(seq)))
    }
}

#[derive(Default)]
struct Index {
    by_count: BTreeSet<Key>,
    by_bytes: BTreeSet<Key>,
}

impl Index {
    /// Applies `change` to `subject`, keeping both indexes in step with it.
    fn update(&mut self, subject: &mut Subject, change: impl FnOnce(&mut Subject)) {
        if let Some(key) = subject.count_key() {
            self.by_count.remove(&key);
        }
        if let Some(key) = subject.bytes_key() {
            self.by_bytes.remove(&key);
        }
        change(subject);
        if let Some(key) = subject.count_key() {
            self.by_count.insert(key);
        }
        if let Some(key) = subject.bytes_key() {
            self.by_bytes.insert(key);
        }
    }
}

impl<T> NotificationQueue<T> {
    /// An empty queue with these limits; a `max_items` or `max_bytes` of 0 is raised to 1.
    pub fn new(limits: QueueLimits) -> Self {
        NotificationQueue {
            limits: QueueLimits { max_items: limits.max_items.max(1), max_bytes: limits.max_bytes.max(1) },
            next_seq: 0,
            entries: BTreeMap::new(),
            subjects: BTreeMap::new(),
            index: Index::default(),
            oversize: None,
            pending_bytes: 0,
            dropped: 0,
        }
    }

    /// Queues `item`, evicting older entries first if a limit requires it; `item` itself is
    /// always queued.
    ///
    /// `subject` names what the notification is about; the caller builds it, for example the
    /// method and the resource URI or task id joined by a NUL
    /// (`"notifications/resources/updated\u{0}file:///a"`). `cost` is the bytes the entry
    /// retains (the caller charges the method plus the params length). An entry costing more
    /// than `max_bytes` takes the oversize slot, evicting its previous occupant.
    pub fn push(&mut self, item: T, subject: &str, cost: usize) -> Pushed {
        let mut evicted = 0;
        let charged = cost <= self.limits.max_bytes;
        if charged {
            // `pending_bytes <= max_bytes` always holds, so the subtraction cannot wrap.
            while cost > self.limits.max_bytes - self.pending_bytes {
                let Some(victim) = self.byte_victim(subject) else { break };
                evicted += usize::from(self.evict(victim));
            }
        } else if let Some(old) = self.oversize {
            evicted += usize::from(self.evict(old));
        }
        if self.entries.len() >= self.limits.max_items {
            if let Some(victim) = self.count_victim(subject) {
                evicted += usize::from(self.evict(victim));
            }
        }

        let seq = self.next_seq;
        self.next_seq += 1;
        let name = match self.subjects.get_key_value(subject) {
            Some((name, _)) => Arc::clone(name),
            None => Arc::from(subject),
        };
        let entry = Entry { item, subject: Arc::clone(&name), cost, charged };
        let weighs = entry.weighs();
        let state = self.subjects.entry(name).or_default();
        self.index.update(state, |s| {
            s.seqs.insert(seq);
            if weighs {
                s.weighing.insert(seq);
                s.bytes += cost;
            }
        });
        if charged {
            self.pending_bytes += cost;
        } else {
            self.oversize = Some(seq);
        }
        self.entries.insert(seq, entry);

        match evicted {
            0 => Pushed::Queued,
            n => Pushed::QueuedAfterDropping(n),
        }
    }

    /// Removes and returns the oldest entry by arrival, the oversize one included.
    pub fn pop(&mut self) -> Option<T> {
        let seq = *self.entries.first_key_value()?.0;
        self.remove(seq)
    }

    /// How many entries are queued, the oversize one included.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The summed `cost` of the queued entries, leaving out the uncharged oversize one.
    pub fn pending_bytes(&self) -> usize {
        self.pending_bytes
    }

    /// How many entries have been evicted over the queue's life ([`clear`](Self::clear) aside).
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// The limits in force, after raising zeros to 1.
    pub fn limits(&self) -> QueueLimits {
        self.limits
    }

    /// Discards every queued entry; they are not counted as dropped.
    pub fn clear(&mut self) {
        self.entries.clear();
        self.subjects.clear();
        self.index = Index::default();
        self.oversize = None;
        self.pending_bytes = 0;
    }

    /// The entry to evict when the count is at its ceiling: the arriving subject's oldest, else
    /// the oldest of the subject with the most entries.
    fn count_victim(&self, subject: &str) -> Option<u64> {
        let own = self.subjects.get(subject).and_then(|s| s.seqs.first());
        own.copied().or_else(|| self.index.by_count.last().map(|&(_, Reverse(seq))| seq))
    }

    /// The entry to evict under byte pressure, among charged entries that weigh something: the
    /// arriving subject's oldest, else the oldest of the subject with the most bytes.
    fn byte_victim(&self, subject: &str) -> Option<u64> {
        let own = self.subjects.get(subject).and_then(|s| s.weighing.first());
        own.copied().or_else(|| self.index.by_bytes.last().map(|&(_, Reverse(seq))| seq))
    }

    fn evict(&mut self, seq: u64) -> bool {
        let found = self.remove(seq).is_some();
        if found {
            self.dropped += 1;
        }
        found
    }

    fn remove(&mut self, seq: u64) -> Option<T> {
        let entry = self.entries.remove(&seq)?;
        if self.oversize == Some(seq) {
            self.oversize = None;
        }
        if entry.charged {
            self.pending_bytes -= entry.cost;
        }
        let weighs = entry.weighs();
        if let Some(state) = self.subjects.get_mut(&*entry.subject) {
            self.index.update(state, |s| {
                s.seqs.remove(&seq);
                if weighs {
                    s.weighing.remove(&seq);
                    s.bytes -= entry.cost;
                }
            });
            if state.seqs.is_empty() {
                self.subjects.remove(&*entry.subject);
            }
        }
        Some(entry.item)
    }
}

impl<T> fmt::Debug for NotificationQueue<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NotificationQueue")
            .field("limits", &self.limits)
            .field("len", &self.entries.len())
            .field("pending_bytes", &self.pending_bytes)
            .field("oversize", &self.oversize.is_some())
            .field("dropped", &self.dropped)
            .finish()
    }
}

#[cfg(test)]
mod tests;

/// The subject (what a notification is about: its method, and the URI or task id it names) and
/// the bytes it retains (method and params), as a [`NotificationQueue`] of notifications is
/// charged.
pub fn charge(n: &crate::event::Notification) -> (String, usize) {
    use crate::event::Notification;
    match n {
        Notification::ListChanged(kind) => {
            let method = match kind {
                crate::request::ListKind::Tools => "notifications/tools/list_changed",
                crate::request::ListKind::Prompts => "notifications/prompts/list_changed",
                crate::request::ListKind::Resources => "notifications/resources/list_changed",
            };
            (method.to_owned(), method.len())
        }
        Notification::ResourceUpdated { uri } => {
            let method = "notifications/resources/updated";
            (format!("{method}\u{0}{uri}"), method.len() + uri.len())
        }
        Notification::Log(log) => {
            let method = "notifications/message";
            (method.to_owned(), method.len() + log.text.len() + log.data.to_string().len())
        }
        Notification::Other { method, params } => {
            let task = params.get("taskId").and_then(serde_json::Value::as_str).unwrap_or("");
            (format!("{method}\u{0}{task}"), method.len() + params.to_string().len())
        }
    }
}
