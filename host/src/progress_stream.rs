//! [`ProgressStream`]: a request's progress notifications, then its outcome, as a `Stream`
//! (async client) or an `Iterator` (blocking client) — the other way to read progress than a
//! callback ([`RequestBuilder::on_progress`]).

use std::collections::VecDeque;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::{Arc, Condvar, Mutex};
use std::task::{Context, Poll, Waker};
use std::thread::JoinHandle;

use mcpwire_core::calls::Call;
use mcpwire_core::{ClientError, Progress};

use crate::block_on::block_on;
use crate::client::Client;
use crate::family::{BoxFuture, Family};
use crate::request_builder::{RequestBuilder, Target};
use crate::server::Server;
use crate::style::{Awaiting, Returning};

/// One update of a request read as a [`ProgressStream`].
#[derive(Debug)]
pub enum RequestUpdate<T> {
    /// A progress notification.
    Progress(Progress),
    /// The outcome (the last update).
    Done(Result<T, ClientError>),
}

/// The progress of one request, then its outcome, then the end: a `Stream` for async clients
/// (the request runs while the stream is polled; dropping the stream cancels it), an
/// `Iterator` for the blocking client (the request runs on a thread of its own from the first
/// `next`).
#[must_use = "the request runs only while the stream is read"]
pub struct ProgressStream<F: Family, T> {
    call: Option<BoxFuture<'static, ()>>,
    feed: Arc<UpdateFeed<T>>,
    thread: Option<JoinHandle<()>>,
    family: PhantomData<fn() -> F>,
}

impl<F: Family, T> std::fmt::Debug for ProgressStream<F, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProgressStream").field("started", &self.call.is_none()).finish_non_exhaustive()
    }
}

/// A server or a client, owned, so a streamed request can outlive the borrow it was built on.
enum OwnedTarget<F: Family> {
    Server(Server<F>),
    Client(Client<F>, Option<String>),
}

impl<'a, F: Family, K> RequestBuilder<'a, F, K>
where
    K: Call + Send + 'static,
    K::Output: Send + 'static,
{
    /// Reads the request's progress as a stream of [`RequestUpdate`]s ending with its outcome,
    /// instead of a callback (it replaces one set with [`on_progress`](Self::on_progress)).
    pub fn stream(self) -> ProgressStream<F, K::Output> {
        let feed = Arc::new(UpdateFeed::default());
        let Self { target, call, mut opts, progress: _, cancel } = self;
        opts.progress = true;
        let progress = {
            let sink = feed.clone();
            Some(Arc::new(move |p| sink.push(p)) as crate::dispatch::ProgressFn)
        };
        let owned = match target {
            Target::Server(server) => OwnedTarget::Server(server.clone()),
            Target::Client(client, named) => OwnedTarget::Client(client.clone(), named),
        };
        let sink = feed.clone();
        let call: BoxFuture<'static, ()> = Box::pin(async move {
            let target = match &owned {
                OwnedTarget::Server(server) => Target::Server(server),
                OwnedTarget::Client(client, named) => Target::Client(client, named.clone()),
            };
            let builder = RequestBuilder { target, call, opts, progress, cancel };
            sink.finish(builder.start().await);
        });
        ProgressStream { call: Some(call), feed, thread: None, family: PhantomData }
    }
}

impl<F: Family<Style = Awaiting>, T> futures_core::Stream for ProgressStream<F, T> {
    type Item = RequestUpdate<T>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<RequestUpdate<T>>> {
        if let Some(call) = self.call.as_mut() {
            if call.as_mut().poll(cx).is_ready() {
                self.call = None;
            }
        }
        self.feed.poll_next(cx)
    }
}

impl<F: Family<Style = Awaiting>, T> ProgressStream<F, T> {
    /// The next update; `None` after the outcome.
    pub async fn next(&mut self) -> Option<RequestUpdate<T>> {
        std::future::poll_fn(|cx| futures_core::Stream::poll_next(Pin::new(&mut *self), cx)).await
    }
}

impl<F: Family<Style = Returning>, T> Iterator for ProgressStream<F, T> {
    type Item = RequestUpdate<T>;

    fn next(&mut self) -> Option<RequestUpdate<T>> {
        if let Some(call) = self.call.take() {
            let started =
                std::thread::Builder::new().name("mcp-progress-stream".into()).spawn(move || block_on(call));
            match started {
                Ok(thread) => self.thread = Some(thread),
                Err(e) => {
                    let refusal = format!("cannot start a thread for the request: {e}");
                    self.feed.finish(Err(ClientError::Config(refusal)));
                }
            }
        }
        let next = self.feed.wait_next();
        if matches!(next, Some(RequestUpdate::Done(_))) {
            if let Some(thread) = self.thread.take() {
                // The outcome is in: the thread has nothing left to do.
                let _ = thread.join();
            }
        }
        next
    }
}

impl<F: Family, T> Unpin for ProgressStream<F, T> {}

#[derive(Debug)]
struct FeedState<T> {
    progress: VecDeque<Progress>,
    outcome: Option<Result<T, ClientError>>,
    ended: bool,
    waker: Option<Waker>,
}

impl<T> Default for FeedState<T> {
    fn default() -> Self {
        Self { progress: VecDeque::new(), outcome: None, ended: false, waker: None }
    }
}

/// What a streamed request has to say: progress, then the one outcome, always read before
/// the end. Written by the request's progress callback and its completion, read by the stream.
#[derive(Debug)]
struct UpdateFeed<T> {
    state: Mutex<FeedState<T>>,
    changed: Condvar,
}

impl<T> Default for UpdateFeed<T> {
    fn default() -> Self {
        Self { state: Mutex::new(FeedState::default()), changed: Condvar::new() }
    }
}

impl<T> UpdateFeed<T> {
    fn state(&self) -> std::sync::MutexGuard<'_, FeedState<T>> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn notify(&self, mut state: std::sync::MutexGuard<'_, FeedState<T>>) {
        let waker = state.waker.take();
        drop(state);
        self.changed.notify_all();
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    /// A progress notification arrived.
    fn push(&self, progress: Progress) {
        let mut state = self.state();
        if state.outcome.is_none() && !state.ended {
            state.progress.push_back(progress);
        }
        self.notify(state);
    }

    /// The request ended.
    fn finish(&self, outcome: Result<T, ClientError>) {
        let mut state = self.state();
        if !state.ended {
            state.outcome = Some(outcome);
        }
        self.notify(state);
    }

    fn take(state: &mut FeedState<T>) -> Option<Option<RequestUpdate<T>>> {
        if let Some(progress) = state.progress.pop_front() {
            return Some(Some(RequestUpdate::Progress(progress)));
        }
        if let Some(outcome) = state.outcome.take() {
            state.ended = true;
            return Some(Some(RequestUpdate::Done(outcome)));
        }
        state.ended.then_some(None)
    }

    /// The next update if there is one (async readers): `Pending` registers the waker.
    fn poll_next(&self, cx: &mut Context<'_>) -> Poll<Option<RequestUpdate<T>>> {
        let mut state = self.state();
        match Self::take(&mut state) {
            Some(next) => Poll::Ready(next),
            None => {
                state.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }

    /// Waits for the next update (blocking readers); `None` after the outcome was read.
    fn wait_next(&self) -> Option<RequestUpdate<T>> {
        let mut state = self.state();
        loop {
            if let Some(next) = Self::take(&mut state) {
                return next;
            }
            state = self.changed.wait(state).unwrap_or_else(|e| e.into_inner());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_feed_gives_progress_then_the_outcome_once() {
        let feed = Arc::new(UpdateFeed::<u32>::default());
        let p = |n: f64| Progress { progress: n, total: None, message: None };
        feed.push(p(1.0));
        feed.push(p(2.0));
        feed.finish(Err(ClientError::Closed));
        feed.push(p(3.0));
        assert!(
            matches!(feed.wait_next(), Some(RequestUpdate::Progress(Progress { progress, .. })) if progress == 1.0)
        );
        assert!(matches!(feed.wait_next(), Some(RequestUpdate::Progress(_))));
        assert!(matches!(feed.wait_next(), Some(RequestUpdate::Done(Err(ClientError::Closed)))));
        assert!(feed.wait_next().is_none());
        assert!(feed.wait_next().is_none());

        let feed = Arc::new(UpdateFeed::<u32>::default());
        let writer = {
            let feed = feed.clone();
            std::thread::spawn(move || {
                std::thread::sleep(std::time::Duration::from_millis(20));
                feed.push(p(1.0));
                feed.finish(Ok(5));
            })
        };
        assert!(matches!(feed.wait_next(), Some(RequestUpdate::Progress(_))), "waits for the writer");
        writer.join().unwrap();
        assert!(matches!(feed.wait_next(), Some(RequestUpdate::Done(Ok(5)))));
    }
}
