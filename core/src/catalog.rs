//! Client-wide results: what every server of a client offered, each item tagged with its
//! server ([`ServerPrompt`], [`ServerResource`], [`ServerResourceTemplate`] in a [`ClientList`]),
//! and the per-server outcomes of client-wide commands ([`LogLevelReport`], [`ConnectReport`]).
//! One failing server does not hide the others' answers: it is a [`ServerFailure`] beside them.
//! Which server a request goes to is [`crate::routing`]'s.

use crate::era::ServerInfo;
use crate::error::ClientError;
use crate::types::{Prompt, Resource, ResourceTemplate};

/// A prompt together with the server that offers it.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerPrompt {
    /// The server's name.
    pub server: String,
    /// The prompt.
    pub prompt: Prompt,
}

/// A resource together with the server that offers it.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerResource {
    /// The server's name.
    pub server: String,
    /// The resource.
    pub resource: Resource,
}

/// A resource template together with the server that offers it.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerResourceTemplate {
    /// The server's name.
    pub server: String,
    /// The template.
    pub template: ResourceTemplate,
}

/// A server's request that failed, in a client-wide result.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerFailure {
    /// The server's name.
    pub server: String,
    /// What went wrong.
    pub error: ClientError,
}

/// A list gathered from every server of a client: what each server offered (tagged with the
/// server, in configuration order), the servers skipped because they do not declare the
/// capability, and the servers whose request failed. One failing server does not hide the
/// others' items.
#[derive(Debug, Clone, PartialEq)]
pub struct ClientList<T> {
    /// The items, each tagged with its server.
    pub items: Vec<T>,
    /// Servers that do not declare the capability the list needs (nothing was sent to them).
    pub skipped: Vec<String>,
    /// Servers whose list request failed.
    pub failed: Vec<ServerFailure>,
}

impl<T> Default for ClientList<T> {
    fn default() -> Self {
        Self { items: Vec::new(), skipped: Vec::new(), failed: Vec::new() }
    }
}

impl<T> ClientList<T> {
    /// Whether every server that declares the capability answered.
    pub fn is_complete(&self) -> bool {
        self.failed.is_empty()
    }

    /// The all-or-nothing view: the items when every server that declares the capability
    /// answered, else the first failing server's error.
    pub fn into_result(self) -> Result<Vec<T>, ClientError> {
        match self.failed.into_iter().next() {
            Some(failure) => Err(failure.error),
            None => Ok(self.items),
        }
    }
}

/// What a client-wide `set_log_level` did on each server.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LogLevelReport {
    /// Servers whose level was set.
    pub set: Vec<String>,
    /// Servers that do not declare `logging` (nothing was sent to them).
    pub skipped: Vec<String>,
    /// Servers where setting it failed.
    pub failed: Vec<ServerFailure>,
}

/// A server that connected, in a [`ConnectReport`].
#[derive(Debug, Clone, PartialEq)]
pub struct ConnectedServer {
    /// The server's name.
    pub server: String,
    /// What the server is (era, version, capabilities, ...).
    pub info: ServerInfo,
}

/// What a client-wide `connect` did on each server: every server is tried, one that cannot
/// connect does not stop the others.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ConnectReport {
    /// The servers that connected, in configuration order.
    pub connected: Vec<ConnectedServer>,
    /// The servers that could not connect, in configuration order.
    pub failed: Vec<ServerFailure>,
}

impl ConnectReport {
    /// Whether every server connected.
    pub fn is_complete(&self) -> bool {
        self.failed.is_empty()
    }

    /// The all-or-nothing view: every server's info in configuration order, or the first
    /// server's failure.
    pub fn into_result(self) -> Result<Vec<ServerInfo>, ClientError> {
        match self.failed.into_iter().next() {
            Some(failure) => Err(failure.error),
            None => Ok(self.connected.into_iter().map(|c| c.info).collect()),
        }
    }
}

/// Whether `error` says the server lacks a capability (the request was not sent): a
/// client-wide request skips such a server instead of counting it as a failure.
pub fn is_capability_missing(error: &ClientError) -> bool {
    matches!(error, ClientError::Request(crate::error::RequestError::CapabilityMissing { .. }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_or_nothing_views_give_the_first_failure() {
        let failure = |server: &str| ServerFailure { server: server.into(), error: ClientError::Closed };
        let mut list = ClientList { items: vec![1, 2], skipped: vec!["s".into()], failed: Vec::new() };
        assert_eq!(list.clone().into_result(), Ok(vec![1, 2]));
        list.failed = vec![failure("x"), failure("y")];
        assert_eq!(list.into_result(), Err(ClientError::Closed));
        let report = ConnectReport::default();
        assert!(report.is_complete());
        assert_eq!(report.into_result(), Ok(Vec::new()));
        let report = ConnectReport { connected: Vec::new(), failed: vec![failure("x")] };
        assert!(!report.is_complete());
        assert_eq!(report.into_result(), Err(ClientError::Closed));
    }
}
