//! [`ExchangeFailure`]: why an HTTP exchange ended without a response, as every runtime
//! reports it, and the input the core takes for it.

use crate::connection::Input;
use crate::destination::UnsafeAddress;
use crate::handle::ExchangeId;

/// Why an HTTP exchange ended without a response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExchangeFailure {
    /// A transport failure (connect, TLS, reset, timeout...), described.
    Transport(String),
    /// Refused before connecting: the host resolved only to addresses outside the request's
    /// [`Destination`](crate::Destination).
    Refused(UnsafeAddress),
}

impl ExchangeFailure {
    /// The input that reports this failure of `exchange` to the core.
    pub fn into_input(self, exchange: ExchangeId) -> Input {
        match self {
            Self::Transport(detail) => Input::HttpFailed(exchange, detail),
            Self::Refused(refusal) => Input::HttpRefused(exchange, refusal),
        }
    }
}

impl From<String> for ExchangeFailure {
    fn from(detail: String) -> Self {
        Self::Transport(detail)
    }
}

impl From<UnsafeAddress> for ExchangeFailure {
    fn from(refusal: UnsafeAddress) -> Self {
        Self::Refused(refusal)
    }
}
