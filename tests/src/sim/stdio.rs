//! The stdio side of the world: the server process's lifecycle, the pipe between the client's
//! writes and [`ServerModel`], and stdout delivery (split at random byte boundaries); the
//! server's side of listen streams (acknowledgments, bursts, its own closes) and crashes while
//! they are open; the server's task notifications and crashes under live tasks. Each delivered
//! task message tells the world what the client consumed ([`super::tasks::Seen`]).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use mcpwire_core::{Connection, Epoch, ExitInfo, Io, StdioCommand};
use serde_json::Value;

use super::listen::{self, CloseKind, Tick};
use super::server::{ServerFaults, ServerModel, ServerOutput, SimEra};
use super::tasks::{self, TaskOptions};
use super::{Ev, ListenKey, Rng, Sim, MAX_MESSAGE};

/// The process the world runs for the current epoch.
#[derive(Debug)]
struct Process {
    epoch: Epoch,
    model: ServerModel,
    /// Bytes the process has not read yet (an unfinished line, or everything while stalled).
    pending: Vec<u8>,
    alive: bool,
    /// A stalled stdin reader: nothing written is read before this simulated time.
    stalled_until: Option<Duration>,
}

/// Per-epoch facts for the era invariants.
#[derive(Debug, Default)]
struct EpochFacts {
    discover_answered_modern: bool,
    legacy_session: bool,
}

/// The stdio link and its server process.
#[derive(Debug)]
pub(super) struct StdioLink {
    era: SimEra,
    /// A legacy server declares `resources.subscribe`.
    subscribe: bool,
    /// How its processes run tasks.
    tasks: TaskOptions,
    faults: ServerFaults,
    spawn_fail: u64,
    /// Percent of processes that stop reading stdin for a while after they start.
    stall: u64,
    /// A restart storm: this many next processes die right after they start.
    storm: u64,
    process: Option<Process>,
    facts: BTreeMap<Epoch, EpochFacts>,
    /// `tools/call` lines written per nonce (never more than one over stdio).
    tool_sends: BTreeMap<u64, u32>,
    /// When the last stdout piece is due: stdout is one ordered pipe.
    stdout_cursor: Duration,
    /// The last message written on stdout was half a line (a crash's): the next message's
    /// first line joins it and is lost.
    partial_line: bool,
    pub(super) spawns: u64,
    pub(super) crashes: u64,
}

impl StdioLink {
    pub(super) fn new(seed: u64, rng: &mut Rng, faulty: bool, base: Instant) -> (Self, Connection) {
        let era = if rng.percent(50) { SimEra::Modern } else { SimEra::Legacy };
        let faults = ServerFaults {
            duplicate: rng.fault(faulty, 10),
            unknown_id: rng.fault(faulty, 10),
            garbage: rng.fault(faulty, 10),
            crash: rng.fault(faulty, 4),
        };
        let spawn_fail = rng.fault(faulty, 20);
        let stall = rng.fault(faulty, 30);
        let storm = if faulty && rng.percent(20) { 2 + rng.below(8) } else { 0 };
        let cfg =
            super::client_config(mcpwire_core::TransportConfig::Stdio(StdioCommand::new("sim-server")), seed);
        let subscribe = rng.percent(50);
        let tasks = TaskOptions::random(rng, faulty);
        let link = Self {
            era,
            subscribe,
            tasks,
            faults,
            spawn_fail,
            stall,
            storm,
            process: None,
            facts: BTreeMap::new(),
            tool_sends: BTreeMap::new(),
            stdout_cursor: Duration::ZERO,
            partial_line: false,
            spawns: 0,
            crashes: 0,
        };
        (link, Connection::new(cfg, base))
    }

    /// The server speaks 2026-07-28; a legacy one declares `resources.subscribe`.
    pub(super) fn era(&self) -> (bool, bool) {
        (self.era == SimEra::Modern, self.subscribe)
    }

    /// The server declares tasks (the extension, or the 2025-11-25 capability).
    pub(super) fn tasks_declared(&self) -> bool {
        match self.era {
            SimEra::Modern => self.tasks.declare,
            SimEra::Legacy => self.tasks.on && self.tasks.declare,
        }
    }

    pub(super) fn heal(&mut self) {
        self.faults = ServerFaults::default();
        self.spawn_fail = 0;
        self.stall = 0;
        self.storm = 0;
    }

    pub(super) fn on_event(&mut self, sim: &mut Sim, ev: Ev) {
        let now = sim.at();
        match ev {
            Ev::Started(epoch) => sim.conn.handle_process_started(now, epoch),
            Ev::SpawnFailed(epoch) => {
                sim.conn.handle_spawn_failed(now, epoch, std::io::Error::other("simulated spawn failure"))
            }
            Ev::Stdout(epoch, bytes, seen) => {
                let text = String::from_utf8_lossy(&bytes[..bytes.len().min(160)]).into_owned();
                sim.note(format!("{:?} world: {epoch} stdout {} bytes {text:?}", sim.now, bytes.len()));
                sim.conn.handle_stdout(now, epoch, &bytes);
                let alive = self.process.as_ref().is_some_and(|p| p.epoch == epoch && p.alive);
                if let Some(seen) = seen.filter(|_| alive) {
                    sim.on_seen(seen);
                }
            }
            Ev::Crash(epoch) => {
                if let Some(p) = self.process.as_mut().filter(|p| p.epoch == epoch && p.alive) {
                    p.alive = false;
                    if sim.closed_at.is_none() {
                        self.crashes += 1;
                        sim.fault("crash");
                    }
                    sim.conn.handle_stdout_eof(now, epoch);
                    sim.schedule(Duration::from_millis(1), Ev::Exit(epoch));
                }
            }
            Ev::Exit(epoch) => {
                let status = ExitInfo { code: Some(1), signal: None };
                sim.conn.handle_process_exited(now, epoch, status);
            }
            Ev::StdinResumed(epoch) => {
                if let Some(p) = self.process.as_mut().filter(|p| p.epoch == epoch && p.alive) {
                    p.stalled_until = None;
                    self.read_stdin(sim, epoch);
                }
            }
            Ev::DiscoverDelivered(epoch) => {
                if self.process.as_ref().is_some_and(|p| p.epoch == epoch && p.alive) {
                    self.facts.entry(epoch).or_default().discover_answered_modern = true;
                }
            }
            Ev::ListenTick(ListenKey::Stdio(epoch, id), tick) => {
                let Some(p) = self.process.as_mut().filter(|p| p.epoch == epoch && p.alive) else { return };
                let Some((bytes, l)) = p.model.listen_tick(&id, tick) else { return };
                sim.server_listen_tick(&l, tick);
                self.deliver(sim, epoch, Duration::ZERO, bytes);
            }
            other => sim.fail(format!("an HTTP event on stdio: {other:?}")),
        }
    }

    /// The live process, if any.
    fn alive(&mut self) -> Option<&mut Process> {
        self.process.as_mut().filter(|p| p.alive)
    }

    /// The server sends notifications on the listens it acknowledged (up to `n` each; `big`:
    /// large payloads), and sometimes notifications no listen may take.
    pub(super) fn listen_burst(&mut self, sim: &mut Sim, n: u64, big: bool) {
        let Some(p) = self.alive() else { return };
        let epoch = p.epoch;
        let burst = p.model.listens().burst(&mut sim.rng, n, big);
        for (_, nonce, notes) in burst {
            sim.server_listen_notes(nonce, notes.len() as u64);
            for note in notes {
                let delay = Duration::from_millis(sim.rng.below(5));
                self.deliver(sim, epoch, delay, format!("{note}\n").into_bytes());
            }
        }
    }

    /// Notifications that are not for any listen of this client (untagged, unknown ids).
    pub(super) fn listen_strays(&mut self, sim: &mut Sim) {
        let Some(epoch) = self.alive().map(|p| p.epoch) else { return };
        if self.era != SimEra::Modern {
            return;
        }
        for note in listen::strays(&mut sim.rng) {
            self.deliver(sim, epoch, Duration::ZERO, format!("{note}\n").into_bytes());
        }
    }

    /// The server ends one of its listens on its own.
    pub(super) fn listen_close(&mut self, sim: &mut Sim, kind: CloseKind) {
        let Some(p) = self.alive() else { return };
        let epoch = p.epoch;
        let Some(key) = p.model.listens().pick(&mut sim.rng) else { return };
        let Some((bytes, l)) = p.model.listen_tick(&key, Tick::Close(kind)) else { return };
        sim.server_listen_tick(&l, Tick::Close(kind));
        self.deliver(sim, epoch, Duration::ZERO, bytes);
    }

    /// The process pushes status notifications of its tasks.
    pub(super) fn task_notes(&mut self, sim: &mut Sim) {
        let Some(p) = self.process.as_mut().filter(|p| p.alive) else { return };
        let epoch = p.epoch;
        let notes = p.model.task_notes(sim.now, &mut sim.rng, 100);
        let facts = p.model.peer().tasks().take_facts();
        sim.on_task_facts(facts);
        for note in notes {
            sim.seen("task_notification_pushed");
            self.deliver(sim, epoch, Duration::ZERO, note);
        }
    }

    /// The process crashes while it runs tasks.
    pub(super) fn task_fault(&mut self, sim: &mut Sim) {
        let now = sim.now;
        let Some(p) = self.process.as_mut().filter(|p| p.alive) else { return };
        if !p.model.peer().tasks().any_live(now) {
            return;
        }
        let epoch = p.epoch;
        sim.fault("task_crash");
        let delay = Duration::from_millis(sim.rng.below(5));
        sim.schedule(delay, Ev::Crash(epoch));
    }

    /// The process crashes while the client has listens open.
    pub(super) fn listen_fault(&mut self, sim: &mut Sim) {
        let Some(p) = self.process.as_ref().filter(|p| p.alive) else { return };
        let epoch = p.epoch;
        sim.fault("listen_crash");
        let delay = Duration::from_millis(sim.rng.below(5));
        sim.schedule(delay, Ev::Crash(epoch));
    }

    pub(super) fn perform(&mut self, sim: &mut Sim, io: Io) {
        match io {
            Io::Spawn { epoch, .. } => {
                self.spawns += 1;
                self.partial_line = false;
                let delay = Duration::from_millis(5 + sim.rng.below(50));
                if sim.rng.percent(self.spawn_fail) {
                    sim.fault("spawn_failed");
                    sim.schedule(delay, Ev::SpawnFailed(epoch));
                } else {
                    let model = ServerModel::new(self.era, MAX_MESSAGE + 1024, self.subscribe, self.tasks);
                    let stalled_until = (sim.faults_on && sim.rng.percent(self.stall)).then(|| {
                        sim.fault("stdin_stall");
                        let until = sim.now + delay + Duration::from_millis(500 + sim.rng.below(15_000));
                        sim.schedule_at(until, Ev::StdinResumed(epoch));
                        until
                    });
                    self.process =
                        Some(Process { epoch, model, pending: Vec::new(), alive: true, stalled_until });
                    sim.schedule(delay, Ev::Started(epoch));
                    if sim.faults_on && self.storm > 0 {
                        self.storm -= 1;
                        sim.fault("restart_storm");
                        let after = delay + Duration::from_millis(1 + sim.rng.below(20));
                        sim.schedule(after, Ev::Crash(epoch));
                    }
                }
            }
            Io::Write { epoch, bytes } => self.on_write(sim, epoch, &bytes),
            Io::CloseStdin { epoch } | Io::Terminate { epoch, .. } => {
                if self.process.as_ref().is_some_and(|p| p.epoch == epoch && p.alive) {
                    let delay = Duration::from_millis(1 + sim.rng.below(30));
                    sim.schedule(delay, Ev::Crash(epoch));
                }
            }
            // The HTTP variants exist when the core has its `http` feature, which another
            // package of the build may turn on while this one's is off.
            #[allow(unreachable_patterns)]
            other => sim.fail(format!("unexpected IO on stdio: {other:?}")),
        }
    }

    /// The invariants on writes (whole single-line JSON-RPC, unique ids, at most one
    /// cancellation per request, one `tools/call` per host request, era rules), then the
    /// server's reaction.
    fn on_write(&mut self, sim: &mut Sim, epoch: Epoch, bytes: &[u8]) {
        if bytes.last() != Some(&b'\n') || bytes.iter().filter(|b| **b == b'\n').count() != 1 {
            let text = String::from_utf8_lossy(bytes).into_owned();
            sim.fail(format!("a write is not exactly one line: {text:?}"));
        }
        let msg: Value = match serde_json::from_slice(bytes) {
            Ok(v) => v,
            Err(e) => sim.fail(format!("a write is not JSON ({e})")),
        };
        sim.on_client_message(&msg);
        let method = msg.get("method").and_then(Value::as_str).unwrap_or("");
        if let Some(nonce) = Sim::send_key(&msg) {
            let sends = self.tool_sends.entry(nonce).or_default();
            *sends += 1;
            if *sends > 1 {
                sim.fail(format!("tools/call of nonce {nonce} written {sends} times"));
            }
        }
        let facts = self.facts.entry(epoch).or_default();
        let (answered, legacy) = (facts.discover_answered_modern, facts.legacy_session);
        if method == "notifications/initialized" {
            facts.legacy_session = true;
        }
        if method == "initialize" && answered {
            sim.fail("initialize sent to a server that answered server/discover");
        }
        if legacy && Sim::has_modern_meta(&msg) {
            sim.fail(format!("modern _meta sent to a legacy session: {msg}"));
        }
        sim.check_subscription_method(method, self.era == SimEra::Modern, self.subscribe);
        if method == "subscriptions/listen" {
            sim.listen_written(msg.pointer("/params/notifications").and_then(listen::nonce_of));
        }
        let Some(p) = self.process.as_mut().filter(|p| p.epoch == epoch && p.alive) else { return };
        p.pending.extend_from_slice(bytes);
        if p.stalled_until.is_none() {
            self.read_stdin(sim, epoch);
        }
    }

    /// The process reads every whole line written so far and reacts.
    fn read_stdin(&mut self, sim: &mut Sim, epoch: Epoch) {
        let Some(p) = self.process.as_mut().filter(|p| p.epoch == epoch && p.alive) else { return };
        let faults = if sim.faults_on { self.faults } else { ServerFaults::default() };
        let mut lines = Vec::new();
        while let Some(i) = p.pending.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = p.pending.drain(..=i).collect();
            let ctx = sim.task_ctx();
            let outputs = p.model.on_line(&line, &mut sim.rng, faults, &ctx);
            let facts = p.model.peer().tasks().take_facts();
            sim.on_task_facts(facts);
            lines.push((line, outputs));
        }
        for (line, outputs) in lines {
            let line: Value = serde_json::from_slice(&line).unwrap_or_default();
            let discover = self.era == SimEra::Modern && line["method"] == "server/discover";
            let cancel = line["method"] == "notifications/cancelled";
            let mut answered = false;
            // Only a whole response counts: a partial line before a crash answers nothing.
            let mut discover_answered = false;
            for (delay, output) in outputs {
                match output {
                    ServerOutput::Crash => sim.schedule(delay, Ev::Crash(epoch)),
                    ServerOutput::Listen(id, tick) => {
                        sim.schedule(delay, Ev::ListenTick(ListenKey::Stdio(epoch, id), tick))
                    }
                    ServerOutput::Stdout(bytes) => {
                        if cancel {
                            sim.seen("listen_notes_after_end");
                        }
                        discover_answered |= discover && is_response_to(&bytes, &line["id"]);
                        self.deliver(sim, epoch, delay, bytes);
                        answered = true;
                    }
                }
            }
            if answered {
                sim.maybe_cancel_before(sim.answer_nonce(&line), self.stdout_cursor);
            }
            if discover_answered {
                let at = self.stdout_cursor.saturating_sub(sim.now);
                sim.schedule(at, Ev::DiscoverDelivered(epoch));
            }
        }
    }

    /// Stdout bytes (one message), split at random boundaries when faults are on; the last
    /// piece carries what the message tells the client about a task.
    fn deliver(&mut self, sim: &mut Sim, epoch: Epoch, delay: Duration, bytes: Vec<u8>) {
        let mut seen = tasks::seen_in(&bytes).filter(|_| !self.partial_line);
        if !bytes.is_empty() {
            self.partial_line = !bytes.ends_with(b"\n");
        }
        let pieces = if sim.faults_on && bytes.len() > 1 { 1 + sim.rng.below(4) } else { 1 };
        let mut rest = bytes.as_slice();
        for k in 0..pieces {
            let take =
                if k + 1 == pieces { rest.len() } else { sim.rng.below(rest.len() as u64 + 1) as usize };
            let (piece, tail) = rest.split_at(take);
            rest = tail;
            // One ordered pipe: a message's pieces, and messages, never interleave.
            let at = (sim.now + delay).max(self.stdout_cursor + Duration::from_micros(1));
            self.stdout_cursor = at;
            // The piece that completes the message (the last non-empty one) carries it.
            let seen = if rest.is_empty() && !piece.is_empty() { seen.take() } else { None };
            sim.schedule_at(at, Ev::Stdout(epoch, piece.to_vec(), seen));
        }
    }
}

/// Whether `bytes` are one whole JSON-RPC response (a result or an error) to request `id`.
fn is_response_to(bytes: &[u8], id: &Value) -> bool {
    bytes.ends_with(b"\n")
        && serde_json::from_slice::<Value>(bytes)
            .is_ok_and(|m| m.get("id") == Some(id) && (m.get("result").is_some() || m.get("error").is_some()))
}
