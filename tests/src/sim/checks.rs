//! The invariants checked on everything the client core emits: the drain that performs its IO
//! and checks its events, outcomes per handle, listen updates and push responses.

use super::*;

impl World {
    /// Performs every IO action and checks every event.
    pub(super) fn drain(&mut self) {
        let mut outputs = 0;
        loop {
            let mut any = false;
            while let Some(io) = self.sim.conn.poll_io() {
                any = true;
                outputs += 1;
                self.sim.note(format!("{:?} {}", self.sim.now, describe_io(&io)));
                on_link!(&mut self.link, l => l.perform(&mut self.sim, io))
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
    pub(super) fn check(&mut self, ev: &Event) {
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
                    #[cfg(feature = "http")]
                    Err(RequestError::SessionExpired) => sim.seen("session_expired"),
                    Err(RequestError::Timeout { .. }) => sim.seen("timeout"),
                    Err(RequestError::ResponseTooLarge { .. }) => sim.seen("too_large"),
                    #[cfg(feature = "http")]
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
                mcpwire_core::Era::Modern => sim.seen("connected_modern"),
                mcpwire_core::Era::Legacy => sim.seen("connected_legacy"),
            },
            Event::Warning(mcpwire_core::Warning::UnknownSubscription { id }) => {
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
    pub(super) fn on_update(&mut self, h: RequestHandle, update: &SubscriptionUpdate) {
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
                let (subject, cost) = mcpwire_core::notify_queue::charge(n);
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
            SubscriptionUpdate::Unrequested { method, count } => {
                // Only a server granting more than asked sends what a listen did not ask for
                // (list kinds: the sims never send a URI or task id outside the grant).
                let asked = l.asked.asks_for(method, &serde_json::json!({}));
                let granted = l.granted.as_ref().is_some_and(|g| g.asks_for(method, &serde_json::json!({})));
                l.unrequested += 1;
                let problem = if asked || !granted {
                    Some(format!(
                        "dropped {method} as not asked for (asked {:?}, granted {:?})",
                        l.asked, l.granted
                    ))
                } else if *count != l.unrequested {
                    Some(format!("unrequested count {count}, expected {}", l.unrequested))
                } else {
                    None
                };
                sim.seen("listen_unrequested");
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
    pub(super) fn on_push_response(&mut self, h: RequestHandle, result: &Result<Response, RequestError>) {
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

/// An IO action for the trace (stdin writes as text).
fn describe_io(io: &mcpwire_core::Io) -> String {
    match io {
        mcpwire_core::Io::Write { epoch, bytes } => {
            format!("Write {epoch} {:?}", String::from_utf8_lossy(bytes))
        }
        other => format!("{other:?}"),
    }
}
