//! Shared server state, message classification, era selection, in-flight
//! request tracking (cancellation), server-to-client requests, the registry
//! of `subscriptions/listen` streams (see `listen`) and the task store (see
//! `tasks`).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};

use crate::config::{Config, ProtocolMode};
use crate::handlers;
use crate::listen::{self, Subscriptions};
use crate::protocol::{
    decorate_modern, id_key, request_meta, Era, Output, Reply, RpcError, INVALID_PARAMS, INVALID_REQUEST,
    META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION, METHOD_NOT_FOUND, MODERN_VERSION,
    UNSUPPORTED_PROTOCOL_VERSION,
};
use crate::tasks::{self, Tasks};
use crate::tools;

/// How often blocked tool threads re-check whether they were cancelled.
pub const CANCEL_POLL: Duration = Duration::from_millis(5);

/// One request from the client, as dispatched to a handler.
#[derive(Debug, Clone)]
pub struct Request {
    pub id: Value,
    pub method: String,
    /// Always an object (absent params become `{}`).
    pub params: Value,
    pub era: Era,
}

impl Request {
    pub fn param(&self, key: &str) -> Option<&Value> {
        self.params.get(key)
    }

    pub fn meta(&self) -> Option<&Map<String, Value>> {
        request_meta(&self.params)
    }
}

/// Locks a mutex, ignoring poisoning (a panicking tool thread must not take
/// the whole server down).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[derive(Debug)]
pub struct Server {
    pub cfg: Config,
    pub out: Output,
    /// Negotiated legacy version, set by `initialize`.
    legacy_version: Mutex<Option<String>>,
    /// In-flight `tools/call` requests by id key; `true` once cancelled.
    in_flight: Mutex<HashMap<String, bool>>,
    /// Server-to-client requests awaiting the client's response.
    pending: Mutex<HashMap<String, mpsc::Sender<Reply>>>,
    next_request: AtomicU64,
    /// Open listens and legacy resource subscriptions.
    subs: Mutex<Subscriptions>,
    /// Every task created so far (both eras).
    tasks: Mutex<Tasks>,
    /// Signalled on every change of a task.
    tasks_changed: Condvar,
}

impl Server {
    pub fn new(cfg: Config) -> Self {
        let output = match cfg.slow_write_ms {
            0 => Output::new(),
            ms => Output::paced(std::time::Duration::from_millis(ms)),
        };
        Server::with_output(cfg, output)
    }

    pub fn with_output(cfg: Config, out: Output) -> Self {
        Server {
            cfg,
            out,
            legacy_version: Mutex::new(None),
            in_flight: Mutex::new(HashMap::new()),
            pending: Mutex::new(HashMap::new()),
            next_request: AtomicU64::new(0),
            subs: Mutex::new(Subscriptions::default()),
            tasks: Mutex::new(Tasks::default()),
            tasks_changed: Condvar::new(),
        }
    }

    /// The task store. A task's notifications are written while holding it
    /// (so they follow its changes in order); never take it while holding
    /// the subscription registry.
    pub fn tasks(&self) -> MutexGuard<'_, Tasks> {
        lock(&self.tasks)
    }

    /// Wakes every thread waiting in [`Server::wait_tasks`].
    pub fn tasks_changed(&self) {
        self.tasks_changed.notify_all();
    }

    /// Waits (at most `timeout`) for a change of some task.
    pub fn wait_tasks<'a>(&self, guard: MutexGuard<'a, Tasks>, timeout: Duration) -> MutexGuard<'a, Tasks> {
        match self.tasks_changed.wait_timeout(guard, timeout) {
            Ok((guard, _)) => guard,
            Err(poisoned) => poisoned.into_inner().0,
        }
    }

    /// The subscription registry. Deliveries write while holding it.
    pub fn subs(&self) -> MutexGuard<'_, Subscriptions> {
        lock(&self.subs)
    }

    /// Adds (`add`) or removes a legacy `resources/subscribe` URI.
    pub fn set_legacy_subscription(&self, uri: &str, add: bool) {
        self.subs().set_legacy(uri, add);
    }

    pub fn set_legacy_version(&self, version: &str) {
        *lock(&self.legacy_version) = Some(version.to_string());
    }

    /// The negotiated legacy version, once `initialize` was answered.
    pub fn legacy_version(&self) -> Option<String> {
        lock(&self.legacy_version).clone()
    }

    fn initialized(&self) -> bool {
        lock(&self.legacy_version).is_some()
    }

    /// Handles one line read from stdin (without its line terminator).
    pub fn handle_line(self: &Arc<Self>, line: &str) {
        if line.trim().is_empty() {
            return;
        }
        let Ok(msg) = serde_json::from_str::<Value>(line) else {
            self.out.send_parse_error();
            return;
        };
        let Value::Object(obj) = msg else {
            self.out.send_error(&Value::Null, &RpcError::new(INVALID_REQUEST, "Invalid Request"));
            return;
        };
        match obj.get("method") {
            Some(Value::String(method)) => match obj.get("id") {
                Some(id) => self.handle_request(&obj, id, method),
                None => self.handle_notification(method, obj.get("params")),
            },
            Some(_) => self.invalid_request(&obj, "Invalid Request: method must be a string"),
            None if obj.contains_key("result") || obj.contains_key("error") => {
                self.handle_response(&obj);
            }
            None => self.invalid_request(&obj, "Invalid Request"),
        }
    }

    fn invalid_request(&self, obj: &Map<String, Value>, message: &str) {
        let id = match obj.get("id") {
            Some(id @ (Value::String(_) | Value::Number(_))) => id.clone(),
            _ => Value::Null,
        };
        self.out.send_error(&id, &RpcError::new(INVALID_REQUEST, message));
    }

    fn handle_request(self: &Arc<Self>, obj: &Map<String, Value>, id: &Value, method: &str) {
        if !matches!(id, Value::String(_) | Value::Number(_)) {
            self.invalid_request(obj, "Invalid Request: id must be a string or number");
            return;
        }
        if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            self.invalid_request(obj, "Invalid Request: jsonrpc must be \"2.0\"");
            return;
        }
        let params = match obj.get("params") {
            None | Some(Value::Null) => json!({}),
            Some(p @ Value::Object(_)) => p.clone(),
            Some(_) => {
                self.out.send_error(id, &RpcError::invalid_params("params must be an object"));
                return;
            }
        };
        let era = match self.select_era(method, &params) {
            Ok(era) => era,
            Err(Some(error)) => {
                self.out.send_error(id, &error);
                return;
            }
            Err(None) => return, // deliberately silent
        };
        let req = Request { id: id.clone(), method: method.to_string(), params, era };
        if req.era == Era::Modern && req.method == listen::LISTEN_METHOD {
            // Long-lived: answered only if invalid, or later by `end_listens`.
            if let Some(reply) = listen::open(self, &req) {
                self.respond(&req, reply);
            }
        } else if req.method == "tools/call" || (req.era == Era::Legacy && req.method == tasks::RESULT_METHOD)
        {
            // Tool calls (and the blocking legacy `tasks/result`) run on
            // their own thread so slow ones never block later requests (or
            // the responses they are waiting for).
            self.begin(&req.id);
            let server = Arc::clone(self);
            thread::spawn(move || {
                let reply = match req.method.as_str() {
                    "tools/call" => tools::call(&server, &req),
                    _ => tasks::result(&server, &req),
                };
                server.finish(&req, reply);
            });
        } else {
            let reply = handlers::dispatch(self, &req);
            self.respond(&req, reply);
        }
    }

    /// Decides which era serves a request, or rejects it. `Err(None)` means
    /// "do not answer at all".
    fn select_era(&self, method: &str, params: &Value) -> Result<Era, Option<RpcError>> {
        match self.cfg.protocol {
            ProtocolMode::Modern => {
                if method == "initialize" {
                    return Err(Some(
                        RpcError::new(
                            METHOD_NOT_FOUND,
                            format!("initialize is not supported; this server speaks {MODERN_VERSION}"),
                        )
                        .with_data(json!({ "supported": [MODERN_VERSION] })),
                    ));
                }
                validate_modern_meta(params)?;
                Ok(Era::Modern)
            }
            ProtocolMode::Dual => {
                if method == "initialize" {
                    return Ok(Era::Legacy);
                }
                let has_modern_key =
                    request_meta(params).is_some_and(|meta| meta.contains_key(META_PROTOCOL_VERSION));
                if method == "server/discover" || has_modern_key {
                    validate_modern_meta(params)?;
                    return Ok(Era::Modern);
                }
                self.legacy_gate(method, false)
            }
            ProtocolMode::Legacy(_) => {
                let silent = self.cfg.silent_discover;
                if method == "server/discover" {
                    return Err((!silent).then(|| RpcError::method_not_found(method)));
                }
                self.legacy_gate(method, silent)
            }
        }
    }

    fn legacy_gate(&self, method: &str, silent: bool) -> Result<Era, Option<RpcError>> {
        if method == "initialize" || self.initialized() {
            return Ok(Era::Legacy);
        }
        if silent {
            return Err(None);
        }
        if method == "ping" {
            return Ok(Era::Legacy);
        }
        Err(Some(RpcError::new(INVALID_REQUEST, "Server not initialized")))
    }

    /// Sends the reply for `req`, adding the modern result fields if needed (`--answer-delay-ms`
    /// late).
    pub fn respond(&self, req: &Request, reply: Reply) {
        if self.cfg.answer_delay_ms > 0 {
            thread::sleep(Duration::from_millis(self.cfg.answer_delay_ms));
        }
        let reply = match (req.era, reply) {
            (Era::Modern, Ok(result)) => {
                let mut result = decorate_modern(result, is_cacheable(&req.method));
                if req.method == "server/discover" {
                    result["ttlMs"] = json!(self.cfg.discover_ttl_ms);
                }
                Ok(result)
            }
            (_, reply) => reply,
        };
        self.out.send_reply(&req.id, &reply);
    }

    fn handle_notification(&self, method: &str, params: Option<&Value>) {
        if method == "notifications/cancelled" {
            if let Some(id) = params.and_then(|p| p.get("requestId")) {
                if let Some(flag) = lock(&self.in_flight).get_mut(&id_key(id)) {
                    *flag = true;
                }
                // Cancelling a listen ends it without a response.
                listen::cancel(self, id);
            }
        }
        // Every other notification (initialized, roots/list_changed, ...)
        // is accepted silently.
    }

    fn handle_response(&self, obj: &Map<String, Value>) {
        let Some(id) = obj.get("id") else {
            eprintln!("mcp-test-server: response without id ignored");
            return;
        };
        let Some(tx) = lock(&self.pending).remove(&id_key(id)) else {
            eprintln!("mcp-test-server: response for unknown request {id} ignored");
            return;
        };
        let reply = match obj.get("error") {
            Some(error) => Err(RpcError {
                code: error.get("code").and_then(Value::as_i64).unwrap_or(0),
                message: error.get("message").and_then(Value::as_str).unwrap_or_default().to_string(),
                data: error.get("data").cloned(),
            }),
            None => Ok(obj.get("result").cloned().unwrap_or(Value::Null)),
        };
        let _ = tx.send(reply);
    }

    // ---- in-flight tracking -------------------------------------------

    fn begin(&self, id: &Value) {
        lock(&self.in_flight).insert(id_key(id), false);
    }

    pub fn is_cancelled(&self, id: &Value) -> bool {
        lock(&self.in_flight).get(&id_key(id)).copied().unwrap_or(false)
    }

    /// Completes an in-flight request: answers it unless it was cancelled.
    fn finish(&self, req: &Request, reply: Option<Reply>) {
        let cancelled = lock(&self.in_flight).remove(&id_key(&req.id)).unwrap_or(false);
        match reply {
            Some(reply) if !cancelled => self.respond(req, reply),
            _ => {}
        }
    }

    /// Sleeps `ms` milliseconds on behalf of request `id`. Returns `false`
    /// (early) if the request was cancelled meanwhile.
    pub fn sleep_unless_cancelled(&self, id: &Value, ms: u64) -> bool {
        let deadline = Instant::now() + Duration::from_millis(ms);
        loop {
            if self.is_cancelled(id) {
                return false;
            }
            let now = Instant::now();
            if now >= deadline {
                return true;
            }
            thread::sleep(CANCEL_POLL.min(deadline - now));
        }
    }

    // ---- server-to-client requests ------------------------------------

    /// Sends a request to the client (ids `srv-1`, `srv-2`, ...) and blocks
    /// until its response arrives. Returns `None` if the request `parent`
    /// that triggered it was cancelled meanwhile.
    pub fn request_client(&self, parent: &Value, method: &str, params: Option<Value>) -> Option<Reply> {
        self.request_client_until(method, params, || self.is_cancelled(parent))
    }

    /// Like [`Server::request_client`], giving up (`None`) once `abandoned`
    /// says so.
    pub fn request_client_until(
        &self,
        method: &str,
        params: Option<Value>,
        abandoned: impl Fn() -> bool,
    ) -> Option<Reply> {
        let n = self.next_request.fetch_add(1, Ordering::SeqCst) + 1;
        let id = format!("srv-{n}");
        let key = id_key(&json!(id));
        let (tx, rx) = mpsc::channel();
        lock(&self.pending).insert(key.clone(), tx);
        self.out.send_request(&id, method, params.as_ref());
        loop {
            match rx.recv_timeout(CANCEL_POLL * 4) {
                Ok(reply) => return Some(reply),
                Err(RecvTimeoutError::Timeout) if !abandoned() => {}
                Err(_) => {
                    lock(&self.pending).remove(&key);
                    return None;
                }
            }
        }
    }
}

/// Results that carry the caching fields in the modern era.
fn is_cacheable(method: &str) -> bool {
    matches!(
        method,
        "server/discover"
            | "tools/list"
            | "prompts/list"
            | "resources/list"
            | "resources/templates/list"
            | "resources/read"
    )
}

/// Checks the per-request `_meta` fields required by the modern revision.
fn validate_modern_meta(params: &Value) -> Result<(), Option<RpcError>> {
    let empty = Map::new();
    let meta = request_meta(params).unwrap_or(&empty);
    let missing: Vec<&str> = [META_PROTOCOL_VERSION, META_CLIENT_CAPABILITIES]
        .into_iter()
        .filter(|key| !meta.contains_key(*key))
        .collect();
    if !missing.is_empty() {
        return Err(Some(
            RpcError::new(INVALID_PARAMS, "Missing required _meta").with_data(json!({ "missing": missing })),
        ));
    }
    let requested = &meta[META_PROTOCOL_VERSION];
    if requested.as_str() != Some(MODERN_VERSION) {
        return Err(Some(
            RpcError::new(UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version")
                .with_data(json!({ "supported": [MODERN_VERSION], "requested": requested })),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta_params(version: &str) -> Value {
        json!({"_meta": {META_PROTOCOL_VERSION: version, META_CLIENT_CAPABILITIES: {}}})
    }

    #[test]
    fn modern_meta_validation() {
        assert!(validate_modern_meta(&meta_params(MODERN_VERSION)).is_ok());
        let err = validate_modern_meta(&json!({})).unwrap_err().unwrap();
        assert_eq!(err.code, INVALID_PARAMS);
        let err = validate_modern_meta(&meta_params("1900-01-01")).unwrap_err().unwrap();
        assert_eq!(err.code, UNSUPPORTED_PROTOCOL_VERSION);
        assert_eq!(err.data.unwrap()["requested"], "1900-01-01");
    }

    #[test]
    fn dual_selects_era_by_meta() {
        let server = Server::new(Config::default());
        assert_eq!(server.select_era("tools/list", &meta_params(MODERN_VERSION)).unwrap(), Era::Modern);
        let err = server.select_era("tools/list", &json!({})).unwrap_err().unwrap();
        assert_eq!(err.code, INVALID_REQUEST);
        assert_eq!(server.select_era("initialize", &json!({})).unwrap(), Era::Legacy);
        server.set_legacy_version("2025-11-25");
        assert_eq!(server.select_era("tools/list", &json!({})).unwrap(), Era::Legacy);
    }

    #[test]
    fn silent_legacy_discover() {
        let cfg = Config {
            protocol: ProtocolMode::Legacy("2025-06-18"),
            silent_discover: true,
            ..Config::default()
        };
        let server = Server::new(cfg);
        assert!(server.select_era("server/discover", &meta_params(MODERN_VERSION)).unwrap_err().is_none());
        assert!(server.select_era("ping", &json!({})).unwrap_err().is_none());
        assert_eq!(server.select_era("initialize", &json!({})).unwrap(), Era::Legacy);
    }
}
