//! Capability gating: a host request goes to a server only when the server declared the
//! capability it needs (the lifecycle's "only use capabilities that were negotiated").
//!
//! The rules are one table, [`rules`], kept with everything else a request kind is on the wire
//! in `requests/kinds.rs`: for each request kind and era, the method it sends and the
//! capabilities it needs. This file checks them, in order, against what `initialize` or
//! `server/discover` declared. The check runs where a request is about to go out on a ready
//! session ([`Connection::capability_gate`], called from the send path in `requests/send.rs`),
//! so a request issued before the handshake is checked once the capabilities are known, and a
//! refused request ends with [`RequestError::CapabilityMissing`] without anything being sent.
//!
//! Era refusals (a method the server's revision does not have, e.g. `resources/subscribe` on a
//! 2026-07-28 server) are not capabilities: they stay with the features that own them
//! (`subscriptions/`, `tasks/`) and run first.

use serde_json::Value;

use super::requests::kinds::{rules, Need};
use super::Connection;
use crate::era::ServerInfo;
use crate::error::RequestError;
use crate::request::Request;
use crate::types::ServerCapabilities;

/// Whether `caps` declares what `need` asks for.
fn declared(caps: &ServerCapabilities, need: Need) -> bool {
    let walk =
        |path: &[&str]| path.iter().try_fold(caps.raw(), |v, key| v.get(*key)).filter(|v| !v.is_null());
    match need {
        Need::Entry(path) => walk(path).is_some(),
        Need::Flag(path) => walk(path).and_then(Value::as_bool) == Some(true),
        Need::Extension(id) => caps.extension(id).is_some(),
    }
}

/// The error for `request` on the server `info` describes, when that server did not declare a
/// capability the request needs; `None` when it may be sent. A server whose capabilities are
/// [unknown](ServerCapabilities::unknown) is not gated.
pub(crate) fn missing_capability(request: &Request, info: &ServerInfo) -> Option<RequestError> {
    if info.capabilities.is_unknown() {
        return None;
    }
    rules(request, info.era, &info.protocol_version)
        .iter()
        .find(|rule| !declared(&info.capabilities, rule.need))
        .map(|rule| RequestError::CapabilityMissing { capability: rule.capability, method: rule.method })
}

/// Whether a capability the server declared decides if `request` may go to the server `info`
/// describes (some rule applies to it).
pub(crate) fn is_gated(request: &Request, info: &ServerInfo) -> bool {
    !rules(request, info.era, &info.protocol_version).is_empty()
}

impl Connection {
    /// The gate on the send path: why `request` cannot go to this (ready) server, when it
    /// lacks a capability the request needs.
    pub(super) fn capability_gate(&self, request: &Request) -> Option<RequestError> {
        missing_capability(request, self.server_info()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::connection::requests::kinds::TASKS_EXTENSION;
    use crate::era::Era;
    use crate::transport::TransportKind;
    use serde_json::json;

    fn info(era: Era, version: &str, caps: Value) -> ServerInfo {
        ServerInfo {
            era,
            protocol_version: version.into(),
            implementation: None,
            capabilities: ServerCapabilities::from_value(caps).unwrap(),
            instructions: None,
            supported_versions: Vec::new(),
            transport: TransportKind::Stdio,
        }
    }

    fn missing(request: Request, info: &ServerInfo) -> Option<(&'static str, &'static str)> {
        match missing_capability(&request, info)? {
            RequestError::CapabilityMissing { capability, method } => Some((capability, method)),
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn subscribe_needs_a_true_flag_not_just_the_entry() {
        let sub = || Request::SubscribeResource { uri: "a://b".into() };
        let off = info(Era::Legacy, "2025-11-25", json!({"resources": {"subscribe": false}}));
        assert_eq!(missing(sub(), &off), Some(("resources.subscribe", "resources/subscribe")));
        let junk = info(Era::Legacy, "2025-11-25", json!({"resources": {"subscribe": "yes"}}));
        assert_eq!(missing(sub(), &junk), Some(("resources.subscribe", "resources/subscribe")));
        let on = info(Era::Legacy, "2025-11-25", json!({"resources": {"subscribe": true}}));
        assert_eq!(missing(sub(), &on), None);
    }

    #[test]
    fn completions_are_ungated_before_2025_03_26() {
        let complete = || Request::Complete {
            reference: crate::types::CompletionReference::Prompt { name: "p".into() },
            argument: "a".into(),
            value: "".into(),
            context: None,
        };
        let old = info(Era::Legacy, "2024-11-05", json!({}));
        assert_eq!(missing(complete(), &old), None);
        let newer = info(Era::Legacy, "2025-03-26", json!({}));
        assert_eq!(missing(complete(), &newer), Some(("completions", "completion/complete")));
        let modern = info(Era::Modern, crate::MODERN_VERSION, json!({"completions": {}}));
        assert_eq!(missing(complete(), &modern), None);
    }

    #[test]
    fn null_entries_are_absent_and_ungoverned_requests_pass() {
        let nulls = info(Era::Legacy, "2025-11-25", json!({"tools": null, "logging": null}));
        assert_eq!(missing(Request::ListTools, &nulls), Some(("tools", "tools/list")));
        let level = Request::SetLogLevel(crate::types::LoggingLevel::Debug);
        assert_eq!(missing(level, &nulls), Some(("logging", "logging/setLevel")));
        assert_eq!(missing(Request::Ping, &nulls), None);
        let custom = Request::Custom { method: "x/y".into(), params: Value::Null };
        assert_eq!(missing(custom, &nulls), None);
        let mut unknown = info(Era::Modern, crate::MODERN_VERSION, json!({}));
        assert_eq!(missing(Request::ListPrompts, &unknown), Some(("prompts", "prompts/list")));
        unknown.capabilities = ServerCapabilities::unknown();
        assert_eq!(missing(Request::ListPrompts, &unknown), None);
    }

    #[test]
    fn task_rules_follow_the_era() {
        let legacy = info(Era::Legacy, "2025-11-25", json!({"tools": {}, "tasks": {"list": {}}}));
        assert_eq!(missing(Request::ListTasks, &legacy), None);
        let cancel = || Request::CancelTask { task_id: "t".into() };
        assert_eq!(missing(cancel(), &legacy), Some(("tasks.cancel", "tasks/cancel")));
        let as_task = || Request::CallToolAsTask { name: "x".into(), arguments: Value::Null };
        assert_eq!(missing(as_task(), &legacy), Some(("tasks.requests.tools.call", "tools/call")));
        let modern = info(Era::Modern, crate::MODERN_VERSION, json!({"tools": {}}));
        let ext = "extensions.io.modelcontextprotocol/tasks";
        assert_eq!(missing(cancel(), &modern), Some((ext, "tasks/cancel")));
        let with_ext = info(
            Era::Modern,
            crate::MODERN_VERSION,
            json!({"tools": {}, "extensions": {TASKS_EXTENSION: {}}}),
        );
        assert_eq!(missing(as_task(), &with_ext), None);
        assert_eq!(missing(Request::GetTask { task_id: "t".into() }, &with_ext), None);
    }
}
