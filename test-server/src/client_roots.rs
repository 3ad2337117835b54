//! `--client-roots`: a tool that asks the client for its roots in both eras, so a client's roots
//! can be watched changing while connected.
//!
//! * `list_roots`: asks `roots/list`: a server-to-client request on the legacy revisions, an
//!   `input_required` result on 2026-07-28 (key `roots`, `requestState` `roots`), whose answer
//!   is read from the retry's `inputResponses`. Answers `roots: <compact result>` (legacy: or
//!   the error object).
//!
//! A client's `notifications/roots/list_changed` is accepted silently like any notification;
//! `--record` shows it.

use serde_json::{json, Value};

use crate::protocol::{compact, text_result, Era, Reply};
use crate::server::{Request, Server};
use crate::tools::tool;

/// The tools of this block.
pub const NAMES: [&str; 1] = ["list_roots"];

/// Their definitions.
pub fn definitions() -> Vec<Value> {
    vec![tool(
        "list_roots",
        "Asks the client for its roots (roots/list; an input request on 2026-07-28)",
        json!({"type": "object", "properties": {}}),
    )]
}

/// Runs `list_roots`.
pub fn call(server: &Server, req: &Request) -> Option<Reply> {
    if req.era == Era::Modern {
        return Some(Ok(match req.param("inputResponses").and_then(|r| r.get("roots")) {
            Some(answer) => text_result(format!("roots: {}", compact(answer))),
            None => json!({
                "resultType": "input_required",
                "inputRequests": {"roots": {"method": "roots/list"}},
                "requestState": "roots",
            }),
        }));
    }
    let answer = match server.request_client(&req.id, "roots/list", None)? {
        Ok(result) => result,
        Err(error) => error.to_value(),
    };
    Some(Ok(text_result(format!("roots: {}", compact(&answer)))))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::config::{Config, ProtocolMode};
    use crate::protocol::{META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION, MODERN_VERSION};
    use crate::test_harness::Harness;

    fn config(protocol: ProtocolMode) -> Config {
        Config { protocol, client_roots: true, ..Config::default() }
    }

    #[test]
    fn legacy_asks_the_client() {
        let h = Harness::legacy(config(ProtocolMode::Legacy("2025-11-25")));
        h.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "list_roots"}}));
        let asked = h.wait(1);
        assert_eq!(asked[0]["method"], "roots/list");
        h.send(json!({"jsonrpc": "2.0", "id": asked[0]["id"], "result": {"roots": [{"uri": "file:///a"}]}}));
        let done = h.wait(1);
        assert_eq!(done[0]["result"]["content"][0]["text"], "roots: {\"roots\":[{\"uri\":\"file:///a\"}]}");
    }

    #[test]
    fn modern_is_an_input_round() {
        let h = Harness::new(config(ProtocolMode::Modern));
        let meta = json!({META_PROTOCOL_VERSION: MODERN_VERSION, META_CLIENT_CAPABILITIES: {"roots": {}}});
        let call = |id: u64, extra: serde_json::Value| {
            let mut params = json!({"name": "list_roots", "_meta": meta});
            if let (Some(p), Some(e)) = (params.as_object_mut(), extra.as_object()) {
                p.extend(e.clone());
            }
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
        };
        h.send(call(1, json!({})));
        let first = h.wait(1);
        assert_eq!(first[0]["result"]["inputRequests"]["roots"]["method"], "roots/list");
        h.send(call(2, json!({"inputResponses": {"roots": {"roots": []}}, "requestState": "roots"})));
        let done = h.wait(1);
        assert_eq!(done[0]["result"]["content"][0]["text"], "roots: {\"roots\":[]}");
    }
}
