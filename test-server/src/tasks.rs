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
mod tests;
