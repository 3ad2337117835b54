//! Tasks, in both eras: the task tools, the task store and the `tasks/*`
//! methods.
//!
//! * 2026-07-28 (the `io.modelcontextprotocol/tasks` extension): a task tool
//!   runs as a task only when the request's `_meta` client capabilities name
//!   the extension; `tools/call` then answers a `CreateTaskResult`
//!   (`resultType: "task"`), and the client polls `tasks/get` (the
//!   `DetailedTask`, its result, error or `inputRequests` inlined), answers
//!   input with `tasks/update` and cancels with `tasks/cancel`. Status
//!   notifications (`notifications/tasks`) go only to `subscriptions/listen`
//!   streams granted the task's id.
//! * 2025-11-25 (the only legacy revision with tasks): a `tools/call` with
//!   `params.task` on a tool whose `execution.taskSupport` allows it answers
//!   `{"task": Task}`; `tasks/get`, `tasks/result` (blocks until the task
//!   ends), `tasks/list` and `tasks/cancel`; input is an `elicitation/create`
//!   request tagged with `_meta["io.modelcontextprotocol/related-task"]`, sent
//!   when the task turns `input_required`; `notifications/tasks/status` for
//!   `task_notify` tasks.
//!
//! Task ids are `task-1`, `task-2`, ... in creation order (deterministic, so
//! guessable: this is a test server); each era sees only its own tasks. The
//! timestamps are the wall clock's UTC time. Tasks are never discarded.
//!
//! A task runs on its own thread, started once its `CreateTaskResult` is
//! written. Every change happens under the store's lock, which also orders
//! the notifications it causes.

use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{json, Map, Value};

use crate::handlers::paginate;
use crate::listen;
use crate::protocol::{
    error_result, text_result, Era, Reply, RpcError, INVALID_PARAMS, META_CLIENT_CAPABILITIES,
    META_RELATED_TASK, METHOD_NOT_FOUND, MISSING_REQUIRED_CLIENT_CAPABILITY, TASKS_EXTENSION,
};
use crate::server::{Request, Server, CANCEL_POLL};
use crate::tools::{object_schema, tool, uint_arg};

/// The one legacy revision that has tasks.
pub const TASKS_REVISION: &str = "2025-11-25";
/// The legacy method that blocks until a task ends (served on its own thread).
pub const RESULT_METHOD: &str = "tasks/result";
/// The 2025-11-25 status notification.
const LEGACY_STATUS: &str = "notifications/tasks/status";
/// A task's `ttlMs` (legacy `ttl`, unless the request asks for another).
const TTL_MS: u64 = 60_000;
/// How long a task waiting for input sleeps between checks when nothing
/// signals it (a backstop: every change signals).
const INPUT_WAIT: Duration = Duration::from_millis(250);

/// The task tools, in `tools/list` order.
pub const TOOLS: [&str; 6] =
    ["task_echo", "task_required", "task_input", "task_fail", "task_slow", "task_notify"];

/// A tool's `execution.taskSupport` (2025-11-25).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Support {
    Optional,
    Required,
}

impl Support {
    fn of(tool: &str) -> Option<Support> {
        match tool {
            "task_echo" | "task_fail" | "task_slow" | "task_notify" => Some(Support::Optional),
            "task_required" | "task_input" => Some(Support::Required),
            _ => None,
        }
    }

    fn as_str(self) -> &'static str {
        match self {
            Support::Optional => "optional",
            Support::Required => "required",
        }
    }
}

/// A task's status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    Working,
    InputRequired,
    Completed,
    Failed,
    Cancelled,
}

impl Status {
    fn as_str(self) -> &'static str {
        match self {
            Status::Working => "working",
            Status::InputRequired => "input_required",
            Status::Completed => "completed",
            Status::Failed => "failed",
            Status::Cancelled => "cancelled",
        }
    }

    fn is_terminal(self) -> bool {
        matches!(self, Status::Completed | Status::Failed | Status::Cancelled)
    }
}

/// What a task tool does, synchronously or as a task.
#[derive(Debug, Clone)]
enum Job {
    /// Answers `text` after `ms`.
    Text { text: String, ms: u64 },
    /// After `ms`, asks for a name; greets it.
    Input { ms: u64 },
    /// Fails with the JSON-RPC error -32050 after `ms`.
    Fail { ms: u64 },
}

/// One task.
#[derive(Debug)]
struct Task {
    id: String,
    era: Era,
    status: Status,
    status_message: Option<String>,
    created_at: String,
    updated_at: String,
    ttl_ms: u64,
    poll_ms: u64,
    /// The tool's answer, once completed or failed.
    outcome: Option<Reply>,
    /// 2026-07-28: the outstanding `inputRequests`, by key.
    input_requests: Map<String, Value>,
    /// 2026-07-28: answers from `tasks/update` the task has not taken yet.
    input_responses: Map<String, Value>,
    /// Input keys issued so far (`name-1`, `name-2`, ...: never reused).
    inputs_issued: u64,
    /// Whether its changes are pushed (`task_notify`).
    notify: bool,
}

impl Task {
    /// The fields both eras share, with the era's names for the lifetime
    /// and the poll interval.
    fn base(&self) -> Value {
        let (ttl, poll) = match self.era {
            Era::Modern => ("ttlMs", "pollIntervalMs"),
            Era::Legacy => ("ttl", "pollInterval"),
        };
        let mut task = json!({
            "taskId": self.id,
            "status": self.status.as_str(),
            "createdAt": self.created_at,
            "lastUpdatedAt": self.updated_at,
            ttl: self.ttl_ms,
            poll: self.poll_ms,
        });
        if let Some(message) = &self.status_message {
            task["statusMessage"] = json!(message);
        }
        task
    }

    /// The 2026-07-28 `DetailedTask`: the result, error or input requests
    /// inlined by status.
    fn detailed(&self) -> Value {
        let mut task = self.base();
        match (self.status, &self.outcome) {
            (Status::Completed, Some(Ok(result))) => task["result"] = result.clone(),
            (Status::Failed, Some(Err(error))) => task["error"] = error.to_value(),
            (Status::InputRequired, _) => task["inputRequests"] = Value::Object(self.input_requests.clone()),
            _ => {}
        }
        task
    }

    /// The task as its era shows it in `tasks/get` and notifications.
    fn value(&self) -> Value {
        match self.era {
            Era::Modern => self.detailed(),
            Era::Legacy => self.base(),
        }
    }

    fn set_status(&mut self, status: Status, message: Option<String>) {
        self.status = status;
        self.status_message = message;
        self.updated_at = timestamp();
    }
}

/// Every task created so far, in creation order.
#[derive(Debug, Default)]
pub struct Tasks {
    list: Vec<Task>,
}

impl Tasks {
    fn get(&self, era: Era, id: &str) -> Option<&Task> {
        self.list.iter().find(|t| t.era == era && t.id == id)
    }

    fn get_mut(&mut self, era: Era, id: &str) -> Option<&mut Task> {
        self.list.iter_mut().find(|t| t.era == era && t.id == id)
    }

    /// Whether task `id` of `era` is gone or over (its worker stops).
    fn over(&self, era: Era, id: &str) -> bool {
        self.get(era, id).is_none_or(|t| t.status.is_terminal())
    }
}

/// Signals a change of `task` to the threads waiting on the store, and
/// pushes it if the task notifies. Called under the store's lock.
fn changed(server: &Server, task: &Task) {
    server.tasks_changed();
    if !task.notify {
        return;
    }
    match task.era {
        Era::Modern => {
            listen::task_status(server, &task.id, &task.detailed());
        }
        Era::Legacy => server.out.send_notification(LEGACY_STATUS, Some(&task.base())),
    }
}

// ---- capabilities --------------------------------------------------------

/// Whether requests of `era` can create tasks: not with `--no-tasks`, and in
/// the legacy era only on revision 2025-11-25.
pub fn available(server: &Server, era: Era) -> bool {
    if server.cfg.no_tasks {
        return false;
    }
    match era {
        Era::Modern => true,
        Era::Legacy => server.legacy_version().as_deref() == Some(TASKS_REVISION),
    }
}

/// The 2025-11-25 server capability `tasks`.
pub fn legacy_capability() -> Value {
    json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}})
}

/// Whether a 2026-07-28 request's client capabilities name the extension.
pub fn client_declares(req: &Request) -> bool {
    req.meta()
        .and_then(|meta| meta.get(META_CLIENT_CAPABILITIES))
        .and_then(|caps| caps.get("extensions"))
        .and_then(|extensions| extensions.get(TASKS_EXTENSION))
        .is_some_and(|extension| !extension.is_null())
}

/// -32021: the request needs the tasks extension, which the client did not declare.
pub fn missing_extension() -> RpcError {
    RpcError::new(MISSING_REQUIRED_CLIENT_CAPABILITY, "Missing required client capability")
        .with_data(json!({"requiredCapabilities": {"extensions": {TASKS_EXTENSION: {}}}}))
}

/// Whether task `id` exists in `era`.
pub fn knows(server: &Server, era: Era, id: &str) -> bool {
    server.tasks().get(era, id).is_some()
}

// ---- tools -------------------------------------------------------------

pub fn is_task_tool(name: &str) -> bool {
    TOOLS.contains(&name)
}

/// The task tools' `tools/list` entries. On 2025-11-25 (with tasks) they
/// carry `execution.taskSupport`; 2026-07-28 tools have no `execution`.
pub fn definitions(server: &Server, era: Era) -> Vec<Value> {
    let annotate = era == Era::Legacy && available(server, era);
    let ms = |default: u64| json!({"type": "integer", "minimum": 0, "default": default});
    let message = json!({"type": "string"});
    let defs = [
        (
            "task_echo",
            "Answers message after ms milliseconds; runs as a task when the client can (pollMs: its poll interval)",
            object_schema(
                json!({"message": message, "ms": ms(200), "pollMs": ms(server.cfg.task_poll_ms)}),
                &["message"],
            ),
        ),
        (
            "task_required",
            "Answers message after ms milliseconds; runs only as a task",
            object_schema(json!({"message": message, "ms": ms(200)}), &["message"]),
        ),
        (
            "task_input",
            "A task that, after ms milliseconds, asks for a name (input_required), then answers Hello, <name>!",
            object_schema(json!({"ms": ms(100)}), &[]),
        ),
        (
            "task_fail",
            "After ms milliseconds, fails with the JSON-RPC error -32050 \"task failed\"",
            object_schema(json!({"ms": ms(100)}), &[]),
        ),
        (
            "task_slow",
            "Answers after ms milliseconds (a minute by default); cancel it",
            object_schema(json!({"ms": ms(60_000)}), &[]),
        ),
        (
            "task_notify",
            "Like task_echo, and pushes task status notifications",
            object_schema(json!({"message": {"type": "string", "default": "notified"}, "ms": ms(200)}), &[]),
        ),
    ];
    defs.into_iter()
        .map(|(name, description, schema)| {
            let mut def = tool(name, description, schema);
            if let (true, Some(support)) = (annotate, Support::of(name)) {
                def["execution"] = json!({"taskSupport": support.as_str()});
            }
            def
        })
        .collect()
}

/// Whether a legacy `tools/call` asks to run as a task (`params.task`), on a
/// revision with tasks.
pub fn wants_task(server: &Server, req: &Request) -> bool {
    req.era == Era::Legacy && available(server, req.era) && req.param("task").is_some_and(Value::is_object)
}

/// The answer to a task request for a tool whose task support is `forbidden`.
pub fn forbidden(name: &str) -> RpcError {
    RpcError::new(METHOD_NOT_FOUND, format!("Tool {name} does not support task-augmented execution"))
        .with_data(json!({"tool": name, "taskSupport": "forbidden"}))
}

/// The arguments of task tool `name` as a job, its poll interval and whether
/// it notifies; or an `isError` result.
fn parse(server: &Server, name: &str, args: &Map<String, Value>) -> Result<(Job, u64, bool), Value> {
    let ms = |default| uint_arg(args, "ms", Some(default));
    let message = |default: Option<&str>| match (args.get("message").filter(|v| !v.is_null()), default) {
        (Some(Value::String(message)), _) => Ok(message.clone()),
        (None, Some(default)) => Ok(default.to_string()),
        _ => Err(error_result("argument message must be a string")),
    };
    let poll = server.cfg.task_poll_ms;
    Ok(match name {
        "task_echo" => {
            let poll = uint_arg(args, "pollMs", Some(poll))?;
            (Job::Text { text: message(None)?, ms: ms(200)? }, poll, false)
        }
        "task_required" => (Job::Text { text: message(None)?, ms: ms(200)? }, poll, false),
        "task_input" => (Job::Input { ms: ms(100)? }, poll, false),
        "task_fail" => (Job::Fail { ms: ms(100)? }, poll, false),
        "task_slow" => {
            let ms = ms(60_000)?;
            (Job::Text { text: format!("slept {ms}"), ms }, poll, false)
        }
        _ => (Job::Text { text: message(Some("notified"))?, ms: ms(200)? }, poll, true),
    })
}

/// The JSON-RPC error `task_fail` ends with.
fn fail_error() -> RpcError {
    RpcError::new(-32050, "task failed")
}

/// Why a `required` tool was not run: the client did not take the task path
/// (2026-07-28: -32021; 2025-11-25: -32601, as the spec's tool-level rule
/// says), or the server has no tasks (-32601).
fn required_error(server: &Server, req: &Request, name: &str) -> RpcError {
    match (req.era, available(server, req.era)) {
        (Era::Modern, true) => missing_extension(),
        (Era::Legacy, true) => RpcError::new(METHOD_NOT_FOUND, "Task augmentation required")
            .with_data(json!({"tool": name, "taskSupport": "required"})),
        (_, false) => RpcError::new(
            METHOD_NOT_FOUND,
            format!("Tool {name} runs only as a task; this server has no tasks"),
        )
        .with_data(json!({"tool": name})),
    }
}

/// `tools/call` of a task tool: runs it as a task if the request may, else
/// synchronously (or refuses, if it must be a task). `None`: nothing more to
/// send (the `CreateTaskResult` is written here, or the call was cancelled).
pub fn call(server: &Arc<Server>, req: &Request, name: &str, args: &Map<String, Value>) -> Option<Reply> {
    let support = Support::of(name)?;
    let (job, poll_ms, notify) = match parse(server, name, args) {
        Ok(parsed) => parsed,
        Err(result) => return Some(Ok(result)),
    };
    let as_task = match req.era {
        Era::Modern => available(server, req.era) && client_declares(req),
        Era::Legacy => wants_task(server, req),
    };
    if as_task {
        create(server, req, job, poll_ms, notify);
        return None;
    }
    if support == Support::Required {
        return Some(Err(required_error(server, req, name)));
    }
    match job {
        Job::Text { text, ms } => server.sleep_unless_cancelled(&req.id, ms).then(|| Ok(text_result(text))),
        Job::Fail { ms } => server.sleep_unless_cancelled(&req.id, ms).then(|| Err(fail_error())),
        Job::Input { .. } => Some(Err(required_error(server, req, name))),
    }
}

/// Creates the task, answers the call with its `CreateTaskResult`, then
/// starts its worker.
fn create(server: &Arc<Server>, req: &Request, job: Job, poll_ms: u64, notify: bool) {
    let ttl_ms = match req.era {
        Era::Modern => TTL_MS,
        Era::Legacy => req.param("task").and_then(|t| t.get("ttl")).and_then(Value::as_u64).unwrap_or(TTL_MS),
    };
    let (id, created) = {
        let mut tasks = server.tasks();
        let id = format!("task-{}", tasks.list.len() + 1);
        let now = timestamp();
        let task = Task {
            id: id.clone(),
            era: req.era,
            status: Status::Working,
            status_message: None,
            created_at: now.clone(),
            updated_at: now,
            ttl_ms,
            poll_ms,
            outcome: None,
            input_requests: Map::new(),
            input_responses: Map::new(),
            inputs_issued: 0,
            notify,
        };
        let created = match req.era {
            Era::Modern => {
                let mut created = task.base();
                created["resultType"] = json!("task");
                created
            }
            Era::Legacy => json!({"task": task.base()}),
        };
        tasks.list.push(task);
        (id, created)
    };
    server.respond(req, Ok(created));
    let server = Arc::clone(server);
    let era = req.era;
    thread::spawn(move || run(&server, era, &id, job));
}

/// The worker of task `id`: does the job unless the task is cancelled first.
fn run(server: &Server, era: Era, id: &str, job: Job) {
    let (Job::Text { ms, .. } | Job::Input { ms } | Job::Fail { ms }) = job;
    if !sleep(server, era, id, ms) {
        return;
    }
    let outcome = match job {
        Job::Text { text, .. } => Ok(text_result(text)),
        Job::Fail { .. } => Err(fail_error()),
        Job::Input { .. } => {
            let answer = match era {
                Era::Modern => ask_modern(server, id),
                Era::Legacy => ask_legacy(server, id),
            };
            let Some(answer) = answer else { return };
            Ok(greeting(answer))
        }
    };
    end(server, era, id, outcome);
}

/// Waits `ms` for task `id`. Returns `false` (early) once it is over.
fn sleep(server: &Server, era: Era, id: &str, ms: u64) -> bool {
    let deadline = Instant::now() + Duration::from_millis(ms);
    let mut tasks = server.tasks();
    loop {
        if tasks.over(era, id) {
            return false;
        }
        let now = Instant::now();
        if now >= deadline {
            return true;
        }
        tasks = server.wait_tasks(tasks, deadline - now);
    }
}

/// The elicitation a `task_input` task asks for.
fn elicitation_params() -> Value {
    json!({
        "mode": "form",
        "message": "What is your name?",
        "requestedSchema": {
            "type": "object",
            "properties": {"name": {"type": "string"}},
            "required": ["name"]
        }
    })
}

/// Moves task `id` to `input_required`; with `request`, under a new key
/// (returned).
fn await_input(server: &Server, era: Era, id: &str, request: Option<Value>) -> Option<String> {
    let mut tasks = server.tasks();
    let task = tasks.get_mut(era, id).filter(|t| !t.status.is_terminal())?;
    task.inputs_issued += 1;
    let key = format!("name-{}", task.inputs_issued);
    if let Some(request) = request {
        task.input_requests.insert(key.clone(), request);
    }
    task.set_status(Status::InputRequired, None);
    changed(server, task);
    Some(key)
}

/// 2026-07-28: surfaces the elicitation in `inputRequests` and waits for
/// `tasks/update` to answer it. `None` if the task is cancelled meanwhile.
fn ask_modern(server: &Server, id: &str) -> Option<Reply> {
    let request = json!({"method": "elicitation/create", "params": elicitation_params()});
    let key = await_input(server, Era::Modern, id, Some(request))?;
    let mut tasks = server.tasks();
    loop {
        match tasks.get_mut(Era::Modern, id) {
            Some(task) if !task.status.is_terminal() => {
                if let Some(answer) = task.input_responses.remove(&key) {
                    return Some(Ok(answer));
                }
            }
            _ => return None,
        }
        tasks = server.wait_tasks(tasks, INPUT_WAIT);
    }
}

/// 2025-11-25: sends `elicitation/create` (tagged with the task) and waits
/// for its answer. `None` if the task is cancelled meanwhile.
fn ask_legacy(server: &Server, id: &str) -> Option<Reply> {
    await_input(server, Era::Legacy, id, None)?;
    let mut params = elicitation_params();
    params["_meta"] = json!({ META_RELATED_TASK: {"taskId": id} });
    server.request_client_until("elicitation/create", Some(params), || server.tasks().over(Era::Legacy, id))
}

/// `Hello, <name>!`, or an `isError` result saying why there is no name.
fn greeting(answer: Reply) -> Value {
    match answer {
        Ok(answer) => match (answer["action"].as_str(), answer["content"]["name"].as_str()) {
            (Some("accept"), Some(name)) => text_result(format!("Hello, {name}!")),
            (action, _) => error_result(format!("no name given ({})", action.unwrap_or("no action"))),
        },
        Err(error) => error_result(format!("elicitation error: {} {}", error.code, error.message)),
    }
}

/// Ends task `id` with the tool's answer, unless it is over already.
/// 2026-07-28: a result (even `isError`) completes it, a JSON-RPC error fails
/// it; 2025-11-25 also fails it on an `isError` result.
fn end(server: &Server, era: Era, id: &str, outcome: Reply) {
    let mut tasks = server.tasks();
    let Some(task) = tasks.get_mut(era, id).filter(|t| !t.status.is_terminal()) else {
        return;
    };
    let (status, message) = match &outcome {
        Err(error) => (Status::Failed, Some(format!("Tool execution failed: {}", error.message))),
        Ok(result) if era == Era::Legacy && result["isError"] == json!(true) => {
            (Status::Failed, Some("The tool returned isError".to_string()))
        }
        Ok(_) => (Status::Completed, None),
    };
    task.input_requests.clear();
    task.outcome = Some(outcome);
    task.set_status(status, message);
    changed(server, task);
}

// ---- tasks/* -------------------------------------------------------------

fn task_id(req: &Request) -> Result<String, RpcError> {
    match req.param("taskId") {
        Some(Value::String(id)) => Ok(id.clone()),
        _ => Err(RpcError::invalid_params(format!("{} requires a string taskId", req.method))),
    }
}

fn not_found(id: &str) -> RpcError {
    RpcError::new(INVALID_PARAMS, "Failed to retrieve task: Task not found").with_data(json!({"taskId": id}))
}

/// The `tasks/*` methods other than the legacy `tasks/result` (see [`result`]).
pub fn handle(server: &Server, req: &Request) -> Reply {
    let method = req.method.as_str();
    let known = match req.era {
        Era::Modern => matches!(method, "tasks/get" | "tasks/update" | "tasks/cancel"),
        Era::Legacy => matches!(method, "tasks/get" | "tasks/list" | "tasks/cancel"),
    };
    if !known || !available(server, req.era) {
        return Err(RpcError::method_not_found(method));
    }
    if req.era == Era::Modern && !client_declares(req) {
        return Err(missing_extension());
    }
    if method == "tasks/list" {
        let items = server.tasks().list.iter().filter(|t| t.era == Era::Legacy).map(Task::base).collect();
        return paginate(server, req, "tasks", items);
    }
    let id = task_id(req)?;
    let mut tasks = server.tasks();
    let task = tasks.get_mut(req.era, &id).ok_or_else(|| not_found(&id))?;
    match method {
        "tasks/get" => Ok(task.value()),
        "tasks/update" => update(server, task, req),
        _ if task.status.is_terminal() && req.era == Era::Legacy => Err(RpcError::invalid_params(format!(
            "Cannot cancel task: already in terminal status '{}'",
            task.status.as_str()
        ))
        .with_data(json!({"taskId": id}))),
        _ => {
            // 2026-07-28 acknowledges cancelling a task that is over, and leaves it be.
            if !task.status.is_terminal() {
                task.input_requests.clear();
                task.set_status(Status::Cancelled, Some("The task was cancelled by request.".into()));
                changed(server, task);
            }
            Ok(match req.era {
                Era::Modern => json!({}),
                Era::Legacy => task.base(),
            })
        }
    }
}

/// 2026-07-28 `tasks/update`: takes the answers to outstanding input
/// requests (others are ignored); once none is outstanding the task is
/// `working` again.
fn update(server: &Server, task: &mut Task, req: &Request) -> Reply {
    let Some(Value::Object(responses)) = req.param("inputResponses") else {
        return Err(RpcError::invalid_params("tasks/update requires an inputResponses object"));
    };
    let mut took = false;
    for (key, answer) in responses {
        if task.input_requests.remove(key).is_some() {
            task.input_responses.insert(key.clone(), answer.clone());
            took = true;
        }
    }
    if took {
        if task.input_requests.is_empty() && task.status == Status::InputRequired {
            task.set_status(Status::Working, None);
        }
        changed(server, task);
    }
    Ok(json!({}))
}

/// 2025-11-25 `tasks/result`: blocks until the task is over, then answers
/// what the call would have (its result, tagged with the task, or its
/// JSON-RPC error); a cancelled task's is an error. `None` if this request is
/// cancelled meanwhile.
pub fn result(server: &Server, req: &Request) -> Option<Reply> {
    if !available(server, req.era) {
        return Some(Err(RpcError::method_not_found(&req.method)));
    }
    let id = match task_id(req) {
        Ok(id) => id,
        Err(error) => return Some(Err(error)),
    };
    let mut tasks = server.tasks();
    loop {
        let Some(task) = tasks.get(req.era, &id) else {
            return Some(Err(not_found(&id)));
        };
        if task.status.is_terminal() {
            return Some(match &task.outcome {
                Some(Ok(result)) => {
                    let mut result = result.clone();
                    result["_meta"][META_RELATED_TASK] = json!({"taskId": id});
                    Ok(result)
                }
                Some(Err(error)) => Err(error.clone()),
                None => Err(RpcError::invalid_params("Task was cancelled: it has no result")
                    .with_data(json!({"taskId": id, "status": task.status.as_str()}))),
            });
        }
        if server.is_cancelled(&req.id) {
            return None;
        }
        tasks = server.wait_tasks(tasks, CANCEL_POLL * 4);
    }
}

// ---- time ---------------------------------------------------------------

/// The current UTC time as ISO 8601 with milliseconds (`2026-07-28T10:30:00.000Z`).
fn timestamp() -> String {
    let since = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
    iso8601(since.as_secs(), since.subsec_millis())
}

fn iso8601(secs: u64, millis: u32) -> String {
    let (year, month, day) = civil_from_days((secs / 86_400) as i64);
    let rem = secs % 86_400;
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (Howard
/// Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097); // [0, 146096]
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365; // [0, 399]
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100); // [0, 365]
    let mp = (5 * doy + 2) / 153; // [0, 11], March first
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Config, ProtocolMode};
    use crate::protocol::{META_PROTOCOL_VERSION, META_SUBSCRIPTION_ID, MODERN_VERSION};
    use crate::test_harness::Harness;

    const LEGACY: ProtocolMode = ProtocolMode::Legacy(TASKS_REVISION);
    const WAIT: Duration = Duration::from_secs(5);

    impl Harness {
        /// Sends a request and waits for its one line.
        fn ask(&self, id: u64, method: &str, params: Value) -> Value {
            self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
            self.wait(1).remove(0)
        }

        /// Polls `tasks/get` (with `params`) until the task has `status`; the last result.
        fn poll(&self, params: Value, status: &str) -> Value {
            let deadline = Instant::now() + WAIT;
            loop {
                let got = self.ask(900, "tasks/get", params.clone());
                if got["result"]["status"] == status || Instant::now() >= deadline {
                    assert_eq!(got["result"]["status"], status, "{got}");
                    return got["result"].clone();
                }
                thread::sleep(Duration::from_millis(5));
            }
        }
    }

    /// Modern request params: `params` plus `_meta`, declaring the extension if `ext`.
    fn modern(ext: bool, params: Value) -> Value {
        let caps = if ext { json!({"extensions": {TASKS_EXTENSION: {}}}) } else { json!({}) };
        let mut params = params;
        params["_meta"] = json!({META_PROTOCOL_VERSION: MODERN_VERSION, META_CLIENT_CAPABILITIES: caps});
        params
    }

    fn call(name: &str, arguments: Value) -> Value {
        json!({"name": name, "arguments": arguments})
    }

    fn task_params(id: &str) -> Value {
        json!({"taskId": id})
    }

    /// Checks both timestamps (ISO 8601, UTC, milliseconds; created first) of
    /// every task object in `value` and replaces them with `"T"`.
    fn masked(mut value: Value) -> Value {
        fn walk(value: &mut Value) {
            match value {
                Value::Object(obj) => {
                    if let (Some(Value::String(created)), Some(Value::String(updated))) =
                        (obj.get("createdAt"), obj.get("lastUpdatedAt"))
                    {
                        for stamp in [created, updated] {
                            let b = stamp.as_bytes();
                            assert!(
                                b.len() == 24
                                    && b[4] == b'-'
                                    && b[10] == b'T'
                                    && b[19] == b'.'
                                    && b[23] == b'Z',
                                "{stamp}"
                            );
                        }
                        assert!(created <= updated, "{created} > {updated}");
                        obj.insert("createdAt".into(), json!("T"));
                        obj.insert("lastUpdatedAt".into(), json!("T"));
                    }
                    obj.values_mut().for_each(walk);
                }
                Value::Array(items) => items.iter_mut().for_each(walk),
                _ => {}
            }
        }
        walk(&mut value);
        value
    }

    fn error(id: u64, code: i64, message: &str, data: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message, "data": data}})
    }

    fn missing(id: u64) -> Value {
        error(
            id,
            -32021,
            "Missing required client capability",
            json!({"requiredCapabilities": {"extensions": {TASKS_EXTENSION: {}}}}),
        )
    }

    fn not_found(id: u64, task: &str) -> Value {
        error(id, -32602, "Failed to retrieve task: Task not found", json!({"taskId": task}))
    }

    fn text(text: &str) -> Value {
        json!({"content": [{"type": "text", "text": text}]})
    }

    #[test]
    fn timestamps() {
        assert_eq!(iso8601(0, 0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso8601(951_782_400, 5), "2000-02-29T00:00:00.005Z");
        assert_eq!(iso8601(1_709_251_199, 999), "2024-02-29T23:59:59.999Z");
        assert_eq!(iso8601(1_785_196_800, 0), "2026-07-28T00:00:00.000Z");
        assert_eq!(iso8601(4_102_444_799, 0), "2099-12-31T23:59:59.000Z");
        assert!(masked(json!({"createdAt": timestamp(), "lastUpdatedAt": timestamp()}))["createdAt"] == "T");
    }

    #[test]
    fn modern_task_polled_to_completion() {
        let h = Harness::modern();
        let discover = h.ask(1, "server/discover", modern(false, json!({})));
        assert_eq!(discover["result"]["capabilities"]["extensions"], json!({TASKS_EXTENSION: {}}));
        let list = h.ask(2, "tools/list", modern(true, json!({})));
        let tools = list["result"]["tools"].as_array().unwrap();
        let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
        let at = names.iter().position(|n| *n == "task_echo").unwrap();
        assert_eq!(names[at..at + 6], TOOLS, "{names:?}");
        assert_eq!(names[at + 6], "end_listens");
        assert!(tools.iter().all(|t| t.get("execution").is_none()), "2026-07-28 tools have no execution");

        let args = json!({"message": "hi", "ms": 300, "pollMs": 7});
        let created = masked(h.ask(3, "tools/call", modern(true, call("task_echo", args))));
        let task = json!({"taskId": "task-1", "status": "working", "createdAt": "T", "lastUpdatedAt": "T",
            "ttlMs": 60_000, "pollIntervalMs": 7});
        let mut expected = task.clone();
        expected["resultType"] = json!("task");
        assert_eq!(created, json!({"jsonrpc": "2.0", "id": 3, "result": expected}));
        // At once findable, still working.
        let got = masked(h.ask(4, "tasks/get", modern(true, task_params("task-1"))));
        let mut expected = task.clone();
        expected["resultType"] = json!("complete");
        assert_eq!(got, json!({"jsonrpc": "2.0", "id": 4, "result": expected}));

        let done = masked(h.poll(modern(true, task_params("task-1")), "completed"));
        let mut expected = task;
        expected["status"] = json!("completed");
        expected["resultType"] = json!("complete");
        expected["result"] = text("hi");
        assert_eq!(done, expected);
        // A plain tool stays synchronous with the extension declared.
        let echo = h.ask(5, "tools/call", modern(true, call("echo", json!({"message": "x"}))));
        assert_eq!(echo["result"]["content"], text("x")["content"]);
        assert!(h.take().is_empty());
    }

    #[test]
    fn modern_without_the_extension() {
        let h = Harness::modern();
        let sync =
            h.ask(1, "tools/call", modern(false, call("task_echo", json!({"message": "now", "ms": 0}))));
        let mut expected = text("now");
        expected["resultType"] = json!("complete");
        assert_eq!(sync, json!({"jsonrpc": "2.0", "id": 1, "result": expected}));
        let failed = h.ask(2, "tools/call", modern(false, call("task_fail", json!({"ms": 0}))));
        assert_eq!(
            failed,
            json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32050, "message": "task failed"}})
        );
        let required = h.ask(3, "tools/call", modern(false, call("task_required", json!({"message": "m"}))));
        assert_eq!(required, missing(3));
        let input = h.ask(4, "tools/call", modern(false, call("task_input", json!({}))));
        assert_eq!(input, missing(4));
        for (id, method) in [(5, "tasks/get"), (6, "tasks/update"), (7, "tasks/cancel")] {
            assert_eq!(h.ask(id, method, modern(false, task_params("task-1"))), missing(id), "{method}");
        }
        assert!(h.server.tasks().list.is_empty(), "no task was created");

        // With it: unknown ids, missing ids, and the legacy-only methods.
        assert_eq!(h.ask(8, "tasks/get", modern(true, task_params("nope"))), not_found(8, "nope"));
        let update = json!({"taskId": "nope", "inputResponses": {}});
        assert_eq!(h.ask(9, "tasks/update", modern(true, update)), not_found(9, "nope"));
        assert_eq!(h.ask(10, "tasks/cancel", modern(true, task_params("nope"))), not_found(10, "nope"));
        let no_id = h.ask(11, "tasks/get", modern(true, json!({})));
        assert_eq!(no_id["error"]["code"], INVALID_PARAMS);
        for (id, method) in [(12, "tasks/list"), (13, "tasks/result")] {
            let answer = h.ask(id, method, modern(true, task_params("task-1")));
            assert_eq!(answer["error"]["code"], METHOD_NOT_FOUND, "{method}");
        }
    }

    #[test]
    fn modern_input_failure_and_cancel() {
        let h = Harness::modern();
        let created = h.ask(1, "tools/call", modern(true, call("task_input", json!({"ms": 0}))));
        assert_eq!(created["result"]["resultType"], "task");
        let waiting = masked(h.poll(modern(true, task_params("task-1")), "input_required"));
        let request = json!({"method": "elicitation/create", "params": elicitation_params()});
        assert_eq!(
            waiting,
            json!({"taskId": "task-1", "status": "input_required", "createdAt": "T", "lastUpdatedAt": "T",
                "ttlMs": 60_000, "pollIntervalMs": 50, "inputRequests": {"name-1": request},
                "resultType": "complete"})
        );
        // Answers to keys never issued are ignored.
        let stray = json!({"taskId": "task-1", "inputResponses": {"name-9": {"action": "accept"}}});
        assert_eq!(
            h.ask(2, "tasks/update", modern(true, stray))["result"],
            json!({"resultType": "complete"})
        );
        h.poll(modern(true, task_params("task-1")), "input_required");
        let answer = json!({"taskId": "task-1",
            "inputResponses": {"name-1": {"action": "accept", "content": {"name": "Ada"}}}});
        assert_eq!(
            h.ask(3, "tasks/update", modern(true, answer)),
            json!({"jsonrpc": "2.0", "id": 3, "result": {"resultType": "complete"}})
        );
        let done = h.poll(modern(true, task_params("task-1")), "completed");
        assert_eq!(done["result"], text("Hello, Ada!"));
        assert!(done.get("inputRequests").is_none());

        h.ask(4, "tools/call", modern(true, call("task_fail", json!({"ms": 0}))));
        let failed = masked(h.poll(modern(true, task_params("task-2")), "failed"));
        assert_eq!(
            failed,
            json!({"taskId": "task-2", "status": "failed", "createdAt": "T", "lastUpdatedAt": "T",
                "ttlMs": 60_000, "pollIntervalMs": 50, "statusMessage": "Tool execution failed: task failed",
                "error": {"code": -32050, "message": "task failed"}, "resultType": "complete"})
        );

        h.ask(5, "tools/call", modern(true, call("task_slow", json!({}))));
        h.poll(modern(true, task_params("task-3")), "working");
        let ack = h.ask(6, "tasks/cancel", modern(true, task_params("task-3")));
        assert_eq!(ack, json!({"jsonrpc": "2.0", "id": 6, "result": {"resultType": "complete"}}));
        let cancelled = h.poll(modern(true, task_params("task-3")), "cancelled");
        assert_eq!(cancelled["statusMessage"], "The task was cancelled by request.");
        assert!(cancelled.get("result").is_none() && cancelled.get("error").is_none());
        // Cancelling again, or a task that is over, is acknowledged and changes nothing.
        assert_eq!(
            h.ask(7, "tasks/cancel", modern(true, task_params("task-3")))["result"]["resultType"],
            "complete"
        );
        assert_eq!(
            h.ask(8, "tasks/cancel", modern(true, task_params("task-1")))["result"]["resultType"],
            "complete"
        );
        h.poll(modern(true, task_params("task-1")), "completed");
        h.poll(modern(true, task_params("task-3")), "cancelled");

        // Cancelled while waiting for input: the input request goes away.
        h.ask(9, "tools/call", modern(true, call("task_input", json!({"ms": 0}))));
        h.poll(modern(true, task_params("task-4")), "input_required");
        h.ask(10, "tasks/cancel", modern(true, task_params("task-4")));
        let cancelled = h.poll(modern(true, task_params("task-4")), "cancelled");
        assert!(cancelled.get("inputRequests").is_none());
        assert!(h.take().is_empty());
    }

    #[test]
    fn modern_notifications_go_to_listens_naming_the_task() {
        let h = Harness::modern();
        let created =
            h.ask(1, "tools/call", modern(true, call("task_notify", json!({"message": "n", "ms": 300}))));
        assert_eq!(created["result"]["taskId"], "task-1");
        h.ask(2, "tools/call", modern(true, call("task_echo", json!({"message": "quiet", "ms": 0}))));
        let listen = |id: u64, ext: bool, notifications: Value| {
            h.send(json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen",
                "params": modern(ext, json!({"notifications": notifications}))}));
        };
        listen(10, false, json!({"taskIds": ["task-1"]}));
        assert_eq!(h.wait(1), [missing(10)]);
        listen(11, true, json!({"taskIds": ["task-1", "nope", "task-1", "task-2"]}));
        listen(12, true, json!({"toolsListChanged": true}));
        let acks = h.wait(2);
        assert_eq!(acks[0]["params"]["notifications"], json!({"taskIds": ["task-1", "task-2"]}));
        assert_eq!(acks[1]["params"]["notifications"], json!({"toolsListChanged": true}));

        let pushed = masked(h.wait(1).remove(0));
        assert_eq!(
            pushed,
            json!({"jsonrpc": "2.0", "method": "notifications/tasks", "params": {
                "taskId": "task-1", "status": "completed", "createdAt": "T", "lastUpdatedAt": "T",
                "ttlMs": 60_000, "pollIntervalMs": 50, "result": text("n"),
                "_meta": {META_SUBSCRIPTION_ID: 11}}})
        );
        thread::sleep(Duration::from_millis(50));
        assert!(h.take().is_empty(), "task-2 does not notify");
    }

    #[test]
    fn legacy_task_polled_and_result_blocks() {
        let h = Harness::legacy(Config { protocol: LEGACY, ..Config::default() });
        let list = h.ask(1, "tools/list", json!({}));
        let tools = list["result"]["tools"].as_array().unwrap();
        let support = |name: &str| {
            let tool = tools.iter().find(|t| t["name"] == name).unwrap();
            tool.get("execution").map(|e| e["taskSupport"].clone())
        };
        assert_eq!(support("echo"), None);
        for (name, expected) in [
            ("task_echo", "optional"),
            ("task_required", "required"),
            ("task_input", "required"),
            ("task_fail", "optional"),
            ("task_slow", "optional"),
            ("task_notify", "optional"),
        ] {
            assert_eq!(support(name), Some(json!(expected)), "{name}");
        }

        let mut params = call("task_echo", json!({"message": "later", "ms": 400}));
        params["task"] = json!({"ttl": 5000});
        let created = masked(h.ask(2, "tools/call", params));
        let task = json!({"taskId": "task-1", "status": "working", "createdAt": "T", "lastUpdatedAt": "T",
            "ttl": 5000, "pollInterval": 50});
        assert_eq!(created, json!({"jsonrpc": "2.0", "id": 2, "result": {"task": task}}));
        assert_eq!(masked(h.ask(3, "tasks/get", task_params("task-1")))["result"], task);
        h.send(json!({"jsonrpc": "2.0", "id": 4, "method": "tasks/result", "params": task_params("task-1")}));
        thread::sleep(Duration::from_millis(30));
        assert!(h.take().is_empty(), "tasks/result waits for the end");
        let mut result = text("later");
        result["_meta"] = json!({META_RELATED_TASK: {"taskId": "task-1"}});
        assert_eq!(h.wait(1), [json!({"jsonrpc": "2.0", "id": 4, "result": result})]);
        let mut done = task;
        done["status"] = json!("completed");
        assert_eq!(masked(h.ask(5, "tasks/get", task_params("task-1")))["result"], done, "no result inlined");
        // Once over, tasks/result answers at once.
        assert_eq!(h.ask(6, "tasks/result", task_params("task-1"))["result"], result);
        assert_eq!(h.ask(7, "tasks/result", task_params("nope")), not_found(7, "nope"));
        assert_eq!(h.ask(8, "tasks/get", task_params("nope")), not_found(8, "nope"));
        assert_eq!(h.ask(9, "tasks/update", task_params("task-1"))["error"]["code"], METHOD_NOT_FOUND);
    }

    #[test]
    fn legacy_input_failure_cancel_and_list() {
        let h = Harness::legacy(Config { protocol: LEGACY, page_size: 2, ..Config::default() });
        let task_call = |id: u64, name: &str, arguments: Value| {
            let mut params = call(name, arguments);
            params["task"] = json!({});
            let created = h.ask(id, "tools/call", params);
            assert_eq!(created["result"]["task"]["status"], "working", "{created}");
            created["result"]["task"]["taskId"].as_str().unwrap().to_string()
        };
        // The worker starts once the task is created: its request comes second.
        let mut params = call("task_input", json!({"ms": 0}));
        params["task"] = json!({});
        h.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}));
        let lines = h.wait(2);
        assert_eq!(lines[0]["result"]["task"]["taskId"], "task-1");
        let mut params = elicitation_params();
        params["_meta"] = json!({META_RELATED_TASK: {"taskId": "task-1"}});
        assert_eq!(
            lines[1],
            json!({"jsonrpc": "2.0", "id": "srv-1", "method": "elicitation/create", "params": params})
        );
        assert_eq!(h.ask(2, "tasks/get", task_params("task-1"))["result"]["status"], "input_required");
        h.send(json!({"jsonrpc": "2.0", "id": "srv-1",
            "result": {"action": "accept", "content": {"name": "Bob"}}}));
        let greeting = h.ask(3, "tasks/result", task_params("task-1"));
        assert_eq!(greeting["result"]["content"], text("Hello, Bob!")["content"]);
        assert_eq!(h.ask(4, "tasks/get", task_params("task-1"))["result"]["status"], "completed");

        assert_eq!(task_call(5, "task_fail", json!({"ms": 0})), "task-2");
        let failed = h.ask(6, "tasks/result", task_params("task-2"));
        assert_eq!(
            failed,
            json!({"jsonrpc": "2.0", "id": 6, "error": {"code": -32050, "message": "task failed"}})
        );
        let got = h.ask(7, "tasks/get", task_params("task-2"));
        assert_eq!(
            (&got["result"]["status"], &got["result"]["statusMessage"]),
            (&json!("failed"), &json!("Tool execution failed: task failed"))
        );

        assert_eq!(task_call(8, "task_slow", json!({})), "task-3");
        let cancelled = masked(h.ask(9, "tasks/cancel", task_params("task-3")));
        assert_eq!(
            cancelled["result"],
            json!({"taskId": "task-3", "status": "cancelled", "createdAt": "T", "lastUpdatedAt": "T",
                "ttl": 60_000, "pollInterval": 50, "statusMessage": "The task was cancelled by request."})
        );
        let again = h.ask(10, "tasks/cancel", task_params("task-3"));
        assert_eq!(
            again,
            error(
                10,
                -32602,
                "Cannot cancel task: already in terminal status 'cancelled'",
                json!({"taskId": "task-3"})
            )
        );
        let result = h.ask(11, "tasks/result", task_params("task-3"));
        assert_eq!(result["error"]["data"], json!({"taskId": "task-3", "status": "cancelled"}));
        assert_eq!(h.ask(12, "tasks/cancel", task_params("task-1"))["error"]["code"], -32602);

        let page = masked(h.ask(13, "tasks/list", json!({})));
        let ids: Vec<&Value> =
            page["result"]["tasks"].as_array().unwrap().iter().map(|t| &t["taskId"]).collect();
        assert_eq!(ids, [&json!("task-1"), &json!("task-2")]);
        assert_eq!(page["result"]["nextCursor"], "page-2");
        assert_eq!(page["result"]["tasks"][0]["ttl"], 60_000);
        let page = h.ask(14, "tasks/list", json!({"cursor": "page-2"}));
        assert_eq!(page["result"]["tasks"][0]["taskId"], "task-3");
        assert!(page["result"].get("nextCursor").is_none());
        assert_eq!(h.ask(15, "tasks/list", json!({"cursor": "page-3"}))["error"]["code"], -32602);
        assert!(h.take().is_empty());
    }

    #[test]
    fn legacy_refusals_notifications_and_cancelled_result_waits() {
        let h = Harness::legacy(Config { protocol: LEGACY, ..Config::default() });
        let required = h.ask(1, "tools/call", call("task_required", json!({"message": "m"})));
        assert_eq!(
            required,
            error(
                1,
                -32601,
                "Task augmentation required",
                json!({"tool": "task_required", "taskSupport": "required"})
            )
        );
        let mut params = call("echo", json!({"message": "m"}));
        params["task"] = json!({});
        assert_eq!(
            h.ask(2, "tools/call", params),
            error(
                2,
                -32601,
                "Tool echo does not support task-augmented execution",
                json!({"tool": "echo", "taskSupport": "forbidden"})
            )
        );
        let sync = h.ask(3, "tools/call", call("task_echo", json!({"message": "now", "ms": 0})));
        assert_eq!(sync, json!({"jsonrpc": "2.0", "id": 3, "result": text("now")}));

        let mut params = call("task_notify", json!({"ms": 20}));
        params["task"] = json!({"ttl": 1000});
        h.send(json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": params}));
        let lines = h.wait(2);
        assert_eq!(lines[0]["result"]["task"]["taskId"], "task-1");
        assert_eq!(
            masked(lines[1].clone()),
            json!({"jsonrpc": "2.0", "method": "notifications/tasks/status", "params": {
                "taskId": "task-1", "status": "completed", "createdAt": "T", "lastUpdatedAt": "T",
                "ttl": 1000, "pollInterval": 50}})
        );

        // A tasks/result cancelled by the client is never answered.
        let mut params = call("task_slow", json!({}));
        params["task"] = json!({});
        h.ask(5, "tools/call", params);
        h.send(json!({"jsonrpc": "2.0", "id": 6, "method": "tasks/result", "params": task_params("task-2")}));
        h.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 6}}));
        thread::sleep(Duration::from_millis(50));
        assert!(h.take().is_empty());
        assert_eq!(h.ask(7, "tasks/cancel", task_params("task-2"))["result"]["status"], "cancelled");
        thread::sleep(Duration::from_millis(50));
        assert!(h.take().is_empty(), "a task_slow cancelled does not notify");
    }

    #[test]
    fn revisions_and_flags_without_tasks() {
        // 2025-06-18 has no tasks: no capability, no execution, `task` ignored.
        for cfg in [
            Config { protocol: ProtocolMode::Legacy("2025-06-18"), ..Config::default() },
            Config { protocol: LEGACY, no_tasks: true, ..Config::default() },
        ] {
            let h = Harness::new(cfg);
            let version = match h.server.cfg.protocol {
                ProtocolMode::Legacy(version) => version,
                _ => unreachable!(),
            };
            let init = h.ask(
                0,
                "initialize",
                json!({"protocolVersion": version, "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"}}),
            );
            assert!(init["result"]["capabilities"].get("tasks").is_none(), "{init}");
            let list = h.ask(1, "tools/list", json!({}));
            assert!(list["result"]["tools"].as_array().unwrap().iter().all(|t| t.get("execution").is_none()));
            let mut params = call("task_echo", json!({"message": "sync", "ms": 0}));
            params["task"] = json!({"ttl": 10});
            assert_eq!(h.ask(2, "tools/call", params)["result"], text("sync"), "{version}");
            let mut params = call("task_required", json!({"message": "m"}));
            params["task"] = json!({});
            let refused = h.ask(3, "tools/call", params);
            assert_eq!(refused["error"]["code"], METHOD_NOT_FOUND, "{refused}");
            for (id, method) in
                [(4, "tasks/get"), (5, "tasks/list"), (6, "tasks/result"), (7, "tasks/cancel")]
            {
                assert_eq!(
                    h.ask(id, method, task_params("task-1"))["error"]["code"],
                    METHOD_NOT_FOUND,
                    "{method}"
                );
            }
        }

        let h = Harness::new(Config { protocol: ProtocolMode::Modern, no_tasks: true, ..Config::default() });
        let discover = h.ask(1, "server/discover", modern(true, json!({})));
        assert!(discover["result"]["capabilities"].get("extensions").is_none(), "{discover}");
        let sync = h.ask(2, "tools/call", modern(true, call("task_echo", json!({"message": "s", "ms": 0}))));
        assert_eq!(sync["result"]["content"], text("s")["content"]);
        assert_eq!(sync["result"]["resultType"], "complete");
        let refused = h.ask(3, "tools/call", modern(true, call("task_required", json!({"message": "m"}))));
        assert_eq!(refused["error"]["code"], METHOD_NOT_FOUND);
        assert_eq!(
            h.ask(4, "tasks/get", modern(true, task_params("task-1")))["error"]["code"],
            METHOD_NOT_FOUND
        );
        // `taskIds` is an unknown key then: ignored, not refused.
        h.send(json!({"jsonrpc": "2.0", "id": 5, "method": "subscriptions/listen",
            "params": modern(false, json!({"notifications": {"taskIds": ["task-1"]}}))}));
        assert_eq!(h.wait(1)[0]["params"]["notifications"], json!({}));
    }
}
