//! [`Family`]: the few things the async and the blocking client do differently. Everything
//! else — [`Client`](crate::Client), [`Server`](crate::Server), [`ClientBuilder`](crate::ClientBuilder)
//! and the request values — is written once, generic over the family.
//!
//! The shared code is written `async`. An async family's waits are real futures; the
//! blocking family's primitives block where they are called and hand back a future that is
//! already complete, and its callers run the shared code with [`block_on`](crate::block_on),
//! which therefore never parks in practice (it still can: a wait on a listen stream's inbox
//! is woken through its waker). So both families behave the same by construction.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Instant;

use mcpwire_core::{ClientError, Connection, Request, RequestOptions};

use crate::cancel::CancelToken;
use crate::client_builder::BuilderParts;
use crate::dispatch::{Outcome, ProgressFn, SharedView};
use crate::style::{Handler, Style};
use crate::subscription::{ListenOptions, SubscriptionCore};

/// A boxed, sendable future.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The handler type of family `F`.
pub type FamilyHandler<F> = Handler<<F as Family>::Style>;

/// One server as a family's `start` hands it over: its name, the view its handles read, and
/// the family's link to its engine.
#[derive(Debug)]
pub struct StartedServer<L> {
    /// The server's name.
    pub name: Arc<str>,
    /// What its API handles read.
    pub view: SharedView,
    /// The family's link to its engine.
    pub link: L,
}

/// What differs between the async and the blocking client: how a request is issued and its
/// outcome waited for, how several servers are asked side by side, how a server is closed and
/// a client started. Implemented by `mcpwire_async::Async` and `mcpwire_blocking::Blocking`; users
/// never implement it.
pub trait Family: Sized + Send + Sync + 'static {
    /// How callers wait and handlers answer.
    type Style: Style;
    /// A server's link to its engine (the family's part of a [`Server`](crate::Server)).
    /// Dropping the last one releases the engine, which closes the server.
    type Link: Send + Sync + 'static;
    /// A request's outcome on its way. Dropping it before it completes cancels the request.
    /// The shared code creates it (with [`Family::issue`]) only where it then waits for it,
    /// so a family may issue and wait in `issue` itself (the blocking one does).
    type Answer<'a>: Future<Output = Outcome> + Send + Unpin + 'a;
    /// A listen stream's handle.
    type Subscription: Send + 'static;
    /// How the client's background work runs (a runtime handle, a connector): given to
    /// [`ClientBuilder::runtime_options`](crate::ClientBuilder::runtime_options) when the
    /// family is [`HasRuntimeOptions`], else always the default (`()` for the blocking one).
    type Options: Default + std::fmt::Debug + Send + 'static;

    /// Issues `request` as API call `call` of the server behind `link`. A `cancel` token
    /// already cancelled ends the call at once; one cancelled later ends it with
    /// `RequestError::Cancelled`.
    fn issue<'a>(
        link: &'a Self::Link,
        call: u64,
        request: Request,
        opts: RequestOptions,
        progress: Option<ProgressFn>,
        cancel: Option<&CancelToken>,
    ) -> Self::Answer<'a>;

    /// Runs `f` on the server's connection at the engine's clock, for what answers at once.
    fn inspect(link: &Self::Link, f: &mut dyn FnMut(&mut Connection, Instant));

    /// Opens a listen stream; `keep` (when the host reads the stream) keeps the server open
    /// while the handle lives.
    fn open_listen(
        link: &Self::Link,
        keep: Option<Arc<dyn std::any::Any + Send + Sync>>,
        request: Request,
        opts: ListenOptions,
    ) -> Result<SubscriptionCore, ClientError>;

    /// The family's handle over a listen stream.
    fn subscription(core: SubscriptionCore) -> Self::Subscription;

    /// Shuts the server down (stdin closed, then terminate, then kill); complete once done.
    fn close(link: &Self::Link) -> impl Future<Output = ()> + Send + '_;

    /// Runs `jobs`, at most `limit` at once, and gives their outputs in order.
    fn fan_out<'a, Fut>(jobs: Vec<Fut>, limit: usize) -> impl Future<Output = Vec<Fut::Output>> + Send + 'a
    where
        Fut: Future + Send + 'a,
        Fut::Output: Send + 'a;

    /// Starts one engine per server of `parts`, in order.
    fn start(
        parts: BuilderParts<FamilyHandler<Self>>,
        options: Self::Options,
    ) -> Result<Vec<StartedServer<Self::Link>>, ClientError>;
}

/// A family whose clients take options on how they run (the async one: which runtime, which
/// connector), so its [`ClientBuilder`](crate::ClientBuilder) has
/// [`runtime_options`](crate::ClientBuilder::runtime_options). The blocking family has
/// nothing to choose and no such method.
pub trait HasRuntimeOptions: Family {}
