//! The simulated MCP server process behind a stdio pipe: a modern (2026-07-28) or legacy
//! (2025-11-25) [`Peer`] answering the lines the client writes with timed output, and
//! misbehaving when the world's faults say so. A modern process also holds the listen streams
//! the client opened ([`super::listen`]) until the client cancels them
//! (`notifications/cancelled`), it ends them, or it dies. A legacy process holds the
//! `tasks/result` requests of tasks that wait for input ([`super::tasks`]) and answers them
//! once the client's answers to its input requests let the tasks end.

use std::time::Duration;

use serde_json::{json, Value};

use super::listen::{self, Listens, SrvListen, Tick};
use super::rng::Rng;
use super::tasks::{Ctx, TaskOptions};
use super::tools::{ms, Outcome, Peer};
pub use super::tools::{SimEra, TOOLS};

/// Something the server process does after a delay.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerOutput {
    /// Bytes on stdout.
    Stdout(Vec<u8>),
    /// The process dies (stdout closes, then the exit is reported).
    Crash,
    /// The process acts on the listen with this wire id (JSON text) later.
    Listen(String, Tick),
}

/// One server process.
#[derive(Debug)]
pub struct ServerModel {
    peer: Peer,
    /// The listen streams it holds, by wire id (JSON text).
    listens: Listens<String>,
    /// Deferred `tasks/result` requests: the task, the request id.
    held: Vec<(String, Value)>,
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
    /// A fresh process (a legacy one declaring `resources.subscribe` when `subscribe`), running
    /// tasks as `tasks` says.
    pub fn new(era: SimEra, huge_bytes: usize, subscribe: bool, tasks: TaskOptions) -> Self {
        Self {
            peer: Peer::new(era, "2025-11-25", huge_bytes).with_subscribe(subscribe).with_tasks(tasks),
            listens: Listens::default(),
            held: Vec::new(),
        }
    }

    /// The request handling side (its tasks).
    pub fn peer(&mut self) -> &mut Peer {
        &mut self.peer
    }

    /// Status notifications of its tasks whose status changed (`percent` of them).
    pub fn task_notes(&mut self, now: Duration, rng: &mut Rng, percent: u64) -> Vec<Vec<u8>> {
        let notes = self.peer.tasks().notes(now, rng, percent);
        notes.into_iter().map(|n| format!("{n}\n").into_bytes()).collect()
    }

    /// Answers the deferred `tasks/result` requests whose tasks can now say how they end.
    fn settle(&mut self, now: Duration, out: &mut Vec<(Duration, ServerOutput)>) {
        let held = std::mem::take(&mut self.held);
        for (task, id) in held {
            match self.peer.tasks().settle(&task, now) {
                Some((delay, outcome)) => {
                    if let Some(line) = outcome.response(&id) {
                        out.push((delay, ServerOutput::Stdout(format!("{line}\n").into_bytes())));
                    }
                }
                None => self.held.push((task, id)),
            }
        }
    }

    /// The listen streams it holds.
    pub fn listens(&mut self) -> &mut Listens<String> {
        &mut self.listens
    }

    /// Acts on listen `id` (JSON text) as `tick` says, if it still holds it: the line to
    /// write, and the listen as it was.
    pub fn listen_tick(&mut self, id: &str, tick: Tick) -> Option<(Vec<u8>, SrvListen)> {
        let (msg, l) = self.listens.tick(&id.to_owned(), tick)?;
        Some((format!("{msg}\n").into_bytes(), l))
    }

    /// Reacts to one line the client wrote: what to output, each after its delay. `faults_on`:
    /// the safety phase (listens may be granted in part, late or never, and end on their own).
    pub fn on_line(
        &mut self,
        line: &[u8],
        rng: &mut Rng,
        faults: ServerFaults,
        ctx: &Ctx,
    ) -> Vec<(Duration, ServerOutput)> {
        let mut out = self.react(line, rng, faults, ctx);
        self.settle(ctx.now, &mut out);
        out
    }

    fn react(
        &mut self,
        line: &[u8],
        rng: &mut Rng,
        faults: ServerFaults,
        ctx: &Ctx,
    ) -> Vec<(Duration, ServerOutput)> {
        let faults_on = ctx.faults_on;
        let Ok(msg) = serde_json::from_slice::<Value>(line) else { return Vec::new() };
        let Some(method) = msg.get("method").and_then(Value::as_str) else {
            // An answer to one of its requests (a task's input).
            self.peer.tasks().on_client_answer(&msg, ctx.now);
            return Vec::new();
        };
        if method == "notifications/cancelled" && self.peer.era() == SimEra::Modern {
            // The client closed a listen: the stream ends once the server gets to it (at
            // once, or after what it was writing meanwhile).
            let Some(id) = msg.pointer("/params/requestId") else { return Vec::new() };
            let key = id.to_string();
            if faults_on && rng.percent(50) {
                // Notifications it was writing still go out after the cancellation.
                let count = 1 + rng.below(3);
                let notes = self.listens.get(&key).map(|l| listen::notes(l, rng, count, false));
                let mut out: Vec<_> = notes
                    .into_iter()
                    .flatten()
                    .map(|n| (ms(rng.below(5)), ServerOutput::Stdout(format!("{n}\n").into_bytes())))
                    .collect();
                out.push((ms(rng.below(300)), ServerOutput::Listen(key, Tick::Forget)));
                return out;
            }
            self.listens.remove(&key);
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
        if msg["method"] == "subscriptions/listen" && self.peer.era() == SimEra::Modern {
            let (l, ticks) = listen::accept(&msg, rng, faults_on);
            let key = id.to_string();
            self.listens.insert(key.clone(), l);
            out.extend(ticks.into_iter().map(|(at, t)| (at, ServerOutput::Listen(key.clone(), t))));
            return out;
        }
        let Some(reply) = self.peer.answer(&msg, rng, ctx) else { return out };
        for (delay, note) in &reply.notes {
            out.push((*delay, ServerOutput::Stdout(format!("{note}\n").into_bytes())));
        }
        match &reply.outcome {
            Outcome::Drop => return out,
            Outcome::Deferred(task) => {
                self.held.push((task.clone(), id));
                return out;
            }
            _ => {}
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
