//! The scenario suite (`mcp_tests::define_scenarios!`) on mcpwire-tokio, each test on its own
//! multi-threaded tokio runtime.

mod rt {
    use std::time::Duration;

    pub use mcp_tests::support::ready_handler as sync_handler;
    pub use mcp_tests::support::rest_of_stream as rest_of;
    pub use mcpwire_tokio::{connect, Client, ClientBuilder, ClientError, ListenOptions, Server};

    pub fn build(builder: ClientBuilder) -> Result<Client, ClientError> {
        builder.build()
    }

    pub async fn sleep(d: Duration) {
        tokio::time::sleep(d).await;
    }

    /// Spawns on the runtime this is called on, from any thread.
    pub fn spawner() -> mcp_tests::scenarios::callback::Spawner {
        let handle = tokio::runtime::Handle::current();
        std::sync::Arc::new(move |f| {
            handle.spawn(f);
        })
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
mcp_tests::define_async_callback_scenarios!();
mcp_tests::all_async_callback_scenario_tests!(run);
mcp_tests::define_push_scenarios!(async, aw_async);
mcp_tests::all_push_scenario_tests!(run);
mcp_tests::define_meta_scenarios!(async, aw_async);
mcp_tests::all_meta_scenario_tests!(run);
mcp_tests::define_task_scenarios!(async, aw_async);
mcp_tests::all_task_scenario_tests!(run);
mcp_tests::define_server_request_scenarios!(async, aw_async);
mcp_tests::all_server_request_scenario_tests!(run);
mcp_tests::define_roots_scenarios!(async, aw_async);
mcp_tests::all_roots_scenario_tests!(run);
mcp_tests::define_input_wait_scenarios!(async, aw_async);
mcp_tests::all_input_wait_scenario_tests!(run);
mcp_tests::define_cache_scenarios!(async, aw_async);
mcp_tests::all_cache_scenario_tests!(run);
mcp_tests::define_catalog_scenarios!(async, aw_async);
mcp_tests::all_catalog_scenario_tests!(run);
mcp_tests::define_fan_out_scenarios!(async, aw_async);
mcp_tests::all_fan_out_scenario_tests!(run);
mcp_tests::define_oversize_scenarios!(async, aw_async);
mcp_tests::all_oversize_scenario_tests!(run);
#[cfg(feature = "oauth")]
mcp_tests::define_issuer_switch_scenarios!(async, aw_async);
#[cfg(feature = "oauth")]
mcp_tests::all_issuer_switch_scenario_tests!(run);
#[cfg(unix)]
mcp_tests::define_process_group_scenarios!(async, aw_async);
#[cfg(unix)]
mcp_tests::all_process_group_scenario_tests!(run);
#[cfg(feature = "oauth")]
mcp_tests::define_address_check_scenarios!(async, aw_async);
#[cfg(feature = "oauth")]
mcp_tests::all_address_check_scenario_tests!(run);
