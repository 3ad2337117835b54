//! Named server specifications: what a multi-server client is built from.

use std::time::Duration;

use serde_json::{Map, Value};

use crate::config::{ConnectionConfig, Limits, ProtocolMode, StdioCommand, TransportConfig};
use crate::error::ClientError;
use crate::mcp_servers::{parse_mcp_servers, redact_url, EntryTransport, ServerEntry};
use crate::target::{parse_stdio_target, TargetError};
use crate::types::{Implementation, Tool};

/// One server of a client: a name and its connection configuration, with builder methods.
#[derive(Debug, Clone)]
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

    /// A server from a target string (a command line, or `stdio://` plus one).
    pub fn from_target(name: impl Into<String>, target: &str) -> Result<Self, TargetError> {
        Ok(Self::stdio(name, parse_stdio_target(target)?))
    }

    /// A server from a target string, named after what it runs (see
    /// [`crate::target::suggested_name`]).
    pub fn from_target_named(target: &str) -> Result<Self, TargetError> {
        let cmd = parse_stdio_target(target)?;
        let name = crate::target::suggested_name(&cmd);
        Ok(Self::stdio(name, cmd))
    }

    /// A server from an `mcpServers` configuration entry. Stdio entries are supported; HTTP
    /// entries fail with [`TargetError::UnsupportedUrl`] (redacted) until the HTTP transports land.
    pub fn from_entry(entry: ServerEntry) -> Result<Self, TargetError> {
        match entry.transport {
            EntryTransport::Stdio(command) => Ok(Self::stdio(entry.name, command)),
            EntryTransport::Http { url, .. } => Err(TargetError::UnsupportedUrl(redact_url(&url))),
        }
    }

    /// Every server of an `mcpServers` JSON configuration (the format MCP hosts use), sorted
    /// by name; disabled entries are skipped.
    pub fn from_mcp_servers(json: &str) -> Result<Vec<Self>, ClientError> {
        let entries = parse_mcp_servers(json).map_err(|e| ClientError::Config(e.to_string()))?;
        entries.into_iter().map(|e| Self::from_entry(e).map_err(ClientError::from)).collect()
    }

    /// Which protocol era to speak (default [`ProtocolMode::Auto`]).
    pub fn protocol(mut self, mode: ProtocolMode) -> Self {
        self.config.protocol = mode;
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

    /// Grace period between closing stdin and terminating the process at shutdown.
    pub fn shutdown_grace(mut self, grace: Duration) -> Self {
        self.config.timeouts.shutdown_grace = grace;
        self
    }

    /// Adds an environment variable for a stdio server.
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        let TransportConfig::Stdio(cmd) = &mut self.config.transport;
        cmd.env.push((key.into(), value.into()));
        self
    }

    /// Sets the working directory of a stdio server.
    pub fn cwd(mut self, dir: impl Into<String>) -> Self {
        let TransportConfig::Stdio(cmd) = &mut self.config.transport;
        cmd.cwd = Some(dir.into());
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

    /// Static `_meta` merged into every request.
    pub fn request_meta(mut self, meta: Map<String, Value>) -> Self {
        self.config.request_meta = meta;
        self
    }

    /// A display form of the target (environment values are never shown).
    pub fn describe(&self) -> String {
        let TransportConfig::Stdio(cmd) = &self.config.transport;
        format!("{} (stdio: {})", self.name, cmd.display())
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
        let http = r#"{"mcpServers": {"web": {"url": "https://h/mcp?token=t0ps3cret"}}}"#;
        let err = ServerSpec::from_mcp_servers(http).unwrap_err().to_string();
        assert!(err.contains("not supported yet") && !err.contains("t0ps3cret"), "{err}");
        assert!(matches!(ServerSpec::from_mcp_servers("{"), Err(ClientError::Config(_))));
    }
}
