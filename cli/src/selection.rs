//! Which server a command talks to: a TARGET (command line or URL), a server argv after `--`,
//! or an entry of an `mcpServers` file (`--config FILE`, named by `--server NAME` or by TARGET).

use std::path::{Path, PathBuf};

use mcpwire_tokio::ServerSpec;

use crate::commands::CliError;

/// TARGET, a name (the tool's or prompt's) and the words after it.
pub type WithTail = (Option<String>, Option<String>, Vec<String>);

/// `--config`, `--server` and the argv after `--`.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// An `mcpServers` (or VS Code `servers`) JSON file.
    pub config: Option<PathBuf>,
    /// The entry of `config` to use.
    pub server: Option<String>,
    /// A stdio server's argv, given after `--`.
    pub argv: Option<Vec<String>>,
    /// `--all`: every server of `config` (tools, prompts, resources and call).
    pub all: bool,
}

impl Selection {
    /// What stands for TARGET when it is left out.
    fn instead_of_target(&self) -> Option<&'static str> {
        match (&self.server, &self.argv) {
            (Some(_), _) => Some("--server NAME"),
            (None, Some(_)) => Some("a server command after --"),
            (None, None) => None,
        }
    }

    /// The command's positional arguments as the user meant them. Clap fills TARGET first; with
    /// `--server` (or a server argv after `--`) there is no TARGET, so every positional moves
    /// one place down (TARGET's value is the command's first argument, and so on).
    pub fn positionals(
        &self,
        target: Option<String>,
        mut rest: Vec<Option<String>>,
    ) -> Result<(Option<String>, Vec<Option<String>>), CliError> {
        let Some(instead) = self.instead_of_target() else { return Ok((target, rest)) };
        if let Some(last) = rest.last() {
            if last.is_some() {
                return Err(CliError::usage(format!("too many arguments: with {instead}, leave TARGET out")));
            }
        } else if target.is_some() {
            return Err(CliError::usage(format!("TARGET and {instead} both given: use one")));
        }
        if !rest.is_empty() {
            rest.pop();
            rest.insert(0, target);
        }
        Ok((None, rest))
    }

    /// [`Self::positionals`] for a command whose positionals are TARGET, one name and any
    /// number of words: without TARGET, the name moves into TARGET's place and the first word
    /// into the name's.
    pub fn positionals_with_tail(
        &self,
        target: Option<String>,
        name: Option<String>,
        mut words: Vec<String>,
    ) -> Result<WithTail, CliError> {
        if self.instead_of_target().is_none() {
            return Ok((target, name, words));
        }
        if let Some(name) = name {
            words.insert(0, name);
        }
        Ok((None, target, words))
    }

    /// The server to talk to: TARGET, the argv after `--`, or the entry of the config file
    /// named by `--server` or TARGET.
    pub fn spec(&self, target: Option<&str>) -> Result<Selected, CliError> {
        if let Some(argv) = &self.argv {
            if self.config.is_some() || self.server.is_some() {
                return Err(CliError::usage(
                    "a server command after -- and --config/--server both given: use one",
                ));
            }
            return Ok(Selected::Argv(argv.clone()));
        }
        match (&self.config, &self.server, target) {
            (None, Some(_), _) => Err(CliError::usage("--server NAME needs --config FILE")),
            (None, None, Some(target)) => Ok(Selected::Target(target.to_owned())),
            (None, None, None) => Err(CliError::usage("TARGET is required (or --config FILE --server NAME)")),
            (Some(file), server, target) => {
                let name = server.as_deref().or(target);
                Ok(Selected::Spec(Box::new(entry(file, name)?)))
            }
        }
    }
}

/// A TARGET to detect, or a spec read from a config file.
#[derive(Debug)]
pub enum Selected {
    /// A command line or URL.
    Target(String),
    /// A stdio server's argv.
    Argv(Vec<String>),
    /// An entry of a config file.
    Spec(Box<ServerSpec>),
}

/// Every entry of the config file, in its order.
pub fn entries(file: &Path) -> Result<Vec<ServerSpec>, CliError> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| CliError::usage(format!("cannot read --config {}: {e}", file.display())))?;
    ServerSpec::from_mcp_servers(&text)
        .map_err(|e| CliError::usage(format!("--config {}: {e}", file.display())))
}

/// The entry `name` of the config file (the only entry when no name is given).
fn entry(file: &Path, name: Option<&str>) -> Result<ServerSpec, CliError> {
    let specs = entries(file)?;
    let names = || specs.iter().map(|s| s.name.as_str()).collect::<Vec<_>>().join(", ");
    match name {
        Some(name) => match specs.iter().position(|s| s.name == name) {
            Some(i) => Ok(specs.into_iter().nth(i).expect("index found")),
            None => Err(CliError::usage(format!(
                "no server {name:?} in {} (it has: {})",
                file.display(),
                names()
            ))),
        },
        None if specs.len() == 1 => Ok(specs.into_iter().next().expect("one entry")),
        None => Err(CliError::usage(format!(
            "{} has several servers ({}): name one with --server NAME (tools, prompts, resources and \
             call work across all of them)",
            file.display(),
            names()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exit;

    fn with_server() -> Selection {
        Selection { config: Some("f.json".into()), server: Some("s".into()), ..Selection::default() }
    }

    #[test]
    fn positionals_shift_under_server() {
        let s = |v: &str| Some(v.to_owned());
        let plain = Selection::default();
        assert_eq!(
            plain.positionals(s("t"), vec![s("echo"), None]).unwrap(),
            (s("t"), vec![s("echo"), None])
        );
        // `mcp call --server s echo '{}'`: clap put echo in TARGET and the JSON in TOOL.
        let (target, rest) = with_server().positionals(s("echo"), vec![s("{}"), None]).unwrap();
        assert_eq!((target, rest), (None, vec![s("echo"), s("{}")]));
        // `mcp tools --server s`: nothing to shift.
        assert_eq!(with_server().positionals(None, vec![]).unwrap(), (None, vec![]));
        assert!(with_server().positionals(s("x"), vec![]).is_err(), "TARGET and --server");
        assert!(with_server().positionals(s("a"), vec![s("b"), s("c")]).is_err(), "one too many");
        // `mcp call echo a=1 b=2 -- server`: clap put echo in TARGET and a=1 in TOOL.
        let argv = Selection { argv: Some(vec!["server".into()]), ..Selection::default() };
        let words = |ws: &[&str]| ws.iter().map(|w| w.to_string()).collect::<Vec<_>>();
        assert_eq!(
            argv.positionals_with_tail(s("echo"), s("a=1"), words(&["b=2"])).unwrap(),
            (None, s("echo"), words(&["a=1", "b=2"]))
        );
        assert_eq!(
            plain.positionals_with_tail(s("t"), s("echo"), words(&["a=1"])).unwrap(),
            (s("t"), s("echo"), words(&["a=1"]))
        );
        let err = argv.positionals(s("x"), vec![]).unwrap_err();
        assert_eq!(err.to_string(), "TARGET and a server command after -- both given: use one");
        assert!(matches!(argv.spec(None).unwrap(), Selected::Argv(a) if a == ["server"]));
    }

    #[test]
    fn config_entries_by_name() {
        let dir = std::env::temp_dir().join(format!("mcp-cli-selection-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("servers.json");
        std::fs::write(
            &file,
            r#"{"mcpServers": {"one": {"command": "srv-one"}, "two": {"url": "http://127.0.0.1:9/mcp"}}}"#,
        )
        .unwrap();
        let sel = |server: Option<&str>| Selection {
            config: Some(file.clone()),
            server: server.map(Into::into),
            ..Selection::default()
        };
        let Selected::Spec(spec) = sel(Some("two")).spec(None).unwrap() else { panic!("a spec") };
        assert_eq!(spec.name, "two");
        let Selected::Spec(spec) = sel(None).spec(Some("one")).unwrap() else { panic!("a spec") };
        assert_eq!(spec.name, "one");
        let err = sel(None).spec(None).unwrap_err();
        assert!(err.to_string().contains("one, two"), "{err}");
        assert_eq!(err.code(), exit::USAGE);
        assert!(sel(Some("three")).spec(None).unwrap_err().to_string().contains("no server \"three\""));
        let missing = Selection { config: Some(dir.join("nope.json")), ..Selection::default() };
        assert!(missing.spec(Some("one")).unwrap_err().to_string().starts_with("cannot read --config"));
        let no_config = Selection { server: Some("x".into()), ..Selection::default() };
        assert!(no_config.spec(None).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
