//! A process-wide pool of worker threads for short or long jobs (HTTP exchanges, handler
//! calls): a job goes to an idle worker when there is one and to a fresh thread otherwise,
//! so the pool never makes a job wait for another. A worker that stays idle for
//! [`IDLE_TIMEOUT`] exits, so an idle process keeps no threads around for long.
//!
//! Reusing threads matters for speed: spawning a thread per HTTP exchange cost two `clone3`
//! calls and a stack setup per tool call, more than the exchange itself on loopback.

use std::cell::Cell;
use std::collections::VecDeque;
use std::io;
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

/// How long an idle worker waits for a job before it exits.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(10);

/// One unit of work; it may [`Release`] its worker before it ends.
type Job = Box<dyn FnOnce(&Release<'_>) + Send + 'static>;

/// The pool's shared state: queued jobs and the number of workers available for one.
#[derive(Default)]
struct State {
    queue: VecDeque<Job>,
    /// Workers waiting for a job, plus workers whose job released them (they take the next
    /// queued job as soon as theirs returns).
    available: usize,
}

/// The pool: its state and the condition idle workers wait on.
struct Pool {
    state: Mutex<State>,
    job_ready: Condvar,
    idle_timeout: Duration,
}

/// Given to a running job: [`release`](Self::release) declares that what is left of the job
/// is short, so the next job may be queued for this worker instead of getting a new thread.
pub struct Release<'a> {
    pool: &'a Pool,
    done: Cell<bool>,
}

impl Release<'_> {
    /// Makes this worker available to the next job. A job calls it just before its last,
    /// short step when that step wakes whoever submits the next job (the outcome that lets a
    /// caller issue its next request): without it, the next job would find no idle worker.
    /// Idempotent.
    pub fn release(&self) {
        if !self.done.replace(true) {
            self.pool.lock().available += 1;
        }
    }
}

/// Runs `job` on a pooled thread. Fails only if no worker was available and a new thread
/// could not be started (the job is then dropped unrun).
pub fn run<F: FnOnce(&Release<'_>) + Send + 'static>(job: F) -> io::Result<()> {
    static POOL: OnceLock<&'static Pool> = OnceLock::new();
    let pool = POOL.get_or_init(|| Box::leak(Box::new(Pool::new(IDLE_TIMEOUT))));
    pool.submit(Box::new(job))
}

impl Pool {
    fn new(idle_timeout: Duration) -> Self {
        Self { state: Mutex::default(), job_ready: Condvar::new(), idle_timeout }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A job never runs under the lock, so a poisoned lock still holds consistent state.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Hands `job` to an available worker, or starts a worker with it.
    fn submit(&'static self, job: Job) -> io::Result<()> {
        let mut state = self.lock();
        // Every available worker takes one queued job; a job beyond them gets a new thread
        // (the job moves into it, never through the queue, so a failed start drops exactly
        // this job).
        if state.queue.len() < state.available {
            state.queue.push_back(job);
            drop(state);
            self.job_ready.notify_one();
            return Ok(());
        }
        drop(state);
        thread::Builder::new().name("mcp-worker".into()).spawn(move || self.work(job)).map(drop)
    }

    /// A worker's life: run its job, then queued jobs, waiting idle for more; exit after the
    /// idle timeout.
    fn work(&self, first: Job) {
        let mut job = first;
        loop {
            let release = Release { pool: self, done: Cell::new(false) };
            job(&release);
            let mut state = self.lock();
            if !release.done.get() {
                state.available += 1;
            }
            match self.next_job(state) {
                Some(next) => job = next,
                None => return,
            }
        }
    }

    /// Waits (counted available) for a queued job, up to the idle timeout.
    fn next_job(&self, mut state: MutexGuard<'_, State>) -> Option<Job> {
        let idle_until = Instant::now() + self.idle_timeout;
        loop {
            if let Some(job) = state.queue.pop_front() {
                state.available -= 1;
                return Some(job);
            }
            let left = idle_until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                state.available -= 1;
                return None;
            }
            state = self.job_ready.wait_timeout(state, left).unwrap_or_else(PoisonError::into_inner).0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{mpsc, Arc, Barrier};

    fn pool(idle_timeout: Duration) -> &'static Pool {
        Box::leak(Box::new(Pool::new(idle_timeout)))
    }

    #[test]
    fn a_sequence_of_jobs_reuses_one_thread() {
        let pool = pool(Duration::from_secs(5));
        let (tx, rx) = mpsc::channel();
        let mut threads = Vec::new();
        for _ in 0..20 {
            let tx = tx.clone();
            pool.submit(Box::new(move |_: &Release<'_>| tx.send(thread::current().id()).unwrap())).unwrap();
            threads.push(rx.recv().unwrap());
            // Let the worker get back to waiting before the next job.
            while pool.lock().available == 0 {
                thread::yield_now();
            }
        }
        threads.dedup();
        assert_eq!(threads.len(), 1, "one worker ran every job");
    }

    #[test]
    fn a_released_worker_takes_the_job_submitted_before_its_own_ends() {
        let pool = pool(Duration::from_secs(5));
        let (released_tx, released) = mpsc::channel();
        let (finish_tx, finish) = mpsc::channel::<()>();
        let (ids_tx, ids) = mpsc::channel();
        let first_ids = ids_tx.clone();
        pool.submit(Box::new(move |worker: &Release<'_>| {
            worker.release();
            released_tx.send(()).unwrap();
            finish.recv().unwrap();
            first_ids.send(thread::current().id()).unwrap();
        }))
        .unwrap();
        released.recv().unwrap();
        pool.submit(Box::new(move |_: &Release<'_>| ids_tx.send(thread::current().id()).unwrap())).unwrap();
        finish_tx.send(()).unwrap();
        let (first, second) = (ids.recv().unwrap(), ids.recv().unwrap());
        assert_eq!(first, second, "the second job waited for the released worker");
        assert_eq!(pool.lock().queue.len(), 0);
    }

    #[test]
    fn blocked_jobs_never_delay_a_new_one() {
        let pool = pool(Duration::from_secs(5));
        let gate = Arc::new(Barrier::new(9));
        for _ in 0..8 {
            let gate = gate.clone();
            pool.submit(Box::new(move |_: &Release<'_>| {
                gate.wait();
            }))
            .unwrap();
        }
        // All eight jobs block until the ninth party arrives: each must have a thread.
        gate.wait();
    }

    #[test]
    fn idle_workers_exit_and_later_jobs_still_run() {
        let pool = pool(Duration::from_millis(20));
        let ran = Arc::new(AtomicUsize::new(0));
        let count = ran.clone();
        pool.submit(Box::new(move |_: &Release<'_>| {
            count.fetch_add(1, Ordering::SeqCst);
        }))
        .unwrap();
        let deadline = Instant::now() + Duration::from_secs(5);
        let wait_for = |done: &dyn Fn() -> bool| {
            while !done() && Instant::now() < deadline {
                thread::sleep(Duration::from_millis(1));
            }
        };
        wait_for(&|| ran.load(Ordering::SeqCst) == 1 && pool.lock().available == 1);
        assert_eq!(pool.lock().available, 1, "the worker waits for more work");
        wait_for(&|| pool.lock().available == 0);
        assert_eq!(pool.lock().available, 0, "the idle worker exited");
        let (tx, rx) = mpsc::channel();
        pool.submit(Box::new(move |_: &Release<'_>| tx.send(()).unwrap())).unwrap();
        rx.recv_timeout(Duration::from_secs(5)).expect("a job after the pool emptied runs");
    }
}
