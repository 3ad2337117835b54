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
}

#[derive(Debug, Default)]
struct Exchange {
    get: bool,
    /// The head the world sent: `Some(true)` for an event stream.
    head: Option<bool>,
    /// It carries a listen.
    listen: bool,
}

struct World {
    conn: Connection,
    now: Instant,
    http: bool,
    issued: Vec<RequestHandle>,
    outcomes: BTreeMap<RequestHandle, usize>,
    /// Whether each ended request ended as cancelled.
    cancelled: BTreeMap<RequestHandle, bool>,
    sent: Vec<Sent>,
    server_requests: Vec<ServerRequestHandle>,
    /// stdio: the process asked for, and whether it runs.
    spawn: Option<(Epoch, bool)>,
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
}

/// The op-list body over stdio.
pub fn client_ops_stdio(t0: Instant, data: &[u8]) {
    let mut cfg = ConnectionConfig::stdio(StdioCommand::new("fuzz"));
    cfg.limits.max_message_bytes = 8192;
    run(World::new(cfg, t0, false), data);
}

/// The op-list body over HTTP (era and transport detection included).
pub fn client_ops_http(t0: Instant, data: &[u8]) {
    let http = HttpConfig::new("http://127.0.0.1:9/mcp").expect("a valid URL");
    let mut cfg = ConnectionConfig::http(http);
    cfg.limits.max_message_bytes = 8192;
    run(World::new(cfg, t0, true), data);
}

fn run(mut w: World, data: &[u8]) {
    let mut r = Reader { data, at: 0 };
    w.drain();
    while !r.done() {
        w.op(&mut r);
        w.drain();
    }
    // Heal: close, then let time pass; everything must end.
    w.conn.close(w.now);
    w.closed = true;
    w.drain();
    for _ in 0..6 {
        if let Some((epoch, false)) = w.spawn {
            w.conn.handle_spawn_failed(w.now, epoch, "closed before it started".into());
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
}

impl World {
    fn new(cfg: ConnectionConfig, t0: Instant, http: bool) -> Self {
        Self {
            conn: Connection::new(cfg, t0),
            now: t0,
            http,
            issued: Vec::new(),
            outcomes: BTreeMap::new(),
            cancelled: BTreeMap::new(),
            sent: Vec::new(),
            server_requests: Vec::new(),
            spawn: None,
            open: BTreeMap::new(),
            finished: BTreeSet::new(),
            closed: false,
            next_server_id: 0,
            listens: BTreeMap::new(),
            markers: BTreeMap::new(),
            routing: None,
            next_note: 0,
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
                _ => {}
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
            }
            Err(CommandError::Closed) => assert!(self.closed, "refused as closed while open"),
            Err(_) => {}
        }
    }

    /// The host opens a listen (a random filter naming its marker as a task id, sometimes
    /// `require_all`) or (un)subscribes a resource.
    fn listen_request(&mut self, r: &mut Reader<'_>) {
        let flags = r.byte();
        let marker = self.markers.len() as u64;
        let request = match flags % 8 {
            6 => Request::SubscribeResource { uri: "fuzz://a".into() },
            7 => Request::UnsubscribeResource { uri: "fuzz://a".into() },
            _ => {
                let mut f = SubscriptionFilter::new().task(format!("F{marker}"));
                f.tools_list_changed = flags & 8 != 0;
                f.prompts_list_changed = flags & 16 != 0;
                f.resources_list_changed = flags & 32 != 0;
                if flags & 64 != 0 {
                    f = f.resource("fuzz://a");
                }
                if flags & 128 != 0 {
                    f = f.resource("fuzz://b");
                }
                Request::Listen { filter: f, require_all: flags % 8 >= 4 }
            }
        };
        let opts = RequestOptions {
            timeout: Some(Duration::from_millis([100u64, 2_000, 30_000][r.pick(3)])),
            ..RequestOptions::default()
        };
        match self.conn.request(self.now, request.clone(), opts) {
            Ok(h) => {
                assert!(!self.closed, "a request after close must fail");
                self.issued.push(h);
                if let Request::Listen { filter, require_all } = request {
                    self.markers.insert(marker, h);
                    let l =
                        Listen { asked: filter, require_all, ids: Vec::new(), stale: 0, must_refuse: false };
                    self.listens.insert(h, l);
                }
            }
            Err(CommandError::Closed) => assert!(self.closed, "refused as closed while open"),
            Err(_) => {}
        }
    }

    /// The host cancels one of its listens.
    fn listen_cancel(&mut self, r: &mut Reader<'_>) {
        let handles: Vec<RequestHandle> = self.listens.keys().copied().collect();
        let Some(&h) = pick(r, &handles) else { return };
        let live = !self.outcomes.contains_key(&h);
        assert_eq!(
            self.conn.cancel(self.now, h),
            live,
            "cancel of listen {h:?} must succeed exactly while it is live"
        );
        self.drain();
        if live {
            assert_eq!(self.cancelled.get(&h), Some(&true), "a cancelled listen ends as Cancelled at once");
        }
    }

    /// A listen the client sent (any attempt).
    fn sent_listen(&self, r: &mut Reader<'_>) -> Option<Sent> {
        let listens: Vec<&Sent> = self.sent.iter().filter(|s| s.listen.is_some()).collect();
        pick(r, &listens).map(|s| (*s).clone())
    }

    /// The server acknowledges a listen: what it asked, part of it, nothing, or odd values.
    fn listen_ack(&mut self, r: &mut Reader<'_>) {
        let Some(sent) = self.sent_listen(r) else { return };
        let asked = sent.listen.clone().unwrap_or(Value::Null);
        let granted = match r.pick(5) {
            0 | 1 => asked,
            2 => {
                let mut g = asked;
                if let Some(m) = g.as_object_mut() {
                    let keys: Vec<String> = m.keys().cloned().collect();
                    for k in keys {
                        if r.pick(2) == 0 {
                            m.remove(&k);
                        }
                    }
                }
                g
            }
            3 => json!({}),
            _ => {
                json!({"toolsListChanged": "yes", "resourceSubscriptions": ["fuzz://a", 7], "taskIds": "F0"})
            }
        };
        let mut params = json!({"_meta": {SUB_META: sent.id}, "notifications": granted});
        if r.pick(8) == 0 {
            params = json!({"notifications": {}});
        }
        let message =
            json!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged", "params": params});
        self.deliver(r, message, sent.exchange);
    }

    /// The server sends a notification tagged with a listen's id (current or stale).
    fn listen_note(&mut self, r: &mut Reader<'_>) {
        let Some(sent) = self.sent_listen(r) else { return };
        self.next_note += 1;
        let uri = format!("fuzz://note/{}", self.next_note);
        let meta = json!({SUB_META: sent.id});
        let message = match r.pick(4) {
            0 | 1 => json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
                            "params": {"uri": uri, "_meta": meta}}),
            2 => {
                json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {"_meta": meta}})
            }
            _ => json!({"jsonrpc": "2.0", "method": "notifications/tasks",
                        "params": {"taskId": "F0", "status": "working", "_meta": meta}}),
        };
        // The listen whose current attempt carries that id, if any: the only one it may reach.
        let id = sent.id.to_string();
        let owner = self.listens.iter().find(|(h, l)| {
            !self.outcomes.contains_key(h) && l.ids.len() > l.stale && l.ids.last() == Some(&id)
        });
        self.routing = Some((uri, owner.map(|(h, _)| *h)));
        self.deliver(r, message, sent.exchange);
        self.routing = None;
    }

    /// The server ends a listen on its own: gracefully, with a bad result, or by cancelling it.
    fn listen_end(&mut self, r: &mut Reader<'_>) {
        let Some(sent) = self.sent_listen(r) else { return };
        let message = match r.pick(4) {
            0 => json!({"jsonrpc": "2.0", "id": sent.id,
                        "result": {"resultType": "complete", "_meta": {SUB_META: sent.id}}}),
            1 => json!({"jsonrpc": "2.0", "id": sent.id, "result": {"resultType": "input_required"}}),
            2 => json!({"jsonrpc": "2.0", "id": sent.id, "result": 7}),
            _ => json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                        "params": {"requestId": sent.id, "reason": "bye"}}),
        };
        self.deliver(r, message, sent.exchange);
    }

    /// The process dies (stdio), or a listen's stream fails or its re-open meets a 5xx (HTTP),
    /// while listens are open; sometimes after they have been kept for a while.
    fn crash_while_listening(&mut self, r: &mut Reader<'_>) {
        let wait = [0u64, 500, 1_500][r.pick(3)];
        self.advance(Duration::from_millis(wait));
        if self.http {
            let listens: Vec<ExchangeId> =
                self.open.iter().filter(|(_, x)| x.listen).map(|(id, _)| *id).collect();
            let Some(&x) = pick(r, &listens) else { return };
            if self.open[&x].head.is_none() && r.pick(2) == 0 {
                self.head(x, [500u16, 502, 503][r.pick(3)], false);
                if self.open.contains_key(&x) {
                    self.finish(x, true);
                }
            } else {
                self.finish(x, false);
            }
            return;
        }
        if let Some((epoch, true)) = self.spawn {
            self.conn.handle_stdout_eof(self.now, epoch);
            self.conn.handle_process_exited(self.now, epoch, ExitInfo { code: Some(1), signal: None });
            self.spawn = None;
        }
    }

    /// A result or an error for a request the client sent.
    fn reply(&mut self, r: &mut Reader<'_>, success: bool) {
        let Some(sent) = pick(r, &self.sent).cloned() else { return };
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
            _ => Err("handler failed".to_owned()),
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

    fn stdout(&mut self, r: &mut Reader<'_>, bytes: &[u8]) {
        let Some((epoch, true)) = self.spawn else { return };
        let split = r.pick(bytes.len() + 1);
        self.conn.handle_stdout(self.now, epoch, &bytes[..split]);
        self.drain();
        self.conn.handle_stdout(self.now, epoch, &bytes[split..]);
    }

    fn body(&mut self, r: &mut Reader<'_>, x: ExchangeId, bytes: &[u8]) {
        let split = r.pick(bytes.len() + 1);
        self.conn.handle_http_body(self.now, x, &bytes[..split]);
        self.drain();
        if self.open.contains_key(&x) {
            self.conn.handle_http_body(self.now, x, &bytes[split..]);
        }
    }

    fn head(&mut self, x: ExchangeId, status: u16, sse: bool) {
        let content_type = if sse { "text/event-stream" } else { "application/json" };
        let mut headers = vec![("content-type".to_owned(), content_type.to_owned())];
        if status == 200 && !self.open[&x].get {
            headers.push(("mcp-session-id".to_owned(), "fuzz-session".to_owned()));
        }
        if let Some(e) = self.open.get_mut(&x) {
            e.head = Some(sse);
        }
        self.conn.handle_http_head(self.now, x, HttpHead { status, headers });
        self.drain();
    }

    fn http_head(&mut self, r: &mut Reader<'_>) {
        let Some(x) = self.any_open(r) else { return };
        if self.open[&x].head.is_some() {
            return;
        }
        let status = [200u16, 202, 400, 401, 404, 405, 500, 503][r.pick(8)];
        let sse = r.pick(2) == 1;
        self.head(x, status, sse);
        if status != 200 && self.open.contains_key(&x) {
            let body = br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"bad"}}"#;
            self.body(r, x, body);
            if self.open.contains_key(&x) {
                self.finish(x, true);
            }
        }
    }

    fn transport_event(&mut self, r: &mut Reader<'_>) {
        if self.http {
            if let Some(x) = self.any_open(r) {
                let ended_well = r.pick(2) == 0;
                self.finish(x, ended_well);
            }
            return;
        }
        match (self.spawn, r.pick(4)) {
            (Some((epoch, false)), 0) => {
                self.conn.handle_spawn_failed(self.now, epoch, "no such program".into());
                self.spawn = None;
            }
            (Some((epoch, false)), _) => {
                self.conn.handle_process_started(self.now, epoch);
                self.spawn = Some((epoch, true));
            }
            (Some((epoch, true)), 0) => self.conn.handle_stdout_eof(self.now, epoch),
            (Some((epoch, true)), _) => {
                self.conn.handle_process_exited(self.now, epoch, ExitInfo { code: Some(1), signal: None });
                self.spawn = None;
            }
            (None, _) => {}
        }
    }

    /// Ends an exchange (`HttpEnd` or `HttpFailed`).
    fn finish(&mut self, x: ExchangeId, ended_well: bool) {
        self.open.remove(&x);
        self.finished.insert(x);
        if ended_well {
            self.conn.handle_http_end(self.now, x);
        } else {
            self.conn.handle_http_failed(self.now, x, "connection reset".into());
        }
        self.drain();
    }

    fn any_open(&self, r: &mut Reader<'_>) -> Option<ExchangeId> {
        let keys: Vec<ExchangeId> = self.open.keys().copied().collect();
        pick(r, &keys).copied()
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
                self.open.insert(exchange, Exchange { get, head: None, listen: false });
                self.record_http(&request, exchange);
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
            self.sent.push(Sent {
                id: id.clone(),
                method: method.to_owned(),
                progress_token,
                exchange,
                listen,
            });
            if self.sent.len() > 256 {
                self.sent.remove(0);
            }
        }
    }

    /// A listen attempt went out with wire id `id`: the listen its marker names.
    fn listen_sent(&mut self, asked: &Value, id: &Value) {
        let marker = asked
            .get("taskIds")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .find_map(|t| t.strip_prefix('F')?.parse::<u64>().ok());
        let Some(h) = marker.and_then(|m| self.markers.get(&m)) else {
            panic!("a listen went out that the host never opened: {asked}")
        };
        let l = self.listens.get_mut(h).expect("a listen for each marker");
        assert_eq!(
            SubscriptionFilter::from_value(asked),
            l.asked,
            "a listen attempt asks for what the host asked"
        );
        l.ids.push(id.to_string());
    }

    /// The invariants on a listen's updates.
    fn on_update(&mut self, handle: RequestHandle, update: SubscriptionUpdate) {
        assert!(
            !self.outcomes.contains_key(&handle),
            "a subscription update for {handle:?} after its outcome"
        );
        let Some(l) = self.listens.get_mut(&handle) else {
            panic!("a subscription update for {handle:?}, which is not a listen")
        };
        match update {
            SubscriptionUpdate::Acknowledged { granted, unsupported } => {
                assert_eq!(
                    unsupported,
                    l.asked.missing_from(&granted),
                    "unsupported is what was asked and not granted"
                );
                l.must_refuse = l.require_all && !unsupported.is_empty();
            }
            SubscriptionUpdate::Notification(n) => {
                if let (Some((uri, owner)), Notification::ResourceUpdated { uri: got }) = (&self.routing, &n)
                {
                    if uri == got {
                        assert_eq!(
                            Some(handle),
                            *owner,
                            "a notification tagged with a listen's id reached another listen, or a stale one"
                        );
                    }
                }
            }
            SubscriptionUpdate::Reconnecting { .. } => l.stale = l.ids.len(),
        }
    }

    fn on_event(&mut self, event: Event) {
        match event {
            Event::Response { handle, result } => {
                assert!(self.issued.contains(&handle), "outcome for a handle never issued");
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
            Event::ServerRequest { handle, .. } => self.server_requests.push(handle),
            Event::Progress { handle, .. } => {
                assert!(!self.outcomes.contains_key(&handle), "progress after the outcome of {handle:?}");
            }
            _ => {}
        }
    }
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
    match (method, variant) {
        ("server/discover", 0..=3) => modern,
        ("initialize", 0..=2) => legacy,
        ("initialize", 3) => {
            let mut with_subscribe = legacy;
            with_subscribe["capabilities"]["resources"] = json!({"subscribe": true});
            with_subscribe
        }
        ("tools/list", 0) => json!({"tools": [{"name": "echo", "inputSchema": {"type": "object"},
                                   "outputSchema": {"type": "object", "required": ["x"]}}], "nextCursor": "c"}),
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
