//! `mcp-async`: the async MCP client API, written once for every async runtime.
//!
//! This crate sits between the sans-IO engine (`mcp-core`) and the runtime crates. It is the
//! async [`mcp_host::Family`] ([`Async`]) of the one generic API in `mcp-host`: it runs
//! each server's [`mcp_host::Engine`] (the [`mcp_core::Connection`] behind one lock, fed by
//! callers, IO tasks and a timer task), performs its IO through a small [`Runtime`] trait
//! (spawn, sleep, clock, processes, TCP) and turns handles into futures. A call's request
//! reaches a stdio server's stdin from the caller's own poll, and the caller reads the reply
//! from stdout itself while it waits; over HTTP the call future itself polls the exchange that
//! carries its request (the rest of it goes to the runtime if the call is dropped).
//! `mcp-tokio` and `mcp-smol` implement [`Runtime`] and re-export this API; use one of them.
//!
//! ```no_run
//! # async fn demo<R: mcp_async::Runtime>(rt: R) -> Result<(), mcp_core::ClientError> {
//! use mcp_core::ServerSpec;
//! let client = mcp_async::Client::<R>::builder()
//!     .server(ServerSpec::from_target("everything", "npx -y @modelcontextprotocol/server-everything")?)
//!     .runtime_options(mcp_async::AsyncOptions::new().runtime(rt))
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
mod driver;
mod family;
mod http;
mod process;
mod reply;
mod runtime;
mod stdout;
#[cfg(test)]
mod test_streams;

pub use family::{Async, AsyncAnswer, AsyncLink, AsyncOptions};
pub use http::{socket_idle, AsyncStream, BoxedStream, Connector, IdleCheck, TcpConnection};
/// OAuth on the host side: token stores, the loopback redirect listener, the browser sign-in.
pub use mcp_host::{auth, AuthorizationPrompt, TokenRequest};
pub use mcp_host::{
    Arguments, AsyncSubscription as Subscription, BatchRequest, CancelToken, ElicitationRequest, EventHook,
    FromServer, HandlerOutput, HttpClientConfig, ListenOptions, ListenRequest, Pending, ProgressFn,
    ProgressStream, ProxySetting, RequestBuilder, RequestUpdate, RootsListRequest, SamplingRequest, ToolCall,
    DEFAULT_BATCH_CONCURRENCY, DEFAULT_MAX_CONCURRENT_SERVERS,
};
pub use runtime::{BoxFuture, ChildProcess, ProcessParts, Runtime};

/// An MCP client over one or more servers, on runtime `R` (see [`mcp_host::Client`]).
pub type Client<R> = mcp_host::Client<Async<R>>;
/// Builds a [`Client`] (see [`mcp_host::ClientBuilder`]).
pub type ClientBuilder<R> = mcp_host::ClientBuilder<Async<R>>;
/// One server of a [`Client`] (see [`mcp_host::Server`]).
pub type Server<R> = mcp_host::Server<Async<R>>;
/// A handler of an async client: the server's name and the decoded request in, a future of the
/// answer out.
pub type Handler = mcp_host::Handler<mcp_host::Awaiting>;
/// The handlers an async client has.
pub type Handlers = mcp_host::Handlers<mcp_host::Awaiting>;

/// Connects to one server given as a target string (a command line for stdio) on the current
/// runtime `R` and waits until its protocol era is known. The runtime crates wrap this as
/// their `connect`.
pub async fn connect<R: Runtime>(target: &str) -> Result<Client<R>, mcp_core::ClientError> {
    let spec = mcp_core::ServerSpec::from_target_named(target)?;
    let client = Client::<R>::builder().server(spec).build()?;
    client.connect().await.into_result()?;
    Ok(client)
}
