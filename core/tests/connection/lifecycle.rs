//! The process lifecycle: crashes, restarts, epochs, spawn failure, close and its escalation.

use serde_json::json;

use super::harness::*;
use mcpwire_core::{CommandError, Event, ExitInfo, Io, ProtocolMode, Request, RequestError, Response};

/// A modern connection with one tool call in flight.
fn busy() -> (Harness, mcpwire_core::RequestHandle) {
    let mut h = Harness::auto();
    h.connect_modern();
    let r = h.request(call("t", json!({})));
    h.expect_sent("tools/call");
    (h, r)
}

fn transport_detail(e: &RequestError) -> &str {
    match e {
        RequestError::TransportClosed { detail, .. } => detail,
        other => panic!("expected TransportClosed, got {other:?}"),
    }
}

/// After a loss: the next request starts a new epoch and probes again.
fn assert_restarts(h: &mut Harness) {
    let old = h.epoch.unwrap();
    assert_eq!(h.conn.current_epoch(), None);
    assert_eq!(h.conn.era(), None);
    let r = h.request(Request::ListTools);
    let new = h.start();
    assert!(new > old);
    h.modern_handshake(discover_ok());
    let list = h.expect_sent("tools/list");
    h.reply(&list, tools_page(&["t"], None));
    h.ok(r);
    // Input still tagged with the old epoch is ignored.
    h.stdout_from(old, b"{\"jsonrpc\":\"2.0\",\"method\":\"x\"}\n");
    h.conn.handle_stderr(h.now, old, b"old\n");
    h.exited_epoch(old, exit_code(1));
    h.conn.handle_process_started(h.now, old);
    h.conn.handle_stdout_eof(h.now, old);
    h.advance(ms(1));
    h.assert_quiet();
    assert_eq!(h.conn.current_epoch(), Some(new));
    h.assert_all_answered();
}

#[test]
fn exit_then_eof_fails_in_flight_requests_with_status_and_stderr() {
    let (mut h, r) = busy();
    h.stderr(b"starting\nfatal: out of cheese\n");
    assert_eq!(
        h.events(),
        vec![Event::Stderr("starting".into()), Event::Stderr("fatal: out of cheese".into())]
    );
    h.exited(exit_code(3));
    assert!(!h.has_response(r), "stdout may still hold the last messages");
    assert_eq!(h.next_timer_in(), Some(ms(200)));
    h.eof();
    let e = h.err(r);
    let d = transport_detail(&e);
    assert!(d.contains("exit code 3"), "{d}");
    assert!(d.contains("starting") && d.contains("out of cheese"), "{d}");
    assert!(e.is_transport());
    assert_eq!(h.take_disconnected(), e);
    assert!(h.io().is_empty(), "an exited process is not reaped");
    assert_eq!(h.next_timer_in(), None);
    assert_restarts(&mut h);
}

#[test]
fn eof_then_exit_fails_in_flight_requests() {
    let (mut h, r) = busy();
    h.eof();
    assert!(!h.has_response(r));
    assert_eq!(h.next_timer_in(), Some(ms(200)));
    h.exited(ExitInfo { code: None, signal: Some(9) });
    let e = h.err(r);
    assert!(transport_detail(&e).contains("signal 9"), "{e}");
    assert!(!transport_detail(&e).contains("stderr"), "no stderr, no tail");
    h.take_disconnected();
    assert!(h.io().is_empty());
    assert_eq!(h.next_timer_in(), None);
    assert_restarts(&mut h);
}

#[test]
fn exit_without_eof_ends_after_the_drain() {
    let (mut h, r) = busy();
    h.exited(exit_code(0));
    h.advance(ms(199));
    assert!(!h.has_response(r));
    // The last line still counts.
    h.server_says(json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"data": "bye"}}));
    assert_eq!(h.events().len(), 1);
    h.advance(ms(1));
    assert!(transport_detail(&h.err(r)).contains("exit code 0"));
    h.take_disconnected();
    assert!(h.io().is_empty());
    assert_restarts(&mut h);
}

#[test]
fn eof_without_exit_reaps_the_process_after_the_drain() {
    let (mut h, r) = busy();
    let epoch = h.epoch.unwrap();
    h.eof();
    h.advance(ms(200));
    let e = h.err(r);
    assert!(transport_detail(&e).contains("closed its stdout"), "{e}");
    h.take_disconnected();
    assert_eq!(h.io(), vec![Io::CloseStdin { epoch }]);
    assert_eq!(h.fire_next_timer(), secs(2));
    assert_eq!(h.io(), vec![Io::Terminate { epoch, force: false }]);
    h.exited_epoch(epoch, exit_code(143));
    assert_eq!(h.next_timer_in(), None);
    h.assert_quiet();
    assert_restarts(&mut h);
}

#[test]
fn the_final_unterminated_line_is_read_at_eof() {
    let (mut h, r) = busy();
    h.stdout(br#"{"jsonrpc":"2.0","id":2,"result":{"content":[]}}"#);
    assert!(!h.has_response(r));
    h.eof();
    h.ok(r);
}

#[test]
fn a_crash_drops_caches_server_requests_and_log_level() {
    let mut h = Harness::auto();
    h.connect_legacy_with("2025-11-25", json!({"tools": {"listChanged": true}}));
    let r = h.request(Request::ListTools);
    let p = h.expect_sent("tools/list");
    h.reply(&p, tools_page(&["a"], None));
    h.ok(r);
    assert!(h.conn.known_tools().is_some());
    h.exited(exit_code(1));
    h.eof();
    h.take_disconnected();
    assert_eq!(h.conn.known_tools(), None);
    // The list is fetched from the new process.
    h.request(Request::ListTools);
    h.start();
    h.legacy_handshake("2025-11-25", json!({"tools": {"listChanged": true}}));
    h.expect_sent("tools/list");
}

#[test]
fn stderr_tail_is_bounded() {
    let mut h = Harness::with(ProtocolMode::Auto, |c| c.limits.stderr_tail_lines = 2);
    h.connect_modern();
    let r = h.request(call("t", json!({})));
    h.expect_sent("tools/call");
    h.stderr(b"one\ntwo\nthree\n");
    h.events();
    h.exited(exit_code(1));
    h.eof();
    let e = h.err(r);
    let d = transport_detail(&e);
    assert!(!d.contains("one") && d.contains("two") && d.contains("three"), "{d}");
}

#[test]
fn spawn_failure_fails_queued_requests() {
    let mut h = Harness::auto();
    let a = h.request(Request::ListTools);
    let b = h.request(call("t", json!({})));
    let epoch = h.take_spawn();
    let missing = || std::io::Error::new(std::io::ErrorKind::NotFound, "No such file or directory");
    h.conn.handle_spawn_failed(h.now, epoch, missing());
    h.advance(ms(0));
    let e = h.err(a);
    assert!(
        matches!(&e, RequestError::Spawn { detail, .. } if detail == "fake-server: No such file or directory")
    );
    // The operating system's error is kept, as the source and through the accessor.
    assert_eq!(e.io_error().map(std::io::Error::kind), Some(std::io::ErrorKind::NotFound));
    let source = std::error::Error::source(&e).expect("a source");
    assert_eq!(source.to_string(), "No such file or directory");
    assert_eq!(h.err(b), e);
    assert!(e.is_transport());
    assert_eq!(h.take_disconnected(), e);
    h.assert_quiet();
    assert_eq!(h.next_timer_in(), None);
    // A stale report for that epoch changes nothing; the next request tries again.
    h.conn.handle_process_started(h.now, epoch);
    h.advance(ms(0));
    h.assert_quiet();
    h.request(Request::ListTools);
    let again = h.take_spawn();
    assert!(again > epoch);
}

#[test]
fn stderr_before_the_start_is_confirmed_is_kept() {
    let mut h = Harness::auto();
    h.request(Request::Connect);
    let epoch = h.take_spawn();
    h.conn.handle_stderr(h.now, epoch, b"early\n");
    h.advance(ms(0));
    assert_eq!(h.events(), vec![Event::Stderr("early".into())]);
}

// ----- close --------------------------------------------------------------------------------

#[test]
fn close_fails_pending_requests_and_escalates_until_exit() {
    let mut h = Harness::auto();
    h.connect_modern();
    let sent_h = h.request(call("t", json!({})));
    let msg = h.expect_sent("tools/call");
    let epoch = h.epoch.unwrap();
    h.close();
    assert_eq!(h.err(sent_h), RequestError::Closed);
    assert!(!h.conn.is_closed());
    // The sent request is withdrawn, then stdin closes.
    let io = h.io();
    assert_eq!(io.len(), 2, "{io:?}");
    let Io::Write { bytes, .. } = &io[0] else { panic!("{io:?}") };
    let c: serde_json::Value = serde_json::from_slice(bytes).unwrap();
    assert_eq!(c["method"], json!("notifications/cancelled"));
    assert_eq!(c["params"]["requestId"], msg["id"]);
    assert_eq!(io[1], Io::CloseStdin { epoch });

    // Commands are refused from now on.
    assert_eq!(h.try_request(Request::ListTools, Default::default()), Err(CommandError::Closed));
    assert!(!h.cancel(sent_h));

    assert_eq!(h.fire_next_timer(), secs(2));
    assert_eq!(h.io(), vec![Io::Terminate { epoch, force: false }]);
    h.advance(secs(1));
    h.exited_epoch(epoch, ExitInfo { code: None, signal: Some(15) });
    assert_eq!(h.events(), vec![Event::Closed]);
    assert!(h.conn.is_closed());
    assert_eq!(h.next_timer_in(), None);
    h.close();
    h.assert_quiet();
    assert_eq!(h.try_request(Request::Connect, Default::default()), Err(CommandError::Closed));
    h.assert_all_answered();
}

#[test]
fn close_gives_up_after_the_kill_grace() {
    let mut h = Harness::auto();
    h.connect_modern();
    let epoch = h.epoch.unwrap();
    h.close();
    assert_eq!(h.io(), vec![Io::CloseStdin { epoch }]);
    h.fire_next_timer();
    assert_eq!(h.io(), vec![Io::Terminate { epoch, force: false }]);
    h.fire_next_timer();
    assert_eq!(h.io(), vec![Io::Terminate { epoch, force: true }]);
    assert!(h.events().is_empty());
    assert_eq!(h.fire_next_timer(), secs(2));
    assert_eq!(h.events(), vec![Event::Closed]);
    assert_eq!(h.elapsed(), secs(6));
    assert_eq!(h.next_timer_in(), None);
    // A late exit report is harmless.
    h.exited_epoch(epoch, exit_code(0));
    h.assert_quiet();
}

#[test]
fn close_before_the_process_started() {
    let mut h = Harness::auto();
    let r = h.request(Request::ListTools);
    let epoch = h.take_spawn();
    h.close();
    assert_eq!(h.err(r), RequestError::Closed);
    h.assert_quiet();
    assert!(!h.conn.is_closed(), "waits for the spawn outcome");
    // The process comes up: it is told to go at once, and nothing is sent to it.
    h.started(epoch);
    assert_eq!(h.io(), vec![Io::CloseStdin { epoch }]);
    h.stdout(b"{\"jsonrpc\":\"2.0\",\"method\":\"x\"}\n");
    h.assert_quiet();
    h.exited(exit_code(0));
    assert_eq!(h.events(), vec![Event::Closed]);
}

#[test]
fn close_before_a_spawn_that_fails() {
    let mut h = Harness::auto();
    h.request(Request::ListTools);
    let epoch = h.take_spawn();
    h.close();
    h.events();
    h.conn.handle_spawn_failed(h.now, epoch, std::io::ErrorKind::PermissionDenied.into());
    h.advance(ms(0));
    assert_eq!(h.events(), vec![Event::Closed]);
    h.assert_quiet();
}

#[test]
fn close_without_a_process_is_immediate() {
    let mut h = Harness::auto();
    h.close();
    assert_eq!(h.events(), vec![Event::Closed]);
    assert!(h.conn.is_closed());
    h.assert_quiet();
    assert_eq!(h.next_timer_in(), None);
}

#[test]
fn close_after_the_process_exited_does_not_reap_it() {
    let (mut h, r) = busy();
    h.exited(exit_code(0));
    h.close();
    assert_eq!(h.err(r), RequestError::Closed);
    assert_eq!(h.events(), vec![Event::Closed]);
    // The process is gone: it is not reaped (a best-effort cancellation may still be written;
    // the runtime skips writes to a process that exited).
    let io = h.io();
    assert!(io.iter().all(|i| matches!(i, Io::Write { .. })), "{io:?}");
    assert_eq!(h.next_timer_in(), None);
}

#[test]
fn close_waits_for_an_older_process_being_reaped() {
    let mut h = Harness::legacy_mode();
    let a = h.request(Request::ListTools);
    let first = h.start();
    let init = h.expect_sent("initialize");
    h.reply(&init, init_result("1.0", json!({})));
    h.err(a);
    h.take_disconnected();
    assert_eq!(h.io(), vec![Io::CloseStdin { epoch: first }]);
    h.close();
    assert!(h.events().is_empty(), "the first process is still going away");
    h.exited_epoch(first, exit_code(0));
    assert_eq!(h.events(), vec![Event::Closed]);
}

#[test]
fn close_drops_pending_server_requests() {
    let mut h = Harness::with(ProtocolMode::Auto, |c| c.features.roots = true);
    h.connect_legacy();
    h.server_says(json!({"jsonrpc": "2.0", "id": 7, "method": "roots/list"}));
    let Some(Event::ServerRequest { handle, .. }) = h.events().pop() else { panic!() };
    h.close();
    h.events();
    assert!(!h.respond(handle, Ok(json!({"roots": []}))));
    let io = h.io();
    assert!(io.iter().all(|i| !matches!(i, Io::Write { .. })), "{io:?}");
}

// ----- time ---------------------------------------------------------------------------------

#[test]
fn time_never_runs_backwards_and_early_timer_calls_are_harmless() {
    let (mut h, r) = busy();
    // Early and repeated calls fire nothing.
    h.conn.handle_timeout(h.now);
    h.conn.handle_timeout(h.now);
    h.advance(secs(30));
    h.assert_quiet();
    // An earlier `now` than before counts as the latest seen: a deadline is counted from t = 30 s.
    let earlier = h.t0;
    h.conn.handle_timeout(earlier);
    let opts = mcpwire_core::RequestOptions::default().timeout(secs(10));
    let late = h.conn.request(earlier, Request::Ping, opts).unwrap();
    h.advance(ms(0));
    h.expect_sent("server/discover");
    h.advance(ms(9999));
    assert!(!h.has_response(late));
    h.advance(ms(1));
    assert!(matches!(h.err(late), RequestError::Timeout { .. }));
    h.expect_sent("notifications/cancelled");
    h.advance(secs(20));
    assert!(matches!(h.err(r), RequestError::Timeout { .. }));
    h.expect_sent("notifications/cancelled");
}

#[test]
fn the_next_deadline_is_the_earliest() {
    let mut h = Harness::auto();
    h.connect_modern();
    h.request_opts(call("a", json!({})), mcpwire_core::RequestOptions::default().timeout(secs(9)));
    h.request_opts(call("b", json!({})), mcpwire_core::RequestOptions::default().timeout(secs(3)));
    h.sent();
    assert_eq!(h.next_timer_in(), Some(secs(3)));
    h.advance(secs(3));
    assert_eq!(h.next_timer_in(), Some(secs(6)));
    assert!(h.conn.poll_timeout_reason().is_some());
}

#[test]
fn connect_after_a_restart_reports_the_new_server() {
    let (mut h, r) = busy();
    h.exited(exit_code(1));
    h.eof();
    h.err(r);
    h.take_disconnected();
    let c = h.request(Request::Connect);
    h.start();
    let info = h.legacy_handshake("2024-11-05", json!({}));
    assert_eq!(h.ok(c), Response::Connected(Box::new(info)));
}
