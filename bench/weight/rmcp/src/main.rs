//! Build-weight probe: the program of ../ours on rmcp. Connects to the server given on the
//! command line (a command, or a URL when built with `http`), lists its tools and calls `echo`.
//! With `oauth`, HTTP goes through rmcp's `AuthClient` (metadata discovery, token refresh; rmcp
//! leaves the browser step to the host).
use rmcp::{model::CallToolRequestParams, transport::TokioChildProcess, ServiceExt};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let target = args.first().ok_or("usage: weight-rmcp COMMAND [ARGS..] | URL")?;
    #[cfg(feature = "http")]
    if target.starts_with("http://") || target.starts_with("https://") {
        use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
        use rmcp::transport::StreamableHttpClientTransport;
        let config = StreamableHttpClientTransportConfig::with_uri(target.as_str());
        #[cfg(feature = "oauth")]
        let http = rmcp::transport::auth::AuthClient::new(
            reqwest::Client::default(),
            rmcp::transport::auth::AuthorizationManager::new(target.as_str()).await?,
        );
        #[cfg(not(feature = "oauth"))]
        let http = reqwest::Client::default();
        let client = ().serve(StreamableHttpClientTransport::with_client(http, config)).await?;
        return run(client).await;
    }
    let mut command = tokio::process::Command::new(target);
    command.args(&args[1..]);
    let client = ().serve(TokioChildProcess::new(command)?).await?;
    run(client).await
}

async fn run(
    client: rmcp::service::RunningService<rmcp::RoleClient, ()>,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let tools = client.list_tools(Default::default()).await?;
    let mut arguments = serde_json::Map::new();
    arguments.insert("message".into(), "hi".into());
    let result = client.call_tool(CallToolRequestParams::new("echo").with_arguments(arguments)).await?;
    println!("{} tools; echo: {:?}", tools.tools.len(), result.content.first());
    client.cancel().await?;
    Ok(())
}
