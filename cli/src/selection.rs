//! Which server a command talks to: a TARGET (command line or URL), or an entry of an
//! `mcpServers` file (`--config FILE`, named by `--server NAME` or by TARGET).

use std::path::{Path, PathBuf};

use mcpwire_tokio::ServerSpec;

use crate::commands::CliError;

/// `--config` and `--server`.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// An `mcpServers` (or VS Code `servers`) JSON file.
    pub config: Option<PathBuf>,
    /// The entry of `config` to use.
    pub server: Option<String>,
}

impl Selection {
    /// The command's positional arguments as the user meant them. Clap fills TARGET first; with
    /// `--server` there is no TARGET, so every positional moves one place down (TARGET's value
    /// is the command's first argument, and so on).
    pub fn positionals(
        &self,
        target: Option<String>,
        mut rest: Vec<Option<String>>,
    ) -> Result<(Option<String>, Vec<Option<String>>), CliError> {
        if self.server.is_none() {
            return Ok((target, rest));
        }
        if let Some(last) = rest.last() {
            if last.is_some() {
                return Err(CliError::usage("too many arguments: with --server NAME, leave TARGET out"));
            }
        } else if target.is_some() {
            return Err(CliError::usage("TARGET and --server NAME both given: use one"));
        }
        if !rest.is_empty() {
            rest.pop();
            rest.insert(0, target);
        }
        Ok((None, rest))
    }

    /// The server to talk to: TARGET, or the entry of the config file named by `--server` or
    /// TARGET.
    pub fn spec(&self, target: Option<&str>) -> Result<Selected, CliError> {
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
    /// An entry of a config file.
    Spec(Box<ServerSpec>),
}

/// The entry `name` of the config file (the only entry when no name is given).
fn entry(file: &Path, name: Option<&str>) -> Result<ServerSpec, CliError> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| CliError::usage(format!("cannot read --config {}: {e}", file.display())))?;
    let specs = ServerSpec::from_mcp_servers(&text)
        .map_err(|e| CliError::usage(format!("--config {}: {e}", file.display())))?;
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
            "{} has several servers ({}): name one with --server NAME",
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
        Selection { config: Some("f.json".into()), server: Some("s".into()) }
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
        let sel =
            |server: Option<&str>| Selection { config: Some(file.clone()), server: server.map(Into::into) };
        let Selected::Spec(spec) = sel(Some("two")).spec(None).unwrap() else { panic!("a spec") };
        assert_eq!(spec.name, "two");
        let Selected::Spec(spec) = sel(None).spec(Some("one")).unwrap() else { panic!("a spec") };
        assert_eq!(spec.name, "one");
        let err = sel(None).spec(None).unwrap_err();
        assert!(err.to_string().contains("one, two"), "{err}");
        assert_eq!(err.code(), exit::USAGE);
        assert!(sel(Some("three")).spec(None).unwrap_err().to_string().contains("no server \"three\""));
        let missing = Selection { config: Some(dir.join("nope.json")), server: None };
        assert!(missing.spec(Some("one")).unwrap_err().to_string().starts_with("cannot read --config"));
        let no_config = Selection { config: None, server: Some("x".into()) };
        assert!(no_config.spec(None).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
