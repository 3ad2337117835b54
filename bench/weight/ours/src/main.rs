//! Build-weight probe: connect to the server given on the command line (a command, or a URL when
//! built with `http`), list its tools and call `echo`. With `oauth`, an HTTP server that asks for
//! authorization gets the browser sign-in flow.
use mcpwire_tokio::{Client, ServerSpec};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let target = std::env::args().skip(1).collect::<Vec<_>>().join(" ");
    let spec = ServerSpec::from_target_named(&target)?;
    #[cfg(feature = "oauth")]
    let spec = spec.oauth(mcpwire_tokio::auth::OAuthOptions::browser(0));
    let builder = Client::builder().server(spec);
    #[cfg(feature = "oauth")]
    let builder = builder.browser_authorization(mcpwire_tokio::auth::BrowserOpener::System);
    let client = builder.build()?;
    let tools = client.list_tools().await.into_result()?;
    let result = client.call_tool("echo", serde_json::json!({"message": "hi"})).await?;
    println!("{} tools; echo: {}", tools.len(), result.text());
    client.close().await;
    Ok(())
}
