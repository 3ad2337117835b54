//! Server targets and `mcpServers` configuration files: transport detection, parsing, redaction.
//!
//! - [`detect_target`] turns a target string into a [`DetectedTarget`]: an `http(s)://` URL whose
//!   path ends in `/sse` is legacy HTTP+SSE, one ending in `/mcp` is Streamable HTTP, any other
//!   URL is tried as Streamable HTTP, then SSE, then plain HTTP; `stdio://cmd args` or a bare
//!   command line is a stdio server. [`detect_argv`] does the same for an argv array.
//! - [`parse_mcp_servers`] reads the JSON MCP hosts use (`"mcpServers"`, or VS Code's
//!   `"servers"`), comments and trailing commas tolerated; entries come back sorted by name.
//! - Configurations carry credentials, so [`ServerEntry`], [`EntryTransport`], [`DetectedTarget`]
//!   and [`HttpUrl`] print (`Display` and `Debug`) with environment values, credential headers,
//!   credential query parameters and credential-looking arguments replaced by `***`.
//!
//! Parsing takes text (the core never reads files). URLs are parsed by hand and only as far as
//! a client needs: scheme, host (IPv6 literals in brackets), port, path and query.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde_json::{Map, Value};

pub use crate::command::redact_command;
use crate::command::{RedactedCommand, StdioCommand};
#[cfg(feature = "http")]
pub use crate::http_url::{origin, HttpUrl, MAX_URL_BYTES};
pub use crate::redact::{is_sensitive_name, redact_args, redact_header_value, redact_url};
pub use crate::target::TargetConfigError;
use crate::target::{
    command_from_argv, ensure, http_not_compiled, is_scheme, parse_stdio_target, unsupported_scheme, url_err,
    TargetError,
};
pub use crate::transport::TransportKind;

// HTTP targets and entries (only with the `http` feature; without it they are refused with
// `TargetConfigError::HttpNotCompiled`).
#[cfg(feature = "http")]
mod http;

/// Without the `http` feature: HTTP targets and entries are refused, naming the feature.
#[cfg(not(feature = "http"))]
mod http {
    use serde_json::{Map, Value};

    use super::{http_not_compiled, DetectedTarget, EntryTransport, TargetConfigError, TransportKind};

    /// An `http(s)://` target.
    pub(super) fn detect_url(
        _target: &str,
        _forced: Option<TransportKind>,
    ) -> Result<DetectedTarget, TargetConfigError> {
        Err(http_not_compiled(None))
    }

    /// An entry with a `"url"`.
    pub(super) fn entry(
        name: &str,
        _obj: &Map<String, Value>,
        _kind: Option<TransportKind>,
        _url: &Value,
    ) -> Result<EntryTransport, TargetConfigError> {
        Err(http_not_compiled(Some(name)))
    }
}

/// What a target string names: a process to run or an HTTP endpoint. `Display` and `Debug`
/// are redacted.
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DetectedTarget {
    /// Run this command and speak stdio.
    Stdio(StdioCommand),
    /// An HTTP endpoint.
    #[cfg(feature = "http")]
    Http {
        /// The normalised URL (see [`HttpUrl`]); it may carry a token.
        url: String,
        /// The transports to try, in order; never empty.
        kinds: Vec<TransportKind>,
    },
}

impl DetectedTarget {
    /// The redacted display form (same as `Display`).
    pub fn redacted(&self) -> String {
        self.to_string()
    }

    /// A short server name: what a command launches (see [`crate::target::suggested_name`]),
    /// or a URL's host.
    pub fn suggested_name(&self) -> String {
        match self {
            Self::Stdio(cmd) => crate::target::suggested_name(cmd),
            #[cfg(feature = "http")]
            Self::Http { url, .. } => {
                HttpUrl::parse(url).map_or_else(|_| "server".into(), |u| u.host().to_owned())
            }
        }
    }
}

impl fmt::Display for DetectedTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Stdio(cmd) => write!(f, "stdio: {}", RedactedCommand(cmd)),
            #[cfg(feature = "http")]
            Self::Http { url, kinds } => {
                let names: Vec<&str> = kinds.iter().map(|k| k.as_str()).collect();
                write!(f, "{} (via {})", redact_url(url), names.join(", then "))
            }
        }
    }
}

impl fmt::Debug for DetectedTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Stdio(cmd) => f.debug_tuple("Stdio").field(&RedactedCommand(cmd)).finish(),
            #[cfg(feature = "http")]
            Self::Http { url, kinds } => {
                f.debug_struct("Http").field("url", &redact_url(url)).field("kinds", kinds).finish()
            }
        }
    }
}

/// Detects the transport of a target string (see the module docs for the rules). `forced`
/// replaces the order of transports to try; forcing stdio on a URL, or an HTTP transport on a
/// command line, is an error. Without the `http` feature an `http(s)://` target is
/// [`TargetConfigError::HttpNotCompiled`].
pub fn detect_target(
    target: &str,
    forced: Option<TransportKind>,
) -> Result<DetectedTarget, TargetConfigError> {
    let target = target.trim();
    let mismatch = |target_is_url: bool| match forced {
        Some(k) if k.is_http() != target_is_url => {
            Err(TargetConfigError::ForcedMismatch { forced: k, target_is_url })
        }
        _ => Ok(()),
    };
    let scheme = target.split_once("://").map(|(s, _)| s).filter(|s| is_scheme(s));
    match scheme.map(str::to_ascii_lowercase).as_deref() {
        Some("http" | "https") => {
            mismatch(true)?;
            http::detect_url(target, forced)
        }
        Some("stdio") => {
            mismatch(false)?;
            match parse_stdio_target(&target["stdio://".len()..]) {
                Err(TargetError::UrlNotCommand(_)) => Err(url_err("stdio:// must be followed by a command")),
                other => Ok(DetectedTarget::Stdio(other?)),
            }
        }
        Some(_) => Err(unsupported_scheme(scheme.unwrap_or(""), "http://, https:// or stdio://")),
        None => {
            let head = target.get(..6).unwrap_or(target).to_ascii_lowercase();
            ensure(
                !head.starts_with("http:") && !head.starts_with("https:"),
                "expected http:// or https://",
            )?;
            mismatch(false)?;
            Ok(DetectedTarget::Stdio(parse_stdio_target(target)?))
        }
    }
}

/// A stdio target from an argv array (program first); never a URL.
pub fn detect_argv(argv: &[String]) -> Result<DetectedTarget, TargetConfigError> {
    Ok(DetectedTarget::Stdio(command_from_argv(argv.iter().cloned())?))
}

/// One server of an `mcpServers` configuration. `Display` and `Debug` are redacted.
#[derive(Clone, PartialEq, Eq)]
pub struct ServerEntry {
    /// The entry's key in the configuration.
    pub name: String,
    /// How to reach it.
    pub transport: EntryTransport,
}

impl ServerEntry {
    /// The redacted display form (same as `Display`).
    pub fn redacted(&self) -> String {
        self.to_string()
    }

    /// The entry as a [`DetectedTarget`] (HTTP headers are not part of it).
    pub fn detected(&self) -> DetectedTarget {
        match &self.transport {
            EntryTransport::Stdio(cmd) => DetectedTarget::Stdio(cmd.clone()),
            #[cfg(feature = "http")]
            EntryTransport::Http { url, .. } => {
                DetectedTarget::Http { url: url.clone(), kinds: self.transport.kinds() }
            }
        }
    }
}

impl fmt::Display for ServerEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.name, self.transport)
    }
}

impl fmt::Debug for ServerEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerEntry").field("name", &self.name).field("transport", &self.transport).finish()
    }
}

/// The transport of a configured server. `Display` and `Debug` are redacted.
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum EntryTransport {
    /// A command to run.
    Stdio(StdioCommand),
    /// An HTTP endpoint.
    #[cfg(feature = "http")]
    Http {
        /// The normalised URL (see [`HttpUrl`]); it may carry a token.
        url: String,
        /// The transport named by `"type"`, if any; `None` means judge from the URL.
        kind: Option<TransportKind>,
        /// Headers sent with every request, validated, in configuration order.
        headers: Vec<(String, String)>,
    },
}

impl EntryTransport {
    /// The transports to try, in order: the configured kind, else the URL's defaults.
    pub fn kinds(&self) -> Vec<TransportKind> {
        match self {
            Self::Stdio(_) => vec![TransportKind::Stdio],
            #[cfg(feature = "http")]
            Self::Http { kind: Some(k), .. } => vec![*k],
            #[cfg(feature = "http")]
            Self::Http { url, .. } => http::url_kinds(url),
        }
    }
}

impl fmt::Display for EntryTransport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Stdio(cmd) => write!(f, "stdio: {}", RedactedCommand(cmd)),
            #[cfg(feature = "http")]
            Self::Http { url, kind, headers } => {
                write!(f, "{} ({})", redact_url(url), kind.map_or("auto", TransportKind::as_str))?;
                let shown: Vec<String> =
                    headers.iter().map(|(n, v)| format!("{n}: {}", redact_header_value(n, v))).collect();
                if !shown.is_empty() {
                    write!(f, " [headers: {}]", shown.join(", "))?;
                }
                Ok(())
            }
        }
    }
}

impl fmt::Debug for EntryTransport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Stdio(cmd) => f.debug_tuple("Stdio").field(&RedactedCommand(cmd)).finish(),
            #[cfg(feature = "http")]
            Self::Http { url, kind, headers } => {
                let headers: Vec<(&str, &str)> =
                    headers.iter().map(|(n, v)| (n.as_str(), redact_header_value(n, v))).collect();
                let url = redact_url(url);
                f.debug_struct("Http")
                    .field("url", &url)
                    .field("kind", kind)
                    .field("headers", &headers)
                    .finish()
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// mcpServers configuration files

/// Parses an MCP host configuration (Claude Desktop, VS Code, Cursor, …): servers under
/// `"mcpServers"`, `"servers"` or `"mcp": {"servers": …}`, each either
/// `{"command", "args", "env", "cwd"}` (stdio) or `{"url", "type", "headers"}` (HTTP), `"type"`
/// being `stdio`, `http`/`streamable-http`, or `sse`. Comments and trailing commas are accepted
/// (VS Code writes JSONC), unknown keys ignored, entries with `"disabled": true` skipped, and no
/// `${…}` variables expanded. Entries are returned sorted by name. Without the `http` feature an
/// HTTP entry (a `"url"`, or an HTTP `"type"`) is [`TargetConfigError::HttpNotCompiled`].
pub fn parse_mcp_servers(json: &str) -> Result<Vec<ServerEntry>, TargetConfigError> {
    let text = strip_jsonc(json)?;
    let root: Value =
        serde_json::from_str(&text).map_err(|e| TargetConfigError::InvalidJson { detail: e.to_string() })?;
    let config_err = |detail: String| TargetConfigError::InvalidConfig { detail };
    let root = root.as_object().ok_or_else(|| config_err("the top level must be a JSON object".into()))?;
    let nested = root.get("mcp").and_then(Value::as_object);
    let candidates = [("mcpServers", Some(root)), ("servers", Some(root)), ("servers", nested)];
    let mut sections = Vec::new();
    for (key, obj) in candidates {
        match obj.and_then(|o| o.get(key)) {
            None => {}
            Some(Value::Object(m)) => sections.push(m),
            Some(_) => return Err(config_err(format!("{key:?} must be an object of server entries"))),
        }
    }
    if sections.is_empty() {
        return Err(config_err("no \"mcpServers\" (or \"servers\") object found".into()));
    }
    let mut entries = BTreeMap::new();
    let mut seen = BTreeSet::new();
    for (name, value) in sections.into_iter().flatten() {
        if !seen.insert(name) {
            return Err(TargetConfigError::DuplicateServer { name: name.clone() });
        }
        if let Some(transport) = parse_entry(name, value)? {
            entries.insert(name, ServerEntry { name: name.clone(), transport });
        }
    }
    Ok(entries.into_values().collect())
}

/// A field, treating `null` as absent.
fn field<'a>(obj: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    obj.get(key).filter(|v| !v.is_null())
}

fn invalid(server: &str, field: &'static str, detail: impl Into<String>) -> TargetConfigError {
    TargetConfigError::InvalidField { server: server.to_owned(), field, detail: detail.into() }
}

fn parse_entry(name: &str, value: &Value) -> Result<Option<EntryTransport>, TargetConfigError> {
    let entry_err =
        |detail: &str| TargetConfigError::InvalidEntry { server: name.into(), detail: detail.into() };
    let missing = |field| TargetConfigError::MissingField { server: name.into(), field };
    if name.is_empty() || name.chars().any(char::is_control) {
        return Err(entry_err("server names must be non-empty, without control characters"));
    }
    let obj = value.as_object().ok_or_else(|| entry_err("the entry must be a JSON object"))?;
    match field(obj, "disabled") {
        None | Some(Value::Bool(false)) => {}
        Some(Value::Bool(true)) => return Ok(None),
        Some(_) => return Err(invalid(name, "disabled", "must be true or false")),
    }
    let kind = match field(obj, "type") {
        None => None,
        Some(Value::String(s)) => Some(TransportKind::from_name(s).ok_or_else(|| {
            if TransportKind::names_http(s) {
                return http_not_compiled(Some(name));
            }
            let shown: String = s.chars().take(32).collect();
            invalid(
                name,
                "type",
                format!("must be \"stdio\", \"http\", \"streamable-http\" or \"sse\", not {shown:?}"),
            )
        })?),
        Some(_) => return Err(invalid(name, "type", "must be a string")),
    };
    match (kind, field(obj, "command"), field(obj, "url")) {
        (_, Some(_), Some(_)) => {
            Err(entry_err("has both \"command\" and \"url\"; a server is one or the other"))
        }
        (None, None, None) => Err(entry_err("needs \"command\" (stdio) or \"url\" (HTTP)")),
        (None | Some(TransportKind::Stdio), Some(command), None) => {
            Ok(Some(EntryTransport::Stdio(parse_stdio_entry(name, obj, command)?)))
        }
        (Some(TransportKind::Stdio), None, _) => Err(missing("command")),
        #[cfg(feature = "http")]
        (Some(_), _, None) => Err(missing("url")),
        (kind, None, Some(url)) => http::entry(name, obj, kind, url).map(Some),
    }
}

fn parse_stdio_entry(
    name: &str,
    obj: &Map<String, Value>,
    command: &Value,
) -> Result<StdioCommand, TargetConfigError> {
    let mut cmd = match command {
        Value::String(s) if !s.trim().is_empty() && !s.contains('\0') => StdioCommand::new(s.clone()),
        _ => return Err(invalid(name, "command", "must be a non-empty string")),
    };
    let bad_args = || invalid(name, "args", "must be an array of strings");
    if let Some(args) = field(obj, "args") {
        for arg in args.as_array().ok_or_else(bad_args)? {
            cmd.args.push(arg.as_str().filter(|s| !s.contains('\0')).ok_or_else(bad_args)?.into());
        }
    }
    for (key, value) in string_map(name, "env", obj)? {
        if key.is_empty() || key.contains(['=', '\0']) {
            let shown = safe_prefix(&key, |c| c == '=' || c == '\0');
            return Err(invalid(name, "env", format!("has an invalid variable name {shown:?}")));
        }
        if value.contains('\0') {
            return Err(invalid(name, "env", format!("value of {key:?} contains a NUL character")));
        }
        cmd.env.push((key.into(), value.into()));
    }
    match field(obj, "cwd") {
        None => {}
        Some(Value::String(s)) if !s.is_empty() && !s.contains('\0') => cmd.cwd = Some(s.into()),
        Some(_) => return Err(invalid(name, "cwd", "must be a non-empty string")),
    }
    Ok(cmd)
}

fn string_map(
    name: &str,
    key: &'static str,
    obj: &Map<String, Value>,
) -> Result<Vec<(String, String)>, TargetConfigError> {
    let bad = || invalid(name, key, "must be an object of strings");
    let Some(map) = field(obj, key) else { return Ok(Vec::new()) };
    let map = map.as_object().ok_or_else(bad)?;
    map.iter().map(|(k, v)| Ok((k.clone(), v.as_str().ok_or_else(bad)?.to_owned()))).collect()
}

/// The part of an invalid name before its first offending character (what follows may be a
/// credential pasted into the wrong place), at most 40 characters, with `…` if cut.
fn safe_prefix(s: &str, bad: impl Fn(char) -> bool) -> String {
    let mut out: String = s.chars().take_while(|c| !bad(*c)).take(40).collect();
    if out.len() < s.len() {
        out.push('…');
    }
    out
}

/// Turns JSONC into JSON: comments become spaces (newlines kept, so error lines still match)
/// and trailing commas before `}` or `]` are dropped. Strings are left alone.
fn strip_jsonc(src: &str) -> Result<String, TargetConfigError> {
    let mut out = String::with_capacity(src.len());
    let mut chars = src.chars().peekable();
    let mut last_token = None;
    while let Some(c) = chars.next() {
        match (c, chars.peek().copied()) {
            ('"', _) => {
                last_token = Some(out.len());
                out.push(c);
                while let Some(s) = chars.next() {
                    out.push(s);
                    match s {
                        '\\' => out.extend(chars.next()),
                        '"' => break,
                        _ => {}
                    }
                }
            }
            ('/', Some('/')) => {
                for s in chars.by_ref().take_while(|s| *s != '\n') {
                    out.push(if s == '\r' { '\r' } else { ' ' });
                }
                out.push('\n');
            }
            ('/', Some('*')) => {
                chars.next();
                let mut prev = ' ';
                loop {
                    let s = chars.next().ok_or_else(|| TargetConfigError::InvalidJson {
                        detail: "unterminated /* comment".into(),
                    })?;
                    if prev == '*' && s == '/' {
                        break;
                    }
                    out.push(if s == '\n' { '\n' } else { ' ' });
                    prev = s;
                }
            }
            ('}' | ']', _) => {
                if let Some(i) = last_token.filter(|&i| out.as_bytes()[i] == b',') {
                    out.replace_range(i..=i, " ");
                }
                last_token = Some(out.len());
                out.push(c);
            }
            (c, _) if c.is_whitespace() => out.push(c),
            (c, _) => {
                last_token = Some(out.len());
                out.push(c);
            }
        }
    }
    Ok(out)
}

// Most cases name URLs: the tests need the `http` feature.
#[cfg(all(test, feature = "http"))]
mod tests;

#[cfg(all(test, not(feature = "http")))]
mod no_http_tests {
    use super::*;

    #[test]
    fn http_targets_need_the_http_feature() {
        let refused = TargetConfigError::HttpNotCompiled { server: None };
        assert_eq!(detect_target("https://h/mcp?token=t0ps3cret", None), Err(refused.clone()));
        assert_eq!(detect_target("HTTP://h/sse", None), Err(refused));
        let message = detect_target("http://h/mcp", None).unwrap_err().to_string();
        assert!(message.contains("HTTP support is not compiled in") && message.contains("`http` feature"));
        assert!(matches!(detect_target("stdio://npx -y pkg", None), Ok(DetectedTarget::Stdio(_))));
        assert!(matches!(detect_target("npx -y pkg", None), Ok(DetectedTarget::Stdio(_))));
        assert!(matches!(detect_target("ftp://h/x", None), Err(TargetConfigError::InvalidUrl { .. })));
    }

    #[test]
    fn http_entries_need_the_http_feature() {
        let refused = |name: &str| TargetConfigError::HttpNotCompiled { server: Some(name.into()) };
        let url = r#"{"mcpServers": {"web": {"url": "https://h/mcp?token=t0ps3cret"}}}"#;
        assert_eq!(parse_mcp_servers(url), Err(refused("web")));
        let typed = r#"{"mcpServers": {"s": {"type": "sse", "command": "x"}}}"#;
        assert_eq!(parse_mcp_servers(typed), Err(refused("s")));
        let message = parse_mcp_servers(url).unwrap_err().to_string();
        assert!(message.starts_with("server \"web\": HTTP support is not compiled in"), "{message}");
        assert!(!message.contains("t0ps3cret"), "{message}");
        let stdio = r#"{"mcpServers": {"files": {"type": "stdio", "command": "npx", "args": ["-y", "fs"]}}}"#;
        let entries = parse_mcp_servers(stdio).unwrap();
        assert!(matches!(&entries[0].transport, EntryTransport::Stdio(cmd) if cmd.args.len() == 2));
        let unknown = r#"{"mcpServers": {"s": {"type": "carrier-pigeon", "command": "x"}}}"#;
        assert!(matches!(
            parse_mcp_servers(unknown),
            Err(TargetConfigError::InvalidField { field: "type", .. })
        ));
    }

    #[test]
    fn only_stdio_is_a_transport_name() {
        assert_eq!(TransportKind::from_name("STDIO"), Some(TransportKind::Stdio));
        for name in ["http", "streamable-http", "streamableHttp", "sse", "plain_http"] {
            assert_eq!(TransportKind::from_name(name), None, "{name}");
            assert!(TransportKind::names_http(name), "{name}");
        }
        assert!(!TransportKind::names_http("stdio"));
    }
}
