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

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::io::{ExitInfo, HttpHead, HttpMethod, HttpRequest};
use crate::types::LoggingLevel;
use crate::{
    CommandError, Connection, ConnectionConfig, Epoch, Event, ExchangeId, HttpConfig, Io, Request,
    RequestHandle, RequestOptions, ServerRequestHandle, StdioCommand,
};

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
}

#[derive(Debug, Default)]
struct Exchange {
    get: bool,
    /// The head the world sent: `Some(true)` for an event stream.
    head: Option<bool>,
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
            11 => {
                if r.pick(8) == 0 {
                    self.conn.close(self.now);
                    self.closed = true;
                }
            }
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
            let Some(output) = self.conn.poll_output() else { return };
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
                self.open.insert(exchange, Exchange { get: request.method == HttpMethod::Get, head: None });
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
            self.sent.push(Sent { id: id.clone(), method: method.to_owned(), progress_token, exchange });
            if self.sent.len() > 256 {
                self.sent.remove(0);
            }
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
            }
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
        ("initialize", 0..=3) => legacy,
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
