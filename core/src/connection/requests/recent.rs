//! The wire ids of the requests finished last: a response to one of them is late rather than
//! unknown. Remembered on every response, so both steps are cheap: a FIFO for the order and a
//! hash set (keyed by our own integer ids, hashed by one multiplication) for lookups.

use std::collections::{HashSet, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};

/// The last `limit` finished wire ids (all from [`crate::jsonrpc::WireId::from_int`]).
#[derive(Debug, Default)]
pub(super) struct RecentIds {
    order: VecDeque<u64>,
    set: HashSet<u64, BuildHasherDefault<IdHasher>>,
}

impl RecentIds {
    /// Remembers `id`, forgetting the oldest beyond `limit`.
    pub(super) fn remember(&mut self, id: u64, limit: usize) {
        if self.set.insert(id) {
            self.order.push_back(id);
            while self.order.len() > limit {
                if let Some(old) = self.order.pop_front() {
                    self.set.remove(&old);
                }
            }
        }
    }

    /// Whether `id` is among the remembered.
    pub(super) fn contains(&self, id: u64) -> bool {
        self.set.contains(&id)
    }
}

/// A hasher for the client's own sequential integer ids (never chosen by a server: a server's
/// ids are only looked up): Fibonacci hashing, no per-process seed, no OS randomness.
#[derive(Debug, Default)]
struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0 ^ n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_last_ids_up_to_the_limit() {
        let mut recent = RecentIds::default();
        for id in [5, 1, 9, 1, 7] {
            recent.remember(id, 3);
        }
        // 1 was remembered once; 5, the oldest, is gone.
        assert!(!recent.contains(5));
        assert!([1, 9, 7].iter().all(|id| recent.contains(*id)));
        recent.remember(2, 3);
        assert!(!recent.contains(1) && recent.contains(2));
        recent.remember(3, 0);
        assert!(!recent.contains(3) && !recent.contains(9));
    }
}
