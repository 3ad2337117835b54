//! The fault soak's watchdog: every call in flight is registered with its start, and a call
//! still unanswered long after its timeout ends the whole run (a call that never returns is
//! the one failure that cannot be counted).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// The calls in flight.
#[derive(Debug, Default)]
pub struct InFlight {
    next: AtomicU64,
    calls: Mutex<BTreeMap<u64, (Instant, String)>>,
}

/// A registered call; dropping it marks the call ended.
#[derive(Debug)]
pub struct Ticket<'a> {
    id: u64,
    flight: &'a InFlight,
}

impl InFlight {
    /// Registers a call (`what` names it in the watchdog's message).
    pub fn start(&self, what: String) -> Ticket<'_> {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        self.calls.lock().unwrap_or_else(|e| e.into_inner()).insert(id, (Instant::now(), what));
        Ticket { id, flight: self }
    }

    /// The oldest call in flight: its age and name.
    pub fn oldest(&self) -> Option<(Duration, String)> {
        let calls = self.calls.lock().unwrap_or_else(|e| e.into_inner());
        calls.values().min_by_key(|(at, _)| *at).map(|(at, what)| (at.elapsed(), what.clone()))
    }
}

impl Drop for Ticket<'_> {
    fn drop(&mut self) {
        self.flight.calls.lock().unwrap_or_else(|e| e.into_inner()).remove(&self.id);
    }
}

/// Watches an [`InFlight`]: when a call has been in flight longer than `limit`, prints what
/// and exits the process with status 1 (the report's last line says why).
#[derive(Debug)]
pub struct Watchdog {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Watchdog {
    /// Starts watching `flight` for the run `label`.
    pub fn start(label: String, flight: Arc<InFlight>, limit: Duration) -> Watchdog {
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = stop.clone();
        let thread = thread::spawn(move || {
            while !stopping.load(Ordering::Relaxed) {
                if let Some((age, what)) = flight.oldest().filter(|(age, _)| *age > limit) {
                    let why = format!("watchdog: {label}: {what} never returned ({age:?} in flight)");
                    eprintln!("mcp-bench soak: {why}");
                    println!("soak: FAILED ({why})");
                    std::process::exit(1);
                }
                thread::sleep(Duration::from_millis(100));
            }
        });
        Watchdog { stop, thread: Some(thread) }
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tickets_register_and_end_calls() {
        let flight = InFlight::default();
        assert!(flight.oldest().is_none());
        let first = flight.start("first".into());
        let second = flight.start("second".into());
        assert_eq!(flight.oldest().map(|(_, what)| what), Some("first".to_owned()));
        drop(first);
        assert_eq!(flight.oldest().map(|(_, what)| what), Some("second".to_owned()));
        drop(second);
        assert!(flight.oldest().is_none());
    }
}
