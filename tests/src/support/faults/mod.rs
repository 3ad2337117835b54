//! A fault-injecting TCP proxy for the network fault tests, in the style of toxiproxy: std
//! only (and `libc` for the RST), loopback only, bounded (a 16 KiB buffer each way, at most
//! [`MAX_CONNECTIONS`] open, two threads per connection), and every thread ends when the proxy
//! is dropped.
//!
//! Put between a client and a real HTTP peer, it gives each accepted connection the next
//! [`Fault`] of a [`Plan`] (a script, or a seeded random mix): reset mid-response (an RST, no
//! FIN), stall past the request timeout, half-close either direction, drip one byte at a time,
//! accept then close, delay the response head, and reset a kept-alive connection right after
//! its first response. [`Counts`] says which faults were planned and which took effect.
//!
//! ```no_run
//! use mcp_tests::support::faults::{Fault, FaultProxy, Plan};
//! # let server: std::net::SocketAddr = "127.0.0.1:8080".parse().unwrap();
//! let proxy = FaultProxy::start(server, Plan::seeded(42, 10, vec![Fault::Reset { at: 200 }]))?;
//! let url = proxy.url("/mcp"); // the client talks to this
//! // ... calls under faults ...
//! proxy.set_plan(Plan::pass()); // faults stop: later calls must succeed
//! # Ok::<(), std::io::Error>(())
//! ```

mod framing;
mod plan;
mod proxy;
mod relay;
mod reset;
#[cfg(test)]
mod tests;

pub use plan::{Fault, Plan};
pub use proxy::{Counts, FaultProxy, MAX_CONNECTIONS};
