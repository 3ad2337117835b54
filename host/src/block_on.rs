//! [`block_on`]: runs a future to completion on the calling thread. The blocking family runs
//! the shared (async) API code with it; its primitives complete where they are called, so the
//! thread parks only for what is woken through a waker (a listen stream's inbox).

use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, Thread};

/// Wakes the thread that polls.
struct Unpark(Thread);

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.unpark();
    }
}

/// Polls `future` on this thread until it completes, parking between wake-ups.
pub fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    // The blocking family's requests complete in their first poll: that one needs no waker of
    // its own (a future left pending is polled again below with one, so nothing is missed).
    if let Poll::Ready(output) = future.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        return output;
    }
    let waker = Waker::from(Arc::new(Unpark(thread::current())));
    let mut cx = Context::from_waker(&waker);
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return output;
        }
        // A wake-up that came before the park makes the park return at once.
        thread::park();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// Pending until another thread sets the value and wakes the last waker.
    #[derive(Default)]
    struct Shared {
        value: Option<u32>,
        waker: Option<Waker>,
    }

    #[test]
    fn a_future_woken_from_another_thread_completes() {
        let shared = Arc::new(Mutex::new(Shared::default()));
        let setter = shared.clone();
        let handle = thread::spawn(move || {
            thread::sleep(std::time::Duration::from_millis(20));
            let mut s = setter.lock().unwrap();
            s.value = Some(7);
            if let Some(w) = s.waker.take() {
                w.wake();
            }
        });
        let value = block_on(std::future::poll_fn(|cx| {
            let mut s = shared.lock().unwrap();
            match s.value {
                Some(v) => Poll::Ready(v),
                None => {
                    s.waker = Some(cx.waker().clone());
                    Poll::Pending
                }
            }
        }));
        assert_eq!(value, 7);
        handle.join().unwrap();
    }

    #[test]
    fn a_ready_future_returns_at_once() {
        assert_eq!(block_on(std::future::ready(3)), 3);
    }
}
