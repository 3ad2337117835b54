//! Deterministic simulation of the client core over stdio: a seeded world with a fake clock
//! and an event queue drives one [`Connection`] against a simulated server process
//! ([`server::ServerModel`], modern or legacy per seed), with faults chosen per seed (crashes
//! mid-line, spawn failures, output split at random byte boundaries, garbage lines, duplicate
//! and unknown-id responses) and random host actions (requests of every kind, cancels, a close).
//!
//! Invariants are checked after every step (see `World::check` and `World::on_write`); a run has a safety phase
//! (faults on) and a liveness phase (faults healed: every handle must end and the close must
//! complete within bounded simulated time). A failing seed is replayed with
//! `MCP_SIM_SEED=<seed> cargo test -p mcp-tests --test simulation replay_one_seed -- --nocapture`.

mod rng;
pub mod server;

use std::collections::{BTreeMap, BTreeSet};
use std::hash::{Hash, Hasher};
use std::time::{Duration, Instant};

use mcp_core::types::Implementation;
use mcp_core::{
    CommandError, Connection, ConnectionConfig, Epoch, Event, ExitInfo, Io, ProtocolMode, Request,
    RequestHandle, RequestOptions, StdioCommand,
};
use serde_json::{json, Value};

pub use rng::Rng;
use server::{ServerFaults, ServerModel, ServerOutput, SimEra, TOOLS};

/// How long the faulty phase lasts, in simulated time.
const SAFETY_PHASE: Duration = Duration::from_secs(120);
/// How long the healed phase may take to settle everything.
const LIVENESS_BOUND: Duration = Duration::from_secs(300);
/// The client's message limit in the simulation (the `huge` tool exceeds it).
const MAX_MESSAGE: usize = 64 * 1024;

/// What one run covered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunReport {
    /// The seed.
    pub seed: u64,
    /// Simulated time covered.
    pub simulated: Duration,
    /// Host requests issued.
    pub requests: usize,
    /// Steps taken (inputs and host actions).
    pub steps: u64,
    /// Processes started (restarts included).
    pub spawns: u64,
    /// Processes that died under the client (crashes, including mid-line).
    pub crashes: u64,
    /// A hash of the whole trace (every IO action and event), for the determinism check.
    pub trace_hash: u64,
}

#[derive(Debug)]
enum Ev {
    Started(Epoch),
    SpawnFailed(Epoch),
    Stdout(Epoch, Vec<u8>),
    Crash(Epoch),
    Exit(Epoch),
    /// A modern `server/discover` answer has reached the client (era invariant).
    DiscoverDelivered(Epoch),
    HostAction,
}

/// The process the world runs for the current epoch.
#[derive(Debug)]
struct Process {
    epoch: Epoch,
    model: ServerModel,
    /// Bytes of an unfinished client line.
    pending: Vec<u8>,
    alive: bool,
}

/// Per-epoch facts for the era invariants.
#[derive(Debug, Default)]
struct EpochFacts {
    discover_answered_modern: bool,
    legacy_session: bool,
}

/// The simulated world for one seed.
#[derive(Debug)]
pub struct World {
    seed: u64,
    rng: Rng,
    base: Instant,
    now: Duration,
    conn: Connection,
    era: SimEra,
    faults_on: bool,
    faults: ServerFaults,
    spawn_fail: u64,
    queue: BTreeMap<(Duration, u64), Ev>,
    seq: u64,
    process: Option<Process>,
    live: BTreeSet<RequestHandle>,
    done: BTreeSet<RequestHandle>,
    ids_written: BTreeSet<String>,
    cancels: BTreeSet<String>,
    facts: BTreeMap<Epoch, EpochFacts>,
    requests: usize,
    steps: u64,
    spawns: u64,
    crashes: u64,
    /// When the last stdout piece is due: stdout is one ordered pipe.
    stdout_cursor: Duration,
    closed_at: Option<Duration>,
    saw_closed: bool,
    trace: std::collections::hash_map::DefaultHasher,
}

fn violation(seed: u64, what: impl std::fmt::Display) -> ! {
    panic!(
        "seed {seed}: invariant violated: {what}\nreplay: MCP_SIM_SEED={seed} cargo test -p mcp-tests --test simulation replay_one_seed -- --nocapture"
    )
}

impl World {
    /// A world for `seed`: the server's era and the fault rates come from the seed (seed
    /// multiples of 4 run without faults).
    pub fn new(seed: u64, base: Instant) -> Self {
        let mut rng = Rng::new(seed);
        let era = if rng.percent(50) { SimEra::Modern } else { SimEra::Legacy };
        let faulty = seed % 4 != 0;
        let pick = |rng: &mut Rng, max: u64| if faulty { rng.below(max + 1) } else { 0 };
        let faults = ServerFaults {
            duplicate: pick(&mut rng, 10),
            unknown_id: pick(&mut rng, 10),
            garbage: pick(&mut rng, 10),
            crash: pick(&mut rng, 4),
        };
        let spawn_fail = pick(&mut rng, 20);
        let mut cfg = ConnectionConfig::stdio(StdioCommand::new("sim-server"));
        cfg.protocol = ProtocolMode::Auto;
        cfg.client_info = Implementation::new("sim-client", "1");
        cfg.limits.max_message_bytes = MAX_MESSAGE;
        cfg.timeouts.request = Duration::from_secs(10);
        cfg.timeouts.discover = Duration::from_secs(2);
        cfg.timeouts.initialize = Duration::from_secs(5);
        cfg.random_seed = seed;
        let conn = Connection::new(cfg, base);
        let mut w = Self {
            seed,
            rng,
            base,
            now: Duration::ZERO,
            conn,
            era,
            faults_on: true,
            faults,
            spawn_fail,
            queue: BTreeMap::new(),
            seq: 0,
            process: None,
            live: BTreeSet::new(),
            done: BTreeSet::new(),
            ids_written: BTreeSet::new(),
            cancels: BTreeSet::new(),
            facts: BTreeMap::new(),
            requests: 0,
            steps: 0,
            spawns: 0,
            crashes: 0,
            stdout_cursor: Duration::ZERO,
            closed_at: None,
            saw_closed: false,
            trace: Default::default(),
        };
        w.schedule(Duration::ZERO, Ev::HostAction);
        w
    }

    fn at(&self) -> Instant {
        self.base + self.now
    }

    fn schedule(&mut self, after: Duration, ev: Ev) {
        self.seq += 1;
        self.queue.insert((self.now + after, self.seq), ev);
    }

    /// Runs the safety phase, then heals the faults and runs the liveness phase.
    pub fn run(mut self) -> RunReport {
        while let Some(((t, _), _)) = self.queue.first_key_value() {
            let t = *t;
            if t > SAFETY_PHASE {
                break;
            }
            self.advance_to(t);
            self.step();
        }
        // Liveness: no faults, no new requests; everything in flight must end, then close.
        self.faults_on = false;
        self.faults = ServerFaults::default();
        self.spawn_fail = 0;
        let deadline = self.now.max(SAFETY_PHASE) + LIVENESS_BOUND;
        loop {
            if self.live.is_empty() && self.closed_at.is_none() {
                self.host_close();
            }
            if self.saw_closed {
                break;
            }
            let next_queue = self.queue.first_key_value().map(|((t, _), _)| *t);
            let next_timer = self.conn.poll_timeout().map(|t| t.saturating_duration_since(self.base));
            let next = match (next_queue, next_timer) {
                (Some(a), Some(b)) => a.min(b),
                (a, b) => match a.or(b) {
                    Some(t) => t,
                    None => violation(
                        self.seed,
                        format!("stuck: nothing scheduled, live handles {:?}", self.live),
                    ),
                },
            };
            if next > deadline {
                violation(self.seed, format!("not settled within {LIVENESS_BOUND:?}: live {:?}", self.live));
            }
            self.advance_to(next);
            self.step();
        }
        if self.conn.poll_timeout().is_some() {
            violation(self.seed, "a timer is still armed after Closed");
        }
        if self.conn.in_flight() != 0 {
            violation(self.seed, "requests are still in flight after Closed");
        }
        match self.conn.request(self.at(), Request::Ping, RequestOptions::default()) {
            Err(CommandError::Closed) => {}
            other => violation(self.seed, format!("a request after close was not refused: {other:?}")),
        }
        RunReport {
            seed: self.seed,
            simulated: self.now,
            requests: self.requests,
            steps: self.steps,
            spawns: self.spawns,
            crashes: self.crashes,
            trace_hash: self.trace.finish(),
        }
    }

    /// Moves the clock to `t`, firing the client's timers on the way.
    fn advance_to(&mut self, t: Duration) {
        while let Some(deadline) = self.conn.poll_timeout() {
            let d = deadline.saturating_duration_since(self.base);
            if d > t {
                break;
            }
            self.now = self.now.max(d);
            self.conn.handle_timeout(self.at());
            if self.conn.poll_timeout().is_some_and(|n| n <= self.at()) {
                violation(self.seed, "a deadline at or before now survived handle_timeout");
            }
            self.drain();
        }
        self.now = self.now.max(t);
    }

    /// Takes the next queued event due now, if any, and handles it.
    fn step(&mut self) {
        let Some((&key, _)) = self.queue.first_key_value() else { return };
        if key.0 > self.now {
            return;
        }
        let Some(ev) = self.queue.remove(&key) else { return };
        self.steps += 1;
        let now = self.at();
        match ev {
            Ev::Started(epoch) => self.conn.handle_process_started(now, epoch),
            Ev::SpawnFailed(epoch) => {
                self.conn.handle_spawn_failed(now, epoch, "simulated spawn failure".into())
            }
            Ev::Stdout(epoch, bytes) => self.conn.handle_stdout(now, epoch, &bytes),
            Ev::Crash(epoch) => {
                if let Some(p) = self.process.as_mut().filter(|p| p.epoch == epoch && p.alive) {
                    p.alive = false;
                    if self.closed_at.is_none() {
                        self.crashes += 1;
                    }
                    self.conn.handle_stdout_eof(now, epoch);
                    self.schedule(Duration::from_millis(1), Ev::Exit(epoch));
                }
            }
            Ev::Exit(epoch) => {
                let status = ExitInfo { code: Some(1), signal: None };
                self.conn.handle_process_exited(now, epoch, status);
            }
            Ev::DiscoverDelivered(epoch) => {
                if self.process.as_ref().is_some_and(|p| p.epoch == epoch && p.alive) {
                    self.facts.entry(epoch).or_default().discover_answered_modern = true;
                }
            }
            Ev::HostAction => self.host_action(),
        }
        self.drain();
    }

    fn host_action(&mut self) {
        if !self.faults_on || self.now > SAFETY_PHASE {
            return;
        }
        let roll = self.rng.below(100);
        if roll < 15 && !self.live.is_empty() {
            let i = self.rng.below(self.live.len() as u64) as usize;
            if let Some(&h) = self.live.iter().nth(i) {
                self.conn.cancel(self.at(), h);
            }
        } else {
            let request = match self.rng.below(6) {
                0 => Request::ListTools,
                1 => Request::Ping,
                2 => Request::ListPrompts,
                3 => Request::Connect,
                _ => {
                    let name = TOOLS[self.rng.below(TOOLS.len() as u64) as usize];
                    Request::CallTool { name: name.into(), arguments: json!({"n": self.rng.below(100)}) }
                }
            };
            let opts = RequestOptions { progress: self.rng.percent(30), ..Default::default() };
            match self.conn.request(self.at(), request, opts) {
                Ok(h) => {
                    self.requests += 1;
                    if !self.live.insert(h) || self.done.contains(&h) {
                        violation(self.seed, format!("handle {h} reused"));
                    }
                }
                Err(CommandError::TooManyInFlight { .. }) => {}
                Err(e) => violation(self.seed, format!("a request was refused while open: {e}")),
            }
        }
        let gap = Duration::from_millis(50 + self.rng.below(3000));
        self.schedule(gap, Ev::HostAction);
    }

    fn host_close(&mut self) {
        self.closed_at = Some(self.now);
        self.conn.close(self.at());
        self.drain();
    }

    /// Performs every IO action and checks every event.
    fn drain(&mut self) {
        loop {
            let mut any = false;
            while let Some(io) = self.conn.poll_io() {
                any = true;
                format!("{:?} {io:?}", self.now).hash(&mut self.trace);
                self.perform(io);
            }
            while let Some(ev) = self.conn.poll_event() {
                any = true;
                format!("{:?} {ev:?}", self.now).hash(&mut self.trace);
                self.check(&ev);
            }
            if !any {
                break;
            }
        }
    }

    /// The invariants on events: one terminal outcome per handle, nothing for it after.
    fn check(&mut self, ev: &Event) {
        match ev {
            Event::Response { handle, .. } => {
                if !self.live.remove(handle) {
                    violation(self.seed, format!("a response for {handle}, which is not live"));
                }
                self.done.insert(*handle);
            }
            Event::Progress { handle, .. } if !self.live.contains(handle) => {
                violation(self.seed, format!("progress for {handle}, which is not live"));
            }
            Event::Closed => {
                if self.closed_at.is_none() || self.saw_closed {
                    violation(self.seed, "Closed without close, or twice");
                }
                if !self.live.is_empty() {
                    violation(self.seed, format!("Closed with live handles {:?}", self.live));
                }
                self.saw_closed = true;
            }
            _ => {}
        }
    }

    fn perform(&mut self, io: Io) {
        match io {
            Io::Spawn { epoch, .. } => {
                self.spawns += 1;
                let delay = Duration::from_millis(5 + self.rng.below(50));
                if self.rng.percent(self.spawn_fail) {
                    self.schedule(delay, Ev::SpawnFailed(epoch));
                } else {
                    let model = ServerModel::new(self.era, MAX_MESSAGE + 1024);
                    self.process = Some(Process { epoch, model, pending: Vec::new(), alive: true });
                    self.schedule(delay, Ev::Started(epoch));
                }
            }
            Io::Write { epoch, bytes } => self.on_write(epoch, &bytes),
            Io::CloseStdin { epoch } | Io::Terminate { epoch, .. } => {
                if self.process.as_ref().is_some_and(|p| p.epoch == epoch && p.alive) {
                    let delay = Duration::from_millis(1 + self.rng.below(30));
                    self.schedule(delay, Ev::Crash(epoch));
                }
            }
            other => violation(self.seed, format!("unexpected IO on stdio: {other:?}")),
        }
    }

    /// The invariants on writes (whole single-line JSON-RPC, unique ids, at most one
    /// cancellation per request, era rules), then the server's reaction.
    fn on_write(&mut self, epoch: Epoch, bytes: &[u8]) {
        if bytes.last() != Some(&b'\n') || bytes.iter().filter(|b| **b == b'\n').count() != 1 {
            violation(
                self.seed,
                format!("a write is not exactly one line: {:?}", String::from_utf8_lossy(bytes)),
            );
        }
        let msg: Value = serde_json::from_slice(bytes)
            .unwrap_or_else(|e| violation(self.seed, format!("a write is not JSON ({e})")));
        let method = msg.get("method").and_then(Value::as_str).unwrap_or("");
        if let (Some(id), false) = (msg.get("id"), method.is_empty()) {
            if !self.ids_written.insert(id.to_string()) {
                violation(self.seed, format!("request id {id} written twice"));
            }
        }
        if method == "notifications/cancelled" {
            let id = msg.pointer("/params/requestId").map(Value::to_string).unwrap_or_default();
            if !self.cancels.insert(id.clone()) {
                violation(self.seed, format!("request {id} cancelled twice"));
            }
        }
        let facts = self.facts.entry(epoch).or_default();
        if method == "initialize" && facts.discover_answered_modern {
            violation(self.seed, "initialize sent to a server that answered server/discover");
        }
        let modern_meta = msg
            .pointer("/params/_meta")
            .and_then(Value::as_object)
            .is_some_and(|m| m.keys().any(|k| k.starts_with("io.modelcontextprotocol/")));
        if facts.legacy_session && modern_meta {
            violation(self.seed, format!("modern _meta sent to a legacy session: {msg}"));
        }
        if method == "notifications/initialized" {
            facts.legacy_session = true;
        }
        let Some(p) = self.process.as_mut().filter(|p| p.epoch == epoch && p.alive) else { return };
        p.pending.extend_from_slice(bytes);
        let faults = if self.faults_on { self.faults } else { ServerFaults::default() };
        let mut lines = Vec::new();
        while let Some(i) = p.pending.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = p.pending.drain(..=i).collect();
            let outputs = p.model.on_line(&line, &mut self.rng, faults);
            lines.push((line, outputs));
        }
        for (line, outputs) in lines {
            let discover = self.era == SimEra::Modern
                && serde_json::from_slice::<Value>(&line).is_ok_and(|m| m["method"] == "server/discover");
            let mut answered = false;
            for (delay, output) in outputs {
                match output {
                    ServerOutput::Crash => self.schedule(delay, Ev::Crash(epoch)),
                    ServerOutput::Stdout(bytes) => {
                        self.deliver(epoch, delay, bytes);
                        answered = true;
                    }
                }
            }
            if discover && answered {
                let at = self.stdout_cursor.saturating_sub(self.now);
                self.schedule(at, Ev::DiscoverDelivered(epoch));
            }
        }
    }

    /// Stdout bytes, split at random boundaries when faults are on.
    fn deliver(&mut self, epoch: Epoch, delay: Duration, bytes: Vec<u8>) {
        let pieces = if self.faults_on && bytes.len() > 1 { 1 + self.rng.below(4) } else { 1 };
        let mut rest = bytes.as_slice();
        for k in 0..pieces {
            let take =
                if k + 1 == pieces { rest.len() } else { self.rng.below(rest.len() as u64 + 1) as usize };
            let (piece, tail) = rest.split_at(take);
            rest = tail;
            // One ordered pipe: a message's pieces, and messages, never interleave.
            let at = (self.now + delay).max(self.stdout_cursor + Duration::from_micros(1));
            self.stdout_cursor = at;
            self.schedule(at - self.now, Ev::Stdout(epoch, piece.to_vec()));
        }
    }
}
