//! HTTP header helpers for the Streamable HTTP transport: pure functions, no IO.
//!
//! MCP 2026-07-28 mirrors selected JSON-RPC body fields into request headers so that
//! intermediaries can route without parsing the body (`basic/transports/streamable-http.mdx`
//! §Request Metadata, SEP-2243). This module computes those headers and parses the
//! `WWW-Authenticate` challenges that a `401`/`403` carries; the Streamable HTTP transport puts
//! them on the wire.
//!
//! - [`encode_header_value`] / [`decode_header_value`]: the Base64 sentinel `=?base64?…?=` used
//!   for `Mcp-Name` and `Mcp-Param-*` values that are not header-safe ([`is_header_safe`]).
//! - [`mcp_name`]: the `Mcp-Name` value for a request (`params.name`, `params.uri`, or the tasks
//!   extension's `params.taskId`).
//! - [`param_headers`] / [`param_header_values`]: the `x-mcp-header` tool-schema annotation
//!   (`server/tools.mdx` §x-mcp-header), validated; an `Err` means the caller MUST drop the tool
//!   from its `tools/list` result and SHOULD warn, naming the tool and the reason.
//! - [`filter_user_headers`] / [`validate_header`]: configured headers; in a modern session
//!   the `Mcp-Param-` namespace belongs to the protocol.
//! - [`parse_www_authenticate`]: RFC 9110 §11.6.1 challenges (`resource_metadata`, `scope`,
//!   `error` per RFC 6750 / RFC 9728), tolerant and bounded.
//!
//! Header *names* compare case-insensitively; header *values* are case-sensitive.

use std::collections::BTreeMap;

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use serde_json::{Map, Number, Value};

/// `MCP-Protocol-Version`: equal to the body's `_meta` protocol version, on every POST.
pub const MCP_PROTOCOL_VERSION: &str = "MCP-Protocol-Version";
/// `Mcp-Method`: the JSON-RPC `method`, on every request and notification.
pub const MCP_METHOD: &str = "Mcp-Method";
/// `Mcp-Name`: see [`mcp_name`].
pub const MCP_NAME: &str = "Mcp-Name";
/// Prefix of the headers produced from `x-mcp-header` annotations.
pub const MCP_PARAM_PREFIX: &str = "Mcp-Param-";
/// The JSON Schema extension keyword designating a mirrored tool parameter.
pub const X_MCP_HEADER: &str = "x-mcp-header";
/// [`parse_www_authenticate`] ignores input beyond this many bytes.
pub const MAX_WWW_AUTHENTICATE_LEN: usize = 8 * 1024;
/// [`parse_www_authenticate`] returns at most this many challenges.
pub const MAX_CHALLENGES: usize = 32;
/// [`parse_www_authenticate`] keeps at most this many parameters per challenge.
pub const MAX_CHALLENGE_PARAMS: usize = 32;
/// Schemas nested deeper than this are rejected by [`param_headers`] rather than walked.
pub const MAX_SCHEMA_DEPTH: usize = 128;

const SENTINEL_PREFIX: &str = "=?base64?";
const SENTINEL_SUFFIX: &str = "?=";
/// 2^53 − 1, the largest integer an IEEE 754 double represents exactly.
const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

/// Why a header helper refused its input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HeaderError {
    /// A header name is empty or not an RFC 9110 token (`1*tchar`).
    #[error("header name {name:?} is not an HTTP token")]
    InvalidName {
        /// The offending name.
        name: String,
    },
    /// A header value contains a control character (CR, LF, NUL, other C0 controls or DEL).
    #[error("value of header {name:?} contains a control character")]
    ControlCharacter {
        /// The header whose value was refused.
        name: String,
    },
    /// A received plain value contains a character outside visible ASCII, space and tab.
    #[error("header value contains a character outside visible ASCII, space and tab")]
    UnsafeValue,
    /// The payload of a `=?base64?…?=` value is not canonical standard Base64.
    #[error("Base64 header value is malformed: {0}")]
    InvalidBase64(String),
    /// A `=?base64?…?=` payload decodes to bytes that are not UTF-8.
    #[error("Base64 header value does not decode to UTF-8")]
    InvalidUtf8,
    /// An `x-mcp-header` value is not a JSON string.
    #[error("x-mcp-header at {location} is not a string")]
    AnnotationNotString {
        /// JSON Pointer fragment of the annotated schema, e.g. `#/properties/region`.
        location: String,
    },
    /// An `x-mcp-header` value is empty.
    #[error("x-mcp-header at {location} is empty")]
    EmptyAnnotation {
        /// JSON Pointer fragment of the annotated schema.
        location: String,
    },
    /// An `x-mcp-header` value is not an HTTP token (spaces, colons, controls, non-ASCII…).
    #[error("x-mcp-header {header:?} at {location} is not an HTTP token (1*tchar)")]
    AnnotationNotToken {
        /// JSON Pointer fragment of the annotated schema.
        location: String,
        /// The annotation's value.
        header: String,
    },
    /// Two annotations name the same header, compared case-insensitively.
    #[error("x-mcp-header {header:?} at {location} duplicates the one at {first} (case-insensitive)")]
    DuplicateAnnotation {
        /// JSON Pointer fragment of the second annotated schema.
        location: String,
        /// The annotation's value.
        header: String,
        /// JSON Pointer fragment of the first schema carrying that name.
        first: String,
    },
    /// The annotated property's `type` is not exactly one of `string`, `integer`, `boolean`
    /// (optionally with `null`); `number`, `object`, `array`, `null` and an absent `type` fail.
    #[error(
        "x-mcp-header {header:?} at {location} is on a property whose type is not string, integer or boolean"
    )]
    UnsupportedType {
        /// JSON Pointer fragment of the annotated schema.
        location: String,
        /// The annotation's value.
        header: String,
    },
    /// The annotation is not reachable from the root through `properties` keys alone (it sits
    /// under `items`, `oneOf`/`anyOf`/`allOf`/`not`, `if`/`then`/`else`, `$defs`, …, or on
    /// the root schema itself).
    #[error("x-mcp-header at {location} is not on a property statically reachable through `properties`")]
    NotStaticallyReachable {
        /// JSON Pointer fragment of the annotated schema.
        location: String,
    },
    /// The schema nests deeper than [`MAX_SCHEMA_DEPTH`].
    #[error("inputSchema nests deeper than {max} levels")]
    SchemaTooDeep {
        /// The limit.
        max: usize,
    },
}

// --- Value encoding ---

/// Whether `value` can be sent verbatim as a header value: only visible ASCII (0x21–0x7E) and
/// space, with no leading or trailing space. Tab counts as a control character (SEP-2243
/// encoding rule 4), so it is never header-safe. The empty string is header-safe.
///
/// This checks characters only; [`encode_header_value`] also encodes sentinel look-alikes.
pub fn is_header_safe(value: &str) -> bool {
    let bytes = value.as_bytes();
    bytes.iter().all(|b| (0x20..=0x7e).contains(b))
        && bytes.first() != Some(&b' ')
        && bytes.last() != Some(&b' ')
}

fn looks_like_sentinel(value: &str) -> bool {
    value.starts_with(SENTINEL_PREFIX) && value.ends_with(SENTINEL_SUFFIX)
}

/// Encodes a value for `Mcp-Name` or `Mcp-Param-*`: verbatim when [`is_header_safe`] and not
/// itself of the form `=?base64?…?=`; otherwise `=?base64?{standard Base64 of the UTF-8}?=`.
///
/// ```
/// use mcpwire_core::headers::encode_header_value;
/// assert_eq!(encode_header_value("us-west1"), "us-west1");
/// assert_eq!(encode_header_value("Hello, 世界"), "=?base64?SGVsbG8sIOS4lueVjA==?=");
/// ```
pub fn encode_header_value(value: &str) -> String {
    if is_header_safe(value) && !looks_like_sentinel(value) {
        value.to_owned()
    } else {
        format!("{SENTINEL_PREFIX}{}{SENTINEL_SUFFIX}", BASE64.encode(value))
    }
}

/// Decodes a received `Mcp-Name` / `Mcp-Param-*` value, the inverse of [`encode_header_value`].
///
/// `=?base64?…?=` (case-sensitive markers) must carry canonical padded standard Base64 of UTF-8;
/// anything else is a literal, which may contain visible ASCII, space and tab only. Surrounding
/// whitespace is kept (an HTTP parser has already trimmed it).
pub fn decode_header_value(value: &str) -> Result<String, HeaderError> {
    if let Some(payload) =
        value.strip_prefix(SENTINEL_PREFIX).and_then(|rest| rest.strip_suffix(SENTINEL_SUFFIX))
    {
        let bytes = BASE64.decode(payload).map_err(|e| HeaderError::InvalidBase64(e.to_string()))?;
        return String::from_utf8(bytes).map_err(|_| HeaderError::InvalidUtf8);
    }
    if value.bytes().all(|b| b == b'\t' || (0x20..=0x7e).contains(&b)) {
        Ok(value.to_owned())
    } else {
        Err(HeaderError::UnsafeValue)
    }
}

// --- Mcp-Name ---

/// The encoded `Mcp-Name` value for a request, or `None` when the method has none.
///
/// `params.name` for `tools/call` and `prompts/get`, `params.uri` for `resources/read`
/// (streamable-http.mdx §Standard Request Headers), and `params.taskId` for `tasks/*` methods
/// (tasks extension, SEP-2663 §Routing Headers: `tasks/get`, `tasks/update`, `tasks/cancel`).
/// A missing or non-string source field gives `None`.
pub fn mcp_name(method: &str, params: &Value) -> Option<String> {
    let field = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" => "uri",
        m if m.starts_with("tasks/") => "taskId",
        _ => return None,
    };
    params.get(field)?.as_str().map(encode_header_value)
}

// --- x-mcp-header ---

/// One validated `x-mcp-header` annotation of a tool's `inputSchema`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamHeader {
    /// The annotation's value, the name portion of `Mcp-Param-{header}` (e.g. `Region`).
    pub header: String,
    /// The chain of `properties` keys from the schema root to the annotated property, which is
    /// also the path of the value inside the call's `arguments`.
    pub pointer: Vec<String>,
}

impl ParamHeader {
    /// The full header name, e.g. `Mcp-Param-Region`.
    pub fn header_name(&self) -> String {
        format!("{MCP_PARAM_PREFIX}{}", self.header)
    }
}

/// Reads and validates every `x-mcp-header` annotation of a tool's `inputSchema`.
///
/// Annotations may sit at any depth reached through `properties` keys only. `Err` names the
/// first violated rule; per the spec the client MUST then exclude the tool from `tools/list`
/// and SHOULD log a warning with the tool name and the reason. The rules
/// (streamable-http.mdx §Schema Extension, tools.mdx §x-mcp-header):
///
/// - the value is a non-empty string matching `1*tchar` (so no spaces, colons, controls or
///   non-ASCII);
/// - values are unique case-insensitively within the schema;
/// - the property's `type` is `string`, `integer` or `boolean` (a `["string", "null"]` union is
///   accepted; `number`, `object`, `array`, `null` or no `type` are not);
/// - no annotation appears anywhere not statically reachable: under `items`, `prefixItems`,
///   `additionalProperties`, `patternProperties`, `oneOf`/`anyOf`/`allOf`/`not`,
///   `if`/`then`/`else`, `$defs`/`definitions`, or on the root itself. Data-valued keywords
///   (`default`, `const`, `enum`, `examples`) are not inspected; `$ref` is never followed.
///
/// A schema without `properties` yields an empty list. The order follows the schema's
/// property order.
pub fn param_headers(input_schema: &Value) -> Result<Vec<ParamHeader>, HeaderError> {
    let mut found = Vec::new();
    walk_schema(input_schema, Some(&[][..]), "#", 0, &mut found)?;
    let mut seen: BTreeMap<String, String> = BTreeMap::new();
    let mut out = Vec::with_capacity(found.len());
    for (param, location) in found {
        let key = param.header.to_ascii_lowercase();
        if let Some(first) = seen.get(&key) {
            return Err(HeaderError::DuplicateAnnotation {
                location,
                header: param.header,
                first: first.clone(),
            });
        }
        seen.insert(key, location);
        out.push(param);
    }
    Ok(out)
}

/// Visits one schema node. `reach` is the `properties` path when the node is statically
/// reachable, `None` otherwise; `loc` is its JSON Pointer fragment for error messages.
fn walk_schema(
    node: &Value,
    reach: Option<&[String]>,
    loc: &str,
    depth: usize,
    found: &mut Vec<(ParamHeader, String)>,
) -> Result<(), HeaderError> {
    let Some(obj) = node.as_object() else { return Ok(()) }; // boolean schemas, malformed nodes
    if depth > MAX_SCHEMA_DEPTH {
        return Err(HeaderError::SchemaTooDeep { max: MAX_SCHEMA_DEPTH });
    }
    if let Some(annotation) = obj.get(X_MCP_HEADER) {
        match reach {
            Some(path) if !path.is_empty() => {
                found.push((check_annotation(obj, annotation, path, loc)?, loc.to_owned()))
            }
            _ => return Err(HeaderError::NotStaticallyReachable { location: loc.to_owned() }),
        }
    }
    for (key, value) in obj {
        let here = format!("{loc}/{}", escape_pointer(key));
        match key.as_str() {
            X_MCP_HEADER | "default" | "const" | "enum" | "examples" => {}
            "properties" => {
                for (name, sub) in value.as_object().into_iter().flatten() {
                    let path = reach.map(|p| [p, std::slice::from_ref(name)].concat());
                    let sub_loc = format!("{here}/{}", escape_pointer(name));
                    walk_schema(sub, path.as_deref(), &sub_loc, depth + 1, found)?;
                }
            }
            "patternProperties" | "$defs" | "definitions" | "dependentSchemas" | "dependencies" => {
                walk_schema_map(value.as_object(), &here, depth, found)?;
            }
            _ => match value {
                Value::Object(_) => walk_schema(value, None, &here, depth + 1, found)?,
                Value::Array(items) => {
                    for (i, item) in items.iter().enumerate() {
                        walk_schema(item, None, &format!("{here}/{i}"), depth + 1, found)?;
                    }
                }
                _ => {}
            },
        }
    }
    Ok(())
}

/// Walks a keyword whose value maps names to (unreachable) subschemas.
fn walk_schema_map(
    map: Option<&Map<String, Value>>,
    loc: &str,
    depth: usize,
    found: &mut Vec<(ParamHeader, String)>,
) -> Result<(), HeaderError> {
    for (name, sub) in map.into_iter().flatten() {
        walk_schema(sub, None, &format!("{loc}/{}", escape_pointer(name)), depth + 1, found)?;
    }
    Ok(())
}

fn check_annotation(
    schema: &Map<String, Value>,
    annotation: &Value,
    path: &[String],
    loc: &str,
) -> Result<ParamHeader, HeaderError> {
    let location = loc.to_owned();
    let Some(header) = annotation.as_str() else { return Err(HeaderError::AnnotationNotString { location }) };
    if header.is_empty() {
        return Err(HeaderError::EmptyAnnotation { location });
    }
    let header = header.to_owned();
    if !is_token(&header) {
        return Err(HeaderError::AnnotationNotToken { location, header });
    }
    let primitive = |t: &Value| matches!(t.as_str(), Some("string" | "integer" | "boolean"));
    let ok_type = match schema.get("type") {
        Some(Value::Array(types)) => {
            let mut non_null = types.iter().filter(|t| t.as_str() != Some("null"));
            matches!((non_null.next(), non_null.next()), (Some(t), None) if primitive(t))
        }
        Some(t) => primitive(t),
        None => false,
    };
    if !ok_type {
        return Err(HeaderError::UnsupportedType { location, header });
    }
    Ok(ParamHeader { header, pointer: path.to_vec() })
}

fn escape_pointer(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

/// The `Mcp-Param-*` headers for one `tools/call`: `(full header name, encoded value)`.
///
/// The value is read at each annotation's exact path in `arguments`; absent, `null`, object or
/// array values omit the header. Strings are used as-is, booleans as `true`/`false`, integers
/// in decimal (`42`, `-7`; a float with no fraction within ±(2^53−1), such as `42.0`, renders as
/// `42`), other numbers in their shortest round-trip JSON form (`3.14159`). Every value then
/// goes through [`encode_header_value`].
pub fn param_header_values(headers: &[ParamHeader], arguments: &Value) -> Vec<(String, String)> {
    headers
        .iter()
        .filter_map(|h| {
            let value = h.pointer.iter().try_fold(arguments, |v, seg| v.as_object()?.get(seg))?;
            let text = match value {
                Value::String(s) => s.clone(),
                Value::Bool(b) => b.to_string(),
                Value::Number(n) => render_number(n),
                Value::Null | Value::Array(_) | Value::Object(_) => return None,
            };
            Some((h.header_name(), encode_header_value(&text)))
        })
        .collect()
}

fn render_number(n: &Number) -> String {
    if n.is_i64() || n.is_u64() {
        return n.to_string();
    }
    match n.as_f64() {
        #[allow(clippy::cast_possible_truncation)] // exact: integral and within ±(2^53−1)
        Some(f) if f.fract() == 0.0 && f.abs() <= MAX_SAFE_INTEGER as f64 => (f as i64).to_string(),
        _ => n.to_string(),
    }
}

// --- Configured headers ---

/// RFC 9110 `tchar`.
fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// Whether `s` is an RFC 9110 token (`1*tchar`).
pub fn is_token(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(is_tchar)
}

/// Whether `name` is in the protocol's `Mcp-Param-` namespace (case-insensitive).
pub fn is_param_header(name: &str) -> bool {
    name.get(..MCP_PARAM_PREFIX.len()).is_some_and(|p| p.eq_ignore_ascii_case(MCP_PARAM_PREFIX))
}

/// Configured user headers to send: in a `modern` (2026-07-28) session every header named
/// `Mcp-Param-*` (case-insensitive) is dropped, because that namespace carries `x-mcp-header`
/// values the server validates against the body; in a legacy session all pass unchanged.
pub fn filter_user_headers(headers: &[(String, String)], modern: bool) -> Vec<(String, String)> {
    headers.iter().filter(|(name, _)| !(modern && is_param_header(name))).cloned().collect()
}

/// Checks a configured header: the name an RFC 9110 token, the value free of CR, LF, NUL and
/// every other control character except tab (RFC 9110 §5.5 `field-value`). Non-ASCII
/// (`obs-text`) is allowed.
pub fn validate_header(name: &str, value: &str) -> Result<(), HeaderError> {
    if !is_token(name) {
        return Err(HeaderError::InvalidName { name: name.to_owned() });
    }
    if value.bytes().any(|b| (b < 0x20 && b != b'\t') || b == 0x7f) {
        return Err(HeaderError::ControlCharacter { name: name.to_owned() });
    }
    Ok(())
}

// --- WWW-Authenticate ---

/// One authentication challenge of a `WWW-Authenticate` header (RFC 9110 §11.6.1).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Challenge {
    /// The auth-scheme as received (compare with [`Challenge::is_scheme`]).
    pub scheme: String,
    /// The auth-params in order, names lowercased, quoted values unescaped.
    pub params: Vec<(String, String)>,
    /// The token68 form (`Basic dXNlcjpwYXNz`), instead of params.
    pub token68: Option<String>,
}

impl Challenge {
    /// Whether the scheme is `scheme`, case-insensitively (`Bearer`, `Basic`, …).
    pub fn is_scheme(&self, scheme: &str) -> bool {
        self.scheme.eq_ignore_ascii_case(scheme)
    }

    /// The first parameter named `name` (case-insensitive).
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// `resource_metadata`: the Protected Resource Metadata URL (RFC 9728 §5.1).
    pub fn resource_metadata(&self) -> Option<&str> {
        self.param("resource_metadata")
    }

    /// `scope`: the space-separated scopes required (RFC 6750 §3).
    pub fn scope(&self) -> Option<&str> {
        self.param("scope")
    }

    /// The individual scopes of [`Challenge::scope`].
    pub fn scopes(&self) -> impl Iterator<Item = &str> + '_ {
        self.scope().unwrap_or("").split([' ', '\t']).filter(|s| !s.is_empty())
    }

    /// `error`, e.g. `invalid_token` or `insufficient_scope` (RFC 6750 §3.1).
    pub fn error(&self) -> Option<&str> {
        self.param("error")
    }

    /// `error_description`: human-readable text.
    pub fn error_description(&self) -> Option<&str> {
        self.param("error_description")
    }

    /// `realm`.
    pub fn realm(&self) -> Option<&str> {
        self.param("realm")
    }
}

/// Parses a `WWW-Authenticate` value into its challenges.
///
/// Handles several challenges in one value, quoted strings with backslash escapes and commas,
/// token68, empty list elements and whitespace (including folded lines) around `=` and `,`.
/// Tolerant: it never panics, skips what it cannot parse up to the next comma, and accepts
/// unquoted values containing `=` or `/`. Bounded: input beyond [`MAX_WWW_AUTHENTICATE_LEN`]
/// bytes is ignored, as are challenges beyond [`MAX_CHALLENGES`] and parameters beyond
/// [`MAX_CHALLENGE_PARAMS`]. Several header lines can be joined with `", "` first.
///
/// ```
/// use mcpwire_core::headers::parse_www_authenticate;
/// let c = parse_www_authenticate(r#"Bearer resource_metadata="https://x.example/prm", scope="files:read""#);
/// assert!(c[0].is_scheme("bearer"));
/// assert_eq!(c[0].resource_metadata(), Some("https://x.example/prm"));
/// assert_eq!(c[0].scope(), Some("files:read"));
/// ```
pub fn parse_www_authenticate(value: &str) -> Vec<Challenge> {
    let bytes = value.as_bytes();
    let mut cur = Cursor { b: &bytes[..bytes.len().min(MAX_WWW_AUTHENTICATE_LEN)], i: 0 };
    let mut out = Vec::new();
    while out.len() < MAX_CHALLENGES {
        while cur.peek().is_some_and(|b| is_ws(b) || b == b',') {
            cur.i += 1;
        }
        if cur.peek().is_none() {
            break;
        }
        let Some(scheme) = cur.token() else {
            cur.skip_to_comma();
            continue;
        };
        if cur.peek().is_some_and(|b| !is_ws(b) && b != b',') {
            cur.skip_to_comma(); // e.g. `realm="x"` with no scheme
            continue;
        }
        cur.skip_ws();
        if cur.peek() == Some(b'=') {
            cur.skip_to_comma(); // `name = value` with no scheme
            continue;
        }
        let mut challenge = Challenge { scheme, ..Challenge::default() };
        let start = cur.i;
        while cur.peek().is_some_and(is_token68_char) {
            cur.i += 1;
        }
        if cur.i > start {
            while cur.peek() == Some(b'=') {
                cur.i += 1;
            }
            let end = cur.i;
            cur.skip_ws();
            if matches!(cur.peek(), None | Some(b',')) {
                challenge.token68 = Some(cur.text(start, end));
                out.push(challenge);
                continue;
            }
            cur.i = start;
        }
        parse_params(&mut cur, &mut challenge);
        out.push(challenge);
    }
    out
}

/// Parses `name=value` pairs until the input ends or a token not followed by `=` (the next
/// challenge's scheme) appears, which is left unconsumed.
fn parse_params(cur: &mut Cursor<'_>, challenge: &mut Challenge) {
    loop {
        while cur.peek().is_some_and(|b| is_ws(b) || b == b',') {
            cur.i += 1;
        }
        let mark = cur.i;
        let Some(name) = cur.token() else {
            if cur.peek().is_none() {
                return;
            }
            cur.skip_to_comma();
            continue;
        };
        cur.skip_ws();
        if cur.peek() != Some(b'=') {
            cur.i = mark;
            return;
        }
        cur.i += 1;
        cur.skip_ws();
        let value = if cur.peek() == Some(b'"') { cur.quoted() } else { cur.bare_value() };
        if let Some(value) = value {
            if challenge.params.len() < MAX_CHALLENGE_PARAMS {
                challenge.params.push((name.to_ascii_lowercase(), value));
            }
            cur.skip_ws();
        }
        if cur.peek().is_some_and(|b| b != b',') {
            cur.skip_to_comma();
        }
    }
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

fn is_token68_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'+' | b'/')
}

/// A byte cursor over the (truncated) header value.
struct Cursor<'a> {
    b: &'a [u8],
    i: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn text(&self, start: usize, end: usize) -> String {
        String::from_utf8_lossy(self.b.get(start..end).unwrap_or_default()).into_owned()
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(is_ws) {
            self.i += 1;
        }
    }

    fn token(&mut self) -> Option<String> {
        let start = self.i;
        while self.peek().is_some_and(is_tchar) {
            self.i += 1;
        }
        (self.i > start).then(|| self.text(start, self.i))
    }

    /// An unquoted value: a `token`, tolerating `=`, `/` and other non-separators.
    fn bare_value(&mut self) -> Option<String> {
        let start = self.i;
        while self.peek().is_some_and(|b| !is_ws(b) && b != b',' && b != b'"') {
            self.i += 1;
        }
        (self.i > start).then(|| self.text(start, self.i))
    }

    /// A quoted string starting at `"`; `None` (input consumed) when unterminated.
    fn quoted(&mut self) -> Option<String> {
        self.i += 1;
        let mut out = Vec::new();
        loop {
            let b = self.peek()?;
            self.i += 1;
            match b {
                b'"' => return Some(String::from_utf8_lossy(&out).into_owned()),
                b'\\' => {
                    out.push(self.peek()?);
                    self.i += 1;
                }
                _ => out.push(b),
            }
        }
    }

    /// Skips to the next comma outside a quoted string (or the end).
    fn skip_to_comma(&mut self) {
        while let Some(b) = self.peek() {
            match b {
                b',' => return,
                b'"' => {
                    if self.quoted().is_none() {
                        return;
                    }
                }
                _ => self.i += 1,
            }
        }
    }
}

// --- Fuzzing ---

/// Fuzz body: for arbitrary (lossy UTF-8) input, encoding is header-safe and round-trips
/// exactly, decoding and `WWW-Authenticate` parsing are total and bounded, and when the input
/// is JSON, `x-mcp-header` extraction is total and yields valid headers.
#[cfg(any(test, feature = "_fuzz"))]
#[doc(hidden)]
pub fn fuzz_headers(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let encoded = encode_header_value(&text);
    assert!(is_header_safe(&encoded), "encoded value is not header-safe: {encoded:?}");
    assert_eq!(decode_header_value(&encoded).as_deref(), Ok(&*text), "round trip failed");
    let _ = decode_header_value(&text);
    let challenges = parse_www_authenticate(&text);
    assert!(challenges.len() <= MAX_CHALLENGES);
    for c in &challenges {
        assert!(is_token(&c.scheme), "scheme {:?} is not a token", c.scheme);
        assert!(c.params.len() <= MAX_CHALLENGE_PARAMS);
        assert!(c.params.iter().all(|(n, _)| is_token(n) && *n == n.to_ascii_lowercase()));
    }
    if let Ok(json) = serde_json::from_slice::<Value>(data) {
        if let Ok(params) = param_headers(&json) {
            for (name, value) in param_header_values(&params, &json) {
                assert!(validate_header(&name, &value).is_ok() && is_header_safe(&value));
            }
        }
        let _ = mcp_name("tools/call", &json);
    }
}

#[cfg(test)]
mod tests;
