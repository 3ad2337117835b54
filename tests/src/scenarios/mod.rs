//! Scenarios against the bundled test server (`mcp-test-server`), each written once as a
//! `define_*!` macro and expanded for every runtime by the files of `tests/tests/`.

#[cfg(feature = "oauth")]
pub mod address_check;
mod cache;
pub mod callback;
mod catalog;
mod fan_out;
mod futures;
mod input_wait;
#[cfg(feature = "oauth")]
mod issuer_switch;
mod meta;
mod oversize;
mod process_group;
mod push;
mod roots;
mod server_request;
mod suite;
mod task;
