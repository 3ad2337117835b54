//! What every part of the connection uses to act: events and warnings to the host (`emit`,
//! `warn`), messages to the server (`send`), the wire trace, the wire ids finished lately, and a
//! request's end (`finish`).

use std::time::Duration;

use super::{Connection, Outgoing, Transport};
use crate::error::{RequestError, Warning};
use crate::event::Event;
use crate::handle::{Epoch, RequestHandle};
use crate::io::Io;
use crate::jsonrpc::WireId;
use crate::response::Response;
use crate::timers::Timer;

impl Connection {
    /// Queues an event, dropping non-essential ones past the limit.
    pub(super) fn emit(&mut self, ev: Event) {
        let essential = match ev {
            Event::Response { .. }
            | Event::Connected(_)
            | Event::Disconnected { .. }
            | Event::Closed
            | Event::ServerRequest { .. }
            | Event::ServerRequestCancelled { .. }
            | Event::ResourceSubscriptionDropped { .. }
            // A listen's host queue bounds (and counts) what it drops.
            | Event::Subscription { .. } => true,
            #[cfg(feature = "oauth")]
            Event::AuthorizationSaved(_) => true,
            _ => false,
        };
        if !essential && self.events.len() >= self.cfg.limits.max_pending_events {
            self.dropped_events += 1;
            return;
        }
        self.events.push_back(ev);
    }

    /// Whether the wire trace is on: check it before building a record.
    pub(super) fn tracing_wire(&self) -> bool {
        self.cfg.wire_trace
    }

    /// Adds a record to the wire trace (built only when [`Connection::tracing_wire`]).
    pub(super) fn trace_wire(&mut self, record: crate::WireRecord) {
        if self.wire_log.len() >= self.cfg.limits.max_pending_events.max(1) {
            self.wire_log.pop_front();
        }
        self.wire_log.push_back(record);
    }

    /// Traces a message going out, if the trace is on.
    pub(super) fn trace_sent(&mut self, epoch: Epoch, bytes: &[u8]) {
        if self.tracing_wire() {
            self.trace_wire(crate::WireRecord::Sent { epoch, message: crate::wire::message_text(bytes) });
        }
    }

    /// Traces a message coming in, if the trace is on.
    pub(super) fn trace_received(&mut self, epoch: Epoch, bytes: &[u8]) {
        if self.tracing_wire() {
            self.trace_wire(crate::WireRecord::Received { epoch, message: crate::wire::message_text(bytes) });
        }
    }

    pub(super) fn warn(&mut self, w: Warning) {
        self.emit(Event::Warning(w));
    }

    /// Sends one message on the current transport: a stdin line, or an HTTP POST.
    pub(super) fn send(&mut self, epoch: Epoch, out: Outgoing) {
        match self.transport {
            Transport::Stdio(_) => {
                let mut out = out;
                let bytes = out.take_bytes();
                self.trace_sent(epoch, &bytes);
                self.io.push_back(Io::Write { epoch, bytes });
            }
            #[cfg(feature = "http")]
            Transport::Http(_) => self.http_send(epoch, out),
        }
    }

    pub(super) fn next_wire_id(&mut self) -> WireId {
        WireId::from_int(self.counters.wire.next())
    }

    pub(super) fn request_timeout_of(&self, handle: RequestHandle) -> Duration {
        self.in_flight.get(handle).map_or(self.cfg.timeouts.request, |op| op.timeout)
    }

    /// Ends a request with its single outcome.
    pub(super) fn finish(&mut self, handle: RequestHandle, result: Result<Response, RequestError>) {
        let Some(op) = self.in_flight.remove(handle) else { return };
        self.timers.clear(Timer::Request(handle));
        self.timers.clear(Timer::Retry(handle));
        self.drop_inputs(handle);
        // HTTP: a re-fetch that failed transiently may be answered from the cache.
        #[cfg(feature = "http")]
        let result = match result {
            Err(e) => self.stale_fallback(&op, e),
            ok => ok,
        };
        // An internal tools/list hands its outcome to the calls waiting for it instead.
        #[cfg(feature = "http")]
        let Some(result) = self.header_op_finished(&op, handle, result) else {
            return;
        };
        // So do a `server/discover` refresh and a renewed subscription (to the connection).
        let Some(result) = self.discover_refresh_finished(handle, result) else { return };
        let Some(result) = self.subscription_op_finished(&op, result) else { return };
        self.emit(Event::Response { handle, result });
    }
}
