//! Where a connection sees a deprecated feature in use: one call from each place it is
//! observed, reported as [`Warning::Deprecated`] as often as the notice mode allows (see
//! [`crate::deprecation`]). Nothing here changes what the connection does.

use serde_json::Value;

use super::Connection;
use crate::deprecation::{deprecation_notices, Deprecation, UsedBy};
use crate::error::Warning;
use crate::request::Request;

impl Connection {
    /// Reports `what` (used by `by`) if a notice is due: the connection's mode, else the
    /// process-wide one.
    pub(super) fn note_deprecated(&mut self, what: Deprecation, by: UsedBy) {
        let mode = self.cfg.deprecation_notices.unwrap_or_else(deprecation_notices);
        if self.deprecations.due(mode, what) {
            self.warn(Warning::Deprecated { what, by });
        }
    }

    /// A server's request to the host, in either era (a legacy request or a 2026-07-28 input
    /// request), whether or not a handler serves it: roots, sampling, and sampling's
    /// `includeContext` values `"thisServer"` / `"allServers"`.
    pub(super) fn note_server_request(&mut self, method: &str, params: &Value) {
        match method {
            "roots/list" => self.note_deprecated(Deprecation::Roots, UsedBy::Server),
            "sampling/createMessage" => {
                self.note_deprecated(Deprecation::Sampling, UsedBy::Server);
                let context = params.get("includeContext").and_then(Value::as_str);
                if matches!(context, Some("thisServer" | "allServers")) {
                    self.note_deprecated(Deprecation::SamplingIncludeContext, UsedBy::Server);
                }
            }
            _ => {}
        }
    }

    /// A host request that relies on a deprecated feature: setting the server's log level.
    pub(super) fn note_host_request(&mut self, request: &Request) {
        if matches!(request, Request::SetLogLevel(_)) {
            self.note_deprecated(Deprecation::Logging, UsedBy::Host);
        }
    }
}
