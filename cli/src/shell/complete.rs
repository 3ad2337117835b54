//! Tab completion: command names, then tool, prompt and resource names and argument names
//! from the lists the shell fetched (kept in a [`Catalog`] shared with the editor thread).

use std::sync::{Arc, Mutex};

use clap::CommandFactory;
use mcpwire_tokio::types::{LoggingLevel, Prompt, Resource, Tool};
use rustyline::completion::{Completer, Pair};
use rustyline::{Context, Helper, Highlighter, Hinter, Validator};
use serde_json::Value;

use super::parse::{command_names, Line};

/// A named thing and its argument names (required ones first).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Named {
    /// The tool's or prompt's name.
    pub name: String,
    /// Its argument names, required ones first.
    pub arguments: Vec<String>,
}

/// What completion knows about the server: the names of its tools, prompts and resources.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    /// The tools.
    pub tools: Vec<Named>,
    /// The prompts.
    pub prompts: Vec<Named>,
    /// The resources' URIs.
    pub resources: Vec<String>,
}

impl Catalog {
    /// Sets the tools from a `tools/list` answer.
    pub fn set_tools(&mut self, tools: &[Tool]) {
        self.tools = tools
            .iter()
            .map(|t| Named { name: t.name.clone(), arguments: schema_arguments(&t.input_schema) })
            .collect();
    }

    /// Sets the prompts from a `prompts/list` answer.
    pub fn set_prompts(&mut self, prompts: &[Prompt]) {
        self.prompts = prompts
            .iter()
            .map(|p| {
                let (required, optional): (Vec<_>, Vec<_>) = p.arguments.iter().partition(|a| a.required);
                let arguments = required.into_iter().chain(optional).map(|a| a.name.clone()).collect();
                Named { name: p.name.clone(), arguments }
            })
            .collect();
    }

    /// Sets the resources from a `resources/list` answer.
    pub fn set_resources(&mut self, resources: &[Resource]) {
        self.resources = resources.iter().map(|r| r.uri.clone()).collect();
    }
}

/// The property names of an object schema, the required ones first (in the order `required`
/// lists them), then the others.
pub fn schema_arguments(schema: &Value) -> Vec<String> {
    let properties: Vec<&String> =
        schema["properties"].as_object().map(|p| p.keys().collect()).unwrap_or_default();
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).filter(|n| properties.iter().any(|p| p == n)).collect())
        .unwrap_or_default();
    let mut names: Vec<String> = required.iter().map(|r| (*r).to_owned()).collect();
    names.extend(properties.into_iter().filter(|p| !required.contains(&p.as_str())).cloned());
    names
}

/// The catalog, shared between the shell's loop (which refreshes it) and the editor.
pub type SharedCatalog = Arc<Mutex<Catalog>>;

/// The editor's helper: completion from the catalog; no hints, highlighting or validation.
#[derive(Helper, Hinter, Highlighter, Validator)]
pub struct ShellHelper {
    /// The names completion offers.
    pub catalog: SharedCatalog,
}

impl std::fmt::Debug for ShellHelper {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShellHelper").finish_non_exhaustive()
    }
}

impl Completer for ShellHelper {
    type Candidate = Pair;

    fn complete(&self, line: &str, pos: usize, _: &Context<'_>) -> rustyline::Result<(usize, Vec<Pair>)> {
        let catalog = self.catalog.lock().map(|c| c.clone()).unwrap_or_default();
        Ok(candidates(&catalog, &line[..pos]))
    }
}

/// Candidates that end a word (a space follows them).
fn words<'a>(names: impl IntoIterator<Item = &'a str>, partial: &str) -> Vec<Pair> {
    let mut out: Vec<Pair> = names
        .into_iter()
        .filter(|n| n.starts_with(partial))
        .map(|n| Pair { display: n.to_owned(), replacement: format!("{n} ") })
        .collect();
    out.sort_by(|a, b| a.display.cmp(&b.display));
    out.dedup_by(|a, b| a.display == b.display);
    out
}

/// `name=` candidates for the arguments not given yet among `given`.
fn argument_names(arguments: &[String], given: &[&str], partial: &str) -> Vec<Pair> {
    let used = |name: &str| {
        given
            .iter()
            .any(|w| w.strip_prefix(name).is_some_and(|rest| rest.starts_with('=') || rest.starts_with(":=")))
    };
    arguments
        .iter()
        .filter(|a| a.starts_with(partial) && !used(a))
        .map(|a| Pair { display: format!("{a}="), replacement: format!("{a}=") })
        .collect()
}

/// The long options of a command (`--json` and `--help` included).
fn options(command: &str, partial: &str) -> Vec<Pair> {
    let mut cmd = Line::command();
    cmd.build();
    let Some(sub) = cmd.find_subcommand(command) else { return Vec::new() };
    let longs: Vec<String> =
        sub.get_arguments().filter_map(|a| a.get_long()).map(|l| format!("--{l}")).collect();
    words(longs.iter().map(String::as_str), partial)
}

/// The names of a list.
fn names(list: &[Named]) -> Vec<&str> {
    list.iter().map(|n| n.name.as_str()).collect()
}

/// Where the word being typed starts, and the candidates for it, for the text before the
/// cursor.
pub fn candidates(catalog: &Catalog, before: &str) -> (usize, Vec<Pair>) {
    let start = before.rfind(char::is_whitespace).map_or(0, |i| i + 1);
    let partial = &before[start..];
    let done: Vec<&str> = before[..start].split_whitespace().collect();
    let find = |list: &[Named], name: &str| list.iter().find(|n| n.name == name).cloned();
    let Some((&command, rest)) = done.split_first() else {
        return (start, words(command_names().iter().map(String::as_str), partial));
    };
    if partial.starts_with('-') {
        return (start, options(command, partial));
    }
    let previous = rest.last().copied();
    let found = match (command, rest) {
        ("help", []) => words(command_names().iter().map(String::as_str), partial),
        ("call", []) => words(names(&catalog.tools), partial),
        ("call", [tool, given @ ..]) if !partial.contains('=') => find(&catalog.tools, tool)
            .map(|t| argument_names(&t.arguments, given, partial))
            .unwrap_or_default(),
        ("prompts", []) => words(["get"], partial),
        ("prompts", ["get"]) => words(names(&catalog.prompts), partial),
        ("prompts", ["get", prompt, given @ ..]) if !partial.contains('=') => find(&catalog.prompts, prompt)
            .map(|p| argument_names(&p.arguments, given, partial))
            .unwrap_or_default(),
        ("resources", []) => words(["templates"], partial),
        ("read", []) => words(catalog.resources.iter().map(String::as_str), partial),
        ("listen", _) if previous == Some("--resource") => {
            words(catalog.resources.iter().map(String::as_str), partial)
        }
        ("listen", _) if previous == Some("--list") => words(["tools", "prompts", "resources"], partial),
        ("complete", _) if previous == Some("--prompt") => words(names(&catalog.prompts), partial),
        ("log-level", []) => words(LoggingLevel::ALL.iter().map(|l| l.as_str()), partial),
        ("json", []) => words(["on", "off"], partial),
        ("tasks", []) => words(["list", "get", "result", "cancel"], partial),
        _ => Vec::new(),
    };
    (start, found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn catalog() -> Catalog {
        Catalog {
            tools: vec![
                Named { name: "echo".into(), arguments: vec!["message".into()] },
                Named { name: "add".into(), arguments: vec!["a".into(), "b".into()] },
            ],
            prompts: vec![Named { name: "greet".into(), arguments: vec!["name".into(), "style".into()] }],
            resources: vec!["test://text".into(), "test://blob".into()],
        }
    }

    fn replacements(before: &str) -> Vec<String> {
        candidates(&catalog(), before).1.into_iter().map(|p| p.replacement).collect()
    }

    #[test]
    fn commands_then_names_then_arguments() {
        assert_eq!(replacements("ca"), ["call "]);
        assert_eq!(candidates(&catalog(), "ca").0, 0);
        assert_eq!(replacements("call ec"), ["echo "]);
        assert_eq!(candidates(&catalog(), "call ec").0, 5);
        assert_eq!(replacements("call echo "), ["message="]);
        assert_eq!(replacements("call add a=1 "), ["b="]);
        assert_eq!(replacements("call add a:=1 b"), ["b="]);
        assert!(replacements("call add a=").is_empty());
        assert_eq!(replacements("prompts g"), ["get "]);
        assert_eq!(replacements("prompts get "), ["greet "]);
        assert_eq!(replacements("prompts get greet name=x "), ["style="]);
        assert_eq!(replacements("read test://t"), ["test://text "]);
        assert_eq!(replacements("listen --resource test://b"), ["test://blob "]);
        assert_eq!(replacements("json o"), ["off ", "on "]);
        assert_eq!(replacements("log-level de"), ["debug "]);
        assert!(replacements("call --a").contains(&"--args ".to_owned()));
        assert!(replacements("").contains(&"tools ".to_owned()));
        assert!(replacements("call nothing ").is_empty());
    }

    #[test]
    fn required_arguments_come_first() {
        let schema =
            json!({"type": "object", "properties": {"a": {}, "m": {}, "z": {}}, "required": ["z", "nope"]});
        assert_eq!(schema_arguments(&schema), ["z", "a", "m"]);
        assert!(schema_arguments(&json!({"type": "object"})).is_empty());
    }
}
