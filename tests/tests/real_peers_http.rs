//! Checks against real MCP servers over HTTP: server-everything (Streamable HTTP with sessions
//! and resumption, HTTP+SSE, and the transport fallback), py-mcp-peer and fastmcp-echo-peer
//! (modern stateless and legacy stateful, HTTP+SSE), ts-v2-peer (both eras). Each check starts
//! its own server on a free loopback port. The checks are written once
//! (`mcp_tests::define_http_peer_checks!`) and run on mcp-tokio and mcp-smol.

macro_rules! all_http_checks {
    ($run:path) => {
        mcp_tests::scenario_tests!(http_peer_checks, $run;
            everything_streamable, everything_sse, everything_fallback_to_sse, py_streamable_modern,
            py_stateless_json_modern, py_ask_name_both_eras, py_streamable_legacy_session, py_sse, fastmcp_streamable_and_sse,
            ts_v2_both_eras);
    };
}

mod on_tokio {
    mod rt {
        pub use mcp_tokio::{build, Client};

        pub fn sync_handler<F>(f: F) -> mcp_tokio::Handler
        where
            F: Fn(&str, mcp_tokio::ServerRequest) -> Result<serde_json::Value, String>
                + Send
                + Sync
                + 'static,
        {
            mcp_tokio::handler(move |server, request| {
                let answer = f(server, request);
                async move { answer }
            })
        }
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
    mcp_tests::define_http_peer_checks!(async, aw_async);
    all_http_checks!(run);
}

mod on_smol {
    mod rt {
        pub use mcp_smol::{build, Client};

        pub fn sync_handler<F>(f: F) -> mcp_smol::Handler
        where
            F: Fn(&str, mcp_smol::ServerRequest) -> Result<serde_json::Value, String> + Send + Sync + 'static,
        {
            mcp_smol::handler(move |server, request| {
                let answer = f(server, request);
                async move { answer }
            })
        }
    }

    fn run<F: std::future::Future<Output = ()>>(check: impl FnOnce() -> F) {
        smol::block_on(check());
    }

    mcp_tests::define_peer_checks!(async, aw_async);
    mcp_tests::define_http_peer_checks!(async, aw_async);
    all_http_checks!(run);
}
