#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn smoke() {
    let exe = env!("CARGO_MANIFEST_DIR").to_string() + "/../target/debug/mcp-test-server";
    for proto in ["modern", "2025-06-18"] {
        let client = mcp_tokio::connect(&format!("{exe} --protocol {proto}")).await.unwrap();
        let info = client.servers()[0].info().unwrap();
        println!("{proto}: {:?} {}", info.era, info.protocol_version);
        let tools = client.list_tools().await.unwrap();
        println!("{} tools", tools.len());
        let r = client.call_tool("echo", serde_json::json!({"message":"hi"})).await.unwrap();
        println!("{}", r.text());
        client.close().await;
    }
}
