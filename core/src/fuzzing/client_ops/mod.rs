//! The whole client, over stdio or HTTP, driven by an operation list decoded from the fuzz input:
//! host commands (requests of every kind, cancels, answers to server requests, close), server
//! messages built from templates that reference the request ids the client really sent (results,
//! errors, `input_required`, progress for live tokens, notifications, server requests,
//! duplicates), raw bytes, process events (start, spawn failure, EOF, exit) or HTTP events (heads
//! of any status, SSE or JSON bodies, cuts, failures), and time deltas.
//!
//! Checked throughout: no panic; every request handle gets at most one outcome, and exactly one
//! once time has healed everything and the client is closed; after `handle_timeout(now)` no
//! deadline at or before `now` remains; one drain ends within a bounded number of outputs; stdio
//! writes are whole single-line JSON-RPC messages; HTTP exchange ids are unique and never reused
//! after their end or abort; after close every command fails with the close error.
//!
//! Listen streams and subscriptions (the free slots of the close op): the host opens listens
//! (random filters, `require_all`), cancels them, subscribes and unsubscribes resources; the
//! server acknowledges listens (in full, in part, with odd values), sends notifications tagged
//! with their ids (current or stale), ends them (graceful, bad result, `notifications/cancelled`),
//! and the process dies or a listen's stream fails while they are open. Checked: subscription
//! updates only for live listens (none after the outcome, none after the host cancelled);
//! `unsupported` is exactly what was asked and not granted, and a `require_all` listen whose
//! grant leaves something out ends `SubscriptionRefused` at once; a notification tagged with a
//! listen's wire id reaches that listen only, and only while that id is its current attempt;
//! `ListenEnded` only for listens, and a listen never ends with another success.
//!
//! Tasks (the last free slot of the close op): the host calls task tools, starts calls as tasks,
//! waits for tasks (`TaskResult`), looks at them, cancels them, lists them; the server answers
//! calls with create results (both revisions' shapes, ids from a small pool so they get
//! reused), answers polls with every status (paces from none to beyond the client's bounds,
//! lifetimes, input requests, results, errors), acknowledges updates, answers `tasks/result`,
//! `tasks/cancel` and `tasks/list`, pushes status notifications, and sends malformed task
//! answers; the host cancels calls mid-task. Checked: a `tasks/get`, `tasks/update` or
//! `tasks/result` goes out only while a handle that may send it is live; a `tasks/get` never
//! before the pace the client last took from a poll's answer allows (10 ms .. 30 s, 1 s when
//! absent; at once after an update's acknowledgment), for tasks no `GetTask` or `TaskResult`
//! also polls; a call polling a task that is cancelled or times out before any final status
//! sends `tasks/cancel` for it; `RequestError::Task` only for a task the server said was
//! cancelled, one with a lifetime, or an id handed out twice; a task result the client
//! delivers is one the server sent.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::io::{ExitInfo, HttpHead, HttpMethod, HttpRequest};
use crate::types::LoggingLevel;
use crate::{
    CommandError, Connection, ConnectionConfig, Epoch, Event, ExchangeId, HttpConfig, Io, Notification,
    Request, RequestError, RequestHandle, RequestOptions, Response, ServerRequestHandle, StdioCommand,
    SubscriptionFilter, SubscriptionUpdate,
};

/// The `_meta` key naming the subscription a notification belongs to.
const SUB_META: &str = crate::subscription::SUBSCRIPTION_ID_META;

/// Outputs one drain may produce before it counts as endless.
const MAX_DRAIN: usize = 10_000;

/// Reads the fuzz input as small numbers; zeros once it runs out.
struct Reader<'a> {
    data: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn done(&self) -> bool {
        self.at >= self.data.len()
    }

    fn byte(&mut self) -> u8 {
        let b = self.data.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        b
    }

    fn pick(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            self.byte() as usize % n
        }
    }

    fn bytes(&mut self, max: usize) -> Vec<u8> {
        let n = self.pick(max + 1);
        let end = (self.at + n).min(self.data.len());
        let out = self.data[self.at.min(end)..end].to_vec();
        self.at = end;
        out
    }
}

/// A request the client put on the wire.
#[derive(Debug, Clone)]
struct Sent {
    id: Value,
    method: String,
    progress_token: Option<Value>,
    /// The HTTP exchange that carried it.
    exchange: Option<ExchangeId>,
    /// A listen: what it asked for (`params.notifications`).
    listen: Option<Value>,
    /// A task message: the task it names (`params.taskId`).
    task: Option<String>,
    /// Its exchange was refused with 401 or 403: the client sends it again under a new id (after
    /// authorizing) or fails it, and never takes an answer to this id.
    refused: bool,
}

/// What a host request has to do with tasks.
#[derive(Debug, Clone, PartialEq, Eq)]
enum TaskReq {
    /// A plain `tools/call` (the server may turn it into a task).
    Call,
    /// `CallToolAsTask`.
    AsTask,
    /// `TaskResult` for this task.
    Wait(String),
    /// `GetTask` for this task.
    Get(String),
    /// `CancelTask`, `ListTasks`.
    Other,
}

/// Task ids the fuzz server hands out: few, so that they get reused.
const TASK_IDS: [&str; 4] = ["F-t0", "F-t1", "F-t2", "F-t3"];

/// Paces (`pollIntervalMs`) the fuzz server gives: none, below the client's floor, ordinary,
/// beyond its ceiling.
const PACES: [Option<u64>; 6] = [None, Some(0), Some(5), Some(50), Some(1_000), Some(60_000)];

/// The wait the client keeps between polls for a pace.
fn clamp_pace(pace: Option<u64>) -> Duration {
    Duration::from_millis(pace.map_or(1_000, |p| p.clamp(10, 30_000)))
}

/// What the host's side knows about tasks, for the task invariants.
#[derive(Debug, Default)]
struct Tasks {
    /// Host requests that have to do with tasks.
    handles: BTreeMap<RequestHandle, TaskReq>,
    /// The earliest the next `tasks/get` of a task may go out.
    not_before: BTreeMap<String, Instant>,
    /// Tasks a `GetTask` or `TaskResult` also polls: their pace is not checked.
    shared: BTreeSet<String>,
    /// Request ids (JSON text) whose answers set no pace any more: a task answer was delivered
    /// to them, or a later poll of the same task superseded them.
    answered: BTreeSet<String>,
    /// The task a call polls (from a `tasks/get` it alone can have sent).
    bound: BTreeMap<RequestHandle, String>,
    /// Tasks a final status (or a `tasks/result` answer) was delivered for.
    terminal: BTreeSet<String>,
    /// Tasks `tasks/cancel` was sent for.
    cancels: BTreeSet<String>,
    /// Tasks the server said were cancelled; tasks with a lifetime; create answers per id.
    cancelled: BTreeSet<String>,
    with_ttl: BTreeSet<String>,
    created: BTreeMap<String, u32>,
    /// Result texts the server sent.
    results: BTreeSet<String>,
    next_result: u64,
}

/// A listen the host opened.
#[derive(Debug)]
struct Listen {
    asked: SubscriptionFilter,
    require_all: bool,
    /// The wire ids of its attempts (JSON text), in the order they went out.
    ids: Vec<String>,
    /// Attempts before the latest `Reconnecting` (their ids route nowhere).
    stale: usize,
    /// Its last acknowledgment leaves something out and it requires it all.
    must_refuse: bool,
    /// Notifications it dropped as not asked for (`SubscriptionUpdate::Unrequested`).
    unrequested: u64,
}

#[derive(Debug, Default)]
struct Exchange {
    get: bool,
    /// An authorization server fetch: its URL.
    auth: Option<String>,
    /// A request to the MCP server without credentials (a protected server refuses it).
    bare: bool,
    /// The head the world sent: `Some(true)` for an event stream.
    head: Option<bool>,
    /// It carries a listen.
    listen: bool,
}

struct World {
    conn: Connection,
    now: Instant,
    http: bool,
    /// The server asks for authorization ([`client_ops_http_auth`]).
    auth: bool,
    /// Browser steps (with their URL) and token requests not answered yet.
    auth_prompts: Vec<(ServerRequestHandle, Option<String>)>,
    issued: Vec<RequestHandle>,
    outcomes: BTreeMap<RequestHandle, usize>,
    /// Whether each ended request ended as cancelled.
    cancelled: BTreeMap<RequestHandle, bool>,
    sent: Vec<Sent>,
    server_requests: Vec<ServerRequestHandle>,
    /// stdio: the process asked for, and whether it runs.
    spawn: Option<(Epoch, bool)>,
    /// stdio: the process whose stdout ends in an unterminated line (raw bytes): the next line
    /// it writes is glued to that fragment and reaches the client as garbage.
    stdout_partial: Option<Epoch>,
    open: BTreeMap<ExchangeId, Exchange>,
    finished: BTreeSet<ExchangeId>,
    closed: bool,
    next_server_id: u64,
    /// The host's listens, by handle; by marker (the task id naming them in their filter).
    listens: BTreeMap<RequestHandle, Listen>,
    markers: BTreeMap<u64, RequestHandle>,
    /// The templated tagged notification being delivered: its URI and the listen its tag names
    /// while that is the listen's current attempt.
    routing: Option<(String, Option<RequestHandle>)>,
    next_note: u64,
    tasks: Tasks,
    /// What happened, when asked for ([`client_ops_log`]).
    log: Option<Vec<String>>,
}

mod auth;
mod listen;
mod tasks;
mod transport;

fn stdio_config() -> ConnectionConfig {
    let mut cfg = ConnectionConfig::stdio(StdioCommand::new("fuzz"));
    cfg.limits.max_message_bytes = 8192;
    cfg.features.elicitation_form = true;
    cfg
}

fn http_config() -> ConnectionConfig {
    let http = HttpConfig::new("http://127.0.0.1:9/mcp").expect("a valid URL");
    let mut cfg = ConnectionConfig::http(http);
    cfg.limits.max_message_bytes = 8192;
    cfg.features.elicitation_form = true;
    cfg
}

/// The op-list body over stdio.
pub fn client_ops_stdio(t0: Instant, data: &[u8]) {
    run(World::new(stdio_config(), t0, false), data);
}

/// The op-list body over HTTP (era and transport detection included).
pub fn client_ops_http(t0: Instant, data: &[u8]) {
    run(World::new(http_config(), t0, true), data);
}

/// The op-list body over an HTTP server that asks for authorization (the first byte picks
/// OAuth or the host's token provider): see `client_ops_auth.rs`.
pub fn client_ops_http_auth(t0: Instant, data: &[u8]) {
    run(auth_world(t0, data), data.get(1..).unwrap_or_default());
}

/// The world of [`client_ops_http_auth`]: its first byte picks OAuth or the token provider.
fn auth_world(t0: Instant, data: &[u8]) -> World {
    let provider = data.first().is_some_and(|b| b % 2 == 1);
    let mut w = World::new(auth::config(provider), t0, true);
    w.auth = true;
    w
}

/// [`client_ops_log`] for [`client_ops_http_auth`] inputs.
pub fn client_ops_http_auth_log(t0: Instant, data: &[u8]) -> Vec<String> {
    let mut w = auth_world(t0, data);
    w.log = Some(Vec::new());
    run_logged(w, data.get(1..).unwrap_or_default())
}

/// Runs the op-list body (`http`: over HTTP, else stdio) and returns what happened, one line
/// per op, message the client sent and outcome: for writing and reading corpus inputs.
pub fn client_ops_log(t0: Instant, data: &[u8], http: bool) -> Vec<String> {
    let cfg = if http { http_config() } else { stdio_config() };
    let mut w = World::new(cfg, t0, http);
    w.log = Some(Vec::new());
    run_logged(w, data)
}

fn run(w: World, data: &[u8]) {
    run_logged(w, data);
}

fn run_logged(mut w: World, data: &[u8]) -> Vec<String> {
    let mut r = Reader { data, at: 0 };
    w.drain();
    while !r.done() {
        w.op(&mut r);
        w.drain();
        if w.auth {
            w.auth_service(&mut r);
        }
    }
    // Heal: close, then let time pass; everything must end.
    w.conn.close(w.now);
    w.closed = true;
    w.drain();
    for _ in 0..6 {
        if let Some((epoch, false)) = w.spawn {
            w.conn.handle_spawn_failed(w.now, epoch, std::io::Error::other("closed before it started"));
            w.spawn = None;
            w.drain();
        }
        w.advance(Duration::from_secs(120));
        if let Some((epoch, true)) = w.spawn {
            w.conn.handle_process_exited(w.now, epoch, ExitInfo { code: Some(0), signal: None });
            w.spawn = None;
            w.drain();
        }
    }
    assert!(
        matches!(w.conn.request(w.now, Request::Ping, RequestOptions::default()), Err(CommandError::Closed)),
        "a command after close must fail with the close error"
    );
    for h in &w.issued {
        assert_eq!(w.outcomes.get(h).copied().unwrap_or(0), 1, "request {h:?} must end exactly once");
    }
    w.log.take().unwrap_or_default()
}

impl World {
    fn new(cfg: ConnectionConfig, t0: Instant, http: bool) -> Self {
        Self {
            conn: Connection::new(cfg, t0),
            now: t0,
            http,
            auth: false,
            auth_prompts: Vec::new(),
            issued: Vec::new(),
            outcomes: BTreeMap::new(),
            cancelled: BTreeMap::new(),
            sent: Vec::new(),
            server_requests: Vec::new(),
            spawn: None,
            stdout_partial: None,
            open: BTreeMap::new(),
            finished: BTreeSet::new(),
            closed: false,
            next_server_id: 0,
            listens: BTreeMap::new(),
            markers: BTreeMap::new(),
            routing: None,
            next_note: 0,
            tasks: Tasks::default(),
            log: None,
        }
    }

    /// Logs a line, when logging ([`client_ops_log`]).
    fn note(&mut self, line: impl FnOnce() -> String) {
        if let Some(log) = self.log.as_mut() {
            log.push(line());
        }
    }

    fn advance(&mut self, by: Duration) {
        self.now += by;
        self.conn.handle_timeout(self.now);
        if let Some(next) = self.conn.poll_timeout() {
            assert!(next > self.now, "a due timer survived handle_timeout");
        }
        self.drain();
    }

    fn op(&mut self, r: &mut Reader<'_>) {
        let at = r.at;
        let byte = r.data.get(at).copied().unwrap_or(0);
        self.note(|| format!("op at byte {at}: {}", byte % 13));
        match r.pick(13) {
            0 | 1 => self.host_request(r),
            2 => {
                if let Some(&h) = pick(r, &self.issued) {
                    let live = !self.outcomes.contains_key(&h);
                    let cancelled = self.conn.cancel(self.now, h);
                    assert_eq!(cancelled, live, "cancel of {h:?} must succeed exactly while it is live");
                    self.drain();
                    if cancelled {
                        assert_eq!(
                            self.cancelled.get(&h),
                            Some(&true),
                            "a cancelled request ends as Cancelled at once"
                        );
                    }
                }
            }
            3 => self.reply(r, true),
            4 => self.reply(r, false),
            5 => self.notification(r),
            6 => self.server_request(r),
            7 if self.auth && r.pick(2) == 0 => self.auth_op(r),
            7 => {
                let raw = r.bytes(96);
                self.deliver_raw(r, raw);
            }
            8 => {
                let ms = [0u64, 5, 50, 500, 5_000, 30_000, 120_000][r.pick(7)];
                self.advance(Duration::from_millis(ms));
            }
            9 => self.transport_event(r),
            10 => self.answer_server_request(r),
            11 => match r.pick(8) {
                0 => {
                    self.conn.close(self.now);
                    self.closed = true;
                }
                1 => self.listen_request(r),
                2 => self.listen_cancel(r),
                3 => self.listen_ack(r),
                4 => self.listen_note(r),
                5 => self.listen_end(r),
                6 => self.crash_while_listening(r),
                _ => self.task_op(r),
            },
            _ => self.http_head(r),
        }
    }

    fn host_request(&mut self, r: &mut Reader<'_>) {
        let request = match r.pick(9) {
            0 => Request::ListTools,
            1 => Request::call_tool(["echo", "slow", "ask", "huge"][r.pick(4)], json!({"x": r.pick(100)})),
            2 => Request::Ping,
            3 => Request::get_prompt("greet", serde_json::Map::new()),
            4 => Request::read_resource("test://a"),
            5 => Request::ListPrompts,
            6 => Request::SetLogLevel(LoggingLevel::Info),
            7 => Request::Connect,
            _ => Request::Custom { method: "x/custom".into(), params: json!({}) },
        };
        let call = matches!(request, Request::CallTool { .. });
        let opts = RequestOptions {
            timeout: Some(Duration::from_millis([100u64, 2_000, 30_000][r.pick(3)])),
            progress: r.pick(2) == 1,
            reset_timeout_on_progress: r.pick(4) == 0,
            max_total_timeout: Some(Duration::from_secs(90)),
            refresh: r.pick(2) == 1,
            ..RequestOptions::default()
        };
        match self.conn.request(self.now, request, opts) {
            Ok(h) => {
                assert!(!self.closed, "a request after close must fail");
                self.issued.push(h);
                if call {
                    self.tasks.handles.insert(h, TaskReq::Call);
                }
            }
            Err(CommandError::Closed) => assert!(self.closed, "refused as closed while open"),
            Err(_) => {}
        }
    }

    /// A result or an error for a request the client sent.
    fn reply(&mut self, r: &mut Reader<'_>, success: bool) {
        let Some(sent) = pick(r, &self.sent).cloned() else { return };
        self.task_answered(&sent);
        let message = if success {
            json!({"jsonrpc": "2.0", "id": sent.id, "result": result_for(&sent.method, r.pick(6))})
        } else {
            let code = [-32601i64, -32602, -32603, -32022, -32020, 1][r.pick(6)];
            json!({"jsonrpc": "2.0", "id": sent.id, "error": {"code": code, "message": "no",
                   "data": {"supported": ["2025-11-25"]}}})
        };
        self.deliver(r, message, sent.exchange);
    }

    fn notification(&mut self, r: &mut Reader<'_>) {
        let token = pick(r, &self.sent).and_then(|s| s.progress_token.clone()).unwrap_or(json!("none"));
        let message = match r.pick(5) {
            0 | 1 => json!({"jsonrpc": "2.0", "method": "notifications/progress",
                            "params": {"progressToken": token, "progress": r.pick(100), "total": 100}}),
            2 => json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}),
            3 => json!({"jsonrpc": "2.0", "method": "notifications/message",
                        "params": {"level": "info", "data": "log line"}}),
            _ => {
                let id = pick(r, &self.sent).map_or(json!(0), |s| s.id.clone());
                json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id}})
            }
        };
        let exchange = pick(r, &self.sent).and_then(|s| s.exchange);
        self.deliver(r, message, exchange);
    }

    fn server_request(&mut self, r: &mut Reader<'_>) {
        self.next_server_id += 1;
        let id = json!(format!("s-{}", self.next_server_id));
        let message = match r.pick(3) {
            0 => json!({"jsonrpc": "2.0", "id": id, "method": "ping"}),
            1 => json!({"jsonrpc": "2.0", "id": id, "method": "roots/list"}),
            _ => {
                json!({"jsonrpc": "2.0", "id": id, "method": "elicitation/create", "params": {"message": "?",
                  "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}}}})
            }
        };
        let exchange = pick(r, &self.sent).and_then(|s| s.exchange);
        self.deliver(r, message, exchange);
    }

    fn answer_server_request(&mut self, r: &mut Reader<'_>) {
        let Some(&h) = pick(r, &self.server_requests) else { return };
        let answer = match r.pick(3) {
            0 => Ok(json!({"roots": []})),
            1 => Ok(json!({"action": "accept", "content": {"ok": r.pick(2) == 1}})),
            _ => Err("handler failed".into()),
        };
        let _ = self.conn.respond_to_server(self.now, h, answer);
    }

    /// Sends one message: stdio as a line (maybe split), HTTP on the exchange that carried the
    /// request (or any open one).
    fn deliver(&mut self, r: &mut Reader<'_>, message: Value, exchange: Option<ExchangeId>) {
        let mut bytes = serde_json::to_vec(&message).expect("JSON encodes");
        if self.http {
            let Some(x) = exchange.filter(|x| self.open.contains_key(x)).or_else(|| self.any_open(r)) else {
                return;
            };
            let sse = match self.open[&x].head {
                Some(sse) => sse,
                None => {
                    let sse = r.pick(2) == 1;
                    self.head(x, 200, sse);
                    sse
                }
            };
            if !self.open.contains_key(&x) {
                return;
            }
            if sse {
                let mut event = b"id: e1\ndata: ".to_vec();
                event.extend_from_slice(&bytes);
                event.extend_from_slice(b"\n\n");
                bytes = event;
            }
            self.body(r, x, &bytes);
            if !sse && self.open.contains_key(&x) {
                self.finish(x, true);
            }
        } else {
            bytes.push(b'\n');
            self.stdout(r, &bytes);
        }
    }

    fn deliver_raw(&mut self, r: &mut Reader<'_>, raw: Vec<u8>) {
        // Raw bytes may hold any answer: no pace is known any more.
        self.tasks.not_before.clear();
        if self.http {
            if let Some(x) = self.any_open(r) {
                if self.open[&x].head.is_none() {
                    self.head(x, 200, true);
                }
                if self.open.contains_key(&x) {
                    self.body(r, x, &raw);
                }
            }
        } else {
            self.stdout(r, &raw);
        }
    }

    /// Acts on every output; checks the invariants of each.
    fn drain(&mut self) {
        for _ in 0..MAX_DRAIN {
            let Some(output) = self.conn.poll_output() else {
                for (h, l) in &self.listens {
                    assert!(
                        !l.must_refuse || self.outcomes.contains_key(h),
                        "listen {h:?} requires it all, was granted less, and did not end at once"
                    );
                }
                for uri in self.conn.resource_subscriptions() {
                    assert_eq!(uri, "fuzz://a", "a resource subscription the host never asked for");
                }
                return;
            };
            match output {
                crate::Output::Io(io) => self.on_io(io),
                crate::Output::Event(event) => self.on_event(event),
            }
        }
        panic!("one drain produced more than {MAX_DRAIN} outputs");
    }

    fn on_io(&mut self, io: Io) {
        match io {
            Io::Spawn { epoch, .. } => {
                assert!(!self.http, "an HTTP connection spawned a process");
                self.spawn = Some((epoch, false));
            }
            Io::Write { epoch, bytes } => {
                assert!(
                    matches!(self.spawn, Some((e, true)) if e == epoch) || self.spawn.is_none(),
                    "write to {epoch:?}"
                );
                assert_eq!(bytes.last(), Some(&b'\n'), "a write is one whole line");
                assert!(!bytes[..bytes.len() - 1].contains(&b'\n'), "a write holds one line");
                let message: Value = serde_json::from_slice(&bytes).expect("a write is JSON");
                self.record(&message, None);
            }
            Io::CloseStdin { .. } | Io::Terminate { .. } => {}
            Io::HttpStart { exchange, request } => {
                assert!(self.http, "a stdio connection started an HTTP exchange");
                assert!(
                    !self.open.contains_key(&exchange) && !self.finished.contains(&exchange),
                    "exchange id {exchange:?} reused"
                );
                let get = request.method == HttpMethod::Get;
                auth::check_request(&request);
                let auth = (self.auth && auth::is_auth_fetch(&request)).then(|| request.url.clone());
                let fetch = auth.is_some();
                let bare = !request.headers.iter().any(|(n, _)| n.eq_ignore_ascii_case("authorization"));
                self.open.insert(exchange, Exchange { get, auth, bare, head: None, listen: false });
                if !fetch {
                    self.record_http(&request, exchange);
                }
            }
            Io::HttpAbort { exchange } => {
                assert!(
                    self.open.contains_key(&exchange) || self.finished.contains(&exchange),
                    "abort of unknown exchange {exchange:?}"
                );
                self.open.remove(&exchange);
                self.finished.insert(exchange);
            }
        }
    }

    fn record_http(&mut self, request: &HttpRequest, exchange: ExchangeId) {
        if request.body.is_empty() {
            return;
        }
        let message: Value = serde_json::from_slice(&request.body).expect("a POST body is JSON");
        self.record(&message, Some(exchange));
    }

    fn record(&mut self, message: &Value, exchange: Option<ExchangeId>) {
        if let (Some(id), Some(method)) = (message.get("id"), message.get("method").and_then(Value::as_str)) {
            let progress_token = message.pointer("/params/_meta/progressToken").cloned();
            let listen = (method == "subscriptions/listen")
                .then(|| message.pointer("/params/notifications").cloned().unwrap_or(Value::Null));
            if let Some(asked) = &listen {
                self.listen_sent(asked, id);
            }
            if let (true, Some(x)) = (listen.is_some(), exchange.and_then(|x| self.open.get_mut(&x))) {
                x.listen = true;
            }
            let task = method
                .starts_with("tasks/")
                .then(|| message.pointer("/params/taskId").and_then(Value::as_str).map(str::to_owned))
                .flatten();
            self.note(|| format!("client sent {method} id {id} task {task:?}"));
            self.task_message(method, task.as_deref().unwrap_or(""));
            self.sent.push(Sent {
                id: id.clone(),
                method: method.to_owned(),
                progress_token,
                exchange,
                listen,
                task,
                refused: false,
            });
            if self.sent.len() > 256 {
                self.sent.remove(0);
            }
        }
    }

    fn on_event(&mut self, event: Event) {
        match event {
            Event::Response { handle, result } => {
                assert!(self.issued.contains(&handle), "outcome for a handle never issued");
                self.note(|| format!("outcome of {handle:?}: {}", short(&result)));
                self.task_outcome(handle, &result);
                self.cancelled.insert(handle, matches!(result, Err(crate::RequestError::Cancelled)));
                let n = self.outcomes.entry(handle).or_default();
                *n += 1;
                assert_eq!(*n, 1, "request {handle:?} ended twice");
                match self.listens.get(&handle) {
                    Some(l) => {
                        assert!(
                            matches!(result, Ok(Response::ListenEnded) | Err(_)),
                            "listen {handle:?} ended with {result:?}"
                        );
                        if l.must_refuse {
                            assert!(
                                matches!(result, Err(RequestError::SubscriptionRefused { .. })),
                                "a required grant left something out, yet {handle:?} ended with {result:?}"
                            );
                        }
                    }
                    None => assert!(
                        !matches!(result, Ok(Response::ListenEnded)),
                        "{handle:?}, not a listen, ended as a listen"
                    ),
                }
            }
            Event::Subscription { handle, update } => self.on_update(handle, update),
            Event::ServerRequest { handle, request } => {
                self.note(|| format!("server request {handle:?}"));
                self.note_auth_prompt(handle, &request);
                self.server_requests.push(handle);
            }
            Event::Progress { handle, .. } => {
                assert!(!self.outcomes.contains_key(&handle), "progress after the outcome of {handle:?}");
            }
            Event::ResourceSubscriptionDropped { uri, .. } => {
                assert!(
                    !self.conn.resource_subscriptions().any(|u| u == uri),
                    "the dropped subscription {uri} is still listed"
                );
            }
            _ => {}
        }
    }
}

/// An outcome, briefly (for the log).
fn short(result: &Result<Response, RequestError>) -> String {
    let text = match result {
        Ok(Response::ToolResult(r)) => format!("Ok(ToolResult {:?})", r.text()),
        Ok(Response::TaskStarted(t)) => format!("Ok(TaskStarted {})", t.task_id),
        other => format!("{other:?}"),
    };
    text.chars().take(160).collect()
}

fn pick<'a, T>(r: &mut Reader<'_>, items: &'a [T]) -> Option<&'a T> {
    if items.is_empty() {
        None
    } else {
        items.get(r.pick(items.len()))
    }
}

/// A plausible result for `method`, in one of a few shapes.
fn result_for(method: &str, variant: usize) -> Value {
    let modern = json!({"resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}},
                        "ttlMs": 1000, "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "f", "version": "1"}}});
    let legacy = json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {"listChanged": true}},
                        "serverInfo": {"name": "f", "version": "1"}});
    let mut modern = modern;
    let mut legacy = legacy;
    match (method, variant) {
        // Servers that declare tasks (the 2026-07-28 extension, the 2025-11-25 capability).
        ("server/discover", 2 | 3) => {
            modern["capabilities"]["extensions"] = json!({"io.modelcontextprotocol/tasks": {}});
            modern
        }
        ("server/discover", 0 | 1) => modern,
        ("initialize", 2) => {
            legacy["capabilities"]["tasks"] =
                json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}});
            legacy
        }
        ("initialize", 0 | 1) => legacy,
        ("initialize", 3) => {
            let mut with_subscribe = legacy;
            with_subscribe["capabilities"]["resources"] = json!({"subscribe": true});
            with_subscribe
        }
        ("tools/list", 0) => json!({"tools": [{"name": "echo", "inputSchema": {"type": "object"},
                                   "outputSchema": {"type": "object", "required": ["x"]}}], "nextCursor": "c"}),
        ("tools/list", 2) => json!({"tools": [{"name": "echo", "inputSchema": {"type": "object"}},
                                   {"name": "job", "inputSchema": {"type": "object"},
                                    "execution": {"taskSupport": "required"}}]}),
        ("tools/list", _) => json!({"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}),
        ("tools/call" | "prompts/get" | "resources/read", 0) => json!({"resultType": "input_required",
            "inputRequests": {"k": {"method": "roots/list", "params": {}}}, "requestState": "s"}),
        ("tools/call", 1) => json!({"content": [], "structuredContent": {"x": 1}}),
        ("tools/call", _) => json!({"content": [{"type": "text", "text": "ok"}]}),
        ("prompts/get", _) => json!({"messages": []}),
        ("resources/read", _) => json!({"contents": [{"uri": "test://a", "text": "a"}]}),
        (_, 4) => json!({"resultType": "unknown"}),
        _ => json!({}),
    }
}
