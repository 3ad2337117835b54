//! The commands that talk to one server: build a client, run one action, render, close.

use std::collections::BTreeMap;
use std::future::Future;
use std::process::ExitCode;
use std::time::Duration;

use mcpwire_tokio::mcp_servers::{detect_argv, detect_target, DetectedTarget, TransportKind};
use mcpwire_tokio::types::{CompletionReference, LoggingLevel, Tool};
use mcpwire_tokio::StdioCommand;
use mcpwire_tokio::{
    Client, ClientError, Event, Notification, ProtocolMode, Request, RequestError, RpcErrorKind, Server,
    ServerSpec, SubscriptionUpdate, TransportConfig, ValidationMode, Warning,
};
use serde_json::{json, Value};

use crate::arguments::ArgInput;

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
    /// Whether the client's reports (the warnings always shown, and with `verbose` the rest) go
    /// to stderr; the shell turns it off and prints them above its prompt instead.
    pub events_on_stderr: bool,
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
    /// `-e KEY=VALUE`: environment variables for a stdio server.
    pub env: Vec<(String, String)>,
    /// `--cwd DIR`: a stdio server's working directory.
    pub cwd: Option<std::path::PathBuf>,
    /// `--log-level LEVEL`: set after connecting; the server's log messages go to stderr.
    pub log_level: Option<LoggingLevel>,
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
    /// Call a tool with these arguments (typed and checked by its schema before the call).
    Call {
        /// The tool's name.
        tool: String,
        /// The arguments as given.
        arguments: ArgInput,
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
        /// Its arguments as given (checked against the prompt's declared arguments).
        arguments: ArgInput,
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
    /// Any request; prints the raw result.
    Request {
        /// The JSON-RPC method.
        method: String,
        /// Its params (an object, or `null` for none).
        params: Value,
    },
    /// `ping` (`server/discover` on 2026-07-28 servers).
    Ping,
    /// `logging/setLevel`.
    LogLevel(LoggingLevel),
}

/// A failure, shown as one `error: ...` line, with the exit code it ends the command with
/// (see [`crate::exit`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CliError {
    message: String,
    code: u8,
    /// The server's JSON-RPC error (code, message, data), when the failure was one.
    rpc: Option<(i64, String, Option<Value>)>,
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
        Self { message: lines.join(" | "), code, rpc: None }
    }

    /// The same failure (code, JSON-RPC error), its message after `what: `.
    pub fn context(mut self, what: impl std::fmt::Display) -> Self {
        self.message = format!("{what}: {}", self.message);
        self
    }

    /// The exit code.
    pub fn code(&self) -> u8 {
        self.code
    }

    /// `{"error": {"code": ..., "message": ..., "data": ...}}`, what `--json` prints: the
    /// server's JSON-RPC error as it sent it, or code and data `null` and this error's message
    /// when the failure was not a JSON-RPC error.
    pub fn to_json(&self) -> Value {
        match &self.rpc {
            Some((code, message, data)) => {
                json!({"error": {"code": code, "message": message, "data": data.clone().unwrap_or(Value::Null)}})
            }
            None => json!({"error": {"code": null, "message": self.message, "data": null}}),
        }
    }
}

impl std::fmt::Display for CliError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl From<ClientError> for CliError {
    fn from(e: ClientError) -> Self {
        let mut error = Self::with_code(&e, exit::code_of(&e));
        if let ClientError::Request(RequestError::Rpc(rpc)) = &e {
            error.rpc = Some((rpc.code, rpc.message.clone(), rpc.data.clone()));
        }
        error
    }
}

impl From<mcpwire_tokio::mcp_servers::TargetConfigError> for CliError {
    fn from(e: mcpwire_tokio::mcp_servers::TargetConfigError) -> Self {
        Self::usage(format!("invalid TARGET: {e}"))
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

/// Builds a client for these servers with the global settings applied (protocol, timeout,
/// validation, OAuth, the event reports on stderr).
pub fn build_client(
    settings: &Settings,
    specs: Vec<ServerSpec>,
    extra: Option<ExtraHook>,
) -> Result<Client, CliError> {
    let report: fn(&str, &Event) = match (settings.events_on_stderr, settings.verbose) {
        (false, _) => |_, _| {},
        (true, true) => report_event,
        (true, false) => report_quiet_warning,
    };
    // `--log-level` without `--verbose`: the log messages at that level and above too.
    let logs = settings.log_level.filter(|_| !settings.verbose);
    let mut builder = Client::builder().browser_authorization(crate::auth::browser());
    let mut token_store = None;
    for spec in specs {
        let mut spec = spec.protocol(settings.protocol).validate_structured_content(settings.validation);
        if let Some(timeout) = settings.timeout {
            spec = spec.request_timeout(timeout);
        }
        let (spec, store) = settings.auth.apply(spec)?;
        // One token directory for the run: every server's store is the same one.
        token_store = token_store.or(store);
        builder = builder.server(spec);
    }
    if let Some(store) = token_store {
        builder = builder.token_store(store);
    }
    if let Some(trace) = settings.trace.clone() {
        builder = builder.wire_trace(move |server, at, record| trace.write(server, at, record));
    }
    let builder = builder.on_event(move |server, event| {
        report(server, event);
        if let (Some(level), Event::Notification(Notification::Log(m))) = (logs, event) {
            if m.level >= level {
                report_event(server, event);
            }
        }
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
    let client = build_client(settings, vec![spec], extra)?;
    let outcome = match client.servers().first() {
        Some(server) => match apply_log_level(settings, server).await {
            Ok(()) => body(server.clone()).await,
            Err(e) => Err(e),
        },
        None => Err(CliError::new("no server configured")),
    };
    client.close().await;
    outcome
}

/// `--log-level`: sets the server's level before the command; a server without logging gets a
/// note, not a failure.
pub async fn apply_log_level(settings: &Settings, server: &Server) -> Result<(), CliError> {
    let Some(level) = settings.log_level else { return Ok(()) };
    match server.set_log_level(level).await {
        Err(e) if not_offered(&e) => {
            note(&format!("the server does not offer logging: --log-level {level} ignored"));
            Ok(())
        }
        other => Ok(other?),
    }
}

/// Whether the server lacks what a request needs: an undeclared capability, or a -32601
/// ("method not found") answer.
pub fn not_offered(e: &ClientError) -> bool {
    match e {
        ClientError::Request(RequestError::CapabilityMissing { .. }) => true,
        ClientError::Request(RequestError::Rpc(rpc)) => rpc.kind() == RpcErrorKind::MethodNotFound,
        _ => false,
    }
}

/// A list the server may not offer: its items, or none with a note on stderr when the server
/// lacks the capability or the method (`what`: "prompts", "resources", "resource templates").
fn offered<T>(listed: Result<Vec<T>, ClientError>, what: &str) -> Result<Vec<T>, CliError> {
    match listed {
        Err(e) if not_offered(&e) => {
            note(&format!("the server does not offer {what}"));
            Ok(Vec::new())
        }
        other => Ok(other?),
    }
}

/// Prints the JSON or the text form, as the settings ask.
fn show(settings: &Settings, json: impl FnOnce() -> Value, text: impl FnOnce() -> String) {
    if settings.json {
        emit(&output::pretty(&json()));
    } else {
        emit(&text());
    }
}

/// The `inputSchema` of `tool` as the server lists it (`None`: not listed).
async fn input_schema(server: &Server, tool: &str) -> Result<Option<Value>, CliError> {
    let tools = server.list_tools().await?;
    Ok(tools.into_iter().find(|t| t.name == tool).map(|t| t.input_schema))
}

/// The arguments a prompt declares, `(name, required)` (`None`: the prompt is not listed, or
/// the prompts cannot be listed; the server then judges the arguments).
async fn declared_prompt_arguments(server: &Server, prompt: &str) -> Option<Vec<(String, bool)>> {
    let prompts = server.list_prompts().await.ok()?;
    let p = prompts.into_iter().find(|p| p.name == prompt)?;
    Some(p.arguments.into_iter().map(|a| (a.name, a.required)).collect())
}

/// Performs `action` on `server` and prints the outcome. The interactive shell runs its
/// commands through this too, on a client it keeps connected.
pub async fn perform(settings: &Settings, server: Server, action: Action) -> Result<ExitCode, CliError> {
    let checks = settings.validation != ValidationMode::Off;
    match action {
        Action::Info => {
            let info = server.connect().await?;
            show(settings, || output::info_json(&info), || output::info_text(&info));
        }
        Action::Tools => {
            let tools = server.list_tools().await?;
            show(
                settings,
                || json!({"tools": output::json_array(tools.iter().map(Tool::raw))}),
                || output::tools_text(&tools),
            );
        }
        Action::Tasks(action) => crate::tasks::run(settings, server, action).await?,
        Action::Call { tool, arguments, as_task } => {
            // Typing key=value pairs and the checks need the tool's schema (the library's own
            // checks of structured content too).
            let schema =
                if checks || arguments.has_pairs() { input_schema(&server, &tool).await? } else { None };
            let arguments = arguments.for_tool(&tool, schema.as_ref(), checks)?;
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
            let prompts = offered(server.list_prompts().await, "prompts")?;
            let json = || json!({"prompts": output::json_array(prompts.iter().map(|p| p.raw()))});
            show(settings, json, || output::prompts_text(&prompts));
        }
        Action::Resources => {
            let resources = offered(server.list_resources().await, "resources")?;
            if settings.json {
                emit(&output::pretty(
                    &json!({"resources": output::json_array(resources.iter().map(|r| r.raw()))}),
                ));
            } else {
                let templates = match server.list_resource_templates().await {
                    Err(e) if not_offered(&e) => Vec::new(),
                    other => other?,
                };
                emit(&output::resources_text(&resources, &templates));
            }
        }
        Action::Read { uri } => {
            let result = server.read_resource(&uri).await?;
            show(settings, || result.raw().clone(), || output::read_result_text(&result));
        }
        Action::GetPrompt { name, arguments } => {
            let declared = if checks { declared_prompt_arguments(&server, &name).await } else { None };
            let arguments = arguments.for_prompt(&name, declared.as_deref())?;
            let result = server.get_prompt(&name, arguments).await?;
            show(settings, || result.raw().clone(), || output::prompt_result_text(&result));
        }
        Action::Templates => {
            let templates = offered(server.list_resource_templates().await, "resource templates")?;
            let json = || json!({"resourceTemplates": output::json_array(templates.iter().map(|t| t.raw()))});
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
        Action::Request { method, params } => {
            let response = server.request(Request::Custom { method, params }).await?;
            emit(&output::pretty(&response.into_raw()?));
        }
        Action::Ping => {
            server.connect().await?;
            let start = std::time::Instant::now();
            server.ping().await?;
            let ms = start.elapsed().as_secs_f64() * 1000.0;
            show(settings, || json!({}), || format!("ok ({ms:.1} ms)"));
        }
        Action::LogLevel(level) => {
            server.set_log_level(level).await?;
            show(settings, || json!({}), || format!("log level set to {level}"));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The server `target` (or `--config`/`--server`) names, with the HTTP settings applied.
pub fn spec_for(settings: &Settings, target: Option<&str>) -> Result<ServerSpec, CliError> {
    let spec = match settings.selection.spec(target)? {
        Selected::Spec(spec) => *spec,
        Selected::Target(target) => from_detected(settings, detect_target(&target, settings.transport)?)?,
        Selected::Argv(argv) => {
            if settings.transport.is_some_and(|t| t != TransportKind::Stdio) {
                return Err(CliError::usage("a server command after -- is a stdio server; drop --transport"));
            }
            from_detected(settings, detect_argv(&argv)?)?
        }
    };
    let is_stdio = matches!(spec.config.transport, TransportConfig::Stdio(_));
    if !is_stdio && (!settings.env.is_empty() || settings.cwd.is_some()) {
        return Err(CliError::usage("-e and --cwd apply to stdio servers; this server is an HTTP one"));
    }
    let mut spec = spec.retries(settings.retries);
    for (key, value) in &settings.env {
        spec = spec.env(key, value);
    }
    if let Some(dir) = &settings.cwd {
        spec = spec.cwd(dir);
    }
    for (name, value) in &settings.headers {
        spec = spec.header(name, value);
    }
    Ok(spec)
}

/// A spec for a detected target: leading `NAME=VALUE` words of a command become environment
/// variables; the HTTP-only flags are refused for a command.
fn from_detected(settings: &Settings, detected: DetectedTarget) -> Result<ServerSpec, CliError> {
    let detected = match detected {
        DetectedTarget::Stdio(cmd) => {
            if !settings.headers.is_empty() || settings.retries > 0 {
                return Err(CliError::usage(
                    "--header and --retries apply to HTTP servers; TARGET is a command line",
                ));
            }
            DetectedTarget::Stdio(leading_env(cmd)?)
        }
        other => other,
    };
    Ok(ServerSpec::from_detected(detected.suggested_name(), detected))
}

/// Whether `word` is `NAME=VALUE` with a shell variable name.
fn is_assignment(word: &str) -> bool {
    let Some((name, _)) = word.split_once('=') else { return false };
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

/// `VAR=value cmd args`: the leading assignments become environment variables, as in a shell.
fn leading_env(mut cmd: StdioCommand) -> Result<StdioCommand, CliError> {
    while is_assignment(&cmd.program_lossy()) {
        let word = cmd.program_lossy().into_owned();
        let (name, value) = word.split_once('=').expect("an assignment");
        cmd.env.push((name.into(), value.into()));
        if cmd.args.is_empty() {
            return Err(CliError::usage(format!("TARGET sets {name} but names no command to run")));
        }
        cmd.program = cmd.args.remove(0);
    }
    Ok(cmd)
}

/// Runs one action against the server `target` names.
pub async fn run(settings: &Settings, target: Option<&str>, action: Action) -> Result<ExitCode, CliError> {
    let spec = spec_for(settings, target)?;
    with_server(settings, spec, |server| perform(settings, server, action)).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_errors_carry_the_rpc_error() {
        let usage = CliError::usage("bad\nthing");
        assert_eq!(usage.to_json(), json!({"error": {"code": null, "message": "bad | thing", "data": null}}));
        let rpc =
            mcpwire_tokio::RpcError { code: -32050, message: "custom".into(), data: Some(json!({"k": 1})) };
        let err = CliError::from(ClientError::Request(RequestError::Rpc(rpc)));
        assert_eq!(err.to_json(), json!({"error": {"code": -32050, "message": "custom", "data": {"k": 1}}}));
        assert_eq!(err.code(), exit::FAILED);
    }

    #[test]
    fn leading_assignments_become_environment_variables() {
        let cmd = leading_env(StdioCommand::new("A=1").args(["B_2=x=y", "node", "s.js"])).unwrap();
        assert_eq!(cmd.program_lossy(), "node");
        assert_eq!(cmd.args_lossy(), ["s.js"]);
        assert_eq!(cmd.env, [("A".into(), "1".into()), ("B_2".into(), "x=y".into())]);
        let plain = leading_env(StdioCommand::new("node").arg("X=1")).unwrap();
        assert_eq!((plain.args_lossy(), plain.env.len()), (vec!["X=1".to_owned()], 0));
        assert!(!is_assignment("1A=x") && !is_assignment("=x") && !is_assignment("a-b=x"));
        assert_eq!(leading_env(StdioCommand::new("A=1")).unwrap_err().code(), exit::USAGE);
    }

    #[test]
    fn errors_are_one_line() {
        let err = CliError::new("connection lost: exit 3\n  last stderr:\n\n  boom\n");
        assert_eq!(err.to_string(), "connection lost: exit 3 | last stderr: | boom");
    }
}
