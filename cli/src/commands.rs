//! The commands that talk to one server: build a client, run one action, render, close.

use std::collections::BTreeMap;
use std::future::Future;
use std::process::ExitCode;
use std::time::Duration;

use mcpwire_tokio::mcp_servers::{detect_target, DetectedTarget, TransportKind};
use mcpwire_tokio::types::{CompletionReference, ResourceTemplate, Tool};
use mcpwire_tokio::{
    Client, ClientError, Event, Notification, ProtocolMode, RequestError, RpcErrorKind, Server, ServerSpec,
    SubscriptionUpdate, ValidationMode, Warning,
};
use serde_json::Value;

use crate::exit;
use crate::output::{self, emit, note};
use crate::selection::{Selected, Selection};

/// What the global flags ask for.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Print JSON instead of text.
    pub json: bool,
    /// The protocol era to speak.
    pub protocol: ProtocolMode,
    /// Overrides the default request timeout.
    pub timeout: Option<Duration>,
    /// Report the server's stderr, logs and warnings on stderr.
    pub verbose: bool,
    /// Headers for every HTTP request.
    pub headers: Vec<(String, String)>,
    /// A forced transport (`None`: detect it from the target).
    pub transport: Option<TransportKind>,
    /// Retries of failed HTTP requests.
    pub retries: u32,
    /// What `call` does with structured content that breaks the tool's outputSchema.
    pub validation: ValidationMode,
    /// `--config` / `--server`.
    pub selection: Selection,
    /// `--auth` and the OAuth flags.
    pub auth: crate::auth::AuthSettings,
    /// `--trace FILE`: the wire trace's file.
    pub trace: Option<crate::trace_file::TraceFile>,
}

/// What to do with a server.
#[derive(Debug, Clone)]
pub enum Action {
    /// Era, version, identity, capabilities.
    Info,
    /// List the tools.
    Tools,
    /// Call a tool with these (already validated) arguments.
    Call {
        /// The tool's name.
        tool: String,
        /// A JSON object.
        arguments: Value,
        /// Start it as a task and wait for the task's result.
        as_task: bool,
    },
    /// Something about the server's tasks.
    Tasks(crate::tasks::TaskAction),
    /// List the prompts.
    Prompts,
    /// List the resources and resource templates.
    Resources,
    /// Read a resource.
    Read {
        /// The resource's URI.
        uri: String,
    },
    /// Get a prompt with these arguments.
    GetPrompt {
        /// The prompt's name.
        name: String,
        /// Its arguments (strings).
        arguments: serde_json::Map<String, Value>,
    },
    /// List the resource templates.
    Templates,
    /// Ask for completions of an argument.
    Complete {
        /// The prompt or resource template the argument belongs to.
        reference: CompletionReference,
        /// The argument's name.
        argument: String,
        /// What has been typed so far.
        value: String,
        /// Arguments already chosen (2025-06-18 servers and later).
        context: BTreeMap<String, String>,
    },
}

/// A failure, shown as one `error: ...` line, with the exit code it ends the command with
/// (see [`crate::exit`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CliError {
    message: String,
    code: u8,
}

impl CliError {
    /// A failed request (exit code 1), with this message folded onto one line.
    pub fn new(message: impl std::fmt::Display) -> Self {
        Self::with_code(message, exit::FAILED)
    }

    /// A usage error (exit code 2).
    pub fn usage(message: impl std::fmt::Display) -> Self {
        Self::with_code(message, exit::USAGE)
    }

    fn with_code(message: impl std::fmt::Display, code: u8) -> Self {
        let message = message.to_string();
        let lines: Vec<&str> = message.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
        Self { message: lines.join(" | "), code }
    }

    /// The exit code.
    pub fn code(&self) -> u8 {
        self.code
    }
}

impl std::fmt::Display for CliError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl From<ClientError> for CliError {
    fn from(e: ClientError) -> Self {
        Self::with_code(&e, exit::code_of(&e))
    }
}

impl From<mcpwire_tokio::mcp_servers::TargetConfigError> for CliError {
    fn from(e: mcpwire_tokio::mcp_servers::TargetConfigError) -> Self {
        Self::usage(format!("invalid TARGET: {e}"))
    }
}

/// Parses the `JSON_ARGS` of `mcp call`: it must be a JSON object.
pub fn parse_arguments(text: &str) -> Result<Value, CliError> {
    let value: Value = serde_json::from_str(text).map_err(|e| {
        CliError::usage(format!(
            "JSON_ARGS is not valid JSON ({e}); expected an object like '{{\"key\": \"value\"}}'"
        ))
    })?;
    match value {
        Value::Object(_) => Ok(value),
        other => {
            let kind = match other {
                Value::Null => "null",
                Value::Bool(_) => "a boolean",
                Value::Number(_) => "a number",
                Value::String(_) => "a string",
                Value::Array(_) => "an array",
                Value::Object(_) => "an object",
            };
            Err(CliError::usage(format!("JSON_ARGS must be a JSON object, got {kind}")))
        }
    }
}

/// With `--verbose`: one stderr line per stderr line, log message, warning, disconnect or
/// dropped subscription.
fn report_event(server: &str, event: &Event) {
    let line = match event {
        Event::Stderr(line) => format!("[{server}] stderr: {line}"),
        Event::Warning(w) => format!("[{server}] warning: {w}"),
        Event::Notification(Notification::Log(m)) => {
            let logger = m.logger.as_deref().map(|l| format!(" {l}")).unwrap_or_default();
            format!("[{server}] log {}{logger}: {}", m.level, m.text)
        }
        Event::Disconnected { reason } => format!("[{server}] disconnected: {reason}"),
        Event::Subscription { update: SubscriptionUpdate::Reconnecting { reason }, .. } => {
            format!("[{server}] subscription dropped, re-opening: {reason}")
        }
        Event::ResourceSubscriptionDropped { uri, reason } => {
            format!("[{server}] subscription to {uri} dropped: {reason}")
        }
        _ => return,
    };
    note(&line);
}

/// Without `--verbose`: only the warnings about a result's schema (they are about the output)
/// and deprecated features in use (each once per process: the core's default).
fn report_quiet_warning(server: &str, event: &Event) {
    if let Event::Warning(
        w @ (Warning::StructuredContent { .. } | Warning::ToolSchema { .. } | Warning::Deprecated { .. }),
    ) = event
    {
        note(&format!("[{server}] warning: {w}"));
    }
}

/// Another event hook, called after the one the settings install.
pub type ExtraHook = Box<dyn Fn(&str, &Event) + Send + Sync>;

/// Builds a client for one server with the global settings applied.
fn build_client(settings: &Settings, spec: ServerSpec, extra: Option<ExtraHook>) -> Result<Client, CliError> {
    let mut spec = spec.protocol(settings.protocol).validate_structured_content(settings.validation);
    if let Some(timeout) = settings.timeout {
        spec = spec.request_timeout(timeout);
    }
    let report: fn(&str, &Event) = if settings.verbose { report_event } else { report_quiet_warning };
    let (spec, store) = settings.auth.apply(spec)?;
    let mut builder = Client::builder().browser_authorization(crate::auth::browser());
    if let Some(store) = store {
        builder = builder.token_store(store);
    }
    if let Some(trace) = settings.trace.clone() {
        builder = builder.wire_trace(move |server, at, record| trace.write(server, at, record));
    }
    let builder = builder.server(spec).on_event(move |server, event| {
        report(server, event);
        if let Some(extra) = &extra {
            extra(server, event);
        }
    });
    Ok(builder.build()?)
}

/// Runs `body` against the one server of `spec`, then closes the client whatever the outcome.
pub async fn with_server<T, F, Fut>(settings: &Settings, spec: ServerSpec, body: F) -> Result<T, CliError>
where
    F: FnOnce(Server) -> Fut,
    Fut: Future<Output = Result<T, CliError>>,
{
    with_server_hooked(settings, spec, None, body).await
}

/// [`with_server`], with another event hook.
pub async fn with_server_hooked<T, F, Fut>(
    settings: &Settings,
    spec: ServerSpec,
    extra: Option<ExtraHook>,
    body: F,
) -> Result<T, CliError>
where
    F: FnOnce(Server) -> Fut,
    Fut: Future<Output = Result<T, CliError>>,
{
    let client = build_client(settings, spec, extra)?;
    let outcome = match client.servers().first() {
        Some(server) => body(server.clone()).await,
        None => Err(CliError::new("no server configured")),
    };
    client.close().await;
    outcome
}

/// Prints the JSON or the text form, as the settings ask.
fn show(settings: &Settings, json: impl FnOnce() -> Value, text: impl FnOnce() -> String) {
    if settings.json {
        emit(&output::pretty(&json()));
    } else {
        emit(&text());
    }
}

/// Resource templates, treating "method not found" as none (servers from before templates).
async fn resource_templates(server: &Server) -> Result<Vec<ResourceTemplate>, CliError> {
    match server.list_resource_templates().await {
        Err(ClientError::Request(RequestError::Rpc(e))) if e.kind() == RpcErrorKind::MethodNotFound => {
            Ok(Vec::new())
        }
        other => Ok(other?),
    }
}

/// Performs `action` on `server` and prints the outcome.
async fn perform(settings: &Settings, server: Server, action: Action) -> Result<ExitCode, CliError> {
    match action {
        Action::Info => {
            let info = server.connect().await?;
            show(settings, || output::info_json(&info), || output::info_text(&info));
        }
        Action::Tools => {
            let tools = server.list_tools().await?;
            show(settings, || output::json_array(tools.iter().map(Tool::raw)), || output::tools_text(&tools));
        }
        Action::Tasks(action) => crate::tasks::run(settings, server, action).await?,
        Action::Call { tool, arguments, as_task } => {
            if settings.validation != ValidationMode::Off {
                // The tool's schemas come from its definition.
                server.list_tools().await?;
            }
            let result = if as_task {
                crate::tasks::call_as_task(&server, &tool, arguments).await?
            } else {
                crate::progress::call_showing_progress(settings, &server, &tool, arguments).await?
            };
            show(settings, || result.raw().clone(), || output::call_result_text(&result));
            if result.is_error {
                note(&format!("error: tool {:?} reported an error (isError)", output::one_line(&tool, 120)));
                return Ok(ExitCode::FAILURE);
            }
        }
        Action::Prompts => {
            let prompts = server.list_prompts().await?;
            let json = || output::json_array(prompts.iter().map(|p| p.raw()));
            show(settings, json, || output::prompts_text(&prompts));
        }
        Action::Resources => {
            let resources = server.list_resources().await?;
            let templates = resource_templates(&server).await?;
            show(
                settings,
                || output::resources_json(&resources, &templates),
                || output::resources_text(&resources, &templates),
            );
        }
        Action::Read { uri } => {
            let result = server.read_resource(&uri).await?;
            show(settings, || result.raw().clone(), || output::read_result_text(&result));
        }
        Action::GetPrompt { name, arguments } => {
            let result = server.get_prompt(&name, arguments).await?;
            show(settings, || result.raw().clone(), || output::prompt_result_text(&result));
        }
        Action::Templates => {
            let templates = server.list_resource_templates().await?;
            let json = || output::json_array(templates.iter().map(|t| t.raw()));
            show(settings, json, || output::resources_text(&[], &templates));
        }
        Action::Complete { reference, argument, value, context } => {
            let result = if context.is_empty() {
                server.complete(reference, &argument, &value).await?
            } else {
                server.complete(reference, &argument, &value).context(context).await?
            };
            show(settings, || result.raw().clone(), || output::completion_text(&result));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The server `target` (or `--config`/`--server`) names, with the HTTP settings applied.
pub fn spec_for(settings: &Settings, target: Option<&str>) -> Result<ServerSpec, CliError> {
    let spec = match settings.selection.spec(target)? {
        Selected::Spec(spec) => *spec,
        Selected::Target(target) => {
            let detected = detect_target(&target, settings.transport)?;
            let is_http = matches!(detected, DetectedTarget::Http { .. });
            if !is_http && (!settings.headers.is_empty() || settings.retries > 0) {
                return Err(CliError::usage(
                    "--header and --retries apply to HTTP servers; TARGET is a command line",
                ));
            }
            ServerSpec::from_detected(detected.suggested_name(), detected)
        }
    };
    let mut spec = spec.retries(settings.retries);
    for (name, value) in &settings.headers {
        spec = spec.header(name, value);
    }
    Ok(spec)
}

/// Runs one action against the server `target` names.
pub async fn run(settings: &Settings, target: Option<&str>, action: Action) -> Result<ExitCode, CliError> {
    let spec = spec_for(settings, target)?;
    with_server(settings, spec, |server| perform(settings, server, action)).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn arguments_must_be_a_json_object() {
        assert_eq!(parse_arguments("{}").unwrap(), json!({}));
        assert_eq!(parse_arguments(r#" {"message": "hi"} "#).unwrap(), json!({"message": "hi"}));
        let err = parse_arguments("[1]").unwrap_err();
        assert_eq!(err.to_string(), "JSON_ARGS must be a JSON object, got an array");
        let err = parse_arguments("{message: hi}").unwrap_err();
        assert!(err.to_string().starts_with("JSON_ARGS is not valid JSON ("), "{err}");
        assert!(!err.to_string().contains('\n'));
        assert!(parse_arguments("").is_err());
        assert!(parse_arguments("null").unwrap_err().to_string().ends_with("got null"));
    }

    #[test]
    fn errors_are_one_line() {
        let err = CliError::new("connection lost: exit 3\n  last stderr:\n\n  boom\n");
        assert_eq!(err.to_string(), "connection lost: exit 3 | last stderr: | boom");
    }
}
