//! The scenario suite (`mcp_tests::define_scenarios!`) on mcp-tokio, each test on its own
//! multi-threaded tokio runtime.

mod rt {
    use std::time::Duration;

    use mcp_tokio::core::ServerRequest;
    pub use mcp_tokio::{connect, static_roots, Client, ClientBuilder, ClientError, Handler, ListenOptions};
    use serde_json::Value;

    /// A synchronous closure as an (async) handler.
    pub fn sync_handler<F>(f: F) -> Handler
    where
        F: Fn(&str, ServerRequest) -> Result<Value, String> + Send + Sync + 'static,
    {
        mcp_tokio::handler(move |server, request| {
            let answer = f(server, request);
            async move { answer }
        })
    }

    pub fn build(builder: ClientBuilder) -> Result<Client, ClientError> {
        builder.build(mcp_tokio::TokioRuntime::current())
    }

    pub async fn sleep(d: Duration) {
        tokio::time::sleep(d).await;
    }
}

fn run<F: std::future::Future<Output = ()>>(scenario: impl FnOnce() -> F) {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime")
        .block_on(scenario());
}

mcp_tests::define_scenarios!(async, aw_async);
mcp_tests::define_async_scenarios!();
mcp_tests::all_scenario_tests!(run);
mcp_tests::all_async_scenario_tests!(run);
mcp_tests::define_push_scenarios!(async, aw_async);
mcp_tests::all_push_scenario_tests!(run);
mcp_tests::define_task_scenarios!(async, aw_async);
mcp_tests::all_task_scenario_tests!(run);
mcp_tests::define_cache_scenarios!(async, aw_async);
mcp_tests::all_cache_scenario_tests!(run);
