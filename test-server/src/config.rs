//! Command-line flags, parsed by hand.

use std::path::PathBuf;

use crate::protocol::{LEGACY_VERSIONS, MODERN_VERSION};

/// Which protocol era(s) the server speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProtocolMode {
    /// Only the modern (per-request `_meta`) revision.
    Modern,
    /// Both: `server/discover` + modern `_meta`, or `initialize` (legacy).
    Dual,
    /// Only the given legacy (initialize-based) revision.
    Legacy(&'static str),
}

/// Parsed command-line configuration.
#[derive(Debug, Clone)]
pub struct Config {
    pub protocol: ProtocolMode,
    pub silent_discover: bool,
    pub answer_version: Option<String>,
    pub page_size: usize,
    pub extra_tools: usize,
    pub loop_cursor: bool,
    pub record: Option<PathBuf>,
    pub stderr_banner: bool,
    /// Write lines to stderr without pause for as long as the process runs.
    pub stderr_flood: bool,
    pub exit_on_start: Option<i32>,
    /// Delay before `notifications/subscriptions/acknowledged` is sent.
    pub listen_ack_delay_ms: u64,
    /// Never acknowledge a `subscriptions/listen`.
    pub listen_no_ack: bool,
    /// Acknowledge every `subscriptions/listen` with an empty filter.
    pub listen_deny_all: bool,
    /// Legacy eras: no `resources/subscribe` (capability `subscribe: false`).
    pub no_subscribe: bool,
    /// `--no-subscribe-if-exists FILE`: `no_subscribe` when `FILE` exists as the process starts
    /// (a test restarting the server decides what the next process declares).
    pub no_subscribe_if_exists: Option<PathBuf>,
    /// `--discover-ttl-ms N`: the `ttlMs` of the `server/discover` result (default 0).
    pub discover_ttl_ms: u64,
    /// The `pollIntervalMs` (legacy: `pollInterval`) of a task unless the tool is told otherwise.
    pub task_poll_ms: u64,
    /// No tasks: neither the 2026-07-28 extension nor the 2025-11-25 capability is declared,
    /// task tools answer synchronously (or refuse, if they require a task).
    pub no_tasks: bool,
    /// Also serve the prompt `trip`, whose `city` completions follow `context.arguments`.
    pub trip_prompt: bool,
    /// Also serve the tools `elicit_url` and `sample_tools` (see `host_asks`).
    pub host_asks: bool,
    /// Also serve the tools `not_yet` and `never_ready` (see `input_waits`).
    pub input_waits: bool,
    /// Also serve the tool `list_roots`, in both eras (see `client_roots`).
    pub client_roots: bool,
    /// Also serve the tool `big`, in both eras (see `big`).
    pub big_tool: bool,
    /// Also serve the tools `typed`, `app_view` and `app_refresh`, in both eras (see `cli_tools`).
    pub cli_tools: bool,
    /// `--exit-after N`: the `N`-th `tools/call` ends the process (status 3), unanswered.
    pub exit_after: Option<u64>,
    /// `--slow-write-ms N`: a line longer than 64 KiB is written 64 KiB at a time, `N` ms apart.
    pub slow_write_ms: u64,
    /// `--close-stdout-after N`: the `N`-th `tools/call` closes stdout, unanswered; the
    /// process lives on.
    pub close_stdout_after: Option<u64>,
    /// `--stop-reading-after N`: on the `N`-th `tools/call` the process stops reading stdin
    /// for good, unanswered, and lives on.
    pub stop_reading_after: Option<u64>,
    /// `--answer-delay-ms N`: every answer to a request is sent `N` ms late.
    pub answer_delay_ms: u64,
    /// `--list-barrier DIR`: `tools/list` waits for `list_barrier_count` arrivals in `DIR`.
    pub list_barrier: Option<PathBuf>,
    /// `--list-barrier-count N`: how many `tools/list` arrivals open the barrier (default 2).
    pub list_barrier_count: usize,
    /// `--list-barrier-timeout-ms N`: how long a `tools/list` waits at the barrier before it
    /// fails (default 20 000).
    pub list_barrier_timeout_ms: u64,
    // ---- capability switches (client-side gating tests) ----
    /// `--no-logging`: `logging` is not declared and `logging/setLevel` is not served.
    pub no_logging: bool,
    /// `--no-prompts`: `prompts` is not declared and `prompts/*` are not served.
    pub no_prompts: bool,
    /// `--no-resources`: `resources` is not declared and `resources/*` are not served.
    pub no_resources: bool,
    /// `--no-completions`: `completions` is not declared and `completion/complete` is not served.
    pub no_completions: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            protocol: ProtocolMode::Dual,
            silent_discover: false,
            answer_version: None,
            page_size: 0,
            extra_tools: 0,
            loop_cursor: false,
            record: None,
            stderr_banner: false,
            stderr_flood: false,
            exit_on_start: None,
            listen_ack_delay_ms: 0,
            listen_no_ack: false,
            listen_deny_all: false,
            no_subscribe: false,
            no_subscribe_if_exists: None,
            discover_ttl_ms: 0,
            task_poll_ms: 50,
            no_tasks: false,
            trip_prompt: false,
            host_asks: false,
            input_waits: false,
            client_roots: false,
            big_tool: false,
            cli_tools: false,
            exit_after: None,
            slow_write_ms: 0,
            close_stdout_after: None,
            stop_reading_after: None,
            answer_delay_ms: 0,
            list_barrier: None,
            list_barrier_count: 2,
            list_barrier_timeout_ms: 20_000,
            no_logging: false,
            no_prompts: false,
            no_resources: false,
            no_completions: false,
        }
    }
}

pub const USAGE: &str =
    "usage: mcp-test-server [--protocol modern|dual|2025-11-25|2025-06-18|2025-03-26|2024-11-05] \
[--silent-discover] [--answer-version V] [--page-size N] [--extra-tools N] [--loop-cursor] \
[--record FILE] [--stderr-banner] [--stderr-flood] [--exit-on-start CODE] [--listen-ack-delay-ms N] [--listen-no-ack] \
[--listen-deny-all] [--no-subscribe] [--no-subscribe-if-exists FILE] [--discover-ttl-ms N] [--task-poll-ms N] [--no-tasks] [--trip-prompt] [--host-asks] [--input-waits] [--client-roots] \
[--big-tool] [--cli-tools] [--exit-after N] [--slow-write-ms N] [--close-stdout-after N] [--stop-reading-after N] [--answer-delay-ms N] [--list-barrier DIR] [--list-barrier-count N] \
[--list-barrier-timeout-ms N] [--no-logging] [--no-prompts] [--no-resources] [--no-completions]";

/// Outcome of parsing: run with a config, or print help and exit.
#[derive(Debug)]
pub enum Parsed {
    Run(Box<Config>),
    Help,
}

fn parse_protocol(value: &str) -> Result<ProtocolMode, String> {
    match value {
        "modern" | MODERN_VERSION => Ok(ProtocolMode::Modern),
        "dual" => Ok(ProtocolMode::Dual),
        other => LEGACY_VERSIONS
            .iter()
            .find(|v| **v == other)
            .map(|v| ProtocolMode::Legacy(v))
            .ok_or_else(|| format!("unknown --protocol value {other:?}")),
    }
}

fn parse_number<T: std::str::FromStr>(flag: &str, value: &str) -> Result<T, String> {
    value.parse().map_err(|_| format!("{flag} expects a number, got {value:?}"))
}

/// Parses the arguments (without the program name). Accepts both
/// `--flag value` and `--flag=value`.
pub fn parse<I: IntoIterator<Item = String>>(args: I) -> Result<Parsed, String> {
    let mut cfg = Config::default();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        let takes_value = matches!(
            flag.as_str(),
            "--protocol"
                | "--answer-version"
                | "--page-size"
                | "--extra-tools"
                | "--record"
                | "--exit-on-start"
                | "--listen-ack-delay-ms"
                | "--task-poll-ms"
                | "--exit-after"
                | "--slow-write-ms"
                | "--close-stdout-after"
                | "--stop-reading-after"
                | "--answer-delay-ms"
                | "--list-barrier"
                | "--list-barrier-count"
                | "--list-barrier-timeout-ms"
                | "--no-subscribe-if-exists"
                | "--discover-ttl-ms"
        );
        let value = if takes_value {
            match inline {
                Some(v) => v,
                None => args.next().ok_or_else(|| format!("{flag} requires a value"))?,
            }
        } else {
            if inline.is_some() {
                return Err(format!("{flag} takes no value"));
            }
            String::new()
        };
        match flag.as_str() {
            "--protocol" => cfg.protocol = parse_protocol(&value)?,
            "--answer-version" => cfg.answer_version = Some(value),
            "--page-size" => cfg.page_size = parse_number(&flag, &value)?,
            "--extra-tools" => cfg.extra_tools = parse_number(&flag, &value)?,
            "--record" => cfg.record = Some(PathBuf::from(value)),
            "--exit-on-start" => cfg.exit_on_start = Some(parse_number(&flag, &value)?),
            "--listen-ack-delay-ms" => cfg.listen_ack_delay_ms = parse_number(&flag, &value)?,
            "--listen-no-ack" => cfg.listen_no_ack = true,
            "--listen-deny-all" => cfg.listen_deny_all = true,
            "--no-subscribe" => cfg.no_subscribe = true,
            "--no-subscribe-if-exists" => cfg.no_subscribe_if_exists = Some(PathBuf::from(value)),
            "--discover-ttl-ms" => cfg.discover_ttl_ms = parse_number(&flag, &value)?,
            "--task-poll-ms" => cfg.task_poll_ms = parse_number(&flag, &value)?,
            "--no-tasks" => cfg.no_tasks = true,
            "--trip-prompt" => cfg.trip_prompt = true,
            "--host-asks" => cfg.host_asks = true,
            "--input-waits" => cfg.input_waits = true,
            "--client-roots" => cfg.client_roots = true,
            "--big-tool" => cfg.big_tool = true,
            "--cli-tools" => cfg.cli_tools = true,
            "--exit-after" => match parse_number(&flag, &value)? {
                0 => return Err("--exit-after expects a count of at least 1".to_string()),
                n => cfg.exit_after = Some(n),
            },
            "--slow-write-ms" => cfg.slow_write_ms = parse_number(&flag, &value)?,
            "--close-stdout-after" | "--stop-reading-after" => {
                let n = match parse_number(&flag, &value)? {
                    0 => return Err(format!("{flag} expects a count of at least 1")),
                    n => Some(n),
                };
                match flag.as_str() {
                    "--close-stdout-after" => cfg.close_stdout_after = n,
                    _ => cfg.stop_reading_after = n,
                }
            }
            "--answer-delay-ms" => cfg.answer_delay_ms = parse_number(&flag, &value)?,
            "--list-barrier" => cfg.list_barrier = Some(PathBuf::from(value)),
            "--list-barrier-count" => cfg.list_barrier_count = parse_number(&flag, &value)?,
            "--list-barrier-timeout-ms" => cfg.list_barrier_timeout_ms = parse_number(&flag, &value)?,
            "--silent-discover" => cfg.silent_discover = true,
            "--loop-cursor" => cfg.loop_cursor = true,
            "--stderr-banner" => cfg.stderr_banner = true,
            "--stderr-flood" => cfg.stderr_flood = true,
            "--no-logging" => cfg.no_logging = true,
            "--no-prompts" => cfg.no_prompts = true,
            "--no-resources" => cfg.no_resources = true,
            "--no-completions" => cfg.no_completions = true,
            "-h" | "--help" => return Ok(Parsed::Help),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(Parsed::Run(Box::new(cfg)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(args: &[&str]) -> Config {
        match parse(args.iter().map(|s| s.to_string())).unwrap() {
            Parsed::Run(cfg) => *cfg,
            Parsed::Help => panic!("unexpected help"),
        }
    }

    #[test]
    fn defaults_to_dual() {
        let cfg = run(&[]);
        assert_eq!(cfg.protocol, ProtocolMode::Dual);
        assert_eq!(cfg.page_size, 0);
    }

    #[test]
    fn parses_values_both_ways() {
        let cfg = run(&["--protocol", "2025-06-18", "--page-size=2", "--loop-cursor"]);
        assert_eq!(cfg.protocol, ProtocolMode::Legacy("2025-06-18"));
        assert_eq!(cfg.page_size, 2);
        assert!(cfg.loop_cursor);
    }

    #[test]
    fn parses_subscription_flags() {
        let cfg = run(&[]);
        assert_eq!((cfg.listen_ack_delay_ms, cfg.listen_no_ack, cfg.listen_deny_all), (0, false, false));
        assert!(!cfg.no_subscribe);
        let cfg =
            run(&["--listen-ack-delay-ms=50", "--listen-no-ack", "--listen-deny-all", "--no-subscribe"]);
        assert_eq!((cfg.listen_ack_delay_ms, cfg.listen_no_ack, cfg.listen_deny_all), (50, true, true));
        assert!(cfg.no_subscribe);
        let cfg = run(&["--no-subscribe-if-exists", "/nowhere/marker", "--discover-ttl-ms=250"]);
        assert_eq!(cfg.no_subscribe_if_exists, Some(PathBuf::from("/nowhere/marker")));
        assert_eq!(cfg.discover_ttl_ms, 250);
        assert!(parse(["--discover-ttl-ms=-1".to_string()]).is_err());
        assert!(parse(["--listen-ack-delay-ms".to_string(), "soon".to_string()]).is_err());
        assert!(parse(["--listen-no-ack=1".to_string()]).is_err());
    }

    #[test]
    fn parses_task_flags() {
        let cfg = run(&[]);
        assert_eq!((cfg.task_poll_ms, cfg.no_tasks), (50, false));
        let cfg = run(&["--task-poll-ms", "7", "--no-tasks"]);
        assert_eq!((cfg.task_poll_ms, cfg.no_tasks), (7, true));
        assert_eq!(run(&["--task-poll-ms=0"]).task_poll_ms, 0);
        assert!(parse(["--task-poll-ms=-1".to_string()]).is_err());
        assert!(parse(["--no-tasks=yes".to_string()]).is_err());
    }

    #[test]
    fn parses_fan_out_flags() {
        let cfg = run(&[]);
        assert_eq!((cfg.answer_delay_ms, cfg.list_barrier.is_none()), (0, true));
        assert_eq!((cfg.list_barrier_count, cfg.list_barrier_timeout_ms), (2, 20_000));
        let cfg = run(&[
            "--answer-delay-ms=200",
            "--list-barrier",
            "/tmp/b",
            "--list-barrier-count=3",
            "--list-barrier-timeout-ms",
            "500",
        ]);
        assert_eq!(cfg.answer_delay_ms, 200);
        assert_eq!(cfg.list_barrier.as_deref(), Some(std::path::Path::new("/tmp/b")));
        assert_eq!((cfg.list_barrier_count, cfg.list_barrier_timeout_ms), (3, 500));
        assert!(parse(["--answer-delay-ms=soon".to_string()]).is_err());
    }

    #[test]
    fn parses_exit_after() {
        assert_eq!(run(&[]).exit_after, None);
        assert_eq!(run(&["--exit-after", "100"]).exit_after, Some(100));
        assert_eq!(run(&["--exit-after=7"]).exit_after, Some(7));
        assert!(parse(["--exit-after=0".to_string()]).is_err());
        assert!(parse(["--exit-after".to_string(), "many".to_string()]).is_err());
    }

    #[test]
    fn parses_process_fault_flags() {
        let cfg = run(&[]);
        assert_eq!((cfg.slow_write_ms, cfg.close_stdout_after, cfg.stop_reading_after), (0, None, None));
        let cfg = run(&["--slow-write-ms", "5", "--close-stdout-after=3", "--stop-reading-after", "2"]);
        assert_eq!(
            (cfg.slow_write_ms, cfg.close_stdout_after, cfg.stop_reading_after),
            (5, Some(3), Some(2))
        );
        assert!(parse(["--close-stdout-after=0".to_string()]).is_err());
        assert!(parse(["--stop-reading-after=never".to_string()]).is_err());
    }

    #[test]
    fn rejects_unknown() {
        assert!(parse(["--nope".to_string()]).is_err());
        assert!(parse(["--protocol".to_string(), "1999-01-01".to_string()]).is_err());
        assert!(parse(["--page-size".to_string()]).is_err());
    }

    #[test]
    fn capability_switches() {
        let cfg = run(&[]);
        assert!(!cfg.no_logging && !cfg.no_prompts && !cfg.no_completions);
        let cfg = run(&["--no-logging", "--no-prompts", "--no-completions", "--no-resources", "--cli-tools"]);
        assert!(cfg.no_logging && cfg.no_prompts && cfg.no_completions && cfg.no_resources && cfg.cli_tools);
        assert!(parse(["--no-logging=1".to_string()]).is_err());
    }
}
