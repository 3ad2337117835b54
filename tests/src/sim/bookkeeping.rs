//! The shared state's bookkeeping: the clock and event queue, fault and coverage counts, the
//! trace, failure reports, and the checks on what the client sends that every transport shares.

use super::*;

impl Sim {
    /// A server acted on one of its listens (acknowledged it, ended it).
    pub(super) fn server_listen_tick(&mut self, l: &listen::SrvListen, tick: Tick) {
        let Some(nonce) = l.nonce else { return };
        let facts = self.push.srv.entry(nonce).or_default();
        match tick {
            Tick::Ack => facts.grants.extend(l.granted.clone()),
            Tick::Close(kind) => facts.closes.push(kind),
            Tick::Forget => {}
        }
    }

    /// A server sent `n` notifications on the listen of `nonce`.
    pub(super) fn server_listen_notes(&mut self, nonce: Option<u64>, n: u64) {
        let Some(nonce) = nonce else { return };
        self.push.srv.entry(nonce).or_default().notes += n;
        if self.listen_of(nonce).is_none_or(|h| !self.live.contains(&h)) {
            // The client ended it; the server does not know yet.
            self.seen("listen_notes_after_end");
        }
    }

    /// The host listen of `nonce`.
    pub(super) fn listen_of(&self, nonce: u64) -> Option<RequestHandle> {
        self.push.listens.iter().find(|(_, l)| l.nonce == nonce).map(|(h, _)| *h)
    }

    /// stdio: the client wrote an attempt of the listen of `nonce`.
    pub(super) fn listen_written(&mut self, nonce: Option<u64>) {
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
    pub(super) fn check_subscription_method(&mut self, method: &str, modern: bool, subscribe: bool) {
        match method {
            "subscriptions/listen" if !modern => self.fail("subscriptions/listen sent to a legacy server"),
            "resources/subscribe" | "resources/unsubscribe" if modern || !subscribe => {
                self.fail(format!("{method} sent to a server that does not take it"))
            }
            _ => {}
        }
    }

    /// The host queue stays within its limits and accounts for every entry.
    pub(super) fn check_queue(&mut self) {
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
    pub(super) fn queue_pop(&mut self, n: u64) {
        for _ in 0..n {
            if self.push.inbox.pop().is_none() {
                break;
            }
            self.push.popped += 1;
        }
        self.check_queue();
    }

    /// Issues a host request during the faulty phase; `None` when the core has too many in
    /// flight. Any other refusal fails the run (`what` names the request), and so does a
    /// handle the core already gave out.
    pub(super) fn issue(
        &mut self,
        request: Request,
        opts: RequestOptions,
        what: &str,
    ) -> Option<RequestHandle> {
        match self.conn.request(self.at(), request, opts) {
            Ok(h) => {
                self.requests += 1;
                if !self.live.insert(h) || self.done.contains(&h) {
                    self.fail(format!("handle {h} reused"));
                }
                Some(h)
            }
            Err(CommandError::TooManyInFlight { .. }) => None,
            Err(e) => self.fail(format!("{what} was refused while open: {e}")),
        }
    }

    pub(super) fn at(&self) -> Instant {
        self.base + self.now
    }

    pub(super) fn schedule(&mut self, after: Duration, ev: Ev) {
        self.schedule_at(self.now + after, ev);
    }

    pub(super) fn schedule_at(&mut self, at: Duration, ev: Ev) {
        self.seq += 1;
        self.queue.insert((at.max(self.now), self.seq), ev);
    }

    pub(super) fn fault(&mut self, kind: &'static str) {
        *self.faults.entry(kind).or_default() += 1;
    }

    /// Counts a path taken, for the coverage figures.
    pub(super) fn seen(&mut self, kind: &'static str) {
        *self.coverage.entry(kind).or_default() += 1;
    }

    /// A trace line: hashed for the determinism check, kept for the failure report.
    pub(super) fn note(&mut self, line: String) {
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
    pub(super) fn fail(&self, what: impl std::fmt::Display) -> ! {
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
    pub(super) fn on_client_message(&mut self, msg: &Value) {
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
    pub(super) fn answer_nonce(&self, msg: &Value) -> Option<u64> {
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
    pub(super) fn task_ctx(&self) -> tasks::Ctx {
        tasks::Ctx { now: self.now, faults_on: self.faults_on, reuse: self.tasks.reuse_candidate() }
    }

    /// A `tools/call`'s nonce (the simulation tags every call with one).
    /// What identifies one send of a `tools/call` for the re-send invariants: its nonce, and
    /// whether it is the retry of an input round (which carries `requestState`).
    pub(super) fn send_key(msg: &Value) -> Option<u64> {
        let nonce = Self::nonce_of(msg)?;
        Some(if msg.pointer("/params/requestState").is_some() { nonce | (1 << 40) } else { nonce })
    }

    pub(super) fn nonce_of(msg: &Value) -> Option<u64> {
        if msg.get("method").and_then(Value::as_str) != Some("tools/call") {
            return None;
        }
        msg.pointer("/params/arguments/nonce").and_then(Value::as_u64)
    }

    /// Sometimes (faults on) cancels the call with `nonce` just before its answer lands at `at`.
    pub(super) fn maybe_cancel_before(&mut self, nonce: Option<u64>, at: Duration) {
        if let Some(nonce) = nonce.filter(|_| self.faults_on) {
            if self.rng.percent(10) {
                self.schedule_at(at.saturating_sub(Duration::from_micros(1)), Ev::Cancel(nonce));
            }
        }
    }

    /// A modern `_meta` key is in the params.
    pub(super) fn has_modern_meta(msg: &Value) -> bool {
        msg.pointer("/params/_meta")
            .and_then(Value::as_object)
            .is_some_and(|m| m.keys().any(|k| k.starts_with("io.modelcontextprotocol/")))
    }
}
