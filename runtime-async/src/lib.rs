//! `mcpwire-async`: the async MCP client API, written once for every async runtime.
//!
//! This is an implementation crate of `mcpwire-tokio` and `mcpwire-smol`: use one of them, or this
//! crate directly only to run the client on a runtime of your own ([`Runtime`]). It is the
//! async [`Family`](mcpwire_host::Family) ([`Async`]) of the one generic client API: it runs each
//! server's engine (the sans-IO connection behind one lock, fed by callers, IO tasks and a
//! timer task), performs its IO through a small [`Runtime`] trait (spawn, sleep, clock,
//! processes, TCP) and turns handles into futures. A call's request reaches a stdio server's
//! stdin from the caller's own poll, and the caller reads the reply from stdout itself while it
//! waits; over HTTP the call future itself polls the exchange that carries its request (the
//! rest of it goes to the runtime if the call is dropped). Its root has the same names as
//! `mcpwire-tokio`'s, with the client types generic over the runtime (`Client<R>`).
//!
//! Start at the repository's `README.md` (what the client does, how to add it, a first call, how it compares
//! with rmcp) and its guide in `docs/` (one page per task: connecting, many servers, per-call options,
//! handlers, listen streams, tasks, OAuth, limits and untrusted servers, errors, the CLI).
//!
//! # Features
//!
//! - `http` (default): Streamable HTTP, HTTP+SSE and plain HTTP on hyper and rustls (webpki
//!   roots; proxies `http://`, `https://`, SOCKS4/4a/5/5h): [`Connector`], [`TcpConnection`], [`Runtime::connect_tcp`] and
//!   [`Runtime::resolve`]. Without it a server that is not stdio is refused by `build`.
//! - `ring` (default, implies `http`) / `aws-lc-rs` (implies `http`): rustls's crypto provider;
//!   aws-lc-rs wins when both are on; with neither, rustls's process default
//!   (`CryptoProvider::install_default`) is used.
//! - `native-roots` (implies `http`): trust the operating system's root certificates too
//!   (`HttpClientConfig::native_roots`).
//! - `oauth` (default, implies `http`): the OAuth 2.1 flow (browser sign-in, token stores).
//! - `schema` (default): structured tool output validated against output schemas.
//! - `schema-formats` (implies `schema`): JSON Schema `format` assertions (ICU/IDNA stack).
//! - `tracing` (default): spans and events through `tracing`.
//!
//! ```no_run
//! # async fn demo<R: mcpwire_async::Runtime>(rt: R) -> Result<(), mcpwire_async::ClientError> {
//! use mcpwire_async::ServerSpec;
//! let client = mcpwire_async::Client::<R>::builder()
//!     .server(ServerSpec::from_target("everything", "npx -y @modelcontextprotocol/server-everything")?)
//!     .runtime_options(mcpwire_async::AsyncOptions::new().runtime(rt))
//!     .build()?;
//! for t in client.list_tools().await.into_result()? {
//!     println!("{}: {}", t.server, t.tool.name);
//! }
//! let result = client.call_tool("echo", serde_json::json!({"message": "hi"})).await?;
//! println!("{}", result.text());
//! client.close().await;
//! # Ok(()) }
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod caller_io;
mod family;
#[cfg(feature = "http")]
mod http;
mod io_side;
mod process;
mod reply;
mod runtime;
mod stdout;
#[cfg(test)]
mod test_streams;

pub use family::{Async, AsyncOptions};
#[cfg(feature = "http")]
pub use http::{socket_idle, AsyncStream, BoxedStream, Connector, IdleCheck, TcpConnection};
pub use mcpwire_host::AsyncSubscription as Subscription;
pub use runtime::{BoxFuture, ChildProcess, ProcessParts, Runtime};

#[doc(hidden)]
pub use family::{AsyncAnswer, AsyncLink};
pub use mcpwire_host::facade::*;

/// The names `mcpwire-tokio` and `mcpwire-smol` re-export at their root, listed once: the names every
/// runtime crate shares (`mcpwire_host::facade`, also at this crate's root) and the async family's
/// own.
pub mod facade {
    #[cfg(feature = "http")]
    pub use crate::{AsyncStream, BoxedStream, Connector};
    pub use crate::{BoxFuture, Handler, Subscription};
    pub use mcpwire_host::facade::*;
}

/// An MCP client over one or more servers, on runtime `R`.
pub type Client<R> = mcpwire_host::Client<Async<R>>;
/// Builds a [`Client`].
pub type ClientBuilder<R> = mcpwire_host::ClientBuilder<Async<R>>;
/// One server of a [`Client`].
pub type Server<R> = mcpwire_host::Server<Async<R>>;
/// A handler of an async client: the server's name and the decoded request in, a future of the
/// answer out.
pub type Handler = mcpwire_host::Handler<mcpwire_host::Awaiting>;

/// Connects to one server given as a target string (a command line for stdio) on the current
/// runtime `R` and waits until its protocol era is known. The runtime crates wrap this as
/// their `connect`.
pub async fn connect<R: Runtime>(target: &str) -> Result<Client<R>, ClientError> {
    let spec = ServerSpec::from_target_named(target)?;
    let client = Client::<R>::builder().server(spec).build()?;
    client.connect().await.into_result()?;
    Ok(client)
}
