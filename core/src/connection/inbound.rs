//! Messages from the server: responses, notifications and (legacy) server-to-client requests.

use std::time::Instant;

use serde_json::{json, Value};

use super::{Connection, Outgoing, Proc, Session, WireUse};
use crate::era::Era;
use crate::error::{AnswerError, Warning};
use crate::event::{Event, LogMessage, Notification, Progress, ServerRequest};
use crate::handle::{Epoch, RequestHandle, ServerRequestHandle};
use crate::jsonrpc::{self, Message, ResultJson, RpcErrorObject, WireId};
use crate::request::ListKind;
use crate::schema::elicitation::FormSchema;
use crate::server_requests::{self, Prepared};
use crate::text::sanitize;
use crate::types::ServerRequestKind;
use crate::types::{HandlerError, HostRequest, LoggingLevel};

/// The constant error a server gets when a host handler fails (the detail stays local).
const HANDLER_FAILED: &str = "Client handler failed";

/// The JSON-RPC error code of a URL elicitation required error (2025-11-25).
const URL_ELICITATION_REQUIRED: i64 = -32042;

/// A server-to-client request waiting for the host.
#[derive(Debug)]
pub(super) struct PendingServerRequest {
    epoch: Epoch,
    id: WireId,
    kind: ServerRequestKind,
    /// Elicitation (form mode): the form the answer must match.
    form: Option<FormSchema>,
}

use super::requests::Answered;

impl Connection {
    pub(super) fn on_message(&mut self, now: Instant, epoch: Epoch, msg: Message) {
        match msg {
            Message::Result { id, result } => self.on_response(now, id, Ok(result)),
            Message::Error { id: Some(id), error } => self.on_response(now, id, Err(error)),
            Message::Error { id: None, error } => self.warn(Warning::InvalidMessage {
                reason: format!(
                    "error response without id: {} {}",
                    error.code,
                    sanitize(&error.message, 200)
                ),
            }),
            Message::Notification { method, params } => self.on_notification(now, &method, params),
            Message::Request { id, method, params } => self.on_server_request(epoch, id, &method, params),
        }
    }

    fn on_response(&mut self, now: Instant, id: WireId, outcome: Result<ResultJson, RpcErrorObject>) {
        let Some(usage) = self.take_answered(id) else { return };
        if let Err(e) = &outcome {
            if e.code == URL_ELICITATION_REQUIRED && self.session_era() == Some(Era::Legacy) {
                self.url_elicitations.open_from_error(e.data.as_ref());
            }
        }
        match usage {
            WireUse::Op(h) => {
                self.op_answered(h);
                self.on_op_response(now, h, outcome)
            }
            WireUse::Probe => self.on_probe_response(now, outcome.map(|r| r.to_value())),
            WireUse::Initialize => self.on_initialize_response(now, outcome.map(|r| r.to_value())),
            // The answer is proof of life; its arrival already counted as stream activity.
            #[cfg(feature = "http")]
            WireUse::KeepAlive => {}
            // Nobody waits for it.
            WireUse::Fire => {}
        }
    }

    /// What the answered wire id was used for, now finished; a warning (and `None`) for an
    /// id nothing waits for.
    pub(super) fn take_answered(&mut self, id: WireId) -> Option<WireUse> {
        let warning = match self.in_flight.answered(&id) {
            Answered::InFlight(usage) => return Some(usage),
            Answered::Late => Warning::LateResponse { id: id.to_string() },
            Answered::Unknown => Warning::UnknownResponseId { id: sanitize(&id.as_json(), 100) },
        };
        self.warn(warning);
        None
    }

    /// An operation's request was answered: nothing of it is in flight any more.
    pub(super) fn op_answered(&mut self, handle: RequestHandle) {
        self.in_flight.clear_sent(handle);
    }

    fn on_notification(&mut self, now: Instant, method: &str, params: Value) {
        // Subscription bookkeeping first (what a stream did not ask for stops there), then
        // cache invalidation, then delivery.
        let listen = match self.tagged(&params) {
            super::subscriptions::Tagged::Untagged => None,
            super::subscriptions::Tagged::Listen(handle) => Some(handle),
            super::subscriptions::Tagged::Gone => return,
        };
        if method == "notifications/subscriptions/acknowledged" {
            match listen {
                Some(handle) => self.on_listen_ack(handle, &params),
                None => self.warn(Warning::InvalidMessage {
                    reason: "a subscription acknowledgment without a subscription id".into(),
                }),
            }
            return;
        }
        if let Some(handle) = listen {
            if !self.listen_asked_for(handle, method, &params) {
                return;
            }
        }
        if method == "notifications/elicitation/complete" {
            self.on_elicitation_complete(&params);
            return;
        }
        if method == "notifications/tasks" || method == "notifications/tasks/status" {
            self.on_task_notification(now, &params);
        }
        let Some(notification) = self.read_notification(now, method, params) else { return };
        match &notification {
            Notification::ListChanged(kind) => self.invalidate(*kind),
            Notification::ResourceUpdated { uri } => self.drop_cached_reads(Some(uri)),
            _ => {}
        }
        match listen {
            Some(handle) => self.on_listen_notification(handle, notification),
            None => self.emit(Event::Notification(notification)),
        }
    }

    /// Reads a notification for the host; those the core consumes itself (progress,
    /// cancellation) or that are invalid give `None`.
    fn read_notification(&mut self, now: Instant, method: &str, params: Value) -> Option<Notification> {
        let max = self.cfg.limits.max_log_chars;
        let notification = match method {
            "notifications/progress" => {
                let Some(token) = params.get("progressToken") else {
                    self.warn(Warning::InvalidMessage { reason: "progress without progressToken".into() });
                    return None;
                };
                let key = token.to_string();
                let Some(progress) = params.get("progress").and_then(Value::as_f64) else {
                    self.warn(Warning::InvalidMessage {
                        reason: "progress without a numeric progress".into(),
                    });
                    return None;
                };
                let progress = Progress {
                    progress,
                    total: params.get("total").and_then(Value::as_f64),
                    message: params.get("message").and_then(Value::as_str).map(|m| sanitize(m, max)),
                };
                self.on_progress(now, &key, progress);
                return None;
            }
            "notifications/message" => {
                self.note_deprecated(crate::Deprecation::Logging, crate::UsedBy::Server);
                let level = params
                    .get("level")
                    .and_then(Value::as_str)
                    .and_then(|l| l.parse::<LoggingLevel>().ok())
                    .unwrap_or(LoggingLevel::Info);
                let logger = params.get("logger").and_then(Value::as_str).map(|l| sanitize(l, 200));
                let data = params.get("data").cloned().unwrap_or(Value::Null);
                let text = match &data {
                    Value::String(s) => sanitize(s, max),
                    other => sanitize(&other.to_string(), max),
                };
                Notification::Log(LogMessage { level, logger, text, data })
            }
            "notifications/tools/list_changed" => Notification::ListChanged(ListKind::Tools),
            "notifications/prompts/list_changed" => Notification::ListChanged(ListKind::Prompts),
            "notifications/resources/list_changed" => Notification::ListChanged(ListKind::Resources),
            "notifications/resources/updated" => match params.get("uri").and_then(Value::as_str) {
                Some(uri) => Notification::ResourceUpdated { uri: uri.to_owned() },
                None => {
                    self.warn(Warning::InvalidMessage { reason: "resources/updated without uri".into() });
                    return None;
                }
            },
            "notifications/cancelled" => {
                let id = params.get("requestId").map(WireId::from_value)?;
                if let Some(super::WireUse::Op(handle)) = self.in_flight.wire_use(&id) {
                    // On stdio a server ends a listen stream this way.
                    self.on_listen_cancelled_by_server(handle, &params);
                    return None;
                }
                let found = self.server_requests.iter().find(|(_, p)| p.id == id).map(|(h, _)| *h);
                if let Some(handle) = found {
                    self.server_requests.remove(&handle);
                    self.emit(Event::ServerRequestCancelled { handle });
                }
                return None;
            }
            _ => Notification::Other { method: method.to_owned(), params },
        };
        Some(notification)
    }

    fn session_era(&self) -> Option<Era> {
        match &self.proc {
            Proc::Running { session: Session::Ready(info), .. } => Some(info.era),
            Proc::Running { session: Session::Initializing, .. } => Some(Era::Legacy),
            _ => None,
        }
    }

    fn on_server_request(&mut self, epoch: Epoch, id: WireId, method: &str, params: Value) {
        if self.session_era() != Some(Era::Legacy) {
            self.warn(Warning::UnexpectedServerRequest { method: sanitize(method, 100) });
            let bytes = jsonrpc::encode_error(&id, -32601, "Method not found", None);
            self.send(epoch, Outgoing::Response(bytes));
            return;
        }
        self.note_server_request(method, &params);
        let features = &self.cfg.features;
        let kind = match method {
            "ping" => {
                self.send(epoch, Outgoing::Response(jsonrpc::encode_result(&id, &json!({}))));
                return;
            }
            "roots/list" if features.roots => ServerRequestKind::Roots,
            "sampling/createMessage" if features.sampling => ServerRequestKind::Sampling,
            "elicitation/create" if features.elicitation_form || features.elicitation_url => {
                ServerRequestKind::Elicitation
            }
            other => {
                let method = sanitize(other, 100);
                self.warn(Warning::ServerRequestRefused { method, reason: "no handler is installed".into() });
                self.send(
                    epoch,
                    Outgoing::Response(jsonrpc::encode_error(&id, -32601, "Method not found", None)),
                );
                return;
            }
        };
        if kind == ServerRequestKind::Roots && self.answer_roots(epoch, &id, &params) {
            return;
        }
        if self.server_requests.len() >= self.cfg.limits.max_concurrent_server_requests {
            let reason = format!(
                "{} server requests are already being handled",
                self.cfg.limits.max_concurrent_server_requests
            );
            self.warn(Warning::ServerRequestRefused { method: method.into(), reason });
            self.send(epoch, Outgoing::Response(jsonrpc::encode_error(&id, -32603, "Client is busy", None)));
            return;
        }
        let (Prepared { kind, form, elicitation_id, .. }, request) =
            match self.prepare_host_request(kind, params) {
                Ok(prepared) => prepared,
                Err(refusal) => {
                    let message = sanitize(&refusal.to_string(), 300);
                    self.send(epoch, Outgoing::Response(jsonrpc::encode_error(&id, -32602, &message, None)));
                    return;
                }
            };
        if let Some(elicitation_id) = elicitation_id {
            self.url_elicitations.open(&elicitation_id);
        }
        let handle = ServerRequestHandle::new(self.counters.server.next());
        self.server_requests.insert(handle, PendingServerRequest { epoch, id, kind, form });
        self.emit(Event::ServerRequest { handle, request: ServerRequest { kind, request } });
    }

    /// Checks and shapes a server's request to the host (either era; see
    /// [`crate::server_requests`]), then decodes it ([`HostRequest::decode`]): adjustments are
    /// reported as warnings, a refusal (an undecodable request too) as
    /// [`Warning::ServerRequestRefused`] and returned for the caller to send or fail with.
    pub(super) fn prepare_host_request(
        &mut self,
        kind: ServerRequestKind,
        params: Value,
    ) -> Result<(Prepared, HostRequest), server_requests::Refusal> {
        let era = self.session_era().unwrap_or(Era::Modern);
        let decoded = server_requests::prepare(kind, params, era, &self.cfg.features).and_then(|mut p| {
            let request = HostRequest::decode(p.kind, std::mem::take(&mut p.params))?;
            Ok((p, request))
        });
        match decoded {
            Ok(prepared) => {
                for adjustment in &prepared.0.adjustments {
                    let method = kind.method();
                    self.warn(Warning::HostRequestAdjusted { method, adjustment: adjustment.clone() });
                }
                Ok(prepared)
            }
            Err(refusal) => {
                let reason = refusal.to_string();
                self.warn(Warning::ServerRequestRefused { method: kind.method().into(), reason });
                Err(refusal)
            }
        }
    }

    /// `notifications/elicitation/complete`: passed on for an open URL elicitation of this
    /// connection, ignored otherwise (unknown, already completed, or malformed).
    fn on_elicitation_complete(&mut self, params: &Value) {
        let Some(id) = params.get("elicitationId").and_then(Value::as_str) else {
            self.warn(Warning::InvalidMessage {
                reason: "elicitation/complete without an elicitationId".into(),
            });
            return;
        };
        if self.url_elicitations.complete(id) {
            self.emit(Event::ElicitationComplete { elicitation_id: id.to_owned() });
        }
    }

    /// Shapes a handler's elicitation answer (see [`server_requests::shape_answer`]), reporting
    /// what changed.
    fn shape_host_answer(
        &mut self,
        handle: ServerRequestHandle,
        outcome: Result<Value, HandlerError>,
    ) -> Result<Value, HandlerError> {
        let kind = match (self.server_requests.get(&handle), self.inputs.get(&handle)) {
            (Some(p), _) => p.kind,
            (None, Some(p)) => p.kind,
            (None, None) => return outcome,
        };
        let (answer, adjustment) = server_requests::shape_answer(kind, outcome?);
        if let Some(adjustment) = adjustment {
            self.warn(Warning::HostRequestAdjusted { method: kind.method(), adjustment });
        }
        Ok(answer)
    }

    /// The work of [`Connection::respond_to_server`].
    pub(super) fn send_answer(
        &mut self,
        now: Instant,
        handle: ServerRequestHandle,
        outcome: Result<Value, HandlerError>,
    ) -> Result<(), AnswerError> {
        let now = self.tick(now);
        #[cfg(feature = "http")]
        if self.auth_prompt_is(handle) {
            self.auth_answer(now, handle, outcome);
            return Ok(());
        }
        let outcome = self.shape_host_answer(handle, outcome);
        if self.inputs.contains_key(&handle) {
            return self.answer_input(now, handle, outcome);
        }
        let Some(pending) = self.server_requests.get(&handle) else { return Err(AnswerError::Gone) };
        if let (Some(form), Ok(result)) = (&pending.form, &outcome) {
            form.check_result(result)?;
        }
        let Some(pending) = self.server_requests.remove(&handle) else { return Err(AnswerError::Gone) };
        if self.current_epoch() != Some(pending.epoch) {
            return Err(AnswerError::Gone);
        }
        let bytes = match outcome {
            Ok(result) => jsonrpc::encode_result(&pending.id, &result),
            Err(HandlerError { message, code }) => {
                let method = pending.kind.method().to_owned();
                let wire = code.map(|code| (code, sanitize(&message, 1000)));
                self.warn(Warning::HandlerFailed { method, detail: message });
                match wire {
                    Some((code, message)) => jsonrpc::encode_error(&pending.id, code, &message, None),
                    None => jsonrpc::encode_error(&pending.id, -32603, HANDLER_FAILED, None),
                }
            }
        };
        self.send(pending.epoch, Outgoing::Response(bytes));
        Ok(())
    }
}
