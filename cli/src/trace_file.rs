//! `--trace FILE`: the wire trace as JSON lines, one object per record, written (and flushed)
//! as each record arrives, so a crash still leaves what happened before it. The file is
//! created with mode 0600 on Unix; credentials are already redacted by the library.
//!
//! Every line has `ts` (RFC 3339, UTC, milliseconds), `server`, `dir` (`send`, `recv` or
//! `event`) and `kind`, then the kind's own fields:
//!
//! - `message` (`send` / `recv`): `message`, the JSON-RPC message (or `text` when it is not
//!   JSON);
//! - `process_start`: `epoch`, `program`, `args`; `process_exit`: `epoch`, `code`, `signal`;
//!   `spawn_failed`: `epoch`, `error`;
//! - `http_request`: `exchange`, `method`, `url`, `headers`; `http_response`: `exchange`,
//!   `status`, `headers`; `http_failed`: `exchange`, `error`.

use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use mcpwire_tokio::WireRecord;
use serde_json::{json, Map, Value};

/// The open trace file, shared by every server's callback.
#[derive(Clone)]
pub struct TraceFile(Arc<Mutex<File>>);

impl std::fmt::Debug for TraceFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TraceFile")
    }
}

impl TraceFile {
    /// Creates (or truncates) `path`, readable by its owner only.
    pub fn create(path: &Path) -> std::io::Result<Self> {
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let file = options.open(path)?;
        // An existing file keeps its mode through `open`: narrow it too.
        #[cfg(unix)]
        std::fs::set_permissions(path, std::os::unix::fs::PermissionsExt::from_mode(0o600))?;
        Ok(Self(Arc::new(Mutex::new(file))))
    }

    /// Writes one record as one line. A failed write is dropped: the command goes on.
    pub fn write(&self, server: &str, at: SystemTime, record: &WireRecord) {
        let mut line = line(server, at, record);
        line.push('\n');
        let mut file = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let _ = file.write_all(line.as_bytes()).and_then(|()| file.flush());
    }
}

/// One record as its JSON line, without the newline (see the module docs): `ts`, `server`,
/// `dir` and `kind` first, then the kind's fields.
pub fn line(server: &str, at: SystemTime, record: &WireRecord) -> String {
    let mut out = format!(
        "{{\"ts\":{},\"server\":{},\"dir\":{},\"kind\":{}",
        Value::from(rfc3339_millis(at)),
        Value::from(server),
        Value::from(record.direction()),
        Value::from(record.kind())
    );
    let fields = match record {
        WireRecord::Sent { message, .. } | WireRecord::Received { message, .. } => {
            match serde_json::from_str::<Value>(message) {
                Ok(value) => json!({"message": value}),
                Err(_) => json!({"text": message}),
            }
        }
        WireRecord::ProcessStart { epoch, program, args } => {
            json!({"epoch": epoch.get(), "program": program, "args": args})
        }
        WireRecord::ProcessExit { epoch, status } => {
            json!({"epoch": epoch.get(), "code": status.code, "signal": status.signal})
        }
        WireRecord::SpawnFailed { epoch, error } => json!({"epoch": epoch.get(), "error": error}),
        WireRecord::HttpRequest { exchange, method, url, headers } => {
            json!({"exchange": exchange.get(), "method": method.as_str(), "url": url, "headers": pairs(headers)})
        }
        WireRecord::HttpResponse { exchange, status, headers } => {
            json!({"exchange": exchange.get(), "status": status, "headers": pairs(headers)})
        }
        WireRecord::HttpFailed { exchange, error } => json!({"exchange": exchange.get(), "error": error}),
        other => json!({"detail": format!("{other:?}")}),
    };
    if let Value::Object(fields) = fields {
        for (name, value) in fields {
            out.push_str(&format!(",{}:{value}", Value::from(name)));
        }
    }
    out.push('}');
    out
}

/// Headers as an object (a repeated header's values joined with `, `).
fn pairs(headers: &[(String, String)]) -> Value {
    let mut out = Map::new();
    for (name, value) in headers {
        match out.get_mut(name) {
            Some(Value::String(seen)) => {
                seen.push_str(", ");
                seen.push_str(value);
            }
            _ => {
                out.insert(name.clone(), value.clone().into());
            }
        }
    }
    Value::Object(out)
}

/// `2025-01-31T12:34:56.789Z` (humantime: RFC 3339 in UTC, no date arithmetic of our own).
fn rfc3339_millis(at: SystemTime) -> String {
    humantime::format_rfc3339_millis(at).to_string()
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, UNIX_EPOCH};

    use super::*;

    #[test]
    fn timestamps_are_rfc3339_with_milliseconds() {
        assert_eq!(rfc3339_millis(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        let at = UNIX_EPOCH + Duration::from_millis(1_709_210_096_789);
        assert_eq!(rfc3339_millis(at), "2024-02-29T12:34:56.789Z");
        let at = UNIX_EPOCH + Duration::from_secs(951_782_400);
        assert_eq!(rfc3339_millis(at), "2000-02-29T00:00:00.000Z");
    }

    #[test]
    fn a_line_carries_the_message_as_json() {
        let record =
            WireRecord::Sent { epoch: first_epoch(), message: r#"{"jsonrpc":"2.0","method":"x"}"#.into() };
        let line = line("s", UNIX_EPOCH, &record);
        assert!(line.starts_with(r#"{"ts":"1970-01-01T00:00:00.000Z","server":"s","dir":"send""#), "{line}");
        assert_eq!(
            serde_json::from_str::<Value>(&line).unwrap(),
            json!({"ts": "1970-01-01T00:00:00.000Z", "server": "s", "dir": "send", "kind": "message",
                   "message": {"jsonrpc": "2.0", "method": "x"}})
        );
        let text = WireRecord::Received { epoch: first_epoch(), message: "not json".into() };
        assert_eq!(line_of(&text)["text"], "not json");
    }

    fn line_of(record: &WireRecord) -> Value {
        serde_json::from_str(&line("s", UNIX_EPOCH, record)).expect("a JSON line")
    }

    /// An epoch, as the library hands them out (records are only made by a connection).
    fn first_epoch() -> mcpwire_tokio::Epoch {
        mcp_tests::support::an_epoch()
    }
}
