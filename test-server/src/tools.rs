//! The tool catalogue and `tools/call`. Every call runs on its own thread
//! (see `Server::handle_request`); returning `None` sends no response. The
//! task tools live in `tasks`.

use std::sync::Arc;

use serde_json::{json, Map, Value};

use crate::listen::{self, ListKind};
use crate::protocol::{
    compact, error_result, text_result, Era, Reply, RpcError, META_RESERVED_PREFIX, MODERN_VERSION,
};
use crate::server::{Request, Server};
use crate::tasks;

/// Tools that need server-to-client requests, which the modern revision
/// does not allow on stdio.
const LEGACY_ONLY: [&str; 4] = ["elicit", "sample", "roots", "ping_client"];
/// Tools about `subscriptions/listen`, which only the modern revision has.
const MODERN_ONLY: [&str; 1] = ["end_listens"];

/// The most notifications one `flood` call sends per recipient.
const FLOOD_MAX: u64 = 200_000;

/// `notifications/message` payload size for `noise` (2.5 MiB, so the line
/// is longer than 2 MiB).
const NOISE_STDOUT_BYTES: usize = 5 * 1024 * 1024 / 2;
/// Size of the stderr line written by `noise`.
const NOISE_STDERR_BYTES: usize = 100 * 1024;

pub fn object_schema(properties: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": properties, "required": required})
}

pub fn tool(name: &str, description: &str, input_schema: Value) -> Value {
    json!({"name": name, "description": description, "inputSchema": input_schema})
}

fn no_args() -> Value {
    json!({"type": "object", "properties": {}})
}

fn message_schema() -> Value {
    object_schema(json!({"message": {"type": "string"}}), &["message"])
}

fn echo_definition() -> Value {
    let mut echo = tool("echo", "Echoes the message back as text and structured content", message_schema());
    echo["title"] = json!("Echo");
    echo["annotations"] = json!({"readOnlyHint": true});
    echo["icons"] = json!([{"src": "data:image/png;base64,AA==", "mimeType": "image/png"}]);
    echo["outputSchema"] = object_schema(
        json!({
            "message": {"type": "string"},
            "receivedMeta": {"type": "object"},
            "argumentsHadMeta": {"type": "boolean"}
        }),
        &["message"],
    );
    echo
}

/// The `tools/list` entries visible in `era`, in a fixed order.
pub fn definitions(server: &Server, era: Era) -> Vec<Value> {
    let mut tools = vec![
        echo_definition(),
        tool(
            "add",
            "Adds two numbers",
            object_schema(json!({"a": {"type": "number"}, "b": {"type": "number"}}), &["a", "b"]),
        ),
        tool(
            "slow",
            "Sleeps for ms milliseconds, then answers (cancellable)",
            object_schema(json!({"ms": {"type": "integer", "minimum": 0}}), &["ms"]),
        ),
        tool(
            "progress",
            "Reports steps progress notifications spaced by delayMs",
            object_schema(
                json!({
                    "steps": {"type": "integer", "minimum": 0},
                    "delayMs": {"type": "integer", "minimum": 0, "default": 10}
                }),
                &["steps"],
            ),
        ),
        tool("fail", "Returns a tool result with isError", no_args()),
        tool("rpc_error", "Answers with a JSON-RPC error", no_args()),
        tool(
            "crash",
            "Exits the server process with status code, without answering unless answerFirst",
            object_schema(
                json!({
                    "code": {"type": "integer", "default": 3},
                    "answerFirst": {"type": "boolean", "default": false}
                }),
                &[],
            ),
        ),
        tool("notify", "Sends list_changed and log notifications, then answers", no_args()),
        tool(
            "notify_later",
            "Answers at once, then sends a log notification after `ms` (while nobody waits)",
            object_schema(json!({"ms": {"type": "integer", "default": 100}}), &[]),
        ),
        tool("noise", "Writes a non-JSON line, a >2 MiB line and a big stderr line", no_args()),
        tool(
            "touch_resource",
            "Sends notifications/resources/updated for uri to every listen granted it (legacy: if subscribed), \
             then answers how many were sent",
            object_schema(json!({"uri": {"type": "string"}}), &["uri"]),
        ),
        tool(
            "change_list",
            "Sends notifications/<kind>/list_changed to every listen granted it (legacy: once, always), \
             then answers how many were sent",
            object_schema(json!({"kind": {"type": "string", "enum": ["tools", "prompts", "resources"]}}), &["kind"]),
        ),
        tool(
            "flood",
            "Like touch_resource, count times as fast as possible; answers after the last one",
            object_schema(
                json!({
                    "uri": {"type": "string"},
                    "count": {"type": "integer", "minimum": 0, "maximum": FLOOD_MAX}
                }),
                &["uri", "count"],
            ),
        ),
    ];
    tools.extend(tasks::definitions(server, era));
    if era == Era::Modern {
        tools.push(tool(
            "end_listens",
            "Answers every open subscriptions/listen with a closing result (resultType, default complete), \
             then answers how many were ended",
            object_schema(json!({"resultType": {"type": "string", "default": "complete"}}), &[]),
        ));
    }
    if era == Era::Legacy {
        tools.extend([
            tool("elicit", "Asks the client for a name (elicitation/create)", no_args()),
            tool("sample", "Asks the client's LLM (sampling/createMessage)", no_args()),
            tool("roots", "Asks the client for its roots (roots/list)", no_args()),
            tool("ping_client", "Pings the client", no_args()),
        ]);
    }
    tools.extend((0..server.cfg.extra_tools).map(|i| {
        tool(&format!("extra_{i}"), "Echoes the message back (pagination filler)", message_schema())
    }));
    if server.cfg.host_asks {
        tools.extend(crate::host_asks::definitions());
    }
    if server.cfg.input_waits {
        tools.extend(crate::input_waits::definitions());
    }
    if server.cfg.client_roots {
        tools.extend(crate::client_roots::definitions());
    }
    if server.cfg.big_tool {
        tools.extend(crate::big::definitions());
    }
    if server.cfg.cli_tools {
        tools.extend(crate::cli_tools::definitions());
    }
    tools
}

/// Handles `tools/call`. `None` means: send nothing (cancelled, or answered
/// already: a task's `CreateTaskResult`).
pub fn call(server: &Arc<Server>, req: &Request) -> Option<Reply> {
    let Some(name) = req.param("name").and_then(Value::as_str) else {
        return Some(Err(RpcError::invalid_params("tools/call requires a string name")));
    };
    let args = match req.param("arguments") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(args)) => args.clone(),
        Some(_) => return Some(Err(RpcError::invalid_params("arguments must be an object"))),
    };
    if req.era == Era::Modern && LEGACY_ONLY.contains(&name) {
        return Some(Ok(error_result(format!("not available in {MODERN_VERSION}"))));
    }
    if req.era == Era::Legacy && MODERN_ONLY.contains(&name) {
        return Some(Ok(error_result("only available in the modern revision")));
    }
    if tasks::is_task_tool(name) {
        return tasks::call(server, req, name, &args);
    }
    if tasks::wants_task(server, req) && definitions(server, req.era).iter().any(|t| t["name"] == name) {
        return Some(Err(tasks::forbidden(name)));
    }
    let reply = match name {
        "echo" => echo(req, &args),
        "add" => add(&args),
        "slow" => return slow(server, req, &args),
        "progress" => return progress(server, req, &args),
        "fail" => Ok(error_result("tool failed")),
        "rpc_error" => Err(RpcError::new(-32050, "custom failure").with_data(json!({"why": "asked"}))),
        "crash" => crash(server, req, &args),
        "notify" => notify(server),
        "notify_later" => notify_later(&args),
        "noise" => noise(server),
        "touch_resource" => touch_resource(server, &args),
        "change_list" => change_list(server, req, &args),
        "flood" => flood(server, &args),
        "end_listens" => end_listens(server, &args),
        "elicit" => return elicit(server, req),
        "sample" => {
            return ask_client(server, req, "sampling", "sampling/createMessage", Some(sampling_params()))
        }
        "roots" => return ask_client(server, req, "roots", "roots/list", None),
        "ping_client" => return ping_client(server, req),
        other if server.cfg.host_asks && crate::host_asks::NAMES.contains(&other) => {
            return crate::host_asks::call(server, req, other, &args)
        }
        other if server.cfg.client_roots && crate::client_roots::NAMES.contains(&other) => {
            return crate::client_roots::call(server, req)
        }
        other if server.cfg.input_waits && crate::input_waits::NAMES.contains(&other) => {
            crate::input_waits::call(req, other, &args)
        }
        other if server.cfg.big_tool && crate::big::NAMES.contains(&other) => crate::big::call(&args),
        other if server.cfg.cli_tools && crate::cli_tools::NAMES.contains(&other) => {
            crate::cli_tools::call(other, &args)
        }
        other if is_extra(server, other) => echo(req, &args),
        other => {
            Err(RpcError::invalid_params(format!("Unknown tool: {other}")).with_data(json!({"name": other})))
        }
    };
    Some(reply)
}

fn is_extra(server: &Server, name: &str) -> bool {
    name.strip_prefix("extra_")
        .and_then(|n| n.parse::<usize>().ok())
        .is_some_and(|n| n < server.cfg.extra_tools && name == format!("extra_{n}"))
}

/// A non-negative integer argument, or an `isError` result explaining why not.
pub fn uint_arg(args: &Map<String, Value>, key: &str, default: Option<u64>) -> Result<u64, Value> {
    let invalid = || error_result(format!("argument {key} must be a non-negative integer"));
    match (args.get(key).filter(|v| !v.is_null()), default) {
        (None, Some(default)) => Ok(default),
        (None, None) => Err(invalid()),
        (Some(value), _) => value.as_u64().ok_or_else(invalid),
    }
}

fn echo(req: &Request, args: &Map<String, Value>) -> Reply {
    let Some(message) = args.get("message").and_then(Value::as_str) else {
        return Ok(error_result("argument message must be a string"));
    };
    let mut structured = json!({"message": message});
    if let Some(meta) = req.meta() {
        let visible: Map<String, Value> = meta
            .iter()
            .filter(|(key, _)| !key.starts_with(META_RESERVED_PREFIX))
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect();
        structured["receivedMeta"] = Value::Object(visible);
    }
    if args.contains_key("_meta") {
        structured["argumentsHadMeta"] = json!(true);
    }
    let mut result = text_result(message);
    result["structuredContent"] = structured;
    Ok(result)
}

fn add(args: &Map<String, Value>) -> Reply {
    let (Some(a), Some(b)) = (args.get("a"), args.get("b")) else {
        return Ok(error_result("arguments a and b are required"));
    };
    let sum = match (a.as_i64(), b.as_i64(), a.as_f64(), b.as_f64()) {
        (Some(a), Some(b), _, _) if a.checked_add(b).is_some() => json!(a + b),
        (_, _, Some(a), Some(b)) => json!(a + b),
        _ => return Ok(error_result("arguments a and b must be numbers")),
    };
    let mut result = text_result(compact(&sum));
    result["structuredContent"] = json!({"sum": sum});
    Ok(result)
}

fn slow(server: &Server, req: &Request, args: &Map<String, Value>) -> Option<Reply> {
    let ms = match uint_arg(args, "ms", None) {
        Ok(ms) => ms,
        Err(result) => return Some(Ok(result)),
    };
    server.sleep_unless_cancelled(&req.id, ms).then(|| Ok(text_result(format!("slept {ms}"))))
}

fn progress(server: &Server, req: &Request, args: &Map<String, Value>) -> Option<Reply> {
    let (steps, delay) = match (uint_arg(args, "steps", None), uint_arg(args, "delayMs", Some(10))) {
        (Ok(steps), Ok(delay)) => (steps, delay),
        (Err(result), _) | (_, Err(result)) => return Some(Ok(result)),
    };
    let token = req.meta().and_then(|meta| meta.get("progressToken")).cloned();
    // A notification for a token the client never issued: it must drop it.
    server.out.send_notification(
        "notifications/progress",
        Some(&json!({"progressToken": "stale-token", "progress": 0, "total": steps, "message": "stale"})),
    );
    for i in 1..=steps {
        if !server.sleep_unless_cancelled(&req.id, delay) {
            return None;
        }
        if let Some(token) = &token {
            server.out.send_notification(
                "notifications/progress",
                Some(&json!({
                    "progressToken": token,
                    "progress": i,
                    "total": steps,
                    "message": format!("step {i}")
                })),
            );
        }
    }
    Some(Ok(text_result(format!("done {steps}"))))
}

/// Exits with `code` (default 3). The call is not answered, unless
/// `answerFirst` is true: then its result is written (and flushed) first.
fn crash(server: &Server, req: &Request, args: &Map<String, Value>) -> Reply {
    let code = match args.get("code") {
        None | Some(Value::Null) => 3,
        Some(v) => match v.as_i64().and_then(|c| i32::try_from(c).ok()) {
            Some(code) => code,
            None => return Ok(error_result("argument code must be an integer")),
        },
    };
    let answer_first = match args.get("answerFirst") {
        None | Some(Value::Null) => false,
        Some(v) => match v.as_bool() {
            Some(answer_first) => answer_first,
            None => return Ok(error_result("argument answerFirst must be a boolean")),
        },
    };
    if answer_first {
        server.respond(req, Ok(text_result(format!("exiting with code {code}"))));
    }
    eprintln!("crashing");
    std::process::exit(code);
}

fn string_arg<'a>(args: &'a Map<String, Value>, key: &str) -> Result<&'a str, Value> {
    args.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| error_result(format!("argument {key} must be a string")))
}

/// `<verb> N` as text, `{"count": N}` as structured content.
fn count_result(verb: &str, count: u64) -> Value {
    let mut result = text_result(format!("{verb} {count}"));
    result["structuredContent"] = json!({ "count": count });
    result
}

fn touch_resource(server: &Server, args: &Map<String, Value>) -> Reply {
    let uri = match string_arg(args, "uri") {
        Ok(uri) => uri,
        Err(result) => return Ok(result),
    };
    Ok(count_result("sent", listen::touch(server, uri, 1)))
}

fn change_list(server: &Server, req: &Request, args: &Map<String, Value>) -> Reply {
    let Some(kind) = args.get("kind").and_then(Value::as_str).and_then(ListKind::parse) else {
        return Ok(error_result("argument kind must be \"tools\", \"prompts\" or \"resources\""));
    };
    Ok(count_result("sent", listen::list_changed(server, kind, req.era == Era::Legacy)))
}

fn flood(server: &Server, args: &Map<String, Value>) -> Reply {
    let (uri, count) = match (string_arg(args, "uri"), uint_arg(args, "count", None)) {
        (Ok(uri), Ok(count)) => (uri, count),
        (Err(result), _) | (_, Err(result)) => return Ok(result),
    };
    if count > FLOOD_MAX {
        return Ok(error_result(format!("argument count must be at most {FLOOD_MAX}")));
    }
    Ok(count_result("sent", listen::touch(server, uri, count)))
}

fn end_listens(server: &Server, args: &Map<String, Value>) -> Reply {
    let result_type = match args.get("resultType") {
        None | Some(Value::Null) => "complete",
        Some(Value::String(result_type)) => result_type,
        Some(_) => return Ok(error_result("argument resultType must be a string")),
    };
    Ok(count_result("ended", listen::end_all(server, result_type)))
}

fn notify(server: &Server) -> Reply {
    for method in [
        "notifications/tools/list_changed",
        "notifications/prompts/list_changed",
        "notifications/resources/list_changed",
    ] {
        server.out.send_notification(method, None);
    }
    server.out.send_notification(
        "notifications/message",
        Some(&json!({"level": "warning", "logger": "test", "data": "line1\nline2\u{1b}[31m red"})),
    );
    Ok(text_result("notified"))
}

fn notify_later(args: &Map<String, Value>) -> Reply {
    let ms = match uint_arg(args, "ms", Some(100)) {
        Ok(ms) => ms,
        Err(result) => return Ok(result),
    };
    std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(ms));
        crate::protocol::Output::new().send_notification(
            "notifications/message",
            Some(&json!({"level": "info", "logger": "later", "data": "after the reply"})),
        );
    });
    Ok(text_result("later"))
}

fn noise(server: &Server) -> Reply {
    server.out.write_line("this is not json");
    server.out.send_notification(
        "notifications/message",
        Some(&json!({"level": "info", "logger": "noise", "data": "x".repeat(NOISE_STDOUT_BYTES)})),
    );
    eprintln!("{}", "e".repeat(NOISE_STDERR_BYTES));
    Ok(text_result("noisy"))
}

fn sampling_params() -> Value {
    json!({
        "messages": [{"role": "user", "content": {"type": "text", "text": "Say hi"}}],
        "maxTokens": 10
    })
}

fn elicit(server: &Server, req: &Request) -> Option<Reply> {
    let params = json!({
        "message": "What is your name?",
        "requestedSchema": {
            "type": "object",
            "properties": {"name": {"type": "string"}},
            "required": ["name"]
        }
    });
    let text = match server.request_client(&req.id, "elicitation/create", Some(params))? {
        Ok(result) => {
            let action = result.get("action").and_then(Value::as_str).unwrap_or("null");
            let content = result.get("content").cloned().unwrap_or(Value::Null);
            format!("elicitation: {action} {}", compact(&content))
        }
        Err(error) => format!("elicitation error: {} {}", error.code, error.message),
    };
    Some(Ok(text_result(text)))
}

/// Sends `method` to the client and answers `<label>: <compact JSON>` of
/// its result (or of its error object).
fn ask_client(
    server: &Server,
    req: &Request,
    label: &str,
    method: &str,
    params: Option<Value>,
) -> Option<Reply> {
    let answer = match server.request_client(&req.id, method, params)? {
        Ok(result) => result,
        Err(error) => error.to_value(),
    };
    Some(Ok(text_result(format!("{label}: {}", compact(&answer)))))
}

fn ping_client(server: &Server, req: &Request) -> Option<Reply> {
    let text = match server.request_client(&req.id, "ping", None)? {
        Ok(_) => "pong received".to_string(),
        Err(error) => format!("ping error: {} {}", error.code, error.message),
    };
    Some(Ok(text_result(text)))
}
