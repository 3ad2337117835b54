//! JSON-RPC errors as the server sent them, and what their codes mean.

use serde_json::Value;

/// A JSON-RPC error returned by the server, with its code, message and data kept intact.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("server error {code}: {message}")]
pub struct RpcError {
    /// The JSON-RPC error code.
    pub code: i64,
    /// The server's message.
    pub message: String,
    /// Structured data, if the server sent any.
    pub data: Option<Value>,
}

/// The meaning of a JSON-RPC error code, where the specification gives one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum RpcErrorKind {
    /// -32700.
    ParseError,
    /// -32600.
    InvalidRequest,
    /// -32601.
    MethodNotFound,
    /// -32602 (also "resource not found" in 2026-07-28).
    InvalidParams,
    /// -32603.
    InternalError,
    /// -32002, resource not found in revisions up to 2025-11-25.
    ResourceNotFound,
    /// -32020: an HTTP header is missing or does not match the body.
    HeaderMismatch,
    /// -32021: the request lacks a client capability the server needs.
    MissingRequiredClientCapability,
    /// -32022: the server does not serve the requested protocol version.
    UnsupportedProtocolVersion,
    /// Any other code (implementation-defined).
    Other,
}

impl RpcError {
    /// Classifies the code.
    pub fn kind(&self) -> RpcErrorKind {
        match self.code {
            -32700 => RpcErrorKind::ParseError,
            -32600 => RpcErrorKind::InvalidRequest,
            -32601 => RpcErrorKind::MethodNotFound,
            -32602 => RpcErrorKind::InvalidParams,
            -32603 => RpcErrorKind::InternalError,
            -32002 => RpcErrorKind::ResourceNotFound,
            -32020 => RpcErrorKind::HeaderMismatch,
            -32021 => RpcErrorKind::MissingRequiredClientCapability,
            -32022 => RpcErrorKind::UnsupportedProtocolVersion,
            _ => RpcErrorKind::Other,
        }
    }

    /// True for the errors only a 2026-07-28 server sends (they identify a modern server).
    pub fn is_modern_error(&self) -> bool {
        matches!(
            self.kind(),
            RpcErrorKind::HeaderMismatch
                | RpcErrorKind::MissingRequiredClientCapability
                | RpcErrorKind::UnsupportedProtocolVersion
        )
    }

    /// For -32022: the versions the server says it supports.
    pub fn supported_versions(&self) -> Vec<String> {
        self.data
            .as_ref()
            .and_then(|d| d.get("supported"))
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).map(str::to_owned).collect())
            .unwrap_or_default()
    }
}
