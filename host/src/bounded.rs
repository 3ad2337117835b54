//! Bounded concurrency, the two shapes every family needs: [`JoinBounded`] (async: futures
//! polled inside the caller's future, at most N at a time) and [`run_bounded`] (blocking: jobs
//! on at most N threads, the caller's included). Batch tool calls and the client-wide fan-out
//! over servers (`Client::connect`, `list_tools`, the catalog, routing) both stand on them.
//!
//! `JoinBounded` is written here rather than taken from `futures-util` (`buffered`): that crate
//! is in no family's dependency tree, and `futures-lite` (which is) joins only pairs.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;
use std::task::{Context, Poll};

/// Runs futures with at most `limit` polled at a time and gives their outputs in input order.
/// A future not yet started is not polled (so it has sent nothing).
#[derive(Debug)]
pub struct JoinBounded<F: Future> {
    waiting: VecDeque<(usize, F)>,
    running: Vec<(usize, Pin<Box<F>>)>,
    outputs: Vec<Option<F::Output>>,
    limit: usize,
}

impl<F: Future> JoinBounded<F> {
    /// At most `limit` (at least 1) of `futures` in flight.
    pub fn new(futures: impl IntoIterator<Item = F>, limit: usize) -> Self {
        let waiting: VecDeque<(usize, F)> = futures.into_iter().enumerate().collect();
        let outputs = waiting.iter().map(|_| None).collect();
        Self { waiting, running: Vec::new(), outputs, limit: limit.max(1) }
    }
}

impl<F: Future> Unpin for JoinBounded<F> {}

impl<F: Future> Future for JoinBounded<F> {
    type Output = Vec<F::Output>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        loop {
            while this.running.len() < this.limit {
                let Some((index, future)) = this.waiting.pop_front() else { break };
                this.running.push((index, Box::pin(future)));
            }
            let mut finished = false;
            let outputs = &mut this.outputs;
            this.running.retain_mut(|(index, future)| match future.as_mut().poll(cx) {
                Poll::Ready(output) => {
                    outputs[*index] = Some(output);
                    finished = true;
                    false
                }
                Poll::Pending => true,
            });
            if this.running.is_empty() && this.waiting.is_empty() {
                let outputs = std::mem::take(&mut this.outputs);
                return Poll::Ready(outputs.into_iter().map(|o| o.expect("every future finished")).collect());
            }
            // A finished future freed a slot: start the next ones now rather than on a wake.
            if !finished || this.waiting.is_empty() {
                return Poll::Pending;
            }
        }
    }
}

/// Runs `jobs` on at most `limit` threads at once and gives their outputs in input order. The
/// calling thread is one of them: it takes jobs too, and `limit - 1` scoped threads help it
/// (none for a single job or a limit of 1, so a lone job runs on the caller). A helper thread
/// the OS refuses to start only means fewer helpers.
pub fn run_bounded<T, J>(jobs: Vec<J>, limit: usize) -> Vec<T>
where
    T: Send,
    J: FnOnce() -> T + Send,
{
    let count = jobs.len();
    let queue = Mutex::new(jobs.into_iter().enumerate().collect::<VecDeque<_>>());
    let outputs: Mutex<Vec<Option<T>>> = Mutex::new((0..count).map(|_| None).collect());
    let work = || loop {
        let next = queue.lock().unwrap_or_else(|e| e.into_inner()).pop_front();
        let Some((index, job)) = next else { break };
        let output = job();
        outputs.lock().unwrap_or_else(|e| e.into_inner())[index] = Some(output);
    };
    std::thread::scope(|scope| {
        for _ in 1..limit.max(1).min(count) {
            let helper = std::thread::Builder::new().name("mcp-bounded".into());
            if helper.spawn_scoped(scope, work).is_err() {
                break;
            }
        }
        work();
    });
    let outputs = outputs.into_inner().unwrap_or_else(|e| e.into_inner());
    outputs.into_iter().map(|o| o.expect("every job ran")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use std::task::Waker;

    fn block_on<F: Future>(future: F) -> F::Output {
        struct Noop;
        impl std::task::Wake for Noop {
            fn wake(self: Arc<Self>) {}
        }
        let waker = Waker::from(Arc::new(Noop));
        let mut cx = Context::from_waker(&waker);
        let mut future = Box::pin(future);
        loop {
            if let Poll::Ready(v) = future.as_mut().poll(&mut cx) {
                return v;
            }
        }
    }

    /// A future that is pending `n` times, counting how many are in flight at once.
    struct Slow {
        left: usize,
        value: usize,
        live: Arc<AtomicUsize>,
        peak: Arc<AtomicUsize>,
        started: bool,
    }

    impl Future for Slow {
        type Output = usize;
        fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<usize> {
            if !self.started {
                self.started = true;
                let now = self.live.fetch_add(1, Ordering::SeqCst) + 1;
                self.peak.fetch_max(now, Ordering::SeqCst);
            }
            if self.left == 0 {
                self.live.fetch_sub(1, Ordering::SeqCst);
                return Poll::Ready(self.value);
            }
            self.left -= 1;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }

    #[test]
    fn join_bounded_keeps_order_and_bound() {
        let (live, peak) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let futures: Vec<Slow> = (0..20)
            .map(|i| Slow { left: 20 - i, value: i, live: live.clone(), peak: peak.clone(), started: false })
            .collect();
        let out = block_on(JoinBounded::new(futures, 3));
        assert_eq!(out, (0..20).collect::<Vec<_>>());
        assert_eq!(peak.load(Ordering::SeqCst), 3);
        assert!(block_on(JoinBounded::new(Vec::<Slow>::new(), 3)).is_empty());
    }

    #[test]
    fn run_bounded_keeps_order_and_bound() {
        let (live, peak) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let jobs: Vec<_> = (0..16)
            .map(|i| {
                let (live, peak) = (live.clone(), peak.clone());
                move || {
                    let now = live.fetch_add(1, Ordering::SeqCst) + 1;
                    peak.fetch_max(now, Ordering::SeqCst);
                    std::thread::sleep(std::time::Duration::from_millis(5));
                    live.fetch_sub(1, Ordering::SeqCst);
                    i * 2
                }
            })
            .collect();
        assert_eq!(run_bounded(jobs, 4), (0..16).map(|i| i * 2).collect::<Vec<_>>());
        assert!(peak.load(Ordering::SeqCst) <= 4);
    }

    #[test]
    fn run_bounded_runs_a_lone_job_or_a_limit_of_one_on_the_caller() {
        let caller = std::thread::current().id();
        let on_caller = |n: usize, limit: usize| {
            let jobs: Vec<_> = (0..n).map(|_| || std::thread::current().id() == caller).collect();
            run_bounded(jobs, limit)
        };
        assert_eq!(on_caller(1, 16), [true]);
        assert_eq!(on_caller(3, 1), [true, true, true]);
        assert_eq!(on_caller(3, 0), [true, true, true], "0 counts as 1");
        assert!(on_caller(0, 4).is_empty());
    }

    /// Jobs that each wait until all of them have started finish in time only if they run at
    /// once (a generous timeout makes a sequential run fail instead of hang).
    #[test]
    fn run_bounded_runs_up_to_limit_jobs_at_once() {
        let started = Arc::new((Mutex::new(0usize), std::sync::Condvar::new()));
        let jobs: Vec<_> = (0..3)
            .map(|_| {
                let started = started.clone();
                move || {
                    let (count, changed) = &*started;
                    let mut count = count.lock().unwrap();
                    *count += 1;
                    changed.notify_all();
                    let timeout = std::time::Duration::from_secs(30);
                    let (count, _) = changed.wait_timeout_while(count, timeout, |c| *c < 3).unwrap();
                    *count >= 3
                }
            })
            .collect();
        assert_eq!(run_bounded(jobs, 3), [true, true, true]);
    }
}
