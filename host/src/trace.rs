//! `tracing` output of the client (feature `tracing`, on by default in the runtime crates): a
//! span per server (`mcp.server`, field `server`) and, inside it, a span per request
//! (`mcp.request`: `method`, `call` (the request's id in this client), `era`, `transport`), closed when the outcome is delivered
//! with an event carrying `outcome` and `duration_us`; the core's events (warnings, deprecations,
//! server log messages, disconnects and reconnects, stderr lines) as `tracing` events in the
//! server's span. The core stays pure: it reports events, and this module records them.
//!
//! Without a subscriber the cost is a disabled-callsite check per request; without the feature,
//! nothing. Targets: `mcp::request`, `mcp::server`.

use mcpwire_core::{ClientError, Connection, Event, Request};

#[cfg(feature = "tracing")]
mod on {
    use std::time::Instant;

    use super::*;
    use mcpwire_core::{Notification, Response, SubscriptionUpdate};

    /// The span of one server.
    #[derive(Debug)]
    pub struct ServerTrace {
        span: tracing::Span,
    }

    impl ServerTrace {
        /// The span of server `name`.
        pub fn new(name: &str) -> Self {
            Self { span: tracing::info_span!(target: "mcp::server", "mcp.server", server = name) }
        }

        /// Records one of the core's events (responses and progress are the requests' business).
        pub fn event(&self, event: &Event) {
            let _entered = self.span.enter();
            match event {
                Event::Connected(info) => tracing::info!(
                    target: "mcp::server",
                    era = ?info.era,
                    protocol = %info.protocol_version,
                    transport = ?info.transport,
                    "connected"
                ),
                Event::Disconnected { reason } => {
                    tracing::warn!(target: "mcp::server", %reason, "disconnected")
                }
                Event::Warning(w) => tracing::warn!(target: "mcp::server", warning = %w, "client warning"),
                Event::Stderr(line) => tracing::debug!(target: "mcp::server", %line, "server stderr"),
                Event::Notification(Notification::Log(m)) => {
                    tracing::info!(target: "mcp::server", level = %m.level, logger = ?m.logger, text = %m.text, "server log")
                }
                Event::Subscription { update: SubscriptionUpdate::Reconnecting { reason }, .. } => {
                    tracing::warn!(target: "mcp::server", %reason, "listen stream re-opening")
                }
                Event::ResourceSubscriptionDropped { uri, reason } => {
                    tracing::warn!(target: "mcp::server", %uri, %reason, "resource subscription dropped")
                }
                Event::Closed => tracing::debug!(target: "mcp::server", "closed"),
                _ => {}
            }
        }

        /// The trace of a request issued now.
        pub fn request(&self, request: &Request, call: u64, conn: &Connection) -> RequestTrace {
            let info = conn.server_info();
            let span = tracing::debug_span!(
                target: "mcp::request",
                parent: &self.span,
                "mcp.request",
                method = request.method(),
                call,
                era = info.map(|i| format!("{:?}", i.era)),
                transport = info.map(|i| format!("{:?}", i.transport)),
            );
            RequestTrace { span, started: Instant::now() }
        }
    }

    /// The span of one request, closed by [`RequestTrace::finish`].
    #[derive(Debug)]
    pub struct RequestTrace {
        span: tracing::Span,
        started: Instant,
    }

    impl RequestTrace {
        /// Records the outcome and closes the span.
        pub fn finish(self, outcome: Result<&Response, &ClientError>) {
            let duration_us = u64::try_from(self.started.elapsed().as_micros()).unwrap_or(u64::MAX);
            let _entered = self.span.enter();
            match outcome {
                Ok(_) => tracing::debug!(target: "mcp::request", outcome = "ok", duration_us, "request done"),
                Err(e) => {
                    tracing::debug!(target: "mcp::request", outcome = "error", error = %e, duration_us, "request failed")
                }
            }
        }
    }
}

#[cfg(not(feature = "tracing"))]
mod on {
    use super::*;
    use mcpwire_core::Response;

    /// Nothing (feature `tracing` is off).
    #[derive(Debug)]
    pub struct ServerTrace;

    impl ServerTrace {
        /// Nothing.
        pub fn new(_name: &str) -> Self {
            Self
        }

        /// Nothing.
        pub fn event(&self, _event: &Event) {}

        /// Nothing.
        pub fn request(&self, _request: &Request, _call: u64, _conn: &Connection) -> RequestTrace {
            RequestTrace
        }
    }

    /// Nothing (feature `tracing` is off).
    #[derive(Debug)]
    pub struct RequestTrace;

    impl RequestTrace {
        /// Nothing.
        pub fn finish(self, _outcome: Result<&Response, &ClientError>) {}
    }
}

pub use on::{RequestTrace, ServerTrace};
