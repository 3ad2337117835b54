//! The host's random actions during the faulty phase: requests of every kind, listens,
//! subscriptions, task operations, cancels and the close.

use super::*;

impl World {
    pub(super) fn host_action(&mut self) {
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
    pub(super) fn push_op(&mut self) {
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
                on_link!(&mut self.link, l => l.listen_burst(&mut self.sim, n, big))
            }
            65..=72 => {
                let kind =
                    [CloseKind::Graceful, CloseKind::Bad, CloseKind::Cancel][self.sim.rng.below(3) as usize];
                on_link!(&mut self.link, l => l.listen_close(&mut self.sim, kind))
            }
            73..=82 => {
                if !open.is_empty() {
                    on_link!(&mut self.link, l => l.listen_fault(&mut self.sim))
                }
            }
            83..=93 => self.subscribe_op(),
            _ => on_link!(&mut self.link, l => l.listen_strays(&mut self.sim)),
        }
    }

    /// The host opens a listen: a random filter, sometimes `require_all`, sometimes a short
    /// acknowledgment timeout.
    pub(super) fn open_listen(&mut self) {
        let nonce = self.sim.push.next_nonce;
        self.sim.push.next_nonce += 1;
        let asked = listen::host_filter(nonce, &mut self.sim.rng);
        let require_all = self.sim.rng.percent(20);
        let timeout = self.sim.rng.percent(25).then(|| Duration::from_millis(300 + self.sim.rng.below(6000)));
        let request = Request::Listen { filter: asked.clone(), require_all };
        let mut opts = RequestOptions::default();
        opts.timeout = timeout;
        if let Some(h) = self.sim.issue(request, opts, "a listen") {
            self.track_listen(h, nonce, asked, require_all);
        }
    }

    /// The host subscribes to or unsubscribes from a resource (legacy `resources/subscribe`).
    pub(super) fn subscribe_op(&mut self) {
        let uri = format!("sim://S/{}", self.sim.rng.below(3));
        let request = if self.sim.rng.percent(70) {
            Request::SubscribeResource { uri }
        } else {
            Request::UnsubscribeResource { uri }
        };
        if let Some(h) = self.sim.issue(request, RequestOptions::default(), "a subscription") {
            self.sim.push.subscribes.insert(h);
        }
    }

    /// One task action: the host starts a call as a task, waits for a started task, looks at
    /// one, cancels one, lists them, or cancels a task call; or the server pushes status
    /// notifications; or a fault hits live tasks (a stdio crash, a 5xx on the next task message).
    pub(super) fn task_op(&mut self) {
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
            86..=93 => on_link!(&mut self.link, l => l.task_notes(&mut self.sim)),
            _ => on_link!(&mut self.link, l => l.task_fault(&mut self.sim)),
        }
    }

    /// Issues a task request and records it.
    pub(super) fn task_request(
        &mut self,
        request: Request,
        timeout: Option<Duration>,
        what: HostTask,
    ) -> Option<RequestHandle> {
        let mut opts = RequestOptions::default();
        opts.timeout = timeout;
        let h = self.sim.issue(request, opts, "a task request")?;
        self.sim.track_task_handle(h, what);
        Some(h)
    }

    pub(super) fn random_request(&mut self) {
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
        let mut opts = RequestOptions::default().progress(self.sim.rng.percent(30));
        let call = matches!(&request, Request::CallTool { .. });
        if matches!(&request, Request::CallTool { name, .. } if name == "job") {
            opts.timeout = task_timeout(&mut self.sim.rng);
        }
        if self.sim.conn.server_info().is_none() {
            self.sim.seen("request_while_handshaking");
        }
        let Some(h) = self.sim.issue(request, opts, "a request") else { return };
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

    /// After close every command fails with the close error.
    pub(super) fn refused_after_close(&mut self) {
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

    pub(super) fn host_close(&mut self) {
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
}

/// A task call's timeout: the default (10 s), a long one, or a short one.
fn task_timeout(rng: &mut Rng) -> Option<Duration> {
    match rng.below(100) {
        0..=44 => None,
        45..=74 => Some(Duration::from_secs(60)),
        _ => Some(Duration::from_millis(1000 + rng.below(5000))),
    }
}
