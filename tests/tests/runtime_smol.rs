//! The scenario suite (`mcp_tests::define_scenarios!`) on mcpwire-smol, twice: under
//! `smol::block_on` and under `async_std::task::block_on`.
//!
//! async-std is discontinued; it is a dev-dependency only to prove that mcpwire-smol works under
//! its executor (and with its spawner).

/// Under `smol::block_on`; background tasks on smol's global executor.
pub mod on_smol {
    pub mod rt {
        use std::time::Duration;

        pub use mcp_tests::support::ready_handler as sync_handler;
        pub use mcp_tests::support::rest_of_stream as rest_of;
        pub use mcpwire_smol::{
            connect, Client, ClientBuilder, ClientError, ListenOptions, Server, SmolRuntime,
        };

        pub fn build(builder: ClientBuilder) -> Result<Client, ClientError> {
            builder
                .runtime_options(
                    mcpwire_smol::RuntimeOptions::new()
                        .runtime(SmolRuntime::with_spawner(|f| smol::spawn(f).detach())),
                )
                .build()
        }

        pub async fn sleep(d: Duration) {
            smol::Timer::after(d).await;
        }

        /// Spawns on smol's global executor.
        pub fn spawner() -> mcp_tests::scenarios::callback::Spawner {
            std::sync::Arc::new(|f| smol::spawn(f).detach())
        }
    }

    fn run<F: std::future::Future<Output = ()>>(scenario: impl FnOnce() -> F) {
        smol::block_on(scenario());
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
}

/// Under `async_std::task::block_on`; background tasks spawned on async-std's executor.
pub mod on_async_std {
    pub mod rt {
        use std::time::Duration;

        pub use mcp_tests::support::ready_handler as sync_handler;
        pub use mcp_tests::support::rest_of_stream as rest_of;
        pub use mcpwire_smol::{
            connect, Client, ClientBuilder, ClientError, ListenOptions, Server, SmolRuntime,
        };

        pub fn build(builder: ClientBuilder) -> Result<Client, ClientError> {
            builder
                .runtime_options(mcpwire_smol::RuntimeOptions::new().runtime(SmolRuntime::with_spawner(
                    |f| {
                        async_std::task::spawn(f);
                    },
                )))
                .build()
        }

        pub async fn sleep(d: Duration) {
            async_std::task::sleep(d).await;
        }

        /// Spawns on async-std's executor.
        pub fn spawner() -> mcp_tests::scenarios::callback::Spawner {
            std::sync::Arc::new(|f| {
                async_std::task::spawn(f);
            })
        }
    }

    fn run<F: std::future::Future<Output = ()>>(scenario: impl FnOnce() -> F) {
        async_std::task::block_on(scenario());
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
}
