//! Named server specifications: what a multi-server client is built from.

use std::time::Duration;

use serde_json::{Map, Value};

use crate::command::StdioCommand;
#[cfg(feature = "http")]
use crate::config::HttpConfig;
use crate::config::{ConnectionConfig, Limits, ProtocolMode, TransportConfig};
use crate::error::ClientError;
use crate::mcp_servers::{
    detect_target, parse_mcp_servers, DetectedTarget, EntryTransport, ServerEntry, TargetConfigError,
    TransportKind,
};
use crate::types::{Implementation, Tool};

fn detect(target: &str, forced: Option<TransportKind>) -> Result<DetectedTarget, TargetConfigError> {
    detect_target(target, forced)
}

/// One server of a client: a name and its connection configuration, with builder methods.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ServerSpec {
    /// The server's name inside the client (used for routing and in events).
    pub name: String,
    /// How to connect and behave.
    pub config: ConnectionConfig,
}

impl ServerSpec {
    /// A stdio server.
    pub fn stdio(name: impl Into<String>, command: StdioCommand) -> Self {
        Self { name: name.into(), config: ConnectionConfig::stdio(command) }
    }

    /// An HTTP server.
    #[cfg(feature = "http")]
    pub fn http(name: impl Into<String>, http: HttpConfig) -> Self {
        Self { name: name.into(), config: ConnectionConfig::http(http) }
    }

    /// A server from a target string: an `http(s)://` URL (transport detected from its shape,
    /// see [`detect_target`]; [`TargetConfigError::HttpNotCompiled`] without the `http`
    /// feature), `stdio://` plus a command line, or a command line.
    pub fn from_target(name: impl Into<String>, target: &str) -> Result<Self, TargetConfigError> {
        Ok(Self::from_detected(name.into(), detect(target, None)?))
    }

    /// Like [`ServerSpec::from_target`], with the transport forced instead of detected.
    pub fn from_target_forced(
        name: impl Into<String>,
        target: &str,
        transport: TransportKind,
    ) -> Result<Self, TargetConfigError> {
        Ok(Self::from_detected(name.into(), detect(target, Some(transport))?))
    }

    /// A server from a target string, named after what it runs (see
    /// [`crate::target::suggested_name`]) or the URL's host.
    pub fn from_target_named(target: &str) -> Result<Self, TargetConfigError> {
        let detected = detect(target, None)?;
        Ok(Self::from_detected(detected.suggested_name(), detected))
    }

    /// A server from a detected target.
    pub fn from_detected(name: String, detected: DetectedTarget) -> Self {
        match detected {
            DetectedTarget::Stdio(cmd) => Self::stdio(name, cmd),
            #[cfg(feature = "http")]
            DetectedTarget::Http { url, kinds } => {
                let mut http = HttpConfig::new(&url).unwrap_or_else(|_| HttpConfig {
                    url: url.clone(),
                    kinds: Vec::new(),
                    headers: Vec::new(),
                    retries: 0,
                    retry_delay: Duration::from_millis(500),
                    auth: crate::oauth::HttpAuth::None,
                });
                http.url = url;
                http.kinds = kinds;
                Self::http(name, http)
            }
        }
    }

    /// A server from an `mcpServers` configuration entry (stdio or HTTP, headers included).
    pub fn from_entry(entry: ServerEntry) -> Result<Self, TargetConfigError> {
        match entry.transport {
            EntryTransport::Stdio(command) => Ok(Self::stdio(entry.name, command)),
            #[cfg(feature = "http")]
            EntryTransport::Http { ref headers, .. } => {
                let (detected, headers) = (entry.detected(), headers.clone());
                let mut spec = Self::from_detected(entry.name, detected);
                if let TransportConfig::Http(http) = &mut spec.config.transport {
                    http.headers = headers;
                }
                Ok(spec)
            }
        }
    }

    /// Every server of an `mcpServers` JSON configuration (the format MCP hosts use), sorted
    /// by name; disabled entries are skipped. Without the `http` feature an HTTP entry fails the
    /// whole configuration ([`TargetConfigError::HttpNotCompiled`], as [`ClientError::Config`]).
    pub fn from_mcp_servers(json: &str) -> Result<Vec<Self>, ClientError> {
        let entries = parse_mcp_servers(json).map_err(|e| ClientError::Config(e.to_string()))?;
        entries.into_iter().map(|e| Self::from_entry(e).map_err(ClientError::from)).collect()
    }

    /// Which protocol era to speak (default [`ProtocolMode::Auto`]).
    pub fn protocol(mut self, mode: ProtocolMode) -> Self {
        self.config.protocol = mode;
        self
    }

    /// What a `structuredContent` that breaks its tool's `outputSchema` does (default
    /// [`crate::ValidationMode::Warn`]; feature `schema`).
    #[cfg(feature = "schema")]
    pub fn validate_structured_content(mut self, mode: crate::ValidationMode) -> Self {
        self.config.validation.structured_content = mode;
        self
    }

    /// How often this server's use of deprecated features is reported
    /// ([`crate::Warning::Deprecated`]); by default the process-wide mode of
    /// [`crate::set_deprecation_notices`] (once per process).
    pub fn deprecation_notices(mut self, mode: crate::DeprecationNotices) -> Self {
        self.config.deprecation_notices = Some(mode);
        self
    }

    /// Assert `format` when validating `structuredContent` (off by default: an annotation;
    /// feature `schema-formats`).
    #[cfg(feature = "schema-formats")]
    pub fn assert_format(mut self, yes: bool) -> Self {
        self.config.validation.assert_format = yes;
        self
    }

    /// Default timeout of every request.
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.config.timeouts.request = timeout;
        self
    }

    /// Bound on the `server/discover` probe.
    pub fn discover_timeout(mut self, timeout: Duration) -> Self {
        self.config.timeouts.discover = timeout;
        self
    }

    /// How long opening an HTTP connection (TCP, proxy, TLS) may take (ignored for stdio).
    #[cfg(feature = "http")]
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.config.timeouts.http_connect = timeout;
        self
    }

    /// Grace period between closing stdin and terminating the process at shutdown.
    pub fn shutdown_grace(mut self, grace: Duration) -> Self {
        self.config.timeouts.shutdown_grace = grace;
        self
    }

    /// Adds an environment variable for a stdio server.
    pub fn env(mut self, key: impl AsRef<std::ffi::OsStr>, value: impl AsRef<std::ffi::OsStr>) -> Self {
        if let Some(cmd) = self.config.transport.stdio_mut() {
            cmd.env.push((key.as_ref().to_owned(), value.as_ref().to_owned()));
        }
        self
    }

    /// Sets the working directory of a stdio server.
    pub fn cwd(mut self, dir: impl AsRef<std::path::Path>) -> Self {
        if let Some(cmd) = self.config.transport.stdio_mut() {
            cmd.cwd = Some(dir.as_ref().to_owned());
        }
        self
    }

    /// Adds a header sent with every HTTP request (ignored for stdio servers).
    #[cfg(feature = "http")]
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        if let TransportConfig::Http(http) = &mut self.config.transport {
            http.headers.push((name.into(), value.into()));
        }
        self
    }

    /// How many times an HTTP request failing in transport or with 5xx is retried (see
    /// [`HttpConfig::retries`]; ignored for stdio servers).
    #[cfg(feature = "http")]
    pub fn retries(mut self, retries: u32) -> Self {
        if let TransportConfig::Http(http) = &mut self.config.transport {
            http.retries = retries;
        }
        self
    }

    /// Authorizes with OAuth 2.1 on `401`/`403` (ignored for stdio servers): give it an
    /// [`OAuthSetup`](crate::oauth::OAuthSetup), or the host's `OAuthOptions`
    /// (`mcpwire_host::auth::OAuthOptions`, re-exported by the runtime crates as `auth`). The client
    /// builder completes the setup (OS entropy, wall clock, a stored record) and needs an
    /// authorization handler for the authorization code grant.
    #[cfg(feature = "oauth")]
    pub fn oauth(mut self, setup: impl Into<crate::oauth::OAuthSetup>) -> Self {
        if let TransportConfig::Http(http) = &mut self.config.transport {
            http.auth = crate::oauth::HttpAuth::OAuth(Box::new(setup.into()));
        }
        self
    }

    /// Answers `401`/`403` with access tokens from the host's token provider
    /// (`ClientBuilder::token_provider`) instead of running OAuth itself (ignored for stdio
    /// servers).
    #[cfg(feature = "http")]
    pub fn token_provider(mut self) -> Self {
        if let TransportConfig::Http(http) = &mut self.config.transport {
            http.auth = crate::oauth::HttpAuth::TokenProvider;
        }
        self
    }

    /// The identity sent to the server.
    pub fn client_info(mut self, info: Implementation) -> Self {
        self.config.client_info = info;
        self
    }

    /// Replaces the limits.
    pub fn limits(mut self, limits: Limits) -> Self {
        self.config.limits = limits;
        self
    }

    /// How many `input_required` answers one request may take before it fails with a resumable
    /// [`RequestError::InputBudgetExhausted`](crate::RequestError::InputBudgetExhausted)
    /// (default 10; see [`Limits::max_input_rounds`]).
    pub fn max_input_rounds(mut self, rounds: u32) -> Self {
        self.config.limits.max_input_rounds = rounds;
        self
    }

    /// Static `_meta` merged into every request.
    pub fn request_meta(mut self, meta: Map<String, Value>) -> Self {
        self.config.request_meta = meta;
        self
    }

    /// A display form of the target (environment values are never shown).
    pub fn describe(&self) -> String {
        match &self.config.transport {
            TransportConfig::Stdio(cmd) => format!("{} (stdio: {})", self.name, cmd.display()),
            #[cfg(feature = "http")]
            TransportConfig::Http(http) => {
                let kinds: Vec<&str> = http.kinds.iter().map(|k| k.as_str()).collect();
                let url = crate::redact::redact_url(&http.url);
                format!("{} ({}: {})", self.name, kinds.join(" or "), url)
            }
        }
    }
}

/// A tool together with the server that offers it.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerTool {
    /// The server's name.
    pub server: String,
    /// The tool.
    pub tool: Tool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_from_an_mcp_servers_file() {
        let json = r#"{"mcpServers": {
            "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"],
                      "env": {"API_KEY": "sk-secret"}},
            "off": {"command": "x", "disabled": true}
        }}"#;
        let specs = ServerSpec::from_mcp_servers(json).unwrap();
        assert_eq!(specs.len(), 1);
        assert_eq!(specs[0].name, "files");
        assert!(!format!("{:?} {}", specs[0], specs[0].describe()).contains("sk-secret"));
        assert!(matches!(ServerSpec::from_mcp_servers("{"), Err(ClientError::Config(_))));
    }

    #[cfg(feature = "http")]
    #[test]
    fn http_specs_from_an_mcp_servers_file() {
        let http = r#"{"mcpServers": {"web": {"url": "https://h/mcp?token=t0ps3cret"}}}"#;
        let specs = ServerSpec::from_mcp_servers(http).unwrap();
        let shown = format!("{:?} {}", specs[0], specs[0].describe());
        assert!(shown.contains("https://h/mcp") && !shown.contains("t0ps3cret"), "{shown}");
        assert!(
            matches!(&specs[0].config.transport, TransportConfig::Http(h) if h.url.contains("t0ps3cret"))
        );
    }

    #[cfg(not(feature = "http"))]
    #[test]
    fn http_servers_need_the_http_feature() {
        let http = r#"{"mcpServers": {"web": {"url": "https://h/mcp?token=t0ps3cret"}}}"#;
        let Err(ClientError::Config(message)) = ServerSpec::from_mcp_servers(http) else { panic!() };
        assert!(message.contains("\"web\": HTTP support is not compiled in"), "{message}");
        assert!(!message.contains("t0ps3cret"), "{message}");
        assert_eq!(
            ServerSpec::from_target("s", "https://h/mcp").unwrap_err(),
            TargetConfigError::HttpNotCompiled { server: None }
        );
    }

    #[cfg(feature = "http")]
    #[test]
    fn a_forced_transport_wins_over_detection() {
        // An `/sse` URL is detected as HTTP+SSE first; forced, it is Streamable HTTP only.
        let detected = ServerSpec::from_target("s", "https://h/sse").unwrap();
        let forced =
            ServerSpec::from_target_forced("s", "https://h/sse", TransportKind::StreamableHttp).unwrap();
        let kinds = |spec: &ServerSpec| match &spec.config.transport {
            TransportConfig::Http(h) => h.kinds.clone(),
            other => panic!("{other:?}"),
        };
        assert_ne!(kinds(&detected), kinds(&forced));
        assert_eq!(kinds(&forced), [TransportKind::StreamableHttp]);
    }

    #[test]
    fn stdio_settings_take_os_strings_and_paths() {
        let mut spec = ServerSpec::stdio("s", StdioCommand::new("srv"))
            .env(std::ffi::OsStr::new("K"), "v")
            .cwd(std::path::Path::new("/srv/data"));
        let cmd = spec.config.transport.stdio_mut().expect("a stdio server");
        assert_eq!(cmd.env, [("K".into(), "v".into())]);
        assert_eq!(cmd.cwd.as_deref(), Some(std::path::Path::new("/srv/data")));
        assert_eq!(cmd.display(), "srv [env: K=***] [cwd: /srv/data]");
    }
}
