//! [`IoError`]: the operating system's error behind a failed spawn or HTTP exchange, kept as
//! the source of the [`RequestError`](crate::RequestError) it caused.

use std::fmt;
use std::io;
use std::sync::Arc;

/// An [`io::Error`] shared so that the errors carrying it stay `Clone`; two are equal when
/// their kind and message are. [`IoError::get`] gives the `io::Error` itself (its
/// [`kind`](io::Error::kind), its raw OS code, its inner error).
#[derive(Debug, Clone)]
pub struct IoError(Arc<io::Error>);

impl IoError {
    /// Wraps `error`.
    pub fn new(error: io::Error) -> Self {
        Self(Arc::new(error))
    }

    /// An error of kind [`io::ErrorKind::Other`] with this message, for failures a runtime
    /// describes without an `io::Error` of its own.
    pub fn other(message: impl Into<String>) -> Self {
        Self::new(io::Error::other(message.into()))
    }

    /// The `io::Error`.
    pub fn get(&self) -> &io::Error {
        &self.0
    }

    /// Its kind.
    pub fn kind(&self) -> io::ErrorKind {
        self.0.kind()
    }
}

impl From<io::Error> for IoError {
    fn from(error: io::Error) -> Self {
        Self::new(error)
    }
}

impl PartialEq for IoError {
    fn eq(&self, other: &Self) -> bool {
        self.kind() == other.kind() && self.0.to_string() == other.0.to_string()
    }
}

impl fmt::Display for IoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for IoError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_kind_and_compares_by_kind_and_message() {
        let a = IoError::new(io::Error::new(io::ErrorKind::NotFound, "no such program"));
        assert_eq!(a.kind(), io::ErrorKind::NotFound);
        assert_eq!(a.to_string(), "no such program");
        assert_eq!(a, a.clone());
        assert_ne!(a, IoError::other("no such program"));
    }
}
