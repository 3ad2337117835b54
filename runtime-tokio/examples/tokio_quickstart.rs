//! Connects to an MCP server, lists its tools and calls one, on tokio.
//!
//! ```text
//! cargo run -p mcpwire-tokio --example tokio_quickstart                      # the bundled test server
//! cargo run -p mcpwire-tokio --example tokio_quickstart -- "python3 server.py"
//! cargo run -p mcpwire-tokio --example tokio_quickstart -- http://127.0.0.1:3001/mcp
//! ```

use mcpwire_tokio::{Client, ClientError, ServerSpec, StdioCommand};
use serde_json::json;

#[tokio::main]
async fn main() -> Result<(), ClientError> {
    // Without a TARGET this program re-runs itself as the bundled test server.
    let (program, args) = mcpwire_test_server::serve_if_asked();
    let spec = match std::env::args().nth(1) {
        Some(target) => ServerSpec::from_target_named(&target)?,
        None => ServerSpec::stdio("test-server", StdioCommand::new(program).args(args)),
    };
    let client = Client::builder().server(spec).build()?;
    let info = client.connect().await.into_result()?;
    println!("connected: {:?} era, protocol {}", info[0].era, info[0].protocol_version);
    let tools = client.list_tools().await.into_result()?;
    println!(
        "{} tools: {}",
        tools.len(),
        tools.iter().map(|t| t.tool.name.as_str()).collect::<Vec<_>>().join(", ")
    );
    if tools.iter().any(|t| t.tool.name == "echo") {
        let result = client.call_tool("echo", json!({"message": "hello from tokio"})).await?;
        println!("echo: {}", result.text());
    }
    client.close().await;
    Ok(())
}
