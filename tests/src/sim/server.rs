//! The simulated MCP server process behind a stdio pipe: a modern (2026-07-28) or legacy
//! (2025-11-25) [`Peer`] answering the lines the client writes with timed output, and
//! misbehaving when the world's faults say so.

use std::time::Duration;

use serde_json::{json, Value};

use super::rng::Rng;
use super::tools::{ms, Outcome, Peer};
pub use super::tools::{SimEra, TOOLS};

/// Something the server process does after a delay.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerOutput {
    /// Bytes on stdout.
    Stdout(Vec<u8>),
    /// The process dies (stdout closes, then the exit is reported).
    Crash,
}

/// One server process.
#[derive(Debug)]
pub struct ServerModel {
    peer: Peer,
}

/// Fault probabilities in percent (all zero when faults are off).
#[derive(Debug, Clone, Copy, Default)]
pub struct ServerFaults {
    /// A response is sent twice.
    pub duplicate: u64,
    /// A response to an id nobody asked for is sent as well.
    pub unknown_id: u64,
    /// A garbage (non-JSON) line precedes the answer.
    pub garbage: u64,
    /// The process crashes instead of answering (mid-line: half a line first).
    pub crash: u64,
}

impl ServerModel {
    /// A fresh process.
    pub fn new(era: SimEra, huge_bytes: usize) -> Self {
        Self { peer: Peer::new(era, "2025-11-25", huge_bytes) }
    }

    /// Reacts to one line the client wrote: what to output, each after its delay.
    pub fn on_line(
        &mut self,
        line: &[u8],
        rng: &mut Rng,
        faults: ServerFaults,
    ) -> Vec<(Duration, ServerOutput)> {
        let Ok(msg) = serde_json::from_slice::<Value>(line) else { return Vec::new() };
        if msg.get("method").and_then(Value::as_str).is_none() {
            return Vec::new();
        }
        let Some(id) = msg.get("id").cloned() else { return Vec::new() };
        if rng.percent(faults.crash) {
            let half = rng.below(40) as usize;
            let partial = br#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#;
            return vec![
                (ms(rng.below(20)), ServerOutput::Stdout(partial[..half].to_vec())),
                (ms(20 + rng.below(20)), ServerOutput::Crash),
            ];
        }
        let mut out = Vec::new();
        if rng.percent(faults.garbage) {
            out.push((ms(rng.below(10)), ServerOutput::Stdout(b"this is not json\n".to_vec())));
        }
        let Some(reply) = self.peer.answer(&msg, rng) else { return out };
        for (delay, note) in &reply.notes {
            out.push((*delay, ServerOutput::Stdout(format!("{note}\n").into_bytes())));
        }
        let Some(line) = reply.response(&id) else {
            debug_assert_eq!(reply.outcome, Outcome::Break);
            out.push((reply.delay, ServerOutput::Crash));
            return out;
        };
        let delay = reply.delay;
        let bytes = format!("{line}\n").into_bytes();
        out.push((delay, ServerOutput::Stdout(bytes.clone())));
        if rng.percent(faults.duplicate) {
            out.push((delay + ms(rng.below(50)), ServerOutput::Stdout(bytes)));
        }
        if rng.percent(faults.unknown_id) {
            let stray = json!({"jsonrpc": "2.0", "id": 9_000_000 + rng.below(1000), "result": {}});
            out.push((delay + ms(1), ServerOutput::Stdout(format!("{stray}\n").into_bytes())));
        }
        out
    }
}
