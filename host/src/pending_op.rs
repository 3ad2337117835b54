//! [`Pending`]: an operation of several steps (a client-wide list, a resource subscription,
//! closing), awaited (async families) or waited for with `.send()` (the blocking family).

use std::future::{Future, IntoFuture};
use std::marker::PhantomData;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::block_on::block_on;
use crate::family::{BoxFuture, Family};
use crate::style::{Awaiting, Returning};

/// An operation that is not a single request: a client-wide list or connect, a listen stream
/// or a resource subscription, closing. Nothing happens until it is awaited (async client) or
/// [`send`](Pending::send) is called (blocking client).
#[must_use = "an operation does nothing until it is awaited or sent"]
pub struct Pending<'a, F: Family, T> {
    future: BoxFuture<'a, T>,
    family: PhantomData<fn() -> F>,
}

impl<F: Family, T> std::fmt::Debug for Pending<'_, F, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Pending")
    }
}

impl<'a, F: Family, T> Pending<'a, F, T> {
    pub(crate) fn new(future: impl Future<Output = T> + Send + 'a) -> Self {
        Self { future: Box::pin(future), family: PhantomData }
    }

    /// The operation's future, whatever the family's style (for the shared code).
    pub(crate) fn into_inner(self) -> BoxFuture<'a, T> {
        self.future
    }
}

impl<'a, F: Family<Style = Awaiting>, T> IntoFuture for Pending<'a, F, T> {
    type Output = T;
    type IntoFuture = PendingFuture<'a, T>;

    fn into_future(self) -> Self::IntoFuture {
        PendingFuture(self.future)
    }
}

impl<F: Family<Style = Returning>, T> Pending<'_, F, T> {
    /// Runs the operation and blocks until it is done.
    pub fn send(self) -> T {
        block_on(self.future)
    }
}

/// The future of an awaited [`Pending`].
#[must_use = "futures do nothing unless polled"]
pub struct PendingFuture<'a, T>(BoxFuture<'a, T>);

impl<T> std::fmt::Debug for PendingFuture<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PendingFuture")
    }
}

impl<T> Future for PendingFuture<'_, T> {
    type Output = T;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        self.0.as_mut().poll(cx)
    }
}
