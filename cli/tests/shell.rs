//! `mcp shell` as a person uses it: through a real pseudo-terminal (expectrl), typing lines,
//! Tab, the Up arrow, Ctrl-C and Ctrl-D, against the bundled test server and
//! server-everything. Every wait is on expected output, bounded by [`WAIT`].

#![cfg(unix)]

use std::process::Command;
use std::time::{Duration, Instant};

use expectrl::process::unix::{PtyStream, UnixProcess, WaitStatus};
use expectrl::session::Session;
use expectrl::{ControlCode, Eof, Expect};
use mcp_tests::support::TempDir;

/// How long any expected output may take.
const WAIT: Duration = Duration::from_secs(10);
/// The prompt against the bundled test server.
const PROMPT: &str = "mcp-test-server> ";

type Shell = Session<UnixProcess, PtyStream>;

/// The bundled test server, run by the `mcp` binary itself.
fn test_server(flags: &str) -> String {
    format!("{} __test-server {flags}", env!("CARGO_BIN_EXE_mcp"))
}

/// Starts `mcp shell TARGET` on a terminal with its history in `history`, and waits for the
/// prompt.
fn start(target: &str, history: &std::path::Path, prompt: &str) -> Shell {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mcp"));
    command.args(["shell", target]).env("MCP_SHELL_HISTORY", history).env("TERM", "xterm");
    let mut shell = Session::spawn(command).expect("spawn mcp shell on a pseudo-terminal");
    shell.set_expect_timeout(Some(WAIT));
    shell.expect("connected: ").expect("the connection line");
    shell.expect(prompt).expect("the prompt");
    shell
}

/// Types `line` and Enter.
fn line(shell: &mut Shell, line: &str) {
    shell.send(line).expect("type");
    shell.send("\r").expect("Enter");
}

/// Waits for `text` printed as a line of its own (not the echo of what was typed), then for
/// the prompt after it.
fn answer_line(shell: &mut Shell, text: &str, prompt: &str) {
    answer(shell, &format!("\r\n{text}\r\n"), prompt);
}

/// Waits for `text`, then for the prompt after it.
fn answer(shell: &mut Shell, text: &str, prompt: &str) {
    expect(shell, text);
    expect(shell, prompt);
}

/// Waits for `text`; on a timeout, fails showing what the terminal showed instead.
fn expect(shell: &mut Shell, text: &str) {
    if let Err(e) = shell.expect(text) {
        let mut seen = Vec::new();
        let mut buf = [0u8; 4096];
        while let Ok(n @ 1..) = shell.try_read(&mut buf) {
            seen.extend_from_slice(&buf[..n]);
        }
        panic!("waiting for {text:?}: {e}; the terminal showed {:?}", String::from_utf8_lossy(&seen));
    }
}

/// Ctrl-D at an empty prompt: the shell ends with status 0.
fn leave(mut shell: Shell) {
    shell.send(ControlCode::EndOfTransmission).expect("Ctrl-D");
    shell.expect(Eof).expect("the shell ends");
    assert_eq!(shell.get_process().wait().expect("wait"), WaitStatus::Exited(shell.get_process().pid(), 0));
}

/// Sends Ctrl-C until `text` appears: the call must be running (the terminal out of raw
/// mode) for a Ctrl-C to reach it as SIGINT, and that moment cannot be seen from outside.
fn interrupt_until(shell: &mut Shell, text: &str) {
    let deadline = Instant::now() + WAIT;
    shell.set_expect_timeout(Some(Duration::from_millis(300)));
    loop {
        shell.send(ControlCode::EndOfText).expect("Ctrl-C");
        if shell.expect(text).is_ok() {
            break;
        }
        assert!(Instant::now() < deadline, "no {text:?} after Ctrl-C");
    }
    shell.set_expect_timeout(Some(WAIT));
}

#[test]
fn commands_completion_history_and_errors() {
    let dir = TempDir::new("shell");
    let history = dir.path().join("history");
    let mut shell = start(&test_server(""), &history, PROMPT);

    line(&mut shell, "tools");
    answer(&mut shell, "Adds two numbers", PROMPT);
    line(&mut shell, "call echo message=hi-there");
    answer_line(&mut shell, "hi-there", PROMPT);
    line(&mut shell, "call add a=1");
    answer(&mut shell, "error: missing required argument \"b\"", PROMPT);

    // Tab completes the command, the tool, then the argument name: the lines only work if
    // each completion happened.
    shell.send("ca\t").expect("type");
    line(&mut shell, "echo message=tab1");
    answer_line(&mut shell, "tab1", PROMPT);
    shell.send("call ec\t").expect("type");
    line(&mut shell, "message=tab2");
    answer_line(&mut shell, "tab2", PROMPT);
    shell.send("call echo \t").expect("type");
    line(&mut shell, "tab3");
    answer_line(&mut shell, "tab3", PROMPT);

    // A mistake prints an error and the prompt comes back.
    line(&mut shell, "cal echo message=x");
    answer(&mut shell, "unknown command \"cal\"; did you mean \"call\"?", PROMPT);

    // Up, Up: the call before the mistake runs again.
    shell.send("\x1b[A\x1b[A\r").expect("Up Up Enter");
    answer_line(&mut shell, "tab3", PROMPT);

    line(&mut shell, "call add a=2 b=3 --json");
    answer(&mut shell, "\"sum\": 5", PROMPT);
    leave(shell);

    let saved = std::fs::read_to_string(&history).expect("the history file");
    assert!(saved.contains("call echo message=hi-there"), "{saved}");
    assert!(saved.contains("call echo message=tab3"), "{saved}");
}

#[test]
fn ctrl_c_cancels_a_call_and_clears_a_line() {
    let dir = TempDir::new("shell");
    let mut shell = start(&test_server(""), &dir.path().join("history"), PROMPT);

    // Ctrl-C at the prompt drops what was typed.
    shell.send("call echo message=dropped").expect("type");
    shell.send(ControlCode::EndOfText).expect("Ctrl-C");
    expect(&mut shell, PROMPT);
    line(&mut shell, "call echo message=kept");
    answer_line(&mut shell, "kept", PROMPT);

    line(&mut shell, "call slow ms=60000");
    interrupt_until(&mut shell, "cancelled");
    shell.expect(PROMPT).expect("the prompt after the cancelled call");
    line(&mut shell, "call echo message=still-here");
    answer_line(&mut shell, "still-here", PROMPT);
    leave(shell);
}

#[test]
fn notifications_print_above_the_prompt_and_listen_ends_on_ctrl_c() {
    let dir = TempDir::new("shell");
    let mut shell = start(&test_server(""), &dir.path().join("history"), PROMPT);

    // A log message arrives while a line is half typed: it is printed, and the line is not
    // lost.
    line(&mut shell, "call notify_later ms=1000");
    answer_line(&mut shell, "later", PROMPT);
    shell.send("call echo mess").expect("type");
    shell
        .expect("notifications/message info: after the reply\r\n")
        .expect("the log message above the prompt");
    line(&mut shell, "age=typed-on");
    answer_line(&mut shell, "typed-on", PROMPT);

    // A list change sent on the stream the shell keeps open is printed, then `listen` shows
    // notifications until Ctrl-C.
    line(&mut shell, "call change_list kind=tools");
    answer(&mut shell, "notifications/tools/list_changed", PROMPT);
    line(&mut shell, "call notify_later ms=1500");
    answer_line(&mut shell, "later", PROMPT);
    line(&mut shell, "listen");
    shell.expect("listening").expect("listen started");
    shell.expect("after the reply").expect("a notification while listening");
    interrupt_until(&mut shell, "stopped listening");
    shell.expect(PROMPT).expect("the prompt after listen");
    line(&mut shell, "ping");
    answer(&mut shell, "ok (", PROMPT);
    leave(shell);
}

/// A real server: server-everything's tools, completion of its tool names, and `listen` on a
/// subscribed resource, whose updates it sends every 5 seconds once asked to.
#[test]
fn server_everything_in_the_shell() {
    let dir = TempDir::new("shell");
    let everything = mcp_tests::support::peer_command("server-everything");
    let prompt = "mcp-servers/everything> ";
    let mut shell = start(&everything, &dir.path().join("history"), prompt);
    shell.send("call get-su\t").expect("type");
    line(&mut shell, "a=2 b=3");
    answer(&mut shell, "The sum of 2 and 3 is 5", prompt);
    line(&mut shell, "call toggle-subscriber-updates");
    answer(&mut shell, "Started simulated resource updated notifications", prompt);
    line(&mut shell, "listen --resource demo://resource/static/document/architecture.md");
    shell.expect("listening").expect("listen started");
    shell
        .expect("notifications/resources/updated demo://resource/static/document/architecture.md")
        .expect("an update while listening");
    interrupt_until(&mut shell, "stopped listening");
    shell.expect(prompt).expect("the prompt after listen");
    line(&mut shell, "exit");
    shell.expect(Eof).expect("the shell ends");
    assert_eq!(shell.get_process().wait().expect("wait"), WaitStatus::Exited(shell.get_process().pid(), 0));
}
