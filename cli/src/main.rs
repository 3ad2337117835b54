//! `mcp`: a command-line MCP client.
//!
//! ```text
//! mcp info  "npx -y @modelcontextprotocol/server-everything"
//! mcp tools "npx -y @modelcontextprotocol/server-everything" --json
//! mcp call  "npx -y @modelcontextprotocol/server-everything" echo message=hi
//! mcp call  get-sum a=2 b=3 -e DEBUG=1 -- npx -y @modelcontextprotocol/server-everything
//! mcp request http://127.0.0.1:8080/mcp tools/list
//! mcp listen http://127.0.0.1:8080/mcp --resource file:///notes.txt --json
//! mcp demo
//! ```
//!
//! Errors are one `error: ...` line on stderr (with `--json`, also `{"error": ...}` on stdout);
//! the exit codes are listed in [`exit`].
//!
//! For anyone who inspects, calls or debugs MCP servers from a shell or a script; programs use the
//! library (`mcpwire-tokio`, `mcpwire-smol`, `mcpwire-blocking`). Every command, option and exit
//! code: `docs/cli.md` in the repository, whose `README.md` is the project's front page.

#![forbid(unsafe_code)]

mod arguments;
mod auth;
mod commands;
mod conformance;
mod conformance_auth;
mod demo;
mod exit;
mod listen;
mod many_servers;
mod output;
mod progress;
mod selection;
mod shell;
mod tasks;
mod trace_file;

use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};
use mcpwire_tokio::mcp_servers::TransportKind;
use mcpwire_tokio::ProtocolMode;

use commands::{Action, CliError, Settings};
use mcpwire_tokio::types::{CompletionReference, LoggingLevel};

const TARGET_HELP: &str = "TARGET is the command line of a stdio server, quoted as one argument, e.g. \
\"npx -y @modelcontextprotocol/server-everything\" (a stdio:// prefix is accepted; leading NAME=VALUE \
words are environment variables, as in a shell: \"API_KEY=x node server.js\"), or everything after \
`--` as the server's argv, unquoted (`mcp tools -- npx -y pkg`, then leave TARGET out), or the http:// or \
https:// URL of an HTTP server: a path ending in /mcp is Streamable HTTP, one ending in /sse the legacy \
HTTP+SSE transport, and any other URL tries Streamable HTTP, then HTTP+SSE, then plain HTTP. \
With --config FILE (an mcpServers JSON file), TARGET is the name of one of its servers; or leave \
TARGET out and name it with --server NAME.

Many servers: with --config FILE and no server named (neither TARGET nor --server) when the \
file has several servers, or with --all, `tools`, `prompts`, `resources` and `resources \
templates` list the items of every server of the file, each tagged with its server (a column \
in text; \"server\": NAME in each --json item), and `call TOOL` goes to the server offering TOOL \
(a tool several servers offer is a usage error naming them: pick one with --server NAME). The \
servers start at once. A server that cannot be started or fails is reported on stderr (in \
\"failed\" with --json) beside the others' answers; the exit code is then 1 when at least one \
server answered, else that failure's code (3 when no server could be reached). Other commands \
need one server named.

Exit codes: 0 success; 1 the request failed or the tool reported an error; 2 usage; 3 the server \
could not be started or reached; 4 timeout; 5 HTTP 401/403.

Errors are one `error: ...` line on stderr; with --json, a failure after the command line was \
parsed also prints {\"error\": {\"code\": ..., \"message\": ..., \"data\": ...}} on stdout (code and \
data: the server's JSON-RPC error, null when the failure was not a JSON-RPC error), with the \
same exit code.";

/// A command-line client for MCP (Model Context Protocol) servers.
#[derive(Debug, Parser)]
#[command(name = "mcp", version, after_help = TARGET_HELP)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Print machine-readable JSON instead of text: each command's protocol result object as
    /// the server sent it (`{"tools": [...]}`, the CallToolResult, ...); errors as `{"error": ...}`.
    #[arg(long, global = true)]
    json: bool,
    /// An environment variable for a stdio server, KEY=VALUE (repeatable).
    #[arg(long = "env", short = 'e', global = true, value_name = "KEY=VALUE", value_parser = parse_env)]
    env: Vec<(String, String)>,
    /// The working directory of a stdio server.
    #[arg(long, global = true, value_name = "DIR")]
    cwd: Option<std::path::PathBuf>,
    /// Ask the server for log messages at this level and above (logging/setLevel after
    /// connecting) and print them on stderr: debug, info, notice, warning, error, critical,
    /// alert, emergency.
    #[arg(long, global = true, value_name = "LEVEL", value_parser = parse_level)]
    log_level: Option<LoggingLevel>,
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
    /// With --config: `tools`, `prompts`, `resources` and `call` work across every server of
    /// the file (what they do when no server is named and the file has several). Items are
    /// tagged with their server; exit code 1 when a server failed and another answered, 3 when
    /// none could be reached.
    #[arg(long, global = true, conflicts_with = "server")]
    all: bool,
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

/// `-e`: `KEY=VALUE`, a non-empty key without `=`.
fn parse_env(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((key, value)) if !key.is_empty() => Ok((key.to_owned(), value.to_owned())),
        _ => Err("expected KEY=VALUE".into()),
    }
}

/// A logging level by its wire name.
fn parse_level(text: &str) -> Result<LoggingLevel, String> {
    text.parse().map_err(|_| {
        let names: Vec<&str> = LoggingLevel::ALL.iter().map(|l| l.as_str()).collect();
        format!("expected one of {}", names.join(", "))
    })
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
    #[command(after_help = "Example: mcp info \"npx -y @modelcontextprotocol/server-everything\" --json")]
    Info(Target),
    /// List the tools: name, title, description, behaviour hints, MCP Apps UI resource and
    /// app-only visibility.
    #[command(
        after_help = "Examples:\n  mcp tools -e API_KEY=secret -- npx -y @modelcontextprotocol/server-everything\n  \
mcp tools --config servers.json   (every server of the file, each tool tagged with its server)"
    )]
    Tools(Target),
    /// Call a tool and print its result (exit code 1 if the tool reports an error).
    ///
    /// Arguments are key=value pairs typed by the tool's inputSchema (a string-typed property
    /// takes the text as is; numbers, booleans, null, arrays and objects are parsed as JSON; a
    /// property without a type gets JSON when the text parses as JSON, else the text), key:=JSON
    /// to force JSON, or one JSON object. `--args FILE` (`-` for stdin) reads a JSON object
    /// that the pairs are applied over. Before the call is sent the arguments are checked
    /// against the schema (exit code 2, naming the argument): unknown names (when the schema
    /// lists properties and additionalProperties is absent or false), missing required ones,
    /// wrong top-level types. `--validate off` skips the checks.
    ///
    /// With --config FILE and no server named (or --all), TOOL goes to the server of the file
    /// that offers it (then TARGET is left out; a TARGET naming a server of the file picks that
    /// one, as --server does).
    #[command(
        after_help = "Examples:\n  mcp call TARGET add a=2 b=3\n  mcp call TARGET echo message=hi\n  \
mcp call TARGET typed tags:='[\"a\"]' --args base.json\n  mcp call TARGET echo '{\"message\": \"hi\"}'\n  \
mcp call --config servers.json get-sum a=2 b=3   (to the server of the file offering get-sum)"
    )]
    Call {
        #[command(flatten)]
        target: Target,
        /// The tool's name.
        tool: Option<String>,
        /// The arguments: key=value, key:=JSON, or one JSON object (default none).
        #[arg(value_name = "ARGS")]
        arguments: Vec<String>,
        /// A file with the arguments as a JSON object (`-`: stdin); key=value pairs override it.
        #[arg(long = "args", value_name = "FILE")]
        args_file: Option<String>,
        /// Start the call as a task and wait for its result, showing its status on stderr.
        #[arg(long)]
        as_task: bool,
    },
    /// A server's tasks (HTTP servers: a stdio server's tasks end with this process).
    #[command(after_help = "Example: mcp tasks list http://127.0.0.1:3001/mcp")]
    Tasks {
        #[command(subcommand)]
        command: TasksCommand,
    },
    /// List the prompts and their arguments (* marks required ones); `prompts get` gets one.
    #[command(
        after_help = "Examples:\n  mcp prompts TARGET --json\n  mcp prompts --config servers.json   (every server of the file)"
    )]
    Prompts(PromptsArgs),
    /// List the resources and resource templates; `resources templates` lists the templates.
    #[command(
        after_help = "Examples:\n  mcp resources TARGET --json\n  mcp resources --all --config servers.json   (every server of the file)"
    )]
    Resources(ResourcesArgs),
    /// Complete an argument of a prompt or resource template (completion/complete).
    #[command(after_help = "Example: mcp complete TARGET name A --prompt greet")]
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
    #[command(after_help = "Example: mcp completions bash > /etc/bash_completion.d/mcp")]
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Read a resource: text is printed, binary contents are summarised.
    #[command(after_help = "Example: mcp read TARGET file:///notes.md")]
    Read {
        #[command(flatten)]
        target: Target,
        /// The resource's URI.
        uri: Option<String>,
    },
    /// Send any request and print its raw result as JSON (e.g. a method this client has no
    /// command for).
    #[command(after_help = "Example: mcp request TARGET tools/list '{}'")]
    Request {
        #[command(flatten)]
        target: Target,
        /// The JSON-RPC method.
        method: Option<String>,
        /// Its params, a JSON object (default none).
        #[arg(value_name = "PARAMS_JSON", allow_hyphen_values = true)]
        params: Option<String>,
    },
    /// Check the server answers (ping; server/discover on 2026-07-28 servers).
    #[command(after_help = "Example: mcp ping http://127.0.0.1:3001/mcp")]
    Ping(Target),
    /// Set the server's log level (logging/setLevel). To see the messages, use the global
    /// --log-level LEVEL with another command.
    #[command(
        after_help = "Example: mcp log-level TARGET debug  (or: mcp call TARGET notify --log-level debug)"
    )]
    LogLevel {
        #[command(flatten)]
        target: Target,
        /// debug, info, notice, warning, error, critical, alert or emergency.
        #[arg(value_name = "LEVEL")]
        level: Option<String>,
    },
    /// Print notifications as they arrive: a subscriptions/listen stream on 2026-07-28
    /// servers (list changes, and the resources given), resources/subscribe on older ones.
    #[command(
        after_help = "Example: mcp listen http://127.0.0.1:3001/mcp --resource file:///notes.md --json"
    )]
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
    /// An interactive shell on one server: connect once, then type commands (tools, call,
    /// prompts, resources, read, listen, ...) with history and Tab completion of commands,
    /// tool, prompt and resource names and argument names.
    ///
    /// History is saved in ~/.config/mcp/shell_history (MCP_SHELL_HISTORY: another file, empty
    /// for none). Notifications are printed as they arrive. Ctrl-C clears the line or cancels
    /// the running command; Ctrl-D or `exit` leaves.
    #[command(after_help = "Example: mcp shell \"npx -y @modelcontextprotocol/server-everything\"")]
    Shell(Target),
    /// A short tour against the bundled test server (no network; text output only).
    #[command(after_help = "Example: mcp demo")]
    Demo,
    /// Sign in to an HTTP server with OAuth (a browser opens) and save its tokens for later
    /// commands.
    #[command(after_help = "Example: mcp login https://mcp.example.com/mcp")]
    Login(Target),
    /// Forget the saved OAuth tokens of an HTTP server.
    #[command(after_help = "Example: mcp logout https://mcp.example.com/mcp")]
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
    ///
    /// Arguments are key=value pairs (prompt arguments are strings), or one JSON object of
    /// strings; `--args FILE` (`-` for stdin) reads a JSON object. Unknown names and missing
    /// required arguments (as the prompt declares them) are refused before it is sent.
    #[command(after_help = "Example: mcp prompts get TARGET greet name=Ada")]
    Get {
        #[command(flatten)]
        target: Target,
        /// The prompt's name.
        name: Option<String>,
        /// Its arguments: key=value, or one JSON object of strings.
        #[arg(value_name = "ARGS")]
        arguments: Vec<String>,
        /// A file with the arguments as a JSON object (`-`: stdin).
        #[arg(long = "args", value_name = "FILE")]
        args_file: Option<String>,
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
    #[command(
        after_help = "Examples:\n  mcp resources templates TARGET --json\n  mcp resources templates --config servers.json"
    )]
    Templates(Target),
}

/// `mcp tasks ...`.
#[derive(Debug, Subcommand)]
enum TasksCommand {
    /// List the tasks (2025-11-25 servers declaring tasks.list).
    #[command(after_help = "Example: mcp tasks list http://127.0.0.1:3001/mcp")]
    List(Target),
    /// Show a task's state.
    #[command(after_help = "Example: mcp tasks get http://127.0.0.1:3001/mcp TASK_ID")]
    Get {
        #[command(flatten)]
        target: Target,
        /// The task's id.
        task_id: Option<String>,
    },
    /// Wait for a task's result and print it.
    #[command(after_help = "Example: mcp tasks result http://127.0.0.1:3001/mcp TASK_ID")]
    Result {
        #[command(flatten)]
        target: Target,
        /// The task's id.
        task_id: Option<String>,
    },
    /// Ask the server to cancel a task.
    #[command(after_help = "Example: mcp tasks cancel http://127.0.0.1:3001/mcp TASK_ID")]
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

/// The contents of `--args FILE` (`-`: stdin).
fn read_args_file(path: Option<&str>) -> Result<Option<String>, CliError> {
    use std::io::Read;
    let Some(path) = path else { return Ok(None) };
    let mut text = String::new();
    let read = if path == "-" {
        std::io::stdin().read_to_string(&mut text).map(drop)
    } else {
        std::fs::File::open(path).and_then(|mut f| f.read_to_string(&mut text)).map(drop)
    };
    read.map_err(|e| CliError::usage(format!("cannot read --args {path}: {e}")))?;
    Ok(Some(text))
}

/// The arguments of `call` or `prompts get`: the words and `--args`.
fn arg_input(words: &[String], args_file: Option<&str>) -> Result<arguments::ArgInput, CliError> {
    arguments::ArgInput::parse(words, read_args_file(args_file)?.as_deref())
}

/// A JSON object of strings (the completion context).
fn string_map(text: &str, what: &str) -> Result<serde_json::Map<String, serde_json::Value>, CliError> {
    let map = arguments::json_object(text, what)?;
    if let Some((key, _)) = map.iter().find(|(_, v)| !v.is_string()) {
        return Err(CliError::usage(format!("{what}: the value of {key:?} must be a string")));
    }
    Ok(map)
}

async fn dispatch(settings: &Settings, command: Command) -> Result<ExitCode, CliError> {
    let sel = &settings.selection;
    let across_servers = matches!(
        command,
        Command::Tools(_) | Command::Prompts(PromptsArgs { command: None, .. }) | Command::Resources(_)
    ) || matches!(command, Command::Call { .. });
    if sel.all && !across_servers {
        return Err(CliError::usage("--all works with tools, prompts, resources and call: name one server"));
    }
    // TARGET and the command's own positionals, shifted when --server or a server argv after
    // `--` stands for TARGET.
    let (target, action) = match command {
        Command::Demo => return demo::run(settings).await,
        Command::Shell(target) => return shell::run(settings, target.target).await,
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
        Command::Call { target, tool, arguments, args_file, as_task } => {
            let (target, tool, words) = sel.positionals_with_tail(target.target, tool, arguments)?;
            if let Some(specs) = many_servers::for_call(settings, target.as_deref())? {
                // No TARGET: what clap took for it is the tool, and so on down.
                let (tool, words) = many_servers::shift(target, tool, words);
                let arguments = arg_input(&words, args_file.as_deref())?;
                let tool = required(tool, "TOOL")?;
                return many_servers::call(settings, specs, tool, arguments, as_task).await;
            }
            let arguments = arg_input(&words, args_file.as_deref())?;
            (target, Action::Call { tool: required(tool, "TOOL")?, arguments, as_task })
        }
        Command::Request { target, method, params } => {
            let (target, rest) = sel.positionals(target.target, vec![method, params])?;
            let [method, params]: [Option<String>; 2] = rest.try_into().expect("two positionals");
            let params = match params {
                Some(text) => serde_json::Value::Object(arguments::json_object(&text, "PARAMS_JSON")?),
                None => serde_json::Value::Null,
            };
            (target, Action::Request { method: required(method, "METHOD")?, params })
        }
        Command::Ping(target) => (sel.positionals(target.target, vec![])?.0, Action::Ping),
        Command::LogLevel { target, level } => {
            let (target, rest) = sel.positionals(target.target, vec![level])?;
            let level = required(rest.into_iter().next().flatten(), "LEVEL")?;
            let level = parse_level(&level).map_err(|e| CliError::usage(format!("LEVEL {level:?}: {e}")))?;
            (target, Action::LogLevel(level))
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
            command: Some(PromptsCommand::Get { target, name, arguments, args_file }),
            ..
        }) => {
            let (target, name, words) = sel.positionals_with_tail(target.target, name, arguments)?;
            let arguments = arg_input(&words, args_file.as_deref())?;
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
    if let Some(specs) = many_servers::for_list(settings, target.as_deref(), &action)? {
        return many_servers::list(settings, specs, action).await;
    }
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
    let (args, server_argv) = split_server_argv(std::env::args_os().collect());
    let cli = Cli::parse_from(args);
    let server_argv = match server_argv
        .map(|argv| argv.into_iter().map(|a| a.into_string()).collect::<Result<Vec<String>, _>>())
    {
        Some(Err(bad)) => {
            output::note(&format!("error: the server command after -- is not UTF-8: {bad:?}"));
            return ExitCode::from(exit::USAGE);
        }
        Some(Ok(argv)) => Some(argv),
        None => None,
    };
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
        events_on_stderr: true,
        headers: cli.headers,
        transport: cli.transport.forced(),
        retries: cli.retries,
        validation: cli.validate.into(),
        selection: selection::Selection {
            config: cli.config,
            server: cli.server,
            argv: server_argv,
            all: cli.all,
        },
        env: cli.env,
        cwd: cli.cwd,
        log_level: cli.log_level,
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
        match cli.command {
            // The shell handles Ctrl-C itself: it cancels the running command, not the shell.
            Command::Shell(target) => Some(shell::run(&settings, target.target).await),
            command => tokio::select! {
                biased;
                () = interrupted() => None,
                outcome = dispatch(&settings, command) => Some(outcome),
            },
        }
    });
    drop(runtime);
    match outcome {
        Some(Ok(code)) => code,
        Some(Err(e)) => {
            if settings.json {
                output::emit(&output::pretty(&e.to_json()));
            }
            output::note(&format!("error: {e}"));
            ExitCode::from(e.code())
        }
        None => ExitCode::from(exit::INTERRUPTED),
    }
}

/// Splits the command line at the first `--`: what follows is a stdio server's argv.
fn split_server_argv(
    mut args: Vec<std::ffi::OsString>,
) -> (Vec<std::ffi::OsString>, Option<Vec<std::ffi::OsString>>) {
    match args.iter().position(|a| a == "--") {
        Some(i) => {
            let argv = args.split_off(i + 1);
            args.pop();
            (args, Some(argv))
        }
        None => (args, None),
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
        assert_eq!((target.target.as_deref(), arguments), (Some("srv --flag"), vec![]));
        // key=value words and flags mix; -e, --cwd and --log-level are global.
        let cli = Cli::try_parse_from([
            "mcp",
            "call",
            "srv",
            "add",
            "a=1",
            "--json",
            "b:=2",
            "-e",
            "K=v=w",
            "--cwd",
            "/tmp",
            "--log-level",
            "info",
        ])
        .unwrap();
        assert_eq!(cli.env, [("K".to_owned(), "v=w".to_owned())]);
        assert_eq!(
            (cli.cwd.as_deref(), cli.log_level),
            (Some(std::path::Path::new("/tmp")), Some(LoggingLevel::Info))
        );
        let Command::Call { arguments, .. } = cli.command else { panic!("not call") };
        assert_eq!(arguments, ["a=1", "b:=2"]);
        assert!(Cli::try_parse_from(["mcp", "tools", "x", "--log-level", "loud"]).is_err());
        assert!(Cli::try_parse_from(["mcp", "tools", "x", "-e", "=v"]).is_err());
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
    fn server_argv_after_double_dash() {
        let os = |ws: &[&str]| ws.iter().map(std::ffi::OsString::from).collect::<Vec<_>>();
        let (args, argv) =
            split_server_argv(os(&["mcp", "tools", "--json", "--", "npx", "-y", "pkg", "--", "x"]));
        assert_eq!(
            (args, argv),
            (os(&["mcp", "tools", "--json"]), Some(os(&["npx", "-y", "pkg", "--", "x"])))
        );
        assert_eq!(split_server_argv(os(&["mcp", "tools", "t"])), (os(&["mcp", "tools", "t"]), None));
    }

    #[test]
    fn context_values_are_strings() {
        assert!(string_map(r#"{"a": "x"}"#, "--context").is_ok());
        let err = string_map(r#"{"a": 1}"#, "--context").unwrap_err();
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
