//! `mcpwire-blocking`: the MCP client for plain synchronous code, with no async runtime.
//!
//! The protocol lives in `mcpwire-core`, a sans-IO engine; this crate performs its IO with
//! `std::process` and threads. It is the blocking family ([`Blocking`]) of the one generic
//! client API: the same methods and request values as `mcpwire-tokio` and `mcpwire-smol`, sent with a
//! blocking `.send()` where the async crates `.await`.
//!
//! Use it from synchronous programs with no async runtime (command-line tools, scripts, plain
//! threads): no tokio, hyper or async runtime is in its dependency tree. Start at
//! the repository's `README.md` (what the client does, how to add it, a first call, how it compares
//! with rmcp) and its guide in `docs/` (one page per task: connecting, many servers, per-call options,
//! handlers, listen streams, tasks, OAuth, limits and untrusted servers, errors, the CLI); the guide's examples use `mcpwire-tokio`: here each request is sent with `.send()`
//! where they `.await`.
//!
//! # How it runs
//!
//! Each server is an engine: its sans-IO connection behind one lock, fed directly by
//! whichever thread has something for it. A calling thread issues its request
//! itself (the bytes reach a stdio server's non-blocking stdin on that thread) and, on Unix,
//! reads the server's stdout itself until its reply is there (`poll` on the pipe and on a wake
//! pipe that a delivery from another thread, e.g. a timeout or a cancel, writes to). One
//! caller reads at a time; others wait on their reply slots, and the stdout reader thread
//! reads for them, for notifications and for server requests. Elsewhere the reader thread
//! reads everything. A timer thread sleeps until the core's next deadline (`poll_timeout`).
//!
//! Each server process gets four threads: a stdin writer (for what the pipe did not take at
//! once), a stdout and a stderr reader (64 KiB reads, fed to the engine as they arrive) and
//! an exit waiter. Processes never outlive the client: closing it, or dropping its last
//! handle, runs the core's shutdown escalation (close stdin, SIGTERM, SIGKILL), and an engine
//! that is dropped kills whatever is still running.
//!
//! Timeouts are the core's, per request ([`RequestBuilder::timeout`]). A blocking call cannot
//! be dropped half-way; cancel it from another thread with a [`CancelToken`]
//! ([`RequestBuilder::cancel_token`]).
//! Server-to-client requests (roots, sampling, elicitation; legacy servers only) run the
//! installed [`Handler`] on a pooled thread (never queued behind another job), so a handler may block, e.g. on a prompt.
//! Progress callbacks, the [`ClientBuilder::on_event`] hook and the input-wait hook run outside
//! the engine's lock, one at a time per server and in order (on a pooled thread when an IO
//! thread or the timer delivered the event), so they may make blocking calls on the client,
//! even on the same server.
//!
//! HTTP servers (Streamable HTTP, HTTP+SSE, plain HTTP: the core decides which; feature
//! `http`) are reached through one [`http::HttpClient`] per client, a `ureq` agent whose keep-alive pool every
//! server of the client shares. The exchange that carries a caller's request runs on the
//! caller's own thread; every other exchange (event streams, answers to server requests) runs
//! on a pooled thread (idle workers are reused and exit after 10 s without work). Either
//! reports the response head and every body chunk (16 KiB reads) to the engine as it
//! arrives; an aborted exchange has its socket shut down at once, which also wakes a caller
//! blocked on it. The library never decompresses, never follows
//! redirects and adds no headers of its own: the core owns all of that. TLS is rustls (ring, or
//! aws-lc-rs) with the webpki roots (and the OS roots with `native-roots`); extra roots and the
//! proxy are set with
//! [`ClientBuilder::http_client`] (see [`HttpClientConfig`]).
//!
//! ```no_run
//! # fn demo() -> Result<(), mcpwire_blocking::ClientError> {
//! let client = mcpwire_blocking::connect("npx -y @modelcontextprotocol/server-everything")?;
//! for t in client.list_tools().send().into_result()? {
//!     println!("{}: {}", t.server, t.tool.name);
//! }
//! let result = client.call_tool("echo", serde_json::json!({"message": "hi"})).send()?;
//! println!("{}", result.text());
//! client.close().send();
//! # Ok(()) }
//! ```
//!
//! With several servers or handlers, build it: `Client::builder().server(spec).build()?`. The
//! root has the names of `mcpwire-tokio` and `mcpwire-smol` (every type a program needs, the protocol
//! types included: [`CallToolResult`], [`CreateMessageResult`], ...; all of them in [`types`]),
//! plus [`Elapsed`] and the [`http`] module (the ureq client); the async crates have their
//! runtime instead.
//!
//! # Features
//!
//! - `http` (default): Streamable HTTP, HTTP+SSE and plain HTTP (ureq, rustls, the webpki
//!   roots): the [`http`] module. Without it a server that is not stdio is refused by
//!   `build`.
//! - `ring` (default, implies `http`) / `aws-lc-rs` (implies `http`): rustls's crypto provider;
//!   aws-lc-rs wins when both are on; with neither, rustls's process default
//!   (`CryptoProvider::install_default`) is used.
//! - `native-roots` (implies `http`): trust the operating system's root certificates too
//!   (`HttpClientConfig::native_roots`).
//! - `oauth` (default, implies `http`): the OAuth 2.1 flow ([`auth`], [`oauth`]).
//! - `schema` (default): structured tool output validated against output schemas.
//! - `schema-formats` (implies `schema`): JSON Schema `format` assertions (ICU/IDNA stack).
//! - `tracing` (default): spans and events through `tracing`.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod caller_io;
mod family;
#[cfg(feature = "http")]
pub mod http;
mod io_side;
mod pool;
mod process;
mod reply;
#[cfg(unix)]
mod stdout;

pub use family::Blocking;
pub use mcpwire_host::facade::*;
pub use mcpwire_host::{BlockingSubscription as Subscription, Elapsed};

#[doc(hidden)]
pub use family::BlockingLink;

/// An MCP client over one or more servers, blocking.
pub type Client = mcpwire_host::Client<Blocking>;
/// Builds a [`Client`]. A blocking client has nothing to choose about how it runs, so unlike
/// the async crates' builders this one has no `runtime_options`:
///
/// ```compile_fail,E0599
/// let builder = mcpwire_blocking::Client::builder().runtime_options(());
/// ```
pub type ClientBuilder = mcpwire_host::ClientBuilder<Blocking>;
/// One server of a [`Client`].
pub type Server = mcpwire_host::Server<Blocking>;
/// A handler of a blocking client: the server's name and the decoded request in, the answer
/// out.
pub type Handler = mcpwire_host::Handler<mcpwire_host::Returning>;

/// Connects to one server given as a target string (a command line for stdio) and waits
/// until its protocol era is known.
pub fn connect(target: &str) -> Result<Client, ClientError> {
    let client = Client::builder().server(ServerSpec::from_target_named(target)?).build()?;
    client.connect().send().into_result()?;
    Ok(client)
}
