//! JSON-RPC 2.0 message codec.
//!
//! Decoding classifies every input totally: a request, a notification, a response, or an
//! invalid message with a reason (never a panic). Ids of any JSON type are preserved exactly
//! (`1` and `"1"` are different ids). Encoding is compact single-line JSON: a string containing a
//! newline is escaped by the serializer, so an encoded message never holds a raw `\n`.

use serde_json::{Map, Value};

/// A JSON-RPC id as it appeared on the wire (any JSON value except `null` in a request).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct WireId(String);

impl WireId {
    /// The id of an integer.
    pub fn from_int(n: u64) -> Self {
        WireId(n.to_string())
    }

    /// The id carried by a JSON value (compared by its compact serialization, so types differ).
    pub fn from_value(v: &Value) -> Self {
        WireId(v.to_string())
    }

    /// The id as a JSON value.
    pub fn to_value(&self) -> Value {
        serde_json::from_str(&self.0).unwrap_or(Value::Null)
    }

    /// The id as the compact JSON text it was received as.
    pub fn as_json(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for WireId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The `error` member of a JSON-RPC error response.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcErrorObject {
    /// The error code.
    pub code: i64,
    /// The error message.
    pub message: String,
    /// Optional structured data.
    pub data: Option<Value>,
}

/// A decoded JSON-RPC message.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// A request: it expects a response with the same id.
    Request {
        /// The request id.
        id: WireId,
        /// The method name.
        method: String,
        /// The params (absent params are `Value::Null`).
        params: Value,
    },
    /// A notification: no response.
    Notification {
        /// The method name.
        method: String,
        /// The params (absent params are `Value::Null`).
        params: Value,
    },
    /// A successful response.
    Result {
        /// The id of the request answered.
        id: WireId,
        /// The result value.
        result: Value,
    },
    /// An error response. `id` is `None` when the peer sent `"id": null` (e.g. a parse error).
    Error {
        /// The id of the request answered, if any.
        id: Option<WireId>,
        /// The error object.
        error: RpcErrorObject,
    },
}

/// Why a JSON text is not a JSON-RPC message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// Not JSON at all.
    #[error("not JSON: {0}")]
    NotJson(String),
    /// JSON, but not a JSON-RPC object.
    #[error("not a JSON-RPC message: {0}")]
    Invalid(&'static str),
}

/// Decodes one JSON text. A JSON array (a batch, legal in 2025-03-26) yields each element.
pub fn decode(bytes: &[u8]) -> Vec<Result<Message, DecodeError>> {
    match serde_json::from_slice::<Value>(bytes) {
        Err(e) => vec![Err(DecodeError::NotJson(e.to_string()))],
        Ok(Value::Array(items)) if !items.is_empty() => items.into_iter().map(classify).collect(),
        Ok(Value::Array(_)) => vec![Err(DecodeError::Invalid("empty batch"))],
        Ok(v) => vec![classify(v)],
    }
}

/// Classifies one decoded JSON value.
pub fn classify(value: Value) -> Result<Message, DecodeError> {
    let Value::Object(mut obj) = value else {
        return Err(DecodeError::Invalid("not an object"));
    };
    let id = obj.remove("id");
    if let Some(method) = obj.remove("method") {
        let Value::String(method) = method else {
            return Err(DecodeError::Invalid("method is not a string"));
        };
        let params = obj.remove("params").unwrap_or(Value::Null);
        return Ok(match id {
            None => Message::Notification { method, params },
            Some(Value::Null) => return Err(DecodeError::Invalid("request id is null")),
            Some(id) => Message::Request { id: WireId::from_value(&id), method, params },
        });
    }
    if let Some(result) = obj.remove("result") {
        return match id {
            Some(id) if !id.is_null() => Ok(Message::Result { id: WireId::from_value(&id), result }),
            _ => Err(DecodeError::Invalid("result without an id")),
        };
    }
    if let Some(error) = obj.remove("error") {
        let id = match id {
            Some(Value::Null) | None => None,
            Some(id) => Some(WireId::from_value(&id)),
        };
        return Ok(Message::Error { id, error: parse_error_object(error) });
    }
    Err(DecodeError::Invalid("neither a request, a notification nor a response"))
}

/// A malformed `error` member is kept as an internal error carrying the raw value, so the
/// request it answers still gets an outcome.
fn parse_error_object(error: Value) -> RpcErrorObject {
    let Value::Object(mut e) = error else {
        return RpcErrorObject { code: -32603, message: "malformed error object".into(), data: Some(error) };
    };
    let code = e.get("code").and_then(Value::as_i64);
    let message = e.get("message").and_then(Value::as_str).map(str::to_owned);
    match (code, message) {
        (Some(code), Some(message)) => RpcErrorObject { code, message, data: e.remove("data") },
        (code, message) => RpcErrorObject {
            code: code.unwrap_or(-32603),
            message: message.unwrap_or_else(|| "malformed error object".into()),
            data: Some(Value::Object(e)),
        },
    }
}

/// Writes one message as a compact, newline-terminated line, with members in the same
/// (alphabetical) order a `serde_json` map would give them, straight from borrowed parts (no
/// intermediate JSON value, no copy of the params or result).
struct Line(Vec<u8>);

impl Line {
    fn new() -> Self {
        let mut out = Vec::with_capacity(128);
        out.push(b'{');
        Self(out)
    }

    fn member(&mut self, name: &str) {
        if self.0.len() > 1 {
            self.0.push(b',');
        }
        self.0.push(b'"');
        self.0.extend_from_slice(name.as_bytes());
        self.0.extend_from_slice(b"\":");
    }

    fn value<T: serde::Serialize + ?Sized>(&mut self, name: &str, value: &T) {
        self.member(name);
        // Values and strings always serialise.
        let _ = serde_json::to_writer(&mut self.0, value);
    }

    fn id(&mut self, id: &WireId) {
        self.member("id");
        self.0.extend_from_slice(id.as_json().as_bytes());
    }

    fn version(&mut self) {
        self.member("jsonrpc");
        self.0.extend_from_slice(b"\"2.0\"");
    }

    fn finish(mut self) -> Vec<u8> {
        self.0.push(b'}');
        debug_assert!(!self.0.contains(&b'\n'), "compact JSON never holds a raw newline");
        self.0.push(b'\n');
        self.0
    }
}

/// Encodes a request as one newline-terminated line.
pub fn encode_request(id: &WireId, method: &str, params: Option<&Value>) -> Vec<u8> {
    let mut line = Line::new();
    line.id(id);
    line.version();
    line.value("method", method);
    if let Some(p) = params {
        line.value("params", p);
    }
    line.finish()
}

/// Encodes a notification as one newline-terminated line.
pub fn encode_notification(method: &str, params: Option<&Value>) -> Vec<u8> {
    let mut line = Line::new();
    line.version();
    line.value("method", method);
    if let Some(p) = params {
        line.value("params", p);
    }
    line.finish()
}

/// Encodes a successful response as one newline-terminated line.
pub fn encode_result(id: &WireId, result: &Value) -> Vec<u8> {
    let mut line = Line::new();
    line.id(id);
    line.version();
    line.value("result", result);
    line.finish()
}

/// Encodes an error response as one newline-terminated line.
pub fn encode_error(id: &WireId, code: i64, message: &str, data: Option<&Value>) -> Vec<u8> {
    let mut err = Map::new();
    err.insert("code".into(), Value::from(code));
    err.insert("message".into(), Value::String(message.into()));
    if let Some(d) = data {
        err.insert("data".into(), d.clone());
    }
    let mut line = Line::new();
    line.value("error", &err);
    line.id(id);
    line.version();
    line.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn one(s: &str) -> Result<Message, DecodeError> {
        decode(s.as_bytes()).remove(0)
    }

    /// The line writer gives exactly what serialising the whole message as a JSON map gives.
    #[test]
    fn encoders_match_a_serialised_map() {
        let as_map = |v: Value| {
            let mut out = serde_json::to_vec(&v).unwrap();
            out.push(b'\n');
            out
        };
        let params = json!({"name": "e\"cho\n", "arguments": {"z": [1, 2.5, null], "a": "\u{1b}é"}});
        for id in [WireId::from_value(&json!(7)), WireId::from_value(&json!("req-\"1\""))] {
            let idv = id.to_value();
            assert_eq!(
                encode_request(&id, "tools/call", Some(&params)),
                as_map(json!({"jsonrpc": "2.0", "id": idv, "method": "tools/call", "params": params}))
            );
            assert_eq!(
                encode_request(&id, "ping", None),
                as_map(json!({"jsonrpc": "2.0", "id": idv, "method": "ping"}))
            );
            assert_eq!(
                encode_result(&id, &params),
                as_map(json!({"jsonrpc": "2.0", "id": idv, "result": params}))
            );
            assert_eq!(
                encode_error(&id, -32601, "no \"such\" method", Some(&params)),
                as_map(json!({"jsonrpc": "2.0", "id": idv,
                    "error": {"code": -32601, "message": "no \"such\" method", "data": params}}))
            );
        }
        assert_eq!(
            encode_notification("notifications/progress", Some(&params)),
            as_map(json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": params}))
        );
        assert_eq!(encode_notification("n", None), as_map(json!({"jsonrpc": "2.0", "method": "n"})));
    }

    #[test]
    fn classifies_every_kind() {
        assert!(matches!(one(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#), Ok(Message::Request { .. })));
        assert!(matches!(one(r#"{"jsonrpc":"2.0","method":"n"}"#), Ok(Message::Notification { .. })));
        assert!(matches!(one(r#"{"jsonrpc":"2.0","id":"a","result":{}}"#), Ok(Message::Result { .. })));
        assert!(matches!(
            one(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#),
            Ok(Message::Error { id: None, .. })
        ));
        assert!(matches!(one("not json"), Err(DecodeError::NotJson(_))));
        assert!(matches!(one("[]"), Err(DecodeError::Invalid(_))));
        assert!(matches!(one("3"), Err(DecodeError::Invalid(_))));
        assert!(matches!(one(r#"{"id":1}"#), Err(DecodeError::Invalid(_))));
        assert!(matches!(one(r#"{"id":null,"method":"x"}"#), Err(DecodeError::Invalid(_))));
        assert!(matches!(one(r#"{"method":5}"#), Err(DecodeError::Invalid(_))));
    }

    #[test]
    fn ids_keep_their_json_type() {
        let Ok(Message::Result { id: a, .. }) = one(r#"{"id":1,"result":1}"#) else { panic!() };
        let Ok(Message::Result { id: b, .. }) = one(r#"{"id":"1","result":1}"#) else { panic!() };
        assert_ne!(a, b);
        assert_eq!(a, WireId::from_int(1));
        assert_eq!(b.to_value(), json!("1"));
    }

    #[test]
    fn malformed_error_object_still_answers() {
        let Ok(Message::Error { id: Some(id), error }) = one(r#"{"id":7,"error":"boom"}"#) else { panic!() };
        assert_eq!(id, WireId::from_int(7));
        assert_eq!(error.code, -32603);
        assert_eq!(error.data, Some(json!("boom")));
    }

    #[test]
    fn batch_yields_each_element() {
        let out = decode(br#"[{"method":"a"},{"id":2,"result":null},5]"#);
        assert_eq!(out.len(), 3);
        assert!(out[2].is_err());
    }

    #[test]
    fn encoding_is_one_line_and_round_trips() {
        let params = json!({"text": "line1\nline2\r\u{2028}"});
        let bytes = encode_request(&WireId::from_int(3), "tools/call", Some(&params));
        assert_eq!(bytes.iter().filter(|&&b| b == b'\n').count(), 1);
        assert_eq!(*bytes.last().unwrap(), b'\n');
        let Ok(Message::Request { id, method, params: p }) = one(std::str::from_utf8(&bytes).unwrap()) else {
            panic!()
        };
        assert_eq!((id, method.as_str(), p), (WireId::from_int(3), "tools/call", params));
        let e = encode_error(&WireId::from_value(&json!("x")), -32601, "nope", None);
        assert!(matches!(one(std::str::from_utf8(&e).unwrap()), Ok(Message::Error { .. })));
    }
}
