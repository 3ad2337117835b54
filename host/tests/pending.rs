//! The shared runtime bookkeeping of `mcpwire_host`, driven against a real `Connection`.
//! This test plays the runtime, so it reads the clock.
#![allow(clippy::disallowed_methods)]

use std::time::Instant;

use mcpwire_core::{
    ClientError, CommandError, Connection, ConnectionConfig, Request, RequestOptions, StdioCommand,
};
use mcpwire_host::{CloseWaiters, PendingCalls};
use serde_json::json;

fn conn() -> (Connection, std::time::Instant) {
    let now = Instant::now();
    (Connection::new(ConnectionConfig::stdio(StdioCommand::new("x")), now), now)
}

#[test]
fn start_records_accepted_calls_and_hands_back_refused_ones() {
    let (mut c, now) = conn();
    let mut p = PendingCalls::default();
    p.start(&mut c, now, 1, Request::ListTools, RequestOptions::default(), "ok").unwrap();
    assert_eq!(p.len(), 1);
    let bad = Request::CallTool { name: "t".into(), arguments: json!([1]) };
    let (back, err) = p.start(&mut c, now, 2, bad, RequestOptions::default(), "bad").unwrap_err();
    assert_eq!(back, "bad");
    assert!(matches!(err, ClientError::Command(CommandError::InvalidArgument(_))));
    assert_eq!(p.len(), 1);
}

#[test]
fn close_waiters_wait_for_closed_unless_already_closed() {
    let (mut c, now) = conn();
    let mut w = CloseWaiters::default();
    // No process was ever started: closing completes at once.
    assert_eq!(w.close(&mut c, now, 1), None);
    assert!(c.is_closed());
    assert_eq!(w.release().collect::<Vec<_>>(), vec![1]);
    assert_eq!(w.close(&mut c, now, 2), Some(2));
}

#[test]
fn pending_calls_by_call_and_handle() {
    let (mut c, now) = conn();
    let h1 = c.request(now, Request::ListTools, RequestOptions::default()).unwrap();
    let h2 = c.request(now, Request::ListPrompts, RequestOptions::default()).unwrap();
    let mut p = PendingCalls::default();
    p.insert(7, h1, "x");
    assert_eq!(p.get(h1), Some(&"x"));
    assert_eq!(p.handle_of(7), Some(h1));
    assert_eq!(p.cancel(7), Some(h1));
    assert!(p.is_empty() && p.get(h1).is_none());
    p.insert(8, h2, "y");
    assert_eq!(p.take(h2), Some("y"));
    assert_eq!(p.cancel(8), None);
}
