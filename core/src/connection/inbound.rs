//! Messages from the server: responses, notifications and (legacy) server-to-client requests.

use std::time::Instant;

use serde_json::{json, Value};

use super::{Connection, Outgoing, Proc, Session, WireUse};
use crate::error::{AnswerError, Warning};
use crate::event::{Event, ListKind, LogMessage, Notification, Progress, ServerRequest, ServerRequestKind};
use crate::framing::Frame;
use crate::handle::{Epoch, ServerRequestHandle};
use crate::jsonrpc::{self, DecodeError, Message, RpcErrorObject, WireId};
use crate::schema::elicitation::{form_of, FormSchema};
use crate::session::Era;
use crate::text::{sanitize, sanitize_bytes};
use crate::types::LoggingLevel;

/// The constant error a server gets when a host handler fails (the detail stays local).
const HANDLER_FAILED: &str = "Client handler failed";

/// A server-to-client request waiting for the host.
#[derive(Debug)]
pub(super) struct PendingServerRequest {
    epoch: Epoch,
    id: WireId,
    kind: ServerRequestKind,
    /// Elicitation (form mode): the form the answer must match.
    form: Option<FormSchema>,
}

impl Connection {
    /// Bytes from the server's stdout.
    pub fn handle_stdout(&mut self, now: Instant, epoch: Epoch, bytes: &[u8]) {
        let now = self.tick(now);
        if !self.is_current_reader(epoch) {
            return;
        }
        self.stdout.push(bytes);
        self.drain_stdout(now, epoch);
    }

    /// The server's stdout reached end of file.
    pub fn handle_stdout_eof(&mut self, now: Instant, epoch: Epoch) {
        let now = self.tick(now);
        if !self.is_current_reader(epoch) {
            return;
        }
        self.stdout.finish();
        self.drain_stdout(now, epoch);
        self.on_stdout_closed(now, epoch);
    }

    /// Bytes from the server's stderr: split into lines, sanitised, surfaced as
    /// [`Event::Stderr`]; the last few are kept to explain a crash.
    pub fn handle_stderr(&mut self, now: Instant, epoch: Epoch, bytes: &[u8]) {
        self.tick(now);
        if self.current_epoch() != Some(epoch) {
            return;
        }
        self.stderr.push(bytes);
        self.drain_stderr();
    }

    /// The server's stderr reached end of file: a final unterminated line is surfaced.
    pub fn handle_stderr_eof(&mut self, now: Instant, epoch: Epoch) {
        self.tick(now);
        if self.current_epoch() != Some(epoch) {
            return;
        }
        self.stderr.finish();
        self.drain_stderr();
    }

    fn is_current_reader(&self, epoch: Epoch) -> bool {
        matches!(self.proc, Proc::Running { epoch: e, stdout_eof: false, .. } if e == epoch)
    }

    pub(super) fn drain_stderr(&mut self) {
        let max_chars = self.cfg.limits.max_stderr_line_bytes;
        while let Some(frame) = self.stderr.next_frame() {
            let line = match frame {
                Frame::Line(l) => sanitize_bytes(&l, max_chars),
                Frame::Oversize { len, head } => {
                    format!("{}…[line of {len} bytes truncated]", sanitize_bytes(&head, max_chars))
                }
            };
            self.stderr_tail.push_back(line.clone());
            while self.stderr_tail.len() > self.cfg.limits.stderr_tail_lines {
                self.stderr_tail.pop_front();
            }
            self.emit(Event::Stderr(line));
        }
    }

    fn drain_stdout(&mut self, now: Instant, epoch: Epoch) {
        while let Some(frame) = self.stdout.next_frame() {
            match frame {
                Frame::Oversize { len, .. } => {
                    let limit = self.cfg.limits.max_message_bytes;
                    self.warn(Warning::OversizeMessage { len, limit });
                }
                Frame::Line(line) if line.iter().all(u8::is_ascii_whitespace) => {}
                Frame::Line(line) => {
                    for msg in jsonrpc::decode(&line) {
                        // A batch element may end the process's usefulness: skip the rest.
                        if !self.is_current_reader(epoch) {
                            return;
                        }
                        match msg {
                            Ok(m) => self.on_message(now, epoch, m),
                            Err(DecodeError::NotJson(_)) => {
                                let excerpt = sanitize_bytes(&line[..line.len().min(200)], 200);
                                self.warn(Warning::NonJsonLine { excerpt });
                            }
                            Err(DecodeError::Invalid(reason)) => {
                                self.warn(Warning::InvalidMessage { reason: reason.into() })
                            }
                        }
                    }
                }
            }
            // A message may have ended the process's usefulness (e.g. a failed handshake).
            if !self.is_current_reader(epoch) {
                return;
            }
        }
    }

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
            Message::Notification { method, params } => self.on_notification(now, epoch, &method, params),
            Message::Request { id, method, params } => {
                self.on_server_request(now, epoch, id, &method, params)
            }
        }
    }

    fn on_response(&mut self, now: Instant, id: WireId, outcome: Result<Value, RpcErrorObject>) {
        let Some(usage) = self.wire.remove(&id) else {
            let w = if self.recent_set.contains(&id) {
                Warning::LateResponse { id: id.to_string() }
            } else {
                Warning::UnknownResponseId { id: sanitize(id.as_json(), 100) }
            };
            self.warn(w);
            return;
        };
        self.remember_finished(id);
        match usage {
            WireUse::Op(h) => {
                if let Some(op) = self.ops.get_mut(&h) {
                    op.sent = None;
                }
                self.on_op_response(now, h, outcome)
            }
            WireUse::Probe => self.on_probe_response(now, outcome),
            WireUse::Initialize => self.on_initialize_response(now, outcome),
            // The answer is proof of life; its arrival already counted as stream activity.
            WireUse::KeepAlive => {}
        }
    }

    fn on_notification(&mut self, now: Instant, _epoch: Epoch, method: &str, params: Value) {
        let max = self.cfg.limits.max_log_chars;
        match method {
            "notifications/progress" => {
                let Some(token) = params.get("progressToken") else {
                    self.warn(Warning::InvalidMessage { reason: "progress without progressToken".into() });
                    return;
                };
                let key = token.to_string();
                let Some(progress) = params.get("progress").and_then(Value::as_f64) else {
                    self.warn(Warning::InvalidMessage {
                        reason: "progress without a numeric progress".into(),
                    });
                    return;
                };
                let progress = Progress {
                    progress,
                    total: params.get("total").and_then(Value::as_f64),
                    message: params.get("message").and_then(Value::as_str).map(|m| sanitize(m, max)),
                };
                self.on_progress(now, &key, progress);
            }
            "notifications/message" => {
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
                self.emit(Event::Notification(Notification::Log(LogMessage { level, logger, text, data })));
            }
            "notifications/tools/list_changed" => self.list_changed(ListKind::Tools),
            "notifications/prompts/list_changed" => self.list_changed(ListKind::Prompts),
            "notifications/resources/list_changed" => self.list_changed(ListKind::Resources),
            "notifications/resources/updated" => match params.get("uri").and_then(Value::as_str) {
                Some(uri) => {
                    let uri = uri.to_owned();
                    self.emit(Event::Notification(Notification::ResourceUpdated { uri }))
                }
                None => self.warn(Warning::InvalidMessage { reason: "resources/updated without uri".into() }),
            },
            "notifications/cancelled" => {
                let Some(id) = params.get("requestId").map(WireId::from_value) else { return };
                let found = self.server_requests.iter().find(|(_, p)| p.id == id).map(|(h, _)| *h);
                if let Some(handle) = found {
                    self.server_requests.remove(&handle);
                    self.emit(Event::ServerRequestCancelled { handle });
                }
            }
            _ => {
                let method = method.to_owned();
                self.emit(Event::Notification(Notification::Other { method, params }))
            }
        }
    }

    /// Caches are dropped before the host hears of the change, so a host reacting to it re-fetches.
    fn list_changed(&mut self, kind: ListKind) {
        self.invalidate(kind);
        self.emit(Event::Notification(Notification::ListChanged(kind)));
    }

    fn session_era(&self) -> Option<Era> {
        match &self.proc {
            Proc::Running { session: Session::Ready(info), .. } => Some(info.era),
            Proc::Running { session: Session::Initializing, .. } => Some(Era::Legacy),
            _ => None,
        }
    }

    pub(super) fn on_server_request(
        &mut self,
        now: Instant,
        epoch: Epoch,
        id: WireId,
        method: &str,
        params: Value,
    ) {
        if self.session_era() != Some(Era::Legacy) {
            self.warn(Warning::UnexpectedServerRequest { method: sanitize(method, 100) });
            let bytes = jsonrpc::encode_error(&id, -32601, "Method not found", None);
            self.send(now, epoch, Outgoing::Response(bytes));
            return;
        }
        let features = &self.cfg.features;
        let kind = match method {
            "ping" => {
                self.send(now, epoch, Outgoing::Response(jsonrpc::encode_result(&id, &json!({}))));
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
                    now,
                    epoch,
                    Outgoing::Response(jsonrpc::encode_error(&id, -32601, "Method not found", None)),
                );
                return;
            }
        };
        if self.server_requests.len() >= self.cfg.limits.max_concurrent_server_requests {
            let reason = format!(
                "{} server requests are already being handled",
                self.cfg.limits.max_concurrent_server_requests
            );
            self.warn(Warning::ServerRequestRefused { method: method.into(), reason });
            self.send(
                now,
                epoch,
                Outgoing::Response(jsonrpc::encode_error(&id, -32603, "Client is busy", None)),
            );
            return;
        }
        let form = if kind == ServerRequestKind::Elicitation {
            match form_of(&params) {
                Ok(form) => form,
                Err(e) => {
                    self.warn(Warning::ServerRequestRefused { method: method.into(), reason: e.to_string() });
                    let message = crate::text::sanitize(&e.to_string(), 300);
                    let bytes = jsonrpc::encode_error(&id, -32602, &message, None);
                    self.send(now, epoch, Outgoing::Response(bytes));
                    return;
                }
            }
        } else {
            None
        };
        let handle = ServerRequestHandle::new(self.counters.server.next());
        self.server_requests.insert(handle, PendingServerRequest { epoch, id, kind, form });
        self.emit(Event::ServerRequest { handle, request: ServerRequest { kind, params } });
    }

    /// Answers a server-to-client request: `Ok(result)` is sent as the result; `Err(detail)`
    /// sends a constant JSON-RPC error and reports the detail locally as
    /// [`Warning::HandlerFailed`].
    ///
    /// Nothing is sent when the request is gone ([`AnswerError::Gone`]: withdrawn by the server,
    /// or its process exited), or when an elicitation answer does not match the requested form
    /// ([`AnswerError::InvalidAnswer`]; the request still waits for a valid answer or a decline).
    pub fn respond_to_server(
        &mut self,
        now: Instant,
        handle: ServerRequestHandle,
        outcome: Result<Value, String>,
    ) -> Result<(), AnswerError> {
        let now = self.tick(now);
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
            Err(detail) => {
                let method = pending.kind.method().to_owned();
                self.warn(Warning::HandlerFailed { method, detail });
                jsonrpc::encode_error(&pending.id, -32603, HANDLER_FAILED, None)
            }
        };
        self.send(now, pending.epoch, Outgoing::Response(bytes));
        Ok(())
    }
}
