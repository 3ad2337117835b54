//! Transport detection: which HTTP transport to try, what each one tried got, and the verdict
//! once one worked.

use crate::era::Era;
use crate::transport::TransportKind;
use crate::transport_attempt::TransportAttempt;

/// The transports to try in order, the one being tried, and the one that worked.
#[derive(Debug)]
pub(super) struct Detection {
    /// The transports to try, in order (the configuration's `kinds`).
    kinds: Vec<TransportKind>,
    /// The transport being tried (index into `kinds`), until a session works.
    at: usize,
    /// The transport and era that worked, kept for the connection's lifetime.
    verdict: Option<(TransportKind, Era)>,
    /// The transports given up on so far, with what each got.
    attempts: Vec<TransportAttempt>,
}

impl Detection {
    pub(super) fn new(kinds: Vec<TransportKind>) -> Self {
        Self { kinds, at: 0, verdict: None, attempts: Vec::new() }
    }

    /// The transport in use (or being tried).
    pub(super) fn kind(&self) -> TransportKind {
        match self.verdict {
            Some((kind, _)) => kind,
            None => self.kinds.get(self.at).copied().unwrap_or(TransportKind::StreamableHttp),
        }
    }

    /// Whether another transport remains to be tried.
    pub(super) fn has_next(&self) -> bool {
        self.verdict.is_none() && self.at + 1 < self.kinds.len()
    }

    /// Gives up on the transport being tried, which got what `attempt` says.
    pub(super) fn advance(&mut self, attempt: TransportAttempt) {
        self.attempts.push(attempt);
        self.at += 1;
    }

    /// The last transport got what `attempt` says: every try, if other transports were tried
    /// before it (the detection failed), else `None` (the one transport failed).
    pub(super) fn give_up(&mut self, attempt: TransportAttempt) -> Option<Vec<TransportAttempt>> {
        if self.attempts.is_empty() {
            return None;
        }
        let mut attempts = std::mem::take(&mut self.attempts);
        attempts.push(attempt);
        Some(attempts)
    }

    /// A handshake failed before any transport worked: the next attempt tries the transports
    /// from the first again (a transient fault must not lose the transport that works).
    pub(super) fn restart(&mut self) {
        if self.verdict.is_none() {
            self.at = 0;
            self.attempts.clear();
        }
    }

    /// The session became usable: keep its transport and era. Returns the transport.
    pub(super) fn settle(&mut self, era: Era) -> TransportKind {
        let kind = self.kind();
        self.verdict = Some((kind, era));
        self.attempts = Vec::new();
        kind
    }

    /// Whether the handshake must skip the probe: the era is known to be legacy already, or
    /// the transport is HTTP+SSE (2024-11-05 only), or plain HTTP reached after a fallback.
    pub(super) fn known_legacy(&self) -> bool {
        let plain_after_fallback = self.kind() == TransportKind::PlainHttp && self.at > 0;
        matches!(self.verdict, Some((_, Era::Legacy)))
            || self.kind() == TransportKind::Sse
            || plain_after_fallback
    }
}
