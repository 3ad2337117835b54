//! `--input-waits`: tools that answer 2026-07-28 `input_required` with a `requestState` and no
//! `inputRequests` ("not yet, come back"), for the client's paced waits. The count of waits so
//! far travels in the state itself, so the server keeps nothing between attempts.
//!
//! * `not_yet {times=2}`: answers state-only `input_required` (`requestState` `not-yet:<k>`,
//!   `k` counting from 1) `times` times, then `ready after <times> waits`.
//! * `never_ready`: always answers state-only `input_required` (`never:<k>`).
//!
//! On the legacy revisions both answer an error result: they have no `input_required`.

use serde_json::{json, Map, Value};

use crate::protocol::{error_result, text_result, Era, Reply, RpcError};
use crate::server::Request;
use crate::tools::{object_schema, tool};

/// The tools of this block.
pub const NAMES: [&str; 2] = ["not_yet", "never_ready"];

/// Their definitions.
pub fn definitions() -> Vec<Value> {
    vec![
        tool(
            "not_yet",
            "Says 'not yet' (input_required with only a requestState) `times` times, then answers",
            object_schema(json!({"times": {"type": "integer", "minimum": 0, "default": 2}}), &[]),
        ),
        tool(
            "never_ready",
            "Always says 'not yet' (input_required with only a requestState)",
            object_schema(json!({}), &[]),
        ),
    ]
}

/// The waits so far, from the echoed `requestState` `<prefix>:<k>` (none: 0).
fn waits_so_far(req: &Request, prefix: &str) -> Result<u64, RpcError> {
    match req.param("requestState") {
        None | Some(Value::Null) => Ok(0),
        Some(Value::String(state)) => state
            .strip_prefix(prefix)
            .and_then(|rest| rest.strip_prefix(':'))
            .and_then(|k| k.parse().ok())
            .ok_or_else(|| RpcError::invalid_params(format!("unexpected requestState {state:?}"))),
        Some(_) => Err(RpcError::invalid_params("requestState must be a string")),
    }
}

fn not_yet(prefix: &str, k: u64) -> Value {
    json!({"resultType": "input_required", "requestState": format!("{prefix}:{k}")})
}

/// Runs one of [`NAMES`].
pub fn call(req: &Request, name: &str, args: &Map<String, Value>) -> Reply {
    if req.era != Era::Modern {
        return Ok(error_result("only available in the modern revision"));
    }
    match name {
        "not_yet" => {
            let times = args.get("times").and_then(Value::as_u64).unwrap_or(2);
            let k = waits_so_far(req, "not-yet")?;
            Ok(if k >= times {
                text_result(format!("ready after {k} waits"))
            } else {
                not_yet("not-yet", k + 1)
            })
        }
        _ => Ok(not_yet("never", waits_so_far(req, "never")? + 1)),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use crate::config::{Config, ProtocolMode};
    use crate::protocol::{META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION, MODERN_VERSION};
    use crate::test_harness::Harness;

    fn call(id: u64, name: &str, mut params: Value) -> Value {
        params["name"] = json!(name);
        params["_meta"] = json!({META_PROTOCOL_VERSION: MODERN_VERSION, META_CLIENT_CAPABILITIES: {}});
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
    }

    fn harness() -> Harness {
        Harness::new(Config { protocol: ProtocolMode::Modern, input_waits: true, ..Config::default() })
    }

    #[test]
    fn not_yet_counts_its_waits_in_the_state_then_answers() {
        let h = harness();
        h.send(call(1, "not_yet", json!({"arguments": {"times": 2}})));
        let first = &h.wait(1)[0]["result"];
        assert_eq!(*first, json!({"resultType": "input_required", "requestState": "not-yet:1"}));
        h.send(call(
            2,
            "not_yet",
            json!({"arguments": {"times": 2}, "requestState": "not-yet:1", "inputResponses": {}}),
        ));
        assert_eq!(h.wait(1)[0]["result"]["requestState"], "not-yet:2");
        h.send(call(3, "not_yet", json!({"arguments": {"times": 2}, "requestState": "not-yet:2"})));
        let done = &h.wait(1)[0]["result"];
        assert_eq!(done["content"][0]["text"], "ready after 2 waits");
        h.send(call(4, "not_yet", json!({"arguments": {"times": 2}, "requestState": "forged"})));
        assert_eq!(h.wait(1)[0]["error"]["code"], -32602);
    }

    #[test]
    fn never_ready_never_is() {
        let h = harness();
        h.send(call(1, "never_ready", json!({"arguments": {}, "requestState": "never:41"})));
        assert_eq!(h.wait(1)[0]["result"]["requestState"], "never:42");
    }
}
