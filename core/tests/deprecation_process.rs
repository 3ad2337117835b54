//! The process-wide deprecation notice registry. Its own test binary with one test: the
//! registry is a `static`, so tests sharing it in parallel would see each other's notices.

use std::time::Instant;

use serde_json::{json, Value};

use mcpwire_core::{
    deprecation, set_deprecation_notices, Connection, ConnectionConfig, Deprecation, DeprecationNotices,
    Event, Input, Io, ProtocolMode, Request, RequestOptions, StdioCommand, UsedBy, Warning,
};

/// A legacy stdio connection, driven by hand through its handshake.
struct Legacy {
    conn: Connection,
    now: Instant,
    epoch: mcpwire_core::Epoch,
}

impl Legacy {
    fn connect(now: Instant, mode: Option<DeprecationNotices>) -> Self {
        let mut cfg = ConnectionConfig::stdio(StdioCommand::new("fake-server"));
        cfg.protocol = ProtocolMode::Legacy;
        cfg.features.roots = true;
        cfg.deprecation_notices = mode;
        let mut conn = Connection::new(cfg, now);
        conn.request(now, Request::Connect, RequestOptions::default()).expect("connect");
        let Some(Io::Spawn { epoch, .. }) = conn.poll_io() else { panic!("expected a spawn") };
        conn.handle_input(now, Input::Started(epoch));
        let Some(Io::Write { bytes, .. }) = conn.poll_io() else { panic!("expected initialize") };
        let init: Value = serde_json::from_slice(&bytes).expect("JSON line");
        assert_eq!(init["method"], "initialize");
        let mut legacy = Self { conn, now, epoch };
        legacy.server_says(json!({"jsonrpc": "2.0", "id": init["id"], "result": {
            "protocolVersion": "2025-11-25", "capabilities": {"logging": {}},
            "serverInfo": {"name": "legacy", "version": "1"}}}));
        legacy
    }

    fn server_says(&mut self, msg: Value) {
        let mut line = msg.to_string().into_bytes();
        line.push(b'\n');
        self.conn.handle_input(self.now, Input::Stdout(self.epoch, line));
    }

    /// The server logs and asks for roots; the deprecations reported, in order.
    fn logs_and_asks_for_roots(&mut self) -> Vec<Deprecation> {
        self.server_says(json!({"jsonrpc": "2.0", "method": "notifications/message",
            "params": {"level": "info", "data": "hi"}}));
        self.server_says(json!({"jsonrpc": "2.0", "id": "r", "method": "roots/list"}));
        let mut found = Vec::new();
        while let Some(event) = self.conn.poll_event() {
            if let Event::Warning(Warning::Deprecated { what, by }) = event {
                assert_eq!(by, UsedBy::Server);
                found.push(what);
            }
        }
        while self.conn.poll_io().is_some() {}
        found
    }
}

#[test]
fn per_process_mode_reports_each_feature_once_across_connections() {
    // The one reading of the clock: the connections take time as an input.
    #[allow(clippy::disallowed_methods)]
    let now = Instant::now();
    assert_eq!(mcpwire_core::deprecation_notices(), DeprecationNotices::PerProcess, "the default");

    // The first connection of the process hears of each feature once; later ones do not.
    let mut first = Legacy::connect(now, None);
    assert_eq!(first.logs_and_asks_for_roots(), [Deprecation::Logging, Deprecation::Roots]);
    assert_eq!(first.logs_and_asks_for_roots(), []);
    let mut second = Legacy::connect(now, None);
    assert_eq!(second.logs_and_asks_for_roots(), []);
    // A per-connection override keeps its own count.
    let mut own = Legacy::connect(now, Some(DeprecationNotices::PerConnection));
    assert_eq!(own.logs_and_asks_for_roots(), [Deprecation::Logging, Deprecation::Roots]);

    // The process switch: off silences connections that follow it, and claims nothing.
    set_deprecation_notices(DeprecationNotices::Off);
    assert!(!deprecation::notice_due(Deprecation::DynamicClientRegistration));
    let mut quiet = Legacy::connect(now, None);
    assert_eq!(quiet.logs_and_asks_for_roots(), []);
    // Per connection, process-wide: every connection hears once, whatever came before.
    set_deprecation_notices(DeprecationNotices::PerConnection);
    let mut third = Legacy::connect(now, None);
    assert_eq!(third.logs_and_asks_for_roots(), [Deprecation::Logging, Deprecation::Roots]);
    assert!(deprecation::notice_due(Deprecation::DynamicClientRegistration), "the caller counts");

    // Back to once per process: a feature seen only while off is still due, once.
    set_deprecation_notices(DeprecationNotices::PerProcess);
    assert!(deprecation::notice_due(Deprecation::DynamicClientRegistration));
    assert!(!deprecation::notice_due(Deprecation::DynamicClientRegistration));
    let mut fourth = Legacy::connect(now, None);
    assert_eq!(fourth.logs_and_asks_for_roots(), []);
}
