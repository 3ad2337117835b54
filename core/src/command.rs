//! How to launch a stdio server, and how a command line is shown (redacted).

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::path::{Path, PathBuf};

use crate::redact::{redact_args, MASK};

/// How to launch a stdio server. Its `Debug` and [`StdioCommand::display`] never show
/// environment values or credential-looking arguments. Program, arguments and environment are
/// OS strings and the working directory a path, as `std::process::Command` takes them; they
/// are shown lossily where they are not UTF-8.
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct StdioCommand {
    /// The program to run (looked up on `PATH` by the runtime).
    pub program: OsString,
    /// Its arguments.
    pub args: Vec<OsString>,
    /// Extra environment variables (added to the inherited environment).
    pub env: Vec<(OsString, OsString)>,
    /// Working directory; `None` inherits the client's.
    pub cwd: Option<PathBuf>,
}

impl StdioCommand {
    /// A command with no arguments.
    pub fn new(program: impl AsRef<OsStr>) -> Self {
        Self { program: program.as_ref().to_owned(), args: Vec::new(), env: Vec::new(), cwd: None }
    }

    /// Adds an argument.
    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Self {
        self.args.push(arg.as_ref().to_owned());
        self
    }

    /// Adds arguments.
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.args.extend(args.into_iter().map(|a| a.as_ref().to_owned()));
        self
    }

    /// Adds an environment variable.
    pub fn env(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Self {
        self.env.push((key.as_ref().to_owned(), value.as_ref().to_owned()));
        self
    }

    /// Sets the working directory.
    pub fn cwd(mut self, dir: impl AsRef<Path>) -> Self {
        self.cwd = Some(dir.as_ref().to_owned());
        self
    }

    /// The program's name as text (lossy where it is not UTF-8).
    pub fn program_lossy(&self) -> std::borrow::Cow<'_, str> {
        self.program.to_string_lossy()
    }

    /// The arguments as text (lossy where they are not UTF-8).
    pub fn args_lossy(&self) -> Vec<String> {
        self.args.iter().map(|a| a.to_string_lossy().into_owned()).collect()
    }

    /// The command line for display, with credential-looking arguments redacted
    /// (environment values are never shown).
    pub fn display(&self) -> String {
        redact_command(self)
    }
}

impl std::fmt::Debug for StdioCommand {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let env: Vec<String> = self.env.iter().map(|(k, _)| format!("{}=***", k.to_string_lossy())).collect();
        f.debug_struct("StdioCommand")
            .field("command", &redact_command(self))
            .field("env", &env)
            .field("cwd", &self.cwd)
            .finish()
    }
}

/// A command line for display: redacted arguments (see [`redact_args`]), environment variables
/// as `KEY=***`, and the working directory.
pub fn redact_command(command: &StdioCommand) -> String {
    RedactedCommand(command).to_string()
}

pub(crate) struct RedactedCommand<'a>(pub(crate) &'a StdioCommand);

impl RedactedCommand<'_> {
    fn env(&self) -> Vec<String> {
        self.0.env.iter().map(|(k, _)| format!("{}={MASK}", k.to_string_lossy())).collect()
    }
}

impl fmt::Display for RedactedCommand<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&shell_quote(&self.0.program_lossy()))?;
        for arg in redact_args(&self.0.args_lossy()) {
            write!(f, " {}", shell_quote(&arg))?;
        }
        if !self.0.env.is_empty() {
            write!(f, " [env: {}]", self.env().join(", "))?;
        }
        match &self.0.cwd {
            Some(cwd) => write!(f, " [cwd: {}]", cwd.display()),
            None => Ok(()),
        }
    }
}

impl fmt::Debug for RedactedCommand<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StdioCommand")
            .field("program", &self.0.program)
            .field("args", &redact_args(&self.0.args_lossy()))
            .field("env", &self.env())
            .field("cwd", &self.0.cwd)
            .finish()
    }
}

/// Quotes a word so that [`crate::target::split_command_line`] reads it back unchanged.
fn shell_quote(word: &str) -> String {
    if !word.is_empty() && !word.chars().any(|c| c.is_whitespace() || matches!(c, '\'' | '"' | '\\')) {
        return word.to_owned();
    }
    format!("'{}'", word.replace('\'', r"'\''"))
}
