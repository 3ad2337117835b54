//! The states a connection moves through, each small and explicit: the process (`Proc`) and its
//! era handshake (`Session`), the connection's own life (`Phase`), a process's shutdown
//! (`ReapStage`), what each wire id in flight is for (`WireUse`), and one message for the server
//! (`Outgoing`). The transport with what only it holds (`Transport`) is beside the connection.

use crate::era::ServerInfo;
use crate::handle::{Counter, Epoch, RequestHandle};
use crate::jsonrpc::{self, WireId};

#[derive(Debug, Default)]
pub(super) struct Counters {
    pub(super) handles: Counter,
    pub(super) server: Counter,
    pub(super) epochs: Counter,
    pub(super) wire: Counter,
    pub(super) progress: Counter,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Phase {
    Open,
    Closing,
    Closed,
}

/// The current server process.
// One per connection, never collected: boxing the session would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub(super) enum Proc {
    /// No process; the next request starts one.
    Down,
    /// Spawn requested, not yet confirmed.
    Starting { epoch: Epoch },
    /// Running (on stdio, possibly just exited, with its last output still being read).
    Running { epoch: Epoch, session: Session },
}

/// The era sub-protocol of a running process.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub(super) enum Session {
    /// `server/discover` sent; `retried`: sent a second time already (after `-32022` naming a
    /// version the client speaks: one retry per handshake).
    Probing { retried: bool },
    /// Legacy `initialize` sent (the probe may still answer late).
    Initializing,
    /// Usable.
    Ready(ServerInfo),
}

/// One message for the server.
#[derive(Debug)]
pub(crate) enum Outgoing {
    /// A request (it expects a response with this id).
    Request { id: WireId, method: std::borrow::Cow<'static, str>, params: Option<serde_json::Value> },
    /// A notification.
    Notification { method: &'static str, params: Option<serde_json::Value> },
    /// An answer to a server-to-client request, already encoded.
    Response(Vec<u8>),
    /// A request already encoded (a plain `tools/call` of the legacy era, see
    /// `requests/send.rs`, `is_plain_call`, on HTTP): no params value is built for it.
    #[cfg(feature = "http")]
    Encoded { id: WireId, method: &'static str, bytes: Vec<u8> },
}

impl Outgoing {
    /// The message as one line, leaving an encoded one's bytes empty (they are moved out).
    pub(super) fn take_bytes(&mut self) -> Vec<u8> {
        match self {
            Outgoing::Request { id, method, params } => jsonrpc::encode_request(id, method, params.as_ref()),
            Outgoing::Notification { method, params } => {
                jsonrpc::encode_notification(method, params.as_ref())
            }
            Outgoing::Response(bytes) => std::mem::take(bytes),
            #[cfg(feature = "http")]
            Outgoing::Encoded { bytes, .. } => std::mem::take(bytes),
        }
    }
}

/// What a wire id in flight is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum WireUse {
    Op(RequestHandle),
    Probe,
    Initialize,
    /// A `ping` the client sent on its own (HTTP+SSE keep-alive).
    #[cfg(feature = "http")]
    KeepAlive,
    /// A request whose answer nobody waits for (`tasks/cancel`).
    Fire,
}

/// Shutdown escalation of a process that is going away.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ReapStage {
    /// Spawn not confirmed yet; close it as soon as it is.
    AwaitSpawn,
    /// Stdin closed; waiting for a voluntary exit.
    Grace,
    /// Terminate sent.
    Terminated,
    /// Kill sent; waiting for the exit report.
    Killed,
}
