//! Listen streams (`subscriptions/listen`, 2026-07-28) on the simulated servers, whatever
//! carries them: what a server grants and when it acknowledges (at once, late, partly, more
//! than asked, never), the tagged notifications it sends on the streams it holds, and how it
//! ends one on its own (a graceful `{resultType: "complete"}`, a bad `input_required` result,
//! or `notifications/cancelled`). The stdio process ([`super::server`]) and the modern HTTP
//! server ([`super::http`]) keep the streams they hold and obey the client's cancellation
//! (`notifications/cancelled` on stdio, the aborted exchange on HTTP); the world schedules the
//! [`Tick`]s.
//!
//! Every listen the simulation opens carries a nonce, as the task id `L<nonce>` (and inside its
//! resource URIs and other task ids), so the world can tell which host listen a wire attempt, an
//! acknowledgment or a notification belongs to.

use std::collections::BTreeMap;
use std::time::Duration;

use mcpwire_core::{Notification, SubscriptionFilter};
use serde_json::{json, Value};

use super::rng::Rng;
use super::tools::ms;

/// The `_meta` key naming the subscription a notification belongs to.
pub const SUB_META: &str = "io.modelcontextprotocol/subscriptionId";

/// How a server ends a listen on its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum CloseKind {
    /// `{"resultType": "complete", "_meta": {subscriptionId}}`: the host sees `ListenEnded`.
    Graceful,
    /// `{"resultType": "input_required"}`: not a valid end of a listen.
    Bad,
    /// `notifications/cancelled` naming the listen.
    Cancel,
}

/// Something a server does on one of its listens, later.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tick {
    /// Sends the acknowledgment.
    Ack,
    /// Ends the stream.
    Close(CloseKind),
    /// Acts on the client's cancellation, read a little earlier (stdio): until then the
    /// server still writes on the stream.
    Forget,
}

/// A listen a server holds.
#[derive(Debug, Clone)]
pub struct SrvListen {
    /// The request's JSON-RPC id (the subscription id).
    pub id: Value,
    /// The simulation's nonce for the host listen.
    pub nonce: Option<u64>,
    /// What it will grant (`None`: it never acknowledges).
    pub granted: Option<SubscriptionFilter>,
    /// The acknowledgment went out.
    pub acked: bool,
}

/// What the servers did on the attempts of one host listen (by nonce), for the invariants.
#[derive(Debug, Default, Clone)]
pub struct SrvFacts {
    /// What each acknowledgment sent granted.
    pub grants: Vec<SubscriptionFilter>,
    /// How the servers ended its attempts on their own.
    pub closes: Vec<CloseKind>,
    /// Notifications sent on its attempts.
    pub notes: u64,
}

/// The listens one server instance holds, by `K` (the wire id on stdio, the exchange on HTTP).
#[derive(Debug)]
pub struct Listens<K: Ord + Clone> {
    map: BTreeMap<K, SrvListen>,
}

impl<K: Ord + Clone> Default for Listens<K> {
    fn default() -> Self {
        Self { map: BTreeMap::new() }
    }
}

impl<K: Ord + Clone> Listens<K> {
    /// Holds a new listen.
    pub fn insert(&mut self, key: K, listen: SrvListen) {
        self.map.insert(key, listen);
    }

    /// Forgets a listen (the client cancelled it, its stream is gone).
    pub fn remove(&mut self, key: &K) -> Option<SrvListen> {
        self.map.remove(key)
    }

    /// The listen of `key`, if it holds it.
    pub fn get(&self, key: &K) -> Option<&SrvListen> {
        self.map.get(key)
    }

    /// Whether it holds nothing.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// One held listen, at random.
    pub fn pick(&self, rng: &mut Rng) -> Option<K> {
        let n = self.map.len() as u64;
        (n > 0).then(|| self.map.keys().nth(rng.below(n) as usize).cloned()).flatten()
    }

    /// Does what `tick` says on listen `key`, if the server still holds it: the message to
    /// send, and the listen as it was.
    pub fn tick(&mut self, key: &K, tick: Tick) -> Option<(Value, SrvListen)> {
        match tick {
            Tick::Ack => {
                let l = self.map.get_mut(key).filter(|l| !l.acked)?;
                let granted = l.granted.clone()?;
                l.acked = true;
                Some((ack_message(&l.id, &granted), l.clone()))
            }
            Tick::Close(kind) => {
                let l = self.map.remove(key)?;
                Some((close_message(&l.id, kind), l))
            }
            Tick::Forget => {
                self.map.remove(key);
                None
            }
        }
    }

    /// Notifications on the acknowledged listens (some of them, up to `n` each).
    pub fn burst(&self, rng: &mut Rng, n: u64, big: bool) -> Vec<(K, Option<u64>, Vec<Value>)> {
        let mut out = Vec::new();
        for (k, l) in &self.map {
            if l.acked && rng.percent(70) {
                let count = 1 + rng.below(n);
                let notes = notes(l, rng, count, big);
                if !notes.is_empty() {
                    out.push((k.clone(), l.nonce, notes));
                }
            }
        }
        out
    }
}

/// The filter a simulated host listen asks for: random parts, plus the task id naming its
/// nonce.
pub fn host_filter(nonce: u64, rng: &mut Rng) -> SubscriptionFilter {
    let mut f = SubscriptionFilter::new().task(format!("L{nonce}"));
    f.tools_list_changed = rng.percent(50);
    f.prompts_list_changed = rng.percent(30);
    f.resources_list_changed = rng.percent(30);
    for k in 0..rng.below(4) {
        f = f.resource(format!("sim://L{nonce}/r{k}"));
    }
    if rng.percent(30) {
        f = f.task(format!("L{nonce}-t1"));
    }
    f
}

/// The nonce of a host listen, from what the listen asked for.
pub fn nonce_of(filter: &Value) -> Option<u64> {
    filter
        .get("taskIds")?
        .as_array()?
        .iter()
        .filter_map(Value::as_str)
        .find_map(|t| t.strip_prefix('L')?.parse().ok())
}

/// The nonce a notification a listen carried names, if it names one (resource URIs and task
/// ids carry it).
pub fn nonce_in(n: &Notification) -> Option<u64> {
    let text = match n {
        Notification::ResourceUpdated { uri } => uri.strip_prefix("sim://L")?.split('/').next()?,
        Notification::Other { params, .. } => {
            params.get("taskId")?.as_str()?.strip_prefix('L')?.split('-').next()?
        }
        _ => return None,
    };
    text.parse().ok()
}

/// Whether `granted` covers notification `n` (what a server may send on the stream).
pub fn covers(granted: &SubscriptionFilter, n: &Notification) -> bool {
    match n {
        Notification::ListChanged(mcpwire_core::ListKind::Tools) => granted.tools_list_changed,
        Notification::ListChanged(mcpwire_core::ListKind::Prompts) => granted.prompts_list_changed,
        Notification::ListChanged(mcpwire_core::ListKind::Resources) => granted.resources_list_changed,
        Notification::ResourceUpdated { uri } => granted.resource_subscriptions.contains(uri),
        Notification::Other { method, params } if method == "notifications/tasks" => params
            .get("taskId")
            .and_then(Value::as_str)
            .is_some_and(|t| granted.task_ids.iter().any(|g| g == t)),
        _ => false,
    }
}

/// A server takes a new listen `msg`: what it will grant and when it acknowledges and ends it
/// (faults off: all of it at once, and a graceful end soon after).
pub fn accept(msg: &Value, rng: &mut Rng, faults_on: bool) -> (SrvListen, Vec<(Duration, Tick)>) {
    let asked = msg.pointer("/params/notifications").cloned().unwrap_or(Value::Null);
    let nonce = nonce_of(&asked);
    let asked = SubscriptionFilter::from_value(&asked);
    let id = msg.get("id").cloned().unwrap_or(Value::Null);
    let mut ticks = Vec::new();
    if !faults_on {
        let ack = ms(1 + rng.below(30));
        ticks.push((ack, Tick::Ack));
        ticks.push((ack + ms(50 + rng.below(450)), Tick::Close(CloseKind::Graceful)));
        return (SrvListen { id, nonce, granted: Some(asked), acked: false }, ticks);
    }
    let granted = if rng.percent(10) {
        None
    } else {
        let mut g = asked.clone();
        if rng.percent(35) {
            // A partial grant.
            g.tools_list_changed &= rng.percent(50);
            g.prompts_list_changed &= rng.percent(50);
            g.resources_list_changed &= rng.percent(50);
            g.resource_subscriptions.retain(|_| rng.percent(50));
            g.task_ids.retain(|_| rng.percent(70));
        }
        if rng.percent(10) {
            // More than asked: grants nothing unsupported away.
            g.prompts_list_changed = true;
        }
        Some(g)
    };
    let ack = match rng.below(100) {
        0..=69 => ms(1 + rng.below(30)),
        70..=89 => ms(200 + rng.below(2800)),
        _ => ms(5_000 + rng.below(10_000)),
    };
    if granted.is_some() {
        ticks.push((ack, Tick::Ack));
    }
    let close = match rng.below(100) {
        0..=7 => Some(CloseKind::Graceful),
        8..=11 => Some(CloseKind::Bad),
        12..=14 => Some(CloseKind::Cancel),
        _ => None,
    };
    if let Some(kind) = close {
        ticks.push((ack + ms(rng.below(30_000)), Tick::Close(kind)));
    }
    (SrvListen { id, nonce, granted, acked: false }, ticks)
}

fn meta(id: &Value) -> Value {
    json!({ SUB_META: id })
}

/// The acknowledgment of listen `id`.
pub fn ack_message(id: &Value, granted: &SubscriptionFilter) -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
        "params": {"_meta": meta(id), "notifications": granted.to_value()}})
}

/// How a server ends listen `id` on its own.
pub fn close_message(id: &Value, kind: CloseKind) -> Value {
    match kind {
        CloseKind::Graceful => {
            json!({"jsonrpc": "2.0", "id": id, "result": {"resultType": "complete", "_meta": meta(id)}})
        }
        CloseKind::Bad => json!({"jsonrpc": "2.0", "id": id, "result": {"resultType": "input_required"}}),
        CloseKind::Cancel => json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": id, "reason": "the simulated server ends the stream"}}),
    }
}

/// Up to `n` notifications of what `l` granted, tagged with its id; `big` makes task
/// notifications carry a large payload (queue byte pressure, the oversize slot).
pub fn notes(l: &SrvListen, rng: &mut Rng, n: u64, big: bool) -> Vec<Value> {
    let Some(g) = l.granted.as_ref().filter(|_| l.acked) else { return Vec::new() };
    let mut kinds: Vec<(&str, Value)> = Vec::new();
    for (on, method) in [
        (g.tools_list_changed, "notifications/tools/list_changed"),
        (g.prompts_list_changed, "notifications/prompts/list_changed"),
        (g.resources_list_changed, "notifications/resources/list_changed"),
    ] {
        if on {
            kinds.push((method, json!({})));
        }
    }
    for uri in &g.resource_subscriptions {
        kinds.push(("notifications/resources/updated", json!({ "uri": uri })));
    }
    for task in &g.task_ids {
        kinds.push(("notifications/tasks", json!({"taskId": task, "status": "working"})));
    }
    if kinds.is_empty() {
        return Vec::new();
    }
    (0..n)
        .map(|_| {
            let (method, mut params) = kinds[rng.below(kinds.len() as u64) as usize].clone();
            if big && method == "notifications/tasks" {
                params["detail"] = Value::String("x".repeat(200 + rng.below(800) as usize));
            }
            params["_meta"] = meta(&l.id);
            json!({"jsonrpc": "2.0", "method": method, "params": params})
        })
        .collect()
}

/// Notifications no listen of this client may receive: untagged ones (ordinary
/// notifications) and one tagged with a subscription id the client never used.
pub fn strays(rng: &mut Rng) -> Vec<Value> {
    let mut out = Vec::new();
    if rng.percent(50) {
        out.push(json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}));
    }
    if rng.percent(50) {
        let ghost = format!("ghost-{}", rng.below(1000));
        out.push(json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
            "params": {"uri": "sim://ghost", "_meta": meta(&Value::String(ghost))}}));
    }
    out
}
