//! Fake-time tests of [`mcpwire_core::Connection`], through its public API only.
//!
//! Every test drives the state machine through [`harness::Harness`], which owns the only clock
//! (one base instant plus durations), drains every output after every input, and checks the
//! invariants of the run loop as it goes: each `Io::Write` is exactly one line, each request
//! handle gets exactly one `Event::Response` (and nothing after it), and after `handle_timeout`
//! no deadline at or before `now` remains.

mod harness;
mod http_harness;

mod cache;
mod deprecations;
mod discover_refresh;
mod elicitation_answers;
mod era;
mod gating;
mod http;
mod http_auth;
mod http_auth_switch;
mod http_detection;
mod http_lists;
mod http_redirects;
mod http_sse;
mod inbound;
mod input_rounds;
mod input_waits;
mod lifecycle;
mod listen_gate;
mod lists;
mod modes;
mod oversize;
mod param_headers;
mod requests;
mod resubscribe;
mod roots;
mod server_requests;
mod subscriptions;
mod tasks;
mod typed_server_requests;
#[cfg(feature = "schema")]
mod validation;
mod wire_trace;
