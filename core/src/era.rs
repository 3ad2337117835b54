//! The protocol era a server speaks ([`Era`]) and what it said about itself ([`ServerInfo`]).
//! How the era is detected is the connection's (`connection/handshake.rs`).

use crate::types::{Implementation, ServerCapabilities};

/// The protocol era a server speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Era {
    /// 2026-07-28 and later: stateless, per-request `_meta`.
    Modern,
    /// 2025-11-25 and earlier: `initialize` handshake.
    Legacy,
}

impl Era {
    /// `"modern"` or `"legacy"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Era::Modern => "modern",
            Era::Legacy => "legacy",
        }
    }
}

/// What is known about a connected server.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerInfo {
    /// The era it speaks.
    pub era: Era,
    /// The protocol revision in use.
    pub protocol_version: String,
    /// The server's self-reported identity (not verified; do not base decisions on it).
    pub implementation: Option<Implementation>,
    /// Its capabilities.
    pub capabilities: ServerCapabilities,
    /// Usage instructions for models, if given.
    pub instructions: Option<String>,
    /// Versions a modern server listed in `server/discover` (empty for legacy servers).
    pub supported_versions: Vec<String>,
    /// The transport the connection uses.
    pub transport: crate::transport::TransportKind,
}
