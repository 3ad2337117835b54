//! One line typed at the shell's prompt: split like a shell does (quotes, backslashes), parsed
//! with clap into the same [`Action`]s the `mcp` subcommands run, or into one of the shell's
//! own commands (`help`, `json`, `listen`, `exit`).

use std::collections::BTreeMap;
use std::time::Duration;

use clap::{CommandFactory, Parser, Subcommand, ValueEnum};
use mcpwire_tokio::types::CompletionReference;

use crate::commands::{Action, CliError};
use crate::listen::ListenArgs;
use crate::tasks::TaskAction;

/// A line typed at the prompt.
#[derive(Debug, Parser)]
#[command(
    name = "mcp",
    no_binary_name = true,
    disable_help_subcommand = true,
    disable_version_flag = true,
    subcommand_required = true
)]
pub struct Line {
    #[command(subcommand)]
    command: ShellCommand,
    /// Print this command's output as JSON (the protocol's result object).
    #[arg(long, global = true)]
    json: bool,
}

/// The commands of the shell.
#[derive(Debug, Subcommand)]
enum ShellCommand {
    /// Show the era, protocol version, server identity, capabilities and instructions.
    Info,
    /// List the tools.
    Tools,
    /// Call a tool: `call TOOL key=value…` (key:=JSON to force JSON, or one JSON object).
    #[command(after_help = "Example: call echo message=hi")]
    Call {
        /// The tool's name.
        tool: String,
        /// The arguments: key=value, key:=JSON, or one JSON object.
        #[arg(value_name = "ARGS")]
        arguments: Vec<String>,
        /// A file with the arguments as a JSON object; key=value pairs override it.
        #[arg(long = "args", value_name = "FILE")]
        args_file: Option<String>,
        /// Start the call as a task and wait for its result.
        #[arg(long)]
        as_task: bool,
    },
    /// List the prompts; `prompts get NAME k=v…` gets one.
    #[command(args_conflicts_with_subcommands = true, after_help = "Example: prompts get greet name=Ada")]
    Prompts {
        #[command(subcommand)]
        command: Option<PromptsLine>,
    },
    /// List the resources and templates; `resources templates` lists the templates.
    Resources {
        #[command(subcommand)]
        command: Option<ResourcesLine>,
    },
    /// Read a resource: `read URI`.
    #[command(after_help = "Example: read test://text")]
    Read {
        /// The resource's URI.
        uri: String,
    },
    /// Complete an argument of a prompt or resource template: `complete ARG VALUE --prompt NAME`.
    #[command(after_help = "Example: complete name A --prompt greet")]
    Complete {
        /// The argument's name.
        argument: String,
        /// What has been typed so far.
        #[arg(allow_hyphen_values = true)]
        value: Option<String>,
        /// The prompt whose argument it is.
        #[arg(long, value_name = "NAME", conflicts_with = "resource", required_unless_present = "resource")]
        prompt: Option<String>,
        /// The resource template (URI template) whose argument it is.
        #[arg(long, value_name = "URI_TEMPLATE")]
        resource: Option<String>,
        /// Arguments already chosen, as a JSON object of strings.
        #[arg(long, value_name = "JSON")]
        context: Option<String>,
    },
    /// Send any request and print its raw result: `request METHOD [PARAMS_JSON]`.
    #[command(after_help = "Example: request tools/list '{}'")]
    Request {
        /// The JSON-RPC method.
        method: String,
        /// Its params, a JSON object (default none).
        #[arg(value_name = "PARAMS_JSON", allow_hyphen_values = true)]
        params: Option<String>,
    },
    /// Check the server answers.
    Ping,
    /// Set the server's log level (the messages are printed as they arrive).
    #[command(after_help = "Example: log-level debug")]
    LogLevel {
        /// debug, info, notice, warning, error, critical, alert or emergency.
        #[arg(value_name = "LEVEL")]
        level: String,
    },
    /// Print notifications as they arrive, until Ctrl-C.
    #[command(after_help = "Example: listen --resource test://text")]
    Listen {
        /// A resource URI to watch for updates (repeatable).
        #[arg(long = "resource", value_name = "URI")]
        resources: Vec<String>,
        /// Only these list changes (repeatable; default: all three).
        #[arg(long = "list", value_enum, value_name = "KIND")]
        lists: Vec<crate::List>,
        /// Stop after this many notifications.
        #[arg(long, value_name = "N")]
        count: Option<u64>,
        /// Stop after this many seconds.
        #[arg(long = "for", value_name = "SECONDS", value_parser = crate::parse_timeout)]
        duration: Option<Duration>,
    },
    /// The server's tasks: `tasks list`, `tasks get|result|cancel ID`.
    Tasks {
        #[command(subcommand)]
        command: TasksLine,
    },
    /// Print JSON (on) or text (off) from now on; without a word, say which.
    Json {
        /// on or off.
        state: Option<OnOff>,
    },
    /// List the commands, or show one command's help: `help [COMMAND]`.
    Help {
        /// A command.
        command: Option<String>,
    },
    /// Leave the shell (also `quit`, or Ctrl-D).
    #[command(visible_alias = "quit")]
    Exit,
}

/// `prompts get`.
#[derive(Debug, Subcommand)]
enum PromptsLine {
    /// Get a prompt: its messages, with the arguments filled in.
    Get {
        /// The prompt's name.
        name: String,
        /// Its arguments: key=value, or one JSON object of strings.
        #[arg(value_name = "ARGS")]
        arguments: Vec<String>,
        /// A file with the arguments as a JSON object.
        #[arg(long = "args", value_name = "FILE")]
        args_file: Option<String>,
    },
}

/// `resources templates`.
#[derive(Debug, Subcommand)]
enum ResourcesLine {
    /// List the resource templates.
    Templates,
}

/// `tasks ...`.
#[derive(Debug, Subcommand)]
enum TasksLine {
    /// List the tasks.
    List,
    /// Show a task's state.
    Get {
        /// The task's id.
        task_id: String,
    },
    /// Wait for a task's result and print it.
    Result {
        /// The task's id.
        task_id: String,
    },
    /// Ask the server to cancel a task.
    Cancel {
        /// The task's id.
        task_id: String,
    },
}

/// `json on` / `json off`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OnOff {
    /// Print JSON.
    On,
    /// Print text.
    Off,
}

/// What a line asks for.
#[derive(Debug)]
pub enum Parsed {
    /// Nothing (an empty line or a comment).
    Nothing,
    /// Text to print on stdout (help).
    Print(String),
    /// Run an action on the server; `json`: `--json` was given on the line.
    Run {
        /// The action.
        action: Action,
        /// `--json` on this line.
        json: bool,
    },
    /// Listen until Ctrl-C (or `--count` / `--for`).
    Listen {
        /// What to listen to.
        args: ListenArgs,
        /// `--json` on this line.
        json: bool,
    },
    /// Switch JSON output on or off (`None`: say which it is).
    Json(Option<bool>),
    /// Leave the shell.
    Exit,
}

/// The command names, as typed (aliases included).
pub fn command_names() -> Vec<String> {
    let cmd = Line::command();
    let mut names = Vec::new();
    for sub in cmd.get_subcommands() {
        names.push(sub.get_name().to_owned());
        names.extend(sub.get_all_aliases().map(str::to_owned));
    }
    names
}

/// One line per command: its name and what it does.
pub fn command_list() -> String {
    let cmd = Line::command();
    let width = cmd.get_subcommands().map(|s| s.get_name().len()).max().unwrap_or(0) + 2;
    let mut out: Vec<String> = cmd
        .get_subcommands()
        .map(|s| {
            let about = s.get_about().map(|a| a.to_string()).unwrap_or_default();
            format!("  {:width$}{about}", s.get_name())
        })
        .collect();
    out.insert(0, "Commands (Tab completes names; `help COMMAND` or `COMMAND --help` for more):".into());
    out.push("Ctrl-C clears the line or cancels a running command; Ctrl-D leaves.".into());
    out.join("\n")
}

/// The edit distance between two words (insertions, deletions, substitutions).
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (diagonal + usize::from(ca != *cb)).min(row[j] + 1).min(above + 1);
            diagonal = above;
        }
    }
    row[b.len()]
}

/// The known command closest to `word` (a prefix of one counts as closest).
pub fn closest_command(word: &str) -> String {
    let names = command_names();
    if let Some(name) = names.iter().find(|n| n.starts_with(word) && !word.is_empty()) {
        return name.clone();
    }
    names.into_iter().min_by_key(|n| distance(word, n)).unwrap_or_default()
}

/// The arguments of `call` or `prompts get`; `--args -` is refused (stdin is the terminal).
fn arg_input(words: &[String], args_file: Option<&str>) -> Result<crate::arguments::ArgInput, CliError> {
    if args_file == Some("-") {
        return Err(CliError::usage("--args - (stdin) does not work in the shell: give a file"));
    }
    crate::arg_input(words, args_file)
}

/// Parses one line. Errors are usage errors whose message is ready to print (clap's own,
/// or an unknown command with the closest one suggested).
pub fn parse(line: &str) -> Result<Parsed, CliError> {
    let trimmed = line.trim();
    if trimmed.is_empty() || trimmed.starts_with('#') {
        return Ok(Parsed::Nothing);
    }
    let words =
        shell_words::split(trimmed).map_err(|e| CliError::usage(format!("cannot split the line: {e}")))?;
    let Some(first) = words.first() else { return Ok(Parsed::Nothing) };
    if !first.starts_with('-') && !command_names().contains(first) {
        return Err(CliError::usage(format!(
            "unknown command {first:?}; did you mean {:?}? (`help` lists the commands)",
            closest_command(first)
        )));
    }
    let parsed = match Line::try_parse_from(&words) {
        Ok(parsed) => parsed,
        Err(e) => {
            use clap::error::ErrorKind;
            let text = e.render().to_string();
            return match e.kind() {
                ErrorKind::DisplayHelp | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
                    Ok(Parsed::Print(text.trim_end().to_owned()))
                }
                _ => Err(CliError::usage(text.trim().trim_start_matches("error: "))),
            };
        }
    };
    let json = parsed.json;
    let run = |action| Ok(Parsed::Run { action, json });
    match parsed.command {
        ShellCommand::Info => run(Action::Info),
        ShellCommand::Tools => run(Action::Tools),
        ShellCommand::Ping => run(Action::Ping),
        ShellCommand::Call { tool, arguments, args_file, as_task } => {
            let arguments = arg_input(&arguments, args_file.as_deref())?;
            run(Action::Call { tool, arguments, as_task })
        }
        ShellCommand::Prompts { command: None } => run(Action::Prompts),
        ShellCommand::Prompts { command: Some(PromptsLine::Get { name, arguments, args_file }) } => {
            let arguments = arg_input(&arguments, args_file.as_deref())?;
            run(Action::GetPrompt { name, arguments })
        }
        ShellCommand::Resources { command: None } => run(Action::Resources),
        ShellCommand::Resources { command: Some(ResourcesLine::Templates) } => run(Action::Templates),
        ShellCommand::Read { uri } => run(Action::Read { uri }),
        ShellCommand::Complete { argument, value, prompt, resource, context } => {
            let reference = match (prompt, resource) {
                (Some(name), _) => CompletionReference::Prompt { name },
                (None, Some(uri)) => CompletionReference::Resource { uri },
                (None, None) => {
                    return Err(CliError::usage("--prompt NAME or --resource URI_TEMPLATE is required"))
                }
            };
            let context: BTreeMap<String, String> =
                crate::string_map(context.as_deref().unwrap_or("{}"), "--context")?
                    .into_iter()
                    .map(|(k, v)| (k, v.as_str().unwrap_or_default().to_owned()))
                    .collect();
            run(Action::Complete { reference, argument, value: value.unwrap_or_default(), context })
        }
        ShellCommand::Request { method, params } => {
            let params = match params {
                Some(text) => serde_json::Value::Object(crate::arguments::json_object(&text, "PARAMS_JSON")?),
                None => serde_json::Value::Null,
            };
            run(Action::Request { method, params })
        }
        ShellCommand::LogLevel { level } => {
            let level =
                crate::parse_level(&level).map_err(|e| CliError::usage(format!("LEVEL {level:?}: {e}")))?;
            run(Action::LogLevel(level))
        }
        ShellCommand::Tasks { command } => run(Action::Tasks(match command {
            TasksLine::List => TaskAction::List,
            TasksLine::Get { task_id } => TaskAction::Get(task_id),
            TasksLine::Result { task_id } => TaskAction::Result(task_id),
            TasksLine::Cancel { task_id } => TaskAction::Cancel(task_id),
        })),
        ShellCommand::Listen { resources, lists, count, duration } => {
            let lists = (!lists.is_empty()).then(|| lists.into_iter().map(Into::into).collect());
            Ok(Parsed::Listen { args: ListenArgs { resources, lists, count, duration }, json })
        }
        ShellCommand::Json { state } => Ok(Parsed::Json(state.map(|s| s == OnOff::On))),
        ShellCommand::Help { command: None } => Ok(Parsed::Print(command_list())),
        ShellCommand::Help { command: Some(name) } => {
            let mut cmd = Line::command();
            match cmd.find_subcommand_mut(&name) {
                Some(sub) => Ok(Parsed::Print(sub.render_long_help().to_string().trim_end().to_owned())),
                None => Err(CliError::usage(format!(
                    "unknown command {name:?}; did you mean {:?}?",
                    closest_command(&name)
                ))),
            }
        }
        ShellCommand::Exit => Ok(Parsed::Exit),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_definition_is_valid() {
        Line::command().debug_assert();
    }

    #[test]
    fn lines_become_actions() {
        let Parsed::Run { action: Action::Call { tool, arguments, as_task }, json } =
            parse("call echo 'message=hi there' --json").unwrap()
        else {
            panic!("not a call")
        };
        assert_eq!((tool.as_str(), as_task, json), ("echo", false, true));
        assert!(arguments.has_pairs());
        assert!(matches!(
            parse("prompts get greet name=Ada").unwrap(),
            Parsed::Run { action: Action::GetPrompt { .. }, .. }
        ));
        assert!(matches!(
            parse("resources templates").unwrap(),
            Parsed::Run { action: Action::Templates, .. }
        ));
        assert!(matches!(parse("log-level debug").unwrap(), Parsed::Run { action: Action::LogLevel(_), .. }));
        assert!(matches!(
            parse("request tools/list '{}'").unwrap(),
            Parsed::Run { action: Action::Request { .. }, .. }
        ));
        let Parsed::Listen { args, .. } = parse("listen --resource a://b --list tools").unwrap() else {
            panic!("not listen")
        };
        assert_eq!(args.resources, ["a://b"]);
        assert!(matches!(parse("json off").unwrap(), Parsed::Json(Some(false))));
        assert!(matches!(parse("quit").unwrap(), Parsed::Exit));
        assert!(matches!(parse("   ").unwrap(), Parsed::Nothing));
        assert!(matches!(parse("# a comment").unwrap(), Parsed::Nothing));
    }

    #[test]
    fn mistakes_are_usage_errors() {
        let err = parse("tols").unwrap_err();
        assert!(err.to_string().contains("did you mean \"tools\""), "{err}");
        assert!(parse("call").unwrap_err().to_string().contains("TOOL"));
        assert!(parse("call echo 'unclosed").unwrap_err().to_string().contains("split"));
        assert!(parse("log-level loud").is_err());
        assert!(parse("complete name A").is_err());
    }

    #[test]
    fn help_lists_every_command() {
        let Parsed::Print(text) = parse("help").unwrap() else { panic!("not printed") };
        for name in ["tools", "call", "prompts", "resources", "read", "listen", "exit"] {
            assert!(text.lines().any(|l| l.trim_start().starts_with(name)), "{name}: {text}");
        }
        let Parsed::Print(text) = parse("help call").unwrap() else { panic!("not printed") };
        assert!(text.contains("Example: call echo message=hi"), "{text}");
        assert!(matches!(parse("call --help").unwrap(), Parsed::Print(_)));
    }

    #[test]
    fn closest_names() {
        assert_eq!(closest_command("cal"), "call");
        assert_eq!(closest_command("promts"), "prompts");
        assert_eq!(closest_command("xit"), "exit");
        assert_eq!(distance("kitten", "sitting"), 3);
    }
}
