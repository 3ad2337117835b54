//! The simulated MCP server process behind a stdio pipe: a modern (2026-07-28) or legacy
//! (2025-11-25) model with scripted tools, answering the lines the client writes with timed
//! output, and misbehaving when the world's faults say so.

use std::time::Duration;

use serde_json::{json, Value};

use super::rng::Rng;

/// Which era the simulated server speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SimEra {
    /// 2026-07-28: `server/discover`, per-request `_meta`.
    Modern,
    /// 2025-11-25: `initialize`.
    Legacy,
}

/// Something the server process does after a delay.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerOutput {
    /// Bytes on stdout.
    Stdout(Vec<u8>),
    /// The process dies (stdout closes, then the exit is reported).
    Crash,
}

/// The scripted tools.
pub const TOOLS: [&str; 5] = ["echo", "slow", "progress", "huge", "flaky"];

/// One server process.
#[derive(Debug)]
pub struct ServerModel {
    era: SimEra,
    initialized: bool,
    /// Size of the `huge` tool's text (above the client's message limit).
    huge_bytes: usize,
}

/// Fault probabilities in percent (all zero when faults are off).
#[derive(Debug, Clone, Copy, Default)]
pub struct ServerFaults {
    /// A response is sent twice.
    pub duplicate: u64,
    /// A response to an id nobody asked for is sent as well.
    pub unknown_id: u64,
    /// A garbage (non-JSON) line precedes the answer.
    pub garbage: u64,
    /// The process crashes instead of answering (mid-line: half a line first).
    pub crash: u64,
}

impl ServerModel {
    /// A fresh process.
    pub fn new(era: SimEra, huge_bytes: usize) -> Self {
        Self { era, initialized: false, huge_bytes }
    }

    /// Reacts to one line the client wrote: what to output, each after its delay.
    pub fn on_line(
        &mut self,
        line: &[u8],
        rng: &mut Rng,
        faults: ServerFaults,
    ) -> Vec<(Duration, ServerOutput)> {
        let Ok(msg) = serde_json::from_slice::<Value>(line) else { return Vec::new() };
        let Some(method) = msg.get("method").and_then(Value::as_str) else { return Vec::new() };
        let Some(id) = msg.get("id").cloned() else { return Vec::new() };
        if rng.percent(faults.crash) {
            let half = rng.below(40) as usize;
            let partial = br#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#;
            return vec![
                (ms(rng.below(20)), ServerOutput::Stdout(partial[..half].to_vec())),
                (ms(20 + rng.below(20)), ServerOutput::Crash),
            ];
        }
        let mut out = Vec::new();
        if rng.percent(faults.garbage) {
            out.push((ms(rng.below(10)), ServerOutput::Stdout(b"this is not json\n".to_vec())));
        }
        let (delay, result) = self.answer(method, &msg, rng, &mut out);
        let line = match result {
            Ok(r) => json!({"jsonrpc": "2.0", "id": id, "result": r}),
            Err((code, message)) => {
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
            }
        };
        if method == "tools/call" && msg.pointer("/params/name") == Some(&json!("flaky")) && rng.percent(50) {
            out.push((delay, ServerOutput::Crash));
            return out;
        }
        let bytes = format!("{line}\n").into_bytes();
        out.push((delay, ServerOutput::Stdout(bytes.clone())));
        if rng.percent(faults.duplicate) {
            out.push((delay + ms(rng.below(50)), ServerOutput::Stdout(bytes)));
        }
        if rng.percent(faults.unknown_id) {
            let stray = json!({"jsonrpc": "2.0", "id": 9_000_000 + rng.below(1000), "result": {}});
            out.push((delay + ms(1), ServerOutput::Stdout(format!("{stray}\n").into_bytes())));
        }
        out
    }

    /// The answer to a request and when it comes; notifications before it go to `out`.
    #[allow(clippy::type_complexity)]
    fn answer(
        &mut self,
        method: &str,
        msg: &Value,
        rng: &mut Rng,
        out: &mut Vec<(Duration, ServerOutput)>,
    ) -> (Duration, Result<Value, (i64, &'static str)>) {
        let quick = ms(1 + rng.below(30));
        match (self.era, method) {
            (SimEra::Modern, "server/discover") => (
                quick,
                Ok(json!({"resultType": "complete", "supportedVersions": [mcp_core::MODERN_VERSION],
                    "capabilities": {"tools": {}}, "ttlMs": 0, "cacheScope": "private"})),
            ),
            (SimEra::Legacy, "server/discover") => (quick, Err((-32601, "Method not found"))),
            (SimEra::Legacy, "initialize") => {
                self.initialized = true;
                let result = json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                    "serverInfo": {"name": "sim-legacy", "version": "1"}});
                (quick, Ok(result))
            }
            (SimEra::Modern, "initialize") => (quick, Err((-32601, "Method not found"))),
            (SimEra::Legacy, _) if !self.initialized => (quick, Err((-32002, "Server not initialized"))),
            (_, "ping") => (quick, Ok(json!({}))),
            (_, "tools/list") => {
                let tools: Vec<Value> =
                    TOOLS.iter().map(|n| json!({"name": n, "inputSchema": {"type": "object"}})).collect();
                (quick, Ok(json!({"tools": tools})))
            }
            (_, "prompts/list") => (quick, Ok(json!({"prompts": []}))),
            (_, "tools/call") => {
                let name = msg.pointer("/params/name").and_then(Value::as_str).unwrap_or("");
                let text = |t: String| Ok(json!({"content": [{"type": "text", "text": t}]}));
                match name {
                    "echo" | "flaky" => (quick, text(format!("{name} ok"))),
                    "slow" => (ms(500 + rng.below(15_000)), text("slow ok".into())),
                    "progress" => {
                        let token = msg.pointer("/params/_meta/progressToken").cloned();
                        if let Some(token) = token {
                            for i in 1..=3u64 {
                                let note = json!({"jsonrpc": "2.0", "method": "notifications/progress",
                                    "params": {"progressToken": token, "progress": i, "total": 3}});
                                out.push((
                                    ms(100 * i),
                                    ServerOutput::Stdout(format!("{note}\n").into_bytes()),
                                ));
                            }
                        }
                        (ms(400), text("progress ok".into()))
                    }
                    "huge" => (quick, text("x".repeat(self.huge_bytes))),
                    _ => (quick, Err((-32602, "Unknown tool"))),
                }
            }
            _ => (quick, Err((-32601, "Method not found"))),
        }
    }
}

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}
