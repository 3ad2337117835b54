//! JSON-RPC 2.0 message codec.
//!
//! Decoding classifies every input totally: a request, a notification, a response, or an
//! invalid message with a reason (never a panic). Ids of any JSON type are preserved exactly
//! (`1` and `"1"` are different ids). Encoding is compact single-line JSON: a string containing a
//! newline is escaped by the serializer, so an encoded message never holds a raw `\n`.

use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// A JSON-RPC id as it appeared on the wire (any JSON value except `null` in a request),
/// compared by its compact JSON text, so types differ (`1` and `"1"` are different ids).
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct WireId(IdRepr);

/// A non-negative integer (every id this client sends) as the number, anything else as its
/// compact JSON text: one canonical form per id, so equality is that of the texts.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum IdRepr {
    Int(u64),
    Json(String),
}

impl WireId {
    /// The id of an integer.
    pub fn from_int(n: u64) -> Self {
        WireId(IdRepr::Int(n))
    }

    /// The id carried by a JSON value (compared by its compact serialization, so types differ).
    pub fn from_value(v: &Value) -> Self {
        match v {
            Value::Number(n) => match n.as_u64() {
                Some(u) => WireId(IdRepr::Int(u)),
                None => WireId(IdRepr::Json(n.to_string())),
            },
            // The common string ids, without the serializer: no escape needed.
            Value::String(s) if !s.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20) => {
                let mut text = String::with_capacity(s.len() + 2);
                text.push('"');
                text.push_str(s);
                text.push('"');
                WireId(IdRepr::Json(text))
            }
            _ => WireId(IdRepr::Json(v.to_string())),
        }
    }

    /// The id as a JSON value.
    pub fn to_value(&self) -> Value {
        match &self.0 {
            IdRepr::Int(n) => Value::from(*n),
            IdRepr::Json(text) => serde_json::from_str(text).unwrap_or(Value::Null),
        }
    }

    /// The id as the compact JSON text it was received as.
    pub fn as_json(&self) -> std::borrow::Cow<'_, str> {
        match &self.0 {
            IdRepr::Int(n) => n.to_string().into(),
            IdRepr::Json(text) => text.as_str().into(),
        }
    }

    /// The id as an integer, when it is a non-negative integer (every id this client sends is
    /// one, from [`WireId::from_int`]).
    pub fn as_int(&self) -> Option<u64> {
        match self.0 {
            IdRepr::Int(n) => Some(n),
            IdRepr::Json(_) => None,
        }
    }
}

impl std::fmt::Display for WireId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            IdRepr::Int(n) => write!(f, "{n}"),
            IdRepr::Json(text) => f.write_str(text),
        }
    }
}

impl std::fmt::Debug for WireId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("WireId").field(&self.as_json()).finish()
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
        /// The result, as JSON text.
        result: ResultJson,
    },
    /// An error response. `id` is `None` when the peer sent `"id": null` (e.g. a parse error).
    Error {
        /// The id of the request answered, if any.
        id: Option<WireId>,
        /// The error object.
        error: RpcErrorObject,
    },
}

/// The `result` member of a response as received: its JSON text, parsed by whoever reads it
/// (a tool result decodes straight from it, without a tree of the whole result).
#[derive(Clone)]
pub struct ResultJson(Box<RawValue>);

impl ResultJson {
    /// The result of a value (written out as compact JSON).
    pub fn from_value(value: &Value) -> Self {
        // A value always serialises, and its text is valid JSON.
        Self(serde_json::value::to_raw_value(value).unwrap_or_else(|_| RawValue::NULL.to_owned()))
    }

    /// The result of a JSON text.
    pub fn from_raw(text: Box<RawValue>) -> Self {
        Self(text)
    }

    /// The JSON text.
    pub fn as_raw(&self) -> &RawValue {
        &self.0
    }

    /// The JSON text, by value.
    pub fn into_raw(self) -> Box<RawValue> {
        self.0
    }

    /// The result parsed into a JSON value.
    pub fn to_value(&self) -> Value {
        // The text was checked as JSON when it was captured.
        serde_json::from_str(self.0.get()).unwrap_or(Value::Null)
    }
}

impl PartialEq for ResultJson {
    /// Equal when the JSON values are (whitespace and member order aside).
    fn eq(&self, other: &Self) -> bool {
        self.to_value() == other.to_value()
    }
}

impl std::fmt::Debug for ResultJson {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("ResultJson").field(&self.0.get()).finish()
    }
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
    if let Some(message) = decode_object(bytes) {
        return vec![message];
    }
    match serde_json::from_slice::<Value>(bytes) {
        Err(e) => vec![Err(DecodeError::NotJson(e.to_string()))],
        Ok(Value::Array(items)) if !items.is_empty() => items.into_iter().map(classify).collect(),
        Ok(Value::Array(_)) => vec![Err(DecodeError::Invalid("empty batch"))],
        Ok(v) => vec![classify(v)],
    }
}

/// The members of one message that its classification reads; the rest is skipped unparsed.
#[derive(serde::Deserialize)]
struct Envelope {
    #[serde(default, deserialize_with = "present")]
    id: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    method: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    params: Option<Value>,
    #[serde(default, deserialize_with = "present_text")]
    result: Option<Box<RawValue>>,
    #[serde(default, deserialize_with = "present")]
    error: Option<Value>,
}

/// A member that is present, even as `null`, is `Some`, kept as its JSON text.
fn present_text<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Box<RawValue>>, D::Error> {
    <Box<RawValue> as serde::Deserialize>::deserialize(d).map(Some)
}

/// A member that is present, even as `null`, is `Some`.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    <Value as serde::Deserialize>::deserialize(d).map(Some)
}

/// The fast path of [`decode`] for a single object: its members straight into a message,
/// without a JSON object for the envelope. `None` (the general path decides) for anything
/// else: a batch, a non-object, invalid JSON, or a repeated member (the general path keeps
/// the last, as a JSON object does).
fn decode_object(bytes: &[u8]) -> Option<Result<Message, DecodeError>> {
    let first = bytes.iter().find(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))?;
    if *first != b'{' {
        return None;
    }
    let env: Envelope = serde_json::from_slice(bytes).ok()?;
    let result = env.result.map(ResultJson);
    Some(assemble(IdMember::of(env.id), env.method, env.params, result, env.error))
}

/// One pass over a response that names its id before its `result`: when `wanted` says the id
/// is one whose result is worth decoding straight into `T`, the result is decoded as the
/// bytes are read, with no JSON text or tree of it in between. `None` (the caller decodes the
/// message as usual, with [`decode`]) for anything else: not a single object, a member other
/// than `jsonrpc`, `id` and `result`, a repeated member, `result` before `id`, an id `wanted`
/// refuses, or a result `T` does not take.
pub(crate) fn decode_answer<'de, T: serde::Deserialize<'de>>(
    bytes: &'de [u8],
    wanted: &dyn Fn(&WireId) -> bool,
) -> Option<(WireId, T)> {
    // Checked as UTF-8 once, not string by string as a byte-slice reader would.
    let mut de = serde_json::Deserializer::from_str(std::str::from_utf8(bytes).ok()?);
    let answer =
        serde::de::DeserializeSeed::deserialize(Answer { wanted, result: std::marker::PhantomData }, &mut de);
    de.end().ok()?;
    answer.ok()
}

/// The visitor of [`decode_answer`].
struct Answer<'w, T> {
    wanted: &'w dyn Fn(&WireId) -> bool,
    result: std::marker::PhantomData<T>,
}

impl<'de, T: serde::Deserialize<'de>> serde::de::DeserializeSeed<'de> for Answer<'_, T> {
    type Value = (WireId, T);

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de, T: serde::Deserialize<'de>> serde::de::Visitor<'de> for Answer<'_, T> {
    type Value = (WireId, T);

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a response naming its id before its result")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        use serde::de::Error;
        let (mut jsonrpc, mut id, mut result) = (false, None, None);
        while let Some(key) = map.next_key::<&str>()? {
            match key {
                // Not read by the general path either; kept once, as there.
                "jsonrpc" if !jsonrpc => {
                    jsonrpc = true;
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
                "id" if id.is_none() => match map.next_value::<Value>()? {
                    Value::Null => return Err(A::Error::custom("null id")),
                    v => id = Some(WireId::from_value(&v)),
                },
                "result" if result.is_none() => match &id {
                    Some(id) if (self.wanted)(id) => result = Some(map.next_value::<T>()?),
                    _ => return Err(A::Error::custom("not an answer decoded in one pass")),
                },
                _ => return Err(A::Error::custom("a member the one-pass decode leaves to the general path")),
            }
        }
        match (id, result) {
            (Some(id), Some(result)) => Ok((id, result)),
            _ => Err(A::Error::custom("not a response")),
        }
    }
}

/// The `id` member of a message.
enum IdMember {
    Absent,
    Null,
    Id(WireId),
}

impl IdMember {
    fn of(id: Option<Value>) -> Self {
        match id {
            None => IdMember::Absent,
            Some(Value::Null) => IdMember::Null,
            Some(id) => IdMember::Id(WireId::from_value(&id)),
        }
    }
}

/// Classifies one decoded JSON value.
pub fn classify(value: Value) -> Result<Message, DecodeError> {
    let Value::Object(mut obj) = value else {
        return Err(DecodeError::Invalid("not an object"));
    };
    let id = IdMember::of(obj.remove("id"));
    let method = obj.remove("method");
    let params = obj.remove("params");
    let result = obj.remove("result").map(|r| ResultJson::from_value(&r));
    let error = obj.remove("error");
    assemble(id, method, params, result, error)
}

/// A message from its members (`None`: absent).
fn assemble(
    id: IdMember,
    method: Option<Value>,
    params: Option<Value>,
    result: Option<ResultJson>,
    error: Option<Value>,
) -> Result<Message, DecodeError> {
    if let Some(method) = method {
        let Value::String(method) = method else {
            return Err(DecodeError::Invalid("method is not a string"));
        };
        let params = params.unwrap_or(Value::Null);
        return match id {
            IdMember::Absent => Ok(Message::Notification { method, params }),
            IdMember::Null => Err(DecodeError::Invalid("request id is null")),
            IdMember::Id(id) => Ok(Message::Request { id, method, params }),
        };
    }
    if let Some(result) = result {
        return match id {
            IdMember::Id(id) => Ok(Message::Result { id, result }),
            _ => Err(DecodeError::Invalid("result without an id")),
        };
    }
    if let Some(error) = error {
        let id = match id {
            IdMember::Id(id) => Some(id),
            IdMember::Absent | IdMember::Null => None,
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
        match &id.0 {
            // An integer always serialises.
            IdRepr::Int(n) => {
                let _ = serde_json::to_writer(&mut self.0, n);
            }
            IdRepr::Json(text) => self.0.extend_from_slice(text.as_bytes()),
        }
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

/// Encodes a `tools/call` request whose params are just the tool's name and arguments (no
/// `_meta`, no `task`) as one newline-terminated line: the bytes [`encode_request`] gives for
/// the params object `{"arguments": arguments, "name": name}` (`{}` for no arguments), with
/// no params value built.
pub fn encode_call(id: &WireId, name: &str, arguments: Option<&Map<String, Value>>) -> Vec<u8> {
    let mut line = Line::new();
    line.id(id);
    line.version();
    line.value("method", "tools/call");
    line.member("params");
    line.0.extend_from_slice(b"{\"arguments\":");
    match arguments {
        Some(args) => {
            let _ = serde_json::to_writer(&mut line.0, args);
        }
        None => line.0.extend_from_slice(b"{}"),
    }
    line.0.extend_from_slice(b",\"name\":");
    let _ = serde_json::to_writer(&mut line.0, name);
    line.0.push(b'}');
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
    fn a_plain_call_encodes_as_its_params_object() {
        let id = WireId::from_int(12);
        let args = json!({"text": "hi\n\"there\"", "n": [1, {"b": null, "a": 2.5}]});
        let Value::Object(map) = args.clone() else { panic!() };
        for name in ["echo", "we\"ird\u{7}"] {
            assert_eq!(
                encode_call(&id, name, Some(&map)),
                encode_request(&id, "tools/call", Some(&json!({"arguments": args, "name": name})))
            );
            assert_eq!(
                encode_call(&id, name, None),
                encode_request(&id, "tools/call", Some(&json!({"arguments": {}, "name": name})))
            );
        }
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

    /// An id reads, compares, prints and encodes as its compact JSON text, whatever form it
    /// is kept in.
    #[test]
    fn ids_are_their_json_text() {
        let cases = [
            ("0", "0"),
            ("-0", "-0.0"),
            ("7", "7"),
            ("18446744073709551615", "18446744073709551615"),
            ("-5", "-5"),
            ("1.5", "1.5"),
            ("1e2", "100.0"),
            (r#""7""#, r#""7""#),
            (r#""a\"b""#, r#""a\"b""#),
        ];
        for (text, json) in cases {
            let value: Value = serde_json::from_str(text).unwrap();
            let id = WireId::from_value(&value);
            assert_eq!(id.as_json(), json, "{text}");
            assert_eq!(id.to_string(), json, "{text}");
            assert_eq!(format!("{id:?}"), format!("WireId({json:?})"), "{text}");
            assert_eq!(id.to_value(), serde_json::from_str::<Value>(json).unwrap(), "{text}");
            assert_eq!(id.as_int(), json.parse::<u64>().ok(), "{text}");
            assert_eq!(WireId::from_value(&id.to_value()), id, "{text}");
            let encoded = encode_call(&id, "m", None);
            let back: Value = serde_json::from_slice(&encoded).unwrap();
            assert_eq!(WireId::from_value(&back["id"]), id, "{text}");
        }
        assert_eq!(WireId::from_value(&json!(7)), WireId::from_int(7));
        assert_ne!(WireId::from_value(&json!("7")), WireId::from_int(7));
    }

    /// The single-object fast path decides exactly as classifying the whole JSON value does.
    #[test]
    fn fast_path_matches_the_general_path() {
        let cases = [
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#,
            r#" {"id":"a\"b","result":null}"#,
            r#"{"id":"plain","result":[1]}"#,
            r#"{"id":1.5,"result":1}"#,
            r#"{"id":1e2,"result":1}"#,
            r#"{"id":-3,"result":1}"#,
            r#"{"id":123456789012345678901234,"result":1}"#,
            r#"{"id":{"b":1,"a":[2]},"result":1}"#,
            r#"{"id":null,"result":1}"#,
            r#"{"result":1}"#,
            r#"{"id":1,"id":2,"result":1}"#,
            r#"{"id":1,"result":1,"result":2}"#,
            r#"{"id":1,"method":"m","params":null}"#,
            r#"{"id":null,"method":"m"}"#,
            r#"{"method":null}"#,
            r#"{"method":"n","params":{"x":1}}"#,
            r#"{"id":1,"error":null}"#,
            r#"{"id":null,"error":{"code":1,"message":"m"}}"#,
            r#"{"id":7,"error":{"code":-32000,"message":"m","data":[1]}}"#,
            r#"{"i\u0064":5,"result":true}"#,
            r#"{"jsonrpc":"2.0"}"#,
            r#"{}"#,
            r#"{"id":1,"result":1} trailing"#,
            r#"{"id":"\u00e9t\u00e9","result":1}"#,
            r#"{"id":"été","result":1}"#,
        ];
        for case in cases {
            let general = match serde_json::from_slice::<Value>(case.as_bytes()) {
                Err(e) => Err(DecodeError::NotJson(e.to_string())),
                Ok(v) => classify(v),
            };
            assert_eq!(decode(case.as_bytes()), vec![general], "{case}");
        }
        assert_eq!(WireId::from_value(&json!("a\u{1}")).as_json(), "\"a\\u0001\"");
    }

    #[test]
    fn integer_ids_read_back() {
        assert_eq!(WireId::from_int(42).as_int(), Some(42));
        assert_eq!(WireId::from_int(0).as_int(), Some(0));
        assert_eq!(WireId::from_value(&json!("42")).as_int(), None);
        assert_eq!(WireId::from_value(&json!(-1)).as_int(), None);
        assert_eq!(WireId::from_value(&json!(1.5)).as_int(), None);
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
