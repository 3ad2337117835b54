//! The host's side of tasks and the invariants on them: what each task handle is, what the
//! servers did ([`TaskFact`]s), what the client consumed ([`Seen`], at the simulated time it
//! reached the client), and what the client wrote.
//!
//! - A `tasks/get` goes out only while a handle that may send it is live (the call the task
//!   belongs to, a `TaskResult` wait, a `GetTask`); `tasks/update` and `tasks/result` only for a
//!   live call or wait: nothing is polled for a task after its call's outcome.
//! - A `tasks/get` is never sent before the pace the client last took from the server allows:
//!   `now >= t + clamp(pollInterval)` (10 ms .. 30 s, 1 s when absent), `t` the simulated time
//!   the status reached the client; an acknowledged `tasks/update` lets the next poll go at
//!   once. Checked for tasks polled by one handle only (a `GetTask` also sends `tasks/get`).
//! - stdio (where nothing is re-sent): at most one `tasks/get` / `tasks/update` /
//!   `tasks/result` of a task in flight at a time.
//! - A call that became a task and succeeds carries exactly the result the server completed
//!   one of its tasks with; a `TaskResult` the result of the task it waits for.
//! - A call cancelled, timed out, or failed by its input handler while the client knew its task
//!   and had seen no final status sends `tasks/cancel` for it.
//! - An input request is asked at most once per key of a task and handle, unless the host's
//!   handler failed on it (inside a task the failed request may be asked again).
//! - `RequestError::Task` only for a task the server cancelled (or that was cancelled), one whose
//!   `ttlMs` passed, or a reused id; a reused id always ends its call with it.
//! - Task requests are refused (`CapabilityMissing`, or `Unsupported` for the era) exactly when
//!   the server does not declare tasks (`ListTasks` always on 2026-07-28); a started task is one
//!   the server created for that call; `ListTasks` lists only tasks the servers created; no task
//!   call ends `InvalidResponse` (the simulated servers send only valid task messages).
//!
//! Known core bugs the simulation found (each kept from failing the sweeps by a switch in
//! [`super::tasks`], named after it; turn the switch off to see it fail):
//!
//! - `AVOID_WAIT_INPUT_BUG`: a `TaskResult` wait for a 2026-07-28 task that reaches
//!   `input_required` ends with `InvalidResponse` ("input_required is only allowed for
//!   tools/call, prompts/get and resources/read"): `on_input_required` admits only `CallTool`,
//!   `GetPrompt` and `ReadResource`.
//! - `AVOID_AS_TASK_RETRY_BUG`: over HTTP a `CallToolAsTask` is sent again after a transport
//!   failure or a 5xx (with retries configured) and after a legacy session expired; a plain
//!   `CallTool` never is (the retry and session-expiry paths test `Request::CallTool` only).
//! - `AVOID_UPDATE_WHILE_POLLING_BUG`: a status notification saying `input_required` with new
//!   keys while a `tasks/get` is in flight gets the host asked; the answer goes out in
//!   `tasks/update` with the poll still in flight, the poll's answer is taken for the update's
//!   acknowledgment (another `tasks/get` goes out at once) and the acknowledgment for a status:
//!   the call fails with `InvalidResponse` ("unknown status none").
//! - `AVOID_CANCEL_WHILE_HANDSHAKING_BUG`: `tasks/cancel` for a call whose task came from an
//!   expired legacy session goes out at once while the next session is set up: before
//!   `initialize` completes and without an `Mcp-Session-Id` (`cancel_task` sends whenever there
//!   is an epoch).
//! - `AVOID_UPDATE_REISSUE_BUG`: over 2026-07-28 HTTP a `tasks/update` whose response stream
//!   breaks (or, for a wait, whose exchange fails and is retried) goes out again as a
//!   `tasks/get`: its answers were taken when it was first built, the server never gets them,
//!   the task stays `input_required` and the call waits until it times out.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use mcpwire_core::{RequestError, RequestHandle, Response};
use serde_json::Value;

use super::tasks::{Seen, SeenKind, TaskFact};
use super::{Sim, Transport};

/// What a host request has to do with tasks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum HostTask {
    /// A plain `tools/call` (which the server may turn into a task).
    Call { nonce: u64 },
    /// `CallToolAsTask`.
    AsTask { nonce: u64 },
    /// `TaskResult`.
    Wait { task: String },
    /// `GetTask`.
    Get { task: String },
    /// `CancelTask`.
    Cancel { task: String },
    /// `ListTasks`.
    List,
}

/// What the servers did with one task.
#[derive(Debug, Clone, Default)]
struct Fact {
    at: Duration,
    ttl: Option<u64>,
    legacy: bool,
    completed: Option<String>,
    cancelled: bool,
    /// The session that held it ended (nothing is left to cancel).
    gone: bool,
}

/// The client's side of one task, as the world saw it.
#[derive(Debug, Clone, Default)]
struct View {
    /// The plain call it belongs to.
    creator: Option<RequestHandle>,
    /// `TaskResult` waits for it, in order.
    waits: Vec<RequestHandle>,
    /// `GetTask` handles for it.
    gets: Vec<RequestHandle>,
    /// Its creation reached its call.
    known: bool,
    /// A final status reached the client.
    terminal: bool,
    /// The earliest the next `tasks/get` may go out.
    not_before: Option<Duration>,
    /// stdio: the task message in flight (the handle it is for, its id).
    in_flight: Option<(RequestHandle, String)>,
}

/// Figures for the sweep's report.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TaskStats {
    /// Tasks the servers created.
    pub created: u64,
    /// Old ids handed out again.
    pub reused: u64,
    /// `tasks/get` sent.
    pub polls: u64,
    /// `tasks/update` sent.
    pub updates: u64,
    /// `tasks/result` sent.
    pub results: u64,
    /// `tasks/cancel` sent.
    pub cancels: u64,
    /// Input requests of tasks the host was asked.
    pub inputs_asked: u64,
    /// Input rounds the servers received (`tasks/update`, or answers to their requests).
    pub input_rounds: u64,
    /// Calls that became tasks and succeeded.
    pub task_results: u64,
}

impl TaskStats {
    /// Adds `other` to these.
    pub fn add(&mut self, other: &TaskStats) {
        self.created += other.created;
        self.reused += other.reused;
        self.polls += other.polls;
        self.updates += other.updates;
        self.results += other.results;
        self.cancels += other.cancels;
        self.inputs_asked += other.inputs_asked;
        self.input_rounds += other.input_rounds;
        self.task_results += other.task_results;
    }
}

/// The host's task bookkeeping for one run.
#[derive(Debug, Default)]
pub(super) struct TaskBook {
    /// Whether the host uses task handles in this seed.
    pub(super) enabled: bool,
    /// The server declares tasks (see [`Sim::task_refusal_expected`]).
    pub(super) declared: bool,
    /// The server speaks 2026-07-28.
    pub(super) modern: bool,
    pub(super) handles: BTreeMap<RequestHandle, HostTask>,
    facts: BTreeMap<String, Fact>,
    by_nonce: BTreeMap<u64, Vec<String>>,
    reused: BTreeMap<u64, Vec<String>>,
    views: BTreeMap<String, View>,
    /// Ids the client saw created (the newest last), and those handed to the host as started.
    known: Vec<String>,
    pub(super) started: Vec<String>,
    /// Response ids already consumed (a duplicate is not consumed again).
    delivered: BTreeSet<String>,
    /// `tasks/cancel` sent, by task.
    cancels: BTreeSet<String>,
    /// Input requests asked: task, key, handle.
    asked: BTreeSet<(String, String, Option<RequestHandle>)>,
    /// What each input request the host was asked is for.
    inputs: BTreeMap<mcpwire_core::ServerRequestHandle, (String, String, Option<RequestHandle>)>,
    /// Input requests whose handler failed (they may be asked again).
    failed: BTreeSet<(String, String, Option<RequestHandle>)>,
    /// Calls whose create answer handed out an old id (they must end with `RequestError::Task`).
    ghost_seen: BTreeSet<RequestHandle>,
    pub(super) stats: TaskStats,
}

/// The wait the core keeps between polls for a pace the server gave.
fn clamp(pace: Option<u64>) -> Duration {
    Duration::from_millis(pace.map_or(1000, |p| p.clamp(10, 30_000)))
}

fn terminal(status: &str) -> bool {
    matches!(status, "completed" | "failed" | "cancelled")
}

impl TaskBook {
    /// A book for a seed (`enabled`: the host uses task handles) against a server of this era
    /// that declares tasks or not.
    pub(super) fn new(enabled: bool, declared: bool, modern: bool) -> Self {
        Self { enabled, declared, modern, ..Default::default() }
    }

    fn view(&mut self, task: &str) -> &mut View {
        self.views.entry(task.to_owned()).or_default()
    }

    /// The handles that may send `tasks/get` (`get`) or `tasks/update` / `tasks/result` for
    /// `task`, live ones only.
    fn senders(&self, task: &str, get: bool, live: &BTreeSet<RequestHandle>) -> Vec<RequestHandle> {
        let Some(v) = self.views.get(task) else { return Vec::new() };
        let gets = if get { v.gets.as_slice() } else { &[] };
        v.creator.iter().chain(&v.waits).chain(gets).filter(|h| live.contains(h)).copied().collect()
    }

    /// The live handle polling `task` (its call, or its wait).
    fn poller(&self, task: &str, live: &BTreeSet<RequestHandle>) -> Option<RequestHandle> {
        let v = self.views.get(task)?;
        v.creator.iter().chain(v.waits.iter().rev()).find(|h| live.contains(h)).copied()
    }

    /// The pace is checked for tasks only ever polled by one handle.
    fn paced(&self, task: &str) -> bool {
        self.views
            .get(task)
            .is_some_and(|v| v.gets.is_empty() && v.creator.iter().chain(&v.waits).count() == 1)
    }

    /// The nonce of the plain call `task` belongs to.
    pub(super) fn creator_nonce(&self, task: &str) -> Option<u64> {
        let h = self.views.get(task)?.creator?;
        match self.handles.get(&h)? {
            HostTask::Call { nonce } => Some(*nonce),
            _ => None,
        }
    }

    /// Whether a live handle polls `task`.
    pub(super) fn waiting(&self, task: &str, live: &BTreeSet<RequestHandle>) -> bool {
        self.poller(task, live).is_some()
    }

    /// Live calls whose task the client knows, and live waits.
    pub(super) fn live_task_calls(&self, live: &BTreeSet<RequestHandle>) -> Vec<RequestHandle> {
        let mut out: Vec<RequestHandle> = self
            .views
            .values()
            .flat_map(|v| v.creator.filter(|_| v.known).into_iter().chain(v.waits.iter().copied()))
            .filter(|h| live.contains(h))
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// A task id the client saw created (for the reuse fault).
    pub(super) fn reuse_candidate(&self) -> Option<String> {
        self.known.last().cloned()
    }
}

impl Sim {
    /// Records a host request that has to do with tasks.
    pub(super) fn track_task_handle(&mut self, h: RequestHandle, what: HostTask) {
        let book = &mut self.tasks;
        match &what {
            HostTask::Wait { task } => {
                let v = book.view(task);
                v.waits.push(h);
                v.not_before = None;
                v.in_flight = None;
            }
            HostTask::Get { task } => book.view(task).gets.push(h),
            _ => {}
        }
        book.handles.insert(h, what);
    }

    /// Facts the servers reported.
    pub(super) fn on_task_facts(&mut self, facts: Vec<TaskFact>) {
        for fact in facts {
            match fact {
                TaskFact::Created { id, nonce, legacy, at, ttl } => {
                    self.tasks.stats.created += 1;
                    self.seen(if legacy { "task_created_legacy" } else { "task_created_modern" });
                    let creator = nonce
                        .and_then(|n| self.nonces.get(&n).map(|h| (n, *h)))
                        .filter(|(n, h)| self.tasks.handles.get(h) == Some(&HostTask::Call { nonce: *n }))
                        .map(|(_, h)| h);
                    let book = &mut self.tasks;
                    book.facts.insert(id.clone(), Fact { at, ttl, legacy, ..Default::default() });
                    if let Some(n) = nonce {
                        book.by_nonce.entry(n).or_default().push(id.clone());
                    }
                    if creator.is_some() {
                        book.view(&id).creator = creator;
                    }
                }
                TaskFact::Reused { id, nonce } => {
                    self.tasks.stats.reused += 1;
                    if let Some(n) = nonce {
                        self.tasks.reused.entry(n).or_default().push(id);
                    }
                    self.fault("task_id_reused");
                }
                TaskFact::Completed { id, text } => {
                    let before = self.tasks.facts.get(&id).and_then(|f| f.completed.clone());
                    if before.as_ref().is_some_and(|t| *t != text) {
                        self.fail(format!("task {id} completed twice, differently ({before:?}, {text:?})"));
                    }
                    self.tasks.facts.entry(id).or_default().completed = Some(text);
                    self.seen("task_completed");
                }
                TaskFact::Cancelled { id, by_client } => {
                    self.tasks.facts.entry(id).or_default().cancelled = true;
                    self.seen(if by_client {
                        "task_cancelled_by_client"
                    } else {
                        "task_cancelled_by_server"
                    });
                }
                TaskFact::Failed { .. } => self.seen("task_failed"),
                TaskFact::Gone { id } => self.tasks.facts.entry(id).or_default().gone = true,
                TaskFact::Dropped { .. } => self.fault("task_poll_dropped"),
                TaskFact::Answered { keys, .. } => {
                    if keys > 0 {
                        self.tasks.stats.input_rounds += 1;
                    }
                }
            }
        }
    }

    /// A task message reached the client (at `self.now`).
    pub(super) fn on_seen(&mut self, seen: Seen) {
        let now = self.now;
        self.note(format!("{now:?} world: the client has {seen:?}"));
        if let Some(id) = &seen.id {
            if !self.tasks.delivered.insert(id.clone()) {
                return;
            }
            let v = self.tasks.view(&seen.task);
            if v.in_flight.as_ref().is_some_and(|(_, w)| w == id) {
                v.in_flight = None;
            }
        }
        let task = seen.task.as_str();
        let poller = self.tasks.poller(task, &self.live);
        let legacy = self.tasks.facts.get(task).is_some_and(|f| f.legacy);
        match seen.kind {
            SeenKind::Created { status, pace, ghost, nonce } => {
                let caller =
                    nonce.and_then(|n| self.nonces.get(&n)).copied().filter(|h| self.live.contains(h));
                let book = &mut self.tasks;
                if ghost {
                    if let Some(h) = caller {
                        book.ghost_seen.insert(h);
                    }
                    return;
                }
                if caller.is_some() {
                    // A creation the client took (not a late answer to a call already over).
                    book.known.push(seen.task.clone());
                }
                let creator = book.views.get(task).and_then(|v| v.creator);
                let v = book.view(task);
                if creator.is_some() && creator == caller {
                    v.known = true;
                    if terminal(&status) {
                        v.terminal = true;
                    } else {
                        v.not_before = Some(now + clamp(pace));
                    }
                }
            }
            SeenKind::Status { status, pace, notification, keys } => {
                let Some(p) = poller else { return };
                if notification && (terminal(&status) || (legacy && status == "input_required")) {
                    self.seen("task_status_shortcut");
                }
                let asked = |k: &String| self.tasks.asked.contains(&(task.to_owned(), k.clone(), Some(p)));
                if status == "input_required" && !keys.is_empty() && keys.iter().all(asked) {
                    self.seen("task_input_listed_again");
                }
                let v = self.tasks.view(task);
                if terminal(&status) {
                    v.terminal = true;
                } else if legacy && status == "input_required" {
                    // The result is fetched next; no more tasks/get.
                } else if !notification {
                    v.not_before = Some(now + clamp(pace));
                } else if status == "input_required" {
                    // The core may or may not wait afresh (it does unless it asks the host).
                    let candidate = now + clamp(pace);
                    v.not_before = v.not_before.map(|nb| nb.min(candidate));
                }
            }
            SeenKind::Ack => {
                if poller.is_some() {
                    self.tasks.view(task).not_before = None;
                }
            }
            SeenKind::Result => self.tasks.view(task).terminal = true,
        }
    }

    /// The invariants on one task message the client sent.
    pub(super) fn on_task_message(&mut self, msg: &Value) {
        let method = msg.get("method").and_then(Value::as_str).unwrap_or("");
        if !method.starts_with("tasks/") {
            return;
        }
        let task = msg.pointer("/params/taskId").and_then(Value::as_str).unwrap_or("").to_owned();
        let wire = msg.get("id").map(Value::to_string).unwrap_or_default();
        let now = self.now;
        let stdio = self.transport == Transport::Stdio;
        let stats = &mut self.tasks.stats;
        match method {
            "tasks/get" => stats.polls += 1,
            "tasks/update" => stats.updates += 1,
            "tasks/result" => stats.results += 1,
            "tasks/cancel" => {
                stats.cancels += 1;
                self.tasks.cancels.insert(task);
                return;
            }
            _ => return,
        }
        let get = method == "tasks/get";
        if self.tasks.senders(&task, get, &self.live).is_empty() {
            self.fail(format!("{method} for task {task}, whose calls have all ended: {msg}"));
        }
        let paced = self.tasks.paced(&task);
        let poller = self.tasks.poller(&task, &self.live);
        let no_gets = self.tasks.views.get(&task).is_some_and(|v| v.gets.is_empty());
        let (not_before, in_flight) = {
            let v = self.tasks.view(&task);
            (v.not_before, v.in_flight.clone())
        };
        if let Some(nb) = not_before.filter(|nb| get && paced && now < *nb) {
            self.fail(format!("tasks/get for {task} at {now:?}, before its pace allows ({nb:?})"));
        }
        if stdio && no_gets {
            if let (Some(p), Some((h, w))) = (poller, in_flight) {
                if p == h {
                    self.fail(format!("{method} for {task} sent while {w} is still in flight"));
                }
            }
            self.tasks.view(&task).in_flight = poller.map(|p| (p, wire));
        }
    }

    /// An input request (`server`) reached the host: the task and key it names.
    pub(super) fn on_task_input(&mut self, server: mcpwire_core::ServerRequestHandle, task: &str, key: &str) {
        let poller = self.tasks.poller(task, &self.live);
        self.tasks.stats.inputs_asked += 1;
        let legacy = self.tasks.facts.get(task).is_some_and(|f| f.legacy);
        self.seen(if legacy { "task_input_asked_legacy" } else { "task_input_asked" });
        let ask = (task.to_owned(), key.to_owned(), poller);
        self.tasks.inputs.insert(server, ask.clone());
        if self.tasks.failed.remove(&ask) {
            self.seen("task_input_asked_again");
        } else if !self.tasks.asked.insert(ask) {
            self.fail(format!("input {key} of task {task} asked twice (for {poller:?})"));
        }
    }

    /// The host's handler failed on input request `server`: inside a task it may be asked again.
    pub(super) fn on_task_input_failed(&mut self, server: mcpwire_core::ServerRequestHandle) {
        if let Some(ask) = self.tasks.inputs.get(&server).cloned() {
            self.seen("task_input_handler_failed");
            self.tasks.failed.insert(ask);
        }
    }

    /// Whether the server refuses task requests of this kind as unsupported.
    fn task_refusal_expected(&self, what: &HostTask) -> bool {
        let book = &self.tasks;
        match what {
            HostTask::List => book.modern || !book.declared,
            HostTask::Call { .. } => false,
            _ => !book.declared,
        }
    }

    /// The invariants on how a task handle (or a call that may have become a task) ends.
    pub(super) fn on_task_outcome(&mut self, h: RequestHandle, result: &Result<Response, RequestError>) {
        let Some(what) = self.tasks.handles.get(&h).cloned() else { return };
        let now = self.now;
        let refused =
            matches!(result, Err(RequestError::Unsupported { .. } | RequestError::CapabilityMissing { .. }));
        let expected = self.task_refusal_expected(&what);
        if refused != expected && (refused || result.is_ok()) {
            self.fail(format!("{what:?} ({h}) ended with {result:?}; refusal expected: {expected}"));
        }
        if self.tasks.ghost_seen.contains(&h) && !matches!(result, Err(RequestError::Task { .. })) {
            self.fail(format!("{h} was handed a reused task id, yet ended with {result:?}"));
        }
        let (mine, reused) = match &what {
            HostTask::Call { nonce } | HostTask::AsTask { nonce } => (
                self.tasks.by_nonce.get(nonce).cloned().unwrap_or_default(),
                self.tasks.reused.get(nonce).cloned().unwrap_or_default(),
            ),
            HostTask::Wait { task } => (vec![task.clone()], Vec::new()),
            _ => (Vec::new(), Vec::new()),
        };
        let facts: Vec<Option<Fact>> = mine.iter().map(|t| self.tasks.facts.get(t).cloned()).collect();
        let wait = matches!(what, HostTask::Wait { .. });
        let (kind, problem): (Option<&'static str>, Option<String>) = match (&what, result) {
            (HostTask::Call { .. } | HostTask::Wait { .. }, Ok(Response::ToolResult(r)))
                if !mine.is_empty() =>
            {
                let text = r.text();
                let matched = facts.iter().flatten().any(|f| f.completed.as_ref() == Some(&text));
                if matched {
                    self.tasks.stats.task_results += 1;
                    (Some(if wait { "task_wait_ok" } else { "task_call_ok" }), None)
                } else if wait && facts[0].is_none() {
                    (None, Some("a wait for a task no server created succeeded".to_owned()))
                } else {
                    (
                        None,
                        Some(format!("succeeded with {text:?}, not what the server completed its task with")),
                    )
                }
            }
            (HostTask::AsTask { .. }, Ok(Response::TaskStarted(t))) => {
                if mine.contains(&t.task_id) {
                    self.tasks.started.push(t.task_id.clone());
                    (Some("task_started"), None)
                } else {
                    (
                        None,
                        Some(format!("started task {}, which the server did not create for it", t.task_id)),
                    )
                }
            }
            (HostTask::AsTask { .. }, Ok(Response::ToolResult(_))) => {
                (Some("task_as_task_ran_at_once"), None)
            }
            (HostTask::Get { task }, Ok(Response::Task(t))) => (
                Some("task_get_ok"),
                (t.task_id != *task).then(|| format!("asked for task {task}, got {}", t.task_id)),
            ),
            (HostTask::Cancel { .. }, Ok(_)) => (Some("task_cancel_ok"), None),
            (HostTask::List, Ok(Response::Tasks(list))) => {
                let stranger = list.iter().find(|t| !self.tasks.facts.contains_key(&t.task_id));
                (
                    Some("task_list_ok"),
                    stranger.map(|t| format!("listed task {}, which no server created", t.task_id)),
                )
            }
            (_, Err(RequestError::Task { task_id, detail })) => {
                let fact = self.tasks.facts.get(task_id);
                let cancelled = fact.is_some_and(|f| f.cancelled);
                let expired = mine.contains(task_id)
                    && matches!(what, HostTask::Call { .. })
                    && fact
                        .is_some_and(|f| f.ttl.is_some_and(|ttl| now >= f.at + Duration::from_millis(ttl)));
                if reused.contains(task_id) {
                    (Some("task_error_reused"), None)
                } else if cancelled {
                    (Some("task_error_cancelled"), None)
                } else if expired {
                    (Some("task_error_expired"), None)
                } else {
                    (
                        None,
                        Some(format!(
                            "RequestError::Task for {task_id} ({detail}), not cancelled, expired or reused"
                        )),
                    )
                }
            }
            (
                HostTask::Call { .. } | HostTask::Wait { .. } | HostTask::AsTask { .. },
                Err(RequestError::InvalidResponse { detail }),
            ) if !mine.is_empty() => (
                None,
                Some(format!(
                    "a task call ended InvalidResponse ({detail}); the server sent only valid task messages"
                )),
            ),
            (_, Err(RequestError::Unsupported { .. } | RequestError::CapabilityMissing { .. })) => {
                (Some("task_refused"), None)
            }
            _ => (None, None),
        };
        if let Some(p) = problem {
            self.fail(format!("{what:?} ({h}) ended with {result:?}: {p}"));
        }
        if let Some(k) = kind {
            self.seen(k);
        }
        // A call given up while its task ran tells the server.
        let gave_up = matches!(
            result,
            Err(RequestError::Cancelled | RequestError::Timeout { .. } | RequestError::InputFailed { .. })
        );
        if let (HostTask::Call { .. }, true) = (&what, gave_up) {
            for t in &mine {
                let v = self.tasks.views.get(t).cloned().unwrap_or_default();
                let gone = self.tasks.facts.get(t).is_some_and(|f| f.gone);
                if v.creator == Some(h) && v.known && !v.terminal && gone {
                    self.seen("task_gone_with_its_session");
                } else if v.creator == Some(h) && v.known && !v.terminal {
                    if !self.tasks.cancels.contains(t) {
                        self.fail(format!(
                            "{h} ended with {result:?} while its task {t} ran, and no tasks/cancel went out"
                        ));
                    }
                    self.seen("task_cancel_sent");
                }
            }
        }
        if mine.iter().any(|t| self.tasks.views.get(t).is_some_and(|v| v.known)) {
            match result {
                Err(RequestError::Timeout { .. }) => self.seen("task_call_timeout"),
                Err(RequestError::Cancelled) => self.seen("task_call_cancelled"),
                Err(RequestError::InputFailed { .. }) => self.seen("task_input_failed"),
                Err(RequestError::Rpc(_)) => self.seen("task_call_rpc_error"),
                _ => {}
            }
        }
    }
}
