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

/// `on_link!(link, l => expr)`: `expr` on the link, whichever transport it is (the HTTP link
/// exists with the `http` feature only).
macro_rules! on_link {
    ($link:expr, $l:ident => $e:expr) => {
        match $link {
            Link::Stdio($l) => $e,
            #[cfg(feature = "http")]
            Link::Http($l) => $e,
        }
    };
}

mod bookkeeping;
mod checks;
mod host;
#[cfg(feature = "http")]
pub mod http;
#[cfg(feature = "http")]
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

use mcpwire_core::{
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
fn client_config(transport: mcpwire_core::TransportConfig, seed: u64) -> mcpwire_core::ConnectionConfig {
    let mut cfg = mcpwire_core::ConnectionConfig::with_transport(transport);
    cfg.protocol = mcpwire_core::ProtocolMode::Auto;
    cfg.client_info = mcpwire_core::types::Implementation::new("sim-client", "1");
    cfg.limits.max_message_bytes = MAX_MESSAGE;
    cfg.timeouts.request = Duration::from_secs(10);
    cfg.timeouts.discover = Duration::from_secs(2);
    cfg.timeouts.initialize = Duration::from_secs(5);
    cfg.random_seed = seed;
    cfg.features.elicitation_form = true;
    // Per connection: the determinism check runs a seed twice in one process.
    cfg.deprecation_notices = Some(mcpwire_core::DeprecationNotices::PerConnection);
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
    #[cfg(feature = "http")]
    Http,
}

impl Transport {
    /// From `MCP_SIM_TRANSPORT` (`stdio`, the default, or `http`; `http` needs the `http`
    /// feature).
    pub fn from_env() -> Self {
        match std::env::var("MCP_SIM_TRANSPORT") {
            #[cfg(feature = "http")]
            Ok(t) if t.eq_ignore_ascii_case("http") => Transport::Http,
            #[cfg(not(feature = "http"))]
            Ok(t) if t.eq_ignore_ascii_case("http") => {
                panic!("MCP_SIM_TRANSPORT=http needs the `http` feature of mcp-tests")
            }
            _ => Transport::Stdio,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Transport::Stdio => "stdio",
            #[cfg(feature = "http")]
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
    Started(mcpwire_core::Epoch),
    SpawnFailed(mcpwire_core::Epoch),
    /// Stdout bytes; the task message whose last byte they carry, if any.
    Stdout(mcpwire_core::Epoch, Vec<u8>, Option<tasks::Seen>),
    Crash(mcpwire_core::Epoch),
    Exit(mcpwire_core::Epoch),
    /// A modern `server/discover` answer has reached the client (era invariant).
    DiscoverDelivered(mcpwire_core::Epoch),
    /// A process that stopped reading its stdin reads again.
    StdinResumed(mcpwire_core::Epoch),
    /// A part of an HTTP response.
    #[cfg(feature = "http")]
    Http(mcpwire_core::ExchangeId, http_link::Part),
    /// A long-lived stream is cut (a fault; nothing once healed). `true`: as a failure.
    #[cfg(feature = "http")]
    HttpCut(mcpwire_core::ExchangeId, bool),
    HostAction,
    /// The host cancels the `tools/call` with this nonce (its answer is on its way).
    Cancel(u64),
    /// The host answers a server request (the `ask` tool's elicitation).
    Answer(mcpwire_core::ServerRequestHandle),
    /// The server acts on one of its listens.
    ListenTick(ListenKey, Tick),
}

impl Ev {
    /// Whether the event may still be queued when nothing is in flight any more: host
    /// actions, cancels of calls that ended, and (HTTP) cuts of long-lived streams.
    fn quiet(&self) -> bool {
        match self {
            Ev::HostAction | Ev::Cancel(_) => true,
            #[cfg(feature = "http")]
            Ev::HttpCut(..) => true,
            _ => false,
        }
    }
}

/// Which listen a server tick is for.
#[derive(Debug)]
enum ListenKey {
    /// The process of this epoch, the listen with this wire id (JSON text).
    Stdio(mcpwire_core::Epoch, String),
    /// The modern HTTP server, the listen on this exchange.
    #[cfg(feature = "http")]
    Http(mcpwire_core::ExchangeId),
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
    /// Notifications the client dropped as not asked for.
    unrequested: u64,
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

#[derive(Debug)]
enum Link {
    Stdio(Box<stdio::StdioLink>),
    #[cfg(feature = "http")]
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
            #[cfg(feature = "http")]
            Transport::Http => {
                let (link, conn) = http_link::HttpLink::new(seed, &mut rng, faulty, base);
                let options = link.options();
                (Link::Http(Box::new(link)), conn, options)
            }
        };
        let close_mid = (seed % 8 == 5).then(|| Duration::from_secs(5 + rng.below(110)));
        let (modern, subscribe_cap) = on_link!(&link, l => l.era());
        let tasks_declared = on_link!(&link, l => l.tasks_declared());
        let limits = QueueLimits::default()
            .max_items(1 + rng.below(12) as usize)
            .max_bytes(24 + rng.below(600) as usize);
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
            #[cfg(feature = "http")]
            Link::Http(l) => (0, 0, l.exchanges),
        };
        #[cfg(feature = "http")]
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
        on_link!(&mut self.link, l => l.heal());
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
            let quiet = self.sim.queue.values().all(Ev::quiet);
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
        #[cfg(feature = "http")]
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
            unrequested: 0,
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
            ev => on_link!(&mut self.link, l => l.on_event(&mut self.sim, ev)),
        }
        self.drain();
    }

    /// The host answers the elicitation of the `ask` tool: usually a valid form, sometimes first
    /// an answer that breaks the form (it must be refused and the request must keep waiting),
    /// sometimes a decline or a handler failure.
    fn answer(&mut self, h: mcpwire_core::ServerRequestHandle) {
        let now = self.sim.at();
        let roll = if self.sim.faults_on { self.sim.rng.below(100) } else { 0 };
        if (60..80).contains(&roll) {
            let bad = json!({"action": "accept", "content": {"name": 7}});
            match self.sim.conn.respond_to_server(now, h, Ok(bad)) {
                Err(mcpwire_core::AnswerError::InvalidAnswer(_)) => self.sim.seen("invalid_answer_refused"),
                Err(mcpwire_core::AnswerError::Gone) => return,
                other => self.sim.fail(format!("an answer that breaks the form was not refused: {other:?}")),
            }
        }
        let answer = match roll {
            80..=89 => Ok(json!({"action": "decline"})),
            90..=99 => Err(mcpwire_core::HandlerError::new("the user closed the dialog")),
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
            Err(mcpwire_core::AnswerError::Gone) => {}
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
}
