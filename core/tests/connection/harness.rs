//! The test harness: a [`Connection`] with a fake clock, drained after every step.

use std::collections::{BTreeSet, VecDeque};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use mcpwire_core::types::Implementation;
use mcpwire_core::{
    CommandError, Connection, ConnectionConfig, Epoch, Event, ExitInfo, Io, ProtocolMode, Request,
    RequestError, RequestHandle, RequestOptions, Response, ServerInfo, ServerRequestHandle, StdioCommand,
    Warning, MODERN_VERSION,
};

/// The one reading of the real clock in these tests; everything else adds durations to it.
#[allow(clippy::disallowed_methods)]
pub(crate) fn base_instant() -> Instant {
    Instant::now()
}

pub(crate) fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

pub(crate) fn secs(n: u64) -> Duration {
    Duration::from_secs(n)
}

pub(crate) fn opts() -> RequestOptions {
    RequestOptions::default()
}

/// A connected harness: a legacy (2025-11-25) or a modern server.
pub(crate) fn connected(legacy: bool) -> Harness {
    let mut h = Harness::auto();
    if legacy {
        h.connect_legacy();
    } else {
        h.connect_modern();
    }
    h
}

/// A configuration for a fake stdio server in the given mode.
pub(crate) fn config(mode: ProtocolMode) -> ConnectionConfig {
    let mut cfg = ConnectionConfig::stdio(StdioCommand::new("fake-server").arg("--stdio"));
    cfg.protocol = mode;
    cfg.client_info = Implementation::new("test-client", "9.9.9");
    cfg
}

/// A `DiscoverResult`.
pub(crate) fn discover(versions: &[&str], caps: Value, ttl_ms: u64) -> Value {
    json!({
        "resultType": "complete",
        "supportedVersions": versions,
        "capabilities": caps,
        "ttlMs": ttl_ms,
        "cacheScope": "private",
        "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "fake", "version": "1.0"}},
    })
}

/// The usual modern server: 2026-07-28, the baseline capabilities.
pub(crate) fn discover_ok() -> Value {
    discover(&[MODERN_VERSION], baseline_caps(), 0)
}

/// The usual server's capabilities: tools, prompts, resources, completions and logging (no
/// `listChanged`, no `subscribe`, no tasks), so every plain request kind may be sent.
pub(crate) fn baseline_caps() -> Value {
    json!({"tools": {}, "prompts": {}, "resources": {}, "completions": {}, "logging": {}})
}

/// An `initialize` result.
pub(crate) fn init_result(version: &str, caps: Value) -> Value {
    json!({
        "protocolVersion": version,
        "capabilities": caps,
        "serverInfo": {"name": "legacy-fake", "version": "0.1"},
    })
}

pub(crate) fn tool(name: &str) -> Value {
    json!({"name": name, "inputSchema": {"type": "object"}})
}

/// One `tools/list` page.
pub(crate) fn tools_page(names: &[&str], cursor: Option<&str>) -> Value {
    let mut v = json!({"tools": names.iter().map(|n| tool(n)).collect::<Vec<_>>()});
    if let Some(c) = cursor {
        v["nextCursor"] = json!(c);
    }
    v
}

pub(crate) fn call(name: &str, arguments: Value) -> Request {
    Request::CallTool { name: name.into(), arguments }
}

pub(crate) fn text_result(text: &str) -> Value {
    json!({"content": [{"type": "text", "text": text}]})
}

pub(crate) fn tool_names(r: Response) -> Vec<String> {
    match r {
        Response::Tools(t) => t.into_iter().map(|t| t.name).collect(),
        other => panic!("expected tools, got {other:?}"),
    }
}

pub(crate) fn exit_code(code: i32) -> ExitInfo {
    ExitInfo { code: Some(code), signal: None }
}

/// True if a `_meta` object holds any `io.modelcontextprotocol/*` key.
pub(crate) fn has_modern_meta(msg: &Value) -> bool {
    msg.pointer("/params/_meta")
        .and_then(Value::as_object)
        .is_some_and(|m| m.keys().any(|k| k.starts_with("io.modelcontextprotocol/")))
}

/// Asserts the modern `_meta` envelope of a written request.
pub(crate) fn assert_modern_meta(msg: &Value) {
    let meta = &msg["params"]["_meta"];
    assert_eq!(meta["io.modelcontextprotocol/protocolVersion"], json!(MODERN_VERSION), "{msg}");
    assert_eq!(
        meta["io.modelcontextprotocol/clientInfo"],
        json!({"name": "test-client", "version": "9.9.9"})
    );
    let caps = &meta["io.modelcontextprotocol/clientCapabilities"];
    assert_eq!(caps["extensions"], json!({"io.modelcontextprotocol/tasks": {}}), "{msg}");
}

/// A connection plus a fake clock and everything it output that a test has not looked at yet.
pub(crate) struct Harness {
    pub(crate) conn: Connection,
    pub(crate) t0: Instant,
    pub(crate) now: Instant,
    /// The epoch of the process the fake server runs as.
    pub(crate) epoch: Option<Epoch>,
    io: VecDeque<Io>,
    events: VecDeque<Event>,
    issued: BTreeSet<RequestHandle>,
    answered: BTreeSet<RequestHandle>,
    exchanges: BTreeSet<mcpwire_core::ExchangeId>,
}

impl Harness {
    pub(crate) fn new(mut cfg: ConnectionConfig) -> Self {
        // A process-wide notice would depend on which test ran first: off unless a test asks
        // (deprecation.rs tests the modes per connection).
        cfg.deprecation_notices.get_or_insert(mcpwire_core::DeprecationNotices::Off);
        let t0 = base_instant();
        let conn = Connection::new(cfg, t0);
        let mut h = Self {
            conn,
            t0,
            now: t0,
            epoch: None,
            io: VecDeque::new(),
            events: VecDeque::new(),
            issued: BTreeSet::new(),
            answered: BTreeSet::new(),
            exchanges: BTreeSet::new(),
        };
        h.drain();
        h.assert_quiet();
        assert_eq!(h.conn.poll_timeout(), None, "a new connection arms no timer");
        h
    }

    pub(crate) fn with(mode: ProtocolMode, f: impl FnOnce(&mut ConnectionConfig)) -> Self {
        let mut cfg = config(mode);
        f(&mut cfg);
        Self::new(cfg)
    }

    pub(crate) fn auto() -> Self {
        Self::new(config(ProtocolMode::Auto))
    }

    pub(crate) fn modern_mode() -> Self {
        Self::new(config(ProtocolMode::Modern))
    }

    pub(crate) fn legacy_mode() -> Self {
        Self::new(config(ProtocolMode::Legacy))
    }

    /// Time since the harness was created.
    pub(crate) fn elapsed(&self) -> Duration {
        self.now - self.t0
    }

    /// Drains every output of the connection, checking the run-loop invariants.
    pub(crate) fn drain(&mut self) {
        loop {
            let mut any = false;
            while let Some(io) = self.conn.poll_io() {
                any = true;
                if let Io::Write { bytes, .. } = &io {
                    assert_eq!(bytes.last(), Some(&b'\n'), "a write ends with a newline");
                    let newlines = bytes.iter().filter(|&&b| b == b'\n').count();
                    assert_eq!(
                        newlines,
                        1,
                        "a write is exactly one line: {:?}",
                        String::from_utf8_lossy(bytes)
                    );
                }
                if let Io::HttpStart { exchange, request } = &io {
                    assert!(self.exchanges.insert(*exchange), "exchange {exchange} started twice");
                    for (name, value) in &request.headers {
                        assert!(
                            !name.is_empty() && !value.contains(['\r', '\n', '\0']),
                            "unsafe header {name:?}: {value:?}"
                        );
                    }
                }
                self.io.push_back(io);
            }
            while let Some(ev) = self.conn.poll_event() {
                any = true;
                match &ev {
                    Event::Response { handle, .. } => {
                        assert!(self.answered.insert(*handle), "second Event::Response for {handle}");
                    }
                    Event::Progress { handle, .. } => {
                        assert!(!self.answered.contains(handle), "progress after the response of {handle}");
                    }
                    Event::Subscription { handle, .. } => {
                        assert!(!self.answered.contains(handle), "an update after the response of {handle}");
                    }
                    _ => {}
                }
                self.events.push_back(ev);
            }
            if !any {
                break;
            }
        }
    }

    // ----- commands -------------------------------------------------------------------------

    pub(crate) fn try_request(
        &mut self,
        request: Request,
        opts: RequestOptions,
    ) -> Result<RequestHandle, CommandError> {
        let r = self.conn.request(self.now, request, opts);
        if let Ok(h) = r {
            assert!(self.issued.insert(h), "handle {h} reused");
        }
        self.drain();
        r
    }

    pub(crate) fn request_opts(&mut self, request: Request, opts: RequestOptions) -> RequestHandle {
        self.try_request(request, opts).expect("request accepted")
    }

    pub(crate) fn request(&mut self, request: Request) -> RequestHandle {
        self.request_opts(request, RequestOptions::default())
    }

    pub(crate) fn cancel(&mut self, h: RequestHandle) -> bool {
        let r = self.conn.cancel(self.now, h);
        self.drain();
        r
    }

    pub(crate) fn close(&mut self) {
        self.conn.close(self.now);
        self.drain();
    }

    pub(crate) fn respond(
        &mut self,
        h: ServerRequestHandle,
        outcome: Result<Value, mcpwire_core::HandlerError>,
    ) -> bool {
        self.respond_checked(h, outcome).is_ok()
    }

    /// Feeds one runtime input (as a driver would).
    pub(crate) fn input(&mut self, input: mcpwire_core::Input) {
        self.conn.handle_input(self.now, input);
        self.drain();
    }

    pub(crate) fn respond_checked(
        &mut self,
        h: ServerRequestHandle,
        outcome: Result<Value, mcpwire_core::HandlerError>,
    ) -> Result<(), mcpwire_core::AnswerError> {
        let r = self.conn.respond_to_server(self.now, h, outcome);
        self.drain();
        r
    }

    // ----- time -----------------------------------------------------------------------------

    /// Moves the clock forward and fires due timers.
    pub(crate) fn advance(&mut self, d: Duration) {
        self.now += d;
        self.conn.handle_timeout(self.now);
        self.drain();
        let next = self.conn.poll_timeout();
        assert!(next.is_none_or(|t| t > self.now), "a timer at or before now survived handle_timeout");
    }

    /// Moves the clock to the next armed deadline and fires it; returns how far that was.
    pub(crate) fn fire_next_timer(&mut self) -> Duration {
        let at = self.conn.poll_timeout().expect("a timer is armed");
        let d = at.saturating_duration_since(self.now);
        self.advance(d);
        d
    }

    /// How long until the next armed deadline.
    pub(crate) fn next_timer_in(&self) -> Option<Duration> {
        self.conn.poll_timeout().map(|t| t.saturating_duration_since(self.now))
    }

    // ----- the fake process -----------------------------------------------------------------

    /// Takes the pending `Io::Spawn` (there must be exactly one) without starting it.
    pub(crate) fn take_spawn(&mut self) -> Epoch {
        let spawns: Vec<_> = self.io.iter().filter(|io| matches!(io, Io::Spawn { .. })).cloned().collect();
        assert_eq!(spawns.len(), 1, "expected one spawn, io: {:?}", self.io);
        self.io.retain(|io| !matches!(io, Io::Spawn { .. }));
        let Io::Spawn { epoch, command } = &spawns[0] else { unreachable!() };
        assert_eq!(command.program, "fake-server");
        *epoch
    }

    /// Takes the pending spawn and reports the process started.
    pub(crate) fn start(&mut self) -> Epoch {
        let epoch = self.take_spawn();
        self.started(epoch);
        epoch
    }

    /// Reports the process of `epoch` started (and makes it the current one).
    pub(crate) fn started(&mut self, epoch: Epoch) {
        self.epoch = Some(epoch);
        self.conn.handle_process_started(self.now, epoch);
        self.drain();
    }

    fn cur(&self) -> Epoch {
        self.epoch.expect("a process was started")
    }

    /// Raw stdout bytes from the current process.
    pub(crate) fn stdout(&mut self, bytes: &[u8]) {
        let epoch = self.cur();
        self.stdout_from(epoch, bytes);
    }

    pub(crate) fn stdout_from(&mut self, epoch: Epoch, bytes: &[u8]) {
        self.conn.handle_stdout(self.now, epoch, bytes);
        self.drain();
    }

    /// One JSON-RPC message from the server, as one line.
    pub(crate) fn server_says(&mut self, msg: Value) {
        let mut line = serde_json::to_vec(&msg).unwrap();
        line.push(b'\n');
        self.stdout(&line);
    }

    pub(crate) fn reply(&mut self, req: &Value, result: Value) {
        self.server_says(json!({"jsonrpc": "2.0", "id": req["id"].clone(), "result": result}));
    }

    pub(crate) fn reply_error(&mut self, req: &Value, code: i64, message: &str, data: Option<Value>) {
        let mut error = json!({"code": code, "message": message});
        if let Some(d) = data {
            error["data"] = d;
        }
        self.server_says(json!({"jsonrpc": "2.0", "id": req["id"].clone(), "error": error}));
    }

    pub(crate) fn notify(&mut self, method: &str, params: Value) {
        self.server_says(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    pub(crate) fn stderr(&mut self, bytes: &[u8]) {
        let epoch = self.cur();
        self.conn.handle_stderr(self.now, epoch, bytes);
        self.drain();
    }

    pub(crate) fn eof(&mut self) {
        let epoch = self.cur();
        self.conn.handle_stdout_eof(self.now, epoch);
        self.drain();
    }

    pub(crate) fn exited(&mut self, status: ExitInfo) {
        let epoch = self.cur();
        self.exited_epoch(epoch, status);
    }

    pub(crate) fn exited_epoch(&mut self, epoch: Epoch, status: ExitInfo) {
        self.conn.handle_process_exited(self.now, epoch, status);
        self.drain();
    }

    // ----- what the client wrote ------------------------------------------------------------

    /// Takes every pending write, parsed; other IO stays pending.
    pub(crate) fn sent(&mut self) -> Vec<Value> {
        let mut out = Vec::new();
        let mut rest = VecDeque::new();
        for io in self.io.drain(..) {
            match io {
                Io::Write { epoch, bytes } => {
                    assert_eq!(Some(epoch), self.epoch, "write for a process that is not current");
                    out.push(
                        serde_json::from_slice(&bytes[..bytes.len() - 1]).expect("the client writes JSON"),
                    );
                }
                other => rest.push_back(other),
            }
        }
        self.io = rest;
        out
    }

    /// Takes the first pending write.
    pub(crate) fn next_sent(&mut self) -> Value {
        let i = self.io.iter().position(|io| matches!(io, Io::Write { .. })).expect("a write is pending");
        let Some(Io::Write { epoch, bytes }) = self.io.remove(i) else { unreachable!() };
        assert_eq!(Some(epoch), self.epoch, "write for a process that is not current");
        serde_json::from_slice(&bytes[..bytes.len() - 1]).expect("the client writes JSON")
    }

    /// Takes the only pending write, which must be a request or notification for `method`.
    pub(crate) fn expect_sent(&mut self, method: &str) -> Value {
        let mut all = self.sent();
        assert_eq!(all.len(), 1, "expected one write ({method}), got {all:#?}");
        let msg = all.remove(0);
        assert_eq!(msg["method"], json!(method), "{msg}");
        assert_eq!(msg["jsonrpc"], json!("2.0"));
        msg
    }

    /// The pending IO actions, for helpers that pick some out.
    pub(crate) fn io_queue(&mut self) -> &mut VecDeque<Io> {
        &mut self.io
    }

    /// Takes every pending IO action (writes included, unparsed).
    pub(crate) fn io(&mut self) -> Vec<Io> {
        self.io.drain(..).collect()
    }

    // ----- what the host saw ----------------------------------------------------------------

    pub(crate) fn events(&mut self) -> Vec<Event> {
        self.events.drain(..).collect()
    }

    /// Takes the pending warnings; other events stay pending.
    pub(crate) fn warnings(&mut self) -> Vec<Warning> {
        let mut out = Vec::new();
        self.events.retain(|ev| match ev {
            Event::Warning(w) => {
                out.push(w.clone());
                false
            }
            _ => true,
        });
        out
    }

    /// Takes the first pending event matching `f`.
    pub(crate) fn take_event(&mut self, f: impl Fn(&Event) -> bool) -> Option<Event> {
        let i = self.events.iter().position(f)?;
        self.events.remove(i)
    }

    /// Takes the outcome of a request (it must have one pending).
    /// The next server request (legacy request or input round) the host was asked.
    pub(crate) fn take_server_request(
        &mut self,
    ) -> (mcpwire_core::ServerRequestHandle, mcpwire_core::ServerRequest) {
        match self.take_event(|e| matches!(e, Event::ServerRequest { .. })) {
            Some(Event::ServerRequest { handle, request }) => (handle, request),
            _ => panic!("no server request"),
        }
    }

    pub(crate) fn response(&mut self, h: RequestHandle) -> Result<Response, RequestError> {
        match self.take_event(|ev| matches!(ev, Event::Response { handle, .. } if *handle == h)) {
            Some(Event::Response { result, .. }) => result,
            _ => panic!("no response for {h}; events: {:#?}", self.events),
        }
    }

    pub(crate) fn ok(&mut self, h: RequestHandle) -> Response {
        self.response(h).unwrap_or_else(|e| panic!("{h} failed: {e:?}"))
    }

    pub(crate) fn err(&mut self, h: RequestHandle) -> RequestError {
        match self.response(h) {
            Ok(r) => panic!("{h} succeeded: {r:?}"),
            Err(e) => e,
        }
    }

    pub(crate) fn has_response(&self, h: RequestHandle) -> bool {
        self.answered.contains(&h)
    }

    pub(crate) fn take_connected(&mut self) -> ServerInfo {
        match self.take_event(|ev| matches!(ev, Event::Connected(_))) {
            Some(Event::Connected(info)) => *info,
            _ => panic!("not connected; events: {:#?}", self.events),
        }
    }

    pub(crate) fn take_disconnected(&mut self) -> RequestError {
        match self.take_event(|ev| matches!(ev, Event::Disconnected { .. })) {
            Some(Event::Disconnected { reason }) => reason,
            _ => panic!("not disconnected; events: {:#?}", self.events),
        }
    }

    /// Nothing written and nothing to report.
    pub(crate) fn assert_quiet(&mut self) {
        assert!(self.io.is_empty(), "unexpected io: {:#?}", self.io);
        assert!(self.events.is_empty(), "unexpected events: {:#?}", self.events);
    }

    /// Every handle issued so far got its response.
    pub(crate) fn assert_all_answered(&self) {
        let open: Vec<_> = self.issued.difference(&self.answered).collect();
        assert!(open.is_empty(), "requests without a response: {open:?}");
        assert_eq!(self.conn.in_flight(), 0);
    }

    // ----- handshakes -----------------------------------------------------------------------

    /// Answers the pending probe with a `DiscoverResult`; the connection must become modern.
    pub(crate) fn modern_handshake(&mut self, result: Value) -> ServerInfo {
        let probe = self.next_sent();
        assert_eq!(probe["method"], json!("server/discover"));
        self.reply(&probe, result);
        let info = self.take_connected();
        assert_eq!(info.era, mcpwire_core::Era::Modern);
        info
    }

    /// Answers the probe (if the mode probes) with -32601 and completes `initialize`.
    pub(crate) fn legacy_handshake(&mut self, version: &str, caps: Value) -> ServerInfo {
        if self.conn.config().protocol != ProtocolMode::Legacy {
            let probe = self.next_sent();
            assert_eq!(probe["method"], json!("server/discover"));
            self.reply_error(&probe, -32601, "Method not found", None);
        }
        let init = self.next_sent();
        assert_eq!(init["method"], json!("initialize"));
        self.reply(&init, init_result(version, caps));
        let initialized = self.next_sent();
        assert_eq!(initialized, json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        let info = self.take_connected();
        assert_eq!(info.era, mcpwire_core::Era::Legacy);
        assert_eq!(info.protocol_version, version);
        info
    }

    /// Connects to a modern server (the baseline capabilities) through `Request::Connect`.
    pub(crate) fn connect_modern(&mut self) -> ServerInfo {
        self.connect_modern_with(discover_ok())
    }

    pub(crate) fn connect_modern_with(&mut self, result: Value) -> ServerInfo {
        let h = self.request(Request::Connect);
        self.start();
        let info = self.modern_handshake(result);
        assert_eq!(self.ok(h), Response::Connected(Box::new(info.clone())));
        self.assert_quiet();
        info
    }

    /// Connects to a legacy server answering 2025-11-25 with the baseline capabilities.
    pub(crate) fn connect_legacy(&mut self) -> ServerInfo {
        self.connect_legacy_with("2025-11-25", baseline_caps())
    }

    pub(crate) fn connect_legacy_with(&mut self, version: &str, caps: Value) -> ServerInfo {
        let h = self.request(Request::Connect);
        self.start();
        let info = self.legacy_handshake(version, caps);
        assert_eq!(self.ok(h), Response::Connected(Box::new(info.clone())));
        self.assert_quiet();
        info
    }
}
