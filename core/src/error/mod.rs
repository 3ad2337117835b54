//! Errors, split by who is at fault: the host (commands), the request's outcome, or the peer.
//!
//! The JSON-RPC error object ([`RpcError`]) sits at the bottom of the core (the transports and
//! the era judgement read it); the others gather the errors of the modules below them.

mod answer;
mod client;
mod command;
mod request;
mod rpc;
mod tool_call;
mod warning;

pub use answer::AnswerError;
pub use client::ClientError;
pub use command::CommandError;
pub use request::RequestError;
pub use rpc::{RpcError, RpcErrorKind};
pub use tool_call::ToolCallError;
pub use warning::Warning;
