//! `mcp-host`: the host side of the MCP client, written once for every family of runtimes.
//!
//! `mcp-core` decides everything about the protocol and performs no IO. Between it and the
//! runtime crates sits what every client needs whatever it runs on, written once:
//!
//! - the public API, generic over a [`Family`] (the few things the async and the blocking
//!   client do differently: issue and wait, ask several servers side by side, close, start):
//!   [`Client`], [`Server`], [`ClientBuilder`], and the request values their methods return —
//!   [`RequestBuilder`] (one request and its options: timeout, `_meta`, progress callback or
//!   [`ProgressStream`], [`CancelToken`], target server, task mode), [`Pending`] (an operation of
//!   several steps), [`ListenRequest`], [`BatchRequest`] — awaited when the family's
//!   [`Style`] is [`Awaiting`] (`mcp-async`) and sent with `.send()` when it is [`Returning`]
//!   (`mcp-blocking`). The shared code is written `async`; the blocking family's primitives
//!   complete where they are polled, and it runs the shared code with [`block_on`]. The
//!   runtime crates name these types with aliases (`mcp_tokio::Client` is
//!   `Client<Async<TokioRuntime>>`) and re-export the rest: use one of them;
//!
//! - [`Engine`]: a server's connection, dispatch and IO side behind one lock, fed directly by
//!   callers, IO tasks and a timer (no driver hop between a caller and the core);
//! - [`Dispatch`]: a server driver's bookkeeping — requests from API handles and where their
//!   outcomes go, progress callbacks, close waiters, the view handles read, the event hook —
//!   and the drain that routes the core's events ([`Step`]s back to the driver);
//! - routing for clients with several servers: by tool name, prompt name or resource URI
//!   ([`mcp_core::Request::routing`]), each server's failure reported without hiding the
//!   others' answers;
//! - per-server bookkeeping: calls in flight ([`PendingCalls`]), close waiters
//!   ([`CloseWaiters`]), the [`ServerView`] handles read; the host's handlers ([`HandlerSet`],
//!   from which the client's capabilities follow) and server-list checks ([`prepare_servers`]);
//! - listen streams: the [`Inbox`] a stream's updates wait in (a bounded notification queue),
//!   and the handles that read it, [`AsyncSubscription`] and [`BlockingSubscription`];
//! - [`CallerScope`]: the HTTP exchange of a caller's own request, run by that caller;
//! - [`HttpClientConfig`], [`ProxySetting`] and proxy selection ([`Proxies`]);
//! - [`auth`]: the host side of OAuth (token stores, the loopback redirect listener, the
//!   browser sign-in, the options a server spec takes);
//! - process helpers: [`std_command`] (a stdio server leads its own process group on Unix),
//!   [`exit_info`], [`signal_server`] and [`kill_server_group`] (signal that group),
//!   [`seed_config`], and the live-process table the core's IO is applied to
//!   ([`apply_process_io`]).
//!
//! It depends on `mcp-core` and the standard library (plus small helpers: `base64`, `getrandom`
//! for OAuth entropy, `sha2` for token file names, `futures-core` for the `Stream` trait): no
//! async runtime, no HTTP stack.
//!
//! ```
//! use mcp_core::calls::{Call, ListTools};
//! // `Server::list_tools` is `self.send(ListTools)`: the descriptor builds the request and
//! // decodes the response; the family only issues it and waits.
//! assert_eq!(ListTools.into_request(), mcp_core::Request::ListTools);
//! let cmd = mcp_host::std_command(&mcp_core::StdioCommand::new("my-server"));
//! assert_eq!(cmd.get_program(), "my-server");
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod auth;
mod batch;
mod block_on;
mod bounded;
mod callbacks;
mod caller_scope;
mod cancel;
mod client;
mod client_builder;
mod client_catalog;
mod client_routing;
mod client_tool_formats;
mod dispatch;
mod engine;
mod family;
mod handlers;
mod http_config;
mod pending;
mod pending_op;
mod process;
mod progress_stream;
mod request_builder;
mod server;
mod server_push;
mod server_tasks;
mod style;
mod subscription;
mod trace;

pub use batch::{BatchRequest, ToolCall, DEFAULT_BATCH_CONCURRENCY};
pub use block_on::block_on;
pub use bounded::{run_bounded, JoinBounded};
pub use caller_scope::{offer_to_caller, CallerScope};
pub use cancel::{CancelCall, CancelToken};
pub use client::Client;
pub use client_builder::{
    BuilderParts, ClientBuilder, Prepared, ServerStart, DEFAULT_MAX_CONCURRENT_SERVERS,
};
pub use dispatch::{
    lock, Dispatch, EventHook, InputWaitHook, MetaProvider, Outcome, Outcomes, Perform, ProgressFn, Reply,
    SharedView, Step, Waiter,
};
pub use engine::{open_listen, Engine, EngineApi, Feed, ReleaseOnDrop, Side, TimerStep};
pub use family::{BoxFuture, Family, FamilyHandler, StartedServer};
pub use handlers::{
    call_typed, prepare_servers, AuthorizationPrompt, ElicitationRequest, FromServer, HandlerAnswer,
    HandlerSet, RootsListRequest, SamplingRequest, TokenRequest, TypedRequest, NO_HANDLER,
};
pub use http_config::{with_request_headers, HttpClientConfig, Proxies, Proxy, ProxySetting};
pub use pending::{CloseWaiters, PendingCalls, ServerView};
pub use pending_op::{Pending, PendingFuture};
pub use process::{
    apply_process_io, exit_info, kill_server_group, os_random_seed, seed_config, signal_server, std_command,
    OtherIo, ProcessControl, SpawnRequest,
};
pub use progress_stream::{ProgressStream, RequestUpdate};
pub use request_builder::{RequestBuilder, RequestFuture};
pub use server::{Arguments, Server};
pub use server_push::ListenRequest;
pub use style::{answer, typed_handler, Awaiting, Handler, HandlerOutput, Handlers, Returning, Style};
pub use subscription::{
    AsyncSubscription, BlockingSubscription, Elapsed, Inbox, ListenControl, ListenOptions, Next,
    ResourceSubscriptions, SubscriptionCore,
};

#[doc(hidden)]
pub use {mcp_core, serde_json};
