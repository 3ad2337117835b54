//! Push: `subscriptions/listen` streams (2026-07-28), the legacy
//! `resources/subscribe` set, and the delivery the push tools use.
//!
//! A listen is never answered when it opens. The server first sends
//! `notifications/subscriptions/acknowledged` (unless `--listen-no-ack`, after
//! `--listen-ack-delay-ms`), and from then on every notification delivered on
//! it carries `_meta["io.modelcontextprotocol/subscriptionId"]` = the listen's
//! request id. It ends silently on `notifications/cancelled`, or with a
//! closing response written by the `end_listens` tool.
//!
//! With the tasks extension, a filter's `taskIds` asks for
//! `notifications/tasks` about those tasks: the server grants the ids of the
//! 2026-07-28 tasks it knows, and refuses the listen with -32021 when the
//! request's client capabilities lack the extension (see `tasks`).
//!
//! The registry lock is held while a delivery is written, so a cancel, an
//! acknowledgement or `end_listens` never interleaves with one: nothing is
//! delivered on a listen before its acknowledgement or after its end.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use serde_json::{json, Map, Value};

use crate::handlers::serves_uri;
use crate::protocol::{
    id_key, notification_line, Era, Reply, RpcError, INVALID_REQUEST, META_SUBSCRIPTION_ID,
};
use crate::server::{Request, Server};
use crate::tasks;

pub const LISTEN_METHOD: &str = "subscriptions/listen";
const ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";
const RESOURCE_UPDATED: &str = "notifications/resources/updated";
const TASK_STATUS: &str = "notifications/tasks";

/// Deliveries of one `flood` written per lock and write (so a cancel can still
/// get in between chunks).
const FLOOD_CHUNK: u64 = 1024;

/// A `notifications/<kind>/list_changed` family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListKind {
    Tools,
    Prompts,
    Resources,
}

impl ListKind {
    /// `"tools"`, `"prompts"` or `"resources"`.
    pub fn parse(kind: &str) -> Option<Self> {
        match kind {
            "tools" => Some(ListKind::Tools),
            "prompts" => Some(ListKind::Prompts),
            "resources" => Some(ListKind::Resources),
            _ => None,
        }
    }

    fn method(self) -> &'static str {
        match self {
            ListKind::Tools => "notifications/tools/list_changed",
            ListKind::Prompts => "notifications/prompts/list_changed",
            ListKind::Resources => "notifications/resources/list_changed",
        }
    }
}

/// A `SubscriptionFilter`: what a listen asks for, or what it was granted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filter {
    pub tools_list_changed: bool,
    pub prompts_list_changed: bool,
    pub resources_list_changed: bool,
    pub resource_subscriptions: Vec<String>,
    /// `taskIds`, if the filter has the key (tasks extension).
    pub task_ids: Option<Vec<String>>,
}

const FLAG_KEYS: [&str; 3] = ["toolsListChanged", "promptsListChanged", "resourcesListChanged"];

impl Filter {
    /// Parses the `notifications` param of `subscriptions/listen`. Unknown
    /// keys are ignored; a known key of the wrong type is invalid params.
    pub fn parse(value: Option<&Value>) -> Result<Filter, RpcError> {
        let Some(Value::Object(obj)) = value else {
            return Err(RpcError::invalid_params(format!("{LISTEN_METHOD} requires a notifications object")));
        };
        let mut flags = [false; 3];
        for (flag, key) in flags.iter_mut().zip(FLAG_KEYS) {
            *flag = match obj.get(key) {
                None => false,
                Some(Value::Bool(b)) => *b,
                Some(_) => {
                    return Err(RpcError::invalid_params(format!("notifications.{key} must be a boolean")))
                }
            };
        }
        let invalid_uris =
            || RpcError::invalid_params("notifications.resourceSubscriptions must be an array of strings");
        let resource_subscriptions =
            strings(obj.get("resourceSubscriptions"), invalid_uris)?.unwrap_or_default();
        let task_ids = strings(obj.get("taskIds"), || {
            RpcError::invalid_params("notifications.taskIds must be an array of strings")
        })?;
        let [tools_list_changed, prompts_list_changed, resources_list_changed] = flags;
        Ok(Filter {
            tools_list_changed,
            prompts_list_changed,
            resources_list_changed,
            resource_subscriptions,
            task_ids,
        })
    }

    /// The subset the server honours: every requested list kind, the
    /// requested URIs it can serve and the requested task ids `knows_task`
    /// (first occurrence of each, in order).
    pub fn grant(&self, knows_task: impl Fn(&str) -> bool) -> Filter {
        let mut seen = BTreeSet::new();
        let resource_subscriptions = self
            .resource_subscriptions
            .iter()
            .filter(|uri| serves_uri(uri) && seen.insert(uri.as_str()))
            .cloned()
            .collect();
        let mut seen = BTreeSet::new();
        let task_ids = self
            .task_ids
            .as_ref()
            .map(|ids| ids.iter().filter(|id| knows_task(id) && seen.insert(id.as_str())).cloned().collect());
        Filter { resource_subscriptions, task_ids, ..self.clone() }
    }

    /// The wire form: only the `true` flags, and `resourceSubscriptions` only
    /// when non-empty.
    pub fn to_value(&self) -> Value {
        let mut obj = Map::new();
        let flags = [self.tools_list_changed, self.prompts_list_changed, self.resources_list_changed];
        for (flag, key) in flags.into_iter().zip(FLAG_KEYS) {
            if flag {
                obj.insert(key.into(), json!(true));
            }
        }
        if !self.resource_subscriptions.is_empty() {
            obj.insert("resourceSubscriptions".into(), json!(self.resource_subscriptions));
        }
        if let Some(ids) = self.task_ids.as_ref().filter(|ids| !ids.is_empty()) {
            obj.insert("taskIds".into(), json!(ids));
        }
        Value::Object(obj)
    }

    fn wants_list(&self, kind: ListKind) -> bool {
        match kind {
            ListKind::Tools => self.tools_list_changed,
            ListKind::Prompts => self.prompts_list_changed,
            ListKind::Resources => self.resources_list_changed,
        }
    }

    fn wants_uri(&self, uri: &str) -> bool {
        self.resource_subscriptions.iter().any(|u| u == uri)
    }

    fn wants_task(&self, task_id: &str) -> bool {
        self.task_ids.as_ref().is_some_and(|ids| ids.iter().any(|id| id == task_id))
    }
}

/// An optional array of strings; `invalid` when it is something else.
fn strings(value: Option<&Value>, invalid: impl Fn() -> RpcError) -> Result<Option<Vec<String>>, RpcError> {
    match value {
        None => Ok(None),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| item.as_str().map(str::to_string).ok_or_else(&invalid))
            .collect::<Result<_, _>>()
            .map(Some),
        Some(_) => Err(invalid()),
    }
}

/// One open `subscriptions/listen`.
#[derive(Debug)]
struct Listen {
    id: Value,
    key: String,
    granted: Filter,
    /// Deliveries wait for the acknowledgement.
    acked: bool,
}

impl Listen {
    /// A notification line on this listen: `params` plus the subscription id.
    fn line(&self, method: &str, params: Value) -> String {
        let mut params = match params {
            Value::Object(obj) => obj,
            _ => Map::new(),
        };
        params.insert("_meta".into(), json!({ META_SUBSCRIPTION_ID: self.id }));
        notification_line(method, Some(&Value::Object(params)))
    }
}

/// The open listens (in the order they were opened) and the legacy
/// subscribed URIs.
#[derive(Debug, Default)]
pub struct Subscriptions {
    listens: Vec<Listen>,
    legacy: BTreeSet<String>,
}

impl Subscriptions {
    /// Adds (`add`) or removes a legacy `resources/subscribe` URI.
    pub fn set_legacy(&mut self, uri: &str, add: bool) {
        if add {
            self.legacy.insert(uri.to_string());
        } else {
            self.legacy.remove(uri);
        }
    }
}

/// Opens a listen. Answers only if the request is invalid (`Some`); otherwise
/// the request stays open.
pub fn open(server: &Arc<Server>, req: &Request) -> Option<Reply> {
    let mut requested = match Filter::parse(req.param("notifications")) {
        Ok(filter) => filter,
        Err(error) => return Some(Err(error)),
    };
    if !tasks::available(server, Era::Modern) {
        // Without the extension, `taskIds` is just an unknown key.
        requested.task_ids = None;
    } else if requested.task_ids.is_some() && !tasks::client_declares(req) {
        return Some(Err(tasks::missing_extension()));
    }
    let granted = if server.cfg.listen_deny_all {
        Filter::default()
    } else {
        requested.grant(|id| tasks::knows(server, Era::Modern, id))
    };
    let key = id_key(&req.id);
    {
        let mut subs = server.subs();
        if subs.listens.iter().any(|l| l.key == key) {
            let error =
                RpcError::new(INVALID_REQUEST, format!("a {LISTEN_METHOD} with this id is already open"))
                    .with_data(json!({ "id": req.id }));
            return Some(Err(error));
        }
        subs.listens.push(Listen { id: req.id.clone(), key, granted, acked: false });
    }
    if server.cfg.listen_no_ack {
        return None;
    }
    match server.cfg.listen_ack_delay_ms {
        0 => acknowledge(server, &req.id),
        ms => {
            let server = Arc::clone(server);
            let id = req.id.clone();
            thread::spawn(move || {
                thread::sleep(Duration::from_millis(ms));
                acknowledge(&server, &id);
            });
        }
    }
    None
}

/// Sends the acknowledgement of listen `id`, unless it ended meanwhile.
fn acknowledge(server: &Server, id: &Value) {
    let key = id_key(id);
    let mut subs = server.subs();
    let Some(listen) = subs.listens.iter_mut().find(|l| l.key == key && !l.acked) else {
        return;
    };
    listen.acked = true;
    let line = listen.line(ACKNOWLEDGED, json!({ "notifications": listen.granted.to_value() }));
    server.out.write_line(&line);
}

/// Ends listen `id` silently (the client cancelled it). Returns whether it was open.
pub fn cancel(server: &Server, id: &Value) -> bool {
    let key = id_key(id);
    let mut subs = server.subs();
    let before = subs.listens.len();
    subs.listens.retain(|l| l.key != key);
    subs.listens.len() != before
}

/// Sends `notifications/resources/updated {uri}` `times` times on every
/// acknowledged listen granted `uri`, and plainly if a legacy client subscribed
/// to it. Returns how many notifications were written.
pub fn touch(server: &Server, uri: &str, times: u64) -> u64 {
    let plain = notification_line(RESOURCE_UPDATED, Some(&json!({ "uri": uri })));
    let mut sent = 0;
    let mut left = times;
    while left > 0 {
        let n = left.min(FLOOD_CHUNK);
        left -= n;
        let subs = server.subs();
        let mut lines: Vec<String> = subs
            .listens
            .iter()
            .filter(|l| l.acked && l.granted.wants_uri(uri))
            .map(|l| l.line(RESOURCE_UPDATED, json!({ "uri": uri })))
            .collect();
        if subs.legacy.contains(uri) {
            lines.push(plain.clone());
        }
        if lines.is_empty() {
            continue;
        }
        let once: String = lines.iter().flat_map(|line| [line.as_str(), "\n"]).collect();
        server.out.write_lines(&once.repeat(n as usize));
        sent += n * lines.len() as u64;
    }
    sent
}

/// Sends `notifications/<kind>/list_changed` on every acknowledged listen
/// granted it, plus once without `_meta` if `plain`. Returns how many.
pub fn list_changed(server: &Server, kind: ListKind, plain: bool) -> u64 {
    let subs = server.subs();
    let mut lines: Vec<String> = subs
        .listens
        .iter()
        .filter(|l| l.acked && l.granted.wants_list(kind))
        .map(|l| l.line(kind.method(), json!({})))
        .collect();
    if plain {
        lines.push(notification_line(kind.method(), None));
    }
    let block: String = lines.iter().flat_map(|line| [line.as_str(), "\n"]).collect();
    server.out.write_lines(&block);
    lines.len() as u64
}

/// Sends `notifications/tasks` (`task`, a full `DetailedTask`) on every
/// acknowledged listen granted `task_id`. Returns how many were written.
pub fn task_status(server: &Server, task_id: &str, task: &Value) -> u64 {
    let subs = server.subs();
    let block: String = subs
        .listens
        .iter()
        .filter(|l| l.acked && l.granted.wants_task(task_id))
        .flat_map(|l| [l.line(TASK_STATUS, task.clone()), "\n".to_string()])
        .collect();
    server.out.write_lines(&block);
    block.lines().count() as u64
}

/// Answers every open listen (acknowledged or not) with a closing result
/// `{"resultType": result_type, "_meta": {subscriptionId}}` and forgets them.
/// Returns how many.
pub fn end_all(server: &Server, result_type: &str) -> u64 {
    let mut subs = server.subs();
    let ended = subs.listens.len() as u64;
    for listen in subs.listens.drain(..) {
        let result = json!({ "resultType": result_type, "_meta": { META_SUBSCRIPTION_ID: listen.id } });
        server.out.send_result(&listen.id, &result);
    }
    ended
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Config, ProtocolMode};
    use crate::protocol::{META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION, MODERN_VERSION};
    use crate::test_harness::Harness;

    fn filter(value: Value) -> Filter {
        Filter::parse(Some(&value)).expect("a valid filter")
    }

    #[test]
    fn grants_known_uris_and_requested_flags() {
        let requested = filter(json!({
            "toolsListChanged": true,
            "promptsListChanged": false,
            "resourceSubscriptions": ["test://text", "test://unknown", "test://item/7", "test://text"],
            "somethingNew": 1
        }));
        assert_eq!(
            requested.grant(|_| false).to_value(),
            json!({"toolsListChanged": true, "resourceSubscriptions": ["test://text", "test://item/7"]})
        );
        // Only unknown URIs: the key goes away.
        let requested =
            filter(json!({"resourcesListChanged": true, "resourceSubscriptions": ["test://nope"]}));
        assert_eq!(requested.grant(|_| false).to_value(), json!({"resourcesListChanged": true}));
        assert_eq!(filter(json!({})).grant(|_| false).to_value(), json!({}));
        let all = filter(json!({
            "toolsListChanged": true, "promptsListChanged": true, "resourcesListChanged": true,
            "resourceSubscriptions": ["test://blob"]
        }));
        assert_eq!(all.grant(|_| false), all);
        // Task ids: the known ones, once each; the key stays when none is known.
        let tasks = filter(json!({"taskIds": ["task-2", "task-9", "task-2", "task-1"]}));
        let granted = tasks.grant(|id| id != "task-9");
        assert_eq!(granted.task_ids, Some(vec!["task-2".to_string(), "task-1".to_string()]));
        assert_eq!(granted.to_value(), json!({"taskIds": ["task-2", "task-1"]}));
        assert_eq!(tasks.grant(|_| false).to_value(), json!({}));
    }

    #[test]
    fn rejects_malformed_filters() {
        for bad in [
            None,
            Some(json!([])),
            Some(json!({"toolsListChanged": "yes"})),
            Some(json!({"resourceSubscriptions": "test://text"})),
            Some(json!({"resourceSubscriptions": ["test://text", 7]})),
            Some(json!({"taskIds": "task-1"})),
            Some(json!({"taskIds": ["task-1", null]})),
        ] {
            let error = Filter::parse(bad.as_ref()).unwrap_err();
            assert_eq!(error.code, crate::protocol::INVALID_PARAMS, "{bad:?}");
        }
    }

    impl Harness {
        fn listen(&self, id: Value, notifications: Value) {
            let meta = json!({META_PROTOCOL_VERSION: MODERN_VERSION, META_CLIENT_CAPABILITIES: {}});
            let msg = json!({"jsonrpc": "2.0", "id": id, "method": LISTEN_METHOD,
                "params": {"_meta": meta, "notifications": notifications}});
            self.server.handle_line(&msg.to_string());
        }
    }

    fn sub_id(msg: &Value) -> &Value {
        &msg["params"]["_meta"][META_SUBSCRIPTION_ID]
    }

    #[test]
    fn listen_ack_delivery_cancel_and_end() {
        let h = Harness::modern();
        h.listen(json!(1), json!({"resourceSubscriptions": ["test://text", "test://nope"]}));
        h.listen(json!("b"), json!({"toolsListChanged": true, "resourceSubscriptions": ["test://text"]}));
        let acks = h.take();
        assert_eq!(acks.len(), 2, "{acks:?}");
        assert_eq!(acks[0]["method"], ACKNOWLEDGED);
        assert_eq!(
            acks[0]["params"],
            json!({"_meta": {META_SUBSCRIPTION_ID: 1}, "notifications": {"resourceSubscriptions": ["test://text"]}})
        );
        assert!(acks[0].get("id").is_none());
        assert_eq!(sub_id(&acks[1]), &json!("b"));

        assert_eq!(touch(&h.server, "test://text", 1), 2);
        let updates = h.take();
        assert_eq!(updates.iter().map(sub_id).collect::<Vec<_>>(), [&json!(1), &json!("b")]);
        assert_eq!(updates[0]["method"], RESOURCE_UPDATED);
        assert_eq!(updates[0]["params"]["uri"], "test://text");
        assert_eq!(touch(&h.server, "test://blob", 1), 0);
        assert_eq!(list_changed(&h.server, ListKind::Tools, false), 1);
        assert_eq!(list_changed(&h.server, ListKind::Prompts, false), 0);
        let changed = h.take();
        assert_eq!(changed.len(), 1);
        assert_eq!(
            (changed[0]["method"].as_str(), sub_id(&changed[0])),
            (Some(ListKind::Tools.method()), &json!("b"))
        );

        // Cancelling names the id with its JSON type: "1" is not 1.
        let cancel = |id: Value| json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id}});
        h.server.handle_line(&cancel(json!("1")).to_string());
        assert_eq!(touch(&h.server, "test://text", 3), 6);
        h.server.handle_line(&cancel(json!(1)).to_string());
        assert_eq!(touch(&h.server, "test://text", 1), 1);
        assert_eq!(h.take().len(), 7, "cancelling writes nothing");

        assert_eq!(end_all(&h.server, "complete"), 1);
        let closing = h.take();
        assert_eq!(
            closing,
            [json!({"jsonrpc": "2.0", "id": "b",
            "result": {"resultType": "complete", "_meta": {META_SUBSCRIPTION_ID: "b"}}})]
        );
        assert_eq!(touch(&h.server, "test://text", 1), 0);
        assert_eq!(end_all(&h.server, "complete"), 0);
    }

    #[test]
    fn flood_writes_every_notification() {
        let h = Harness::modern();
        h.listen(json!(5), json!({"resourceSubscriptions": ["test://item/1"]}));
        h.take();
        let count = 2 * FLOOD_CHUNK + 3;
        assert_eq!(touch(&h.server, "test://item/1", count), count);
        let lines = h.take();
        assert_eq!(lines.len() as u64, count);
        assert!(lines.iter().all(|l| sub_id(l) == &json!(5) && l["params"]["uri"] == "test://item/1"));
    }

    #[test]
    fn flags_shape_the_acknowledgement() {
        let h = Harness::new(Config {
            protocol: ProtocolMode::Modern,
            listen_deny_all: true,
            ..Config::default()
        });
        h.listen(json!(1), json!({"toolsListChanged": true, "resourceSubscriptions": ["test://text"]}));
        assert_eq!(h.take()[0]["params"]["notifications"], json!({}));
        assert_eq!(touch(&h.server, "test://text", 1) + list_changed(&h.server, ListKind::Tools, false), 0);

        let h =
            Harness::new(Config { protocol: ProtocolMode::Modern, listen_no_ack: true, ..Config::default() });
        h.listen(json!(1), json!({"resourceSubscriptions": ["test://text"]}));
        assert_eq!(touch(&h.server, "test://text", 1), 0, "nothing before the acknowledgement");
        assert!(h.take().is_empty());
        assert_eq!(end_all(&h.server, "input_required"), 1);
        assert_eq!(h.take()[0]["result"]["resultType"], "input_required");

        let h = Harness::new(Config {
            protocol: ProtocolMode::Modern,
            listen_ack_delay_ms: 50,
            ..Config::default()
        });
        h.listen(json!(1), json!({"resourceSubscriptions": ["test://text"]}));
        h.listen(json!(2), json!({"resourceSubscriptions": ["test://text"]}));
        assert!(cancel(&h.server, &json!(2)));
        assert!(h.take().is_empty(), "the acknowledgement waits");
        assert_eq!(touch(&h.server, "test://text", 1), 0);
        thread::sleep(Duration::from_millis(300));
        let acks = h.take();
        assert_eq!(acks.len(), 1, "a listen cancelled before its acknowledgement gets none: {acks:?}");
        assert_eq!(sub_id(&acks[0]), &json!(1));
        assert_eq!(touch(&h.server, "test://text", 1), 1);
    }

    #[test]
    fn invalid_and_duplicate_listens_are_answered() {
        let h = Harness::modern();
        h.listen(json!(1), json!("all"));
        let error = h.take();
        assert_eq!((&error[0]["id"], &error[0]["error"]["code"]), (&json!(1), &json!(-32602)));
        h.listen(json!(1), json!({}));
        h.listen(json!(1), json!({}));
        let lines = h.take();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[1]["error"]["code"], INVALID_REQUEST);
        // A legacy-era server does not know the method.
        let h = Harness::new(Config { protocol: ProtocolMode::Legacy("2025-11-25"), ..Config::default() });
        h.server.set_legacy_version("2025-11-25");
        h.server.handle_line(
            r#"{"jsonrpc":"2.0","id":3,"method":"subscriptions/listen","params":{"notifications":{}}}"#,
        );
        assert_eq!(h.take()[0]["error"]["code"], -32601);
    }

    #[test]
    fn legacy_subscribe_set() {
        let h = Harness::new(Config { protocol: ProtocolMode::Legacy("2025-11-25"), ..Config::default() });
        let send = |h: &Harness, id: u32, method: &str, uri: &str| {
            let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": {"uri": uri}});
            h.server.handle_line(&msg.to_string());
        };
        h.server.handle_line(r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#);
        assert_eq!(h.take()[0]["result"]["capabilities"]["resources"]["subscribe"], true);
        send(&h, 1, "resources/subscribe", "test://text");
        send(&h, 2, "resources/subscribe", "test://nope");
        let answers = h.take();
        assert_eq!(answers[0]["result"], json!({}));
        assert_eq!(answers[1]["error"]["code"], -32002);
        assert_eq!(answers[1]["error"]["message"], "Resource not found");
        assert_eq!(touch(&h.server, "test://text", 2), 2);
        let updates = h.take();
        assert_eq!(
            updates[0],
            json!({"jsonrpc": "2.0", "method": RESOURCE_UPDATED, "params": {"uri": "test://text"}})
        );
        assert_eq!(list_changed(&h.server, ListKind::Prompts, true), 1);
        assert_eq!(h.take()[0], json!({"jsonrpc": "2.0", "method": ListKind::Prompts.method()}));
        send(&h, 3, "resources/unsubscribe", "test://text");
        assert_eq!(h.take()[0]["result"], json!({}));
        assert_eq!(touch(&h.server, "test://text", 1), 0);

        let h = Harness::new(Config {
            protocol: ProtocolMode::Legacy("2025-11-25"),
            no_subscribe: true,
            ..Config::default()
        });
        h.server.handle_line(r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#);
        assert_eq!(h.take()[0]["result"]["capabilities"]["resources"]["subscribe"], false);
        send(&h, 1, "resources/subscribe", "test://text");
        assert_eq!(h.take()[0]["error"]["code"], -32601);
    }
}
