//! End-to-end checks of the blocking client against the workspace's test server
//! (`mcp-test-server`, built on first use by `mcp_tests::support::test_server`).

use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use mcpwire_blocking::RouteError;
use mcpwire_blocking::{CancelToken, Client, ClientError, Event, RequestOptions, ServerSpec};
use mcpwire_blocking::{Era, Request, RequestError};
use serde_json::json;

fn target(protocol: &str) -> String {
    format!("{} --protocol {protocol}", mcp_tests::support::test_server())
}

fn spec(name: &str, protocol: &str) -> ServerSpec {
    ServerSpec::from_target(name, &target(protocol)).unwrap()
}

#[test]
fn modern_and_legacy_connect_list_and_echo() {
    for (proto, era) in [("modern", Era::Modern), ("2025-06-18", Era::Legacy), ("2024-11-05", Era::Legacy)] {
        let client = mcpwire_blocking::connect(&target(proto)).unwrap();
        let server = &client.servers()[0];
        let info = server.info().expect("connected");
        assert_eq!(info.era, era, "{proto}");
        let tools = client.list_tools().send().into_result().unwrap();
        assert!(tools.iter().any(|t| t.tool.name == "echo"), "{proto}: {tools:?}");
        assert!(server.known_tools().is_some());
        let r = client.call_tool("echo", json!({"message": "hi"})).send().unwrap();
        assert!(r.text().contains("hi"), "{proto}: {}", r.text());
        server.ping().send().unwrap();
        client.close().send();
        assert!(server.info().is_none());
        assert!(matches!(server.list_tools().send(), Err(ClientError::Closed)));
    }
}

#[test]
fn progress_callback() {
    let client = mcpwire_blocking::connect(&target("modern")).unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    let r = client.servers()[0]
        .call_tool("progress", json!({"steps": 3, "delayMs": 5}))
        .on_progress(move |p| sink.lock().unwrap().push(p))
        .send()
        .unwrap();
    assert_eq!(r.text(), "done 3");
    let seen = seen.lock().unwrap();
    let figures: Vec<_> = seen.iter().map(|p| (p.progress, p.total)).collect();
    assert_eq!(figures, [(1.0, Some(3.0)), (2.0, Some(3.0)), (3.0, Some(3.0))]);
    client.close().send();
}

#[test]
fn request_timeout_then_server_still_usable() {
    let client = mcpwire_blocking::connect(&target("2025-11-25")).unwrap();
    let server = &client.servers()[0];
    let opts = RequestOptions::default().timeout(Duration::from_millis(200));
    let t0 = Instant::now();
    let err = server.call_tool("slow", json!({"ms": 5000})).options(opts).send().unwrap_err();
    assert!(matches!(err, ClientError::Request(RequestError::Timeout { .. })), "{err:?}");
    assert!(t0.elapsed() < Duration::from_secs(3), "{:?}", t0.elapsed());
    assert!(server.call_tool("echo", json!({"message": "after"})).send().unwrap().text().contains("after"));
    client.close().send();
}

#[test]
fn cancel_token_ends_a_blocked_call() {
    let client = mcpwire_blocking::connect(&target("modern")).unwrap();
    let server = client.servers()[0].clone();
    let token = CancelToken::new();
    let canceller = {
        let token = token.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            token.cancel();
        })
    };
    let t0 = Instant::now();
    let call = Request::CallTool { name: "slow".into(), arguments: json!({"ms": 5000}) };
    let err = server.request(call.clone()).cancel_token(&token).send().unwrap_err();
    assert_eq!(err, ClientError::Request(RequestError::Cancelled));
    assert!(t0.elapsed() < Duration::from_secs(3));
    canceller.join().unwrap();
    // A cancelled token refuses at once.
    let err = server.request(call).cancel_token(&token).send().unwrap_err();
    assert_eq!(err, ClientError::Request(RequestError::Cancelled));
    server.ping().send().unwrap();
    client.close().send();
}

#[test]
fn crash_then_next_call_restarts() {
    let client = mcpwire_blocking::connect(&target("modern")).unwrap();
    let err = client.call_tool("crash", json!({"code": 3})).send().unwrap_err();
    match &err {
        ClientError::Request(e) => assert!(e.is_transport(), "{e:?}"),
        other => panic!("{other:?}"),
    }
    assert!(client.servers()[0].info().is_none());
    let r = client.call_tool("echo", json!({"message": "back"})).send().unwrap();
    assert!(r.text().contains("back"));
    assert!(client.servers()[0].info().is_some());
    client.close().send();
}

#[test]
fn legacy_elicitation_round_trip() {
    let client = Client::builder()
        .server(spec("legacy", "2025-06-18"))
        .elicitation_handler(|req: mcpwire_blocking::ElicitationRequest| {
            assert_eq!(&*req.server, "legacy");
            assert!(!req.message.is_empty());
            Ok(mcpwire_blocking::ElicitResult::accept(json!({"name": "Ada"})))
        })
        .build()
        .unwrap();
    let r = client.call_tool("elicit", json!({})).send().unwrap();
    assert_eq!(r.text(), r#"elicitation: accept {"name":"Ada"}"#);
    client.close().send();
}

#[test]
fn roots_handler_and_missing_handler() {
    let client = Client::builder()
        .server(spec("legacy", "2025-11-25"))
        .roots_handler(|_: mcpwire_blocking::RootsListRequest| {
            Ok(vec![mcpwire_blocking::Root::named("file:///tmp", "tmp")])
        })
        .build()
        .unwrap();
    let r = client.call_tool("roots", json!({})).send().unwrap();
    assert!(r.text().contains("file:///tmp"), "{}", r.text());
    // No sampling handler: the server gets an error, the client carries on.
    let r = client.call_tool("sample", json!({})).send().unwrap();
    assert!(r.text().starts_with("sampling:"), "{}", r.text());
    client.close().send();
}

#[test]
fn routing_between_servers() {
    let client =
        Client::builder().server(spec("a", "modern")).server(spec("b", "2025-06-18")).build().unwrap();
    assert_eq!(client.connect().send().into_result().unwrap().len(), 2);
    // `elicit` only exists on the legacy server.
    let found = client.find_tool("elicit").send().unwrap().expect("routed");
    assert_eq!(found.server, "b");
    assert!(client.find_tool("nope").send().unwrap().is_none());
    let err = client.call_tool("echo", json!({"message": "x"})).send().unwrap_err();
    assert!(matches!(err, ClientError::Route(RouteError::Ambiguous { .. })), "{err:?}");
    assert!(client
        .call_tool("echo", json!({"message": "x"}))
        .server("a")
        .send()
        .unwrap()
        .text()
        .contains('x'));
    let err = client.call_tool("echo", json!({})).server("c").send().unwrap_err();
    assert!(matches!(err, ClientError::Route(RouteError::UnknownServer(_))));
    assert_eq!(
        client.list_tools().send().into_result().unwrap().iter().filter(|t| t.tool.name == "echo").count(),
        2
    );
    client.close().send();
}

#[test]
fn builder_validation_and_spawn_failure() {
    assert!(matches!(Client::builder().build(), Err(ClientError::Config(_))));
    let dup = Client::builder().server(spec("x", "modern")).server(spec("x", "modern")).build();
    assert!(matches!(dup, Err(ClientError::Config(_))));
    let err = mcpwire_blocking::connect("/nonexistent/mcp-server-binary").unwrap_err();
    assert!(matches!(err, ClientError::Request(RequestError::Spawn { .. })), "{err:?}");
}

#[test]
fn dropping_the_last_handle_closes_the_server() {
    let (tx, rx) = mpsc::channel();
    let tx = Mutex::new(tx);
    let client = Client::builder()
        .server(spec("s", "modern"))
        .on_event(move |_, ev| {
            if matches!(ev, Event::Closed) {
                let _ = tx.lock().unwrap().send(());
            }
        })
        .build()
        .unwrap();
    let server = client.servers()[0].clone();
    server.connect().send().unwrap();
    drop(client);
    // A Server handle keeps it open.
    assert!(rx.recv_timeout(Duration::from_millis(200)).is_err());
    server.ping().send().unwrap();
    drop(server);
    rx.recv_timeout(Duration::from_secs(10)).expect("closed after the last handle is dropped");
}

#[cfg(unix)]
#[test]
fn close_escalates_to_kill_for_a_stubborn_process() {
    use mcpwire_blocking::StdioCommand;
    let pid_file = std::env::temp_dir().join(format!("mcp-blocking-stubborn-{}", std::process::id()));
    let script = format!("echo $$ > {}; trap '' TERM; while :; do sleep 0.05; done", pid_file.display());
    let mut spec = ServerSpec::stdio("stubborn", StdioCommand::new("sh").args(["-c", &script]))
        .shutdown_grace(Duration::from_millis(100));
    spec.config.timeouts.terminate_grace = Duration::from_millis(100);
    let client = Client::builder().server(spec).build().unwrap();
    let server = &client.servers()[0];
    // It never answers: the request times out while the process keeps running.
    let opts = RequestOptions::default().timeout(Duration::from_millis(300));
    let err = server.request(Request::Ping).options(opts).send().unwrap_err();
    assert!(matches!(err, ClientError::Request(RequestError::Timeout { .. })), "{err:?}");
    let pid = std::fs::read_to_string(&pid_file).unwrap().trim().to_owned();
    let _ = std::fs::remove_file(&pid_file);
    assert!(std::path::Path::new(&format!("/proc/{pid}")).exists() || !cfg!(target_os = "linux"));
    let t0 = Instant::now();
    client.close().send();
    assert!(t0.elapsed() < Duration::from_secs(5), "{:?}", t0.elapsed());
    if cfg!(target_os = "linux") {
        assert!(!std::path::Path::new(&format!("/proc/{pid}")).exists(), "process {pid} outlived close");
    }
}

#[test]
fn handles_are_clone_send_sync() {
    fn check<T: Clone + Send + Sync + 'static>() {}
    check::<Client>();
    check::<mcpwire_blocking::Server>();
    check::<CancelToken>();
}
