//! What a simulated MCP server answers, whatever carries it: the era handshake (modern
//! `server/discover`, legacy `initialize`), `ping`, the lists and the scripted tools (echo,
//! slow, progress, huge, flaky, and `ask`, which on 2026-07-28 answers `input_required` with a
//! form elicitation and completes once the retry brings the answer and the exact `requestState`),
//! and on legacy servers that declare it, `resources/subscribe` and `resources/unsubscribe`.
//! The stdio process model ([`super::server`]) and the HTTP models ([`super::http`]) both call
//! [`Peer::answer`] and only decide how the reply travels (listen streams, which outlive one
//! reply, are [`super::listen`]'s).

use std::time::Duration;

use serde_json::{json, Value};

use super::rng::Rng;

/// Which era the simulated server speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SimEra {
    /// 2026-07-28: `server/discover`, per-request `_meta`.
    Modern,
    /// 2025-11-25 (or 2024-11-05 over HTTP+SSE): `initialize`.
    Legacy,
}

/// The scripted tools.
pub const TOOLS: [&str; 6] = ["echo", "slow", "progress", "huge", "flaky", "ask"];

/// The `requestState` the `ask` tool hands out (and wants back verbatim).
pub const ASK_STATE: &str = "v1.ask+/=state";

/// How a request ends on the server side.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// A JSON-RPC result.
    Result(Value),
    /// A JSON-RPC error.
    Error(i64, &'static str),
    /// The `flaky` tool: the transport breaks instead of answering (the process dies, the
    /// response stream is cut).
    Break,
}

/// A server's reaction to one request.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    /// When the outcome is ready, after the request arrived.
    pub delay: Duration,
    /// The outcome.
    pub outcome: Outcome,
    /// Notifications sent before the outcome, each after its delay.
    pub notes: Vec<(Duration, Value)>,
}

impl Reply {
    /// The JSON-RPC response to the request `id` (`None` for [`Outcome::Break`]).
    pub fn response(&self, id: &Value) -> Option<Value> {
        match &self.outcome {
            Outcome::Result(r) => Some(json!({"jsonrpc": "2.0", "id": id, "result": r})),
            Outcome::Error(code, message) => {
                Some(json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}))
            }
            Outcome::Break => None,
        }
    }
}

/// The request-handling side of one server instance (a process, an HTTP session, or a
/// stateless modern endpoint).
#[derive(Debug, Clone)]
pub struct Peer {
    era: SimEra,
    /// The revision a legacy server answers `initialize` with.
    legacy_version: &'static str,
    initialized: bool,
    /// Size of the `huge` tool's text (above the client's message limit).
    huge_bytes: usize,
    /// A legacy server declares `resources.subscribe` (and answers `resources/subscribe`).
    subscribe: bool,
}

/// The tool list every simulated server offers. `echo` mirrors its `n` argument into the
/// `Mcp-Param-N` header on modern HTTP (a valid `x-mcp-header` annotation).
pub fn tool_list() -> Value {
    let tools: Vec<Value> = TOOLS
        .iter()
        .map(|n| match *n {
            "echo" => json!({"name": n, "inputSchema": {"type": "object",
                "properties": {"n": {"type": "integer", "x-mcp-header": "N"}}}}),
            _ => json!({"name": n, "inputSchema": {"type": "object"}}),
        })
        .collect();
    json!({ "tools": tools })
}

impl Peer {
    /// A fresh server instance of `era` (legacy ones answer `initialize` with `legacy_version`).
    pub fn new(era: SimEra, legacy_version: &'static str, huge_bytes: usize) -> Self {
        Self { era, legacy_version, initialized: false, huge_bytes, subscribe: false }
    }

    /// The same server, declaring `resources.subscribe` when `on` (legacy eras).
    pub fn with_subscribe(mut self, on: bool) -> Self {
        self.subscribe = on;
        self
    }

    /// The era it speaks.
    pub fn era(&self) -> SimEra {
        self.era
    }

    /// Reacts to one request (`None` for a notification or a response).
    pub fn answer(&mut self, msg: &Value, rng: &mut Rng) -> Option<Reply> {
        let method = msg.get("method").and_then(Value::as_str)?;
        msg.get("id")?;
        let mut notes = Vec::new();
        let (delay, outcome) = self.outcome(method, msg, rng, &mut notes);
        Some(Reply { delay, outcome, notes })
    }

    fn outcome(
        &mut self,
        method: &str,
        msg: &Value,
        rng: &mut Rng,
        notes: &mut Vec<(Duration, Value)>,
    ) -> (Duration, Outcome) {
        let quick = ms(1 + rng.below(30));
        let err = |code, message| (quick, Outcome::Error(code, message));
        match (self.era, method) {
            (SimEra::Modern, "server/discover") => (
                quick,
                Outcome::Result(json!({"resultType": "complete",
                    "supportedVersions": [mcp_core::MODERN_VERSION],
                    "capabilities": {"tools": {}}, "ttlMs": 0, "cacheScope": "private"})),
            ),
            (SimEra::Legacy, "server/discover") => err(-32601, "Method not found"),
            (SimEra::Legacy, "initialize") => {
                self.initialized = true;
                let mut capabilities = json!({"tools": {}});
                if self.subscribe {
                    capabilities["resources"] = json!({"subscribe": true});
                }
                let result = json!({"protocolVersion": self.legacy_version, "capabilities": capabilities,
                    "serverInfo": {"name": "sim-legacy", "version": "1"}});
                (quick, Outcome::Result(result))
            }
            (SimEra::Modern, "initialize") => err(-32601, "Method not found"),
            (SimEra::Legacy, _) if !self.initialized => err(-32002, "Server not initialized"),
            (_, "ping") => (quick, Outcome::Result(json!({}))),
            (SimEra::Legacy, "resources/subscribe" | "resources/unsubscribe") if self.subscribe => {
                (quick, Outcome::Result(json!({})))
            }
            (_, "tools/list") => (quick, Outcome::Result(tool_list())),
            (_, "prompts/list") => (quick, Outcome::Result(json!({"prompts": []}))),
            (_, "tools/call") => {
                let name = msg.pointer("/params/name").and_then(Value::as_str).unwrap_or("");
                let text = |t: String| Outcome::Result(json!({"content": [{"type": "text", "text": t}]}));
                match name {
                    "echo" => (quick, text("echo ok".into())),
                    "flaky" if rng.percent(50) => (quick, Outcome::Break),
                    "flaky" => (quick, text("flaky ok".into())),
                    "slow" => (ms(500 + rng.below(15_000)), text("slow ok".into())),
                    "progress" => {
                        if let Some(token) = msg.pointer("/params/_meta/progressToken") {
                            for i in 1..=3u64 {
                                let note = json!({"jsonrpc": "2.0", "method": "notifications/progress",
                                    "params": {"progressToken": token, "progress": i, "total": 3}});
                                notes.push((ms(100 * i), note));
                            }
                        }
                        (ms(400), text("progress ok".into()))
                    }
                    "huge" => (quick, text("x".repeat(self.huge_bytes))),
                    "ask" if self.era == SimEra::Legacy => {
                        (quick, text("ask ok (no input on legacy)".into()))
                    }
                    "ask" => {
                        match (msg.pointer("/params/requestState"), msg.pointer("/params/inputResponses/who"))
                        {
                            (None, None) => (
                                quick,
                                Outcome::Result(
                                    json!({"resultType": "input_required", "requestState": ASK_STATE,
                                "inputRequests": {"who": {"method": "elicitation/create", "params": {
                                    "message": "Who are you?",
                                    "requestedSchema": {"type": "object", "required": ["name"],
                                        "properties": {"name": {"type": "string", "minLength": 1}}}}}}}),
                                ),
                            ),
                            (Some(state), Some(answer)) if state == ASK_STATE => {
                                match answer["action"].as_str() {
                                    Some("accept")
                                        if answer.pointer("/content/name").is_some_and(Value::is_string) =>
                                    {
                                        (quick, text("ask ok".into()))
                                    }
                                    Some("decline" | "cancel") => (quick, text("ask declined".into())),
                                    _ => err(-32602, "The answer does not match the form"),
                                }
                            }
                            _ => err(-32602, "Wrong requestState or missing inputResponses"),
                        }
                    }
                    _ => err(-32602, "Unknown tool"),
                }
            }
            _ => err(-32601, "Method not found"),
        }
    }
}

/// `n` milliseconds.
pub fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}
