//! Capability gating: a host request goes to a server only when the server declared the
//! capability it needs (the lifecycle's "only use capabilities that were negotiated").
//!
//! The rules are one table, [`rules`]: for each request kind and era, the method it sends and
//! the capabilities it needs, checked in order against what `initialize` or `server/discover`
//! declared. The check runs where a request is about to go out on a ready session
//! ([`Connection::capability_gate`], called from the send path in `requests/send.rs`), so a request issued
//! before the handshake is checked once the capabilities are known, and a refused request ends
//! with [`RequestError::CapabilityMissing`] without anything being sent.
//!
//! Era refusals (a method the server's revision does not have, e.g. `resources/subscribe` on a
//! 2026-07-28 server) are not capabilities: they stay with the features that own them
//! (`subscriptions.rs`, `tasks.rs`) and run first.

use serde_json::Value;

use super::Connection;
use crate::era::{Era, ServerInfo};
use crate::error::RequestError;
use crate::request::Request;
use crate::types::ServerCapabilities;

/// The 2026-07-28 tasks extension's capability key.
const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// The first revision with the `completions` capability; before it (2024-11-05)
/// `completion/complete` needs none.
const COMPLETIONS_SINCE: &str = "2025-03-26";

/// What a capability needs to be present in the declared capabilities.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Need {
    /// The entry at this path is present (and not `null`).
    Entry(&'static [&'static str]),
    /// The boolean flag at this path is `true`.
    Flag(&'static [&'static str]),
    /// The extension with this id is declared (2026-07-28 `extensions`).
    Extension(&'static str),
}

/// One gating rule: the method a request sends and the capability it needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Rule {
    /// The method (for the error).
    method: &'static str,
    /// The capability's name as the spec writes it (for the error).
    capability: &'static str,
    /// How to find it among the declared capabilities.
    need: Need,
}

const fn entry(method: &'static str, capability: &'static str, path: &'static [&'static str]) -> Rule {
    Rule { method, capability, need: Need::Entry(path) }
}

const TOOLS_LIST: &[Rule] = &[entry("tools/list", "tools", &["tools"])];
const TOOLS_CALL: &[Rule] = &[entry("tools/call", "tools", &["tools"])];
const PROMPTS_LIST: &[Rule] = &[entry("prompts/list", "prompts", &["prompts"])];
const PROMPTS_GET: &[Rule] = &[entry("prompts/get", "prompts", &["prompts"])];
const RESOURCES_LIST: &[Rule] = &[entry("resources/list", "resources", &["resources"])];
const TEMPLATES_LIST: &[Rule] = &[entry("resources/templates/list", "resources", &["resources"])];
const RESOURCES_READ: &[Rule] = &[entry("resources/read", "resources", &["resources"])];
const SUBSCRIBE: &[Rule] = &[Rule {
    method: "resources/subscribe",
    capability: "resources.subscribe",
    need: Need::Flag(&["resources", "subscribe"]),
}];
const UNSUBSCRIBE: &[Rule] = &[Rule {
    method: "resources/unsubscribe",
    capability: "resources.subscribe",
    need: Need::Flag(&["resources", "subscribe"]),
}];
const COMPLETE: &[Rule] = &[entry("completion/complete", "completions", &["completions"])];
const SET_LEVEL: &[Rule] = &[entry("logging/setLevel", "logging", &["logging"])];
const LEGACY_TASKS_LIST: &[Rule] = &[entry("tasks/list", "tasks.list", &["tasks", "list"])];
const LEGACY_TASKS_CANCEL: &[Rule] = &[entry("tasks/cancel", "tasks.cancel", &["tasks", "cancel"])];
const LEGACY_TASKS_GET: &[Rule] = &[entry("tasks/get", "tasks", &["tasks"])];
const LEGACY_TASKS_RESULT: &[Rule] = &[entry("tasks/result", "tasks", &["tasks"])];
const LEGACY_CALL_AS_TASK: &[Rule] = &[
    entry("tools/call", "tools", &["tools"]),
    entry("tools/call", "tasks.requests.tools.call", &["tasks", "requests", "tools", "call"]),
];
const fn extension(method: &'static str) -> Rule {
    Rule {
        method,
        capability: "extensions.io.modelcontextprotocol/tasks",
        need: Need::Extension(TASKS_EXTENSION),
    }
}
const MODERN_TASKS_GET: &[Rule] = &[extension("tasks/get")];
const MODERN_TASKS_CANCEL: &[Rule] = &[extension("tasks/cancel")];
const MODERN_CALL_AS_TASK: &[Rule] = &[entry("tools/call", "tools", &["tools"]), extension("tools/call")];

/// The capabilities `request` needs on a server of `era` speaking `version`, in the order they
/// are checked. Empty for requests no capability governs (`ping`, `server/discover`, custom
/// methods, listen streams) and for those the era refuses outright (checked elsewhere).
fn rules(request: &Request, era: Era, version: &str) -> &'static [Rule] {
    let modern = era == Era::Modern;
    match request {
        Request::ListTools => TOOLS_LIST,
        Request::CallTool { .. } => TOOLS_CALL,
        Request::ListPrompts => PROMPTS_LIST,
        Request::GetPrompt { .. } => PROMPTS_GET,
        Request::ListResources => RESOURCES_LIST,
        Request::ListResourceTemplates => TEMPLATES_LIST,
        Request::ReadResource { .. } => RESOURCES_READ,
        Request::SubscribeResource { .. } if !modern => SUBSCRIBE,
        Request::UnsubscribeResource { .. } if !modern => UNSUBSCRIBE,
        // Dates compare as strings; every accepted revision is one.
        Request::Complete { .. } if modern || version >= COMPLETIONS_SINCE => COMPLETE,
        Request::SetLogLevel(_) => SET_LEVEL,
        Request::ListTasks if !modern => LEGACY_TASKS_LIST,
        Request::CancelTask { .. } if modern => MODERN_TASKS_CANCEL,
        Request::CancelTask { .. } => LEGACY_TASKS_CANCEL,
        Request::GetTask { .. } | Request::TaskResult { .. } if modern => MODERN_TASKS_GET,
        Request::GetTask { .. } => LEGACY_TASKS_GET,
        Request::TaskResult { .. } => LEGACY_TASKS_RESULT,
        Request::CallToolAsTask { .. } if modern => MODERN_CALL_AS_TASK,
        Request::CallToolAsTask { .. } => LEGACY_CALL_AS_TASK,
        _ => &[],
    }
}

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
