//! Test support for the mcp client workspace.
//!
//! The crate also builds the `mcp-test-server` binary, a deterministic MCP
//! server used as a fixture by the client integration tests.

/// Shared helpers for integration tests (to be filled in).
pub mod support {}
