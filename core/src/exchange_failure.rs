//! [`ExchangeFailure`]: why an HTTP exchange ended without a response, as every runtime
//! reports it. The input the core takes for it is `ExchangeFailure::into_input` (next to
//! [`crate::Input`]).

use crate::destination::UnsafeAddress;

/// Why an HTTP exchange ended without a response.
#[derive(Debug)]
pub enum ExchangeFailure {
    /// A transport failure (connect, TLS, reset, timeout...): the operating system's error, or
    /// one made to describe it ([`std::io::Error::other`]).
    Transport(std::io::Error),
    /// Refused before connecting: the host resolved only to addresses outside the request's
    /// [`Destination`](crate::Destination).
    Refused(UnsafeAddress),
}

impl ExchangeFailure {
    /// A transport failure caused by `error`, its message prefixed with `context` (what was
    /// being done); the kind (`ConnectionRefused`, `TimedOut`, ...) is kept.
    pub fn io(context: &str, error: std::io::Error) -> Self {
        Self::Transport(std::io::Error::new(error.kind(), format!("{context}: {error}")))
    }

    /// A transport failure described by a library error (hyper, ureq, rustls): the message is
    /// `context` and the error's chain of sources; the kind is that of the first
    /// [`std::io::Error`] in the chain, if any (`Other` otherwise).
    pub fn described(context: &str, error: &(dyn std::error::Error + 'static)) -> Self {
        let mut text = format!("{context}: {error}");
        let mut kind = error.downcast_ref::<std::io::Error>().map(std::io::Error::kind);
        let mut source = error.source();
        while let Some(s) = source {
            text.push_str(&format!(": {s}"));
            kind = kind.or_else(|| s.downcast_ref::<std::io::Error>().map(std::io::Error::kind));
            source = s.source();
        }
        Self::Transport(std::io::Error::new(kind.unwrap_or(std::io::ErrorKind::Other), text))
    }
}

impl From<String> for ExchangeFailure {
    fn from(detail: String) -> Self {
        Self::Transport(std::io::Error::other(detail))
    }
}

impl From<std::io::Error> for ExchangeFailure {
    fn from(error: std::io::Error) -> Self {
        Self::Transport(error)
    }
}

impl From<UnsafeAddress> for ExchangeFailure {
    fn from(refusal: UnsafeAddress) -> Self {
        Self::Refused(refusal)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A library error wrapping an `io::Error` somewhere in its chain.
    #[derive(Debug)]
    struct Wrapper(std::io::Error);

    impl std::fmt::Display for Wrapper {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("client error")
        }
    }

    impl std::error::Error for Wrapper {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.0)
        }
    }

    #[test]
    fn the_kind_survives_context_and_wrapping() {
        let refused = || std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "refused");
        let ExchangeFailure::Transport(e) = ExchangeFailure::io("connecting to h:1 failed", refused()) else {
            panic!()
        };
        assert_eq!(
            (e.kind(), e.to_string()),
            (std::io::ErrorKind::ConnectionRefused, "connecting to h:1 failed: refused".into())
        );
        let ExchangeFailure::Transport(e) =
            ExchangeFailure::described("HTTP request failed", &Wrapper(refused()))
        else {
            panic!()
        };
        assert_eq!(e.kind(), std::io::ErrorKind::ConnectionRefused);
        assert_eq!(e.to_string(), "HTTP request failed: client error: refused");
        let ExchangeFailure::Transport(e) = ExchangeFailure::from("no address".to_owned()) else { panic!() };
        assert_eq!(e.kind(), std::io::ErrorKind::Other);
    }
}
