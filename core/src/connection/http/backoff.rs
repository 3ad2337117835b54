//! Delays on an HTTP link: the server's `retry` hint, reconnection backoff, and jitter.

use std::time::Duration;

/// How long a reconnection of the legacy event stream waits when the server gave no `retry`.
pub(super) const DEFAULT_RECONNECT: Duration = Duration::from_secs(1);
/// Longest wait between reconnection attempts of the legacy event stream.
const MAX_RECONNECT: Duration = Duration::from_secs(30);

/// Delays: the server's `retry` hint (kept for the connection's lifetime) and jitter.
#[derive(Debug)]
pub(super) struct Backoff {
    /// The server's `retry`, in milliseconds.
    retry_ms: Option<u64>,
    rng: SplitMix64,
}

impl Backoff {
    /// No `retry` heard yet; jitter seeded by `seed`.
    pub(super) fn new(seed: u64) -> Self {
        Self { retry_ms: None, rng: SplitMix64(seed) }
    }

    /// A delay with ±25% jitter.
    pub(super) fn jittered(&mut self, base: Duration) -> Duration {
        let quarter = base / 4;
        let spread = quarter.as_millis() as u64 * 2;
        let offset = if spread == 0 { 0 } else { self.rng.next() % (spread + 1) };
        base - quarter + Duration::from_millis(offset)
    }

    /// Remembers the server's `retry`, if an exchange carried one.
    pub(super) fn note(&mut self, retry_ms: Option<u64>) {
        if let Some(ms) = retry_ms {
            self.retry_ms = Some(ms);
        }
    }

    /// The wait before reconnecting an event stream: the server's `retry`, or an exponential
    /// backoff with jitter after `failures` failures in a row.
    pub(super) fn reconnect_delay(&mut self, failures: u32) -> Duration {
        match self.retry_ms {
            Some(ms) => Duration::from_millis(ms),
            None => {
                let base = (DEFAULT_RECONNECT * (1 << failures.min(5))).min(MAX_RECONNECT);
                self.jittered(base)
            }
        }
    }
}

/// A small deterministic generator for jitter, seeded by the configuration.
#[derive(Debug, Clone)]
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}
