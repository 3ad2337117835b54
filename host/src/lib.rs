//! `mcpwire-host`: an implementation crate of the MCP client's runtime crates, with no stability
//! promise. Use `mcpwire-tokio`, `mcpwire-smol` or `mcpwire-blocking` (or `mcpwire-async` for a runtime of your
//! own): each re-exports at its root every name a client program needs.
//! Start at the repository's `README.md` (what the client does, how to add it, a first call, how it compares
//! with rmcp) and its guide in `docs/` (one page per task: connecting, many servers, per-call options,
//! handlers, listen streams, tasks, OAuth, limits and untrusted servers, errors, the CLI).
//!
//! It holds what every client needs whatever it runs on, written once, between `mcpwire-core`
//! (which decides everything about the protocol and performs no IO) and the runtime crates:
//!
//! - the public API, generic over a [`Family`] (the few things the async and the blocking
//!   client do differently: issue and wait, ask several servers side by side, close, start):
//!   [`Client`], [`Server`], [`ClientBuilder`], and the request values their methods return —
//!   [`RequestBuilder`] (one request and its options: timeout, `_meta`, progress callback or
//!   [`ProgressStream`], [`CancelToken`], target server, task mode), [`Pending`] (an operation of
//!   several steps), [`ListenRequest`], [`BatchRequest`] — awaited when the family's
//!   [`Style`] is [`Awaiting`] (`mcpwire-async`) and sent with `.send()` when it is [`Returning`]
//!   (`mcpwire-blocking`). The shared code is written `async`; the blocking family's primitives
//!   complete where they are polled, and it runs the shared code with `block_on`. The
//!   runtime crates name these types with aliases (`mcpwire_tokio::Client` is
//!   `Client<Async<TokioRuntime>>`) and re-export the rest from one list (the [`facade`]
//!   module), so they cannot drift apart;
//! - the plumbing the runtime crates share, hidden from these docs: the per-server `Engine` (a
//!   server's connection, dispatch and IO side behind one lock, fed directly by callers, IO
//!   tasks and a timer), `Dispatch` (the requests in flight and where their outcomes go, the
//!   drain that routes the core's events), routing for clients with several servers, the
//!   host's handlers, listen-stream inboxes, the HTTP exchange a caller runs itself, proxy
//!   selection, the trusted roots both HTTP clients load, and the process helpers (a stdio server leads its own process group on Unix);
//! - [`HttpClientConfig`] and [`ProxySetting`] (feature `http`), and [`auth`] (feature `oauth`):
//!   the host side of OAuth (token stores, the loopback redirect listener, the browser sign-in,
//!   the options a server spec takes).
//!
//! It depends on `mcpwire-core` and the standard library (plus small helpers: `base64`, `getrandom`
//! for OAuth entropy, `sha2` for token file names, `futures-core` for the `Stream` trait; `http`,
//! `url` and `percent-encoding` for request headers and proxy URLs, `rustls` for the TLS
//! provider and certificates, `rustls-native-certs` for the OS roots): no async runtime, no HTTP stack.
//!
//! # Features
//!
//! - `http` (default): HTTP servers — [`HttpClientConfig`], proxies, token providers, the
//!   request headers both HTTP clients share. Without it a server that is not stdio is refused
//!   when the client is built.
//! - `ring` (default, implies `http`) and `aws-lc-rs` (implies `http`): the rustls crypto
//!   provider; aws-lc-rs wins when both are on; with neither, the process default installed
//!   with `rustls::crypto::CryptoProvider::install_default` is used.
//! - `native-roots` (implies `http`): trust the operating system's root certificates too
//!   (`HttpClientConfig::native_roots`).
//! - `oauth` (default, implies `http`): the OAuth 2.1 flow — [`auth`], the authorization
//!   handler, the browser sign-in, token stores.
//! - `schema` (default): structured tool output validated against output schemas.
//! - `schema-formats` (implies `schema`): JSON Schema `format` assertions (ICU/IDNA stack).
//! - `tracing` (default): spans and events through `tracing`.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

#[cfg(feature = "oauth")]
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
pub mod facade;
mod family;
mod handlers;
#[cfg(feature = "http")]
mod http_config;
mod pending;
mod pending_op;
mod process;
mod progress_stream;
#[cfg(feature = "http")]
mod proxy;
mod request_builder;
mod server;
mod server_push;
mod server_tasks;
mod style;
mod subscription;
#[cfg(feature = "http")]
mod tls;
mod trace;

pub use batch::{BatchRequest, ToolCall, DEFAULT_BATCH_CONCURRENCY};
pub use cancel::CancelToken;
pub use client::Client;
pub use client_builder::{ClientBuilder, DEFAULT_MAX_CONCURRENT_SERVERS};
pub use dispatch::{EventHook, InputWaitHook, MetaProvider, ProgressFn, WireTrace};
pub use family::{BoxFuture, Family, HasRuntimeOptions};
#[cfg(feature = "oauth")]
pub use handlers::AuthorizationPrompt;
#[cfg(feature = "http")]
pub use handlers::TokenRequest;
pub use handlers::{ElicitationRequest, FromServer, RootsListRequest, SamplingRequest};
#[cfg(feature = "http")]
pub use http_config::HttpClientConfig;
pub use pending_op::{Pending, PendingFuture};
pub use progress_stream::{ProgressStream, RequestUpdate};
#[cfg(feature = "http")]
pub use proxy::ProxySetting;
pub use request_builder::{RequestBuilder, RequestFuture};
pub use server::{Arguments, Server};
pub use server_push::ListenRequest;
pub use style::{Awaiting, Handler, HandlerOutput, Returning, Style};
pub use subscription::{AsyncSubscription, BlockingSubscription, Elapsed, ListenOptions};

// The plumbing the runtime crates share: public for them, not for users.
#[doc(hidden)]
pub use block_on::block_on;
#[doc(hidden)]
pub use bounded::{run_bounded, JoinBounded};
#[doc(hidden)]
pub use caller_scope::{offer_to_caller, CallerScope};
#[doc(hidden)]
pub use cancel::CancelCall;
#[doc(hidden)]
pub use client_builder::{refuse_http_servers, BuilderParts, Prepared, ServerStart};
#[doc(hidden)]
pub use dispatch::{lock, Dispatch, Outcome, Outcomes, Perform, Reply, SharedView, Step, Waiter};
#[doc(hidden)]
pub use engine::{open_listen, Engine, EngineApi, Feed, ReleaseOnDrop, Side, TimerStep};
#[doc(hidden)]
pub use family::{FamilyHandler, StartedServer};
#[doc(hidden)]
pub use handlers::{call_typed, prepare_servers, HandlerAnswer, HandlerSet, TypedRequest, NO_HANDLER};
#[cfg(feature = "http")]
#[doc(hidden)]
pub use http_config::with_request_headers;
#[doc(hidden)]
pub use pending::{CloseWaiters, PendingCalls, ServerView};
#[doc(hidden)]
pub use process::{
    apply_process_io, exit_info, kill_server_group, os_random_seed, seed_config, signal_server, std_command,
    OtherIo, ProcessControl, SpawnRequest,
};
#[cfg(feature = "http")]
#[doc(hidden)]
pub use proxy::{Proxies, Proxy, ProxyKind};
#[doc(hidden)]
pub use style::{answer, typed_handler, Handlers};
#[doc(hidden)]
pub use subscription::{Inbox, ListenControl, ResourceSubscriptions};
#[cfg(feature = "http")]
#[doc(hidden)]
pub use tls::{extra_trusted_roots, tls_provider, ExtraRoots};
// What a listen stream's handles deref to (its state and counters) and the future of its next
// update: users call these, so they are documented.
pub use subscription::{Next, SubscriptionCore};

#[doc(hidden)]
pub use {mcpwire_core, serde_json};
