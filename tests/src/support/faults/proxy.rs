//! The fault proxy itself: a loopback listener, a thread per connection relaying the response
//! (and injecting the connection's fault) plus one relaying the request, every socket kept in a
//! registry so that dropping the proxy can wake and end every thread.

use std::collections::BTreeMap;
use std::io;
use std::net::{Ipv4Addr, Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use super::plan::Plan;
use super::relay;

/// Connections relayed at once; the next ones are accepted and closed at once (and counted).
pub const MAX_CONNECTIONS: usize = 256;

/// What the proxy did so far.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Counts {
    /// Connections accepted.
    pub connections: usize,
    /// Connections closed at once because [`MAX_CONNECTIONS`] were open.
    pub refused: usize,
    /// The faults the plan gave, by [`Fault::name`](super::Fault::name) (`pass` included).
    pub planned: BTreeMap<&'static str, usize>,
    /// The faults that took effect, by name (a fault whose byte count the connection never
    /// reached does not).
    pub injected: BTreeMap<&'static str, usize>,
}

impl Counts {
    /// Faults that took effect, of every kind.
    pub fn injected_total(&self) -> usize {
        self.injected.values().sum()
    }
}

/// State shared by the accept loop and the connection threads.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) upstream: SocketAddr,
    plan: Mutex<Plan>,
    /// Bumped by every new plan: a connection's fault is armed only while the plan it was
    /// drawn from is the current one.
    generation: AtomicU64,
    stopping: AtomicBool,
    /// The sockets of each open connection (clones), to shut them down on drop.
    sockets: Mutex<BTreeMap<u64, Vec<TcpStream>>>,
    threads: Mutex<Vec<JoinHandle<()>>>,
    counts: Mutex<Counts>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Shared {
    /// Whether the proxy is being dropped.
    pub(crate) fn stopping(&self) -> bool {
        self.stopping.load(Ordering::SeqCst)
    }

    /// The current plan's generation.
    pub(crate) fn generation(&self) -> u64 {
        self.generation.load(Ordering::SeqCst)
    }

    /// Whether a fault drawn under `generation` may still take effect.
    pub(crate) fn armed(&self, generation: u64) -> bool {
        self.generation() == generation
    }

    /// Counts a fault that took effect.
    pub(crate) fn injected(&self, name: &'static str) {
        *lock(&self.counts).injected.entry(name).or_default() += 1;
    }

    /// Keeps clones of a connection's sockets; false (nothing kept) when the proxy is stopping.
    pub(crate) fn register(&self, id: u64, sockets: &[&TcpStream]) -> bool {
        let clones: io::Result<Vec<TcpStream>> = sockets.iter().map(|s| s.try_clone()).collect();
        let mut registry = lock(&self.sockets);
        match clones {
            Ok(clones) if !self.stopping() => {
                registry.insert(id, clones);
                true
            }
            _ => false,
        }
    }

    /// Forgets a connection's sockets (closing the clones).
    pub(crate) fn unregister(&self, id: u64) {
        lock(&self.sockets).remove(&id);
    }

    /// Sleeps for `pause`, or less when the proxy is dropped meanwhile; false in that case.
    pub(crate) fn sleep(&self, pause: Duration) -> bool {
        let until = Instant::now() + pause;
        loop {
            if self.stopping() {
                return false;
            }
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return true;
            }
            thread::sleep(left.min(Duration::from_millis(10)));
        }
    }
}

/// A fault-injecting TCP proxy on a loopback port in front of `upstream`. Each accepted
/// connection gets the next fault of its [`Plan`]; dropping the proxy closes every connection
/// and joins every thread it started.
#[derive(Debug)]
pub struct FaultProxy {
    addr: SocketAddr,
    shared: Arc<Shared>,
    accept: Option<JoinHandle<()>>,
}

impl FaultProxy {
    /// Starts a proxy on a free loopback port relaying to `upstream` under `plan`.
    pub fn start(upstream: SocketAddr, plan: Plan) -> io::Result<Self> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            upstream,
            plan: Mutex::new(plan),
            generation: AtomicU64::new(0),
            stopping: AtomicBool::new(false),
            sockets: Mutex::new(BTreeMap::new()),
            threads: Mutex::new(Vec::new()),
            counts: Mutex::new(Counts::default()),
        });
        let accepting = shared.clone();
        let accept = thread::Builder::new()
            .name("fault-proxy-accept".into())
            .spawn(move || accept_loop(&listener, &accepting))?;
        Ok(FaultProxy { addr, shared, accept: Some(accept) })
    }

    /// Where it listens (127.0.0.1).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT{path}`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Replaces the plan. It gives the faults of the connections accepted from now on; the
    /// connections already open are disarmed (a fault that has not taken effect yet never
    /// will: they relay faithfully from now on). `Plan::pass()` stops every fault.
    pub fn set_plan(&self, plan: Plan) {
        let mut current = lock(&self.shared.plan);
        *current = plan;
        self.shared.generation.fetch_add(1, Ordering::SeqCst);
    }

    /// What it did so far.
    pub fn counts(&self) -> Counts {
        lock(&self.shared.counts).clone()
    }

    /// Connections open now.
    pub fn open_connections(&self) -> usize {
        lock(&self.shared.sockets).len()
    }
}

impl Drop for FaultProxy {
    fn drop(&mut self) {
        self.shared.stopping.store(true, Ordering::SeqCst);
        // Wakes the accept loop, which sees `stopping` and ends.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
        if let Some(accept) = self.accept.take() {
            let _ = accept.join();
        }
        for sockets in std::mem::take(&mut *lock(&self.shared.sockets)).into_values() {
            for socket in sockets {
                let _ = socket.shutdown(Shutdown::Both);
            }
        }
        for thread in std::mem::take(&mut *lock(&self.shared.threads)) {
            let _ = thread.join();
        }
    }
}

fn accept_loop(listener: &TcpListener, shared: &Arc<Shared>) {
    let mut next_id = 0u64;
    loop {
        let accepted = listener.accept();
        if shared.stopping() {
            return;
        }
        let Ok((client, _)) = accepted else {
            // Out of descriptors, or a connection that died in the queue: try again shortly.
            thread::sleep(Duration::from_millis(10));
            continue;
        };
        lock(&shared.threads).retain(|t| !t.is_finished());
        let open = lock(&shared.sockets).len();
        let fault = {
            let mut counts = lock(&shared.counts);
            counts.connections += 1;
            if open >= MAX_CONNECTIONS {
                counts.refused += 1;
                continue;
            }
            // The generation is read under the plan's lock, which `set_plan` holds to bump it.
            let mut plan = lock(&shared.plan);
            let fault = plan.next_fault();
            *counts.planned.entry(fault.name()).or_default() += 1;
            (fault, shared.generation())
        };
        next_id += 1;
        let (id, conn) = (next_id, shared.clone());
        let spawned = thread::Builder::new()
            .name(format!("fault-proxy-{id}"))
            .spawn(move || relay::serve(&conn, id, client, fault.0, fault.1));
        if let Ok(handle) = spawned {
            lock(&shared.threads).push(handle);
        }
    }
}
