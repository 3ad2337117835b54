//! [`RequestBuilder`]: one request on its way out, with its options; awaited (async families)
//! or sent (the blocking family).

use std::future::{Future, IntoFuture};
use std::marker::PhantomData;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use mcpwire_core::calls::{Call, Complete};
use mcpwire_core::{ClientError, Progress, Request, RequestOptions};
use serde_json::{Map, Value};

use crate::block_on::block_on;
use crate::cancel::CancelToken;
use crate::client::Client;
use crate::dispatch::ProgressFn;
use crate::family::{BoxFuture, Family};
use crate::server::{CompletionContext, Server};
use crate::style::{Awaiting, Returning};

/// One request and its options, not sent yet. Build it with a method of [`Server`] or
/// [`Client`] (`call_tool`, `list_tools`, `read_resource`, ...), set what differs from the
/// defaults, then `.await` it (async client) or [`send`](RequestBuilder::send) it (blocking
/// client):
///
/// ```ignore
/// let result = client.call_tool("echo", json!({"message": "hi"}))
///     .timeout(Duration::from_secs(5))
///     .on_progress(|p| eprintln!("{}", p.progress))
///     .await?;
/// ```
///
/// On a client with several servers, a tool call, a prompt, a resource read and a completion
/// go to the server that offers them unless [`server`](RequestBuilder::server) names one;
/// other requests must name theirs. Dropping an async request before it completes cancels it.
#[must_use = "a request does nothing until it is awaited or sent"]
pub struct RequestBuilder<'a, F: Family, K> {
    pub(crate) target: Target<'a, F>,
    /// The descriptor, or why it could not be built (arguments that do not serialise).
    pub(crate) call: Result<K, ClientError>,
    pub(crate) opts: RequestOptions,
    pub(crate) progress: Option<ProgressFn>,
    pub(crate) cancel: Option<CancelToken>,
}

/// Where a request goes.
pub(crate) enum Target<'a, F: Family> {
    Server(&'a Server<F>),
    /// A client's server: the named one, else by the request's routing rule.
    Client(&'a Client<F>, Option<String>),
}

impl<'a, F: Family> Target<'a, F> {
    /// The server `request` goes to: this one, the named one, or the one routing picks.
    pub(crate) async fn resolve(self, request: &Request) -> Result<&'a Server<F>, ClientError> {
        match self {
            Target::Server(server) => Ok(server),
            Target::Client(client, Some(name)) => client.named(&name),
            Target::Client(client, None) => client.route(request).await,
        }
    }
}

impl<F: Family, K> std::fmt::Debug for RequestBuilder<'_, F, K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let target = match &self.target {
            Target::Server(s) => Some(s.name()),
            Target::Client(_, named) => named.as_deref(),
        };
        f.debug_struct("RequestBuilder")
            .field("server", &target)
            .field("opts", &self.opts)
            .field("progress", &self.progress.is_some())
            .field("cancel", &self.cancel)
            .finish_non_exhaustive()
    }
}

impl<'a, F: Family, K: Call> RequestBuilder<'a, F, K> {
    pub(crate) fn to_server(server: &'a Server<F>, call: Result<K, ClientError>) -> Self {
        Self::new(Target::Server(server), call)
    }

    pub(crate) fn to_client(client: &'a Client<F>, call: Result<K, ClientError>) -> Self {
        Self::new(Target::Client(client, None), call)
    }

    fn new(target: Target<'a, F>, call: Result<K, ClientError>) -> Self {
        Self { target, call, opts: RequestOptions::default(), progress: None, cancel: None }
    }

    pub(crate) fn options_mut(&mut self) -> &mut RequestOptions {
        &mut self.opts
    }

    /// Fails the request if it has not completed within `timeout` (the client's default
    /// otherwise).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.opts.timeout = Some(timeout);
        self
    }

    /// Sends `meta` as the request's `_meta` (over the server's static `_meta` and the
    /// provider's).
    pub fn meta(mut self, meta: Map<String, Value>) -> Self {
        self.opts.meta = Some(meta);
        self
    }

    /// Goes to the server even if a cached answer is fresh (lists and reads).
    pub fn refresh(mut self) -> Self {
        self.opts.refresh = true;
        self
    }

    /// Replaces every option at once (timeout, `_meta`, refresh, timeout reset on progress,
    /// total timeout; see [`RequestOptions`]). A progress callback set with
    /// [`on_progress`](Self::on_progress) stays.
    pub fn options(mut self, opts: RequestOptions) -> Self {
        let progress = self.opts.progress;
        self.opts = opts;
        self.opts.progress |= progress;
        self
    }

    /// Asks the server for progress notifications and calls `progress` for each. The
    /// callback runs outside the server's engine lock, in order with the server's other
    /// callbacks, and may call the client; the request completes after its last progress
    /// callback.
    pub fn on_progress(mut self, progress: impl Fn(Progress) + Send + Sync + 'static) -> Self {
        self.opts.progress = true;
        self.progress = Some(std::sync::Arc::new(progress));
        self
    }

    /// Ends the request with [`RequestError::Cancelled`](mcpwire_core::RequestError::Cancelled)
    /// when `token` is cancelled (from another thread or a callback).
    pub fn cancel_token(mut self, token: &CancelToken) -> Self {
        self.cancel = Some(token.clone());
        self
    }

    /// Sends the request to the client's server called `name` instead of routing it. On a
    /// [`Server`]'s own request, a name other than its own fails the request.
    pub fn server(mut self, name: &str) -> Self {
        match &mut self.target {
            Target::Client(_, named) => *named = Some(name.to_owned()),
            Target::Server(server) if server.name() == name => {}
            Target::Server(_) => {
                self.call = Err(mcpwire_core::routing::RouteError::UnknownServer(name.to_owned()).into());
            }
        }
        self
    }

    /// Starts the request: issued at once when its server is known, else once routed.
    pub(crate) fn start(self) -> RequestFuture<'a, F, K>
    where
        K: Send + 'a,
    {
        let Self { target, call, opts, progress, cancel } = self;
        let call = match call {
            Ok(call) => call,
            Err(e) => return RequestFuture::Failed(Some(e)),
        };
        let server = match target {
            Target::Server(server) => server,
            Target::Client(client, Some(name)) => match client.named(&name) {
                Ok(server) => server,
                Err(e) => return RequestFuture::Failed(Some(e)),
            },
            Target::Client(client, None) => match client.servers() {
                [only] => only,
                _ => {
                    return RequestFuture::Routed(Box::pin(async move {
                        let request = call.into_request();
                        let server = Target::Client(client, None).resolve(&request).await?;
                        let call = server.next_call();
                        let answer = F::issue(server.link(), call, request, opts, progress, cancel.as_ref());
                        K::decode(answer.await?)
                    }))
                }
            },
        };
        RequestFuture::Direct(issue(server, call, opts, progress, cancel.as_ref()), PhantomData)
    }
}

/// Issues `call` on `server`.
fn issue<'a, F: Family, K: Call>(
    server: &'a Server<F>,
    call: K,
    opts: RequestOptions,
    progress: Option<ProgressFn>,
    cancel: Option<&CancelToken>,
) -> F::Answer<'a> {
    F::issue(server.link(), server.next_call(), call.into_request(), opts, progress, cancel)
}

impl<F: Family> RequestBuilder<'_, F, Complete> {
    /// The values of the arguments already resolved (`context.arguments`; servers on
    /// revisions before 2025-06-18 are sent the request without it).
    pub fn context(mut self, context: CompletionContext) -> Self {
        if let Ok(call) = self.call {
            self.call = Ok(call.with_context(context));
        }
        self
    }
}

impl<'a, F, K> IntoFuture for RequestBuilder<'a, F, K>
where
    F: Family<Style = Awaiting>,
    K: Call + Send + 'a,
{
    type Output = Result<K::Output, ClientError>;
    type IntoFuture = RequestFuture<'a, F, K>;

    fn into_future(self) -> Self::IntoFuture {
        self.start()
    }
}

impl<'a, F, K> RequestBuilder<'a, F, K>
where
    F: Family<Style = Returning>,
    K: Call + Send + 'a,
{
    /// Sends the request and blocks until its outcome.
    pub fn send(self) -> Result<K::Output, ClientError> {
        block_on(self.start())
    }
}

/// The future of an awaited [`RequestBuilder`]. Dropping it before it completes cancels the
/// request.
#[must_use = "futures do nothing unless polled"]
pub enum RequestFuture<'a, F: Family, K: Call> {
    /// Issued to a known server.
    #[doc(hidden)]
    Direct(F::Answer<'a>, PhantomData<fn() -> K>),
    /// Routed first (a client with several servers).
    #[doc(hidden)]
    Routed(BoxFuture<'a, Result<K::Output, ClientError>>),
    /// Failed before anything was sent.
    #[doc(hidden)]
    Failed(Option<ClientError>),
}

impl<F: Family, K: Call> std::fmt::Debug for RequestFuture<'_, F, K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RequestFuture")
    }
}

impl<F: Family, K: Call> Future for RequestFuture<'_, F, K> {
    type Output = Result<K::Output, ClientError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.get_mut() {
            Self::Direct(answer, _) => Pin::new(answer).poll(cx).map(|outcome| K::decode(outcome?)),
            Self::Routed(future) => future.as_mut().poll(cx),
            Self::Failed(error) => Poll::Ready(Err(error.take().unwrap_or(ClientError::Closed))),
        }
    }
}
