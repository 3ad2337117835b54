//! The protocol mode on every transport: `Modern` never takes a legacy-only path (no
//! `initialize`, no HTTP+SSE stream, no fallback to another transport) and fails with
//! `ModernRequired`; `Legacy` never probes; `Auto` probes, then falls back.

use serde_json::json;

use mcpwire_core::mcp_servers::TransportKind;
use mcpwire_core::{Era, ProtocolMode, Request, RequestError};

use crate::harness::{assert_modern_meta, discover_ok, init_result, Harness};
use crate::http_harness::{http_config, result_for, sse_message};

/// The transports a connection can be configured with.
#[derive(Debug, Clone, Copy)]
enum Transport {
    Stdio,
    /// A URL ending in `/mcp`.
    Streamable,
    /// A URL ending in `/sse`.
    Sse,
    /// Any URL with the transport forced to HTTP+SSE.
    ForcedSse,
    /// Plain JSON-RPC over POST, forced.
    Plain,
    /// A URL that names no transport: Streamable HTTP, then HTTP+SSE, then plain HTTP.
    Detected,
}

const ALL: [Transport; 6] = [
    Transport::Stdio,
    Transport::Streamable,
    Transport::Sse,
    Transport::ForcedSse,
    Transport::Plain,
    Transport::Detected,
];

fn harness(transport: Transport, mode: ProtocolMode) -> Harness {
    let mut cfg = match transport {
        Transport::Stdio => return Harness::with(mode, |_| {}),
        Transport::Streamable => http_config("http://srv.test/mcp", &[]),
        Transport::Sse => http_config("http://srv.test/sse", &[]),
        Transport::ForcedSse => http_config("http://srv.test/events", &[TransportKind::Sse]),
        Transport::Plain => http_config("http://srv.test/rpc", &[TransportKind::PlainHttp]),
        Transport::Detected => http_config("http://srv.test/api", &[]),
    };
    cfg.protocol = mode;
    Harness::new(cfg)
}

fn is_sse(transport: Transport) -> bool {
    matches!(transport, Transport::Sse | Transport::ForcedSse)
}

/// The server in front of each transport speaks only the handshake revisions: it refuses the
/// probe the way such servers do, and must never be sent `initialize` in modern mode.
#[test]
fn modern_mode_refuses_every_legacy_only_path() {
    for transport in ALL {
        let mut h = harness(transport, ProtocolMode::Modern);
        let r = h.request(Request::ListTools);
        match transport {
            Transport::Stdio => {
                h.start();
                let probe = h.expect_sent("server/discover");
                h.reply_error(&probe, -32601, "Method not found", None);
                assert!(h.sent().is_empty(), "{transport:?}: no initialize");
            }
            Transport::Sse | Transport::ForcedSse => {
                assert!(h.started_http().is_empty(), "{transport:?}: the 2024-11-05 stream is never opened");
            }
            Transport::Streamable | Transport::Detected => {
                let probe = h.expect_http("server/discover");
                assert_modern_meta(&probe.json());
                h.respond_http(probe.id, 400, &[("Content-Type", "text/plain")], b"Bad Request: no session");
                assert!(h.started_http().is_empty(), "{transport:?}: no initialize, no other transport");
            }
            Transport::Plain => {
                let probe = h.expect_http("server/discover");
                let refusal = json!({"jsonrpc": "2.0", "id": probe.json()["id"],
                    "error": {"code": -32601, "message": "Method not found"}});
                h.json_reply(&probe, &refusal);
                assert!(h.started_http().is_empty(), "{transport:?}: no initialize");
            }
        }
        let e = h.err(r);
        assert!(matches!(e, RequestError::ModernRequired { .. }), "{transport:?}: {e:?}");
        assert_eq!(h.take_disconnected(), e, "{transport:?}");
        // The next request tries again, and is refused the same way.
        let again = h.request(Request::ListPrompts);
        if is_sse(transport) {
            assert!(h.started_http().is_empty(), "{transport:?}");
            assert!(matches!(h.err(again), RequestError::ModernRequired { .. }), "{transport:?}");
        } else {
            assert!(!h.has_response(again), "{transport:?}: a new attempt is under way");
        }
    }
}

/// A 2026-07-28 server is reached in modern mode on every transport that can carry it.
#[test]
fn modern_mode_connects_to_a_modern_server() {
    for transport in ALL.into_iter().filter(|t| !is_sse(*t)) {
        let mut h = harness(transport, ProtocolMode::Modern);
        let c = h.request(Request::Connect);
        if let Transport::Stdio = transport {
            h.start();
            let probe = h.expect_sent("server/discover");
            h.reply(&probe, discover_ok());
        } else {
            let probe = h.expect_http("server/discover");
            h.reply_http(&probe, discover_ok());
        }
        let info = h.take_connected();
        assert_eq!(info.era, Era::Modern, "{transport:?}");
        h.ok(c);
    }
}

/// Legacy mode starts with `initialize` on every transport (after the `endpoint` event on
/// HTTP+SSE) and never probes.
#[test]
fn legacy_mode_never_probes() {
    for transport in ALL {
        let mut h = harness(transport, ProtocolMode::Legacy);
        let c = h.request(Request::Connect);
        match transport {
            Transport::Stdio => {
                h.start();
                let init = h.expect_sent("initialize");
                h.reply(&init, init_result("2025-06-18", json!({})));
                h.expect_sent("notifications/initialized");
            }
            Transport::Sse | Transport::ForcedSse => {
                let stream = h.expect_http("GET");
                h.sse_open(stream.id, "event: endpoint\ndata: /message?s=1\n\n");
                let init = h.expect_http("initialize");
                h.accepted(&init);
                let answer = result_for(&init.json(), init_result("2024-11-05", json!({})));
                h.body(stream.id, sse_message(None, &answer).as_bytes());
                let initialized = h.expect_http("notifications/initialized");
                h.accepted(&initialized);
            }
            Transport::Streamable | Transport::Plain | Transport::Detected => {
                let init = h.expect_http("initialize");
                h.reply_http(&init, init_result("2025-06-18", json!({})));
                for sent in h.started_http() {
                    match sent.method().as_str() {
                        "notifications/initialized" => h.accepted(&sent),
                        "" => h.respond_http(sent.id, 405, &[], b""), // the GET stream
                        other => panic!("{transport:?}: unexpected {other}"),
                    }
                }
            }
        }
        assert_eq!(h.take_connected().era, Era::Legacy, "{transport:?}");
        h.ok(c);
    }
}

/// Auto mode on HTTP+SSE goes straight to `initialize` (the transport is 2024-11-05 only);
/// on the other transports it probes first.
#[test]
fn auto_mode_probes_except_on_http_sse() {
    for transport in ALL {
        let mut h = harness(transport, ProtocolMode::Auto);
        h.request(Request::Connect);
        let first = match transport {
            Transport::Stdio => {
                h.start();
                h.next_sent()["method"].as_str().unwrap_or("").to_owned()
            }
            Transport::Sse | Transport::ForcedSse => {
                let stream = h.expect_http("GET");
                h.sse_open(stream.id, "event: endpoint\ndata: /message?s=1\n\n");
                h.expect_http("initialize").method()
            }
            _ => h.expect_http("server/discover").method(),
        };
        let want = if is_sse(transport) { "initialize" } else { "server/discover" };
        assert_eq!(first, want, "{transport:?}");
    }
}
