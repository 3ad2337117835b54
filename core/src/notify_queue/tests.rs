use super::*;
use proptest::prelude::*;

fn queue(max_items: usize, max_bytes: usize) -> NotificationQueue<&'static str> {
    NotificationQueue::new(QueueLimits { max_items, max_bytes })
}

fn drain<T>(q: &mut NotificationQueue<T>) -> Vec<T> {
    std::iter::from_fn(|| q.pop()).collect()
}

/// Recomputes every derived field from `entries` and checks the bounds.
fn check_consistent<T>(q: &NotificationQueue<T>) {
    let mut pending = 0;
    let mut oversize = Vec::new();
    let mut subjects: BTreeMap<&str, (BTreeSet<u64>, BTreeSet<u64>, usize)> = BTreeMap::new();
    for (&seq, e) in &q.entries {
        let s = subjects.entry(&*e.subject).or_default();
        s.0.insert(seq);
        if e.charged {
            pending += e.cost;
        } else {
            oversize.push(seq);
        }
        if e.weighs() {
            s.1.insert(seq);
            s.2 += e.cost;
        }
    }
    assert_eq!(pending, q.pending_bytes);
    assert!(oversize.len() <= 1 && oversize.first().copied() == q.oversize);
    assert!(q.len() <= q.limits.max_items && q.pending_bytes <= q.limits.max_bytes);
    assert_eq!(subjects.len(), q.subjects.len());
    let (mut by_count, mut by_bytes) = (BTreeSet::new(), BTreeSet::new());
    for (name, (seqs, weighing, bytes)) in subjects {
        let state = &q.subjects[name];
        assert!(state.seqs == seqs && state.weighing == weighing && state.bytes == bytes);
        by_count.extend(state.count_key());
        by_bytes.extend(state.bytes_key());
    }
    assert!(by_count == q.index.by_count && by_bytes == q.index.by_bytes);
}

#[test]
fn defaults_and_zero_limits() {
    assert_eq!(QueueLimits::default(), QueueLimits { max_items: 1024, max_bytes: 4 << 20 });
    let mut q = queue(0, 0);
    assert_eq!(q.limits(), QueueLimits { max_items: 1, max_bytes: 1 });
    assert_eq!(q.push("a", "A", 1), Pushed::Queued);
    assert_eq!(q.push("b", "B", 1), Pushed::QueuedAfterDropping(1));
    assert_eq!((drain(&mut q), q.dropped()), (vec!["b"], 1));
}

#[test]
fn pops_in_arrival_order_and_tracks_sizes() {
    let mut q = queue(10, 100);
    assert!(q.is_empty() && q.pop().is_none());
    for (item, subject, cost) in [("a1", "A", 3), ("b1", "B", 4), ("a2", "A", 5), ("c1", "C", 0)] {
        assert_eq!(q.push(item, subject, cost), Pushed::Queued);
    }
    assert_eq!((q.len(), q.pending_bytes(), q.is_empty()), (4, 12, false));
    assert_eq!(q.pop(), Some("a1"));
    assert_eq!((q.len(), q.pending_bytes()), (3, 9));
    check_consistent(&q);
    assert_eq!(drain(&mut q), ["b1", "a2", "c1"]);
    assert_eq!((q.pending_bytes(), q.dropped()), (0, 0));
    check_consistent(&q);
}

#[test]
fn count_ceiling_drops_oldest_of_same_subject() {
    // B is busier and older, but the arrival's own subject pays first.
    let mut q = queue(3, 100);
    q.push("b1", "B", 1);
    q.push("b2", "B", 1);
    q.push("a1", "A", 1);
    assert_eq!(q.push("a2", "A", 1), Pushed::QueuedAfterDropping(1));
    assert_eq!((q.dropped(), q.pending_bytes()), (1, 3));
    assert_eq!(drain(&mut q), ["b1", "b2", "a2"]);
}

#[test]
fn count_ceiling_otherwise_drops_from_busiest_subject() {
    let mut q = queue(3, 100);
    q.push("a1", "A", 1);
    q.push("b1", "B", 1);
    q.push("b2", "B", 1);
    assert_eq!(q.push("c1", "C", 1), Pushed::QueuedAfterDropping(1));
    assert_eq!(drain(&mut q), ["a1", "b2", "c1"]);

    // A and B tie at two entries; A's oldest arrived first, so A loses it.
    let mut q = queue(4, 100);
    for (item, subject) in [("a1", "A"), ("b1", "B"), ("a2", "A"), ("b2", "B")] {
        q.push(item, subject, 1);
    }
    assert_eq!(q.push("c1", "C", 1), Pushed::QueuedAfterDropping(1));
    assert_eq!(drain(&mut q), ["b1", "a2", "b2", "c1"]);
}

#[test]
fn count_ceiling_counts_the_oversize_slot() {
    // Same subject: the oversize entry is the subject's oldest and goes.
    let mut q = queue(2, 10);
    q.push("a-big", "A", 50);
    q.push("b1", "B", 1);
    assert_eq!(q.push("a2", "A", 1), Pushed::QueuedAfterDropping(1));
    assert_eq!((q.pending_bytes(), q.oversize), (2, None));
    assert_eq!(drain(&mut q), ["b1", "a2"]);

    // Busiest by count: the oversize entry makes X the biggest subject.
    let mut q = queue(3, 10);
    q.push("x-big", "X", 50);
    q.push("b1", "B", 1);
    q.push("x1", "X", 1);
    assert_eq!(q.push("c1", "C", 1), Pushed::QueuedAfterDropping(1));
    assert_eq!(drain(&mut q), ["b1", "x1", "c1"]);
}

#[test]
fn byte_ceiling_drops_oldest_of_same_subject() {
    // B holds more bytes and arrived first, but the arrival's own subject pays first.
    let mut q = queue(100, 10);
    q.push("b1", "B", 5);
    q.push("a1", "A", 3);
    assert_eq!(q.push("a2", "A", 3), Pushed::QueuedAfterDropping(1));
    assert_eq!((q.pending_bytes(), q.dropped()), (8, 1));
    assert_eq!(drain(&mut q), ["b1", "a2"]);
}

#[test]
fn byte_ceiling_otherwise_drops_from_subject_with_most_bytes() {
    // A has the most entries but B the most bytes: B pays.
    let mut q = queue(100, 10);
    for item in ["a1", "a2", "a3"] {
        q.push(item, "A", 1);
    }
    q.push("b1", "B", 6);
    assert_eq!(q.push("c1", "C", 3), Pushed::QueuedAfterDropping(1));
    assert_eq!(q.pending_bytes(), 6);
    assert_eq!(drain(&mut q), ["a1", "a2", "a3", "c1"]);

    // Tie on bytes: the subject whose oldest entry is oldest pays.
    let mut q = queue(100, 10);
    q.push("a1", "A", 3);
    q.push("b1", "B", 3);
    assert_eq!(q.push("c1", "C", 5), Pushed::QueuedAfterDropping(1));
    assert_eq!(drain(&mut q), ["b1", "c1"]);
}

#[test]
fn byte_ceiling_evicts_until_the_arrival_fits() {
    let mut q = queue(100, 10);
    q.push("a1", "A", 3);
    q.push("b1", "B", 3);
    q.push("c1", "C", 3);
    assert_eq!(q.push("d1", "D", 10), Pushed::QueuedAfterDropping(3));
    assert_eq!((q.pending_bytes(), q.dropped()), (10, 3));
    assert_eq!(drain(&mut q), ["d1"]);
}

#[test]
fn byte_pressure_only_evicts_entries_that_weigh() {
    // The oversize entry and the free entry are not charged, so neither relieves bytes.
    let mut q = queue(100, 10);
    q.push("x-big", "X", 50);
    q.push("free", "A", 0);
    q.push("a1", "A", 6);
    assert_eq!(q.push("b1", "B", 6), Pushed::QueuedAfterDropping(1));
    assert_eq!((q.pending_bytes(), q.len()), (6, 3));
    check_consistent(&q);
    assert_eq!(drain(&mut q), ["x-big", "free", "b1"]);
}

#[test]
fn oversize_slot_holds_one_and_keeps_its_place() {
    let mut q = queue(100, 10);
    q.push("a1", "A", 1);
    assert_eq!(q.push("x1", "X", 50), Pushed::Queued);
    q.push("b1", "B", 1);
    assert_eq!(q.pending_bytes(), 2);
    // A second oversize entry, of any subject, replaces the first.
    assert_eq!(q.push("y1", "Y", 11), Pushed::QueuedAfterDropping(1));
    assert_eq!((q.len(), q.pending_bytes(), q.dropped()), (3, 2, 1));
    // A full-budget arrival clears every charged entry but leaves the uncharged slot alone.
    assert_eq!(q.push("c1", "C", 10), Pushed::QueuedAfterDropping(2));
    check_consistent(&q);
    assert_eq!(drain(&mut q), ["y1", "c1"]);
    assert_eq!(q.dropped(), 3);
}

#[test]
fn both_ceilings_in_one_push() {
    // Byte eviction first; it frees the count as well, so nothing more goes.
    let mut q = queue(2, 10);
    q.push("a1", "A", 5);
    q.push("b1", "B", 5);
    assert_eq!(q.push("c1", "C", 5), Pushed::QueuedAfterDropping(1));
    assert_eq!(drain(&mut q), ["b1", "c1"]);

    // An oversize arrival with no occupant to replace still obeys the count.
    let mut q = queue(2, 10);
    q.push("a1", "A", 1);
    q.push("b1", "B", 1);
    assert_eq!(q.push("x1", "X", 50), Pushed::QueuedAfterDropping(1));
    assert_eq!(drain(&mut q), ["b1", "x1"]);

    // Replacing the oversize occupant frees a place, so the count takes nothing more.
    let mut q = queue(2, 10);
    q.push("x1", "X", 50);
    q.push("a1", "A", 1);
    assert_eq!(q.push("y1", "Y", 50), Pushed::QueuedAfterDropping(1));
    assert_eq!(drain(&mut q), ["a1", "y1"]);
}

#[test]
fn clear_discards_without_counting() {
    let mut q = queue(2, 10);
    q.push("a1", "A", 4);
    q.push("x1", "X", 40);
    q.push("a2", "A", 4);
    assert_eq!(q.dropped(), 1);
    q.clear();
    assert!(q.is_empty() && q.pop().is_none());
    assert_eq!((q.len(), q.pending_bytes(), q.dropped()), (0, 0, 1));
    check_consistent(&q);
    assert_eq!(q.push("b1", "B", 10), Pushed::Queued);
    assert_eq!(q.push("y1", "Y", 11), Pushed::Queued);
    assert_eq!(drain(&mut q), ["b1", "y1"]);
}

#[test]
fn flood_keeps_bounds_and_quiet_subjects() {
    const PUSHES: u64 = 100_000;
    const QUIET: [&str; 4] = ["quiet-0", "quiet-1", "quiet-2", "quiet-3"];
    let limits = QueueLimits { max_items: 1000, max_bytes: 64 * 1024 };
    let mut q = NotificationQueue::new(limits);
    let (mut popped, mut last_popped) = (0u64, None);
    let (mut quiet_pushed, mut quiet_popped) = (BTreeSet::new(), BTreeSet::new());
    let mut on_pop = |id: u64, popped: &mut u64| {
        assert!(last_popped < Some(id), "pop order is arrival order");
        last_popped = Some(id);
        *popped += 1;
        id
    };
    for id in 0..PUSHES {
        // The busy subject sends most notices, large ones so bytes bind too; every 5,000 pushes a
        // quiet subject sends one, spaced so that it was popped before its next one arrives.
        let (subject, cost) = match id % 5_000 {
            n @ (0 | 1_250 | 2_500 | 3_750) => (QUIET[(n / 1_250) as usize], 100),
            n if n % 7 == 0 => ("chatty", 40),
            _ => ("busy", 60 + (id % 11) as usize * 10),
        };
        if subject.starts_with("quiet") {
            quiet_pushed.insert(id);
        }
        // The single entry of each other quiet subject queued now must survive this push.
        let quiet: Vec<u64> = QUIET
            .iter()
            .filter(|&&name| name != subject)
            .filter_map(|&name| q.subjects.get(name))
            .map(|s| {
                assert_eq!(s.seqs.len(), 1);
                s.seqs.first().copied().unwrap_or_default()
            })
            .collect();
        let busy = q.subjects.get("busy").map_or(0, |s| s.seqs.len());
        let before = q.dropped();
        match q.push(id, subject, cost) {
            Pushed::Queued => assert_eq!(q.dropped(), before),
            Pushed::QueuedAfterDropping(n) => {
                assert_eq!(q.dropped(), before + n as u64);
                assert!(busy > 1, "evictions happen while the busy subject has more");
            }
        }
        assert!(q.len() <= limits.max_items && q.pending_bytes() <= limits.max_bytes);
        for seq in quiet {
            assert!(q.entries.contains_key(&seq), "a quiet entry was evicted at push {id}");
        }
        if id % 10_000 == 0 {
            check_consistent(&q);
        }
        // The listener is slow: one pop for every two pushes.
        if id % 2 == 1 {
            if let Some(got) = q.pop() {
                if quiet_pushed.contains(&got) {
                    quiet_popped.insert(got);
                }
                on_pop(got, &mut popped);
            }
        }
    }
    assert!(q.dropped() > 10_000, "the flood forced evictions: {}", q.dropped());
    assert_eq!(q.dropped(), PUSHES - popped - q.len() as u64);
    let remaining = drain(&mut q);
    for got in remaining {
        if quiet_pushed.contains(&got) {
            quiet_popped.insert(got);
        }
        on_pop(got, &mut popped);
    }
    assert_eq!(quiet_pushed.len(), 80);
    assert_eq!(quiet_pushed, quiet_popped, "no quiet notice was evicted");
}

/// The rules restated as linear scans over a list in arrival order.
#[derive(Debug)]
struct Model {
    limits: QueueLimits,
    /// `(id, subject, cost, charged)`
    items: Vec<(u64, u8, usize, bool)>,
    dropped: u64,
}

impl Model {
    fn pending(&self) -> usize {
        self.items.iter().filter(|e| e.3).map(|e| e.2).sum()
    }

    /// The oldest entry passing `eligible` of `subject`, else of the subject with the greatest
    /// `size` (ties: the subject whose oldest eligible entry is oldest).
    fn victim(
        &self,
        subject: u8,
        eligible: impl Fn(&(u64, u8, usize, bool)) -> bool,
        size: fn(usize) -> usize,
    ) -> usize {
        let candidates: Vec<usize> = (0..self.items.len()).filter(|&i| eligible(&self.items[i])).collect();
        if let Some(&i) = candidates.iter().find(|&&i| self.items[i].1 == subject) {
            return i;
        }
        let total = |s: u8| {
            candidates
                .iter()
                .filter(|&&i| self.items[i].1 == s)
                .map(|&i| size(self.items[i].2))
                .sum::<usize>()
        };
        let mut best: Option<(usize, usize)> = None;
        for &i in &candidates {
            let t: usize = total(self.items[i].1);
            if best.is_none_or(|(bt, _)| t > bt) {
                best = Some((t, i));
            }
        }
        best.map(|(_, i)| i).unwrap_or_default()
    }

    fn push(&mut self, id: u64, subject: u8, cost: usize) -> Pushed {
        let before = self.dropped;
        let charged = cost <= self.limits.max_bytes;
        if charged {
            while self.pending() + cost > self.limits.max_bytes {
                let i = self.victim(subject, |e| e.3 && e.2 > 0, |c| c);
                self.items.remove(i);
                self.dropped += 1;
            }
        } else if let Some(i) = self.items.iter().position(|e| !e.3) {
            self.items.remove(i);
            self.dropped += 1;
        }
        if self.items.len() >= self.limits.max_items {
            let i = self.victim(subject, |_| true, |_| 1);
            self.items.remove(i);
            self.dropped += 1;
        }
        self.items.push((id, subject, cost, charged));
        match self.dropped - before {
            0 => Pushed::Queued,
            n => Pushed::QueuedAfterDropping(n as usize),
        }
    }
}

#[derive(Debug, Clone)]
enum Op {
    Push { subject: u8, cost: usize },
    Pop,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0u8..4, prop_oneof![3 => 0usize..8, 1 => 0usize..30]).prop_map(|(subject, cost)| Op::Push { subject, cost }),
        1 => Just(Op::Pop),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_sequences_keep_invariants_and_match_model(
        max_items in 0usize..7,
        max_bytes in 0usize..25,
        ops in prop::collection::vec(op(), 0..120),
    ) {
        let mut q = NotificationQueue::new(QueueLimits { max_items, max_bytes });
        let mut model = Model { limits: q.limits(), items: Vec::new(), dropped: 0 };
        let (mut pushed, mut popped, mut last) = (0u64, 0u64, None);
        for op in ops {
            match op {
                Op::Push { subject, cost } => {
                    let got = q.push(pushed, &format!("s{subject}"), cost);
                    prop_assert_eq!(got, model.push(pushed, subject, cost));
                    pushed += 1;
                }
                Op::Pop => {
                    let got = q.pop();
                    prop_assert_eq!(got, (!model.items.is_empty()).then(|| model.items.remove(0).0));
                    if let Some(id) = got {
                        prop_assert!(last < Some(id), "arrival order");
                        last = Some(id);
                        popped += 1;
                    }
                }
            }
            check_consistent(&q);
            prop_assert!(q.len() <= q.limits().max_items);
            prop_assert!(q.pending_bytes() <= q.limits().max_bytes);
            prop_assert!(q.entries.values().filter(|e| !e.charged).count() <= 1);
            prop_assert_eq!(pushed, popped + q.len() as u64 + q.dropped());
            prop_assert_eq!((q.len(), q.pending_bytes(), q.dropped()), (model.items.len(), model.pending(), model.dropped));
        }
        let survivors: Vec<u64> = model.items.iter().map(|e| e.0).collect();
        prop_assert_eq!(drain(&mut q), survivors);
    }
}

#[test]
fn notifications_are_charged_by_subject_and_retained_bytes() {
    use crate::event::Notification;
    let (subject, cost) = super::charge(&Notification::ResourceUpdated { uri: "file:///a".into() });
    assert_eq!(subject, "notifications/resources/updated\u{0}file:///a");
    assert_eq!(cost, "notifications/resources/updated".len() + "file:///a".len());
    let other = Notification::Other {
        method: "notifications/tasks".into(),
        params: serde_json::json!({"taskId": "t"}),
    };
    let (subject, cost) = super::charge(&other);
    assert_eq!(subject, "notifications/tasks\u{0}t");
    assert_eq!(cost, "notifications/tasks".len() + r#"{"taskId":"t"}"#.len());
}
