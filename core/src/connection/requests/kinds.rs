//! What each request kind is on the wire: its method and params per era, the capability it
//! needs, what input is refused up front, how its result decodes.
//!
//! Four questions, asked at four moments of a request's life, each answered by one function in
//! the order they are asked: [`validate`] when the host issues the request
//! (`Connection::request`), [`rules`] when it is about to go out on a ready session (checked
//! against the declared capabilities by `gating.rs`), [`wire`] when it is sent (`build` in
//! `send.rs` adds `_meta`, input responses and the progress token), and [`decode`] when its
//! result arrives (`answer.rs`). Each is one match over every [`Request`] kind, in the order
//! the enum declares them, without a catch-all arm: a new kind does not compile until all four
//! say what it is.
//!
//! The file is ordered by question, not by kind, because the questions take different inputs
//! at different times: the capability rules are read before anything is built (by the gate,
//! and by the `server/discover` refresh deciding whether a request waits for it), so asking
//! them through a per-kind description would build params, cloning a call's arguments, only to
//! read a capability name.
//!
//! Not here, because they are decided by the state of the connection rather than by the kind:
//! requests answered without the server (`Connect`, a fresh `Discover`, `SetLogLevel` on a
//! 2026-07-28 server: `send.rs`), era refusals (`subscriptions/`, `tasks/`), the requests
//! that poll a task (`tasks/`), and the special answer paths (pages, tasks, discover, input
//! rounds, the tool-result fast path, output schemas, cached reads: `answer.rs`).

use std::borrow::Cow;
use std::time::Duration;

use serde_json::{json, Map, Value};

use crate::era::Era;
use crate::error::CommandError;
use crate::request::Request;
use crate::response::Response;
use crate::types::{CallToolResult, CompleteResult, DecodeError, GetPromptResult, ReadResourceResult, Task};

// ----- validate: what input is refused up front ------------------------------------------

/// Rejects requests that cannot be sent.
pub(in crate::connection) fn validate(request: &Request) -> Result<(), CommandError> {
    match request {
        Request::CallTool { name, arguments } | Request::CallToolAsTask { name, arguments } => {
            if name.is_empty() {
                return Err(CommandError::InvalidArgument("tool name is empty".into()));
            }
            if !(arguments.is_object() || arguments.is_null()) {
                return Err(CommandError::InvalidArgument("tool arguments must be a JSON object".into()));
            }
        }
        Request::Complete { context: Some(ctx), .. } => {
            if let Some((name, _)) = ctx.iter().find(|(_, v)| !v.is_string()) {
                let detail = format!("completion context argument {name:?} must be a string");
                return Err(CommandError::InvalidArgument(detail));
            }
        }
        Request::GetTask { task_id }
        | Request::TaskResult { task_id, .. }
        | Request::CancelTask { task_id }
            if task_id.is_empty() =>
        {
            return Err(CommandError::InvalidArgument("task id is empty".into()));
        }
        Request::Custom { method, params } => {
            if method.is_empty() {
                return Err(CommandError::InvalidArgument("method is empty".into()));
            }
            if !(params.is_object() || params.is_null()) {
                return Err(CommandError::InvalidArgument("params must be a JSON object".into()));
            }
        }
        Request::Connect
        | Request::ListTools
        | Request::ListPrompts
        | Request::ListResources
        | Request::ListResourceTemplates
        | Request::GetPrompt { .. }
        | Request::ReadResource { .. }
        | Request::Complete { context: None, .. }
        | Request::Ping
        | Request::Discover
        | Request::SetLogLevel(_)
        | Request::Listen { .. }
        | Request::SubscribeResource { .. }
        | Request::UnsubscribeResource { .. }
        | Request::GetTask { .. }
        | Request::TaskResult { .. }
        | Request::CancelTask { .. }
        | Request::ListTasks => {}
    }
    Ok(())
}

// ----- rules: the capability each kind needs ---------------------------------------------

/// The 2026-07-28 tasks extension's capability key.
pub(in crate::connection) const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// The first revision with the `completions` capability; before it (2024-11-05)
/// `completion/complete` needs none.
const COMPLETIONS_SINCE: &str = "2025-03-26";

/// What a capability needs to be present in the declared capabilities.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::connection) enum Need {
    /// The entry at this path is present (and not `null`).
    Entry(&'static [&'static str]),
    /// The boolean flag at this path is `true`.
    Flag(&'static [&'static str]),
    /// The extension with this id is declared (2026-07-28 `extensions`).
    Extension(&'static str),
}

/// One gating rule: the method a request sends and the capability it needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::connection) struct Rule {
    /// The method (for the error).
    pub(in crate::connection) method: &'static str,
    /// The capability's name as the spec writes it (for the error).
    pub(in crate::connection) capability: &'static str,
    /// How to find it among the declared capabilities.
    pub(in crate::connection) need: Need,
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
pub(in crate::connection) fn rules(request: &Request, era: Era, version: &str) -> &'static [Rule] {
    let modern = era == Era::Modern;
    match request {
        Request::ListTools => TOOLS_LIST,
        Request::ListPrompts => PROMPTS_LIST,
        Request::ListResources => RESOURCES_LIST,
        Request::ListResourceTemplates => TEMPLATES_LIST,
        Request::CallTool { .. } => TOOLS_CALL,
        Request::GetPrompt { .. } => PROMPTS_GET,
        Request::ReadResource { .. } => RESOURCES_READ,
        // Dates compare as strings; every accepted revision is one.
        Request::Complete { .. } if modern || version >= COMPLETIONS_SINCE => COMPLETE,
        Request::SetLogLevel(_) => SET_LEVEL,
        Request::SubscribeResource { .. } if !modern => SUBSCRIBE,
        Request::UnsubscribeResource { .. } if !modern => UNSUBSCRIBE,
        Request::CallToolAsTask { .. } if modern => MODERN_CALL_AS_TASK,
        Request::CallToolAsTask { .. } => LEGACY_CALL_AS_TASK,
        Request::GetTask { .. } | Request::TaskResult { .. } if modern => MODERN_TASKS_GET,
        Request::GetTask { .. } => LEGACY_TASKS_GET,
        Request::TaskResult { .. } => LEGACY_TASKS_RESULT,
        Request::CancelTask { .. } if modern => MODERN_TASKS_CANCEL,
        Request::CancelTask { .. } => LEGACY_TASKS_CANCEL,
        Request::ListTasks if !modern => LEGACY_TASKS_LIST,
        Request::Connect
        | Request::Complete { .. }
        | Request::Ping
        | Request::Discover
        | Request::Listen { .. }
        | Request::SubscribeResource { .. }
        | Request::UnsubscribeResource { .. }
        | Request::ListTasks
        | Request::Custom { .. } => &[],
    }
}

// ----- wire: the method and params per era ----------------------------------------------

/// What a request's method and params are built from besides the request itself: facts of the
/// connection and of the request in flight.
#[derive(Debug, Clone, Copy)]
pub(in crate::connection) struct WireFacts<'a> {
    /// The server's era.
    pub(in crate::connection) era: Era,
    /// The negotiated protocol revision, once known.
    pub(in crate::connection) protocol_version: Option<&'a str>,
    /// The cursor of the page to ask for (list requests), if not the first.
    pub(in crate::connection) cursor: Option<&'a str>,
    /// The request's timeout: a call waiting for its task asks the task to live as long.
    pub(in crate::connection) timeout: Duration,
    /// A `tools/call` on a legacy server of a tool that requires a task
    /// (`Connection::legacy_task_required`): it goes out task-augmented. Only read for
    /// [`Request::CallTool`] on a legacy server.
    pub(in crate::connection) legacy_task_required: bool,
}

/// A request as it goes on the wire, before the connection adds what every request carries
/// (`_meta`, input responses, the progress token: `finish_build` in `send.rs`).
#[derive(Debug, Clone, PartialEq)]
pub(in crate::connection) struct Wire {
    /// The JSON-RPC method.
    pub(in crate::connection) method: Cow<'static, str>,
    /// The params the kind itself gives.
    pub(in crate::connection) params: Map<String, Value>,
    /// The `_meta` a tool call's arguments carried, moved out of them to go in `params._meta`.
    pub(in crate::connection) hoisted: Option<Map<String, Value>>,
}

/// The revision that added `context` to `completion/complete`; older ones do not get it.
const COMPLETION_CONTEXT_SINCE: &str = "2025-06-18";

/// The method and params of `request` for the server and request `facts` describe.
/// `Connect` is answered locally and `TaskResult` is polled as a task (`tasks/`): neither is
/// built here.
pub(in crate::connection) fn wire(request: &Request, facts: &WireFacts<'_>) -> Wire {
    let era = facts.era;
    let mut hoisted: Option<Map<String, Value>> = None;
    let (method, params): (&'static str, Map<String, Value>) = match request {
        Request::Connect => unreachable!("answered locally"),
        r @ (Request::ListTools
        | Request::ListPrompts
        | Request::ListResources
        | Request::ListResourceTemplates) => {
            let (_, method, _) = r.list_kind().expect("list request");
            (method, cursor(facts.cursor))
        }
        r @ (Request::CallTool { name, arguments } | Request::CallToolAsTask { name, arguments }) => {
            let as_task = matches!(r, Request::CallToolAsTask { .. });
            let mut args = match arguments {
                Value::Object(m) => m.clone(),
                _ => Map::new(),
            };
            if let Some(meta) = args.remove("_meta") {
                hoisted = meta.as_object().cloned();
            }
            let mut p = Map::new();
            p.insert("name".into(), Value::String(name.clone()));
            p.insert("arguments".into(), Value::Object(args));
            if era == Era::Legacy && (as_task || facts.legacy_task_required) {
                // A call waiting for its task asks it to live as long as the call may wait;
                // one started on purpose takes the server's default.
                let mut task = Map::new();
                if !as_task {
                    let ms = u64::try_from(facts.timeout.as_millis()).unwrap_or(u64::MAX);
                    task.insert("ttl".into(), Value::from(ms));
                }
                p.insert("task".into(), Value::Object(task));
            }
            ("tools/call", p)
        }
        Request::GetPrompt { name, arguments } => {
            let mut p = Map::new();
            p.insert("name".into(), Value::String(name.clone()));
            if !arguments.is_empty() {
                p.insert("arguments".into(), Value::Object(arguments.clone()));
            }
            ("prompts/get", p)
        }
        Request::ReadResource { uri } => ("resources/read", one("uri", Value::String(uri.clone()))),
        Request::Complete { reference, argument, value, context } => {
            let mut p = Map::new();
            p.insert("ref".into(), reference.to_value());
            p.insert("argument".into(), json!({"name": argument, "value": value}));
            // Dates compare as strings; every accepted revision is one.
            let has_context = facts.protocol_version.is_some_and(|v| v >= COMPLETION_CONTEXT_SINCE);
            if let Some(ctx) = context.as_ref().filter(|_| has_context) {
                p.insert("context".into(), json!({"arguments": ctx}));
            }
            ("completion/complete", p)
        }
        Request::Ping => match era {
            Era::Modern => ("server/discover", Map::new()),
            Era::Legacy => ("ping", Map::new()),
        },
        // Legacy servers are answered locally.
        Request::Discover => ("server/discover", Map::new()),
        Request::SetLogLevel(level) => {
            ("logging/setLevel", one("level", Value::String(level.as_str().into())))
        }
        Request::Listen { filter, .. } => ("subscriptions/listen", one("notifications", filter.to_value())),
        Request::SubscribeResource { uri } => ("resources/subscribe", one("uri", Value::String(uri.clone()))),
        Request::UnsubscribeResource { uri } => {
            ("resources/unsubscribe", one("uri", Value::String(uri.clone())))
        }
        Request::GetTask { task_id } => ("tasks/get", one("taskId", Value::String(task_id.clone()))),
        Request::TaskResult { .. } => unreachable!("a task result is polled as a task"),
        Request::CancelTask { task_id } => ("tasks/cancel", one("taskId", Value::String(task_id.clone()))),
        Request::ListTasks => ("tasks/list", cursor(facts.cursor)),
        Request::Custom { method, params } => {
            let params = params.as_object().cloned().unwrap_or_default();
            return Wire { method: Cow::Owned(method.clone()), params, hoisted: None };
        }
    };
    Wire { method: Cow::Borrowed(method), params, hoisted }
}

/// A list request's params: the cursor of the page, if not the first.
fn cursor(cursor: Option<&str>) -> Map<String, Value> {
    let mut p = Map::new();
    if let Some(c) = cursor {
        p.insert("cursor".into(), Value::String(c.to_owned()));
    }
    p
}

/// A one-member object.
fn one(key: &str, v: Value) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert(key.into(), v);
    m
}

// ----- decode: the response each kind's result becomes -----------------------------------

/// The typed answer a result of `request` decodes to. Lists, task lists, `server/discover`
/// and listen streams take their own paths before this one (`answer.rs`), so they, like
/// `Connect` (never sent) and `Custom`, keep the raw result here.
pub(in crate::connection) fn decode(request: &Request, value: Value) -> Result<Response, DecodeError> {
    match request {
        Request::CallTool { .. } => CallToolResult::from_value(value).map(Response::ToolResult),
        Request::GetPrompt { .. } => GetPromptResult::from_value(value).map(Response::Prompt),
        Request::ReadResource { .. } => ReadResourceResult::from_value(value).map(Response::Resource),
        Request::Complete { .. } => CompleteResult::from_value(value).map(Response::Completion),
        Request::Ping => Ok(Response::Pong),
        Request::SetLogLevel(_)
        | Request::SubscribeResource { .. }
        | Request::UnsubscribeResource { .. }
        | Request::CancelTask { .. } => Ok(Response::Empty),
        Request::CallToolAsTask { .. } | Request::TaskResult { .. } => {
            CallToolResult::from_value(value).map(Response::ToolResult)
        }
        Request::GetTask { .. } => Task::from_value(value).map(|t| Response::Task(Box::new(t))),
        Request::Connect
        | Request::ListTools
        | Request::ListPrompts
        | Request::ListResources
        | Request::ListResourceTemplates
        | Request::Discover
        | Request::Listen { .. }
        | Request::ListTasks
        | Request::Custom { .. } => Ok(Response::Raw(value)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::subscription::SubscriptionFilter;
    use crate::types::{CompletionReference, LoggingLevel};

    fn facts(era: Era, version: &str) -> WireFacts<'_> {
        WireFacts {
            era,
            protocol_version: Some(version),
            cursor: None,
            timeout: Duration::from_secs(30),
            legacy_task_required: false,
        }
    }

    fn complete(context: Option<Map<String, Value>>) -> Request {
        Request::Complete {
            reference: CompletionReference::Prompt { name: "p".into() },
            argument: "a".into(),
            value: "v".into(),
            context,
        }
    }

    /// One request of every kind the connection builds itself (`Connect` is answered locally,
    /// `TaskResult` polled as a task).
    fn built_kinds() -> Vec<Request> {
        vec![
            Request::ListTools,
            Request::ListPrompts,
            Request::ListResources,
            Request::ListResourceTemplates,
            Request::call_tool("t", json!({"x": 1})),
            Request::get_prompt("p", Map::new()),
            Request::read_resource("a://b"),
            complete(None),
            Request::Ping,
            Request::Discover,
            Request::SetLogLevel(LoggingLevel::Info),
            Request::Listen { filter: SubscriptionFilter::new().all_lists(), require_all: false },
            Request::SubscribeResource { uri: "a://b".into() },
            Request::UnsubscribeResource { uri: "a://b".into() },
            Request::CallToolAsTask { name: "t".into(), arguments: Value::Null },
            Request::GetTask { task_id: "t".into() },
            Request::CancelTask { task_id: "t".into() },
            Request::ListTasks,
            Request::Custom { method: "x/y".into(), params: json!({"k": 1}) },
        ]
    }

    #[test]
    fn every_capability_rule_names_the_method_the_kind_sends() {
        for (era, version) in
            [(Era::Legacy, "2024-11-05"), (Era::Legacy, "2025-11-25"), (Era::Modern, "2026-07-28")]
        {
            for request in built_kinds() {
                let sent = wire(&request, &facts(era, version)).method;
                for rule in rules(&request, era, version) {
                    assert_eq!(rule.method, sent, "{request:?} on {era:?} {version}");
                }
            }
        }
    }

    #[test]
    fn ping_and_discover_per_era() {
        let legacy = wire(&Request::Ping, &facts(Era::Legacy, "2025-11-25"));
        assert_eq!((legacy.method.as_ref(), legacy.params.len()), ("ping", 0));
        let modern = wire(&Request::Ping, &facts(Era::Modern, "2026-07-28"));
        assert_eq!(modern.method, "server/discover");
        assert_eq!(wire(&Request::Discover, &facts(Era::Modern, "2026-07-28")).method, "server/discover");
    }

    #[test]
    fn completion_context_goes_only_to_revisions_that_have_it() {
        let ctx: Map<String, Value> = [("b".to_owned(), json!("x"))].into_iter().collect();
        let old = wire(&complete(Some(ctx.clone())), &facts(Era::Legacy, "2025-03-26"));
        assert_eq!(
            Value::Object(old.params),
            json!({"ref": {"type": "ref/prompt", "name": "p"}, "argument": {"name": "a", "value": "v"}})
        );
        let newer = wire(&complete(Some(ctx)), &facts(Era::Legacy, "2025-06-18"));
        assert_eq!(newer.params.get("context"), Some(&json!({"arguments": {"b": "x"}})));
    }

    #[test]
    fn tool_calls_hoist_meta_and_ask_legacy_tasks_for_their_timeout() {
        let call = Request::call_tool("t", json!({"x": 1, "_meta": {"k": "v"}}));
        let modern =
            wire(&call, &WireFacts { legacy_task_required: true, ..facts(Era::Modern, "2026-07-28") });
        assert_eq!(Value::Object(modern.params), json!({"name": "t", "arguments": {"x": 1}}));
        assert_eq!(modern.hoisted.map(Value::Object), Some(json!({"k": "v"})));

        let required = WireFacts { legacy_task_required: true, ..facts(Era::Legacy, "2025-11-25") };
        let legacy = wire(&call, &required);
        assert_eq!(legacy.params.get("task"), Some(&json!({"ttl": 30_000})));
        let as_task = Request::CallToolAsTask { name: "t".into(), arguments: Value::Null };
        let started = wire(&as_task, &facts(Era::Legacy, "2025-11-25"));
        assert_eq!(Value::Object(started.params), json!({"name": "t", "arguments": {}, "task": {}}));
    }

    #[test]
    fn lists_carry_their_cursor_and_custom_requests_their_own_method() {
        let page = WireFacts { cursor: Some("c2"), ..facts(Era::Legacy, "2025-11-25") };
        assert_eq!(Value::Object(wire(&Request::ListTasks, &page).params), json!({"cursor": "c2"}));
        let first = wire(&Request::ListResourceTemplates, &facts(Era::Legacy, "2025-11-25"));
        assert_eq!((first.method.as_ref(), first.params.len()), ("resources/templates/list", 0));
        let custom = Request::Custom { method: "x/y".into(), params: Value::Null };
        let built = wire(&custom, &facts(Era::Modern, "2026-07-28"));
        assert_eq!((built.method.as_ref(), built.params.len(), built.hoisted), ("x/y", 0, None));
    }

    #[test]
    fn refused_input_names_what_is_wrong() {
        let refused = |r: Request| match validate(&r) {
            Err(CommandError::InvalidArgument(detail)) => detail,
            other => panic!("{r:?} gave {other:?}"),
        };
        assert_eq!(refused(Request::call_tool("", Value::Null)), "tool name is empty");
        assert_eq!(refused(Request::call_tool("t", json!([1]))), "tool arguments must be a JSON object");
        let ctx: Map<String, Value> = [("n".to_owned(), json!(1))].into_iter().collect();
        assert_eq!(refused(complete(Some(ctx))), "completion context argument \"n\" must be a string");
        assert_eq!(refused(Request::TaskResult { task_id: "".into(), tool: None }), "task id is empty");
        assert_eq!(refused(Request::Custom { method: "".into(), params: Value::Null }), "method is empty");
        assert_eq!(
            refused(Request::Custom { method: "m".into(), params: json!(1) }),
            "params must be a JSON object"
        );
        for request in built_kinds() {
            assert_eq!(validate(&request), Ok(()), "{request:?}");
        }
    }

    #[test]
    fn results_decode_to_the_kind_s_response() {
        assert_eq!(decode(&Request::Ping, json!({})), Ok(Response::Pong));
        let unsubscribe = Request::UnsubscribeResource { uri: "a://b".into() };
        assert_eq!(decode(&unsubscribe, json!({})), Ok(Response::Empty));
        let custom = Request::Custom { method: "x/y".into(), params: Value::Null };
        assert_eq!(decode(&custom, json!({"a": 1})), Ok(Response::Raw(json!({"a": 1}))));
        let call = decode(&Request::call_tool("t", Value::Null), json!({"content": []}));
        assert!(matches!(call, Ok(Response::ToolResult(r)) if r.content.is_empty()));
        assert!(decode(&Request::read_resource("a://b"), json!({"contents": 3})).is_err());
    }
}
