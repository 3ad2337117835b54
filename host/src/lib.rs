//! `mcp-host`: the host side of the MCP client, written once for every family of runtimes.
//!
//! `mcp-core` decides everything about the protocol and performs no IO. Between it and the
//! runtime crates sits what every client needs whatever it runs on, and what would otherwise be
//! written twice (once with `.await`, once without):
//!
//! - [`Dispatch`]: a server driver's bookkeeping — requests from API handles and where their
//!   outcomes go, progress callbacks, close waiters, the view handles read, the event hook —
//!   and the drain that routes the core's events ([`Step`]s back to the driver);
//! - [`server_methods!`], [`client_methods!`], [`builder_methods!`]: the public API of
//!   `Server`, `Client` and `ClientBuilder`, expanded `async` in `mcp-async` and plain in
//!   `mcp-blocking`, over the typed request descriptors of [`mcp_core::calls`];
//! - [`HttpClientConfig`], [`ProxySetting`] and proxy selection ([`Proxies`]);
//! - process helpers: [`std_command`], [`exit_info`], [`terminate`], [`seed_config`].
//!
//! It depends on `mcp-core` and the standard library only: no async runtime, no HTTP stack.
//!
//! ```
//! use mcp_core::calls::{Call, ListTools};
//! // A family's `Server::list_tools` is `self.send(ListTools)`: the descriptor builds the
//! // request and decodes the response, so both families behave the same by construction.
//! assert_eq!(ListTools.into_request(), mcp_core::Request::ListTools);
//! let cmd = mcp_host::std_command(&mcp_core::StdioCommand::new("my-server"));
//! assert_eq!(cmd.get_program(), "my-server");
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod dispatch;
mod http_config;
mod methods;
mod process;

pub use dispatch::{
    lock, Dispatch, EventHook, Outcome, Perform, ProgressFn, Reply, SharedView, Step, Waiter,
};
pub use http_config::{HttpClientConfig, Proxies, Proxy, ProxySetting};
pub use methods::{BuilderParts, Prepared, ServerStart};
pub use process::{exit_info, os_random_seed, seed_config, std_command, terminate};

#[doc(hidden)]
pub use {mcp_core, serde_json};
