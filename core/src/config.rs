//! Configuration of one server connection: transport, protocol era, limits and timeouts.

use std::time::Duration;

use serde_json::{Map, Value};

// Part of the configuration; defined with its redacted display.
pub(crate) use crate::command::StdioCommand;
use crate::types::Implementation;

// How to reach an HTTP server (only with the `http` feature).
#[cfg(feature = "http")]
mod http;
#[cfg(feature = "http")]
pub use http::HttpConfig;

/// The protocol revision this client speaks in the modern (stateless) era.
pub const MODERN_VERSION: &str = "2026-07-28";

/// Legacy (handshake) revisions this client speaks, newest first.
pub const LEGACY_VERSIONS: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// Which protocol era to speak with a server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ProtocolMode {
    /// Probe with `server/discover`; fall back to the legacy `initialize` handshake (default).
    #[default]
    Auto,
    /// Speak 2026-07-28 only; a legacy-only server is a connection error.
    Modern,
    /// Speak a legacy revision only (no probe).
    Legacy,
}

/// The transport a connection uses.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TransportConfig {
    /// A child process speaking newline-delimited JSON-RPC on stdin/stdout.
    Stdio(StdioCommand),
    /// An HTTP server (Streamable HTTP, HTTP+SSE or plain HTTP).
    #[cfg(feature = "http")]
    Http(HttpConfig),
}

impl TransportConfig {
    /// The command of a stdio server.
    pub(crate) fn stdio_mut(&mut self) -> Option<&mut StdioCommand> {
        match self {
            TransportConfig::Stdio(command) => Some(command),
            #[cfg(feature = "http")]
            TransportConfig::Http(_) => None,
        }
    }
}

/// Bounds on everything an untrusted server can make the client hold. The HTTP body bounds
/// exist with the `http` feature.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// Largest JSON-RPC message accepted (one stdout line). Default 16 MiB.
    pub max_message_bytes: usize,
    /// Longest stderr line kept; a longer line is shown cut to this length, with its full length. Default 4 KiB.
    pub max_stderr_line_bytes: usize,
    /// Stderr lines remembered to explain a crash. Default 8.
    pub stderr_tail_lines: usize,
    /// Host requests in flight (queued or sent) at once. Default 1024.
    pub max_in_flight: usize,
    /// Host events waiting to be polled; beyond this, non-terminal events are dropped and counted
    /// (responses are never dropped). Default 4096.
    pub max_pending_events: usize,
    /// Characters kept of a server log message or progress message. Default 8192.
    pub max_log_chars: usize,
    /// Pages followed by one list request. Default 1000.
    pub max_list_pages: usize,
    /// Items collected by one list request across pages. Default 100 000.
    pub max_list_items: usize,
    /// Server-to-client requests handled concurrently (legacy eras); more are refused. Default 16.
    pub max_concurrent_server_requests: usize,
    /// Finished wire ids remembered so a late response is recognised as late. Default 1024.
    pub recent_finished: usize,
    /// Largest HTTP response body after decompression (a JSON body is bounded by
    /// `max_message_bytes` as well). An event stream may run as long as the server keeps it
    /// open: for it the limit bounds the bytes between two of its lines (a decompression bomb
    /// without line ends), never its total. Default 64 MiB.
    #[cfg(feature = "http")]
    pub max_decompressed_body_bytes: usize,
    /// Bytes of an HTTP error body read to find a JSON-RPC error in it. Default 64 KiB.
    #[cfg(feature = "http")]
    pub max_error_body_bytes: usize,
    /// Cached results kept at once (lists, resource reads, across `_meta` and credentials);
    /// past it the oldest is dropped. `0` turns caching off. Default 256.
    pub max_cache_entries: usize,
    /// `input_required` answers (2026-07-28 multi-round-trip input) one request may take; the
    /// one past it fails the request with
    /// [`RequestError::InputBudgetExhausted`](crate::RequestError::InputBudgetExhausted)
    /// (resumable). Default 10.
    pub max_input_rounds: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_message_bytes: 16 * 1024 * 1024,
            max_stderr_line_bytes: 4096,
            stderr_tail_lines: 8,
            max_in_flight: 1024,
            max_pending_events: 4096,
            max_log_chars: 8192,
            max_list_pages: 1000,
            max_list_items: 100_000,
            max_concurrent_server_requests: 16,
            recent_finished: 1024,
            #[cfg(feature = "http")]
            max_decompressed_body_bytes: 64 * 1024 * 1024,
            #[cfg(feature = "http")]
            max_error_body_bytes: 64 * 1024,
            max_cache_entries: 256,
            max_input_rounds: 10,
        }
    }
}

impl Limits {
    /// Largest JSON-RPC message accepted (one stdout line).
    pub fn max_message_bytes(mut self, max_message_bytes: usize) -> Self {
        self.max_message_bytes = max_message_bytes;
        self
    }

    /// Longest stderr line kept; a longer line is shown cut to this length, with its full length.
    pub fn max_stderr_line_bytes(mut self, max_stderr_line_bytes: usize) -> Self {
        self.max_stderr_line_bytes = max_stderr_line_bytes;
        self
    }

    /// Stderr lines remembered to explain a crash.
    pub fn stderr_tail_lines(mut self, stderr_tail_lines: usize) -> Self {
        self.stderr_tail_lines = stderr_tail_lines;
        self
    }

    /// Host requests in flight (queued or sent) at once.
    pub fn max_in_flight(mut self, max_in_flight: usize) -> Self {
        self.max_in_flight = max_in_flight;
        self
    }

    /// Host events waiting to be polled; beyond this, non-terminal events are dropped and counted (responses are never dropped).
    pub fn max_pending_events(mut self, max_pending_events: usize) -> Self {
        self.max_pending_events = max_pending_events;
        self
    }

    /// Characters kept of a server log message or progress message.
    pub fn max_log_chars(mut self, max_log_chars: usize) -> Self {
        self.max_log_chars = max_log_chars;
        self
    }

    /// Pages followed by one list request.
    pub fn max_list_pages(mut self, max_list_pages: usize) -> Self {
        self.max_list_pages = max_list_pages;
        self
    }

    /// Items collected by one list request across pages.
    pub fn max_list_items(mut self, max_list_items: usize) -> Self {
        self.max_list_items = max_list_items;
        self
    }

    /// Server-to-client requests handled concurrently (legacy eras); more are refused.
    pub fn max_concurrent_server_requests(mut self, max_concurrent_server_requests: usize) -> Self {
        self.max_concurrent_server_requests = max_concurrent_server_requests;
        self
    }

    /// Finished wire ids remembered so a late response is recognised as late.
    pub fn recent_finished(mut self, recent_finished: usize) -> Self {
        self.recent_finished = recent_finished;
        self
    }

    /// Largest HTTP response body after decompression (a JSON body is bounded by `max_message_bytes` as well).
    #[cfg(feature = "http")]
    pub fn max_decompressed_body_bytes(mut self, max_decompressed_body_bytes: usize) -> Self {
        self.max_decompressed_body_bytes = max_decompressed_body_bytes;
        self
    }

    /// Bytes of an HTTP error body read to find a JSON-RPC error in it.
    #[cfg(feature = "http")]
    pub fn max_error_body_bytes(mut self, max_error_body_bytes: usize) -> Self {
        self.max_error_body_bytes = max_error_body_bytes;
        self
    }

    /// Cached results kept at once (lists, resource reads, across `_meta` and credentials); past it the oldest is dropped.
    pub fn max_cache_entries(mut self, max_cache_entries: usize) -> Self {
        self.max_cache_entries = max_cache_entries;
        self
    }

    /// `input_required` answers (2026-07-28 multi-round-trip input) one request may take; the one past it fails the request with [`RequestError::InputBudgetExhausted`](crate::RequestError::InputBudgetExhausted) (resumable).
    pub fn max_input_rounds(mut self, max_input_rounds: u32) -> Self {
        self.max_input_rounds = max_input_rounds;
        self
    }
}

/// Timeouts of one connection. All are enforced by the core through `poll_timeout`. The HTTP
/// ones (`http_connect`, `sse_keepalive`) exist with the `http` feature.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Timeouts {
    /// Default per-request timeout (a request may override it). Default 60 s.
    pub request: Duration,
    /// How long the `server/discover` probe may take before the server is judged legacy.
    /// Default 5 s.
    pub discover: Duration,
    /// How long the legacy `initialize` handshake may take. Default 30 s.
    pub initialize: Duration,
    /// After closing stdin, how long to wait for the process to exit before terminating it.
    /// Default 2 s.
    pub shutdown_grace: Duration,
    /// After a terminate signal, how long to wait before killing. Default 2 s.
    pub terminate_grace: Duration,
    /// After the process exited, how long to keep reading its stdout for final messages.
    /// Default 200 ms.
    pub exit_drain: Duration,
    /// How long opening an HTTP connection (TCP, proxy, TLS) may take. Default 10 s.
    #[cfg(feature = "http")]
    pub http_connect: Duration,
    /// HTTP+SSE: after this long without a byte on the event stream the client sends a `ping`;
    /// if the stream stays silent for as long again, it is judged dead and reopened.
    /// Default 30 s.
    #[cfg(feature = "http")]
    pub sse_keepalive: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Self {
            request: Duration::from_secs(60),
            discover: Duration::from_secs(5),
            initialize: Duration::from_secs(30),
            shutdown_grace: Duration::from_secs(2),
            terminate_grace: Duration::from_secs(2),
            exit_drain: Duration::from_millis(200),
            #[cfg(feature = "http")]
            http_connect: Duration::from_secs(10),
            #[cfg(feature = "http")]
            sse_keepalive: Duration::from_secs(30),
        }
    }
}

impl Timeouts {
    /// Sets `request`.
    pub fn request(mut self, request: Duration) -> Self {
        self.request = request;
        self
    }

    /// How long the `server/discover` probe may take before the server is judged legacy.
    pub fn discover(mut self, discover: Duration) -> Self {
        self.discover = discover;
        self
    }

    /// How long the legacy `initialize` handshake may take.
    pub fn initialize(mut self, initialize: Duration) -> Self {
        self.initialize = initialize;
        self
    }

    /// After closing stdin, how long to wait for the process to exit before terminating it.
    pub fn shutdown_grace(mut self, shutdown_grace: Duration) -> Self {
        self.shutdown_grace = shutdown_grace;
        self
    }

    /// After a terminate signal, how long to wait before killing.
    pub fn terminate_grace(mut self, terminate_grace: Duration) -> Self {
        self.terminate_grace = terminate_grace;
        self
    }

    /// After the process exited, how long to keep reading its stdout for final messages.
    pub fn exit_drain(mut self, exit_drain: Duration) -> Self {
        self.exit_drain = exit_drain;
        self
    }

    /// How long opening an HTTP connection (TCP, proxy, TLS) may take.
    #[cfg(feature = "http")]
    pub fn http_connect(mut self, http_connect: Duration) -> Self {
        self.http_connect = http_connect;
        self
    }

    /// HTTP+SSE: after this long without a byte on the event stream the client sends a `ping`; if the stream stays silent for as long again, it is judged dead and reopened.
    #[cfg(feature = "http")]
    pub fn sse_keepalive(mut self, sse_keepalive: Duration) -> Self {
        self.sse_keepalive = sse_keepalive;
        self
    }
}

/// The client features the host can serve; capabilities are derived from these, never assumed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ClientFeatures {
    /// A roots handler is installed.
    pub roots: bool,
    /// A sampling handler is installed.
    pub sampling: bool,
    /// A form-mode elicitation handler is installed.
    pub elicitation_form: bool,
    /// A URL-mode elicitation handler is installed.
    pub elicitation_url: bool,
    /// The sampling handler takes tool-enabled requests (`tools`, `toolChoice`): declares
    /// `sampling.tools` (SEP-1577). Without it such requests are refused.
    pub sampling_tools: bool,
    /// The sampling handler honours `includeContext` (`thisServer`, `allServers`): declares
    /// `sampling.context`. Without it the handler sees `"none"`.
    pub sampling_context: bool,
    /// The roots may change while connected and the client says so: declares
    /// `roots.listChanged` (legacy eras; 2026-07-28 has no such notification).
    pub roots_list_changed: bool,
}

impl ClientFeatures {
    /// A roots handler is installed.
    pub fn roots(mut self, yes: bool) -> Self {
        self.roots = yes;
        self
    }

    /// A sampling handler is installed.
    pub fn sampling(mut self, yes: bool) -> Self {
        self.sampling = yes;
        self
    }

    /// A form-mode elicitation handler is installed.
    pub fn elicitation_form(mut self, yes: bool) -> Self {
        self.elicitation_form = yes;
        self
    }

    /// A URL-mode elicitation handler is installed.
    pub fn elicitation_url(mut self, yes: bool) -> Self {
        self.elicitation_url = yes;
        self
    }

    /// The sampling handler takes tool-enabled requests (`tools`, `toolChoice`): declares `sampling.tools` (SEP-1577).
    pub fn sampling_tools(mut self, yes: bool) -> Self {
        self.sampling_tools = yes;
        self
    }

    /// The sampling handler honours `includeContext` (`thisServer`, `allServers`): declares `sampling.context`.
    pub fn sampling_context(mut self, yes: bool) -> Self {
        self.sampling_context = yes;
        self
    }

    /// The roots may change while connected and the client says so: declares `roots.listChanged` (legacy eras; 2026-07-28 has no such notification).
    pub fn roots_list_changed(mut self, yes: bool) -> Self {
        self.roots_list_changed = yes;
        self
    }

    /// The capabilities object announced in a legacy `initialize`.
    pub fn legacy_capabilities(&self) -> Value {
        let mut caps = Map::new();
        if self.roots {
            let mut roots = Map::new();
            if self.roots_list_changed {
                roots.insert("listChanged".into(), Value::Bool(true));
            }
            caps.insert("roots".into(), Value::Object(roots));
        }
        if self.sampling {
            let mut sampling = Map::new();
            if self.sampling_tools {
                sampling.insert("tools".into(), Value::Object(Map::new()));
            }
            if self.sampling_context {
                sampling.insert("context".into(), Value::Object(Map::new()));
            }
            caps.insert("sampling".into(), Value::Object(sampling));
        }
        if self.elicitation_form || self.elicitation_url {
            let mut e = Map::new();
            if self.elicitation_form {
                e.insert("form".into(), Value::Object(Map::new()));
            }
            if self.elicitation_url {
                e.insert("url".into(), Value::Object(Map::new()));
            }
            caps.insert("elicitation".into(), Value::Object(e));
        }
        Value::Object(caps)
    }

    /// The `clientCapabilities` sent with every modern request: the same features, served in
    /// 2026-07-28 through multi-round-trip `input_required` results.
    pub fn modern_capabilities(&self) -> Value {
        let mut caps = self.legacy_capabilities();
        // 2026-07-28 roots have no listChanged (servers ask again instead).
        if let Some(Value::Object(roots)) = caps.get_mut("roots") {
            roots.remove("listChanged");
        }
        // The tasks extension: a tools/call may be answered with a task, which the core polls.
        caps["extensions"] = serde_json::json!({ "io.modelcontextprotocol/tasks": {} });
        caps
    }
}

/// What to do when a tool's `structuredContent` does not match its `outputSchema` (feature
/// `schema`).
#[cfg(feature = "schema")]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum ValidationMode {
    /// Deliver the result and report the violations as a [`crate::Warning::StructuredContent`].
    #[default]
    Warn,
    /// Fail the call with [`crate::RequestError::StructuredContent`] (or
    /// [`crate::RequestError::ToolSchema`] when the schema cannot be used).
    Strict,
    /// Do not validate.
    Off,
}

/// How tool schemas are used (feature `schema`).
#[cfg(feature = "schema")]
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct SchemaValidation {
    /// What a violating `structuredContent` does (default [`ValidationMode::Warn`]).
    pub structured_content: ValidationMode,
    /// Assert `format` in output schemas (an annotation by default; feature `schema-formats`).
    #[cfg(feature = "schema-formats")]
    pub assert_format: bool,
    /// Bounds on schemas and validations.
    pub limits: crate::schema::SchemaLimits,
}

/// Everything one connection needs.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ConnectionConfig {
    /// How to reach the server.
    pub transport: TransportConfig,
    /// Identity sent to the server.
    pub client_info: Implementation,
    /// Which era to speak.
    pub protocol: ProtocolMode,
    /// Memory and work bounds.
    pub limits: Limits,
    /// Timeouts.
    pub timeouts: Timeouts,
    /// Features the host serves.
    pub features: ClientFeatures,
    /// Static `_meta` merged into every request (request-specific `_meta` wins).
    pub request_meta: Map<String, Value>,
    /// Tool schema checks (`outputSchema` validation, `inputSchema` dialects; feature `schema`).
    #[cfg(feature = "schema")]
    pub validation: SchemaValidation,
    /// Seed of the jitter applied to retry and reconnection delays. The core has no source of
    /// randomness of its own; runtimes seed it from the OS, simulations from their seed.
    pub random_seed: u64,
    /// How often this connection reports a deprecated feature in use
    /// ([`crate::Warning::Deprecated`]); `None` (default) follows the process-wide mode of
    /// [`crate::set_deprecation_notices`].
    pub deprecation_notices: Option<crate::DeprecationNotices>,
    /// Roots the connection answers `roots/list` with by itself (no handler; `None`: a handler
    /// answers, if any). [`crate::Connection::set_roots`] changes them while connected. The
    /// host also sets [`ClientFeatures::roots`] and [`ClientFeatures::roots_list_changed`].
    pub roots: Option<Vec<crate::types::Root>>,
    /// Records what goes over the wire for [`crate::Connection::poll_wire`] (default off: then
    /// nothing is copied or encoded for it). See [`crate::WireRecord`].
    pub wire_trace: bool,
}

impl ConnectionConfig {
    /// Identity sent to the server.
    pub fn client_info(mut self, client_info: Implementation) -> Self {
        self.client_info = client_info;
        self
    }

    /// Which era to speak.
    pub fn protocol(mut self, protocol: ProtocolMode) -> Self {
        self.protocol = protocol;
        self
    }

    /// Memory and work bounds.
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Timeouts.
    pub fn timeouts(mut self, timeouts: Timeouts) -> Self {
        self.timeouts = timeouts;
        self
    }

    /// Features the host serves.
    pub fn features(mut self, features: ClientFeatures) -> Self {
        self.features = features;
        self
    }

    /// Static `_meta` merged into every request (request-specific `_meta` wins).
    pub fn request_meta(mut self, request_meta: Map<String, Value>) -> Self {
        self.request_meta = request_meta;
        self
    }

    /// Tool schema checks (`outputSchema` validation, `inputSchema` dialects; feature `schema`).
    #[cfg(feature = "schema")]
    pub fn validation(mut self, validation: SchemaValidation) -> Self {
        self.validation = validation;
        self
    }

    /// Seed of the jitter applied to retry and reconnection delays.
    pub fn random_seed(mut self, random_seed: u64) -> Self {
        self.random_seed = random_seed;
        self
    }

    /// How often this connection reports a deprecated feature in use ([`crate::Warning::Deprecated`]); `None` (default) follows the process-wide mode of [`crate::set_deprecation_notices`].
    pub fn deprecation_notices(mut self, deprecation_notices: crate::DeprecationNotices) -> Self {
        self.deprecation_notices = Some(deprecation_notices);
        self
    }

    /// Roots the connection answers `roots/list` with by itself (no handler; `None`: a handler answers, if any).
    pub fn roots(mut self, roots: Vec<crate::types::Root>) -> Self {
        self.roots = Some(roots);
        self
    }

    /// Records what goes over the wire for [`crate::Connection::poll_wire`] (default off).
    pub fn wire_trace(mut self, on: bool) -> Self {
        self.wire_trace = on;
        self
    }

    /// A configuration with defaults for a stdio server.
    pub fn stdio(command: StdioCommand) -> Self {
        Self::with_transport(TransportConfig::Stdio(command))
    }

    /// A configuration with defaults for an HTTP server.
    #[cfg(feature = "http")]
    pub fn http(http: HttpConfig) -> Self {
        Self::with_transport(TransportConfig::Http(http))
    }

    /// A configuration with defaults for any transport.
    pub fn with_transport(transport: TransportConfig) -> Self {
        Self {
            transport,
            client_info: Implementation::new("mcpwire", env!("CARGO_PKG_VERSION")),
            protocol: ProtocolMode::Auto,
            limits: Limits::default(),
            timeouts: Timeouts::default(),
            features: ClientFeatures::default(),
            request_meta: Map::new(),
            #[cfg(feature = "schema")]
            validation: SchemaValidation::default(),
            random_seed: 0,
            deprecation_notices: None,
            roots: None,
            wire_trace: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_and_display_hide_secrets() {
        let cmd =
            StdioCommand::new("server").args(["--token", "hunter2-secret"]).env("API_KEY", "sk-live-xyz");
        let shown = format!("{cmd:?} {}", cmd.display());
        assert!(!shown.contains("hunter2-secret") && !shown.contains("sk-live-xyz"), "{shown}");
        assert!(shown.contains("API_KEY") && shown.contains("server"));
    }
}
