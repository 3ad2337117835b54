//! `mcp demo`: a short tour of the client against the bundled test server (no network).

use std::process::ExitCode;

use mcpwire_tokio::types::CompletionReference;
use mcpwire_tokio::StdioCommand;
use mcpwire_tokio::{Server, ServerSpec};
use serde_json::{json, Map, Value};

use crate::commands::{with_server, CliError, Settings};
use crate::output::{self, emit, indent};

/// The two connections of the tour: a label and the test server's `--protocol` flag.
const TOUR: [(&str, &str); 2] = [("modern", "modern"), ("legacy", "2025-11-25")];

/// This executable, which serves as the test server when given [`crate::TEST_SERVER_ARG`].
fn this_executable() -> Result<String, CliError> {
    let exe =
        std::env::current_exe().map_err(|e| CliError::new(format!("cannot find this executable: {e}")))?;
    Ok(exe.to_string_lossy().into_owned())
}

/// Prints a step's title and its indented outcome.
fn step(title: &str, body: &str) {
    emit(&format!("{title}:"));
    emit(&indent(body, 4));
}

/// The tour of one connection.
async fn tour(server: Server) -> Result<(), CliError> {
    let info = server.connect().await?;
    emit(&format!("connected: {}", output::connection_line(&info)));

    let tools = server.list_tools().await?;
    let names: Vec<String> = tools.iter().map(|t| output::one_line(&t.name, 60)).collect();
    emit(&format!("tools ({}): {}", tools.len(), names.join(", ")));

    let echo_args = json!({"message": "hello from mcp demo"});
    let echo = server.call_tool("echo", echo_args.clone()).await?;
    step(&format!("call echo {echo_args}"), &output::call_result_text(&echo));

    let progress_args = json!({"steps": 3});
    emit(&format!("call progress {progress_args}:"));
    let report = |p| emit(&indent(&output::progress_line(&p), 4));
    let done = server.call_tool("progress", progress_args).on_progress(report);
    emit(&indent(&output::call_result_text(&done.await?), 4));

    let uri = "test://text";
    step(&format!("read {uri}"), &output::read_result_text(&server.read_resource(uri).await?));

    let mut prompt_args = Map::new();
    prompt_args.insert("name".into(), Value::String("Ada".into()));
    let prompt = server.get_prompt("greet", prompt_args.clone()).await?;
    step(&format!("prompt greet {}", Value::Object(prompt_args)), &output::prompt_result_text(&prompt));

    let completion = server.complete(CompletionReference::prompt("greet"), "name", "A").await?;
    step("complete prompt greet, argument name, \"A\"", &output::completion_text(&completion));
    Ok(())
}

/// Runs the tour against the test server in each era.
pub async fn run(settings: &Settings) -> Result<ExitCode, CliError> {
    let program = this_executable()?;
    emit("mcp demo: a tour against the bundled test server (this executable), no network");
    for (label, flag) in TOUR {
        emit(&format!("\n== test server --protocol {flag} ({label}) =="));
        let spec = ServerSpec::stdio(
            format!("test-server-{label}"),
            StdioCommand::new(program.clone()).args([crate::TEST_SERVER_ARG, "--protocol", flag]),
        );
        with_server(settings, spec, tour).await?;
        emit("closed");
    }
    Ok(ExitCode::SUCCESS)
}
