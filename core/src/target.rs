//! Turning a user's target string into a server configuration, and why that can fail
//! ([`TargetError`] for command lines, [`TargetConfigError`] for targets and configurations).
//!
//! This module parses command lines (stdio targets, optionally prefixed `stdio://`); telling a
//! URL from a command line is `ServerSpec::from_target`'s job. Quoting
//! follows POSIX shell words: single quotes are literal, double quotes allow `\"` and `\\`,
//! a backslash outside quotes escapes the next character. No expansion is performed.

use crate::command::StdioCommand;
use crate::redact::redact_url;
use crate::transport::TransportKind;

/// Why a target could not be understood.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TargetError {
    /// Nothing to run.
    #[error("empty command line")]
    Empty,
    /// A quote was opened and never closed.
    #[error("unterminated quote in command line")]
    UnterminatedQuote,
    /// A URL was given where a command line is expected (the URL is shown with
    /// credential-looking parts redacted). `ServerSpec::from_target` takes either.
    #[error("expected a command line, got a URL: {0}")]
    UrlNotCommand(String),
}

/// Why a target or a configuration could not be understood. Messages never contain credential
/// values (URLs, environment values and header values are not repeated).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TargetConfigError {
    /// The text is not JSON (comments and trailing commas are accepted).
    #[error("invalid JSON: {detail}")]
    InvalidJson {
        /// The parser's explanation, with its line and column.
        detail: String,
    },
    /// The JSON is not an `mcpServers` configuration.
    #[error("invalid config: {detail}")]
    InvalidConfig {
        /// What is wrong.
        detail: String,
    },
    /// A server entry lacks a required field.
    #[error("server {server:?}: missing {field:?}")]
    MissingField {
        /// The entry's name.
        server: String,
        /// The missing field.
        field: &'static str,
    },
    /// A field of a server entry has the wrong type or an unusable value.
    #[error("server {server:?}: {field:?} {detail}")]
    InvalidField {
        /// The entry's name.
        server: String,
        /// The offending field.
        field: &'static str,
        /// What is wrong with it.
        detail: String,
    },
    /// A server entry as a whole is unusable (not an object, no transport, conflicting fields).
    #[error("server {server:?}: {detail}")]
    InvalidEntry {
        /// The entry's name.
        server: String,
        /// What is wrong.
        detail: String,
    },
    /// Two entries share a name (one in `"mcpServers"`, one in `"servers"`).
    #[error("server {name:?} is defined more than once")]
    DuplicateServer {
        /// The repeated name.
        name: String,
    },
    /// A URL is malformed or unsupported.
    #[error("invalid URL: {detail}")]
    InvalidUrl {
        /// What is wrong (the URL itself is not repeated).
        detail: String,
    },
    /// A forced transport does not fit the target (stdio on a URL, HTTP on a command).
    #[error("{}", forced_mismatch(*forced, *target_is_url))]
    ForcedMismatch {
        /// The transport that was forced.
        forced: TransportKind,
        /// Whether the target was a URL (else a command line).
        target_is_url: bool,
    },
    /// A command line could not be split.
    #[error(transparent)]
    Target(#[from] TargetError),
    /// The target or entry is an HTTP server (an `http(s)://` URL, a `"url"`, or a `"type"`
    /// naming an HTTP transport) and this build has no HTTP support: the `http` feature (on by
    /// default) is off.
    #[error("{}", http_not_compiled_text(.server))]
    HttpNotCompiled {
        /// The entry's name, for an `mcpServers` entry.
        server: Option<String>,
    },
}

/// The error of an HTTP target or entry in a build without the `http` feature.
pub(crate) fn http_not_compiled(server: Option<&str>) -> TargetConfigError {
    TargetConfigError::HttpNotCompiled { server: server.map(str::to_owned) }
}

fn http_not_compiled_text(server: &Option<String>) -> String {
    let text = "HTTP support is not compiled in: enable the `http` feature of the mcpwire crate in use \
                (mcpwire-tokio, mcpwire-smol, mcpwire-blocking or mcpwire-core)";
    match server {
        Some(server) => format!("server {server:?}: {text}"),
        None => text.to_owned(),
    }
}

/// A [`TargetConfigError::InvalidUrl`] with this detail.
pub(crate) fn url_err(detail: impl Into<String>) -> TargetConfigError {
    TargetConfigError::InvalidUrl { detail: detail.into() }
}

/// `Ok` when `ok`, else a [`TargetConfigError::InvalidUrl`] with this detail.
pub(crate) fn ensure(ok: bool, detail: &str) -> Result<(), TargetConfigError> {
    if ok {
        Ok(())
    } else {
        Err(url_err(detail))
    }
}

/// Whether `s` is a URL scheme (a letter, then letters, digits, `+`, `-`, `.`).
pub(crate) fn is_scheme(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

/// A [`TargetConfigError::InvalidUrl`] for an unsupported scheme (named when it is a short,
/// valid scheme), with what to use instead.
pub(crate) fn unsupported_scheme(scheme: &str, expected: &str) -> TargetConfigError {
    if is_scheme(scheme) && scheme.len() <= 16 {
        url_err(format!("unsupported scheme {scheme:?} (use {expected})"))
    } else {
        url_err(format!("unsupported scheme (use {expected})"))
    }
}

fn forced_mismatch(forced: TransportKind, target_is_url: bool) -> String {
    if target_is_url {
        format!("transport {forced} cannot be used with an HTTP URL; give a command line instead")
    } else {
        format!("transport {forced} needs an http:// or https:// URL, but the target is a command line")
    }
}

/// Splits a command line into words.
pub fn split_command_line(line: &str) -> Result<Vec<String>, TargetError> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(ch) => cur.push(ch),
                        None => return Err(TargetError::UnterminatedQuote),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(ch @ ('"' | '\\' | '$' | '`')) => cur.push(ch),
                            Some(ch) => {
                                cur.push('\\');
                                cur.push(ch);
                            }
                            None => return Err(TargetError::UnterminatedQuote),
                        },
                        Some(ch) => cur.push(ch),
                        None => return Err(TargetError::UnterminatedQuote),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(ch) = chars.next() {
                    cur.push(ch);
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    Ok(words)
}

/// Parses a stdio target: a command line, optionally prefixed with `stdio://`.
pub fn parse_stdio_target(target: &str) -> Result<StdioCommand, TargetError> {
    let trimmed = target.trim();
    if trimmed.starts_with("http://") || trimmed.starts_with("https://") {
        return Err(TargetError::UrlNotCommand(redact_url(trimmed)));
    }
    let line = trimmed.strip_prefix("stdio://").unwrap_or(trimmed);
    command_from_argv(split_command_line(line)?)
}

/// A command from an argv array (program first).
pub fn command_from_argv<I, S>(argv: I) -> Result<StdioCommand, TargetError>
where
    I: IntoIterator<Item = S>,
    S: Into<String>,
{
    let mut it = argv.into_iter().map(Into::into);
    let program = it.next().filter(|p: &String| !p.is_empty()).ok_or(TargetError::Empty)?;
    Ok(StdioCommand::new(program).args(it))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_like_a_shell() {
        assert_eq!(
            split_command_line(r#"npx -y "@scope/pkg name" 'a b' c\ d "q\"x""#).unwrap(),
            vec!["npx", "-y", "@scope/pkg name", "a b", "c d", "q\"x"]
        );
        assert_eq!(split_command_line("  ").unwrap(), Vec::<String>::new());
        assert_eq!(split_command_line("a ''").unwrap(), vec!["a", ""]);
        assert_eq!(split_command_line("'open"), Err(TargetError::UnterminatedQuote));
    }

    #[test]
    fn stdio_targets() {
        let c = parse_stdio_target("stdio://python3 server.py --x").unwrap();
        assert_eq!((c.program_lossy(), c.args.len()), ("python3".into(), 2));
        assert_eq!(parse_stdio_target(""), Err(TargetError::Empty));
        assert!(matches!(parse_stdio_target("http://x/mcp"), Err(TargetError::UrlNotCommand(_))));
        let err = parse_stdio_target("https://h/mcp?api_key=sk-secret-1").unwrap_err().to_string();
        assert!(!err.contains("sk-secret-1"), "{err}");
    }
}

/// A short server name derived from a command: the launched package or script for launchers
/// (`npx -y @scope/pkg` → `pkg`), else the program's file name.
pub fn suggested_name(command: &StdioCommand) -> String {
    fn base(s: &str) -> &str {
        let s = s.trim_end_matches('/');
        let s = s.rsplit('/').next().unwrap_or(s);
        s.split('@').find(|p| !p.is_empty()).unwrap_or(s)
    }
    let program = command.program_lossy();
    let program = base(&program);
    let args = command.args_lossy();
    let launchers = ["npx", "uvx", "node", "python", "python3", "deno", "bun", "bunx", "pipx", "uv"];
    if launchers.contains(&program) {
        if let Some(arg) = args.iter().find(|a| !a.starts_with('-') && *a != "run") {
            let name = base(arg);
            let name = name.strip_suffix(".py").or_else(|| name.strip_suffix(".js")).unwrap_or(name);
            if !name.is_empty() {
                return name.to_owned();
            }
        }
    }
    program.to_owned()
}

#[cfg(test)]
mod name_tests {
    use super::*;

    #[test]
    fn names_from_commands() {
        let n = |s: &str| suggested_name(&parse_stdio_target(s).unwrap());
        assert_eq!(n("npx -y @modelcontextprotocol/server-everything"), "server-everything");
        assert_eq!(n("python3 /srv/weather.py"), "weather");
        assert_eq!(n("/usr/bin/my-server --flag"), "my-server");
        assert_eq!(n("uvx mcp-server-git@1.2"), "mcp-server-git");
    }
}
