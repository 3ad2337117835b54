//! `mcp-async`: the async MCP client API, written once for every async runtime.
//!
//! This crate sits between the sans-IO engine (`mcp-core`) and the runtime crates. It runs
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
//! let client = mcp_async::Client::builder()
//!     .server(ServerSpec::from_target("everything", "npx -y @modelcontextprotocol/server-everything")?)
//!     .build(rt)?;
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
mod client;
mod driver;
mod handlers;
mod http;
mod process;
mod reply;
mod runtime;
mod server;
mod stdout;
mod streaming;
#[cfg(test)]
mod test_streams;

pub use client::{connect, Client, ClientBuilder};
pub use handlers::{typed_handler, Handler, HandlerOutput, Handlers};
pub use http::{socket_idle, AsyncStream, BoxedStream, Connector, IdleCheck, TcpConnection};
/// OAuth on the host side: token stores, the loopback redirect listener, the browser sign-in.
pub use mcp_host::{auth, AuthorizationPrompt, TokenRequest};
pub use mcp_host::{
    AsyncSubscription as Subscription, ElicitationRequest, EventHook, FromServer, HttpClientConfig,
    ListenOptions, ProgressFn, ProxySetting, RootsListRequest, SamplingRequest, ToolCall, ToolCallUpdate,
    DEFAULT_MAX_CONCURRENT_SERVERS,
};
pub use runtime::{BoxFuture, ChildProcess, ProcessParts, Runtime};
pub use server::Server;
pub use streaming::ToolCallStream;
