//! The HTTP session of the current epoch: where messages go, and what a legacy session keeps
//! (`Mcp-Session-Id`, the negotiated revision, the GET stream, broken streams to resume).

use crate::handle::ExchangeId;
use crate::jsonrpc::WireId;

/// The session state of an HTTP link.
#[derive(Debug)]
pub(super) enum SessionState {
    /// No session: before the first one, and once one ended.
    Idle,
    /// HTTP+SSE: the event stream is opening; its `endpoint` event says where to post.
    AwaitingEndpoint,
    /// Messages are posted to `endpoint`: the handshake, then the session (modern or legacy).
    Open { endpoint: String, legacy: LegacySession },
    /// Closing: the `DELETE` ending the legacy session is under way.
    Closing { delete: ExchangeId },
}

/// What a legacy (2025-11-25 and earlier) session keeps. Empty while nothing was negotiated
/// (during the probe, and in a modern session).
#[derive(Debug, Default)]
pub(super) struct LegacySession {
    /// `Mcp-Session-Id`, assigned in the `initialize` answer.
    pub(super) id: Option<String>,
    /// The revision negotiated, sent as `MCP-Protocol-Version`.
    pub(super) version: Option<String>,
    /// Streamable HTTP: the standalone GET stream.
    pub(super) listen: ListenStream,
    /// Broken response streams waiting to be resumed.
    pub(super) resumes: Vec<Resume>,
}

/// The legacy Streamable HTTP GET stream ("listen"): server requests and notifications.
#[derive(Debug, Default)]
pub(super) struct ListenStream {
    pub(super) state: Listen,
    /// The session's first GET stream has no response head yet, so host requests wait (a
    /// server request sent before the stream exists would be lost). Opened by the head, the
    /// stream's end or failure, or a timer.
    pub(super) gate: bool,
    /// The last event id seen on the stream (for `Last-Event-ID`).
    pub(super) last_event_id: Option<String>,
    /// Consecutive failed reconnections.
    pub(super) failures: u32,
}

/// Where the GET stream is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) enum Listen {
    /// Not open (not a legacy Streamable HTTP session, or not yet ready).
    #[default]
    Off,
    /// Open as this exchange.
    Open(ExchangeId),
    /// Waiting for the reconnection timer.
    Waiting,
    /// The server has no GET stream (405), or reconnections keep failing.
    Unsupported,
}

/// A broken response stream waiting to be resumed with `Last-Event-ID`.
#[derive(Debug)]
pub(super) struct Resume {
    /// The request whose response the stream carries.
    pub(super) id: WireId,
    /// The last event id seen on it.
    pub(super) last: String,
    /// Resumptions tried so far.
    pub(super) attempts: u32,
}

impl SessionState {
    /// A new session posting to `endpoint`.
    pub(super) fn open(endpoint: String) -> Self {
        SessionState::Open { endpoint, legacy: LegacySession::default() }
    }

    /// Where messages are posted, once known.
    pub(super) fn endpoint(&self) -> Option<&str> {
        match self {
            SessionState::Open { endpoint, .. } => Some(endpoint),
            _ => None,
        }
    }

    /// The legacy state of an open session.
    pub(super) fn legacy(&self) -> Option<&LegacySession> {
        match self {
            SessionState::Open { legacy, .. } => Some(legacy),
            _ => None,
        }
    }

    pub(super) fn legacy_mut(&mut self) -> Option<&mut LegacySession> {
        match self {
            SessionState::Open { legacy, .. } => Some(legacy),
            _ => None,
        }
    }

    /// The `Mcp-Session-Id` of an open session, if the server assigned one.
    pub(super) fn id(&self) -> Option<&str> {
        self.legacy().and_then(|l| l.id.as_deref())
    }

    /// The GET stream's state (`Off` outside an open session).
    pub(super) fn listen(&self) -> Listen {
        self.legacy().map_or(Listen::Off, |l| l.listen.state)
    }

    /// Whether host requests wait for the GET stream of a new legacy session.
    pub(super) fn gated(&self) -> bool {
        self.legacy().is_some_and(|l| l.listen.gate)
    }

    /// The `DELETE` of a closing session.
    pub(super) fn closing(&self) -> Option<ExchangeId> {
        match self {
            SessionState::Closing { delete } => Some(*delete),
            _ => None,
        }
    }

    /// A new legacy session holds host requests until its GET stream answers. Whether the
    /// session is open.
    pub(super) fn close_gate(&mut self) -> bool {
        self.legacy_mut().map(|l| l.listen.gate = true).is_some()
    }

    /// The GET stream answered (or will not): whether host requests were held for it.
    pub(super) fn open_gate(&mut self) -> bool {
        self.legacy_mut().is_some_and(|l| std::mem::replace(&mut l.listen.gate, false))
    }

    /// The GET stream is open as `exchange`.
    pub(super) fn listen_opened(&mut self, exchange: ExchangeId) {
        if let Some(legacy) = self.legacy_mut() {
            legacy.listen.state = Listen::Open(exchange);
        }
    }

    /// The server has no GET stream, or reconnections keep failing.
    pub(super) fn listen_unsupported(&mut self) {
        if let Some(legacy) = self.legacy_mut() {
            legacy.listen.state = Listen::Unsupported;
        }
    }

    /// The legacy revision was negotiated (`initialize` answered).
    pub(super) fn set_version(&mut self, version: &str) {
        if let Some(legacy) = self.legacy_mut() {
            legacy.version = Some(version.to_owned());
        }
    }

    /// The epoch is over: nothing of the session is kept (a closing `DELETE` stays).
    pub(super) fn end(&mut self) {
        if !matches!(self, SessionState::Closing { .. }) {
            *self = SessionState::Idle;
        }
    }
}
