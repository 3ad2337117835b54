//! The in-process harness of the test server's own unit tests: a server writing into a
//! buffer, and the lines it wrote.

use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::config::{Config, ProtocolMode};
use crate::protocol::Output;
use crate::server::Server;
use crate::tasks::TASKS_REVISION;

/// How long `wait` waits for lines.
const WAIT: Duration = Duration::from_secs(5);

pub(crate) struct Harness {
    pub(crate) server: Arc<Server>,
    pub(crate) buffer: Arc<Mutex<Vec<u8>>>,
}

impl Harness {
    pub(crate) fn new(cfg: Config) -> Self {
        let (out, buffer) = Output::capture();
        Harness { server: Arc::new(Server::with_output(cfg, out)), buffer }
    }

    pub(crate) fn modern() -> Self {
        Harness::new(Config { protocol: ProtocolMode::Modern, ..Config::default() })
    }

    /// A legacy server, initialized (its answer taken).
    pub(crate) fn legacy(cfg: Config) -> Self {
        let h = Harness::new(cfg);
        let version = match h.server.cfg.protocol {
            ProtocolMode::Legacy(version) => version,
            _ => TASKS_REVISION,
        };
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": {"elicitation": {}},
            "clientInfo": {"name": "t", "version": "1"}}});
        h.server.handle_line(&init.to_string());
        assert_eq!(h.take().len(), 1);
        h
    }

    /// Everything written since the last call, one value per line.
    pub(crate) fn take(&self) -> Vec<Value> {
        let bytes = std::mem::take(&mut *self.buffer.lock().unwrap());
        String::from_utf8(bytes).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
    }

    /// Waits until `n` lines were written since the last take, and takes them.
    pub(crate) fn wait(&self, n: usize) -> Vec<Value> {
        let deadline = Instant::now() + WAIT;
        loop {
            let written = String::from_utf8_lossy(&self.buffer.lock().unwrap()).lines().count();
            if written >= n || Instant::now() >= deadline {
                let lines = self.take();
                assert_eq!(lines.len(), n, "{lines:?}");
                return lines;
            }
            thread::sleep(Duration::from_millis(2));
        }
    }

    pub(crate) fn send(&self, msg: Value) {
        self.server.handle_line(&msg.to_string());
    }
}
