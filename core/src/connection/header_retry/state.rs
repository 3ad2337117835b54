//! What a request did about `Mcp-Param-*` headers (2026-07-28 HTTP), or whom an internal
//! `tools/list` is for.

use crate::handle::RequestHandle;

/// What an op did about `Mcp-Param-*` headers, or whom an internal `tools/list` is for.
#[derive(Debug, Default)]
pub(in crate::connection) struct HeaderState {
    /// A call: the internal list it waits for.
    pub(super) waiting: Option<RequestHandle>,
    /// A call: it listed the tools before going out (never twice).
    pub(super) listed_first: bool,
    /// A call: it was answered with `-32020` once; it waits for (or went out after) a refresh.
    pub(super) mismatch: bool,
    /// An internal list: the calls waiting for it (`None`: not an internal list).
    pub(super) waiters: Option<Vec<RequestHandle>>,
    /// An internal list refreshing definitions after a mismatch (no call joins it to list first).
    pub(super) refresh: bool,
}

impl HeaderState {
    /// Whether the op is an internal `tools/list` (no host request).
    pub(in crate::connection) fn is_internal(&self) -> bool {
        self.waiters.is_some()
    }
}
