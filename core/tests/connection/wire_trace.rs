//! The wire trace (`ConnectionConfig::wire_trace`): off by default; when on, every message sent
//! and received, process starts and exits, and HTTP requests, status lines and failures, in
//! order, with credentials redacted.

use serde_json::{json, Value};

use mcpwire_core::{HttpMethod, ProtocolMode, Request, WireRecord};

use crate::harness::{call, exit_code, text_result, Harness};
use crate::http_auth::authorized_traced;
use crate::http_harness::http_config;

fn records(h: &mut Harness) -> Vec<WireRecord> {
    std::iter::from_fn(|| h.conn.poll_wire()).collect()
}

/// The handshake, one `tools/call` answered, then the close and the process's exit.
fn one_call_then_exit(h: &mut Harness) {
    h.connect_modern();
    let t = h.request(call("echo", json!({"text": "hi"})));
    let sent = h.expect_sent("tools/call");
    h.reply(&sent, text_result("hi"));
    h.ok(t);
    h.close();
    h.exited(exit_code(0));
}

fn message(text: &str) -> Value {
    serde_json::from_str(text).expect("a record holds a whole JSON message")
}

#[test]
fn the_trace_is_off_by_default() {
    let mut h = Harness::auto();
    one_call_then_exit(&mut h);
    assert_eq!(h.conn.poll_wire(), None);
}

#[test]
fn stdio_records_come_in_order() {
    let mut h = Harness::with(ProtocolMode::Auto, |cfg| cfg.wire_trace = true);
    one_call_then_exit(&mut h);
    let records = records(&mut h);
    let summary: Vec<String> = records
        .iter()
        .map(|r| match r {
            WireRecord::Sent { message: m, .. } => format!("send {}", message(m)["method"]),
            WireRecord::Received { message: m, .. } => format!("recv {}", message(m)["id"]),
            WireRecord::ProcessStart { program, args, .. } => format!("start {program} {args:?}"),
            WireRecord::ProcessExit { status, .. } => format!("exit {:?}", status.code),
            other => format!("{other:?}"),
        })
        .collect();
    let expected = [
        r#"start fake-server ["--stdio"]"#,
        r#"send "server/discover""#,
        "recv 1",
        r#"send "tools/call""#,
        "recv 2",
        "exit Some(0)",
    ];
    assert_eq!(summary, expected);
    let WireRecord::Sent { message: call_text, .. } = &records[3] else { unreachable!() };
    assert_eq!(message(call_text)["params"]["arguments"], json!({"text": "hi"}));
    assert!(!call_text.ends_with('\n'));
    assert_eq!((records[0].direction(), records[0].kind()), ("event", "process_start"));
    assert_eq!((records[1].direction(), records[1].kind()), ("send", "message"));
    assert_eq!((records[2].direction(), records[2].kind()), ("recv", "message"));
}

/// A host that never drains the trace keeps at most `max_pending_events` records: the oldest
/// go first, the newest stay.
#[test]
fn an_undrained_trace_keeps_only_the_newest_records() {
    let mut h = Harness::with(ProtocolMode::Auto, |cfg| {
        cfg.wire_trace = true;
        cfg.limits.max_pending_events = 3;
    });
    one_call_then_exit(&mut h);
    let kept: Vec<&str> = records(&mut h).iter().map(WireRecord::kind).collect();
    assert_eq!(kept, ["message", "message", "process_exit"], "the call, its answer, the exit");
}

#[test]
fn stdio_arguments_are_redacted() {
    let mut h = Harness::with(ProtocolMode::Auto, |cfg| {
        cfg.wire_trace = true;
        if let mcpwire_core::TransportConfig::Stdio(cmd) = &mut cfg.transport {
            cmd.args.push("--api-key".into());
            cmd.args.push("sk-very-secret".into());
        }
    });
    h.request(Request::Connect);
    let text = format!("{:?}", records(&mut h));
    assert!(text.contains("--api-key") && !text.contains("sk-very-secret"), "{text}");
}

#[test]
fn http_records_status_lines_without_credentials() {
    let mut cfg = http_config("http://srv.test/mcp?token=url-secret", &[]);
    cfg.wire_trace = true;
    if let mcpwire_core::TransportConfig::Http(http) = &mut cfg.transport {
        http.headers = vec![
            ("Authorization".into(), "Bearer x-header-secret".into()),
            ("X-Custom".into(), "custom-secret".into()),
        ];
    }
    let mut h = Harness::new(cfg);
    let c = h.request(Request::Connect);
    let probe = h.expect_http("server/discover");
    assert_eq!(probe.header("Authorization"), Some("Bearer x-header-secret"), "sent as configured");
    let answer = crate::http_harness::result_for(&probe.json(), crate::harness::discover_ok());
    h.respond_http(
        probe.id,
        200,
        &[("Content-Type", "application/json"), ("X-Other", "dropped")],
        answer.to_string().as_bytes(),
    );
    h.ok(c);
    let records = records(&mut h);
    let text = format!("{records:?}");
    for secret in ["x-header-secret", "custom-secret", "url-secret"] {
        assert!(!text.contains(secret), "{secret} in {text}");
    }
    let [WireRecord::Sent { message: sent, .. }, WireRecord::HttpRequest { exchange, method, url, headers }, WireRecord::HttpResponse { exchange: answered, status, headers: head }, WireRecord::Received { message: received, .. }] =
        &records[..]
    else {
        panic!("{records:#?}")
    };
    assert_eq!(message(sent)["method"], "server/discover");
    assert_eq!((*method, url.as_str()), (HttpMethod::Post, "http://srv.test/mcp?token=***"));
    let header =
        |name: &str| headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str());
    assert_eq!(header("Authorization"), Some("***"));
    assert_eq!(header("X-Custom"), Some("***"));
    assert_eq!(header("Content-Type"), Some("application/json"));
    assert_eq!((answered, *status), (exchange, 200));
    assert_eq!(head, &[("Content-Type".to_owned(), "application/json".to_owned())]);
    assert_eq!(message(received)["id"], message(sent)["id"]);
}

#[test]
fn http_failures_are_recorded() {
    let mut cfg = http_config("http://srv.test/mcp", &[]);
    cfg.wire_trace = true;
    let mut h = Harness::new(cfg);
    let c = h.request(Request::Connect);
    let probe = h.expect_http("server/discover");
    h.http_fail(probe.id, "connection refused");
    h.err(c);
    let records = records(&mut h);
    assert!(
        records.iter().any(
            |r| matches!(r, WireRecord::HttpFailed { exchange, error } if *exchange == probe.id && error.contains("connection refused"))
        ),
        "{records:#?}"
    );
}

#[test]
fn oauth_fetches_are_traced_without_their_bodies_or_tokens() {
    let mut h = authorized_traced(3600, true);
    let records = records(&mut h);
    let text = format!("{records:?}");
    for secret in ["tok-1", "refresh-tok-1", "code_verifier", "grant_type", "client-1", "abc"] {
        assert!(!text.contains(secret), "{secret} in {text}");
    }
    let token_fetch = records.iter().find_map(|r| match r {
        WireRecord::HttpRequest { exchange, url, headers, .. } if url == "https://auth.test/token" => {
            Some((*exchange, headers.clone()))
        }
        _ => None,
    });
    let (exchange, headers) = token_fetch.expect("the token fetch is traced");
    assert!(headers.is_empty());
    assert!(records
        .iter()
        .any(|r| matches!(r, WireRecord::HttpResponse { exchange: e, status: 200, .. } if *e == exchange)));
    // The MCP requests after the sign-in carry the token: masked.
    assert!(records.iter().any(|r| matches!(r, WireRecord::HttpRequest { headers, .. }
        if headers.iter().any(|(n, v)| n.eq_ignore_ascii_case("authorization") && v == "***"))));
}
