//! `mcp shell`: connects to one server once, then reads commands at a prompt (rustyline: line
//! editing, history, Tab completion) and runs each through [`commands::perform`], the same code
//! as the `mcp` subcommands.
//!
//! The editor runs on a thread of its own (rustyline blocks); this async loop asks it for a
//! line, runs the command, and meanwhile prints what the server sends: notifications that
//! arrive while the prompt waits go above it through rustyline's external printer, without
//! breaking the line being typed. Ctrl-C at the prompt clears the line (rustyline); Ctrl-C
//! while a command runs (the terminal is out of raw mode then, so it is a SIGINT) drops the
//! command's future, which cancels its request (`notifications/cancelled`), or ends a
//! `listen`.

mod complete;
mod parse;

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use mcpwire_tokio::{Era, Event, ListKind, Notification, Server, SubscriptionFilter, Warning};
use rustyline::error::ReadlineError;
use rustyline::history::FileHistory;
use rustyline::{CompletionType, Config, Editor, ExternalPrinter};
use tokio::sync::mpsc;

use crate::commands::{self, Action, CliError, Settings};
use crate::listen::{self, ListenArgs};
use crate::output::{emit, note, one_line, pretty};
use complete::{SharedCatalog, ShellHelper};
use parse::Parsed;

/// Notifications and events buffered between the client's hook and the shell's loop (more
/// are dropped while the loop is busy).
const BUFFERED: usize = 1024;

/// What the client's event hook passes to the shell's loop.
#[derive(Debug)]
enum Heard {
    /// A notification to print (and, for a list change, a list to fetch again).
    Notification(Notification),
    /// A list changed while `listen` prints it: fetch the list again, print nothing.
    Changed(ListKind),
    /// A line about the connection (stderr with --verbose, warnings, a disconnect).
    Text(String),
}

/// Where list changes and resource updates go while a `listen` runs (a handshake server's
/// listen reads them from there; a 2026-07-28 listen has its own stream).
type ListenSlot = Arc<Mutex<Option<mpsc::Sender<Notification>>>>;

/// `mcp shell`: connects to the server TARGET names and reads commands until `exit` or Ctrl-D.
pub async fn run(settings: &Settings, target: Option<String>) -> Result<ExitCode, CliError> {
    let (target, _) = settings.selection.positionals(target, vec![])?;
    let spec = commands::spec_for(settings, target.as_deref())?;
    let (events, heard) = mpsc::channel(BUFFERED);
    let listening = ListenSlot::default();
    let hook = hook(events, listening.clone(), settings.verbose);
    // The shell prints the server's logs and events itself (above the prompt); the client
    // must not write them to stderr in the middle of a line being typed.
    let client_settings = Settings { events_on_stderr: false, log_level: None, ..settings.clone() };
    commands::with_server_hooked(&client_settings, spec, Some(Box::new(hook)), |server| async move {
        // Ctrl-C while connecting ends the shell, as it ends any other command.
        let info = tokio::select! {
            biased;
            () = crate::interrupted() => return Ok(ExitCode::from(crate::exit::INTERRUPTED)),
            info = server.connect() => info?,
        };
        note(&format!("connected: {}", crate::output::connection_line(&info)));
        note("type `help` for the commands; Tab completes; Ctrl-C cancels; Ctrl-D leaves");
        let name = info.implementation.as_ref().map(|i| one_line(&i.name, 40)).unwrap_or_default();
        let name =
            if name.trim().is_empty() { "mcp".to_owned() } else { name.replace(char::is_whitespace, "-") };
        let catalog = SharedCatalog::default();
        let editor = LineReader::start(catalog.clone(), history_path())?;
        let mut shell = Shell {
            settings: settings.clone(),
            json: settings.json,
            server,
            era: info.era,
            catalog,
            heard,
            listening,
            printer: editor.printer,
            stale: Vec::new(),
            background: None,
        };
        shell.start(&info).await;
        let outcome = shell.read_eval_print(&format!("{name}> "), &editor.requests, editor.inputs).await;
        drop(editor.requests);
        let _ = editor.thread.join();
        outcome
    })
    .await
}

/// The client's event hook: notifications and events become [`Heard`]s for the shell's loop.
fn hook(
    events: mpsc::Sender<Heard>,
    listening: ListenSlot,
    verbose: bool,
) -> impl Fn(&str, &Event) + Send + Sync + 'static {
    move |_server: &str, event: &Event| {
        let heard = match event {
            Event::Notification(
                n @ (Notification::ListChanged(_) | Notification::ResourceUpdated { .. }),
            ) => {
                let slot = listening.lock().ok().and_then(|s| s.clone());
                match slot {
                    // `listen` prints it; the list is still fetched again.
                    Some(tx) => {
                        let _ = tx.try_send(n.clone());
                        match n {
                            Notification::ListChanged(kind) => Heard::Changed(*kind),
                            _ => return,
                        }
                    }
                    None => Heard::Notification(n.clone()),
                }
            }
            Event::Notification(n) => Heard::Notification(n.clone()),
            Event::Stderr(line) if verbose => Heard::Text(format!("stderr: {line}")),
            // The kinds a command reports even without --verbose, and with it every warning.
            Event::Warning(w)
                if verbose
                    || matches!(
                        w,
                        Warning::StructuredContent { .. }
                            | Warning::ToolSchema { .. }
                            | Warning::Deprecated { .. }
                    ) =>
            {
                Heard::Text(format!("warning: {w}"))
            }
            Event::Disconnected { reason } => Heard::Text(format!("disconnected: {reason}")),
            Event::ResourceSubscriptionDropped { uri, reason } => {
                Heard::Text(format!("subscription to {uri} dropped: {reason}"))
            }
            _ => return,
        };
        let _ = events.try_send(heard);
    }
}

/// The history file: `MCP_SHELL_HISTORY` (empty: none), else `shell_history` in the user's
/// config directory (`~/.config/mcp/shell_history` on Linux).
fn history_path() -> Option<PathBuf> {
    match std::env::var_os("MCP_SHELL_HISTORY") {
        Some(path) if path.is_empty() => None,
        Some(path) => Some(PathBuf::from(path)),
        None => dirs::config_dir().map(|dir| dir.join("mcp").join("shell_history")),
    }
}

/// Creates the history file (mode 0600: lines may hold secrets) and its directory when
/// missing.
fn prepare_history(path: &std::path::Path) -> std::io::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let mut options = std::fs::OpenOptions::new();
    options.append(true).create(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path).map(drop)
}

/// What the editor thread read.
#[derive(Debug)]
enum Input {
    /// A line (history has it already).
    Line(String),
    /// Ctrl-C at the prompt.
    Interrupted,
    /// Ctrl-D, or the end of the input.
    Eof,
    /// The terminal failed.
    Failed(String),
}

/// The printer that writes above the prompt (or straight out when the editor is not reading).
type Printer = Box<dyn ExternalPrinter + Send>;

/// The editor thread: it reads a line each time it gets a prompt.
struct LineReader {
    requests: std::sync::mpsc::Sender<String>,
    inputs: mpsc::UnboundedReceiver<Input>,
    printer: Option<Printer>,
    thread: std::thread::JoinHandle<()>,
}

impl LineReader {
    /// Starts the editor thread with completion from `catalog` and history in `history`.
    fn start(catalog: SharedCatalog, history: Option<PathBuf>) -> Result<Self, CliError> {
        let config = Config::builder()
            .completion_type(CompletionType::List)
            .auto_add_history(false)
            .history_ignore_space(true)
            .max_history_size(1000)
            .map_err(|e| CliError::new(format!("cannot start the line editor: {e}")))?
            .build();
        let mut editor: Editor<ShellHelper, FileHistory> = Editor::with_config(config)
            .map_err(|e| CliError::new(format!("cannot start the line editor: {e}")))?;
        editor.set_helper(Some(ShellHelper { catalog }));
        // A script piped in is not history.
        let terminal = std::io::stdin().is_terminal();
        let history = history.filter(|_| terminal).filter(|path| match prepare_history(path) {
            Ok(()) => true,
            Err(e) => {
                note(&format!("history is not saved: {}: {e}", path.display()));
                false
            }
        });
        if let Some(path) = &history {
            let _ = editor.load_history(path);
        }
        // Without a terminal (input from a pipe) there is no prompt to print above.
        let printer = if terminal {
            editor.create_external_printer().ok().map(|p| Box::new(p) as Printer)
        } else {
            None
        };
        let (requests, prompts) = std::sync::mpsc::channel::<String>();
        let (lines, inputs) = mpsc::unbounded_channel();
        let thread = std::thread::spawn(move || {
            let mut warned = false;
            while let Ok(prompt) = prompts.recv() {
                let input = match editor.readline(&prompt) {
                    Ok(line) => {
                        if !line.trim().is_empty() {
                            let _ = editor.add_history_entry(line.as_str());
                            if let Some(path) = &history {
                                if let Err(e) = editor.append_history(path) {
                                    if !std::mem::replace(&mut warned, true) {
                                        note(&format!("history is not saved: {}: {e}", path.display()));
                                    }
                                }
                            }
                        }
                        Input::Line(line)
                    }
                    Err(ReadlineError::Interrupted) => Input::Interrupted,
                    Err(ReadlineError::Eof) => Input::Eof,
                    Err(e) => Input::Failed(e.to_string()),
                };
                if lines.send(input).is_err() {
                    break;
                }
            }
        });
        Ok(Self { requests, inputs, printer, thread })
    }
}

/// The shell's state between lines.
struct Shell {
    /// The global flags (`json` is per line).
    settings: Settings,
    /// `json on|off`.
    json: bool,
    server: Server,
    era: Era,
    catalog: SharedCatalog,
    heard: mpsc::Receiver<Heard>,
    listening: ListenSlot,
    printer: Option<Printer>,
    /// Lists that changed while a command ran, fetched again after it.
    stale: Vec<ListKind>,
    /// On a 2026-07-28 server, the stream of list changes the shell keeps open so that it
    /// hears them (a handshake server sends them unasked).
    background: Option<mcpwire_tokio::Subscription>,
}

impl Shell {
    /// `--log-level`, the lists for completion, and the stream of list changes.
    async fn start(&mut self, info: &mcpwire_tokio::ServerInfo) {
        if let Some(level) = self.settings.log_level {
            match self.server.set_log_level(level).await {
                Ok(()) => {}
                Err(e) if commands::not_offered(&e) => {
                    note(&format!("the server does not offer logging: --log-level {level} ignored"))
                }
                Err(e) => note(&format!("error: --log-level {level}: {}", CliError::from(e))),
            }
        }
        for kind in [ListKind::Tools, ListKind::Prompts, ListKind::Resources] {
            self.refresh(kind).await;
        }
        if info.era == Era::Modern {
            let caps = &info.capabilities;
            let mut filter = SubscriptionFilter::new();
            let mut any = false;
            if caps.tools().is_some_and(|t| t.list_changed) {
                filter = filter.tools_list_changed();
                any = true;
            }
            if caps.prompts().is_some_and(|p| p.list_changed) {
                filter = filter.prompts_list_changed();
                any = true;
            }
            if caps.resources().is_some_and(|r| r.list_changed) {
                filter = filter.resources_list_changed();
                any = true;
            }
            if any {
                // The client's hook sees the stream's notifications; a server that refuses
                // only means no refresh on changes.
                self.background = self.server.listen(filter).await.ok();
            }
        }
    }

    /// Fetches one list again for completion (a server without it has an empty one).
    async fn refresh(&mut self, kind: ListKind) {
        match kind {
            ListKind::Tools => {
                if let Ok(tools) = self.server.list_tools().await {
                    self.catalog.lock().expect("catalog").set_tools(&tools);
                }
            }
            ListKind::Prompts => {
                if let Ok(prompts) = self.server.list_prompts().await {
                    self.catalog.lock().expect("catalog").set_prompts(&prompts);
                }
            }
            ListKind::Resources => {
                if let Ok(resources) = self.server.list_resources().await {
                    self.catalog.lock().expect("catalog").set_resources(&resources);
                }
            }
        }
    }

    /// Prints a line above the prompt (or as is when no prompt is shown).
    fn print(&mut self, text: &str) {
        match &mut self.printer {
            Some(printer) => {
                if printer.print(format!("{text}\n")).is_err() {
                    emit(text);
                }
            }
            None => emit(text),
        }
    }

    /// Prints what was heard; a changed list is marked to be fetched again.
    fn show(&mut self, heard: Heard) {
        match heard {
            Heard::Notification(n) => {
                let line = if self.json {
                    listen::notification_json(&n).to_string()
                } else {
                    listen::notification_text(&n)
                };
                self.print(&line);
                if let Notification::ListChanged(kind) = n {
                    self.stale.push(kind);
                }
            }
            Heard::Changed(kind) => self.stale.push(kind),
            Heard::Text(text) => self.print(&text),
        }
    }

    /// Fetches the lists that changed.
    async fn refresh_stale(&mut self) {
        let mut stale = std::mem::take(&mut self.stale);
        stale.dedup();
        for kind in stale {
            self.refresh(kind).await;
        }
    }

    /// Reads and runs lines until `exit`, Ctrl-D or the end of the input.
    async fn read_eval_print(
        &mut self,
        prompt: &str,
        requests: &std::sync::mpsc::Sender<String>,
        mut inputs: mpsc::UnboundedReceiver<Input>,
    ) -> Result<ExitCode, CliError> {
        loop {
            if requests.send(prompt.to_owned()).is_err() {
                return Err(CliError::new("the line editor stopped"));
            }
            let input = loop {
                tokio::select! {
                    input = inputs.recv() => break input,
                    Some(heard) = self.heard.recv() => {
                        self.show(heard);
                        self.refresh_stale().await;
                    }
                }
            };
            match input {
                Some(Input::Line(line)) => {
                    if !self.eval(&line).await {
                        return Ok(ExitCode::SUCCESS);
                    }
                }
                Some(Input::Interrupted) => {}
                Some(Input::Eof) | None => {
                    if self.printer.is_some() {
                        emit("");
                    }
                    return Ok(ExitCode::SUCCESS);
                }
                Some(Input::Failed(e)) => {
                    return Err(CliError::new(format!("cannot read the terminal: {e}")))
                }
            }
        }
    }

    /// Runs one line; `false`: leave the shell.
    async fn eval(&mut self, line: &str) -> bool {
        match parse::parse(line) {
            Ok(Parsed::Nothing) => {}
            Ok(Parsed::Print(text)) => emit(&text),
            Ok(Parsed::Exit) => return false,
            Ok(Parsed::Json(None)) => {
                emit(&format!("json output is {}", if self.json { "on" } else { "off" }))
            }
            Ok(Parsed::Json(Some(on))) => self.json = on,
            Ok(Parsed::Run { action, json }) => self.run_action(action, json).await,
            Ok(Parsed::Listen { args, json }) => self.listen(args, json).await,
            Err(e) => self.report(&e, false),
        }
        self.refresh_stale().await;
        true
    }

    /// Says a command was stopped by Ctrl-C, on a line of its own (the terminal echoed `^C`).
    fn cancelled(&self, what: &str) {
        if self.printer.is_some() {
            note("");
        }
        note(what);
    }

    /// Prints a failed command's error (and `{"error": ...}` with JSON output).
    fn report(&self, e: &CliError, json: bool) {
        if json {
            emit(&pretty(&e.to_json()));
        }
        note(&format!("error: {e}"));
    }

    /// Runs `work` until it ends (`Some`) or Ctrl-C drops it (`None`), printing what the
    /// server sends meanwhile.
    async fn until_interrupted<T>(&mut self, work: impl std::future::Future<Output = T>) -> Option<T> {
        tokio::pin!(work);
        let interrupted = crate::interrupted();
        tokio::pin!(interrupted);
        loop {
            tokio::select! {
                biased;
                () = &mut interrupted => return None,
                out = &mut work => return Some(out),
                Some(heard) = self.heard.recv() => self.show(heard),
            }
        }
    }

    /// Runs an action the way its `mcp` subcommand does.
    async fn run_action(&mut self, action: Action, json: bool) {
        let settings = Settings { json: self.json || json, ..self.settings.clone() };
        let listed = match &action {
            Action::Tools => Some(ListKind::Tools),
            Action::Prompts => Some(ListKind::Prompts),
            Action::Resources => Some(ListKind::Resources),
            _ => None,
        };
        let work = commands::perform(&settings, self.server.clone(), action);
        match self.until_interrupted(work).await {
            None => self.cancelled("cancelled"),
            Some(Err(e)) => self.report(&e, settings.json),
            Some(Ok(_)) => self.stale.extend(listed),
        }
    }

    /// `listen`: prints notifications until Ctrl-C (or `--count` / `--for`).
    async fn listen(&mut self, args: ListenArgs, json: bool) {
        let settings = Settings { json: self.json || json, ..self.settings.clone() };
        let (tx, rx) = mpsc::channel(BUFFERED);
        *self.listening.lock().expect("listen slot") = Some(tx);
        let resources = args.resources.clone();
        let work = listen::run(&settings, self.server.clone(), args, rx);
        let outcome = self.until_interrupted(work).await;
        *self.listening.lock().expect("listen slot") = None;
        match outcome {
            None => self.cancelled("stopped listening"),
            Some(Err(e)) => self.report(&e, settings.json),
            Some(Ok(_)) => {}
        }
        // A handshake server keeps sending updates of subscribed resources: stop them.
        if self.era == Era::Legacy {
            for uri in &resources {
                let _ = self.server.unsubscribe_resource(uri).await;
            }
        }
    }
}
