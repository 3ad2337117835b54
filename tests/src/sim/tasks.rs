//! Tasks on the simulated servers, in both eras, whatever carries them:
//!
//! - 2026-07-28 (the `io.modelcontextprotocol/tasks` extension): a `tools/call` of a task tool
//!   answers `resultType: "task"`; `tasks/get` answers the `DetailedTask` (result, error or
//!   `inputRequests` inlined), `tasks/update` takes the answers (`{resultType: "complete"}`),
//!   `tasks/cancel` cancels; `notifications/tasks` carry the full task.
//! - 2025-11-25: a `tools/call` with `params.task` (servers declaring `tasks`, tools listed with
//!   `execution.taskSupport`) answers `{"task": Task}`; `tasks/get` answers the bare task,
//!   `tasks/result` blocks until the task ends (answered later, after the server asked for the
//!   input it needs with `elicitation/create` requests tagged with the task), `tasks/list` pages,
//!   `tasks/cancel` answers the cancelled task; `notifications/tasks/status`.
//!
//! Each task follows a script drawn when it is created (`new_task`): working periods (slow
//! ones), input rounds (one or two keys each; a server sometimes keeps listing answered keys for
//! a while), and an end: completed, failed, cancelled by the server, or never. Paces
//! (`pollIntervalMs`) are drawn from a wide range (none, 0, 5 ms ... 45 s) and change now and
//! then; some tasks have a short `ttlMs` (and a server may forget them once it passes). Faults:
//! `tasks/get` left unanswered, slow answers, an old task id handed out again for a new task.
//!
//! The world learns what the servers did as [`TaskFact`]s, and what the client consumed as
//! [`Seen`] (derived from each delivered message, see [`seen_of`]).

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use serde_json::{json, Map, Value};

use super::rng::Rng;
use super::tools::{ms, Outcome};

mod bug_switches;
mod seen;
pub use bug_switches::{
    AVOID_AS_TASK_RETRY_BUG, AVOID_CANCEL_WHILE_HANDSHAKING_BUG, AVOID_UPDATE_REISSUE_BUG,
    AVOID_UPDATE_WHILE_POLLING_BUG, AVOID_WAIT_INPUT_BUG,
};
pub use seen::{seen_in, seen_of, Seen, SeenKind};

/// The 2026-07-28 tasks extension.
pub const EXTENSION: &str = "io.modelcontextprotocol/tasks";
/// The `_meta` key tying a 2025-11-25 message to its task.
pub const RELATED: &str = "io.modelcontextprotocol/related-task";
/// `_meta` key (which the client ignores) naming the task of an answer that does not say it
/// otherwise (acknowledgments of `tasks/update`).
pub const SIM_TASK: &str = "sim/task";
/// `_meta` key (which the client ignores) on a create answer that hands out an old id again.
pub const SIM_GHOST: &str = "sim/ghost";
/// `_meta` key (which the client ignores) on a create answer: the nonce of the call.
pub const SIM_NONCE: &str = "sim/nonce";

/// Per-seed task behaviour of a server (faults are percentages, zero when the seed is clean).
#[derive(Debug, Clone, Copy, Default)]
pub struct TaskOptions {
    /// Task tools run as tasks.
    pub on: bool,
    /// The server declares tasks (the 2026-07-28 extension; the 2025-11-25 capability).
    pub declare: bool,
    /// `slow` runs as a task too (on 2026-07-28; on 2025-11-25 when the call asks).
    pub slow_as_task: bool,
    /// Percent of `tasks/get` left unanswered.
    pub drop_poll: u64,
    /// Percent of `tasks/get` answered slowly.
    pub slow_poll: u64,
    /// Percent of new tasks handed an id the client saw before.
    pub reuse: u64,
    /// Percent of tasks whose changes are pushed (status notifications).
    pub notify: u64,
    /// Percent of input rounds whose answered keys stay listed a while.
    pub lag: u64,
    /// Percent of tasks forgotten once their `ttlMs` passed.
    pub forget: u64,
}

impl TaskOptions {
    /// Options for one seed (`faulty`: the faults may fire).
    pub fn random(rng: &mut Rng, faulty: bool) -> Self {
        Self {
            on: rng.percent(80),
            declare: rng.percent(80),
            slow_as_task: rng.percent(40),
            drop_poll: rng.fault(faulty, 6),
            slow_poll: rng.fault(faulty, 20),
            reuse: rng.fault(faulty, 5),
            notify: rng.below(101),
            lag: rng.below(60),
            forget: rng.below(50),
        }
    }
}

/// What the server acts on besides the request itself.
#[derive(Debug, Clone, Default)]
pub struct Ctx {
    /// Simulated time.
    pub now: Duration,
    /// The safety phase (faults on).
    pub faults_on: bool,
    /// A task id the client has seen created, for the id-reuse fault.
    pub reuse: Option<String>,
}

/// One step of a task's script.
#[derive(Debug, Clone)]
enum Step {
    Work(Duration),
    Input(Vec<String>),
}

/// How a task ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    Complete,
    Fail,
    /// The server cancels it.
    Cancel,
    /// It never ends.
    Stuck,
}

/// A task's status as the server shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Status {
    Working,
    Input(Vec<String>),
    Completed,
    Failed,
    Cancelled,
}

impl Status {
    fn name(&self) -> &'static str {
        match self {
            Status::Working => "working",
            Status::Input(_) => "input_required",
            Status::Completed => "completed",
            Status::Failed => "failed",
            Status::Cancelled => "cancelled",
        }
    }

    fn terminal(&self) -> bool {
        matches!(self, Status::Completed | Status::Failed | Status::Cancelled)
    }
}

/// What the servers did with tasks, for the world's invariants and figures.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TaskFact {
    /// A task was created for the `tools/call` with this nonce.
    Created {
        /// Its id.
        id: String,
        /// The call's nonce.
        nonce: Option<u64>,
        /// A 2025-11-25 task.
        legacy: bool,
        /// When.
        at: Duration,
        /// Its `ttlMs`.
        ttl: Option<u64>,
    },
    /// An old id was handed out again for the call with this nonce.
    Reused {
        /// The id.
        id: String,
        /// The call's nonce.
        nonce: Option<u64>,
    },
    /// The task completed with a result of this text.
    Completed {
        /// The task.
        id: String,
        /// Its result's text.
        text: String,
    },
    /// The task was cancelled (by the client's `tasks/cancel`, or by the server).
    Cancelled {
        /// The task.
        id: String,
        /// The client asked for it.
        by_client: bool,
    },
    /// The task failed.
    Failed {
        /// The task.
        id: String,
    },
    /// A `tasks/get` was left unanswered.
    Dropped {
        /// The task.
        id: String,
    },
    /// The task is gone with the session that held it.
    Gone {
        /// The task.
        id: String,
    },
    /// The server took answers to its input requests.
    Answered {
        /// The task.
        id: String,
        /// How many.
        keys: usize,
    },
}

/// One task a server runs.
#[derive(Debug, Clone)]
struct SrvTask {
    id: String,
    legacy: bool,
    steps: Vec<Step>,
    end: End,
    /// The current step, and when it began.
    at: usize,
    since: Duration,
    pace: Option<u64>,
    ttl: Option<u64>,
    created: Duration,
    forget: bool,
    notify: bool,
    /// How long answered keys stay listed, and until when they are.
    lag: Option<Duration>,
    lagging: Option<(Duration, Vec<String>)>,
    answered: BTreeMap<String, Value>,
    /// 2025-11-25: keys already sent as `elicitation/create` requests.
    asked: BTreeSet<String>,
    cancelled_by_client: bool,
    input_failed: bool,
    /// Facts already reported (each once).
    told_end: bool,
    /// The status last pushed as a notification.
    notified: Option<&'static str>,
}

impl SrvTask {
    /// Moves the script to `now` (working periods elapse; input waits for its answers).
    fn advance(&mut self, now: Duration) {
        while let Some(Step::Work(d)) = self.steps.get(self.at) {
            let end = self.since + *d;
            if now < end {
                return;
            }
            self.at += 1;
            self.since = end;
        }
    }

    fn status(&mut self, now: Duration) -> Status {
        if self.cancelled_by_client {
            return Status::Cancelled;
        }
        if self.input_failed {
            return Status::Failed;
        }
        self.advance(now);
        match self.steps.get(self.at) {
            Some(Step::Input(keys)) => {
                Status::Input(keys.iter().filter(|k| !self.answered.contains_key(*k)).cloned().collect())
            }
            Some(Step::Work(_)) => match &self.lagging {
                Some((until, keys)) if now < *until => Status::Input(keys.clone()),
                _ => Status::Working,
            },
            None => match self.end {
                End::Complete => Status::Completed,
                End::Fail => Status::Failed,
                End::Cancel => Status::Cancelled,
                End::Stuck => Status::Working,
            },
        }
    }

    /// Forgotten by the server (its lifetime passed).
    fn gone(&self, now: Duration) -> bool {
        self.forget && self.ttl.is_some_and(|t| now >= self.created + ms(t))
    }

    fn text(&self) -> String {
        let declined = self.answered.values().any(|a| a["action"] != "accept");
        format!("task {} done{}", self.id, if declined { " (declined)" } else { "" })
    }

    fn result(&self) -> Value {
        json!({"content": [{"type": "text", "text": self.text()}]})
    }

    fn error(&self) -> Value {
        json!({"code": -32050, "message": format!("task {} failed", self.id)})
    }

    /// The facts a terminal status carries, once.
    fn tell_end(&mut self, status: &Status, facts: &mut Vec<TaskFact>) {
        if self.told_end || !status.terminal() {
            return;
        }
        self.told_end = true;
        let id = self.id.clone();
        facts.push(match status {
            Status::Completed => TaskFact::Completed { id, text: self.text() },
            Status::Failed => TaskFact::Failed { id },
            _ => TaskFact::Cancelled { id, by_client: self.cancelled_by_client },
        });
    }

    /// The task as its era shows it (`tasks/get`, notifications): 2026-07-28 inlines the
    /// result, error or input requests.
    fn render(&mut self, now: Duration, facts: &mut Vec<TaskFact>) -> Value {
        let status = self.status(now);
        self.tell_end(&status, facts);
        let (ttl, poll) = if self.legacy { ("ttl", "pollInterval") } else { ("ttlMs", "pollIntervalMs") };
        let mut v = json!({"taskId": self.id, "status": status.name(),
            "createdAt": "2026-12-04T10:00:00Z", "lastUpdatedAt": "2026-12-04T10:00:01Z", ttl: self.ttl});
        if let Some(p) = self.pace {
            v[poll] = json!(p);
        }
        match &status {
            Status::Cancelled => {
                let by = if self.cancelled_by_client { "the client" } else { "the simulated server" };
                v["statusMessage"] = json!(format!("cancelled by {by}"));
            }
            Status::Input(keys) if !self.legacy => {
                let requests: Map<String, Value> =
                    keys.iter().map(|k| (k.clone(), elicitation(&self.id, k))).collect();
                v["inputRequests"] = Value::Object(requests);
            }
            Status::Completed if !self.legacy => v["result"] = self.result(),
            Status::Failed if !self.legacy => v["error"] = self.error(),
            _ => {}
        }
        v
    }

    /// 2025-11-25: when `tasks/result` can be answered, and with what (`None`: it has to wait
    /// for input, or for ever), as of `now`.
    fn settle(&mut self, now: Duration, facts: &mut Vec<TaskFact>) -> Option<(Duration, Outcome)> {
        let status = self.status(now);
        let wait = if status.terminal() {
            Duration::ZERO
        } else {
            if matches!(status, Status::Input(_))
                || self.steps[self.at..].iter().any(|s| matches!(s, Step::Input(_)))
            {
                return None;
            }
            if self.end == End::Stuck {
                return None;
            }
            let left: Duration = self.steps[self.at..]
                .iter()
                .map(|s| match s {
                    Step::Work(d) => *d,
                    Step::Input(_) => Duration::ZERO,
                })
                .sum();
            (self.since + left).saturating_sub(now)
        };
        let status = self.status(now + wait);
        self.tell_end(&status, facts);
        let outcome = match status {
            Status::Completed => {
                let mut r = self.result();
                r["_meta"] = json!({ RELATED: {"taskId": self.id} });
                Outcome::Result(r)
            }
            Status::Failed => Outcome::Error(-32050, "the simulated task failed"),
            _ => Outcome::Error(-32603, "the simulated task was cancelled"),
        };
        Some((wait + ms(1), outcome))
    }

    /// 2025-11-25: the input requests still to send (and when, from `now`).
    fn legacy_asks(&mut self, now: Duration) -> Vec<(Duration, Value)> {
        self.advance(now);
        let mut start = self.since;
        let mut out = Vec::new();
        for step in &self.steps[self.at..] {
            match step {
                Step::Work(d) => start += *d,
                Step::Input(keys) => {
                    for k in keys {
                        if !self.answered.contains_key(k) && self.asked.insert(k.clone()) {
                            let mut request = elicitation(&self.id, k);
                            request["params"]["_meta"] = json!({ RELATED: {"taskId": self.id} });
                            request["jsonrpc"] = json!("2.0");
                            request["id"] = json!(format!("elicit|{}|{k}", self.id));
                            out.push((start.saturating_sub(now) + ms(1), request));
                        }
                    }
                    break;
                }
            }
        }
        out
    }

    /// Takes answers to the current input round; moves on once it has them all.
    fn take_answers(&mut self, now: Duration, answers: &Map<String, Value>) -> usize {
        self.advance(now);
        let Some(Step::Input(keys)) = self.steps.get(self.at).cloned() else { return 0 };
        let mut took = 0;
        for k in &keys {
            if let Some(a) = answers.get(k).filter(|_| !self.answered.contains_key(k)) {
                self.answered.insert(k.clone(), a.clone());
                took += 1;
            }
        }
        if keys.iter().all(|k| self.answered.contains_key(k)) {
            self.at += 1;
            self.since = now;
            self.lagging = self.lag.map(|d| (now + d, keys.clone()));
        }
        took
    }
}

/// The elicitation a task asks for under `key` (its message names the task and the key).
fn elicitation(task: &str, key: &str) -> Value {
    json!({"method": "elicitation/create", "params": {
        "message": format!("Who are you? [{task}/{key}]"),
        "requestedSchema": {"type": "object", "required": ["name"],
            "properties": {"name": {"type": "string", "minLength": 1}}}}})
}

/// The task and key an input request names (`[task/key]` in its message).
pub fn input_key(params: &Value) -> Option<(String, String)> {
    let message = params.get("message")?.as_str()?;
    let inner = message.rsplit_once('[')?.1.strip_suffix(']')?;
    let (task, key) = inner.rsplit_once('/')?;
    Some((task.to_owned(), key.to_owned()))
}

/// The tasks one server instance runs.
#[derive(Debug, Clone, Default)]
pub struct SrvTasks {
    opts: TaskOptions,
    legacy: bool,
    map: BTreeMap<String, SrvTask>,
    /// Ids in creation order (`tasks/list`).
    order: Vec<String>,
    facts: Vec<TaskFact>,
}

impl SrvTasks {
    /// Tasks of a server of this era (`legacy`: 2025-11-25).
    pub fn new(opts: TaskOptions, legacy: bool) -> Self {
        Self { opts, legacy, ..Default::default() }
    }

    /// The options.
    pub fn options(&self) -> TaskOptions {
        self.opts
    }

    /// What happened since last asked.
    pub fn take_facts(&mut self) -> Vec<TaskFact> {
        std::mem::take(&mut self.facts)
    }

    /// Whether the call `msg` of tool `name` runs as a task.
    pub fn runs_as_task(&self, msg: &Value, name: &str) -> bool {
        let task_tool = name == "job" || (name == "slow" && self.opts.slow_as_task);
        if !self.opts.on {
            return false;
        }
        if self.legacy {
            // Only when the call asks, for a tool that supports it.
            self.opts.declare && msg.pointer("/params/task").is_some() && (name == "job" || name == "slow")
        } else {
            let caps = msg.pointer("/params/_meta/io.modelcontextprotocol~1clientCapabilities/extensions");
            task_tool && caps.and_then(|e| e.get(EXTENSION)).is_some()
        }
    }

    /// Creates a task for the call `msg`: its create answer.
    pub fn create(&mut self, msg: &Value, rng: &mut Rng, ctx: &Ctx) -> Outcome {
        let nonce = msg.pointer("/params/arguments/nonce").and_then(Value::as_u64);
        let no_input =
            !self.legacy && msg.pointer("/params/arguments/simNoInput") == Some(&Value::Bool(true));
        let mut task =
            new_task(format!("task-{:012x}", rng.next_u64() >> 16), self.legacy, no_input, rng, ctx);
        task.notify = rng.percent(self.opts.notify);
        // Only 2026-07-28 lists input requests in its statuses.
        task.lag =
            (!self.legacy && ctx.faults_on && rng.percent(self.opts.lag)).then(|| ms(50 + rng.below(3000)));
        task.forget = rng.percent(self.opts.forget);
        let reuse = ctx.reuse.clone().filter(|_| ctx.faults_on && rng.percent(self.opts.reuse));
        let ghost = reuse.is_some();
        if let Some(old) = reuse {
            // The new task goes under an id the client saw before; the server keeps the old
            // task under it and loses the new one.
            task.id = old;
            self.facts.push(TaskFact::Reused { id: task.id.clone(), nonce });
        } else {
            self.facts.push(TaskFact::Created {
                id: task.id.clone(),
                nonce,
                legacy: self.legacy,
                at: ctx.now,
                ttl: task.ttl,
            });
        }
        let mut facts = Vec::new();
        let mut value = task.render(ctx.now, &mut facts);
        let mut meta = json!({ SIM_TASK: task.id, SIM_NONCE: nonce });
        if ghost {
            meta[SIM_GHOST] = json!(true);
        } else {
            self.facts.extend(facts);
            self.order.push(task.id.clone());
            self.map.insert(task.id.clone(), task);
        }
        if self.legacy {
            Outcome::Result(json!({"task": value, "_meta": meta}))
        } else {
            value["resultType"] = json!("task");
            value["_meta"] = meta;
            Outcome::Result(value)
        }
    }

    /// A `tasks/*` request: when and how it is answered.
    pub fn handle(&mut self, method: &str, msg: &Value, rng: &mut Rng, ctx: &Ctx) -> (Duration, Outcome) {
        let quick = ms(1 + rng.below(30));
        let now = ctx.now;
        if method == "tasks/list" {
            if !self.legacy || !self.opts.declare {
                return (quick, Outcome::Error(-32601, "Method not found"));
            }
            let from: usize = msg
                .pointer("/params/cursor")
                .and_then(Value::as_str)
                .and_then(|c| c.strip_prefix('c')?.parse().ok())
                .unwrap_or(0);
            let ids: Vec<String> = self.order.iter().skip(from).take(3).cloned().collect();
            let mut facts = Vec::new();
            let mut tasks = Vec::new();
            for id in &ids {
                if let Some(t) = self.map.get_mut(id) {
                    tasks.push(t.render(now, &mut facts));
                }
            }
            self.facts.extend(facts);
            let mut page = json!({ "tasks": tasks });
            if from + 3 < self.order.len() {
                page["nextCursor"] = json!(format!("c{}", from + 3));
            }
            return (quick, Outcome::Result(page));
        }
        let id = msg.pointer("/params/taskId").and_then(Value::as_str).unwrap_or("").to_owned();
        let Some(task) = self.map.get_mut(&id).filter(|t| !t.gone(now)) else {
            return (quick, Outcome::Error(-32602, "Unknown task"));
        };
        let mut facts = Vec::new();
        let answer = match method {
            "tasks/get" => {
                if ctx.faults_on && rng.percent(self.opts.drop_poll) {
                    facts.push(TaskFact::Dropped { id });
                    self.facts.extend(facts);
                    return (quick, Outcome::Drop);
                }
                let delay = if ctx.faults_on && rng.percent(self.opts.slow_poll) {
                    ms(100 + rng.below(2500))
                } else {
                    quick
                };
                if ctx.faults_on && rng.percent(15) {
                    task.pace = pace(rng);
                }
                let mut value = task.render(now, &mut facts);
                if !task.legacy {
                    value["resultType"] = json!("complete");
                }
                (delay, Outcome::Result(value))
            }
            "tasks/update" if !task.legacy => {
                let answers = msg.pointer("/params/inputResponses").and_then(Value::as_object);
                let took = answers.map_or(0, |a| task.take_answers(now, a));
                facts.push(TaskFact::Answered { id: id.clone(), keys: took });
                (quick, Outcome::Result(json!({"resultType": "complete", "_meta": { SIM_TASK: id }})))
            }
            "tasks/cancel" => {
                let status = task.status(now);
                if !status.terminal() {
                    task.cancelled_by_client = true;
                    task.tell_end(&Status::Cancelled, &mut facts);
                }
                let value = task.render(now, &mut facts);
                if task.legacy {
                    (quick, Outcome::Result(value))
                } else {
                    (quick, Outcome::Result(json!({"resultType": "complete"})))
                }
            }
            "tasks/result" if task.legacy => match task.settle(now, &mut facts) {
                Some((delay, outcome)) => (delay, outcome),
                None => (quick, Outcome::Deferred(id)),
            },
            _ => (quick, Outcome::Error(-32601, "Method not found")),
        };
        self.facts.extend(facts);
        answer
    }

    /// 2025-11-25: the input requests a deferred `tasks/result` of `task` sends now (with
    /// delays).
    pub fn asks(&mut self, task: &str, now: Duration) -> Vec<(Duration, Value)> {
        self.map.get_mut(task).map(|t| t.legacy_asks(now)).unwrap_or_default()
    }

    /// 2025-11-25: how a deferred `tasks/result` of `task` ends, once that is known.
    pub fn settle(&mut self, task: &str, now: Duration) -> Option<(Duration, Outcome)> {
        let mut facts = Vec::new();
        let Some(t) = self.map.get_mut(task) else {
            return Some((ms(1), Outcome::Error(-32602, "Unknown task")));
        };
        let out = t.settle(now, &mut facts);
        self.facts.extend(facts);
        out
    }

    /// 2025-11-25: the client answered one of the input requests (`msg` is its JSON-RPC
    /// response); returns the task it was for.
    pub fn on_client_answer(&mut self, msg: &Value, now: Duration) -> Option<String> {
        let id = msg.get("id")?.as_str()?;
        let mut parts = id.split('|');
        let (Some("elicit"), Some(task), Some(key)) = (parts.next(), parts.next(), parts.next()) else {
            return None;
        };
        let t = self.map.get_mut(task)?;
        match msg.get("result") {
            Some(result) => {
                let mut answers = Map::new();
                answers.insert(key.to_owned(), result.clone());
                let keys = t.take_answers(now, &answers);
                self.facts.push(TaskFact::Answered { id: task.to_owned(), keys });
            }
            None => {
                if !t.status(now).terminal() {
                    t.input_failed = true;
                    let mut facts = Vec::new();
                    t.tell_end(&Status::Failed, &mut facts);
                    self.facts.extend(facts);
                }
            }
        }
        Some(task.to_owned())
    }

    /// Status notifications for the tasks that push theirs, whose status changed since they
    /// last did (each only `percent` of the time).
    pub fn notes(&mut self, now: Duration, rng: &mut Rng, percent: u64) -> Vec<Value> {
        let mut out = Vec::new();
        let mut facts = Vec::new();
        for t in self.map.values_mut() {
            if !t.notify || t.gone(now) {
                continue;
            }
            let status = t.status(now).name();
            if t.notified == Some(status) || !rng.percent(percent) {
                continue;
            }
            if AVOID_UPDATE_WHILE_POLLING_BUG && !t.legacy && status == "input_required" {
                continue;
            }
            t.notified = Some(status);
            let params = t.render(now, &mut facts);
            let method = if t.legacy { "notifications/tasks/status" } else { "notifications/tasks" };
            out.push(json!({"jsonrpc": "2.0", "method": method, "params": params}));
        }
        self.facts.extend(facts);
        out
    }

    /// The ids of its tasks.
    pub fn ids(&self) -> Vec<String> {
        self.order.clone()
    }

    /// Whether a task is still running (for faults aimed at live tasks).
    pub fn any_live(&mut self, now: Duration) -> bool {
        self.map.values_mut().any(|t| !t.status(now).terminal())
    }
}

/// A pace (`pollIntervalMs`): none, tiny, ordinary, slow, or beyond the client's bound.
fn pace(rng: &mut Rng) -> Option<u64> {
    match rng.below(100) {
        0..=9 => None,
        10..=17 => Some(0),
        18..=25 => Some(5),
        26..=37 => Some(10 + rng.below(40)),
        38..=69 => Some(50 + rng.below(450)),
        70..=87 => Some(500 + rng.below(2500)),
        88..=95 => Some(3000 + rng.below(9000)),
        _ => Some(45_000),
    }
}

/// A task with a script for one seed's phase (faults off: it completes soon, paced quickly).
fn new_task(id: String, legacy: bool, no_input: bool, rng: &mut Rng, ctx: &Ctx) -> SrvTask {
    let work = |rng: &mut Rng| match rng.below(100) {
        0..=29 => ms(rng.below(200)),
        30..=79 => ms(200 + rng.below(2800)),
        _ => ms(3000 + rng.below(37_000)),
    };
    let (steps, end, pace, ttl) = if ctx.faults_on {
        let rounds = match rng.below(100) {
            _ if no_input => 0,
            0..=59 => 0,
            60..=89 => 1,
            _ if legacy => 1,
            _ => 2,
        };
        let mut steps = vec![Step::Work(work(rng))];
        for r in 0..rounds {
            let keys = (0..1 + rng.below(2)).map(|k| format!("who-{}-{k}", r + 1)).collect();
            steps.push(Step::Input(keys));
            steps.push(Step::Work(work(rng)));
        }
        let end = match rng.below(100) {
            0..=69 => End::Complete,
            70..=81 => End::Fail,
            82..=91 => End::Cancel,
            _ => End::Stuck,
        };
        let ttl = match rng.below(100) {
            0..=59 => None,
            60..=84 => Some(60_000),
            _ => Some(200 + rng.below(2800)),
        };
        (steps, end, pace(rng), ttl)
    } else {
        (vec![Step::Work(ms(rng.below(500)))], End::Complete, Some(10 + rng.below(200)), None)
    };
    SrvTask {
        id,
        legacy,
        steps,
        end,
        at: 0,
        since: ctx.now,
        pace,
        ttl,
        created: ctx.now,
        forget: false,
        notify: false,
        lag: None,
        lagging: None,
        answered: BTreeMap::new(),
        asked: BTreeSet::new(),
        cancelled_by_client: false,
        input_failed: false,
        told_end: false,
        notified: None,
    }
}
