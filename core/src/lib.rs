//! `mcpwire-core`: the sans-IO engine of an MCP (Model Context Protocol) client.
//!
//! This crate holds every protocol decision and no IO: no clock, no threads, no sockets, no
//! files, no OS randomness, no async runtime. A [`Connection`] is the state machine for one
//! server; the runtime crates (`mcpwire-tokio`, `mcpwire-smol`, `mcpwire-blocking`) perform the IO it asks
//! for and feed back what happened. Because time comes in as an argument, every behaviour (era
//! probe timeouts, request deadlines, shutdown escalation) is testable with fake time.
//!
//! It speaks MCP 2026-07-28 (stateless: `server/discover`, per-request `_meta`) and the legacy
//! revisions 2025-11-25, 2025-06-18, 2025-03-26 and 2024-11-05 (`initialize` handshake),
//! detecting per server which one it speaks ([`ProtocolMode::Auto`]).
//!
//! Use it directly to drive the engine from your own event loop, or for the protocol types alone;
//! to talk to servers, a runtime crate (`mcpwire-tokio`, `mcpwire-smol`, `mcpwire-blocking`) does
//! the IO. Start at the repository's `README.md` (what the client does, how to add it, a first call, how it compares
//! with rmcp) and its guide in `docs/` (one page per task: connecting, many servers, per-call options,
//! handlers, listen streams, tasks, OAuth, limits and untrusted servers, errors, the CLI).
//!
//! # The run loop
//!
//! A runtime owns one [`Connection`] per server. It feeds every input as an [`Input`]
//! through [`Connection::handle_input`] (or the matching `handle_*` method) and every host
//! command as a method call. After **every** input and **every** command, it drains
//! [`Connection::poll_io`] and [`Connection::poll_event`] until both return `None`, then sleeps
//! until [`Connection::poll_timeout`], the next input, or the next host command, whichever
//! comes first, feeding [`Input::Timeout`] when the deadline passed. Time passed in must
//! come from a monotonic clock; an earlier `now` than before is treated as the latest seen.
//! The full contract, with a diagram of the states, is on [`Connection`].
//!
//! A runtime reads its own clock and passes the time in; the core never reads one. Here one
//! `stdio` server is driven by hand (`core/tests/connection/` drives every path this way):
//!
//! ```
//! use std::time::Instant;
//! use mcpwire_core::{Connection, ConnectionConfig, Event, Input, Io, Request, RequestOptions, StdioCommand};
//!
//! fn drive(t0: Instant) {
//!     let mut conn = Connection::new(ConnectionConfig::stdio(StdioCommand::new("my-server")), t0);
//!     let handle = conn.request(t0, Request::ListTools, RequestOptions::default()).unwrap();
//!
//!     // Drain: the core asks for a process; the runtime spawns it and reports back.
//!     let Some(Io::Spawn { epoch, .. }) = conn.poll_io() else { unreachable!() };
//!     conn.handle_input(t0, Input::Started(epoch));
//!     // It now writes the `server/discover` probe to the process's stdin.
//!     let Some(Io::Write { bytes, .. }) = conn.poll_io() else { unreachable!() };
//!     assert!(String::from_utf8(bytes).unwrap().contains("server/discover"));
//!
//!     // A modern server answers; the core becomes ready and sends the queued tools/list.
//!     let discovered = br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"ttlMs":0,"cacheScope":"private"}}
//! "#;
//!     conn.handle_input(t0, Input::Stdout(epoch, discovered.to_vec()));
//!     assert!(matches!(conn.poll_event(), Some(Event::Connected(_))));
//!     let Some(Io::Write { .. }) = conn.poll_io() else { unreachable!() };
//!     let tools = br#"{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}}
//! "#;
//!     conn.handle_input(t0, Input::Stdout(epoch, tools.to_vec()));
//!     let Some(Event::Response { handle: h, result: Ok(_) }) = conn.poll_event() else { unreachable!() };
//!     assert_eq!(h, handle);
//!
//!     // Then sleep until `poll_timeout()` (or the next input) and feed `Input::Timeout`.
//!     if let Some(at) = conn.poll_timeout() {
//!         assert!(at > t0);
//!         conn.handle_input(at, Input::Timeout);
//!     }
//! }
//! # let _: fn(Instant) = drive; // the host supplies the clock; core/tests/connection run this flow
//! ```
//!
//! # What lives here
//!
//! - [`jsonrpc`]: the JSON-RPC 2.0 codec; [`framing`]: bounded newline framing;
//!   [`jsonrpc_head`]: which request an oversize (discarded) message answered.
//! - [`Connection`]: era detection, requests with pagination, timeouts, cancellation and
//!   progress, requests from the server ([`server_requests`] checks and shapes them),
//!   notifications, the stdio process lifecycle.
//! - HTTP building blocks, pure and bounded, for the HTTP transports: [`sse`] (event-stream
//!   decoder), [`gzip`] (capped body inflation), [`headers`] (`Mcp-Name`, `Mcp-Param-*`,
//!   `WWW-Authenticate`); [`mcp_servers`] (transport detection from a target, `mcpServers`
//!   config files, credential redaction).
//! - [`oauth`]: the OAuth 2.1 authorization flow as a state machine the host drives (discovery,
//!   client registration, PKCE, callback and token checks, refresh).
//! - [`types`]: typed MCP data (tools, prompts, resources, content blocks) keeping raw JSON.
//! - [`deprecation`]: the deprecated features a client can observe, reported once per process
//!   (or per connection, or never) as [`Warning::Deprecated`].
//! - [`routing`]: which of several servers owns a tool name; [`catalog`]: what every server
//!   of a client offered, tagged by server, with the failures beside it; [`calls`]: typed request
//!   descriptors, the one place a request kind is defined for every client family.
//!
//! Every buffer is bounded by [`Limits`]; untrusted input never panics the core.
//!
//! The modules form layers, bottom to top: plain data, wire formats, OAuth, protocol data and
//! configuration, host requests, errors, answers and events, the connection. None uses one
//! above it; the repository's `scripts/module-graph.py` checks it in CI (ARCHITECTURE.md).
//!
//! # Features
//!
//! Defaults: `http`, `oauth`, `schema`. A disabled feature's API is absent (compiled out, not a
//! runtime error); only what arrives at run time needing it is refused, with a typed error.
//!
//! - `http`: the HTTP transports (Streamable HTTP, HTTP+SSE, plain HTTP): `HttpConfig` and
//!   `TransportConfig::Http`, the HTTP [`TransportKind`]s, the HTTP kinds of [`Io`] and
//!   [`Input`], `HttpUrl` and redirects, sessions, retries, [`sse`], [`gzip`], [`headers`],
//!   the address rules of OAuth fetches (`address_class`, `Destination`), the HTTP errors and
//!   warnings, and [`oauth::HttpAuth`] with the host's token provider. Brings `url`,
//!   `form_urlencoded`, `percent-encoding` and `flate2`. Without it only stdio servers exist: an
//!   `http(s)://` target or a `mcpServers` entry with a `"url"` (or an HTTP `"type"`) is refused
//!   with [`target::TargetConfigError::HttpNotCompiled`].
//! - `oauth` (implies `http`): the OAuth 2.1 flow of [`oauth`] (discovery, registration, PKCE,
//!   grants, `private_key_jwt` and DPoP with P-256, token refresh, stored records),
//!   `HttpAuth::OAuth`, and the events, host requests and errors only it produces
//!   (`Event::AuthorizationSaved`, `ServerRequestKind::Authorization`). Brings `p256`.
//! - `schema`: validation of structured tool output against the tool's `outputSchema` (JSON
//!   Schema, with `jsonschema`). The elicitation form schema is always there.
//! - `schema-formats` (implies `schema`): asserting JSON Schema `format` (with the IDNA stack
//!   for international host names and e-mail addresses).

#![forbid(unsafe_code)]
#![deny(missing_docs)]

#[cfg(feature = "http")]
pub mod address_class;
pub mod calls;
pub mod catalog;
mod command;
mod config;
mod connection;
pub mod deprecation;
#[cfg(feature = "http")]
mod destination;
mod era;
mod error;
mod event;
#[cfg(feature = "http")]
mod exchange_failure;
pub mod framing;
#[cfg(feature = "_fuzz")]
#[doc(hidden)]
pub mod fuzzing;
#[cfg(feature = "http")]
pub mod gzip;
mod handle;
#[cfg(feature = "http")]
pub mod headers;
#[cfg(feature = "http")]
mod http_url;
mod input_round;
mod io;
mod io_error;
pub mod jsonrpc;
pub mod jsonrpc_head;
pub mod mcp_servers;
pub mod notify_queue;
#[cfg(feature = "http")]
pub mod oauth;
mod redact;
#[cfg(feature = "http")]
mod redirect_error;
mod request;
mod response;
pub mod routing;
pub mod schema;
pub mod server_requests;
mod server_spec;
#[cfg(feature = "http")]
pub mod sse;
pub mod subscription;
pub mod target;
pub mod text;
mod timers;
pub mod tool_formats;
mod transport;
#[cfg(feature = "http")]
mod transport_attempt;
pub mod types;
mod wire;

pub use command::StdioCommand;
#[cfg(feature = "http")]
pub use config::HttpConfig;
pub use config::{
    ClientFeatures, ConnectionConfig, Limits, ProtocolMode, Timeouts, TransportConfig, LEGACY_VERSIONS,
    MODERN_VERSION,
};
#[cfg(feature = "schema")]
pub use config::{SchemaValidation, ValidationMode};
pub use connection::{CacheInfo, CacheKey, CacheScope, Connection, Input, Output};
pub use deprecation::{
    deprecation_notices, set_deprecation_notices, Deprecation, DeprecationNotices, Removal, UsedBy,
};
#[cfg(feature = "http")]
pub use destination::{Destination, UnsafeAddress};
pub use era::{Era, ServerInfo};
pub use error::{AnswerError, ClientError, CommandError, RequestError, RpcError, RpcErrorKind, Warning};
pub use event::{Event, LogMessage, Notification, Progress, ServerRequest, SubscriptionUpdate};
#[cfg(feature = "http")]
pub use exchange_failure::ExchangeFailure;
#[cfg(feature = "http")]
pub use handle::ExchangeId;
pub use handle::{Epoch, RequestHandle, ServerRequestHandle};
pub use input_round::{
    input_wait_delay, InputResume, InputWait, InputWaitDecision, OutstandingInput, FIRST_INPUT_WAIT,
    MAX_INPUT_WAIT,
};
pub use io::{ExitInfo, Io};
#[cfg(feature = "http")]
pub use io::{HttpHead, HttpMethod, HttpRequest};
pub use io_error::IoError;
pub use notify_queue::{NotificationQueue, Pushed, QueueLimits};
#[cfg(feature = "http")]
pub use redirect_error::{RedirectError, RedirectRefusal, MAX_REDIRECTS};
pub use request::{is_reserved_meta_key, InputState, ListKind, Request, RequestMetaContext, RequestOptions};
pub use response::Response;
pub use server_spec::{ServerSpec, ServerTool};
pub use subscription::SubscriptionFilter;
pub use transport::TransportKind;
#[cfg(feature = "http")]
pub use transport_attempt::{AttemptOutcome, TransportAttempt};
pub use types::{HandlerError, HostRequest, Root, ServerRequestKind};
pub use wire::WireRecord;
