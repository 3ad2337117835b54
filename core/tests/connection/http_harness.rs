//! HTTP helpers for the harness: a scripted server answering the client's exchanges.

use std::io::Write as _;

use serde_json::{json, Value};

use mcpwire_core::mcp_servers::TransportKind;
use mcpwire_core::types::Implementation;
use mcpwire_core::{
    ConnectionConfig, ExchangeId, HttpConfig, HttpHead, HttpMethod, HttpRequest, Io, ProtocolMode,
};

use crate::harness::{discover_ok, init_result, Harness};

/// A configuration for a fake HTTP server at `url`, trying `kinds` (its default ones if empty).
pub(crate) fn http_config(url: &str, kinds: &[TransportKind]) -> ConnectionConfig {
    let mut http = HttpConfig::new(url).expect("valid URL");
    if !kinds.is_empty() {
        http.kinds = kinds.to_vec();
    }
    let mut cfg = ConnectionConfig::http(http);
    cfg.protocol = ProtocolMode::Auto;
    cfg.client_info = Implementation::new("test-client", "9.9.9");
    cfg
}

/// One request the client started.
#[derive(Debug, Clone)]
pub(crate) struct Sent {
    pub(crate) id: ExchangeId,
    pub(crate) req: HttpRequest,
}

impl Sent {
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.req.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// How many headers of this name were sent.
    pub(crate) fn header_count(&self, name: &str) -> usize {
        self.req.headers.iter().filter(|(n, _)| n.eq_ignore_ascii_case(name)).count()
    }

    /// The JSON body.
    pub(crate) fn json(&self) -> Value {
        serde_json::from_slice(&self.req.body).expect("a JSON body")
    }

    /// The JSON-RPC method of the body.
    pub(crate) fn method(&self) -> String {
        let body: serde_json::Value = serde_json::from_slice(&self.req.body).unwrap_or_default();
        body["method"].as_str().unwrap_or("").to_owned()
    }
}

/// An SSE event carrying a JSON-RPC message.
pub(crate) fn sse_message(id: Option<&str>, msg: &Value) -> String {
    let mut s = String::new();
    if let Some(id) = id {
        s.push_str(&format!("id: {id}\n"));
    }
    s.push_str(&format!("data: {msg}\n\n"));
    s
}

pub(crate) fn result_for(req: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": req["id"], "result": result})
}

pub(crate) fn error_for(req: &Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": req["id"], "error": {"code": code, "message": message}})
}

pub(crate) fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(bytes).expect("compress");
    enc.finish().expect("compress")
}

impl Harness {
    /// Takes every exchange the client started, in order (aborts stay queued).
    pub(crate) fn started_http(&mut self) -> Vec<Sent> {
        let mut out = Vec::new();
        let queue = self.io_queue();
        let mut rest = std::collections::VecDeque::new();
        for io in queue.drain(..) {
            match io {
                Io::HttpStart { exchange, request } => out.push(Sent { id: exchange, req: request }),
                other => rest.push_back(other),
            }
        }
        *queue = rest;
        out
    }

    /// Takes the only exchange started, which must be a POST of `method` (or a GET/DELETE when
    /// `method` is `"GET"`/`"DELETE"`).
    pub(crate) fn expect_http(&mut self, method: &str) -> Sent {
        let mut all = self.started_http();
        assert_eq!(all.len(), 1, "expected one exchange ({method}), got {all:#?}");
        let sent = all.remove(0);
        match method {
            "GET" => assert_eq!(sent.req.method, HttpMethod::Get),
            "DELETE" => assert_eq!(sent.req.method, HttpMethod::Delete),
            m => {
                assert_eq!(sent.req.method, HttpMethod::Post);
                assert_eq!(sent.method(), m, "{:?}", sent.json());
            }
        }
        sent
    }

    /// Takes the exchanges aborted so far.
    pub(crate) fn aborted(&mut self) -> Vec<ExchangeId> {
        let queue = self.io_queue();
        let mut out = Vec::new();
        queue.retain(|io| match io {
            Io::HttpAbort { exchange } => {
                out.push(*exchange);
                false
            }
            _ => true,
        });
        out
    }

    pub(crate) fn head(&mut self, ex: ExchangeId, status: u16, headers: &[(&str, &str)]) {
        let head = HttpHead {
            status,
            headers: headers.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect(),
        };
        self.conn.handle_http_head(self.now, ex, head);
        self.drain();
    }

    pub(crate) fn body(&mut self, ex: ExchangeId, bytes: &[u8]) {
        self.conn.handle_http_body(self.now, ex, bytes);
        self.drain();
    }

    pub(crate) fn end(&mut self, ex: ExchangeId) {
        self.conn.handle_http_end(self.now, ex);
        self.drain();
    }

    pub(crate) fn http_fail(&mut self, ex: ExchangeId, detail: &str) {
        self.conn.handle_http_failed(self.now, ex, std::io::Error::other(detail));
        self.drain();
    }

    /// A whole response: head, body, end.
    pub(crate) fn respond_http(
        &mut self,
        ex: ExchangeId,
        status: u16,
        headers: &[(&str, &str)],
        body: &[u8],
    ) {
        self.head(ex, status, headers);
        if !body.is_empty() {
            self.body(ex, body);
        }
        self.end(ex);
    }

    /// A 200 JSON response.
    pub(crate) fn json_reply(&mut self, sent: &Sent, msg: &Value) {
        self.respond_http(sent.id, 200, &[("Content-Type", "application/json")], msg.to_string().as_bytes());
    }

    /// Answers a request with its result as a JSON body.
    pub(crate) fn reply_http(&mut self, sent: &Sent, result: Value) {
        let msg = result_for(&sent.json(), result);
        self.json_reply(sent, &msg);
    }

    /// A 202 with no body.
    pub(crate) fn accepted(&mut self, sent: &Sent) {
        self.respond_http(sent.id, 202, &[], b"");
    }

    /// Opens a 200 event stream and sends `text` on it (not ended).
    pub(crate) fn sse_open(&mut self, ex: ExchangeId, text: &str) {
        self.head(ex, 200, &[("Content-Type", "text/event-stream")]);
        if !text.is_empty() {
            self.body(ex, text.as_bytes());
        }
    }

    /// Detection on an auto-detected URL refuses Streamable HTTP: the probe gets
    /// `probe_status`, `initialize` 405; returns the HTTP+SSE GET that follows.
    pub(crate) fn refuse_streamable(&mut self, probe_status: u16) -> Sent {
        let probe = self.expect_http("server/discover");
        self.respond_http(probe.id, probe_status, &[], b"");
        let init = self.expect_http("initialize");
        self.respond_http(init.id, 405, &[], b"method not allowed");
        self.expect_http("GET")
    }

    /// Lists the tools of a modern HTTP server (it answers `tools`, without a TTL), so that
    /// later calls go out at once: a call of a tool the client has no definition for lists the
    /// tools first (for its `Mcp-Param-*` headers).
    pub(crate) fn know_tools(&mut self, tools: Value) {
        let r = self.request(mcpwire_core::Request::ListTools);
        let list = self.expect_http("tools/list");
        self.reply_http(&list, json!({ "tools": tools }));
        self.ok(r);
    }

    /// A modern handshake over HTTP.
    pub(crate) fn http_connect_modern(&mut self) {
        let probe = self.expect_http("server/discover");
        self.reply_http(&probe, discover_ok());
        self.take_connected();
    }

    /// A legacy Streamable HTTP handshake: the probe is refused with 400, `initialize` gets
    /// session `sess-1`, and the GET stream is opened (returned, not answered).
    pub(crate) fn http_connect_legacy(&mut self) -> Sent {
        let probe = self.expect_http("server/discover");
        self.respond_http(probe.id, 400, &[("Content-Type", "text/plain")], b"Bad Request: no session");
        let init = self.expect_http("initialize");
        assert_eq!(init.header("Mcp-Session-Id"), None);
        let msg = result_for(
            &init.json(),
            init_result("2025-06-18", json!({"tools": {"listChanged": true}, "prompts": {}})),
        );
        self.head(init.id, 200, &[("Content-Type", "application/json"), ("Mcp-Session-Id", "sess-1")]);
        self.body(init.id, msg.to_string().as_bytes());
        self.end(init.id);
        let mut after = self.started_http();
        assert_eq!(after.len(), 2, "{after:#?}");
        let listen = after.pop().expect("GET");
        let initialized = after.pop().expect("initialized");
        assert_eq!(initialized.method(), "notifications/initialized");
        assert_eq!(initialized.header("Mcp-Session-Id"), Some("sess-1"));
        assert_eq!(initialized.header("MCP-Protocol-Version"), Some("2025-06-18"));
        self.accepted(&initialized);
        assert_eq!(listen.req.method, HttpMethod::Get);
        assert_eq!(listen.header("Mcp-Session-Id"), Some("sess-1"));
        assert_eq!(listen.header("Accept"), Some("text/event-stream"));
        self.take_connected();
        listen
    }
}

/// A legacy harness with its GET stream open and quiet.
pub(crate) fn legacy_http() -> (Harness, Sent) {
    let mut h = Harness::new(http_config("http://srv.test/mcp", &[]));
    let c = h.request(mcpwire_core::Request::Connect);
    let listen = h.http_connect_legacy();
    h.sse_open(listen.id, ": keep-alive\n\n");
    h.ok(c);
    (h, listen)
}

/// A harness on an HTTP+SSE server (`cfg`'s URL), connected with the 2024-11-05 handshake,
/// its session stream open and its warnings taken.
pub(crate) fn sse_session(cfg: ConnectionConfig) -> (Harness, Sent) {
    let mut h = Harness::new(cfg);
    let c = h.request(mcpwire_core::Request::Connect);
    let stream = h.expect_http("GET");
    h.sse_open(stream.id, "event: endpoint\ndata: /messages\n\n");
    let init = h.expect_http("initialize");
    h.accepted(&init);
    let msg = result_for(&init.json(), init_result("2024-11-05", json!({"tools": {}})));
    h.body(stream.id, sse_message(None, &msg).as_bytes());
    h.ok(c);
    h.take_connected();
    let initialized = h.expect_http("notifications/initialized");
    h.accepted(&initialized);
    h.warnings();
    (h, stream)
}

/// A modern harness, connected, its (empty) tool list known.
pub(crate) fn modern_http() -> Harness {
    let mut h = Harness::new(http_config("http://srv.test/mcp", &[]));
    let c = h.request(mcpwire_core::Request::Connect);
    h.http_connect_modern();
    h.ok(c);
    h.know_tools(json!([]));
    h
}
