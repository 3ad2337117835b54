//! Checks against real MCP servers: the two reference servers on the TypeScript SDK v1
//! (legacy 2025-11-25) and three small servers of ours on the Python SDK 2.x, FastMCP 4.x and
//! the TypeScript SDK v2 (modern 2026-07-28).
//!
//! The peers are installed by `bash peers/setup.sh` (`scripts/test` runs it before the tests;
//! so does CI). They are found through `$MCP_PEERS`, else `<workspace>/.peers`.
//! A missing peer fails its test with that instruction; nothing is skipped.
//!
//! Over HTTP: server-everything (Streamable HTTP with sessions and resumption, HTTP+SSE, the
//! transport fallback), py-mcp-peer and fastmcp-echo-peer (modern stateless and legacy stateful,
//! HTTP+SSE, multi-round-trip input), ts-v2-peer (both eras); each check starts its own server
//! on a free loopback port. The redirect check (`redirected_paths`: FastMCP and the Python SDK
//! reached through `/mcp/` and `/sse/`, which redirect) runs on mcpwire-tokio and mcpwire-blocking.
//!
//! The checks are written once (`mcp_tests::define_peer_checks!`,
//! `mcp_tests::define_http_peer_checks!`) and run on mcpwire-tokio for every peer, on mcpwire-smol over
//! HTTP, and on mcpwire-blocking over HTTP and for server-everything and py-mcp-peer over stdio.
//! The push checks (`mcp_tests::define_push_peer_checks!`: listen streams, resource
//! subscriptions) run on all three, as do the catalog checks
//! (`mcp_tests::define_catalog_peer_checks!`: client-wide lists, routing, capability gating).
//! The OAuth checks (`mcp_tests::define_oauth_peer_checks!`) put `mcp-test-server
//! oauth-gateway` in front of server-everything and py-mcp-peer and run the whole sign-in,
//! reuse, refresh and client-credentials round trips on all three.

#[cfg(feature = "http")]
macro_rules! all_http_checks {
    ($run:path) => {
        #[cfg(feature = "http")]
        mcp_tests::scenario_tests!(http_peer_checks, $run;
            everything_streamable, everything_sse, everything_fallback_to_sse, py_streamable_modern,
            py_stateless_json_modern, py_ask_name_both_eras, py_streamable_legacy_session, py_sse, fastmcp_streamable_and_sse,
            ts_v2_both_eras, everything_refused_in_modern_mode, ts_v2_legacy_lists_are_not_cached_without_a_stream);
    };
}

/// On mcpwire-tokio, every peer.
mod on_tokio {
    mod rt {
        pub use mcp_tests::support::collect_stream;
        pub use mcpwire_tokio::{Client, ToolCall};

        pub fn build(builder: mcpwire_tokio::ClientBuilder) -> Result<Client, mcpwire_tokio::ClientError> {
            builder.build()
        }

        pub async fn sleep(d: std::time::Duration) {
            tokio::time::sleep(d).await;
        }

        pub use mcp_tests::support::ready_handler as sync_handler;
    }

    fn run<F: std::future::Future<Output = ()>>(check: impl FnOnce() -> F) {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("a tokio runtime")
            .block_on(check());
    }

    mcp_tests::define_peer_checks!(async, aw_async);
    #[cfg(feature = "http")]
    mcp_tests::define_http_peer_checks!(async, aw_async);
    mcp_tests::scenario_tests!(peer_checks, run;
        server_everything, server_filesystem, py_mcp_peer, fastmcp_echo_peer, ts_v2_peer);
    #[cfg(feature = "http")]
    all_http_checks!(run);
    #[cfg(feature = "http")]
    mcp_tests::scenario_tests!(http_peer_checks, run; redirected_paths);
    mcp_tests::define_push_peer_checks!(async, aw_async);
    mcp_tests::all_push_peer_checks!(run);
    mcp_tests::define_task_peer_checks!(async, aw_async);
    mcp_tests::all_task_peer_checks!(run);
    mcp_tests::define_input_wait_peer_checks!(async, aw_async);
    mcp_tests::all_input_wait_peer_checks!(run);
    mcp_tests::define_server_request_peer_checks!(async, aw_async);
    mcp_tests::all_server_request_peer_checks!(run);
    mcp_tests::define_handler_peer_checks!(async, aw_async);
    mcp_tests::all_handler_peer_checks!(run);
    mcp_tests::define_header_peer_checks!(async, aw_async);
    mcp_tests::all_header_peer_checks!(run);
    mcp_tests::define_tool_format_peer_checks!(async, aw_async);
    mcp_tests::all_tool_format_peer_checks!(run);
    mcp_tests::define_batch_peer_checks!(async, aw_async);
    mcp_tests::all_batch_peer_checks!(run);
    mcp_tests::define_catalog_peer_checks!(async, aw_async);
    mcp_tests::all_catalog_peer_checks!(run);
    mcp_tests::define_deprecation_peer_checks!(async, aw_async);
    mcp_tests::all_deprecation_peer_checks!(run);
    mcp_tests::define_oversize_peer_checks!(async, aw_async);
    mcp_tests::all_oversize_peer_checks!(run);
    #[cfg(feature = "oauth")]
    mcp_tests::define_oauth_peer_checks!(async, aw_async);
    #[cfg(feature = "oauth")]
    mcp_tests::all_oauth_peer_checks!(run);
}

/// On mcpwire-smol, the HTTP checks (stdio is covered by the scenarios).
mod on_smol {
    mod rt {
        pub use mcp_tests::support::collect_stream;
        pub use mcpwire_smol::{Client, ToolCall};

        pub fn build(builder: mcpwire_smol::ClientBuilder) -> Result<Client, mcpwire_smol::ClientError> {
            builder.build()
        }

        pub async fn sleep(d: std::time::Duration) {
            smol::Timer::after(d).await;
        }

        pub use mcp_tests::support::ready_handler as sync_handler;
    }

    fn run<F: std::future::Future<Output = ()>>(check: impl FnOnce() -> F) {
        smol::block_on(check());
    }

    mcp_tests::define_peer_checks!(async, aw_async);
    #[cfg(feature = "http")]
    mcp_tests::define_http_peer_checks!(async, aw_async);
    #[cfg(feature = "http")]
    all_http_checks!(run);
    mcp_tests::define_push_peer_checks!(async, aw_async);
    mcp_tests::all_push_peer_checks!(run);
    mcp_tests::define_task_peer_checks!(async, aw_async);
    mcp_tests::all_task_peer_checks!(run);
    mcp_tests::define_input_wait_peer_checks!(async, aw_async);
    mcp_tests::all_input_wait_peer_checks!(run);
    mcp_tests::define_server_request_peer_checks!(async, aw_async);
    mcp_tests::all_server_request_peer_checks!(run);
    mcp_tests::define_handler_peer_checks!(async, aw_async);
    mcp_tests::all_handler_peer_checks!(run);
    mcp_tests::define_header_peer_checks!(async, aw_async);
    mcp_tests::all_header_peer_checks!(run);
    mcp_tests::define_tool_format_peer_checks!(async, aw_async);
    mcp_tests::all_tool_format_peer_checks!(run);
    mcp_tests::define_batch_peer_checks!(async, aw_async);
    mcp_tests::all_batch_peer_checks!(run);
    mcp_tests::define_catalog_peer_checks!(async, aw_async);
    mcp_tests::all_catalog_peer_checks!(run);
    mcp_tests::define_oversize_peer_checks!(async, aw_async);
    mcp_tests::all_oversize_peer_checks!(run);
    #[cfg(feature = "oauth")]
    mcp_tests::define_oauth_peer_checks!(async, aw_async);
    #[cfg(feature = "oauth")]
    mcp_tests::all_oauth_peer_checks!(run);
}

/// On mcpwire-blocking, one legacy and one modern peer.
mod on_blocking {
    mod rt {
        pub use mcp_tests::support::collect_iter as collect_stream;
        pub use mcp_tests::support::plain_handler as sync_handler;
        pub use mcpwire_blocking::{Client, ClientBuilder, ClientError, ToolCall};

        pub fn build(builder: ClientBuilder) -> Result<Client, ClientError> {
            builder.build()
        }

        pub fn sleep(d: std::time::Duration) {
            std::thread::sleep(d);
        }
    }

    fn run(check: impl FnOnce()) {
        check();
    }

    mcp_tests::define_peer_checks!(, aw_sync);
    #[cfg(feature = "http")]
    mcp_tests::define_http_peer_checks!(, aw_sync);
    mcp_tests::scenario_tests!(peer_checks, run; server_everything, py_mcp_peer);
    #[cfg(feature = "http")]
    all_http_checks!(run);
    #[cfg(feature = "http")]
    mcp_tests::scenario_tests!(http_peer_checks, run; redirected_paths);
    mcp_tests::define_push_peer_checks!(, aw_sync);
    mcp_tests::all_push_peer_checks!(run);
    mcp_tests::define_task_peer_checks!(, aw_sync);
    mcp_tests::all_task_peer_checks!(run);
    mcp_tests::define_input_wait_peer_checks!(, aw_sync);
    mcp_tests::all_input_wait_peer_checks!(run);
    mcp_tests::define_server_request_peer_checks!(, aw_sync);
    mcp_tests::all_server_request_peer_checks!(run);
    mcp_tests::define_handler_peer_checks!(, aw_sync);
    mcp_tests::all_handler_peer_checks!(run);
    mcp_tests::define_header_peer_checks!(, aw_sync);
    mcp_tests::all_header_peer_checks!(run);
    mcp_tests::define_tool_format_peer_checks!(, aw_sync);
    mcp_tests::all_tool_format_peer_checks!(run);
    mcp_tests::define_batch_peer_checks!(, aw_sync);
    mcp_tests::all_batch_peer_checks!(run);
    mcp_tests::define_catalog_peer_checks!(, aw_sync);
    mcp_tests::all_catalog_peer_checks!(run);
    mcp_tests::define_deprecation_peer_checks!(, aw_sync);
    mcp_tests::all_deprecation_peer_checks!(run);
    mcp_tests::define_oversize_peer_checks!(, aw_sync);
    mcp_tests::all_oversize_peer_checks!(run);
    #[cfg(feature = "oauth")]
    mcp_tests::define_oauth_peer_checks!(, aw_sync);
    #[cfg(feature = "oauth")]
    mcp_tests::all_oauth_peer_checks!(run);
}

/// The locating rule itself: `$MCP_PEERS` wins, and a missing peer panics with the fix.
#[test]
fn missing_peer_fails_with_setup_instructions() {
    let message = std::panic::catch_unwind(|| mcp_tests::support::peer_command("no-such-peer"))
        .expect_err("a missing peer must fail")
        .downcast::<String>()
        .expect("a formatted panic message");
    assert!(message.contains("bash peers/setup.sh"), "{message}");
}
