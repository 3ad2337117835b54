//! Many servers from one config file: with `--config FILE` and no server named (or `--all`),
//! `tools`, `prompts`, `resources` and `resources templates` list the items of every server of
//! the file, each tagged with its server, and `call` goes to the server offering the tool. The
//! client-wide catalog and routing of the library do the work: every server is asked at once,
//! and a server that fails is reported beside the others' answers.
//!
//! Exit codes: 0 when every server answered (a server without the capability counts as
//! answering with nothing); 1 when some server failed and another answered (the answers are
//! still printed, so a script notices without losing them); the failure's own code when no
//! server answered (3 when none could be reached).

use std::process::ExitCode;

use mcpwire_tokio::{
    Client, ClientError, ClientList, RouteError, ServerFailure, ServerPrompt, ServerResource,
    ServerResourceTemplate, ServerSpec, ServerTool,
};
use serde_json::{json, Value};

use crate::arguments::ArgInput;
use crate::commands::{self, not_offered, Action, CliError, Settings};
use crate::exit;
use crate::output::{self, emit, note};
use crate::selection::{self, Selection};

/// Every server of the file, when `--all` asks for them or no server is named (`None`: one
/// server, chosen as usual). With `target_is_tool` (`call`), a TARGET that names no server of
/// the file is the tool, so the command works across the servers.
fn every_server(
    settings: &Settings,
    target: Option<&str>,
    target_is_tool: bool,
) -> Result<Option<Vec<ServerSpec>>, CliError> {
    let sel: &Selection = &settings.selection;
    let named = sel.server.is_some() || sel.argv.is_some();
    if sel.all {
        let Some(file) = &sel.config else { return Err(CliError::usage("--all needs --config FILE")) };
        if named || (target.is_some() && !target_is_tool) {
            return Err(CliError::usage("--all works across every server of the file: name no server"));
        }
        return with_flags_checked(settings, selection::entries(file)?).map(Some);
    }
    let Some(file) = sel.config.as_ref().filter(|_| !named) else { return Ok(None) };
    let specs = selection::entries(file)?;
    let across = match target {
        Some(name) => target_is_tool && !specs.iter().any(|s| s.name == name),
        None => specs.len() > 1,
    };
    if across {
        with_flags_checked(settings, specs).map(Some)
    } else {
        Ok(None)
    }
}

/// The specs with `--retries` applied. `-e`, `--cwd` and `--header` are refused: they are
/// meant for one server, and would hand its secrets to every server of the file.
fn with_flags_checked(settings: &Settings, specs: Vec<ServerSpec>) -> Result<Vec<ServerSpec>, CliError> {
    if !settings.env.is_empty() || settings.cwd.is_some() || !settings.headers.is_empty() {
        return Err(CliError::usage(
            "-e, --cwd and --header apply to one server: name it with --server NAME",
        ));
    }
    Ok(specs.into_iter().map(|spec| spec.retries(settings.retries)).collect())
}

/// The servers of the file a list command works across (`None`: one server, as usual).
pub fn for_list(
    settings: &Settings,
    target: Option<&str>,
    action: &Action,
) -> Result<Option<Vec<ServerSpec>>, CliError> {
    match action {
        Action::Tools | Action::Prompts | Action::Resources | Action::Templates => {
            every_server(settings, target, false)
        }
        _ => Ok(None),
    }
}

/// The servers of the file `call` chooses among (`None`: one server, as usual).
pub fn for_call(settings: &Settings, target: Option<&str>) -> Result<Option<Vec<ServerSpec>>, CliError> {
    every_server(settings, target, true)
}

/// `call`'s tool and arguments without TARGET: what clap read as TARGET is the tool, and what
/// it read as the tool is the first argument.
pub fn shift(
    target: Option<String>,
    tool: Option<String>,
    mut words: Vec<String>,
) -> (Option<String>, Vec<String>) {
    if let Some(tool) = tool {
        words.insert(0, tool);
    }
    (target, words)
}

/// Runs `body` on a client over `specs` (after `--log-level`, on every server declaring
/// `logging`), then closes the client whatever the outcome.
async fn with_client<F, Fut>(
    settings: &Settings,
    specs: Vec<ServerSpec>,
    body: F,
) -> Result<ExitCode, CliError>
where
    F: FnOnce(Client) -> Fut,
    Fut: std::future::Future<Output = Result<ExitCode, CliError>>,
{
    let client = commands::build_client(settings, specs, None)?;
    if let Some(level) = settings.log_level {
        let report = client.set_log_level(level).await;
        for server in &report.skipped {
            note(&format!("server {server:?} does not offer logging: --log-level {level} ignored"));
        }
        // A server that failed here fails the command's own request too, and is reported there.
    }
    let outcome = body(client.clone()).await;
    client.close().await;
    outcome
}

/// One server's item: its server, its protocol object and its text row.
struct Tagged {
    server: String,
    raw: Value,
    row: (String, String),
}

/// A client-wide list ready to print: the tagged items, the servers that do not offer the
/// list, and the failures.
struct Listing {
    items: Vec<Tagged>,
    skipped: Vec<String>,
    failed: Vec<ServerFailure>,
}

impl Listing {
    /// From the library's list: `raw` and `row` render an item; a -32601 ("method not found")
    /// answer counts as not offered, as with one server.
    fn from<T>(
        list: ClientList<T>,
        server: impl Fn(&T) -> &str,
        raw: impl Fn(&T) -> Value,
        row: impl Fn(&T) -> (String, String),
    ) -> Self {
        let items = list
            .items
            .iter()
            .map(|item| Tagged { server: server(item).to_owned(), raw: raw(item), row: row(item) })
            .collect();
        let (unoffered, failed): (Vec<_>, Vec<_>) =
            list.failed.into_iter().partition(|f| not_offered(&f.error));
        let mut skipped = list.skipped;
        skipped.extend(unoffered.into_iter().map(|f| f.server));
        Self { items, skipped, failed }
    }

    /// The items as the protocol's array, each object with `"server": NAME` added.
    fn json_items(&self) -> Value {
        let tag = |t: &Tagged| {
            let mut raw = t.raw.clone();
            if let Value::Object(map) = &mut raw {
                map.insert("server".into(), Value::String(t.server.clone()));
            }
            raw
        };
        Value::Array(self.items.iter().map(tag).collect())
    }

    /// The rows, a server column first.
    fn text_rows(&self) -> Vec<(String, String)> {
        let servers: Vec<String> = self.items.iter().map(|t| output::one_line(&t.server, 40)).collect();
        let width = servers.iter().map(|s| s.chars().count()).max().unwrap_or(0);
        let row =
            |(t, server): (&Tagged, &String)| (format!("{server:width$}  {}", t.row.0), t.row.1.clone());
        self.items.iter().zip(&servers).map(row).collect()
    }
}

fn tools(list: ClientList<ServerTool>) -> Listing {
    Listing::from(list, |t| &t.server, |t| t.tool.raw().clone(), |t| output::tool_row(&t.tool))
}

fn prompts(list: ClientList<ServerPrompt>) -> Listing {
    Listing::from(list, |p| &p.server, |p| p.prompt.raw().clone(), |p| output::prompt_row(&p.prompt))
}

fn resources(list: ClientList<ServerResource>) -> Listing {
    let row = |r: &ServerResource| output::resource_row(&r.resource);
    Listing::from(list, |r| &r.server, |r| r.resource.raw().clone(), row)
}

fn templates(list: ClientList<ServerResourceTemplate>) -> Listing {
    let row = |t: &ServerResourceTemplate| output::template_row(&t.template);
    Listing::from(list, |t| &t.server, |t| t.template.raw().clone(), row)
}

/// `{"server": NAME, "error": {...}}` for each failure.
fn failures_json(failed: &[ServerFailure]) -> Value {
    let one = |f: &ServerFailure| {
        let error = CliError::from(f.error.clone()).to_json();
        json!({"server": f.server, "error": error["error"]})
    };
    Value::Array(failed.iter().map(one).collect())
}

/// One stderr line per failed server, and per server without the list (`what`).
fn report(failed: &[ServerFailure], skipped: &[String], what: &str) {
    for server in skipped {
        note(&format!("server {server:?} does not offer {what}"));
    }
    for f in failed {
        note(&format!("error: server {:?}: {}", f.server, CliError::from(f.error.clone())));
    }
}

/// The exit code after `failed` of `servers` failed (see the module's documentation).
fn exit_code(failed: &[ServerFailure], servers: usize) -> ExitCode {
    match failed.first() {
        None => ExitCode::SUCCESS,
        Some(_) if failed.len() < servers => ExitCode::from(exit::FAILED),
        Some(first) => ExitCode::from(CliError::from(first.error.clone()).code()),
    }
}

/// Lists tools, prompts, resources or resource templates across `specs`.
pub async fn list(settings: &Settings, specs: Vec<ServerSpec>, action: Action) -> Result<ExitCode, CliError> {
    let servers = specs.len();
    with_client(settings, specs, |client| async move {
        let (key, what, listing) = match action {
            Action::Tools => ("tools", "tools", tools(client.list_tools().await)),
            Action::Prompts => ("prompts", "prompts", prompts(client.list_prompts().await)),
            Action::Templates => {
                ("resourceTemplates", "resource templates", templates(client.list_resource_templates().await))
            }
            Action::Resources if !settings.json => {
                // Text shows the templates too, as with one server; a server that failed for
                // both lists is reported once.
                let resources = resources(client.list_resources().await);
                let templates = templates(client.list_resource_templates().await);
                emit(&output::resource_sections(resources.text_rows(), templates.text_rows()));
                let mut failed = resources.failed;
                for f in templates.failed {
                    if !failed.iter().any(|g| g.server == f.server) {
                        failed.push(f);
                    }
                }
                report(&failed, &resources.skipped, "resources");
                return Ok(exit_code(&failed, servers));
            }
            Action::Resources => ("resources", "resources", resources(client.list_resources().await)),
            _ => return Err(CliError::usage("this command needs one server: name it with --server NAME")),
        };
        if settings.json {
            emit(&output::pretty(
                &json!({key: listing.json_items(), "failed": failures_json(&listing.failed)}),
            ));
        } else {
            emit(&output::rows(listing.text_rows(), &format!("(no {what})")));
        }
        report(&listing.failed, &listing.skipped, what);
        Ok(exit_code(&listing.failed, servers))
    })
    .await
}

/// Calls `tool` on the server of `specs` that offers it (the client's routing by tool name);
/// a tool several servers offer is a usage error naming them.
pub async fn call(
    settings: &Settings,
    specs: Vec<ServerSpec>,
    tool: String,
    arguments: ArgInput,
    as_task: bool,
) -> Result<ExitCode, CliError> {
    let names: Vec<String> = specs.iter().map(|s| s.name.clone()).collect();
    with_client(settings, specs, |client| async move {
        // Every server lists its tools at once; routing then reads those lists.
        let listed = client.list_tools().await;
        let owner = match client.find_tool(&tool).await {
            Ok(Some(offer)) => offer.server,
            Ok(None) => {
                return Err(CliError::new(format!(
                    "no server offers a tool named {:?} (servers: {})",
                    output::one_line(&tool, 120),
                    names.join(", ")
                )));
            }
            Err(ClientError::Route(RouteError::Ambiguous { name, servers })) => {
                return Err(CliError::usage(format!(
                    "tool {:?} is offered by several servers ({}): pick one with --server NAME",
                    output::one_line(&name, 120),
                    servers.join(", ")
                )));
            }
            Err(e) => {
                // No server that answered offers the tool, and one that could not list its
                // tools may: its failure is the answer.
                let failed = listed.failed.iter().map(|f| format!("{:?}", f.server)).collect::<Vec<_>>();
                let whose = if failed.len() == 1 { "its" } else { "their" };
                return Err(CliError::from(e).context(format_args!(
                    "no server that answered offers a tool named {:?}, and {} could not list {whose} tools",
                    output::one_line(&tool, 120),
                    failed.join(", ")
                )));
            }
        };
        // The others' failures do not stop the call, but are worth knowing about.
        for f in &listed.failed {
            note(&format!(
                "warning: server {:?} could not list its tools: {}",
                f.server,
                CliError::from(f.error.clone())
            ));
        }
        let server =
            client.server(&owner).cloned().ok_or_else(|| CliError::new(format!("no server {owner:?}")))?;
        commands::perform(settings, server, Action::Call { tool, arguments, as_task }).await
    })
    .await
}
