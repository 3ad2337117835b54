//! The blocking client's calls over HTTP, which run their exchange on the calling thread:
//! a call whose server never answers still ends by its timeout or its cancel token (the
//! exchange's socket is shut down under the caller), a response stream the server leaves
//! open after the response does not hold the caller, and calls from many threads at once
//! each get their own answer.

#![cfg(feature = "http")]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp_tests::support::scripted_http::ScriptedHttpServer;
use mcp_tests::support::scripted_http::{
    call_stream_server as reply, message_call as call, result_text as text_of,
};
use mcpwire_blocking::{CancelToken, Client, HttpClientConfig, ProxySetting, ServerSpec};
use mcpwire_blocking::{ClientError, RequestError, RequestOptions};

fn connect(server: &ScriptedHttpServer) -> Client {
    let spec = ServerSpec::from_target("scripted", &server.url("/mcp")).expect("a target");
    let http = HttpClientConfig::default().proxy(ProxySetting::None);
    let client = Client::builder().http_client(http).server(spec).build().expect("build");
    client.connect().send().into_result().expect("connect");
    client
}

/// `hang` pings every 50 ms; `flood` writes without pause (the caller's reads are never short
/// of bytes): the timeout shuts the exchange's socket under the caller either way.
#[test]
fn a_call_whose_server_never_answers_ends_by_its_timeout() {
    for tool in ["hang", "flood"] {
        let server = ScriptedHttpServer::start(reply);
        let client = connect(&server);
        let opts = RequestOptions::default().timeout(Duration::from_millis(300));
        let started = Instant::now();
        let r = client.servers()[0].request(call(tool, "")).options(opts).send();
        assert!(matches!(r, Err(ClientError::Request(RequestError::Timeout { .. }))), "{tool}: got {r:?}");
        assert!(started.elapsed() < Duration::from_secs(5), "{tool}: took {:?}", started.elapsed());
        assert!(
            !server.wait_closed_by_peer(Duration::from_secs(5)).is_empty(),
            "{tool}: the stream was closed"
        );
        let echo = client.servers()[0].request(call("echo", "after"));
        assert_eq!(text_of(echo.send()), "after");
        client.close().send();
    }
}

#[test]
fn a_cancel_token_ends_a_call_running_on_the_callers_thread() {
    let server = ScriptedHttpServer::start(reply);
    let client = connect(&server);
    let token = CancelToken::new();
    let canceller = {
        let token = token.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            token.cancel();
        })
    };
    let started = Instant::now();
    let r = client.servers()[0].request(call("hang", "")).cancel_token(&token).send();
    canceller.join().expect("the canceller");
    assert!(matches!(r, Err(ClientError::Request(RequestError::Cancelled))), "got {r:?}");
    assert!(started.elapsed() < Duration::from_secs(5), "took {:?}", started.elapsed());
    assert!(!server.wait_closed_by_peer(Duration::from_secs(5)).is_empty(), "the stream was closed");
    client.close().send();
}

#[test]
fn a_stream_left_open_after_the_response_does_not_hold_the_caller() {
    let server = ScriptedHttpServer::start(reply);
    let client = connect(&server);
    let started = Instant::now();
    let r = client.servers()[0].request(call("open", ""));
    assert_eq!(text_of(r.send()), "early");
    assert!(started.elapsed() < Duration::from_secs(5), "took {:?}", started.elapsed());
    assert!(!server.wait_closed_by_peer(Duration::from_secs(5)).is_empty(), "the stream was closed");
    client.close().send();
}

#[test]
fn calls_from_many_threads_each_get_their_own_answer() {
    let server = ScriptedHttpServer::start(reply);
    let client = connect(&server);
    let answered = Arc::new(AtomicUsize::new(0));
    std::thread::scope(|scope| {
        // One call that never ends until its timeout holds up nobody.
        let hung = scope.spawn(|| {
            let opts = RequestOptions::default().timeout(Duration::from_secs(2));
            client.servers()[0].request(call("hang", "")).options(opts)
        });
        for thread in 0..8 {
            let (client, answered) = (&client, answered.clone());
            scope.spawn(move || {
                for i in 0..25 {
                    let message = format!("t{thread}-{i}");
                    let r = client.servers()[0].request(call("echo", &message));
                    assert_eq!(text_of(r.send()), message);
                    answered.fetch_add(1, Ordering::SeqCst);
                }
            });
        }
        let r = hung.join().expect("the hung caller").send();
        assert!(matches!(r, Err(ClientError::Request(RequestError::Timeout { .. }))), "got {r:?}");
    });
    assert_eq!(answered.load(Ordering::SeqCst), 200);
    let tool_calls = server.requests().iter().filter(|r| r.json()["method"] == "tools/call").count();
    assert_eq!(tool_calls, 201, "each call went out once");
    client.close().send();
}
