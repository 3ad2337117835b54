//! What a simulated MCP server answers, whatever carries it: the era handshake (modern
//! `server/discover`, legacy `initialize`), `ping`, the lists and the scripted tools (echo,
//! slow, progress, huge, flaky, and `ask`, which on 2026-07-28 answers `input_required` with a
//! form elicitation and completes once the retry brings the answer and the exact `requestState`),
//! and on legacy servers that declare it, `resources/subscribe` and `resources/unsubscribe`.
//! Servers with tasks ([`super::tasks`]) run `job` (and in some seeds `slow`) as a task and
//! answer the `tasks/*` methods.
//! The stdio process model ([`super::server`]) and the HTTP models ([`super::http`]) both call
//! [`Peer::answer`] and only decide how the reply travels (listen streams, which outlive one
//! reply, are [`super::listen`]'s).

use std::time::Duration;

use serde_json::{json, Value};

use super::rng::Rng;
use super::tasks::{Ctx, SrvTasks, TaskOptions};

/// Which era the simulated server speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SimEra {
    /// 2026-07-28: `server/discover`, per-request `_meta`.
    Modern,
    /// 2025-11-25 (or 2024-11-05 over HTTP+SSE): `initialize`.
    Legacy,
}

/// The scripted tools.
pub const TOOLS: [&str; 7] = ["echo", "slow", "progress", "huge", "flaky", "ask", "job"];

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
    /// No answer at all (a dropped `tasks/get`): on stdio nothing, on HTTP the response stream
    /// breaks.
    Drop,
    /// A 2025-11-25 `tasks/result` that blocks until its task ends: answered later, after the
    /// input requests in the reply's notes (this task's).
    Deferred(String),
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
    /// The JSON-RPC response to the request `id` (`None` for [`Outcome::Break`],
    /// [`Outcome::Drop`] and [`Outcome::Deferred`]).
    pub fn response(&self, id: &Value) -> Option<Value> {
        self.outcome.response(id)
    }
}

impl Outcome {
    /// The JSON-RPC response to the request `id`, if there is one now.
    pub fn response(&self, id: &Value) -> Option<Value> {
        match self {
            Outcome::Result(r) => Some(json!({"jsonrpc": "2.0", "id": id, "result": r})),
            Outcome::Error(code, message) => {
                Some(json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}))
            }
            Outcome::Break | Outcome::Drop | Outcome::Deferred(_) => None,
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
    /// The tasks it runs.
    tasks: SrvTasks,
}

/// The tool list every simulated server offers. `echo` mirrors its `n` argument into the
/// `Mcp-Param-N` header on modern HTTP (a valid `x-mcp-header` annotation). A 2025-11-25
/// server declaring tasks lists `job` as requiring a task and `slow` as allowing one.
pub fn tool_list(legacy_tasks: bool) -> Value {
    let tools: Vec<Value> = TOOLS
        .iter()
        .map(|n| match *n {
            "echo" => json!({"name": n, "inputSchema": {"type": "object",
                "properties": {"n": {"type": "integer", "x-mcp-header": "N"}}}}),
            "job" if legacy_tasks => json!({"name": n, "inputSchema": {"type": "object"},
                "execution": {"taskSupport": "required"}}),
            "slow" if legacy_tasks => json!({"name": n, "inputSchema": {"type": "object"},
                "execution": {"taskSupport": "optional"}}),
            _ => json!({"name": n, "inputSchema": {"type": "object"}}),
        })
        .collect();
    json!({ "tools": tools })
}

impl Peer {
    /// A fresh server instance of `era` (legacy ones answer `initialize` with `legacy_version`).
    pub fn new(era: SimEra, legacy_version: &'static str, huge_bytes: usize) -> Self {
        Self {
            era,
            legacy_version,
            initialized: false,
            huge_bytes,
            subscribe: false,
            tasks: SrvTasks::default(),
        }
    }

    /// The same server, running tasks as `opts` say (2026-07-28 and 2025-11-25 only).
    pub fn with_tasks(mut self, opts: TaskOptions) -> Self {
        let legacy = self.era == SimEra::Legacy;
        let opts = if legacy && self.legacy_version != "2025-11-25" { TaskOptions::default() } else { opts };
        self.tasks = SrvTasks::new(opts, legacy);
        self
    }

    /// The tasks it runs.
    pub fn tasks(&mut self) -> &mut SrvTasks {
        &mut self.tasks
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

    /// Reacts to one request (`None` for a notification or a response). Status notifications
    /// of its tasks may go out before the answer.
    pub fn answer(&mut self, msg: &Value, rng: &mut Rng, ctx: &Ctx) -> Option<Reply> {
        let method = msg.get("method").and_then(Value::as_str)?;
        msg.get("id")?;
        let mut notes = Vec::new();
        let (delay, outcome) = self.outcome(method, msg, rng, &mut notes, ctx);
        let handshake = matches!(method, "initialize" | "server/discover");
        if ctx.faults_on && self.tasks.options().on && !handshake {
            let at = ms(rng.below(delay.as_millis() as u64 + 1));
            for note in self.tasks.notes(ctx.now, rng, 40) {
                notes.push((at, note));
            }
        }
        Some(Reply { delay, outcome, notes })
    }

    fn outcome(
        &mut self,
        method: &str,
        msg: &Value,
        rng: &mut Rng,
        notes: &mut Vec<(Duration, Value)>,
        ctx: &Ctx,
    ) -> (Duration, Outcome) {
        let quick = ms(1 + rng.below(30));
        let err = |code, message| (quick, Outcome::Error(code, message));
        match (self.era, method) {
            (SimEra::Modern, "server/discover") => {
                let mut capabilities = json!({"tools": {}, "prompts": {}});
                if self.tasks.options().declare {
                    capabilities["extensions"] = json!({ super::tasks::EXTENSION: {} });
                }
                (
                    quick,
                    Outcome::Result(json!({"resultType": "complete",
                        "supportedVersions": [mcpwire_core::MODERN_VERSION],
                        "capabilities": capabilities, "ttlMs": 0, "cacheScope": "private"})),
                )
            }
            (SimEra::Legacy, "server/discover") => err(-32601, "Method not found"),
            (SimEra::Legacy, "initialize") => {
                self.initialized = true;
                let mut capabilities = json!({"tools": {}, "prompts": {}});
                if self.subscribe {
                    capabilities["resources"] = json!({"subscribe": true});
                }
                if self.legacy_tasks() {
                    capabilities["tasks"] =
                        json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}});
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
            (_, "tools/list") => (quick, Outcome::Result(tool_list(self.legacy_tasks()))),
            (_, m) if m.starts_with("tasks/") => {
                let (delay, outcome) = self.tasks.handle(m, msg, rng, ctx);
                if let Outcome::Deferred(task) = &outcome {
                    notes.extend(self.tasks.asks(task, ctx.now));
                }
                (delay, outcome)
            }
            (_, "prompts/list") => (quick, Outcome::Result(json!({"prompts": []}))),
            (_, "tools/call") => {
                let name = msg.pointer("/params/name").and_then(Value::as_str).unwrap_or("");
                let text = |t: String| Outcome::Result(json!({"content": [{"type": "text", "text": t}]}));
                if self.tasks.runs_as_task(msg, name) {
                    return (quick, self.tasks.create(msg, rng, ctx));
                }
                match name {
                    "job" => (quick, text("job ok".into())),
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

impl Peer {
    /// A 2025-11-25 server declaring tasks.
    fn legacy_tasks(&self) -> bool {
        self.era == SimEra::Legacy && self.tasks.options().on && self.tasks.options().declare
    }
}

/// `n` milliseconds.
pub fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}
