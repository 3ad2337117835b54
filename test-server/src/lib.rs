//! `mcp-test-server`: a deterministic MCP server for the workspace's tests and for `mcp demo`.
//!
//! The client's integration tests (`mcp-tests`, `mcpwire-cli`, `mcpwire-blocking`), the benchmarks and
//! `mcp demo` all talk to this one server, as the `mcp-test-server` binary or, for the demo,
//! through [`run`] inside the `mcp` binary. It depends on nothing but `serde_json`, so the shipped
//! `mcp` binary does not depend on the test crate.
//!
//! It is this project's test fixture, not a server framework; it is also handy for trying a client
//! offline. The client itself starts at the repository's `README.md`.
//!
//! It speaks newline-delimited JSON-RPC 2.0 on stdin/stdout (one compact
//! message per line), never uses randomness or the wall clock in its
//! output (except the `createdAt`/`lastUpdatedAt` timestamps of tasks), and
//! exits 0 when stdin reaches end-of-file.
//!
//! # What it offers
//!
//! * Revisions: 2026-07-28 (`server/discover`, per-request `_meta`) and the
//!   `initialize` revisions 2025-11-25, 2025-06-18, 2025-03-26 and 2024-11-05.
//! * Tools: `echo`, `add`, `slow` (cancellable), `progress`, `fail` (`isError`),
//!   `rpc_error`, `crash` (exits without answering, or after answering with
//!   `answerFirst: true`), `notify` (list_changed and log notifications),
//!   `notify_later`, `noise` (a non-JSON line, a line over 2 MiB, a big stderr
//!   line), and the push tools `touch_resource {uri}`, `change_list {kind}` and
//!   `flood {uri, count}`, which write their notifications before answering
//!   how many they sent; on 2026-07-28 also `end_listens {resultType?}`, which
//!   answers every open `subscriptions/listen`; on the legacy revisions also
//!   `elicit`, `sample`, `roots` and `ping_client`, which send
//!   server-to-client requests.
//! * Task tools (listed in every revision, after `flood`): `task_echo
//!   {message, ms?=200, pollMs?}` and `task_required {message, ms?=200}`
//!   answer `message` after `ms`; `task_input {ms?=100}` asks for a name after
//!   `ms`, then answers `Hello, <name>!`; `task_fail {ms?=100}` ends with the
//!   JSON-RPC error -32050 `task failed`; `task_slow {ms?=60000}` is there to
//!   be cancelled; `task_notify {message?="notified", ms?=200}` is `task_echo`
//!   pushing its status changes. `task_required` and `task_input` run only as
//!   tasks, the others also synchronously.
//! * Tasks: on 2026-07-28 (extension `io.modelcontextprotocol/tasks`, declared
//!   in `server/discover`) a task tool becomes a task when the request's
//!   `_meta` client capabilities name the extension (`CreateTaskResult`,
//!   `resultType: "task"`); then `tasks/get`, `tasks/update` (answers to
//!   `inputRequests`), `tasks/cancel`, and `notifications/tasks` on listens
//!   whose filter names the task in `taskIds`. On 2025-11-25 (capability
//!   `tasks`, tools' `execution.taskSupport`) a `tools/call` with `params.task`
//!   becomes one; then `tasks/get`, `tasks/result` (blocks until the task
//!   ends), `tasks/list`, `tasks/cancel`, input as an `elicitation/create`
//!   request tagged with the task, and `notifications/tasks/status`. Older
//!   revisions have no tasks. Task ids are `task-1`, `task-2`, ...
//! * Push: on 2026-07-28, `subscriptions/listen` stays open; it is
//!   acknowledged with the granted filter (the requested list kinds, and the
//!   requested URIs it can read) and ended by `notifications/cancelled`. On
//!   the legacy revisions, `resources/subscribe` and `resources/unsubscribe`.
//! * Prompts `greet` and `plain`, resources `test://text` and `test://blob`, the
//!   template `test://item/{id}`, completion for their arguments.
//!
//! # Flags
//!
//! * `--protocol modern|dual|2025-11-25|2025-06-18|2025-03-26|2024-11-05`
//!   (default `dual`): `modern` serves only revision 2026-07-28 (per-request
//!   `_meta`, `server/discover`, no `initialize`); a legacy revision serves
//!   only the `initialize` handshake; `dual` serves both, choosing the era of
//!   each request by whether it carries the modern `_meta` protocol version.
//! * `--silent-discover`: in a legacy mode, never answer `server/discover`
//!   (or any other request before `initialize`).
//! * `--answer-version V`: answer `initialize` with protocol version `V`
//!   verbatim.
//! * `--page-size N`: paginate every list result, `N` items per page
//!   (0, the default, disables pagination).
//! * `--extra-tools N`: add echo tools `extra_0` .. `extra_{N-1}`.
//! * `--loop-cursor`: `tools/list` always returns `nextCursor: "again"`.
//! * `--record FILE`: append every raw line received on stdin to `FILE`.
//! * `--stderr-banner`: write `mcp-test-server starting` to stderr at start.
//! * `--stderr-flood`: write lines to stderr without pause, on a thread of
//!   their own, until stderr breaks.
//! * `--exit-on-start CODE`: exit immediately with status `CODE`.
//! * `--listen-ack-delay-ms N`: acknowledge each `subscriptions/listen` `N` ms
//!   late.
//! * `--listen-no-ack`: never acknowledge a `subscriptions/listen`.
//! * `--listen-deny-all`: acknowledge every `subscriptions/listen` with an
//!   empty filter (and deliver nothing on it).
//! * `--no-subscribe`: on the legacy revisions, declare `resources.subscribe:
//!   false` and answer `resources/subscribe` with -32601.
//! * `--no-subscribe-if-exists FILE`: `--no-subscribe` when `FILE` exists as the
//!   process starts (so a test decides what a restarted process declares).
//! * `--discover-ttl-ms N`: answer `server/discover` with `ttlMs: N` (default 0).
//! * `--task-poll-ms N`: the `pollIntervalMs` (2025-11-25: `pollInterval`) of
//!   every task (default 50; `task_echo`'s `pollMs` overrides it).
//! * `--no-tasks`: no tasks at all: neither the extension nor the capability
//!   is declared, no `execution` in `tools/list`, the `tasks/*` methods answer
//!   -32601; task tools answer synchronously, `task_required` and
//!   `task_input` refuse (-32601).
//! * `--trip-prompt`: also serve the prompt `trip` (`country`, `city`), whose
//!   `city` completions are the cities of the `country` in the request's
//!   `context.arguments` (every city without one).
//! * `--host-asks`: also serve `elicit_url {id?}` (URL-mode elicitation) and
//!   `sample_tools {history?, includeContext?}` (sampling with tools), in both
//!   eras: a server-to-client request on the legacy revisions, an
//!   `input_required` result on 2026-07-28 (see the `host_asks` module).
//! * `--input-waits`: also serve `not_yet {times?=2}` and `never_ready`, which answer
//!   2026-07-28 `input_required` with only a `requestState` (`times` times, or for ever); an
//!   error result on the legacy revisions (see the `input_waits` module).
//! * `--client-roots`: also serve `list_roots`, which asks the client for its roots in both
//!   eras (see the `client_roots` module).
//! * `--big-tool`: also serve `big {bytes?=1048576}`, which answers with a text result of
//!   `bytes` bytes, in both eras (see the `big` module).
//! * `--cli-tools`: also serve `typed` (one argument of each JSON type, answered back as
//!   structured content and the same JSON as text), `app_view` (an MCP Apps UI resource) and
//!   `app_refresh` (app-only), in both eras, for the `mcp` command line (see the `cli_tools`
//!   module).
//! * `--exit-after N`: on receiving its `N`-th `tools/call` request (after
//!   `--record` wrote it), the process exits with status 3 without answering
//!   it: a server that crashes every `N` calls (the restart soak of
//!   `mcp-bench soak`).
//! * `--slow-write-ms N`: write a line longer than 64 KiB 64 KiB at a time, `N` ms apart (so
//!   a kill can land in the middle of a large answer; the fault soak of `mcp-bench soak`).
//! * `--close-stdout-after N`: on receiving its `N`-th `tools/call`, close stdout without
//!   answering it and live on, reading stdin (the client must notice the end of the stream).
//! * `--stop-reading-after N`: on receiving its `N`-th `tools/call`, stop reading stdin for
//!   good without answering it and live on (the client's writes then fill the pipe).
//! * `--answer-delay-ms N`: send every answer to a request `N` ms late (the
//!   fan-out benchmark of `mcp-bench fanout`: servers that each take a while).
//! * `--list-barrier DIR`, `--list-barrier-count N` (default 2),
//!   `--list-barrier-timeout-ms N` (default 20000): every `tools/list` leaves a
//!   file in `DIR` and is answered only once `DIR` holds `N` of them, so
//!   servers sharing `DIR` answer only a client that asked them all at once;
//!   after the timeout it fails with -32603 naming how many arrived (see the
//!   `list_barrier` module).
//!
//! Flags taking a value also accept the `--flag=value` form.
//!
//! # Subcommand
//!
//! `mcp-test-server oauth-gateway --upstream URL [...]` is no MCP server: it is an OAuth 2.1
//! authorization server and a protected-resource reverse proxy in front of the MCP server at
//! `URL` (see [`oauth_gateway`]).
//!
//! # Example
//!
//! A binary that is the test server (what `mcp-test-server` and `mcp __test-server` do):
//!
//! ```no_run
//! fn main() -> std::process::ExitCode {
//!     mcpwire_test_server::run(std::env::args().skip(1))
//! }
//! ```
//!
//! A client then runs it as `mcp-test-server --protocol 2025-06-18 --page-size 2`, for example.

mod big;
mod cli_tools;
mod client_roots;
mod config;
mod handlers;
mod host_asks;
mod input_waits;
mod list_barrier;
mod listen;
pub mod oauth_gateway;
mod process_faults;
mod protocol;
mod server;
mod tasks;
#[cfg(test)]
mod test_harness;
mod tools;
mod trip_prompt;

use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, Write};
use std::process::ExitCode;
use std::sync::Arc;

use config::{Parsed, USAGE};
use server::Server;

fn open_record(path: &std::path::Path) -> io::Result<File> {
    OpenOptions::new().create(true).append(true).open(path)
}

/// Runs the test server on this process's stdin/stdout with the given flags (see the crate
/// docs); returns when stdin ends. Used by the `mcp-test-server` binary and by `mcp demo`.
pub fn run<I: Iterator<Item = String>>(args: I) -> ExitCode {
    let mut args = args.peekable();
    if args.peek().map(String::as_str) == Some(oauth_gateway::SUBCOMMAND) {
        args.next();
        return oauth_gateway::run(args);
    }
    if args.peek().map(String::as_str) == Some(oauth_gateway::browse::SUBCOMMAND) {
        args.next();
        return oauth_gateway::browse::run(args);
    }
    let mut cfg = match config::parse(args) {
        Ok(Parsed::Run(cfg)) => *cfg,
        Ok(Parsed::Help) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            eprintln!("mcp-test-server: {message}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    if let Some(code) = cfg.exit_on_start {
        std::process::exit(code);
    }
    if cfg.no_subscribe_if_exists.as_deref().is_some_and(std::path::Path::exists) {
        cfg.no_subscribe = true;
    }
    if cfg.stderr_banner {
        eprintln!("mcp-test-server starting");
    }
    if cfg.stderr_flood {
        std::thread::spawn(|| {
            use std::io::Write;
            let line = [b'e'; 1023].iter().copied().chain([b'\n']).collect::<Vec<u8>>();
            while std::io::stderr().write_all(&line).is_ok() {}
        });
    }
    let mut record = match cfg.record.as_deref().map(open_record).transpose() {
        Ok(record) => record,
        Err(err) => {
            eprintln!("mcp-test-server: cannot open --record file: {err}");
            return ExitCode::from(2);
        }
    };

    let (exit_after, close_stdout_after, stop_reading_after) =
        (cfg.exit_after, cfg.close_stdout_after, cfg.stop_reading_after);
    let mut tool_calls = 0u64;
    let server = Arc::new(Server::new(cfg));
    let mut stdin = io::stdin().lock();
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match stdin.read_until(b'\n', &mut buf) {
            Ok(0) => break,
            Ok(_) => {}
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(err) => {
                eprintln!("mcp-test-server: stdin read failed: {err}");
                break;
            }
        }
        if buf.last() == Some(&b'\n') {
            buf.pop();
        }
        if let Some(file) = record.as_mut() {
            let _ = file.write_all(&buf).and_then(|()| file.write_all(b"\n")).and_then(|()| file.flush());
        }
        // --exit-after, --close-stdout-after, --stop-reading-after: the N-th `tools/call`
        // ends the process, closes stdout or stops the reading, unanswered.
        if (exit_after, close_stdout_after, stop_reading_after) != (None, None, None) && is_tool_call(&buf) {
            tool_calls += 1;
            if exit_after.is_some_and(|limit| tool_calls >= limit) {
                eprintln!("mcp-test-server: exiting on tools/call {tool_calls} (--exit-after)");
                std::process::exit(3);
            }
            if stop_reading_after.is_some_and(|limit| tool_calls >= limit) {
                eprintln!("mcp-test-server: no longer reading stdin (--stop-reading-after)");
                process_faults::stop_reading();
            }
            if close_stdout_after == Some(tool_calls) {
                eprintln!("mcp-test-server: closing stdout (--close-stdout-after)");
                process_faults::close_stdout();
                continue;
            }
        }
        match std::str::from_utf8(&buf) {
            Ok(line) => server.handle_line(line.strip_suffix('\r').unwrap_or(line)),
            Err(_) => server.out.send_parse_error(),
        }
    }
    ExitCode::SUCCESS
}

/// Whether a line received is a `tools/call` request (for `--exit-after`).
fn is_tool_call(line: &[u8]) -> bool {
    serde_json::from_slice::<serde_json::Value>(line).is_ok_and(|msg| {
        msg.get("id").is_some() && msg.get("method").and_then(|m| m.as_str()) == Some("tools/call")
    })
}

/// The hidden first argument with which a program that embeds this server (the runtime crates'
/// examples) runs as the server, so it needs no other executable.
pub const SERVE_ARG: &str = "__serve-mcp-test-server";

/// For programs that embed the server: when this process was started with [`SERVE_ARG`], serves
/// on stdin/stdout and exits; otherwise returns the program and arguments that start this
/// process again as the server.
pub fn serve_if_asked() -> (String, Vec<String>) {
    let mut args = std::env::args();
    let program = args.next().unwrap_or_default();
    if args.next().as_deref() == Some(SERVE_ARG) {
        let code = run(args);
        std::process::exit(if code == ExitCode::SUCCESS { 0 } else { 1 });
    }
    let exe = std::env::current_exe().map(|p| p.to_string_lossy().into_owned()).unwrap_or(program);
    (exe, vec![SERVE_ARG.to_owned()])
}
