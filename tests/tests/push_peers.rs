//! Push against real peers (`mcp_tests::define_push_peer_checks!`) on mcp-tokio, mcp-smol and
//! mcp-blocking: listen streams on the 2026-07-28 peers, the refusal of a peer without them,
//! and legacy resource subscriptions. The peers come from `peers/setup.sh`; a missing one fails.

mod on_tokio {
    mod rt {
        pub use mcp_tokio::{Client, ClientBuilder};

        pub fn build(builder: ClientBuilder) -> Result<Client, mcp_tokio::ClientError> {
            builder.build(mcp_tokio::TokioRuntime::current())
        }

        pub async fn sleep(d: std::time::Duration) {
            tokio::time::sleep(d).await;
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

    mcp_tests::define_push_peer_checks!(async, aw_async);
    mcp_tests::all_push_peer_checks!(run);
}

mod on_smol {
    mod rt {
        pub use mcp_smol::{Client, ClientBuilder};

        pub fn build(builder: ClientBuilder) -> Result<Client, mcp_smol::ClientError> {
            builder.build(mcp_smol::SmolRuntime::new())
        }

        pub async fn sleep(d: std::time::Duration) {
            smol::Timer::after(d).await;
        }
    }

    fn run<F: std::future::Future<Output = ()>>(check: impl FnOnce() -> F) {
        smol::block_on(check());
    }

    mcp_tests::define_push_peer_checks!(async, aw_async);
    mcp_tests::all_push_peer_checks!(run);
}

mod on_blocking {
    mod rt {
        pub use mcp_blocking::{Client, ClientBuilder};

        pub fn build(builder: ClientBuilder) -> Result<Client, mcp_blocking::ClientError> {
            builder.build()
        }

        pub fn sleep(d: std::time::Duration) {
            std::thread::sleep(d);
        }
    }

    fn run(check: impl FnOnce()) {
        check();
    }

    mcp_tests::define_push_peer_checks!(, aw_sync);
    mcp_tests::all_push_peer_checks!(run);
}
