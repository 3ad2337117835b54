//! `mcp`: a command-line MCP client.
//!
//! ```text
//! mcp info  "npx -y @modelcontextprotocol/server-everything"
//! mcp tools "npx -y @modelcontextprotocol/server-everything" --json
//! mcp call  "npx -y @modelcontextprotocol/server-everything" echo '{"message":"hi"}'
//! mcp listen http://127.0.0.1:8080/mcp --resource file:///notes.txt --json
//! mcp demo
//! ```
//!
//! Errors are one `error: ...` line on stderr; the exit codes are listed in [`exit`].

#![forbid(unsafe_code)]

mod auth;
mod commands;
mod conformance;
mod conformance_auth;
mod demo;
mod exit;
mod listen;
mod output;
mod progress;
mod selection;
mod tasks;
mod trace_file;

use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};
use mcpwire_tokio::mcp_servers::TransportKind;
use mcpwire_tokio::ProtocolMode;

use commands::{Action, CliError, Settings};
use mcpwire_tokio::types::CompletionReference;

const TARGET_HELP: &str = "TARGET is the command line of a stdio server, quoted as one argument, e.g. \
\"npx -y @modelcontextprotocol/server-everything\" (a stdio:// prefix is accepted), or the http:// or \
https:// URL of an HTTP server: a path ending in /mcp is Streamable HTTP, one ending in /sse the legacy \
HTTP+SSE transport, and any other URL tries Streamable HTTP, then HTTP+SSE, then plain HTTP. \
With --config FILE (an mcpServers JSON file), TARGET is the name of one of its servers; or leave \
TARGET out and name it with --server NAME.

Exit codes: 0 success; 1 the request failed or the tool reported an error; 2 usage; 3 the server \
could not be started or reached; 4 timeout; 5 HTTP 401/403.";

/// A command-line client for MCP (Model Context Protocol) servers.
#[derive(Debug, Parser)]
#[command(name = "mcp", version, after_help = TARGET_HELP)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Print machine-readable JSON instead of text.
    #[arg(long, global = true)]
    json: bool,
    /// The protocol era to speak: probe then fall back (auto), 2026-07-28 only (modern), or the
    /// initialize handshake only (legacy).
    #[arg(long, global = true, value_enum, default_value_t = Protocol::Auto)]
    protocol: Protocol,
    /// Request timeout, in seconds.
    #[arg(long, global = true, value_name = "SECONDS", value_parser = parse_timeout)]
    timeout: Option<Duration>,
    /// Print the server's stderr lines, log messages and client warnings to stderr.
    #[arg(long, short, global = true)]
    verbose: bool,
    /// A header sent with every HTTP request, as "Name: value" (repeatable).
    #[arg(long = "header", short = 'H', global = true, value_name = "NAME: VALUE", value_parser = parse_header)]
    headers: Vec<(String, String)>,
    /// Force a transport instead of detecting it from TARGET.
    #[arg(long, global = true, value_enum, default_value_t = Transport::Auto)]
    transport: Transport,
    /// Retries of an HTTP request that failed in transport or with a 5xx status (never a tool call).
    #[arg(long, global = true, value_name = "N", default_value_t = 0)]
    retries: u32,
    /// What `call` does with structured content that breaks the tool's outputSchema: print a
    /// warning (warn), fail (strict), or skip the check (off).
    #[arg(long, global = true, value_enum, default_value_t = Validate::Warn)]
    validate: Validate,
    /// An mcpServers JSON file (Claude Desktop, Cursor, VS Code `servers`): TARGET names one of
    /// its servers.
    #[arg(long, global = true, value_name = "FILE")]
    config: Option<std::path::PathBuf>,
    /// The server of --config to use (then leave TARGET out).
    #[arg(long, global = true, value_name = "NAME")]
    server: Option<String>,
    /// Print the client's tracing spans and events on stderr, filtered like RUST_LOG (e.g.
    /// `mcp=debug`: every request with its method, era, transport, outcome and duration).
    #[arg(long, global = true, value_name = "FILTER", env = "MCP_LOG")]
    log: Option<String>,
    /// OAuth for HTTP servers: from saved tokens when there are some (auto, see `mcp login`),
    /// signing in through the browser when the server asks (oauth), or never (none).
    #[arg(long, global = true, value_enum, default_value_t = auth::AuthMode::Auto)]
    auth: auth::AuthMode,
    /// Where OAuth tokens are saved (one file per server, mode 0600). Default:
    /// ~/.config/mcp/tokens.
    #[arg(long, global = true, value_name = "DIR", env = "MCP_TOKEN_DIR")]
    token_dir: Option<std::path::PathBuf>,
    /// An OAuth client id registered with the server's authorization server beforehand (else
    /// the client registers itself).
    #[arg(long, global = true, value_name = "ID")]
    client_id: Option<String>,
    /// The secret of --client-id.
    #[arg(long, global = true, value_name = "SECRET", env = "MCP_CLIENT_SECRET", requires = "client_id")]
    client_secret: Option<String>,
    /// The issuer (authorization server URL) --client-id is registered with: the credentials
    /// are only sent there. Required with --client-id unless the id is a Client ID Metadata
    /// Document URL.
    #[arg(long, global = true, value_name = "URL", requires = "client_id")]
    issuer: Option<String>,
    /// The loopback port the browser comes back to after signing in.
    #[arg(long, global = true, value_name = "PORT", default_value_t = 33418)]
    callback_port: u16,
    /// Write every message sent and received, HTTP requests and status lines, and process
    /// starts and exits to FILE as JSON lines (created 0600, credentials redacted), e.g.
    /// {"ts":"2025-01-31T12:34:56.789Z","server":"my-server","dir":"send","kind":"message","message":{...}}.
    /// `dir` is send, recv or event; `kind` is message, process_start, process_exit,
    /// spawn_failed, http_request, http_response or http_failed.
    #[arg(long, global = true, value_name = "FILE")]
    trace: Option<std::path::PathBuf>,
    /// For development on private networks: let OAuth discovery, metadata, registration and
    /// token requests go to private, link-local and loopback addresses (refused by default,
    /// whether written in a URL or resolved from a name).
    #[arg(long, global = true)]
    allow_private_addresses: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Validate {
    Warn,
    Strict,
    Off,
}

impl From<Validate> for mcpwire_tokio::ValidationMode {
    fn from(v: Validate) -> Self {
        match v {
            Validate::Warn => Self::Warn,
            Validate::Strict => Self::Strict,
            Validate::Off => Self::Off,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Transport {
    Auto,
    Stdio,
    StreamableHttp,
    Sse,
    PlainHttp,
}

impl Transport {
    fn forced(self) -> Option<TransportKind> {
        match self {
            Transport::Auto => None,
            Transport::Stdio => Some(TransportKind::Stdio),
            Transport::StreamableHttp => Some(TransportKind::StreamableHttp),
            Transport::Sse => Some(TransportKind::Sse),
            Transport::PlainHttp => Some(TransportKind::PlainHttp),
        }
    }
}

/// `--header`: `Name: value`, a valid header name and a value without control characters.
fn parse_header(text: &str) -> Result<(String, String), String> {
    let (name, value) = text.split_once(':').ok_or("expected \"Name: value\"")?;
    let (name, value) = (name.trim(), value.trim());
    mcpwire_core::headers::validate_header(name, value).map_err(|e| e.to_string())?;
    Ok((name.to_owned(), value.to_owned()))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Protocol {
    Auto,
    Modern,
    Legacy,
}

impl From<Protocol> for ProtocolMode {
    fn from(p: Protocol) -> Self {
        match p {
            Protocol::Auto => ProtocolMode::Auto,
            Protocol::Modern => ProtocolMode::Modern,
            Protocol::Legacy => ProtocolMode::Legacy,
        }
    }
}

/// The TARGET argument every server command takes.
#[derive(Debug, Args)]
struct Target {
    /// The server's command line, quoted as one argument, or its URL (see below).
    target: Option<String>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Show the era, protocol version, server identity, capabilities and instructions.
    Info(Target),
    /// List the tools: name, title, description and behaviour hints.
    Tools(Target),
    /// Call a tool and print its result (exit code 1 if the tool reports an error).
    Call {
        #[command(flatten)]
        target: Target,
        /// The tool's name.
        tool: Option<String>,
        /// The arguments, a JSON object (default {}).
        #[arg(value_name = "JSON_ARGS", allow_hyphen_values = true)]
        arguments: Option<String>,
        /// Start the call as a task and wait for its result, showing its status on stderr.
        #[arg(long)]
        as_task: bool,
    },
    /// A server's tasks (HTTP servers: a stdio server's tasks end with this process).
    Tasks {
        #[command(subcommand)]
        command: TasksCommand,
    },
    /// List the prompts and their arguments (* marks required ones); `prompts get` gets one.
    Prompts(PromptsArgs),
    /// List the resources and resource templates; `resources templates` lists the templates.
    Resources(ResourcesArgs),
    /// Complete an argument of a prompt or resource template (completion/complete).
    Complete {
        #[command(flatten)]
        target: Target,
        /// The argument's name.
        argument: Option<String>,
        /// What has been typed so far.
        #[arg(allow_hyphen_values = true)]
        value: Option<String>,
        /// The prompt whose argument it is.
        #[arg(long, value_name = "NAME", conflicts_with = "resource", required_unless_present = "resource")]
        prompt: Option<String>,
        /// The resource template (URI template) whose argument it is.
        #[arg(long, value_name = "URI_TEMPLATE")]
        resource: Option<String>,
        /// Arguments already chosen, as a JSON object of strings (2025-06-18 servers and later).
        #[arg(long, value_name = "JSON")]
        context: Option<String>,
    },
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell) to stdout.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Read a resource: text is printed, binary contents are summarised.
    Read {
        #[command(flatten)]
        target: Target,
        /// The resource's URI.
        uri: Option<String>,
    },
    /// Print notifications as they arrive: a subscriptions/listen stream on 2026-07-28
    /// servers (list changes, and the resources given), resources/subscribe on older ones.
    Listen {
        #[command(flatten)]
        target: Target,
        /// A resource URI to watch for updates (repeatable).
        #[arg(long = "resource", value_name = "URI")]
        resources: Vec<String>,
        /// Only these list changes (repeatable; default: all three).
        #[arg(long = "list", value_enum, value_name = "KIND")]
        lists: Vec<List>,
        /// Stop after this many notifications.
        #[arg(long, value_name = "N")]
        count: Option<u64>,
        /// Stop after this many seconds.
        #[arg(long = "for", value_name = "SECONDS", value_parser = parse_timeout)]
        duration: Option<Duration>,
    },
    /// A short tour against the bundled test server (no network; text output only).
    Demo,
    /// Sign in to an HTTP server with OAuth (a browser opens) and save its tokens for later
    /// commands.
    Login(Target),
    /// Forget the saved OAuth tokens of an HTTP server.
    Logout(Target),
}

/// `mcp prompts TARGET` or `mcp prompts get ...`.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
struct PromptsArgs {
    #[command(subcommand)]
    command: Option<PromptsCommand>,
    #[command(flatten)]
    target: Target,
}

/// `mcp prompts get`.
#[derive(Debug, Subcommand)]
enum PromptsCommand {
    /// Get a prompt: its messages, with the arguments filled in.
    Get {
        #[command(flatten)]
        target: Target,
        /// The prompt's name.
        name: Option<String>,
        /// Its arguments, a JSON object of strings (default {}).
        #[arg(value_name = "JSON_ARGS", allow_hyphen_values = true)]
        arguments: Option<String>,
    },
}

/// `mcp resources TARGET` or `mcp resources templates TARGET`.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
struct ResourcesArgs {
    #[command(subcommand)]
    command: Option<ResourcesCommand>,
    #[command(flatten)]
    target: Target,
}

/// `mcp resources templates`.
#[derive(Debug, Subcommand)]
enum ResourcesCommand {
    /// List the resource templates.
    Templates(Target),
}

/// `mcp tasks ...`.
#[derive(Debug, Subcommand)]
enum TasksCommand {
    /// List the tasks (2025-11-25 servers declaring tasks.list).
    List(Target),
    /// Show a task's state.
    Get {
        #[command(flatten)]
        target: Target,
        /// The task's id.
        task_id: Option<String>,
    },
    /// Wait for a task's result and print it.
    Result {
        #[command(flatten)]
        target: Target,
        /// The task's id.
        task_id: Option<String>,
    },
    /// Ask the server to cancel a task.
    Cancel {
        #[command(flatten)]
        target: Target,
        /// The task's id.
        task_id: Option<String>,
    },
}

/// A list whose changes `mcp listen` watches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum List {
    Tools,
    Prompts,
    Resources,
}

impl From<List> for mcpwire_tokio::ListKind {
    fn from(l: List) -> Self {
        match l {
            List::Tools => Self::Tools,
            List::Prompts => Self::Prompts,
            List::Resources => Self::Resources,
        }
    }
}

/// `--timeout`: a positive number of seconds.
fn parse_timeout(text: &str) -> Result<Duration, String> {
    let secs: f64 = text.trim().parse().map_err(|_| format!("{text:?} is not a number of seconds"))?;
    if secs.is_nan() || secs <= 0.0 {
        return Err("the timeout must be more than 0 seconds".into());
    }
    Duration::try_from_secs_f64(secs).map_err(|_| format!("{text:?} seconds is too long"))
}

/// A required positional argument that clap could not require (TARGET may be left out).
fn required(value: Option<String>, name: &str) -> Result<String, CliError> {
    value.ok_or_else(|| CliError::usage(format!("{name} is required")))
}

/// A JSON object of strings (prompt arguments, completion context).
fn string_map(text: &str, what: &str) -> Result<serde_json::Map<String, serde_json::Value>, CliError> {
    let serde_json::Value::Object(map) = commands::parse_arguments(text)? else { unreachable!("an object") };
    if let Some((key, _)) = map.iter().find(|(_, v)| !v.is_string()) {
        return Err(CliError::usage(format!("{what}: the value of {key:?} must be a string")));
    }
    Ok(map)
}

async fn dispatch(settings: &Settings, command: Command) -> Result<ExitCode, CliError> {
    let sel = &settings.selection;
    // TARGET and the command's own positionals, shifted when --server stands for TARGET.
    let (target, action) = match command {
        Command::Demo => return demo::run(settings).await,
        Command::Login(target) => {
            let (target, _) = sel.positionals(target.target, vec![])?;
            return auth::login(settings, target.as_deref()).await;
        }
        Command::Logout(target) => {
            let (target, _) = sel.positionals(target.target, vec![])?;
            return auth::logout_command(settings, target.as_deref());
        }
        Command::Completions { shell } => {
            let mut cli = <Cli as clap::CommandFactory>::command();
            clap_complete::generate(shell, &mut cli, "mcp", &mut std::io::stdout());
            return Ok(ExitCode::SUCCESS);
        }
        Command::Listen { target, resources, lists, count, duration } => {
            let (target, _) = sel.positionals(target.target, vec![])?;
            let lists = (!lists.is_empty()).then(|| lists.into_iter().map(Into::into).collect());
            let args = listen::ListenArgs { resources, lists, count, duration };
            let spec = commands::spec_for(settings, target.as_deref())?;
            let (tx, rx) = tokio::sync::mpsc::channel(1024);
            let hook: commands::ExtraHook = Box::new(listen::forward_notifications(tx));
            return commands::with_server_hooked(settings, spec, Some(hook), |server| {
                listen::run(settings, server, args, rx)
            })
            .await;
        }
        Command::Info(target) => (sel.positionals(target.target, vec![])?.0, Action::Info),
        Command::Tools(target) => (sel.positionals(target.target, vec![])?.0, Action::Tools),
        Command::Call { target, tool, arguments, as_task } => {
            let (target, rest) = sel.positionals(target.target, vec![tool, arguments])?;
            let [tool, arguments]: [Option<String>; 2] = rest.try_into().expect("two positionals");
            let arguments = commands::parse_arguments(arguments.as_deref().unwrap_or("{}"))?;
            (target, Action::Call { tool: required(tool, "TOOL")?, arguments, as_task })
        }
        Command::Tasks { command } => {
            let (target, task_id, make): (Target, Option<String>, fn(String) -> tasks::TaskAction) =
                match command {
                    TasksCommand::List(target) => {
                        let (target, _) = sel.positionals(target.target, vec![])?;
                        return commands::run(
                            settings,
                            target.as_deref(),
                            Action::Tasks(tasks::TaskAction::List),
                        )
                        .await;
                    }
                    TasksCommand::Get { target, task_id } => (target, task_id, tasks::TaskAction::Get),
                    TasksCommand::Result { target, task_id } => (target, task_id, tasks::TaskAction::Result),
                    TasksCommand::Cancel { target, task_id } => (target, task_id, tasks::TaskAction::Cancel),
                };
            let (target, rest) = sel.positionals(target.target, vec![task_id])?;
            let task_id = required(rest.into_iter().next().flatten(), "TASK_ID")?;
            (target, Action::Tasks(make(task_id)))
        }
        Command::Prompts(PromptsArgs { command: None, target }) => {
            (sel.positionals(target.target, vec![])?.0, Action::Prompts)
        }
        Command::Prompts(PromptsArgs {
            command: Some(PromptsCommand::Get { target, name, arguments }),
            ..
        }) => {
            let (target, rest) = sel.positionals(target.target, vec![name, arguments])?;
            let [name, arguments]: [Option<String>; 2] = rest.try_into().expect("two positionals");
            let arguments = string_map(arguments.as_deref().unwrap_or("{}"), "JSON_ARGS")?;
            (target, Action::GetPrompt { name: required(name, "NAME")?, arguments })
        }
        Command::Resources(ResourcesArgs { command: None, target }) => {
            (sel.positionals(target.target, vec![])?.0, Action::Resources)
        }
        Command::Resources(ResourcesArgs { command: Some(ResourcesCommand::Templates(target)), .. }) => {
            (sel.positionals(target.target, vec![])?.0, Action::Templates)
        }
        Command::Complete { target, argument, value, prompt, resource, context } => {
            let (target, rest) = sel.positionals(target.target, vec![argument, value])?;
            let [argument, value]: [Option<String>; 2] = rest.try_into().expect("two positionals");
            let reference = match (prompt, resource) {
                (Some(name), _) => CompletionReference::Prompt { name },
                (None, Some(uri)) => CompletionReference::Resource { uri },
                (None, None) => {
                    return Err(CliError::usage("--prompt NAME or --resource URI_TEMPLATE is required"))
                }
            };
            let context = string_map(context.as_deref().unwrap_or("{}"), "--context")?
                .into_iter()
                .map(|(k, v)| (k, v.as_str().unwrap_or_default().to_owned()))
                .collect();
            let argument = required(argument, "ARGUMENT")?;
            (target, Action::Complete { reference, argument, value: value.unwrap_or_default(), context })
        }
        Command::Read { target, uri } => {
            let (target, rest) = sel.positionals(target.target, vec![uri])?;
            (target, Action::Read { uri: required(rest.into_iter().next().flatten(), "URI")? })
        }
    };
    commands::run(settings, target.as_deref(), action).await
}

/// Sends the client's `tracing` output to stderr, filtered by `filter` (RUST_LOG syntax); span
/// closes are printed, so each request shows its duration.
fn install_tracing(filter: &str) -> Result<(), String> {
    use tracing_subscriber::fmt::format::FmtSpan;
    let filter = tracing_subscriber::EnvFilter::try_new(filter).map_err(|e| e.to_string())?;
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_span_events(FmtSpan::CLOSE)
        .try_init()
        .map_err(|e| e.to_string())
}

/// The hidden first argument that turns this binary into the bundled test server (what
/// `mcp demo` talks to), so the demo needs nothing but this executable.
pub(crate) const TEST_SERVER_ARG: &str = "__test-server";

fn main() -> ExitCode {
    if std::env::args().nth(1).as_deref() == Some(TEST_SERVER_ARG) {
        return mcpwire_test_server::run(std::env::args().skip(2));
    }
    if std::env::args().nth(1).as_deref() == Some(conformance::CONFORMANCE_ARG) {
        return conformance::run(std::env::args().skip(2));
    }
    // A bug must still end as one line, not a backtrace.
    std::panic::set_hook(Box::new(|info| {
        let what = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        output::note(&format!("error: internal error: {}", CliError::new(what)));
    }));
    let cli = Cli::parse();
    if let Some(filter) = &cli.log {
        if let Err(e) = install_tracing(filter) {
            output::note(&format!("error: --log {filter:?}: {e}"));
            return ExitCode::from(exit::USAGE);
        }
    }
    let trace = match cli.trace.as_deref().map(trace_file::TraceFile::create).transpose() {
        Ok(trace) => trace,
        Err(e) => {
            let path = cli.trace.as_deref().unwrap_or(std::path::Path::new("")).display();
            output::note(&format!("error: --trace {path}: {e}"));
            return ExitCode::from(exit::USAGE);
        }
    };
    let settings = Settings {
        json: cli.json,
        trace,
        protocol: cli.protocol.into(),
        timeout: cli.timeout,
        verbose: cli.verbose,
        headers: cli.headers,
        transport: cli.transport.forced(),
        retries: cli.retries,
        validation: cli.validate.into(),
        selection: selection::Selection { config: cli.config, server: cli.server },
        auth: auth::AuthSettings {
            mode: cli.auth,
            token_dir: cli.token_dir,
            client_id: cli.client_id,
            client_secret: cli.client_secret,
            issuer: cli.issuer,
            callback_port: cli.callback_port,
            allow_private_addresses: cli.allow_private_addresses,
        },
    };
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            output::note(&format!("error: cannot start the async runtime: {e}"));
            return ExitCode::FAILURE;
        }
    };
    // Ctrl-C drops the command's future, and with it the client; dropping the runtime then ends
    // the servers' tasks, which kill each server's whole process group. A stdio server leads a
    // group of its own, so the terminal's SIGINT no longer reaches it (or what its wrapper
    // started) directly: without this, a wrapper's child that ignores stdin EOF would be left.
    let outcome = runtime.block_on(async {
        tokio::select! {
            biased;
            () = interrupted() => None,
            outcome = dispatch(&settings, cli.command) => Some(outcome),
        }
    });
    drop(runtime);
    match outcome {
        Some(Ok(code)) => code,
        Some(Err(e)) => {
            output::note(&format!("error: {e}"));
            ExitCode::from(e.code())
        }
        None => ExitCode::from(exit::INTERRUPTED),
    }
}

/// Resolves on Ctrl-C (SIGINT); never, when the handler cannot be installed.
async fn interrupted() {
    if tokio::signal::ctrl_c().await.is_err() {
        std::future::pending::<()>().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_definition_is_valid() {
        Cli::command().debug_assert();
    }

    #[test]
    fn timeout_is_positive_seconds() {
        assert_eq!(parse_timeout("1.5"), Ok(Duration::from_millis(1500)));
        assert!(parse_timeout("0").is_err());
        assert!(parse_timeout("-3").is_err());
        assert!(parse_timeout("NaN").is_err());
        assert!(parse_timeout("soon").is_err());
        assert!(parse_timeout("1e300").is_err());
    }

    #[test]
    fn global_flags_go_anywhere() {
        let cli =
            Cli::try_parse_from(["mcp", "call", "srv --flag", "echo", "--json", "--timeout", "2"]).unwrap();
        assert!(cli.json);
        assert_eq!(cli.timeout, Some(Duration::from_secs(2)));
        let Command::Call { target, arguments, as_task, .. } = cli.command else { panic!("not call") };
        assert!(!as_task);
        assert_eq!((target.target.as_deref(), arguments), (Some("srv --flag"), None));
        let cli = Cli::try_parse_from(["mcp", "--protocol", "legacy", "info", "x"]).unwrap();
        assert_eq!(cli.protocol, Protocol::Legacy);
        assert!(Cli::try_parse_from(["mcp", "--protocol", "old", "info", "x"]).is_err());
    }

    #[test]
    fn prompts_and_resources_take_an_optional_subcommand() {
        let cli = Cli::try_parse_from(["mcp", "prompts", "srv"]).unwrap();
        let Command::Prompts(PromptsArgs { command: None, target }) = cli.command else { panic!("list") };
        assert_eq!(target.target.as_deref(), Some("srv"));
        let cli = Cli::try_parse_from(["mcp", "prompts", "get", "srv", "greet", r#"{"name":"a"}"#]).unwrap();
        let Command::Prompts(PromptsArgs { command: Some(PromptsCommand::Get { name, .. }), .. }) =
            cli.command
        else {
            panic!("get")
        };
        assert_eq!(name.as_deref(), Some("greet"));
        let cli = Cli::try_parse_from(["mcp", "resources", "templates", "srv"]).unwrap();
        assert!(matches!(cli.command, Command::Resources(ResourcesArgs { command: Some(_), .. })));
        let cli = Cli::try_parse_from(["mcp", "complete", "srv", "lang", "py", "--prompt", "p"]).unwrap();
        assert!(matches!(cli.command, Command::Complete { prompt: Some(_), .. }));
        assert!(
            Cli::try_parse_from(["mcp", "complete", "srv", "lang", "py"]).is_err(),
            "a reference is required"
        );
        assert!(Cli::try_parse_from(["mcp", "completions", "bash"]).is_ok());
        let cli =
            Cli::try_parse_from(["mcp", "call", "--config", "f.json", "--server", "s", "echo"]).unwrap();
        assert_eq!(cli.server.as_deref(), Some("s"));
    }

    #[test]
    fn prompt_arguments_are_strings() {
        assert!(string_map(r#"{"a": "x"}"#, "JSON_ARGS").is_ok());
        let err = string_map(r#"{"a": 1}"#, "JSON_ARGS").unwrap_err();
        assert_eq!(err.code(), exit::USAGE);
        assert!(err.to_string().contains("\"a\""), "{err}");
    }

    #[test]
    fn http_flags() {
        let cli = Cli::try_parse_from([
            "mcp",
            "info",
            "http://h/mcp",
            "-H",
            "Authorization: Bearer x",
            "--header",
            "X-A:1",
            "--transport",
            "sse",
            "--retries",
            "2",
        ])
        .unwrap();
        assert_eq!(
            cli.headers,
            vec![("Authorization".into(), "Bearer x".into()), ("X-A".into(), "1".into())]
        );
        assert_eq!(cli.transport.forced(), Some(TransportKind::Sse));
        assert_eq!(cli.retries, 2);
        assert!(Cli::try_parse_from(["mcp", "info", "x", "-H", "no colon"]).is_err());
        assert!(Cli::try_parse_from(["mcp", "info", "x", "-H", "bad name: v"]).is_err());
        assert!(Cli::try_parse_from(["mcp", "info", "x", "--transport", "carrier-pigeon"]).is_err());
    }
}
