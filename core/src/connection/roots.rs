//! The client's roots when the connection answers `roots/list` itself: the list starts as
//! [`ConnectionConfig::roots`](crate::ConnectionConfig::roots) and changes with
//! [`Connection::set_roots`]. A legacy server the client told `roots.listChanged` gets
//! `notifications/roots/list_changed` when the list changes and asks again; a 2026-07-28
//! server has no such notification and gets the current list whenever it asks (an
//! `inputRequests` entry for `roots/list`). Either way no host handler runs.

use std::time::Instant;

use serde_json::Value;

use super::{Connection, Outgoing, Phase, Proc, Session};
use crate::era::Era;
use crate::error::CommandError;
use crate::error::Warning;
use crate::event::{Event, ServerRequest};
use crate::handle::{Epoch, ServerRequestHandle};
use crate::jsonrpc::{self, WireId};
use crate::text::sanitize;
use crate::types::ServerRequestKind;
use crate::types::{roots_result, Root, RootsRequest};

impl Connection {
    /// The work of [`Connection::roots`].
    pub(super) fn held_roots(&self) -> Option<&[Root]> {
        self.cfg.roots.as_deref()
    }

    /// The work of [`Connection::set_roots`].
    pub(super) fn replace_roots(&mut self, now: Instant, roots: Vec<Root>) -> Result<(), CommandError> {
        self.tick(now);
        if self.phase != Phase::Open {
            return Err(CommandError::Closed);
        }
        let Some(current) = self.cfg.roots.as_mut() else { return Err(CommandError::RootsNotManaged) };
        if *current == roots {
            return Ok(());
        }
        *current = roots;
        if !self.cfg.features.roots_list_changed {
            return Ok(());
        }
        if let Proc::Running { epoch, session: Session::Ready(info) } = &self.proc {
            if info.era == Era::Legacy {
                let epoch = *epoch;
                let out = Outgoing::Notification { method: "notifications/roots/list_changed", params: None };
                self.send(epoch, out);
            }
        }
        Ok(())
    }

    /// A legacy `roots/list` (id `id`): answered at once from the held roots, if there are
    /// any (`true`; params that do not decode get `-32602`); `false` leaves it to the host's
    /// handler.
    pub(super) fn answer_roots(&mut self, epoch: Epoch, id: &WireId, params: &Value) -> bool {
        let Some(roots) = &self.cfg.roots else { return false };
        let bytes = match RootsRequest::from_value(params.clone()) {
            Ok(_) => jsonrpc::encode_result(id, &roots_result(roots)),
            Err(e) => {
                let reason = e.to_string();
                self.warn(Warning::ServerRequestRefused {
                    method: "roots/list".into(),
                    reason: reason.clone(),
                });
                jsonrpc::encode_error(id, -32602, &sanitize(&format!("invalid params: {reason}"), 300), None)
            }
        };
        self.send(epoch, Outgoing::Response(bytes));
        true
    }

    /// Hands an input request of a 2026-07-28 round to the host, or answers a `roots/list` at
    /// once from the held roots.
    pub(super) fn ask_host(&mut self, now: Instant, handle: ServerRequestHandle, request: ServerRequest) {
        if request.kind == ServerRequestKind::Roots {
            if let Some(roots) = &self.cfg.roots {
                let answer = roots_result(roots);
                // The input was registered just before: it cannot be gone or fail a form check.
                let _ = self.answer_input(now, handle, Ok(answer));
                return;
            }
        }
        self.emit(Event::ServerRequest { handle, request });
    }
}
