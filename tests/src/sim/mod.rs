//! Deterministic simulation of the client core: a seeded world with a fake clock and an event
//! queue drives one [`Connection`] against a simulated server, over stdio or HTTP.
//!
//! - stdio ([`server::ServerModel`], modern or legacy per seed): crashes mid-line, spawn
//!   failures, output split at random byte boundaries, garbage lines, duplicate and unknown-id
//!   responses, oversize output (the `huge` tool), processes that stop reading stdin for a while,
//!   restart storms (several processes in a row die right after they start).
//! - HTTP ([`http::HttpServer`]: modern Streamable HTTP, legacy Streamable HTTP with sessions,
//!   or HTTP+SSE): connection refused, connect timeouts, 5xx, response streams cut mid-event,
//!   slow heads and slow bodies, reordering between exchanges, session expiry, 400 with modern
//!   and legacy JSON-RPC error bodies, garbage and oversize bodies.
//!
//! Both serve the same scripted tools ([`tools::Peer`]). Host actions are random: requests of
//! every kind, bursts (requests while the era probe runs), cancels before send, after send and
//! just before the answer lands, and in some seeds a close mid-flight.
//!
//! Push ([`listen`]): the host opens listen streams (random filters, some `require_all`, some
//! with a short acknowledgment timeout) and closes them; the servers acknowledge them in full,
//! in part, late or never, send bursts of tagged notifications (and untagged or unknown-id
//! ones), end them on their own (gracefully, with a bad result, by cancelling); stdio processes
//! crash under open listens and HTTP listen streams drop or meet a 5xx on re-open. Legacy
//! servers may declare `resources.subscribe`, and the host subscribes and unsubscribes. Every
//! notification a listen delivers goes into a small host-side [`NotificationQueue`] popped at
//! random (`World::on_update`, `Sim::check_queue`).
//!
//! Tasks ([`tasks`]; the invariants, and the core bugs they found, in `task_book`): the servers
//! run `job` (and in some seeds `slow`) as tasks in both eras (2026-07-28 `resultType: "task"`
//! polled with `tasks/get`, input answered with `tasks/update`; 2025-11-25 task-augmented calls
//! polled with `tasks/get` and fetched with `tasks/result`, input asked with tagged
//! `elicitation/create` requests), slow, needing input, failing, expiring, cancelled by the
//! server or stuck, with status notifications now and then; faults: dropped and slow polls,
//! reused ids, crashes under live tasks (stdio), a 5xx on the next task message (HTTP) besides
//! every network fault. The host calls task tools plainly, starts calls as tasks and later waits
//! for them (`TaskResult`), looks at them (`GetTask`), cancels them (`CancelTask`), lists them
//! (`ListTasks`), and cancels or times out task calls (`World::task_op`).
//!
//! Invariants are checked after every step (`World::check`, `Sim::on_client_message`, the
//! links' checks on what the client sends, and after every drain: the core tracks exactly the
//! requests the host waits for, within `max_in_flight`); a run has a safety phase (faults on) and a liveness
//! phase (faults healed: what is in flight must end, fresh requests must succeed, the close must
//! complete, nothing may stay open, within bounded simulated time). A failing seed prints its
//! replay command, e.g. `MCP_SIM_SEED=7 MCP_SIM_TRANSPORT=http cargo test -p mcp-tests --test
//! simulation replay_one_seed -- --nocapture`, with the last lines of its trace (`MCP_SIM_TRACE=1`
//! prints the whole trace).

pub mod http;
mod http_link;
pub mod listen;
mod rng;
pub mod server;
mod stdio;
mod task_book;
pub mod tasks;
pub mod tools;

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::hash::{Hash, Hasher};
use std::time::{Duration, Instant};

use mcp_core::{
    CommandError, Connection, Event, Notification, NotificationQueue, QueueLimits, Request, RequestError,
    RequestHandle, RequestOptions, Response, SubscriptionFilter, SubscriptionUpdate,
};
use serde_json::{json, Value};

use listen::{CloseKind, SrvFacts, Tick};
pub use rng::Rng;
pub use task_book::TaskStats;
use task_book::{HostTask, TaskBook};
use tools::TOOLS;

/// How long the faulty phase lasts, in simulated time.
const SAFETY_PHASE: Duration = Duration::from_secs(120);
/// How long the healed phase may take to settle everything.
const LIVENESS_BOUND: Duration = Duration::from_secs(300);
/// The client's message limit in the simulation (the `huge` tool exceeds it).
const MAX_MESSAGE: usize = 64 * 1024;
/// A stdio process must live this long after receiving an acknowledged listen for the listen
/// to be sent to its replacement (the core's rule).
const MIN_LISTEN_LIFETIME: Duration = Duration::from_secs(1);

/// The client configuration of every simulated link, on its transport.
fn client_config(transport: mcp_core::TransportConfig, seed: u64) -> mcp_core::ConnectionConfig {
    let mut cfg = mcp_core::ConnectionConfig::with_transport(transport);
    cfg.protocol = mcp_core::ProtocolMode::Auto;
    cfg.client_info = mcp_core::types::Implementation::new("sim-client", "1");
    cfg.limits.max_message_bytes = MAX_MESSAGE;
    cfg.timeouts.request = Duration::from_secs(10);
    cfg.timeouts.discover = Duration::from_secs(2);
    cfg.timeouts.initialize = Duration::from_secs(5);
    cfg.random_seed = seed;
    cfg.features.elicitation_form = true;
    // Per connection: the determinism check runs a seed twice in one process.
    cfg.deprecation_notices = Some(mcp_core::DeprecationNotices::PerConnection);
    cfg
}
/// Outputs one drain may produce before it counts as a livelock.
const MAX_DRAIN: usize = 1000;
/// Trace lines kept for the failure report.
const RECENT: usize = 60;

/// Which transport a run simulates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Transport {
    /// A server process on stdin/stdout.
    Stdio,
    /// An HTTP server (modern, legacy Streamable HTTP, or HTTP+SSE per seed).
    Http,
}

impl Transport {
    /// From `MCP_SIM_TRANSPORT` (`stdio`, the default, or `http`).
    pub fn from_env() -> Self {
        match std::env::var("MCP_SIM_TRANSPORT") {
            Ok(t) if t.eq_ignore_ascii_case("http") => Transport::Http,
            _ => Transport::Stdio,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Transport::Stdio => "stdio",
            Transport::Http => "http",
        }
    }
}

/// What one run covered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunReport {
    /// The seed.
    pub seed: u64,
    /// The transport.
    pub transport: Transport,
    /// Simulated time covered.
    pub simulated: Duration,
    /// Host requests issued.
    pub requests: usize,
    /// Steps taken (inputs and host actions).
    pub steps: u64,
    /// Processes started (restarts included; stdio).
    pub spawns: u64,
    /// Processes that died under the client (crashes, including mid-line; stdio).
    pub crashes: u64,
    /// HTTP exchanges the client started.
    pub exchanges: u64,
    /// Listen streams the host opened (the core took the request).
    pub listens: u64,
    /// Notifications delivered on listen streams (each pushed into the host queue).
    pub listen_notes: u64,
    /// Entries the host queue evicted under its limits.
    pub queue_dropped: u64,
    /// Task figures.
    pub tasks: TaskStats,
    /// Faults injected, by kind.
    pub faults: BTreeMap<&'static str, u64>,
    /// Paths taken, by kind (re-issues, resumptions, session expiries, cancels...).
    pub coverage: BTreeMap<&'static str, u64>,
    /// A hash of the whole trace (every IO action and event), for the determinism check.
    pub trace_hash: u64,
}

/// Something the world does at a point in simulated time.
#[derive(Debug)]
enum Ev {
    Started(mcp_core::Epoch),
    SpawnFailed(mcp_core::Epoch),
    /// Stdout bytes; the task message whose last byte they carry, if any.
    Stdout(mcp_core::Epoch, Vec<u8>, Option<tasks::Seen>),
    Crash(mcp_core::Epoch),
    Exit(mcp_core::Epoch),
    /// A modern `server/discover` answer has reached the client (era invariant).
    DiscoverDelivered(mcp_core::Epoch),
    /// A process that stopped reading its stdin reads again.
    StdinResumed(mcp_core::Epoch),
    /// A part of an HTTP response.
    Http(mcp_core::ExchangeId, http_link::Part),
    /// A long-lived stream is cut (a fault; nothing once healed). `true`: as a failure.
    HttpCut(mcp_core::ExchangeId, bool),
    HostAction,
    /// The host cancels the `tools/call` with this nonce (its answer is on its way).
    Cancel(u64),
    /// The host answers a server request (the `ask` tool's elicitation).
    Answer(mcp_core::ServerRequestHandle),
    /// The server acts on one of its listens.
    ListenTick(ListenKey, Tick),
}

/// Which listen a server tick is for.
#[derive(Debug)]
enum ListenKey {
    /// The process of this epoch, the listen with this wire id (JSON text).
    Stdio(mcp_core::Epoch, String),
    /// The modern HTTP server, the listen on this exchange.
    Http(mcp_core::ExchangeId),
}

/// What the host knows of one of its listens.
#[derive(Debug)]
struct HostListen {
    nonce: u64,
    asked: SubscriptionFilter,
    require_all: bool,
    /// Waiting for the acknowledgment of the current attempt: at first, and after each
    /// `Reconnecting` (the simulated servers acknowledge before they notify).
    awaiting_ack: bool,
    /// What the last acknowledgment granted.
    granted: Option<SubscriptionFilter>,
    acks: usize,
    /// The host cancelled it.
    cancelled: bool,
    /// stdio: when its current attempt was written.
    sent_at: Option<Duration>,
}

/// The host's side of push: its listens, its resource subscriptions, and the bounded queue
/// every listen notification goes through.
#[derive(Debug)]
struct Push {
    /// Whether this seed opens listens at all.
    enabled: bool,
    /// The server speaks 2026-07-28 (listens), or a handshake revision (legacy subscriptions).
    modern: bool,
    /// A legacy server declares `resources.subscribe`.
    subscribe_cap: bool,
    listens: BTreeMap<RequestHandle, HostListen>,
    subscribes: BTreeSet<RequestHandle>,
    /// What the servers did, by listen nonce.
    srv: BTreeMap<u64, SrvFacts>,
    next_nonce: u64,
    inbox: NotificationQueue<Notification>,
    pushed: u64,
    popped: u64,
    opened: u64,
    notes: u64,
}

/// The state every transport shares: clock, queue, client, and the bookkeeping behind the
/// invariants on handles and messages.
#[derive(Debug)]
struct Sim {
    seed: u64,
    transport: Transport,
    rng: Rng,
    base: Instant,
    now: Duration,
    conn: Connection,
    faults_on: bool,
    queue: BTreeMap<(Duration, u64), Ev>,
    seq: u64,
    live: BTreeSet<RequestHandle>,
    done: BTreeSet<RequestHandle>,
    /// Cancelled by the host: their outcome must be `Cancelled`.
    cancelled: BTreeSet<RequestHandle>,
    /// `tools/call` nonces (an argument) to their handles.
    nonces: BTreeMap<u64, RequestHandle>,
    ids_written: BTreeSet<String>,
    cancels: BTreeSet<String>,
    requests: usize,
    steps: u64,
    faults: BTreeMap<&'static str, u64>,
    coverage: BTreeMap<&'static str, u64>,
    closed_at: Option<Duration>,
    saw_closed: bool,
    /// Inside `close`: every outcome must be `Closed`.
    closing_now: bool,
    trace: std::collections::hash_map::DefaultHasher,
    recent: VecDeque<String>,
    /// The swarm options, for the failure report.
    options: String,
    /// `MCP_SIM_TRACE=1`: print every trace line (for replays).
    print_trace: bool,
    push: Push,
    tasks: TaskBook,
}

impl Sim {
    /// A server acted on one of its listens (acknowledged it, ended it).
    fn server_listen_tick(&mut self, l: &listen::SrvListen, tick: Tick) {
        let Some(nonce) = l.nonce else { return };
        let facts = self.push.srv.entry(nonce).or_default();
        match tick {
            Tick::Ack => facts.grants.extend(l.granted.clone()),
            Tick::Close(kind) => facts.closes.push(kind),
            Tick::Forget => {}
        }
    }

    /// A server sent `n` notifications on the listen of `nonce`.
    fn server_listen_notes(&mut self, nonce: Option<u64>, n: u64) {
        let Some(nonce) = nonce else { return };
        self.push.srv.entry(nonce).or_default().notes += n;
        if self.listen_of(nonce).is_none_or(|h| !self.live.contains(&h)) {
            // The client ended it; the server does not know yet.
            self.seen("listen_notes_after_end");
        }
    }

    /// The host listen of `nonce`.
    fn listen_of(&self, nonce: u64) -> Option<RequestHandle> {
        self.push.listens.iter().find(|(_, l)| l.nonce == nonce).map(|(h, _)| *h)
    }

    /// stdio: the client wrote an attempt of the listen of `nonce`.
    fn listen_written(&mut self, nonce: Option<u64>) {
        let now = self.now;
        let Some(h) = nonce.and_then(|n| self.listen_of(n)) else {
            self.fail(format!("a listen with nonce {nonce:?} written, which the host never opened"))
        };
        if let Some(l) = self.push.listens.get_mut(&h) {
            l.sent_at = Some(now);
        }
    }

    /// What the client sends follows the era and the capabilities: `subscriptions/listen` only
    /// to a 2026-07-28 server, `resources/(un)subscribe` only to a legacy one that declared
    /// `resources.subscribe`.
    fn check_subscription_method(&mut self, method: &str, modern: bool, subscribe: bool) {
        match method {
            "subscriptions/listen" if !modern => self.fail("subscriptions/listen sent to a legacy server"),
            "resources/subscribe" | "resources/unsubscribe" if modern || !subscribe => {
                self.fail(format!("{method} sent to a server that does not take it"))
            }
            _ => {}
        }
    }

    /// The host queue stays within its limits and accounts for every entry.
    fn check_queue(&mut self) {
        let q = &self.push.inbox;
        let limits = q.limits();
        let (len, bytes, dropped) = (q.len(), q.pending_bytes(), q.dropped());
        if len > limits.max_items || bytes > limits.max_bytes {
            self.fail(format!("the host queue holds {len} entries, {bytes} bytes, over {limits:?}"));
        }
        let (pushed, popped) = (self.push.pushed, self.push.popped);
        if pushed != popped + len as u64 + dropped {
            self.fail(format!("queue: {pushed} pushed != {popped} popped + {len} held + {dropped} dropped"));
        }
    }

    /// Pops up to `n` entries from the host queue.
    fn queue_pop(&mut self, n: u64) {
        for _ in 0..n {
            if self.push.inbox.pop().is_none() {
                break;
            }
            self.push.popped += 1;
        }
        self.check_queue();
    }

    fn at(&self) -> Instant {
        self.base + self.now
    }

    fn schedule(&mut self, after: Duration, ev: Ev) {
        self.schedule_at(self.now + after, ev);
    }

    fn schedule_at(&mut self, at: Duration, ev: Ev) {
        self.seq += 1;
        self.queue.insert((at.max(self.now), self.seq), ev);
    }

    fn fault(&mut self, kind: &'static str) {
        *self.faults.entry(kind).or_default() += 1;
    }

    /// Counts a path taken, for the coverage figures.
    fn seen(&mut self, kind: &'static str) {
        *self.coverage.entry(kind).or_default() += 1;
    }

    /// A trace line: hashed for the determinism check, kept for the failure report.
    fn note(&mut self, line: String) {
        line.hash(&mut self.trace);
        if self.recent.len() == RECENT {
            self.recent.pop_front();
        }
        let mut line = line;
        if line.len() > 400 {
            let mut cut = 400;
            while !line.is_char_boundary(cut) {
                cut -= 1;
            }
            line.truncate(cut);
            line.push_str("...");
        }
        if self.print_trace {
            println!("{line}");
        }
        self.recent.push_back(line);
    }

    /// Reports a broken invariant with the replay command and the end of the trace.
    fn fail(&self, what: impl std::fmt::Display) -> ! {
        let (seed, transport) = (self.seed, self.transport.name());
        let trace: Vec<&str> = self.recent.iter().map(String::as_str).collect();
        panic!(
            "seed {seed} ({transport}) at {:?}: invariant violated: {what}\noptions: {}\nlast trace lines:\n  {}\n\
             replay: MCP_SIM_SEED={seed} MCP_SIM_TRANSPORT={transport} cargo test -p mcp-tests --test simulation replay_one_seed -- --nocapture",
            self.now,
            self.options,
            trace.join("\n  ")
        )
    }

    /// Checks one JSON-RPC message the client sent, on any transport: request ids are never
    /// reused, and a request is cancelled at most once.
    fn on_client_message(&mut self, msg: &Value) {
        let method = msg.get("method").and_then(Value::as_str).unwrap_or("");
        if let (Some(id), false) = (msg.get("id"), method.is_empty()) {
            if !self.ids_written.insert(id.to_string()) {
                self.fail(format!("request id {id} sent twice"));
            }
        }
        if method == "notifications/cancelled" {
            let id = msg.pointer("/params/requestId").map(Value::to_string).unwrap_or_default();
            if !self.cancels.insert(id.clone()) {
                self.fail(format!("request {id} cancelled twice"));
            }
        }
        self.on_task_message(msg);
    }

    /// The nonce of the call whose answer a client message waits for: a `tools/call`'s own, or
    /// the call a task message polls for.
    fn answer_nonce(&self, msg: &Value) -> Option<u64> {
        Self::nonce_of(msg).or_else(|| {
            let method = msg.get("method").and_then(Value::as_str)?;
            if !matches!(method, "tasks/get" | "tasks/update" | "tasks/result") {
                return None;
            }
            let task = msg.pointer("/params/taskId")?.as_str()?;
            self.tasks.creator_nonce(task)
        })
    }

    /// What the servers act on besides the request: the time, the phase, an id to reuse.
    fn task_ctx(&self) -> tasks::Ctx {
        tasks::Ctx { now: self.now, faults_on: self.faults_on, reuse: self.tasks.reuse_candidate() }
    }

    /// A `tools/call`'s nonce (the simulation tags every call with one).
    /// What identifies one send of a `tools/call` for the re-send invariants: its nonce, and
    /// whether it is the retry of an input round (which carries `requestState`).
    fn send_key(msg: &Value) -> Option<u64> {
        let nonce = Self::nonce_of(msg)?;
        Some(if msg.pointer("/params/requestState").is_some() { nonce | (1 << 40) } else { nonce })
    }

    fn nonce_of(msg: &Value) -> Option<u64> {
        if msg.get("method").and_then(Value::as_str) != Some("tools/call") {
            return None;
        }
        msg.pointer("/params/arguments/nonce").and_then(Value::as_u64)
    }

    /// Sometimes (faults on) cancels the call with `nonce` just before its answer lands at `at`.
    fn maybe_cancel_before(&mut self, nonce: Option<u64>, at: Duration) {
        if let Some(nonce) = nonce.filter(|_| self.faults_on) {
            if self.rng.percent(10) {
                self.schedule_at(at.saturating_sub(Duration::from_micros(1)), Ev::Cancel(nonce));
            }
        }
    }

    /// A modern `_meta` key is in the params.
    fn has_modern_meta(msg: &Value) -> bool {
        msg.pointer("/params/_meta")
            .and_then(Value::as_object)
            .is_some_and(|m| m.keys().any(|k| k.starts_with("io.modelcontextprotocol/")))
    }
}

#[derive(Debug)]
enum Link {
    Stdio(Box<stdio::StdioLink>),
    Http(Box<http_link::HttpLink>),
}

/// The simulated world for one seed.
#[derive(Debug)]
pub struct World {
    sim: Sim,
    link: Link,
    /// When the host closes mid-flight (some seeds).
    close_mid: Option<Duration>,
    /// The fresh requests of the liveness phase, which must succeed.
    healed: BTreeSet<RequestHandle>,
}

impl World {
    /// A stdio world for `seed` (see [`World::with_transport`]).
    pub fn new(seed: u64, base: Instant) -> Self {
        Self::with_transport(seed, Transport::Stdio, base)
    }

    /// A world for `seed` over `transport`: the server, its era and the fault rates come from
    /// the seed (seed multiples of 4 run without faults; one seed in 8 closes mid-flight).
    pub fn with_transport(seed: u64, transport: Transport, base: Instant) -> Self {
        let mut rng = Rng::new(seed);
        let faulty = !seed.is_multiple_of(4);
        let (link, conn, options) = match transport {
            Transport::Stdio => {
                let (link, conn) = stdio::StdioLink::new(seed, &mut rng, faulty, base);
                let options = format!("{link:?}");
                (Link::Stdio(Box::new(link)), conn, options)
            }
            Transport::Http => {
                let (link, conn) = http_link::HttpLink::new(seed, &mut rng, faulty, base);
                let options = link.options();
                (Link::Http(Box::new(link)), conn, options)
            }
        };
        let close_mid = (seed % 8 == 5).then(|| Duration::from_secs(5 + rng.below(110)));
        let (modern, subscribe_cap) = match &link {
            Link::Stdio(l) => l.era(),
            Link::Http(l) => l.era(),
        };
        let tasks_declared = match &link {
            Link::Stdio(l) => l.tasks_declared(),
            Link::Http(l) => l.tasks_declared(),
        };
        let limits =
            QueueLimits { max_items: 1 + rng.below(12) as usize, max_bytes: 24 + rng.below(600) as usize };
        let push = Push {
            enabled: rng.percent(85),
            modern,
            subscribe_cap,
            listens: BTreeMap::new(),
            subscribes: BTreeSet::new(),
            srv: BTreeMap::new(),
            next_nonce: 0,
            inbox: NotificationQueue::new(limits),
            pushed: 0,
            popped: 0,
            opened: 0,
            notes: 0,
        };
        let tasks = TaskBook::new(rng.percent(85), tasks_declared, modern);
        let options =
            format!("{options}, push {} (queue {limits:?}), task ops {}", push.enabled, tasks.enabled);
        let sim = Sim {
            seed,
            transport,
            rng,
            base,
            now: Duration::ZERO,
            conn,
            faults_on: true,
            queue: BTreeMap::new(),
            seq: 0,
            live: BTreeSet::new(),
            done: BTreeSet::new(),
            cancelled: BTreeSet::new(),
            nonces: BTreeMap::new(),
            ids_written: BTreeSet::new(),
            cancels: BTreeSet::new(),
            requests: 0,
            steps: 0,
            faults: BTreeMap::new(),
            coverage: BTreeMap::new(),
            closed_at: None,
            saw_closed: false,
            closing_now: false,
            trace: Default::default(),
            recent: VecDeque::new(),
            options: format!("{options}, close mid-flight at {close_mid:?}"),
            print_trace: std::env::var("MCP_SIM_TRACE").is_ok_and(|v| v == "1"),
            push,
            tasks,
        };
        let mut w = Self { sim, link, close_mid, healed: BTreeSet::new() };
        w.sim.schedule(Duration::ZERO, Ev::HostAction);
        w
    }

    /// Runs the safety phase, then heals the faults and runs the liveness phase.
    pub fn run(mut self) -> RunReport {
        while let Some(((t, _), _)) = self.sim.queue.first_key_value() {
            let t = *t;
            if t > SAFETY_PHASE {
                break;
            }
            self.advance_to(t);
            self.step();
        }
        self.liveness();
        let (spawns, crashes, exchanges) = match &self.link {
            Link::Stdio(l) => (l.spawns, l.crashes, 0),
            Link::Http(l) => (0, 0, l.exchanges),
        };
        if let Link::Http(l) = &self.link {
            let (faults, seen) = l.server_stats();
            for (k, v) in faults {
                *self.sim.faults.entry(k).or_default() += v;
            }
            for (k, v) in seen {
                *self.sim.coverage.entry(k).or_default() += v;
            }
        }
        RunReport {
            seed: self.sim.seed,
            transport: self.sim.transport,
            simulated: self.sim.now,
            requests: self.sim.requests,
            steps: self.sim.steps,
            spawns,
            crashes,
            exchanges,
            listens: self.sim.push.opened,
            listen_notes: self.sim.push.notes,
            queue_dropped: self.sim.push.inbox.dropped(),
            tasks: self.sim.tasks.stats.clone(),
            faults: self.sim.faults.clone(),
            coverage: self.sim.coverage.clone(),
            trace_hash: self.sim.trace.finish(),
        }
    }

    /// No faults and no new random requests: what is in flight must end; then (unless the host
    /// closed already) fresh requests must succeed; then the close must complete, leaving no
    /// timer, request or exchange behind.
    fn liveness(&mut self) {
        self.sim.faults_on = false;
        match &mut self.link {
            Link::Stdio(l) => l.heal(),
            Link::Http(l) => l.heal(),
        }
        let deadline = self.sim.now.max(SAFETY_PHASE) + LIVENESS_BOUND;
        // The listens still open must each end or be acknowledged (re-opened after a drop or a
        // restart, if need be) once the faults are healed; a listen never ends on its own, so
        // the host then closes them.
        let waiting: BTreeSet<RequestHandle> = self
            .sim
            .push
            .listens
            .iter()
            .filter(|(h, l)| l.awaiting_ack && self.sim.live.contains(h))
            .map(|(h, _)| *h)
            .collect();
        let mut listens_released = false;
        // Rounds of fresh requests once what was in flight has ended: idempotent ones first
        // (the first request may be the one that finds a stale session, and only those are
        // re-sent on a new one), then a tool call on the session that just worked.
        let mut rounds = 0;
        loop {
            let open: Vec<RequestHandle> =
                self.sim.push.listens.keys().filter(|h| self.sim.live.contains(h)).copied().collect();
            if !listens_released && open.iter().all(|h| !self.sim.push.listens[h].awaiting_ack) {
                listens_released = true;
                for h in open {
                    if waiting.contains(&h) {
                        self.sim.seen("listen_healed_reacked");
                    }
                    self.cancel(h);
                }
                self.drain();
            }
            let quiet = self
                .sim
                .queue
                .values()
                .all(|e| matches!(e, Ev::HttpCut(..) | Ev::HostAction | Ev::Cancel(_)));
            if self.sim.live.is_empty() && self.sim.closed_at.is_none() {
                match rounds {
                    0 if quiet => self.healed_requests(&[Request::Ping, Request::ListTools]),
                    0 => {}
                    1 => {
                        self.healed_requests(&[Request::CallTool {
                            name: "echo".into(),
                            arguments: json!({"n": 1, "nonce": u64::MAX}),
                        }]);
                        if self.sim.push.enabled && self.sim.push.modern {
                            self.healed_listen();
                        }
                        self.healed_task_call();
                    }
                    _ => self.host_close(),
                }
                if quiet || rounds > 0 {
                    rounds += 1;
                }
            }
            if self.sim.saw_closed {
                break;
            }
            let next_queue = self.sim.queue.first_key_value().map(|((t, _), _)| *t);
            let next_timer = self.sim.conn.poll_timeout().map(|t| t.saturating_duration_since(self.sim.base));
            let next = match (next_queue, next_timer) {
                (Some(a), Some(b)) => a.min(b),
                (a, b) => match a.or(b) {
                    Some(t) => t,
                    None => {
                        self.sim.fail(format!("stuck: nothing scheduled, live handles {:?}", self.sim.live))
                    }
                },
            };
            if next > deadline {
                self.sim.fail(format!("not settled within {LIVENESS_BOUND:?}: live {:?}", self.sim.live));
            }
            self.advance_to(next);
            self.step();
        }
        if self.sim.conn.poll_timeout().is_some() {
            self.sim.fail("a timer is still armed after Closed");
        }
        if self.sim.conn.in_flight() != 0 {
            self.sim.fail("requests are still in flight after Closed");
        }
        if let Link::Http(l) = &self.link {
            if let Some(x) = l.open_exchanges().first() {
                self.sim.fail(format!("exchange {x} is still open after Closed"));
            }
        }
        self.refused_after_close();
    }

    /// Fresh requests of the liveness phase: with every fault healed they must all succeed.
    fn healed_requests(&mut self, requests: &[Request]) {
        for request in requests {
            self.sim.requests += 1;
            match self.sim.conn.request(self.sim.at(), request.clone(), RequestOptions::default()) {
                Ok(h) => {
                    self.sim.live.insert(h);
                    self.sim.nonces.insert(u64::MAX, h);
                    self.healed.insert(h);
                }
                Err(e) => self.sim.fail(format!("a healed request was refused: {e}")),
            }
        }
        self.drain();
    }

    /// A call of the liveness phase that the server may run as a task: it must succeed (with
    /// the result the server completed its task with, if it became one).
    fn healed_task_call(&mut self) {
        let nonce = u64::MAX - 1;
        let request = Request::CallTool { name: "job".into(), arguments: json!({"n": 2, "nonce": nonce}) };
        self.sim.requests += 1;
        match self.sim.conn.request(self.sim.at(), request, RequestOptions::default()) {
            Ok(h) => {
                self.sim.live.insert(h);
                self.sim.nonces.insert(nonce, h);
                self.sim.track_task_handle(h, HostTask::Call { nonce });
                self.healed.insert(h);
            }
            Err(e) => self.sim.fail(format!("a healed task call was refused: {e}")),
        }
        self.drain();
    }

    /// A listen of the liveness phase that must be granted in full: it must be acknowledged
    /// once and end gracefully (the healed server closes it soon after).
    fn healed_listen(&mut self) {
        let nonce = self.sim.push.next_nonce;
        self.sim.push.next_nonce += 1;
        let asked = listen::host_filter(nonce, &mut self.sim.rng);
        let request = Request::Listen { filter: asked.clone(), require_all: true };
        self.sim.requests += 1;
        match self.sim.conn.request(self.sim.at(), request, RequestOptions::default()) {
            Ok(h) => {
                self.sim.live.insert(h);
                self.healed.insert(h);
                self.track_listen(h, nonce, asked, true);
            }
            Err(e) => self.sim.fail(format!("a healed listen was refused: {e}")),
        }
        self.drain();
    }

    fn track_listen(&mut self, h: RequestHandle, nonce: u64, asked: SubscriptionFilter, require_all: bool) {
        self.sim.push.opened += 1;
        let l = HostListen {
            nonce,
            asked,
            require_all,
            awaiting_ack: true,
            granted: None,
            acks: 0,
            cancelled: false,
            sent_at: None,
        };
        self.sim.push.listens.insert(h, l);
    }

    /// Moves the clock to `t`, firing the client's timers on the way.
    fn advance_to(&mut self, t: Duration) {
        while let Some(deadline) = self.sim.conn.poll_timeout() {
            let d = deadline.saturating_duration_since(self.sim.base);
            if d > t {
                break;
            }
            self.sim.now = self.sim.now.max(d);
            self.sim.conn.handle_timeout(self.sim.at());
            if self.sim.conn.poll_timeout().is_some_and(|n| n <= self.sim.at()) {
                self.sim.fail("a deadline at or before now survived handle_timeout");
            }
            self.drain();
        }
        self.sim.now = self.sim.now.max(t);
    }

    /// Takes the next queued event due now, if any, and handles it.
    fn step(&mut self) {
        let Some((&key, _)) = self.sim.queue.first_key_value() else { return };
        if key.0 > self.sim.now {
            return;
        }
        let Some(ev) = self.sim.queue.remove(&key) else { return };
        self.sim.steps += 1;
        match ev {
            Ev::HostAction => self.host_action(),
            Ev::Answer(h) => self.answer(h),
            Ev::Cancel(nonce) => {
                let h = self.sim.nonces.get(&nonce).copied();
                if let Some(h) = h.filter(|h| self.sim.faults_on && self.sim.live.contains(h)) {
                    self.sim.seen("cancel_as_answer_lands");
                    self.cancel(h);
                }
            }
            ev => match &mut self.link {
                Link::Stdio(l) => l.on_event(&mut self.sim, ev),
                Link::Http(l) => l.on_event(&mut self.sim, ev),
            },
        }
        self.drain();
    }

    /// The host answers the elicitation of the `ask` tool: usually a valid form, sometimes first
    /// an answer that breaks the form (it must be refused and the request must keep waiting),
    /// sometimes a decline or a handler failure.
    fn answer(&mut self, h: mcp_core::ServerRequestHandle) {
        let now = self.sim.at();
        let roll = if self.sim.faults_on { self.sim.rng.below(100) } else { 0 };
        if (60..80).contains(&roll) {
            let bad = json!({"action": "accept", "content": {"name": 7}});
            match self.sim.conn.respond_to_server(now, h, Ok(bad)) {
                Err(mcp_core::AnswerError::InvalidAnswer(_)) => self.sim.seen("invalid_answer_refused"),
                Err(mcp_core::AnswerError::Gone) => return,
                other => self.sim.fail(format!("an answer that breaks the form was not refused: {other:?}")),
            }
        }
        let answer = match roll {
            80..=89 => Ok(json!({"action": "decline"})),
            90..=99 => Err(mcp_core::HandlerError::new("the user closed the dialog")),
            _ => Ok(json!({"action": "accept", "content": {"name": "Ada"}})),
        };
        let failed = answer.is_err();
        match self.sim.conn.respond_to_server(now, h, answer) {
            Ok(()) => {
                self.sim.seen("input_answered");
                if failed {
                    self.sim.on_task_input_failed(h);
                }
            }
            Err(mcp_core::AnswerError::Gone) => {}
            Err(e) => self.sim.fail(format!("a valid answer was refused: {e}")),
        }
    }

    /// Cancels a live request. The core may have ended it already in the same step (a local
    /// answer, a cached list) with its outcome not yet drained: then cancelling does nothing
    /// and the outcome must be waiting.
    fn cancel(&mut self, h: RequestHandle) {
        if self.sim.conn.cancel(self.sim.at(), h) {
            self.sim.cancelled.insert(h);
            self.sim.seen("cancel");
            if let Some(l) = self.sim.push.listens.get_mut(&h) {
                l.cancelled = true;
                self.sim.seen("listen_cancelled");
            }
            return;
        }
        self.drain();
        if self.sim.live.contains(&h) {
            self.sim.fail(format!("cancel of live {h} did nothing, and it has no outcome"));
        }
    }

    fn host_action(&mut self) {
        if !self.sim.faults_on || self.sim.now > SAFETY_PHASE {
            return;
        }
        if self.close_mid.is_some_and(|t| self.sim.now >= t) && self.sim.closed_at.is_none() {
            self.sim.seen("close_mid_flight");
            self.host_close();
        }
        if self.sim.closed_at.is_some() {
            self.refused_after_close();
        } else if self.sim.push.enabled && self.sim.rng.percent(35) {
            self.push_op();
        } else if self.sim.tasks.enabled && self.sim.rng.percent(30) {
            self.task_op();
        } else {
            let roll = self.sim.rng.below(100);
            if roll < 12 && !self.sim.live.is_empty() {
                let i = self.sim.rng.below(self.sim.live.len() as u64) as usize;
                if let Some(&h) = self.sim.live.iter().nth(i) {
                    self.cancel(h);
                }
            } else {
                let burst = if roll < 17 { 2 + self.sim.rng.below(2) } else { 1 };
                for _ in 0..burst {
                    self.random_request();
                }
            }
        }
        if self.sim.push.enabled && self.sim.rng.percent(50) {
            let n = 1 + self.sim.rng.below(3);
            self.sim.queue_pop(n);
        }
        let gap = Duration::from_millis(50 + self.sim.rng.below(3000));
        self.sim.schedule(gap, Ev::HostAction);
    }

    /// One push action: the host opens or closes a listen, or (un)subscribes a resource; or
    /// the server sends a burst on its listens, ends one, sends strays; or a stdio process
    /// crashes under open listens / an HTTP listen stream drops.
    fn push_op(&mut self) {
        let open: Vec<RequestHandle> =
            self.sim.push.listens.keys().filter(|h| self.sim.live.contains(h)).copied().collect();
        match self.sim.rng.below(100) {
            0..=27 => self.open_listen(),
            28..=39 => {
                if !open.is_empty() {
                    let h = open[self.sim.rng.below(open.len() as u64) as usize];
                    self.sim.seen("listen_close");
                    self.cancel(h);
                }
            }
            40..=64 => {
                let big = self.sim.rng.percent(15);
                let n = if self.sim.rng.percent(25) { 40 } else { 4 };
                match &mut self.link {
                    Link::Stdio(l) => l.listen_burst(&mut self.sim, n, big),
                    Link::Http(l) => l.listen_burst(&mut self.sim, n, big),
                }
            }
            65..=72 => {
                let kind =
                    [CloseKind::Graceful, CloseKind::Bad, CloseKind::Cancel][self.sim.rng.below(3) as usize];
                match &mut self.link {
                    Link::Stdio(l) => l.listen_close(&mut self.sim, kind),
                    Link::Http(l) => l.listen_close(&mut self.sim, kind),
                }
            }
            73..=82 => {
                if !open.is_empty() {
                    match &mut self.link {
                        Link::Stdio(l) => l.listen_fault(&mut self.sim),
                        Link::Http(l) => l.listen_fault(&mut self.sim),
                    }
                }
            }
            83..=93 => self.subscribe_op(),
            _ => match &mut self.link {
                Link::Stdio(l) => l.listen_strays(&mut self.sim),
                Link::Http(l) => l.listen_strays(&mut self.sim),
            },
        }
    }

    /// The host opens a listen: a random filter, sometimes `require_all`, sometimes a short
    /// acknowledgment timeout.
    fn open_listen(&mut self) {
        let nonce = self.sim.push.next_nonce;
        self.sim.push.next_nonce += 1;
        let asked = listen::host_filter(nonce, &mut self.sim.rng);
        let require_all = self.sim.rng.percent(20);
        let timeout = self.sim.rng.percent(25).then(|| Duration::from_millis(300 + self.sim.rng.below(6000)));
        let request = Request::Listen { filter: asked.clone(), require_all };
        let opts = RequestOptions { timeout, ..Default::default() };
        match self.sim.conn.request(self.sim.at(), request, opts) {
            Ok(h) => {
                self.sim.requests += 1;
                if !self.sim.live.insert(h) || self.sim.done.contains(&h) {
                    self.sim.fail(format!("handle {h} reused"));
                }
                self.track_listen(h, nonce, asked, require_all);
            }
            Err(CommandError::TooManyInFlight { .. }) => {}
            Err(e) => self.sim.fail(format!("a listen was refused while open: {e}")),
        }
    }

    /// The host subscribes to or unsubscribes from a resource (legacy `resources/subscribe`).
    fn subscribe_op(&mut self) {
        let uri = format!("sim://S/{}", self.sim.rng.below(3));
        let request = if self.sim.rng.percent(70) {
            Request::SubscribeResource { uri }
        } else {
            Request::UnsubscribeResource { uri }
        };
        match self.sim.conn.request(self.sim.at(), request, RequestOptions::default()) {
            Ok(h) => {
                self.sim.requests += 1;
                if !self.sim.live.insert(h) || self.sim.done.contains(&h) {
                    self.sim.fail(format!("handle {h} reused"));
                }
                self.sim.push.subscribes.insert(h);
            }
            Err(CommandError::TooManyInFlight { .. }) => {}
            Err(e) => self.sim.fail(format!("a subscription was refused while open: {e}")),
        }
    }

    /// One task action: the host starts a call as a task, waits for a started task, looks at
    /// one, cancels one, lists them, or cancels a task call; or the server pushes status
    /// notifications; or a fault hits live tasks (a stdio crash, a 5xx on the next task message).
    fn task_op(&mut self) {
        let roll = self.sim.rng.below(100);
        let started = self.sim.tasks.started.clone();
        let pick = |sim: &mut Sim| -> String {
            if started.is_empty() || sim.rng.percent(5) {
                format!("task-bogus-{}", sim.rng.below(100))
            } else {
                started[sim.rng.below(started.len() as u64) as usize].clone()
            }
        };
        match roll {
            0..=27 => {
                let nonce = self.sim.requests as u64;
                let name = ["job", "job", "slow", "echo"][self.sim.rng.below(4) as usize];
                let mut arguments = json!({"n": self.sim.rng.below(100), "nonce": nonce, "simAsTask": true});
                if tasks::AVOID_WAIT_INPUT_BUG {
                    arguments["simNoInput"] = json!(true);
                }
                let timeout = task_timeout(&mut self.sim.rng);
                let request = Request::CallToolAsTask { name: name.into(), arguments };
                if let Some(h) = self.task_request(request, timeout, HostTask::AsTask { nonce }) {
                    self.sim.nonces.insert(nonce, h);
                }
            }
            28..=47 => {
                let task = pick(&mut self.sim);
                // One wait at a time per task (a second would ask for its input again).
                if self.sim.tasks.waiting(&task, &self.sim.live) {
                    return;
                }
                let tool = self.sim.rng.percent(50).then(|| "job".to_owned());
                let timeout = task_timeout(&mut self.sim.rng);
                let request = Request::TaskResult { task_id: task.clone(), tool };
                self.task_request(request, timeout, HostTask::Wait { task });
            }
            48..=59 => {
                let task = pick(&mut self.sim);
                self.task_request(Request::GetTask { task_id: task.clone() }, None, HostTask::Get { task });
            }
            60..=67 => {
                let task = pick(&mut self.sim);
                let request = Request::CancelTask { task_id: task.clone() };
                self.task_request(request, None, HostTask::Cancel { task });
            }
            68..=75 => {
                self.task_request(Request::ListTasks, None, HostTask::List);
            }
            76..=85 => {
                let calls: Vec<RequestHandle> = self.sim.tasks.live_task_calls(&self.sim.live);
                if !calls.is_empty() {
                    let h = calls[self.sim.rng.below(calls.len() as u64) as usize];
                    self.sim.seen("task_host_cancel");
                    self.cancel(h);
                }
            }
            86..=93 => match &mut self.link {
                Link::Stdio(l) => l.task_notes(&mut self.sim),
                Link::Http(l) => l.task_notes(&mut self.sim),
            },
            _ => match &mut self.link {
                Link::Stdio(l) => l.task_fault(&mut self.sim),
                Link::Http(l) => l.task_fault(&mut self.sim),
            },
        }
    }

    /// Issues a task request and records it.
    fn task_request(
        &mut self,
        request: Request,
        timeout: Option<Duration>,
        what: HostTask,
    ) -> Option<RequestHandle> {
        let opts = RequestOptions { timeout, ..Default::default() };
        match self.sim.conn.request(self.sim.at(), request, opts) {
            Ok(h) => {
                self.sim.requests += 1;
                if !self.sim.live.insert(h) || self.sim.done.contains(&h) {
                    self.sim.fail(format!("handle {h} reused"));
                }
                self.sim.track_task_handle(h, what);
                Some(h)
            }
            Err(CommandError::TooManyInFlight { .. }) => None,
            Err(e) => self.sim.fail(format!("a task request was refused while open: {e}")),
        }
    }

    fn random_request(&mut self) {
        let nonce = self.sim.requests as u64;
        let request = match self.sim.rng.below(6) {
            0 => Request::ListTools,
            1 => Request::Ping,
            2 => Request::ListPrompts,
            3 => Request::Connect,
            _ => {
                let name = TOOLS[self.sim.rng.below(TOOLS.len() as u64) as usize];
                let arguments = json!({"n": self.sim.rng.below(100), "nonce": nonce});
                Request::CallTool { name: name.into(), arguments }
            }
        };
        let mut opts = RequestOptions { progress: self.sim.rng.percent(30), ..Default::default() };
        let call = matches!(&request, Request::CallTool { .. });
        if matches!(&request, Request::CallTool { name, .. } if name == "job") {
            opts.timeout = task_timeout(&mut self.sim.rng);
        }
        if self.sim.conn.server_info().is_none() {
            self.sim.seen("request_while_handshaking");
        }
        match self.sim.conn.request(self.sim.at(), request, opts) {
            Ok(h) => {
                self.sim.requests += 1;
                if !self.sim.live.insert(h) || self.sim.done.contains(&h) {
                    self.sim.fail(format!("handle {h} reused"));
                }
                self.sim.nonces.insert(nonce, h);
                if call {
                    self.sim.track_task_handle(h, HostTask::Call { nonce });
                }
                // Cancelled before it is sent (queued behind the probe, or not yet written).
                if self.sim.rng.percent(5) {
                    self.sim.seen("cancel_before_send");
                    self.cancel(h);
                }
            }
            Err(CommandError::TooManyInFlight { .. }) => {}
            Err(e) => self.sim.fail(format!("a request was refused while open: {e}")),
        }
    }

    /// After close every command fails with the close error.
    fn refused_after_close(&mut self) {
        let at = self.sim.at();
        match self.sim.conn.request(at, Request::Ping, RequestOptions::default()) {
            Err(CommandError::Closed) => {}
            other => self.sim.fail(format!("a request after close was not refused: {other:?}")),
        }
        if let Some(&h) = self.sim.done.iter().next_back() {
            if self.sim.conn.cancel(at, h) {
                self.sim.fail(format!("cancel of {h} after close did something"));
            }
        }
        self.drain();
    }

    fn host_close(&mut self) {
        self.sim.closed_at = Some(self.sim.now);
        self.sim.note(format!("{:?} host: close", self.sim.now));
        self.sim.conn.close(self.sim.at());
        self.sim.closing_now = true;
        self.drain();
        self.sim.closing_now = false;
        if !self.sim.live.is_empty() {
            self.sim.fail(format!("handles {:?} got no outcome from close", self.sim.live));
        }
    }

    /// Performs every IO action and checks every event.
    fn drain(&mut self) {
        let mut outputs = 0;
        loop {
            let mut any = false;
            while let Some(io) = self.sim.conn.poll_io() {
                any = true;
                outputs += 1;
                self.sim.note(format!("{:?} {}", self.sim.now, describe_io(&io)));
                match &mut self.link {
                    Link::Stdio(l) => l.perform(&mut self.sim, io),
                    Link::Http(l) => l.perform(&mut self.sim, io),
                }
            }
            while let Some(ev) = self.sim.conn.poll_event() {
                any = true;
                outputs += 1;
                self.sim.note(format!("{:?} {ev:?}", self.sim.now));
                self.check(&ev);
            }
            if outputs > MAX_DRAIN {
                self.sim.fail(format!("a drain produced more than {MAX_DRAIN} outputs"));
            }
            if !any {
                break;
            }
        }
        // Tables stay within their limits and leak nothing: the core tracks exactly the
        // requests the host still waits for.
        let in_flight = self.sim.conn.in_flight();
        if in_flight != self.sim.live.len() {
            self.sim.fail(format!(
                "the core tracks {in_flight} requests, the host waits for {}",
                self.sim.live.len()
            ));
        }
        if in_flight > self.sim.conn.config().limits.max_in_flight {
            self.sim.fail(format!("{in_flight} requests in flight, over the limit"));
        }
    }

    /// The invariants on events: one terminal outcome per handle, nothing for it after; a
    /// cancelled request ends `Cancelled`, a closed one `Closed`; healed requests succeed.
    fn check(&mut self, ev: &Event) {
        match ev {
            Event::Subscription { handle, update } => return self.on_update(*handle, update),
            Event::Response { handle, result } => {
                self.on_push_response(*handle, result);
                self.sim.on_task_outcome(*handle, result);
            }
            _ => {}
        }
        let sim = &mut self.sim;
        match ev {
            Event::Response { handle, result } => {
                if !sim.live.remove(handle) {
                    sim.fail(format!("a response for {handle}, which is not live"));
                }
                sim.done.insert(*handle);
                if sim.cancelled.contains(handle) && !matches!(result, Err(RequestError::Cancelled)) {
                    sim.fail(format!("cancelled {handle} ended with {result:?}"));
                }
                if sim.closing_now && !matches!(result, Err(RequestError::Closed)) {
                    sim.fail(format!("{handle} ended with {result:?} at close"));
                }
                if self.healed.contains(handle) {
                    if result.is_err() {
                        sim.fail(format!("{handle}, sent after every fault healed, failed: {result:?}"));
                    }
                    sim.seen("healed_ok");
                }
                match result {
                    Ok(_) => sim.seen("ok"),
                    Err(RequestError::Rpc(_)) => sim.seen("rpc_error"),
                    Err(RequestError::StreamClosed { .. }) => sim.seen("stream_closed"),
                    Err(RequestError::SessionExpired) => sim.seen("session_expired"),
                    Err(RequestError::Timeout { .. }) => sim.seen("timeout"),
                    Err(RequestError::ResponseTooLarge { .. }) => sim.seen("too_large"),
                    Err(RequestError::TransientServer { .. }) => sim.seen("transient_5xx"),
                    _ => {}
                }
            }
            Event::Progress { handle, .. } => {
                if !sim.live.contains(handle) {
                    sim.fail(format!("progress for {handle}, which is not live"));
                }
                sim.seen("progress");
            }
            Event::ServerRequest { handle, request } => {
                let task_input = tasks::input_key(request.params());
                let mut delay = if sim.faults_on { sim.rng.below(3000) } else { 1 };
                if let Some((task, key)) = task_input {
                    sim.on_task_input(*handle, &task, &key);
                    // The user takes their time.
                    if sim.faults_on && sim.rng.percent(20) {
                        delay = 3000 + sim.rng.below(20_000);
                    }
                }
                sim.schedule(Duration::from_millis(delay), Ev::Answer(*handle));
            }
            Event::Connected(info) => match info.era {
                mcp_core::Era::Modern => sim.seen("connected_modern"),
                mcp_core::Era::Legacy => sim.seen("connected_legacy"),
            },
            Event::Warning(mcp_core::Warning::UnknownSubscription { id }) => {
                // Ids this client used are remembered (the runs stay well within
                // `recent_finished`): only the servers' made-up ids are unknown.
                if !id.contains("ghost") {
                    sim.fail(format!(
                        "a notification for subscription {id}, which this client used, was warned about"
                    ));
                }
                sim.seen("unknown_subscription");
            }
            Event::Closed => {
                if sim.closed_at.is_none() || sim.saw_closed {
                    sim.fail("Closed without close, or twice");
                }
                if !sim.live.is_empty() {
                    sim.fail(format!("Closed with live handles {:?}", sim.live));
                }
                sim.saw_closed = true;
            }
            _ => {}
        }
    }
}

impl World {
    /// The invariants on listen updates: only for a live listen the host has not cancelled
    /// (nothing after its response); one acknowledgment per attempt, never more than the
    /// servers sent, granting what a server sent and naming as unsupported exactly what was
    /// asked and not granted; notifications only after their attempt's acknowledgment, within
    /// what it granted, on the listen they name; on stdio only an acknowledged listen is sent
    /// again after its process died. Each notification goes into the host queue.
    fn on_update(&mut self, h: RequestHandle, update: &SubscriptionUpdate) {
        let stdio = self.sim.transport == Transport::Stdio;
        let now = self.sim.now;
        let sim = &mut self.sim;
        if !sim.live.contains(&h) {
            sim.fail(format!("a subscription update for {h}, which is not live: {update:?}"));
        }
        let Some(l) = sim.push.listens.get_mut(&h) else {
            sim.fail(format!("a subscription update for {h}, which is not a listen"))
        };
        if l.cancelled {
            sim.fail(format!("a subscription update for {h} after the host cancelled it"));
        }
        let facts = sim.push.srv.get(&l.nonce).cloned().unwrap_or_default();
        let problem = match update {
            SubscriptionUpdate::Acknowledged { granted, unsupported } => {
                let expected = l.asked.missing_from(granted);
                let problem = if !l.awaiting_ack {
                    Some("a second acknowledgment on one attempt".to_owned())
                } else if l.acks >= facts.grants.len() {
                    Some(format!(
                        "acknowledgment {} delivered, the servers sent {}",
                        l.acks + 1,
                        facts.grants.len()
                    ))
                } else if !facts.grants.contains(granted) {
                    Some(format!("granted {granted:?}, which no server sent ({:?})", facts.grants))
                } else if *unsupported != expected {
                    Some(format!("unsupported {unsupported:?}, expected {expected:?}"))
                } else {
                    None
                };
                l.awaiting_ack = false;
                l.granted = Some(granted.clone());
                l.acks += 1;
                let partial = !unsupported.is_empty();
                sim.seen("listen_acked");
                if partial {
                    sim.seen("listen_partial");
                }
                problem
            }
            SubscriptionUpdate::Notification(n) => {
                let problem = if l.awaiting_ack {
                    Some(format!("notification {n:?} before its attempt was acknowledged"))
                } else if !l.granted.as_ref().is_some_and(|g| listen::covers(g, n)) {
                    Some(format!("notification {n:?} outside what was granted ({:?})", l.granted))
                } else if listen::nonce_in(n).is_some_and(|k| k != l.nonce) {
                    Some(format!("notification {n:?} routed to the listen of nonce {}", l.nonce))
                } else {
                    None
                };
                sim.push.notes += 1;
                let (subject, cost) = mcp_core::notify_queue::charge(n);
                sim.push.inbox.push(n.clone(), &subject, cost);
                sim.push.pushed += 1;
                sim.check_queue();
                sim.seen("listen_notification");
                problem
            }
            SubscriptionUpdate::Reconnecting { .. } => {
                let lived = l.sent_at.map(|t| now.saturating_sub(t));
                let problem = if stdio && l.awaiting_ack {
                    Some("an unacknowledged listen was kept for the next process".to_owned())
                } else if stdio && lived.is_none_or(|d| d < MIN_LISTEN_LIFETIME) {
                    Some(format!("kept for the next process, its process lived {lived:?} after it"))
                } else {
                    None
                };
                l.awaiting_ack = true;
                sim.seen("listen_reconnecting");
                problem
            }
            other => Some(format!("an unknown update {other:?}")),
        };
        if let Some(problem) = problem {
            sim.fail(format!("listen {h}: {problem}"));
        }
    }

    /// The invariants on how listens and subscriptions end: `ListenEnded` only after a server's
    /// graceful close and only for listens, a bad result only after a server sent one, a refused
    /// grant only for `require_all` listens whose grant was partial, `Unsupported` (or
    /// `CapabilityMissing`) only where the era or the capabilities say so, `Cancelled` only
    /// after the host cancelled; a healed listen is acknowledged exactly once. Subscriptions
    /// succeed only on legacy servers that declared them.
    fn on_push_response(&mut self, h: RequestHandle, result: &Result<Response, RequestError>) {
        let stdio = self.sim.transport == Transport::Stdio;
        let now = self.sim.now;
        let push = &self.sim.push;
        let (modern, cap) = (push.modern, push.subscribe_cap);
        let problem = if let Some(l) = push.listens.get(&h) {
            let closes = push.srv.get(&l.nonce).map(|f| f.closes.clone()).unwrap_or_default();
            let (kind, problem) = match result {
                Ok(Response::ListenEnded) => (
                    "listen_ended_ok",
                    (!closes.contains(&CloseKind::Graceful)).then_some("no graceful close was sent"),
                ),
                Ok(_) => ("", Some("a listen ended with a result other than ListenEnded")),
                Err(RequestError::UnsupportedResultType { .. }) => (
                    "listen_bad_close",
                    (!closes.contains(&CloseKind::Bad)).then_some("no bad close was sent"),
                ),
                Err(RequestError::SubscriptionRefused { .. }) => {
                    let partial = l.granted.as_ref().is_some_and(|g| !l.asked.missing_from(g).is_empty());
                    (
                        "listen_refused",
                        (!(l.require_all && partial)).then_some("refused without a partial required grant"),
                    )
                }
                Err(RequestError::Unsupported { .. }) => {
                    ("listen_unsupported", modern.then_some("refused as unsupported by a modern server"))
                }
                Err(RequestError::Cancelled) => ("", (!l.cancelled).then_some("Cancelled, not by the host")),
                Err(RequestError::Timeout { .. }) => ("listen_timeout", None),
                Err(RequestError::TransportClosed { .. }) if stdio => {
                    // A process that died: an acknowledged listen it kept for long enough
                    // is sent to the next one instead.
                    let lived = l.sent_at.map(|t| now.saturating_sub(t));
                    let kept = !l.awaiting_ack && lived.is_some_and(|d| d >= MIN_LISTEN_LIFETIME);
                    let open = self.sim.closed_at.is_none();
                    match (kept && open, l.awaiting_ack) {
                        (true, _) => ("", Some("an acknowledged listen its process kept for 1 s was failed")),
                        (false, false) => ("listen_lost_young", None),
                        (false, true) => ("listen_lost_unacked", None),
                    }
                }
                Err(RequestError::StreamClosed { .. }) => ("listen_stream_closed", None),
                Err(_) => ("listen_failed", None),
            };
            let healed = self.healed.contains(&h) && l.acks != 1;
            let problem = problem
                .map(str::to_owned)
                .or_else(|| healed.then(|| format!("the healed listen was acknowledged {} times", l.acks)));
            if !kind.is_empty() {
                self.sim.seen(kind);
            }
            problem.map(|p| format!("listen {h} ended with {result:?}: {p}"))
        } else if push.subscribes.contains(&h) {
            let takes = !modern && cap;
            match result {
                Ok(_) if !takes => {
                    Some(format!("subscription {h} succeeded on a server that does not take it"))
                }
                Ok(_) => {
                    self.sim.seen("subscribe_ok");
                    None
                }
                Err(RequestError::Unsupported { .. } | RequestError::CapabilityMissing { .. }) if takes => {
                    Some(format!("subscription {h} refused by a server that declared resources.subscribe"))
                }
                Err(RequestError::Unsupported { .. } | RequestError::CapabilityMissing { .. }) => {
                    self.sim.seen("subscribe_refused");
                    None
                }
                Err(_) => None,
            }
        } else if matches!(result, Ok(Response::ListenEnded)) {
            Some(format!("{h}, not a listen, ended with ListenEnded"))
        } else {
            None
        };
        if let Some(problem) = problem {
            self.sim.fail(problem);
        }
    }
}

/// A task call's timeout: the default (10 s), a long one, or a short one.
fn task_timeout(rng: &mut Rng) -> Option<Duration> {
    match rng.below(100) {
        0..=44 => None,
        45..=74 => Some(Duration::from_secs(60)),
        _ => Some(Duration::from_millis(1000 + rng.below(5000))),
    }
}

/// An IO action for the trace (stdin writes as text).
fn describe_io(io: &mcp_core::Io) -> String {
    match io {
        mcp_core::Io::Write { epoch, bytes } => format!("Write {epoch} {:?}", String::from_utf8_lossy(bytes)),
        other => format!("{other:?}"),
    }
}
