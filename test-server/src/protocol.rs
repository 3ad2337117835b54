//! JSON-RPC framing, protocol constants and the serialized stdout writer.

use std::io::{self, Write};
use std::sync::Mutex;

use serde_json::{json, Map, Value};

/// The modern (per-request `_meta`) protocol revision.
pub const MODERN_VERSION: &str = "2026-07-28";
/// Legacy (initialize-based) revisions, newest first.
pub const LEGACY_VERSIONS: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
/// `_meta` key naming the `subscriptions/listen` request a message belongs to.
pub const META_SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
/// `_meta` key tying a 2025-11-25 message to a task (`{"taskId": ..}`).
pub const META_RELATED_TASK: &str = "io.modelcontextprotocol/related-task";
/// The 2026-07-28 tasks extension's identifier (capability key and `clientCapabilities` key).
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";
/// Prefix of the `_meta` keys reserved by the protocol itself.
pub const META_RESERVED_PREFIX: &str = "io.modelcontextprotocol/";

pub const SERVER_NAME: &str = "mcp-test-server";
pub const SERVER_VERSION: &str = "0.1.0";

pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INVALID_PARAMS: i64 = -32602;
pub const RESOURCE_NOT_FOUND: i64 = -32002;
pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i64 = -32021;
pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

/// `{"name":"mcp-test-server","version":"0.1.0"}`.
pub fn server_info() -> Value {
    json!({"name": SERVER_NAME, "version": SERVER_VERSION})
}

/// The protocol era a single request is served in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Era {
    Modern,
    Legacy,
}

/// A JSON-RPC error object.
#[derive(Debug, Clone)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
    pub data: Option<Value>,
}

impl RpcError {
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        RpcError { code, message: message.into(), data: None }
    }

    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    pub fn invalid_params(message: impl Into<String>) -> Self {
        RpcError::new(INVALID_PARAMS, message)
    }

    pub fn method_not_found(method: &str) -> Self {
        RpcError::new(METHOD_NOT_FOUND, "Method not found").with_data(json!({ "method": method }))
    }

    pub fn to_value(&self) -> Value {
        let mut obj = Map::new();
        obj.insert("code".into(), json!(self.code));
        obj.insert("message".into(), json!(self.message));
        if let Some(data) = &self.data {
            obj.insert("data".into(), data.clone());
        }
        Value::Object(obj)
    }
}

/// Result of handling a request: a result object or a JSON-RPC error.
pub type Reply = Result<Value, RpcError>;

/// A stable map key for a JSON-RPC id (`"abc"` and `7` stay distinct).
pub fn id_key(id: &Value) -> String {
    id.to_string()
}

/// The compact JSON text of a value.
pub fn compact(value: &Value) -> String {
    value.to_string()
}

/// Serialized writer for stdout: every message is one line, written and
/// flushed while holding the lock, so concurrent threads never interleave.
pub struct Output {
    stdout: Mutex<Box<dyn Write + Send>>,
}

impl std::fmt::Debug for Output {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Output").finish_non_exhaustive()
    }
}

impl Output {
    pub fn new() -> Self {
        Output { stdout: Mutex::new(Box::new(io::stdout())) }
    }

    /// Stdout with long lines written 64 KiB at a time, `pause` apart (`--slow-write-ms`).
    pub fn paced(pause: std::time::Duration) -> Self {
        Output { stdout: Mutex::new(Box::new(crate::process_faults::Paced::new(io::stdout(), pause))) }
    }

    /// An output writing into a shared buffer instead of stdout.
    #[cfg(test)]
    pub fn capture() -> (Self, std::sync::Arc<Mutex<Vec<u8>>>) {
        #[derive(Clone)]
        struct Shared(std::sync::Arc<Mutex<Vec<u8>>>);
        impl Write for Shared {
            fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(buf);
                Ok(buf.len())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let buffer = std::sync::Arc::new(Mutex::new(Vec::new()));
        (Output { stdout: Mutex::new(Box::new(Shared(buffer.clone()))) }, buffer)
    }

    /// Writes one raw line (a newline is appended). Write errors (a closed
    /// pipe) are ignored: the reader side decides when the server stops.
    pub fn write_line(&self, line: &str) {
        let mut out = self.stdout.lock().unwrap_or_else(|e| e.into_inner());
        let _ = out.write_all(line.as_bytes()).and_then(|()| out.write_all(b"\n")).and_then(|()| out.flush());
    }

    /// Writes a block of complete lines (each already ending in a newline)
    /// with one lock, one write and one flush.
    pub fn write_lines(&self, block: &str) {
        if block.is_empty() {
            return;
        }
        let mut out = self.stdout.lock().unwrap_or_else(|e| e.into_inner());
        let _ = out.write_all(block.as_bytes()).and_then(|()| out.flush());
    }

    // The envelopes are assembled by hand so that `jsonrpc` and `id` come
    // first regardless of serde_json's map ordering.

    pub fn send_result(&self, id: &Value, result: &Value) {
        self.write_line(&format!(r#"{{"jsonrpc":"2.0","id":{},"result":{}}}"#, compact(id), compact(result)));
    }

    pub fn send_error(&self, id: &Value, error: &RpcError) {
        self.write_line(&format!(
            r#"{{"jsonrpc":"2.0","id":{},"error":{}}}"#,
            compact(id),
            compact(&error.to_value())
        ));
    }

    pub fn send_reply(&self, id: &Value, reply: &Reply) {
        match reply {
            Ok(result) => self.send_result(id, result),
            Err(error) => self.send_error(id, error),
        }
    }

    /// Sends a notification; `params` is omitted from the line when `None`.
    pub fn send_notification(&self, method: &str, params: Option<&Value>) {
        self.write_line(&envelope(None, method, params));
    }

    /// Sends a server-to-client request.
    pub fn send_request(&self, id: &str, method: &str, params: Option<&Value>) {
        self.write_line(&envelope(Some(&json!(id)), method, params));
    }

    pub fn send_parse_error(&self) {
        self.send_error(&Value::Null, &RpcError::new(PARSE_ERROR, "Parse error"));
    }
}

/// The line of a notification (without its newline).
pub fn notification_line(method: &str, params: Option<&Value>) -> String {
    envelope(None, method, params)
}

/// `{"jsonrpc":"2.0"[,"id":..],"method":..[,"params":..]}` in that order.
fn envelope(id: Option<&Value>, method: &str, params: Option<&Value>) -> String {
    let mut line = String::from(r#"{"jsonrpc":"2.0""#);
    if let Some(id) = id {
        line.push_str(&format!(r#","id":{}"#, compact(id)));
    }
    line.push_str(&format!(r#","method":{}"#, compact(&json!(method))));
    if let Some(params) = params {
        line.push_str(&format!(r#","params":{}"#, compact(params)));
    }
    line.push('}');
    line
}

/// Adds the modern-era result fields: `resultType` (`"complete"` unless the
/// result has one, like a task's `"task"`), plus the caching fields
/// `ttlMs`/`cacheScope` when `cacheable`.
pub fn decorate_modern(mut result: Value, cacheable: bool) -> Value {
    if let Value::Object(obj) = &mut result {
        obj.entry("resultType").or_insert_with(|| json!("complete"));
        if cacheable {
            obj.insert("ttlMs".into(), json!(0));
            obj.insert("cacheScope".into(), json!("private"));
        }
    }
    result
}

/// A `tools/call` result holding one text block.
pub fn text_result(text: impl Into<String>) -> Value {
    json!({"content": [{"type": "text", "text": text.into()}]})
}

/// A `tools/call` result holding one text block, flagged `isError`.
pub fn error_result(text: impl Into<String>) -> Value {
    json!({"content": [{"type": "text", "text": text.into()}], "isError": true})
}

/// `params._meta` of a request, if it is an object.
pub fn request_meta(params: &Value) -> Option<&Map<String, Value>> {
    params.get("_meta").and_then(Value::as_object)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decorate_adds_fields() {
        let v = decorate_modern(json!({"tools": []}), true);
        assert_eq!(v["resultType"], "complete");
        assert_eq!(v["ttlMs"], 0);
        assert_eq!(v["cacheScope"], "private");
        let v = decorate_modern(json!({}), false);
        assert!(v.get("ttlMs").is_none());
        let v = decorate_modern(json!({"resultType": "task"}), false);
        assert_eq!(v["resultType"], "task");
    }

    #[test]
    fn error_value_shape() {
        let e = RpcError::new(-32050, "custom failure").with_data(json!({"why": "asked"}));
        assert_eq!(
            e.to_value(),
            json!({"code": -32050, "message": "custom failure", "data": {"why": "asked"}})
        );
    }

    #[test]
    fn id_keys_distinguish_types() {
        assert_ne!(id_key(&json!(1)), id_key(&json!("1")));
    }
}
