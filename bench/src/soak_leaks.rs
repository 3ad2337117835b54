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
            while !stopping.load(Ordering::Relaxed) {
                let now = Usage::now();
                let mut peak = max.lock().unwrap_or_else(|e| e.into_inner());
                *peak = peak.max(now);
                drop(peak);
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

/// Waits (at most `bound`) until descriptors and threads are back to `baseline`; the last
/// sample either way.
pub fn settle(baseline: Usage, bound: Duration) -> Usage {
    let until = Instant::now() + bound;
    loop {
        let now = Usage::now();
        if now.within(baseline) || Instant::now() >= until {
            return now;
        }
        thread::sleep(Duration::from_millis(50));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_this_process_and_sees_a_new_thread_and_descriptor() {
        let before = Usage::now();
        assert!(before.fds > 0 && before.threads > 0 && before.rss_kib > 0, "{before:?}");
        let file = std::fs::File::open("/proc/self/status").unwrap();
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let held = thread::spawn(move || rx.recv());
        let sampler = PeakSampler::start(before);
        let during = Usage::now();
        assert!(during.fds > before.fds && during.threads > before.threads, "{before:?} {during:?}");
        let peak = sampler.finish();
        assert!(peak.fds >= during.fds && peak.threads >= during.threads, "{peak:?} {during:?}");
        drop((file, tx));
        let _ = held.join();
        assert!(!during.within(before));
        let max = before.max(Usage { fds: 0, threads: 0, rss_kib: u64::MAX });
        assert_eq!((max.fds, max.rss_kib), (before.fds, u64::MAX));
    }
}
