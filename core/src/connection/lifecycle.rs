//! Process lifecycle (spawn, loss, shutdown escalation) and the era handshake on each process.

use std::time::Instant;

use serde_json::Value;

use super::handshake::{self, judge_probe, ProbeOutcome, ProbeVerdict};
use super::{Connection, Outgoing, Phase, Proc, ReapStage, Session, Transport, WireUse};
use crate::config::ProtocolMode;
use crate::era::ServerInfo;
use crate::error::{RequestError, RpcError};
use crate::event::Event;
use crate::handle::Epoch;
use crate::io::Io;
use crate::jsonrpc::RpcErrorObject;
use crate::timers::Timer;

impl Connection {
    /// Asks the runtime to start a new process (on HTTP: opens a session).
    #[cfg_attr(not(feature = "http"), allow(unused_variables))]
    pub(super) fn spawn(&mut self, now: Instant) {
        let epoch = Epoch::new(self.counters.epochs.next());
        match &mut self.transport {
            Transport::Stdio(link) => {
                link.restart(&self.cfg.limits);
                let command = link.command().clone();
                if self.tracing_wire() {
                    let record = crate::WireRecord::ProcessStart {
                        epoch,
                        program: command.program_lossy().into_owned(),
                        args: crate::redact::redact_args(&command.args_lossy()),
                    };
                    self.trace_wire(record);
                }
                self.io.push_back(Io::Spawn { epoch, command });
                self.proc = Proc::Starting { epoch };
            }
            #[cfg(feature = "http")]
            Transport::Http(_) => self.open_http(now, epoch),
        }
    }

    /// The work of [`Connection::handle_process_started`].
    pub(super) fn process_started(&mut self, now: Instant, epoch: Epoch) {
        let now = self.tick(now);
        if self.reaping.get(&epoch) == Some(&ReapStage::AwaitSpawn) {
            self.begin_reap(now, epoch);
            return;
        }
        if !matches!(self.proc, Proc::Starting { epoch: e } if e == epoch) {
            return;
        }
        self.proc = Proc::Running { epoch, session: Session::Probing { retried: false } };
        self.start_handshake(now, epoch);
    }

    /// The work of [`Connection::handle_spawn_failed`].
    pub(super) fn spawn_failed(&mut self, now: Instant, epoch: Epoch, error: std::io::Error) {
        self.tick(now);
        if self.tracing_wire() {
            self.trace_wire(crate::WireRecord::SpawnFailed { epoch, error: error.to_string() });
        }
        if self.reaping.remove(&epoch).is_some() {
            self.maybe_closed();
            return;
        }
        if !matches!(self.proc, Proc::Starting { epoch: e } if e == epoch) {
            return;
        }
        self.proc = Proc::Down;
        let detail = match &self.transport {
            Transport::Stdio(link) => format!("{}: {error}", link.command().program_lossy()),
            #[cfg(feature = "http")]
            Transport::Http(_) => error.to_string(),
        };
        let err = RequestError::Spawn { detail, source: crate::IoError::new(error) };
        // The host learns the server is gone before the failed requests reach their callers.
        self.emit(Event::Disconnected { reason: err.clone() });
        self.fail_all(&err);
    }

    /// The process is gone or useless: fail everything in flight, forget the session, and
    /// reap the process if it may still be running. The next request starts a new one.
    pub(super) fn lose(&mut self, now: Instant, epoch: Epoch, what: String, still_running: bool) {
        let mut detail = what;
        if let Some(tail) = self.transport.stdio().and_then(|link| link.stderr_summary()) {
            detail.push_str("; last stderr: ");
            detail.push_str(&tail);
        }
        let err = RequestError::TransportClosed { detail, source: None };
        self.drop_process(now, epoch, still_running);
        // The host learns the server is gone before the failed requests reach their callers.
        self.emit(Event::Disconnected { reason: err.clone() });
        let kept = self.requeue_listens(now, &err);
        self.fail_all_but(&err, &kept);
        self.maybe_closed();
        // Listens are not waiting for a host request to restart the server: restart it now.
        if !kept.is_empty() {
            self.pump(now);
        }
    }

    /// Forgets the current process (reaping it if needed) and everything tied to it.
    pub(super) fn drop_process(&mut self, now: Instant, epoch: Epoch, still_running: bool) {
        self.proc = Proc::Down;
        self.timers.clear(Timer::Handshake);
        self.timers.clear(Timer::ExitDrain(epoch));
        self.in_flight.end_all_ids();
        self.server_requests.clear();
        self.cache.clear();
        self.known_tools = None;
        self.tool_schemas.mark_stale();
        self.log_level = None;
        match self.transport {
            #[cfg(feature = "http")]
            Transport::Http(_) => self.http_drop_session(epoch),
            Transport::Stdio(_) if still_running => {
                self.reaping.insert(epoch, ReapStage::Grace);
                self.begin_reap(now, epoch);
            }
            Transport::Stdio(_) => {}
        }
    }

    /// Starts shutting down the current process (for `close`).
    pub(super) fn retire_process(&mut self, now: Instant) {
        let exited = match &self.transport {
            Transport::Stdio(link) => link.has_exited(),
            #[cfg(feature = "http")]
            Transport::Http(_) => return self.http_retire(now),
        };
        match std::mem::replace(&mut self.proc, Proc::Down) {
            Proc::Down => {}
            Proc::Starting { epoch } => {
                self.reaping.insert(epoch, ReapStage::AwaitSpawn);
            }
            Proc::Running { epoch, .. } => self.drop_process(now, epoch, !exited),
        }
    }

    /// Closes stdin and arms the grace timer.
    fn begin_reap(&mut self, now: Instant, epoch: Epoch) {
        self.io.push_back(Io::CloseStdin { epoch });
        self.reaping.insert(epoch, ReapStage::Grace);
        self.timers.set(Timer::Reap(epoch), now + self.cfg.timeouts.shutdown_grace);
    }

    pub(super) fn on_reap_timer(&mut self, now: Instant, epoch: Epoch) {
        let grace = self.cfg.timeouts.terminate_grace;
        match self.reaping.get(&epoch).copied() {
            Some(ReapStage::Grace) => {
                self.io.push_back(Io::Terminate { epoch, force: false });
                self.reaping.insert(epoch, ReapStage::Terminated);
                self.timers.set(Timer::Reap(epoch), now + grace);
            }
            Some(ReapStage::Terminated) => {
                self.io.push_back(Io::Terminate { epoch, force: true });
                self.reaping.insert(epoch, ReapStage::Killed);
                self.timers.set(Timer::Reap(epoch), now + grace);
            }
            Some(ReapStage::Killed) => {
                // Killed and still no exit report: stop waiting for it.
                self.reaping.remove(&epoch);
                self.maybe_closed();
            }
            Some(ReapStage::AwaitSpawn) | None => {}
        }
    }

    /// After `close`: emits [`Event::Closed`] once nothing is left to shut down.
    pub(super) fn maybe_closed(&mut self) {
        let idle = matches!(self.proc, Proc::Down) && self.reaping.is_empty();
        // HTTP: the `DELETE` ending a legacy session may still be under way.
        #[cfg(feature = "http")]
        let idle = idle && !self.http_closing();
        if self.phase == Phase::Closing && idle {
            self.phase = Phase::Closed;
            self.emit(Event::Closed);
        }
    }

    // ----- the era handshake ----------------------------------------------------------------

    pub(super) fn start_handshake(&mut self, now: Instant, epoch: Epoch) {
        #[cfg(feature = "http")]
        if self.http_known_legacy() {
            if self.cfg.protocol == ProtocolMode::Modern {
                let detail = "this HTTP transport only speaks the handshake revisions (initialize)".into();
                self.fail_handshake(now, RequestError::ModernRequired { detail });
                return;
            }
            self.send_initialize(now, epoch);
            return;
        }
        match self.cfg.protocol {
            ProtocolMode::Legacy => self.send_initialize(now, epoch),
            ProtocolMode::Auto | ProtocolMode::Modern => {
                // A handshake started again (after an authorization, say) may retry its probe once more.
                if let Proc::Running { session: Session::Probing { retried }, .. } = &mut self.proc {
                    *retried = false;
                }
                self.send_probe(now, epoch);
            }
        }
    }

    /// Sends the `server/discover` probe and arms its timeout.
    fn send_probe(&mut self, now: Instant, epoch: Epoch) {
        let id = self.next_wire_id();
        let meta = handshake::modern_meta(&self.cfg.client_info, &self.cfg.features);
        let params = serde_json::json!({ "_meta": Value::Object(meta) });
        self.in_flight.bind(id.clone(), WireUse::Probe);
        let probe = Outgoing::Request { id, method: "server/discover".into(), params: Some(params) };
        self.send(epoch, probe);
        self.timers.set(Timer::Handshake, now + self.cfg.timeouts.discover);
    }

    pub(super) fn send_initialize(&mut self, now: Instant, epoch: Epoch) {
        let id = self.next_wire_id();
        let params = handshake::initialize_params(&self.cfg.client_info, &self.cfg.features);
        self.in_flight.bind(id.clone(), WireUse::Initialize);
        self.send(epoch, Outgoing::Request { id, method: "initialize".into(), params: Some(params) });
        if let Proc::Running { session, .. } = &mut self.proc {
            *session = Session::Initializing;
        }
        self.timers.set(Timer::Handshake, now + self.cfg.timeouts.initialize);
    }

    /// Marks the probe as sent a second time; false when it already was.
    fn mark_probe_retried(&mut self) -> bool {
        match &mut self.proc {
            Proc::Running { session: Session::Probing { retried }, .. } => !std::mem::replace(retried, true),
            _ => false,
        }
    }

    fn running_epoch(&self) -> Option<(Epoch, bool)> {
        match &self.proc {
            Proc::Running { epoch, session, .. } => {
                Some((*epoch, matches!(session, Session::Probing { .. })))
            }
            _ => None,
        }
    }

    pub(super) fn on_probe_response(&mut self, now: Instant, outcome: Result<Value, RpcErrorObject>) {
        let Some((epoch, probing)) = self.running_epoch() else { return };
        let hints = outcome.as_ref().ok().map(handshake::discover_hints);
        let outcome = match outcome {
            Ok(v) => ProbeOutcome::Result(v),
            Err(e) => ProbeOutcome::Error(RpcError { code: e.code, message: e.message, data: e.data }),
        };
        let verdict = judge_probe(self.cfg.protocol, outcome);
        if !probing {
            // A late answer while `initialize` is under way: a modern result still wins. Once
            // the legacy session is ready, the era is settled and the late answer is ignored.
            let initializing = matches!(self.proc, Proc::Running { session: Session::Initializing, .. });
            if let (ProbeVerdict::Modern(info), true) = (verdict, initializing) {
                self.in_flight.end_all_of(WireUse::Initialize);
                self.record_discover(now, hints);
                self.ready(now, info);
            }
            return;
        }
        match verdict {
            ProbeVerdict::Modern(info) => {
                self.record_discover(now, hints);
                self.ready(now, info)
            }
            ProbeVerdict::Legacy => self.send_initialize(now, epoch),
            ProbeVerdict::Retry if self.mark_probe_retried() => self.send_probe(now, epoch),
            ProbeVerdict::Retry => {
                let client = vec![crate::config::MODERN_VERSION.to_owned()];
                let err = RequestError::NoCommonVersion { server: client.clone(), client };
                self.fail_handshake(now, err)
            }
            ProbeVerdict::Fail(err) => self.fail_handshake(now, err),
        }
    }

    pub(super) fn on_initialize_response(&mut self, now: Instant, outcome: Result<Value, RpcErrorObject>) {
        let Some((epoch, _)) = self.running_epoch() else { return };
        match outcome {
            Ok(v) => match handshake::judge_initialize(v) {
                Ok(info) => {
                    // `notifications/initialized` already carries the negotiated version.
                    #[cfg(feature = "http")]
                    self.http_set_legacy_version(&info.protocol_version);
                    let initialized =
                        Outgoing::Notification { method: "notifications/initialized", params: None };
                    self.send(epoch, initialized);
                    self.ready(now, info);
                }
                Err(e) => self.fail_handshake(now, e),
            },
            Err(e) => {
                let detail =
                    format!("server answered error {} {}", e.code, crate::text::sanitize(&e.message, 500));
                self.fail_handshake(now, RequestError::Handshake { detail });
            }
        }
    }

    pub(super) fn on_handshake_timeout(&mut self, now: Instant) {
        let Some((epoch, probing)) = self.running_epoch() else { return };
        if probing {
            match judge_probe(self.cfg.protocol, ProbeOutcome::Timeout) {
                ProbeVerdict::Legacy => {
                    #[cfg(feature = "http")]
                    self.http_abort_probe();
                    self.send_initialize(now, epoch);
                }
                ProbeVerdict::Fail(err) => self.fail_handshake(now, err),
                ProbeVerdict::Modern(info) => self.ready(now, info),
                ProbeVerdict::Retry => self.send_probe(now, epoch),
            }
        } else {
            let after = self.cfg.timeouts.initialize;
            self.fail_handshake(
                now,
                RequestError::Handshake { detail: format!("no answer within {after:?}") },
            );
        }
    }

    /// The server cannot be spoken to: fail what waits for it and stop the process.
    pub(super) fn fail_handshake(&mut self, now: Instant, err: RequestError) {
        let Some(epoch) = self.current_epoch() else { return };
        let exited = matches!(&self.transport, Transport::Stdio(link) if link.has_exited());
        let running = matches!(self.proc, Proc::Running { .. }) && !exited;
        self.drop_process(now, epoch, running);
        #[cfg(feature = "http")]
        self.http_restart_detection();
        // The host learns the server is gone before the failed requests reach their callers.
        self.emit(Event::Disconnected { reason: err.clone() });
        self.fail_all(&err);
        self.maybe_closed();
    }

    fn ready(&mut self, now: Instant, mut info: ServerInfo) {
        self.timers.clear(Timer::Handshake);
        info.transport = self.transport.kind();
        if let Proc::Running { session, .. } = &mut self.proc {
            *session = Session::Ready(info.clone());
        }
        #[cfg(feature = "http")]
        self.http_on_ready(now, info.era, &info.protocol_version);
        self.emit(Event::Connected(Box::new(info)));
        self.renew_resource_subscriptions(now);
        self.pump(now);
    }
}
