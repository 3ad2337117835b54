//! The async client's calls over HTTP, whose exchange the caller's own future polls: a call
//! whose server never answers still ends by its timeout, a dropped call future closes its
//! exchange (the cancellation) and leaves the server usable, a response stream left open
//! after the response does not hold the caller, and concurrent calls each get their own
//! answer. On tokio (multi-thread) and smol.

#![cfg(feature = "http")]

use std::time::{Duration, Instant};

use mcp_tests::support::scripted_http::{
    call_stream_server, message_call as call, result_text as text_of, ScriptedHttpServer,
};
use mcpwire_core::{ClientError, RequestError, RequestOptions, ServerSpec};

fn spec(server: &ScriptedHttpServer) -> ServerSpec {
    ServerSpec::from_target("scripted", &server.url("/mcp")).expect("a target")
}

fn timeout_after(ms: u64) -> RequestOptions {
    RequestOptions::default().timeout(Duration::from_millis(ms))
}

fn is_timeout<T: std::fmt::Debug>(r: &Result<T, ClientError>) -> bool {
    matches!(r, Err(ClientError::Request(RequestError::Timeout { .. })))
}

fn tool_calls(server: &ScriptedHttpServer) -> usize {
    server.requests().iter().filter(|r| r.json()["method"] == "tools/call").count()
}

/// The scenarios, for a runtime given as `block_on`, `sleep`, `spawn` + `join` and `client`.
macro_rules! scenarios {
    ($runtime:ident, $block_on:expr, $sleep:expr, $spawn:expr, $join:expr, $client:expr) => {
        mod $runtime {
            use super::*;

            /// `hang` pings every 50 ms; `flood` writes without pause, which holds the caller's
            /// executor no longer than one 64 KiB stretch at a time.
            #[test]
            fn a_call_whose_server_never_answers_ends_by_its_timeout() {
                for tool in ["hang", "flood"] {
                    let server = ScriptedHttpServer::start(call_stream_server);
                    $block_on(async {
                        let client = $client(spec(&server)).await;
                        let started = Instant::now();
                        let r = client.servers()[0].request(call(tool, "")).options(timeout_after(300)).await;
                        assert!(is_timeout(&r), "{tool}: got {r:?}");
                        assert!(
                            started.elapsed() < Duration::from_secs(5),
                            "{tool}: took {:?}",
                            started.elapsed()
                        );
                        assert!(!server.wait_closed_by_peer(Duration::from_secs(5)).is_empty(), "{tool}");
                        let echo = client.servers()[0].request(call("echo", "after"));
                        assert_eq!(text_of(echo.await), "after");
                        client.close().await;
                    });
                }
            }

            #[test]
            fn a_dropped_call_closes_its_exchange() {
                let server = ScriptedHttpServer::start(call_stream_server);
                $block_on(async {
                    let client = $client(spec(&server)).await;
                    let hung = client.servers()[0].request(call("hang", ""));
                    let sleep = async {
                        $sleep(Duration::from_millis(200)).await;
                        None
                    };
                    let raced = futures_lite::future::or(async { Some(hung.await) }, sleep).await;
                    assert!(raced.is_none(), "the hung call answered: {raced:?}");
                    assert!(!server.wait_closed_by_peer(Duration::from_secs(5)).is_empty());
                    let echo = client.servers()[0].request(call("echo", "after"));
                    assert_eq!(text_of(echo.await), "after");
                    client.close().await;
                });
            }

            #[test]
            fn a_stream_left_open_after_the_response_does_not_hold_the_caller() {
                let server = ScriptedHttpServer::start(call_stream_server);
                $block_on(async {
                    let client = $client(spec(&server)).await;
                    let started = Instant::now();
                    let r = client.servers()[0].request(call("open", "")).await;
                    assert_eq!(text_of(r), "early");
                    assert!(started.elapsed() < Duration::from_secs(5), "took {:?}", started.elapsed());
                    assert!(!server.wait_closed_by_peer(Duration::from_secs(5)).is_empty());
                    client.close().await;
                });
            }

            #[test]
            fn concurrent_calls_each_get_their_own_answer() {
                let server = ScriptedHttpServer::start(call_stream_server);
                $block_on(async {
                    let client = $client(spec(&server)).await;
                    let hung = {
                        let client = client.clone();
                        $spawn(async move {
                            let r = client.servers()[0]
                                .request(call("hang", ""))
                                .options(timeout_after(2000))
                                .await;
                            assert!(is_timeout(&r), "got {r:?}");
                        })
                    };
                    let callers: Vec<_> = (0..8)
                        .map(|task| {
                            let client = client.clone();
                            $spawn(async move {
                                for i in 0..25 {
                                    let message = format!("t{task}-{i}");
                                    let r = client.servers()[0].request(call("echo", &message)).await;
                                    assert_eq!(text_of(r), message);
                                }
                            })
                        })
                        .collect();
                    for caller in callers {
                        $join(caller).await;
                    }
                    $join(hung).await;
                    assert_eq!(tool_calls(&server), 201, "each call went out once");
                    client.close().await;
                });
            }
        }
    };
}

fn tokio_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("a runtime")
}

async fn tokio_client(spec: ServerSpec) -> mcpwire_tokio::Client {
    let http = mcpwire_tokio::HttpClientConfig::default().proxy(mcpwire_tokio::ProxySetting::None);
    let builder = mcpwire_tokio::Client::builder().http_client(http).server(spec);
    let client = builder.build().expect("build");
    client.connect().await.into_result().expect("connect");
    client
}

async fn smol_client(spec: ServerSpec) -> mcpwire_smol::Client {
    let http = mcpwire_smol::HttpClientConfig::default().proxy(mcpwire_smol::ProxySetting::None);
    let builder = mcpwire_smol::Client::builder().http_client(http).server(spec);
    let client = builder.build().expect("build");
    client.connect().await.into_result().expect("connect");
    client
}

scenarios!(
    on_tokio,
    |f| tokio_runtime().block_on(f),
    tokio::time::sleep,
    tokio::spawn,
    |h: tokio::task::JoinHandle<()>| async move { h.await.expect("a task") },
    tokio_client
);

scenarios!(
    on_smol,
    smol::block_on,
    |d| async move {
        smol::Timer::after(d).await;
    },
    smol::spawn,
    |h: smol::Task<()>| h,
    smol_client
);
