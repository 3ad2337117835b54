//! Opaque handles: never reused, distinct from JSON-RPC wire ids.

use std::fmt;

macro_rules! handle {
    ($(#[$doc:meta])* $name:ident, $prefix:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(u64);

        impl $name {
            /// The numeric value, for logs and maps.
            pub fn get(self) -> u64 {
                self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
    };
}

handle!(
    /// Names one host request for its whole life (pages, retries and re-issues included).
    RequestHandle,
    "req#"
);
handle!(
    /// Names one server-to-client request waiting for the host's answer.
    ServerRequestHandle,
    "srv#"
);
handle!(
    /// Names one server process instance; input tagged with an old epoch is ignored.
    Epoch,
    "epoch#"
);

#[cfg(feature = "http")]
handle!(
    /// Names one HTTP exchange (request and response); reports for an aborted or finished
    /// exchange are ignored.
    ExchangeId,
    "http#"
);

/// Allocates strictly increasing values, starting at 1.
#[derive(Debug, Clone, Default)]
pub(crate) struct Counter(u64);

impl Counter {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 += 1;
        self.0
    }
}

impl RequestHandle {
    pub(crate) fn new(n: u64) -> Self {
        Self(n)
    }
}

impl ServerRequestHandle {
    pub(crate) fn new(n: u64) -> Self {
        Self(n)
    }
}

impl Epoch {
    pub(crate) fn new(n: u64) -> Self {
        Self(n)
    }
}

#[cfg(feature = "http")]
impl ExchangeId {
    pub(crate) fn new(n: u64) -> Self {
        Self(n)
    }
}
