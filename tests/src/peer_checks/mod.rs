//! Checks against real third-party MCP servers (the peers `peers/setup.sh` installs), each
//! written once as a `define_*!` macro and expanded for every runtime by `tests/tests/real_peers.rs`
//! and the runtime test files.

mod batch;
mod catalog;
mod deprecation;
mod handler;
mod header;
#[cfg(feature = "http")]
mod http;
mod input_wait;
#[cfg(feature = "oauth")]
pub mod oauth;
mod oversize;
mod push;
mod server_request;
mod suite;
mod task;
mod tool_format;
