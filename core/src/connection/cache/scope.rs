//! Who may be served a cached result: the `cacheScope` hint of a 2026-07-28 result.

/// Who may be served a cached result (the result's `cacheScope`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CacheScope {
    /// No user-specific data: served whatever credential a request goes out with.
    Public,
    /// Served only to requests going out with the `Authorization` it was fetched with. A missing
    /// or unrecognised `cacheScope` means private.
    Private,
}

impl CacheScope {
    /// The scope a `cacheScope` hint means.
    pub(crate) fn from_hint(hint: Option<&str>) -> Self {
        match hint {
            Some("public") => CacheScope::Public,
            _ => CacheScope::Private,
        }
    }
}
