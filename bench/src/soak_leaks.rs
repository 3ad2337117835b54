//! What the fault soak watches for leaks: this process's open file descriptors
//! (`/proc/self/fd`), threads (`Threads:` of `/proc/self/status`) and resident set (`VmRSS`),
//! sampled at a baseline, continuously for the peak, and at the end.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// One sample of the process's resources (0 where unknown: not Linux).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// Open file descriptors.
    pub fds: u64,
    /// Threads.
    pub threads: u64,
    /// Resident set, KiB.
    pub rss_kib: u64,
}

impl Usage {
    /// Samples now.
    pub fn now() -> Usage {
        // The directory listing holds one descriptor of its own while it runs: not counted.
        let fds = std::fs::read_dir("/proc/self/fd").map(|d| d.count().saturating_sub(1) as u64).unwrap_or(0);
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        let field = |name: &str| -> u64 {
            status
                .lines()
                .find_map(|l| l.strip_prefix(name))
                .and_then(|v| v.split_whitespace().next()?.parse().ok())
                .unwrap_or(0)
        };
        Usage { fds, threads: field("Threads:"), rss_kib: field("VmRSS:") }
    }

    /// The larger of each figure.
    pub fn max(self, other: Usage) -> Usage {
        Usage {
            fds: self.fds.max(other.fds),
            threads: self.threads.max(other.threads),
            rss_kib: self.rss_kib.max(other.rss_kib),
        }
    }

    /// Whether descriptors and threads are back to `baseline` (or below).
    pub fn within(self, baseline: Usage) -> bool {
        self.fds <= baseline.fds && self.threads <= baseline.threads
    }
}

/// What this process's descriptors point at (`socket:[inode]`, `pipe:[inode]`, paths), for
/// saying which ones a run left open.
pub fn open_files() -> Vec<String> {
    let Ok(dir) = std::fs::read_dir("/proc/self/fd") else { return Vec::new() };
    let mut files: Vec<String> = dir
        .filter_map(|e| std::fs::read_link(e.ok()?.path()).ok())
        .map(|p| p.display().to_string())
        .collect();
    files.sort();
    files
}

/// The entries of `after` not in `before` (as many times as they are more).
pub fn added(before: &[String], after: &[String]) -> Vec<String> {
    let mut left: Vec<&String> = before.iter().collect();
    after
        .iter()
        .filter(|f| match left.iter().position(|b| b == f) {
            Some(i) => {
                left.swap_remove(i);
                false
            }
            None => true,
        })
        .cloned()
        .collect()
}

/// A thread sampling [`Usage`] every 20 ms for the peak, until stopped.
#[derive(Debug)]
pub struct PeakSampler {
    stop: Arc<AtomicBool>,
    peak: Arc<Mutex<Usage>>,
    thread: Option<JoinHandle<()>>,
}

impl PeakSampler {
    /// Starts sampling, the peak starting at `from`.
    pub fn start(from: Usage) -> PeakSampler {
        let (stop, peak) = (Arc::new(AtomicBool::new(false)), Arc::new(Mutex::new(from)));
        let (stopping, max) = (stop.clone(), peak.clone());
        let thread = thread::spawn(move || {
            // At least one sample, however soon it is stopped.
            loop {
                let now = Usage::now();
                let mut peak = max.lock().unwrap_or_else(|e| e.into_inner());
                *peak = peak.max(now);
                drop(peak);
                if stopping.load(Ordering::Relaxed) {
                    return;
                }
                thread::sleep(Duration::from_millis(20));
            }
        });
        PeakSampler { stop, peak, thread: Some(thread) }
    }

    /// Stops (joining the thread) and gives the peak.
    pub fn finish(mut self) -> Usage {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
        *self.peak.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Waits (at most `bound`, `idle` letting each 50 ms pass) until descriptors and threads are
/// back to `baseline`; the last sample either way.
pub fn settle(baseline: Usage, bound: Duration, idle: impl Fn(Duration)) -> Usage {
    let until = Instant::now() + bound;
    loop {
        let now = Usage::now();
        if now.within(baseline) || Instant::now() >= until {
            return now;
        }
        idle(Duration::from_millis(50));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The other tests of this binary open descriptors and threads at the same time, so the
    // figures of this process are only checked for being read, never compared.
    #[test]
    fn samples_this_process() {
        let now = Usage::now();
        assert!(now.fds > 0 && now.threads > 0 && now.rss_kib > 0, "{now:?}");
    }

    #[test]
    fn the_peak_never_falls_below_where_it_started() {
        let high = Usage { fds: u64::MAX, threads: u64::MAX, rss_kib: u64::MAX };
        assert_eq!(PeakSampler::start(high).finish(), high);
        let peak = PeakSampler::start(Usage::default()).finish();
        assert!(peak.fds > 0 && peak.threads > 0, "sampled at least once: {peak:?}");
    }

    #[test]
    fn says_which_descriptors_were_added() {
        assert!(open_files().iter().any(|f| f.starts_with('/') || f.contains(':')));
        let (before, after) = (["a", "b", "b"].map(String::from), ["b", "c", "b", "b"].map(String::from));
        assert_eq!(added(&before, &after), ["c", "b"]);
    }

    #[test]
    fn compares_with_a_baseline() {
        let base = Usage { fds: 10, threads: 5, rss_kib: 100 };
        assert!(base.within(base) && Usage { rss_kib: 999, ..base }.within(base));
        assert!(!Usage { fds: 11, ..base }.within(base) && !Usage { threads: 6, ..base }.within(base));
        let max = base.max(Usage { fds: 3, threads: 9, rss_kib: 100 });
        assert_eq!(max, Usage { fds: 10, threads: 9, rss_kib: 100 });
        // Already within a baseline this high: settles at once (a hang here is the failure).
        let settled = settle(
            Usage { fds: u64::MAX, threads: u64::MAX, rss_kib: 0 },
            Duration::from_secs(3600),
            thread::sleep,
        );
        assert!(settled.fds > 0 && settled.threads > 0);
    }
}
