//! Listen streams and resource subscriptions in the op list: the host opens, cancels and
//! (un)subscribes; the server acknowledges, notifies and ends; a process dies under open listens.
//! Checked here: what a listen attempt asks for, and the invariants on its updates.

use super::*;
use crate::ListKind;

impl World {
    /// The host opens a listen (a random filter naming its marker as a task id, sometimes
    /// `require_all`) or (un)subscribes a resource.
    pub(super) fn listen_request(&mut self, r: &mut Reader<'_>) {
        let flags = r.byte();
        let marker = self.markers.len() as u64;
        let request = match flags % 8 {
            6 => Request::SubscribeResource { uri: "fuzz://a".into() },
            7 => Request::UnsubscribeResource { uri: "fuzz://a".into() },
            _ => {
                let mut f = SubscriptionFilter::new().task(format!("F{marker}"));
                f.tools_list_changed = flags & 8 != 0;
                f.prompts_list_changed = flags & 16 != 0;
                f.resources_list_changed = flags & 32 != 0;
                if flags & 64 != 0 {
                    f = f.resource("fuzz://a");
                }
                if flags & 128 != 0 {
                    f = f.resource("fuzz://b");
                }
                Request::Listen { filter: f, require_all: flags % 8 >= 4 }
            }
        };
        let opts = RequestOptions {
            timeout: Some(Duration::from_millis([100u64, 2_000, 30_000][r.pick(3)])),
            ..RequestOptions::default()
        };
        match self.conn.request(self.now, request.clone(), opts) {
            Ok(h) => {
                assert!(!self.closed, "a request after close must fail");
                if let Request::UnsubscribeResource { uri } = &request {
                    assert!(
                        !self.conn.resource_subscriptions().any(|u| u == uri),
                        "{uri} is still subscribed once the host unsubscribed"
                    );
                }
                self.issued.push(h);
                if let Request::Listen { filter, require_all } = request {
                    self.markers.insert(marker, h);
                    let l = Listen {
                        asked: filter,
                        require_all,
                        ids: Vec::new(),
                        stale: 0,
                        must_refuse: false,
                        unrequested: 0,
                    };
                    self.listens.insert(h, l);
                }
            }
            Err(CommandError::Closed) => assert!(self.closed, "refused as closed while open"),
            Err(_) => {}
        }
    }

    /// The host cancels one of its listens.
    pub(super) fn listen_cancel(&mut self, r: &mut Reader<'_>) {
        let handles: Vec<RequestHandle> = self.listens.keys().copied().collect();
        let Some(&h) = pick(r, &handles) else { return };
        let live = !self.outcomes.contains_key(&h);
        assert_eq!(
            self.conn.cancel(self.now, h),
            live,
            "cancel of listen {h:?} must succeed exactly while it is live"
        );
        self.drain();
        if live {
            assert_eq!(self.cancelled.get(&h), Some(&true), "a cancelled listen ends as Cancelled at once");
        }
    }

    /// A listen the client sent (any attempt).
    pub(super) fn sent_listen(&self, r: &mut Reader<'_>) -> Option<Sent> {
        let listens: Vec<&Sent> = self.sent.iter().filter(|s| s.listen.is_some()).collect();
        pick(r, &listens).map(|s| (*s).clone())
    }

    /// The server acknowledges a listen: what it asked, part of it, nothing, or odd values.
    pub(super) fn listen_ack(&mut self, r: &mut Reader<'_>) {
        let Some(sent) = self.sent_listen(r) else { return };
        let asked = sent.listen.clone().unwrap_or(Value::Null);
        let granted = match r.pick(5) {
            0 | 1 => asked,
            2 => {
                let mut g = asked;
                if let Some(m) = g.as_object_mut() {
                    let keys: Vec<String> = m.keys().cloned().collect();
                    for k in keys {
                        if r.pick(2) == 0 {
                            m.remove(&k);
                        }
                    }
                }
                g
            }
            3 => json!({}),
            _ => {
                json!({"toolsListChanged": "yes", "resourceSubscriptions": ["fuzz://a", 7], "taskIds": "F0"})
            }
        };
        let mut params = json!({"_meta": {SUB_META: sent.id}, "notifications": granted});
        if r.pick(8) == 0 {
            params = json!({"notifications": {}});
        }
        let message =
            json!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged", "params": params});
        self.deliver(r, message, sent.exchange);
    }

    /// The server sends a notification tagged with a listen's id (current or stale).
    pub(super) fn listen_note(&mut self, r: &mut Reader<'_>) {
        let Some(sent) = self.sent_listen(r) else { return };
        self.next_note += 1;
        // A sub-resource of `fuzz://a`: delivered to the listens that asked for it, dropped
        // (and counted) by the others.
        let uri = format!("fuzz://a/note/{}", self.next_note);
        let meta = json!({SUB_META: sent.id});
        let message = match r.pick(4) {
            0 | 1 => json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
                            "params": {"uri": uri, "_meta": meta}}),
            2 => {
                json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {"_meta": meta}})
            }
            _ => json!({"jsonrpc": "2.0", "method": "notifications/tasks",
                        "params": {"taskId": "F0", "status": "working", "_meta": meta}}),
        };
        // The listen whose current attempt carries that id, if any: the only one it may reach.
        let id = sent.id.to_string();
        let owner = self.listens.iter().find(|(h, l)| {
            !self.outcomes.contains_key(h) && l.ids.len() > l.stale && l.ids.last() == Some(&id)
        });
        self.routing = Some((uri, owner.map(|(h, _)| *h)));
        self.deliver(r, message, sent.exchange);
        self.routing = None;
    }

    /// The server ends a listen on its own: gracefully, with a bad result, or by cancelling it.
    pub(super) fn listen_end(&mut self, r: &mut Reader<'_>) {
        let Some(sent) = self.sent_listen(r) else { return };
        let message = match r.pick(4) {
            0 => json!({"jsonrpc": "2.0", "id": sent.id,
                        "result": {"resultType": "complete", "_meta": {SUB_META: sent.id}}}),
            1 => json!({"jsonrpc": "2.0", "id": sent.id, "result": {"resultType": "input_required"}}),
            2 => json!({"jsonrpc": "2.0", "id": sent.id, "result": 7}),
            _ => json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                        "params": {"requestId": sent.id, "reason": "bye"}}),
        };
        self.deliver(r, message, sent.exchange);
    }

    /// The process dies (stdio), or a listen's stream fails or its re-open meets a 5xx (HTTP),
    /// while listens are open; sometimes after they have been kept for a while.
    pub(super) fn crash_while_listening(&mut self, r: &mut Reader<'_>) {
        let wait = [0u64, 500, 1_500][r.pick(3)];
        self.advance(Duration::from_millis(wait));
        if self.http {
            let listens: Vec<ExchangeId> =
                self.open.iter().filter(|(_, x)| x.listen).map(|(id, _)| *id).collect();
            let Some(&x) = pick(r, &listens) else { return };
            if self.open[&x].head.is_none() && r.pick(2) == 0 {
                self.head(x, [500u16, 502, 503][r.pick(3)], false);
                if self.open.contains_key(&x) {
                    self.finish(x, true);
                }
            } else {
                self.finish(x, false);
            }
            return;
        }
        if let Some((epoch, true)) = self.spawn {
            self.conn.handle_stdout_eof(self.now, epoch);
            self.conn.handle_process_exited(self.now, epoch, ExitInfo { code: Some(1), signal: None });
            self.spawn = None;
        }
    }

    /// A listen attempt went out with wire id `id`: the listen its marker names.
    pub(super) fn listen_sent(&mut self, asked: &Value, id: &Value) {
        let marker = asked
            .get("taskIds")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .find_map(|t| t.strip_prefix('F')?.parse::<u64>().ok());
        let Some(h) = marker.and_then(|m| self.markers.get(&m)) else {
            panic!("a listen went out that the host never opened: {asked}")
        };
        let l = self.listens.get_mut(h).expect("a listen for each marker");
        assert_eq!(
            SubscriptionFilter::from_value(asked),
            l.asked,
            "a listen attempt asks for what the host asked"
        );
        l.ids.push(id.to_string());
    }

    /// The invariants on a listen's updates.
    pub(super) fn on_update(&mut self, handle: RequestHandle, update: SubscriptionUpdate) {
        assert!(
            !self.outcomes.contains_key(&handle),
            "a subscription update for {handle:?} after its outcome"
        );
        let Some(l) = self.listens.get_mut(&handle) else {
            panic!("a subscription update for {handle:?}, which is not a listen")
        };
        match update {
            SubscriptionUpdate::Acknowledged { granted, unsupported } => {
                assert_eq!(
                    unsupported,
                    l.asked.missing_from(&granted),
                    "unsupported is what was asked and not granted"
                );
                l.must_refuse = l.require_all && !unsupported.is_empty();
            }
            SubscriptionUpdate::Notification(n) => {
                let (method, params) = match &n {
                    Notification::ListChanged(ListKind::Tools) => {
                        ("notifications/tools/list_changed", json!({}))
                    }
                    Notification::ListChanged(ListKind::Prompts) => {
                        ("notifications/prompts/list_changed", json!({}))
                    }
                    Notification::ListChanged(ListKind::Resources) => {
                        ("notifications/resources/list_changed", json!({}))
                    }
                    Notification::ResourceUpdated { uri } => {
                        ("notifications/resources/updated", json!({"uri": uri}))
                    }
                    Notification::Other { method, params } => (method.as_str(), params.clone()),
                    Notification::Log(_) => ("notifications/message", json!({})),
                };
                assert!(l.asked.asks_for(method, &params), "a listen delivered {method} it did not ask for");
                if let (Some((uri, owner)), Notification::ResourceUpdated { uri: got }) = (&self.routing, &n)
                {
                    if uri == got {
                        assert_eq!(
                            Some(handle),
                            *owner,
                            "a notification tagged with a listen's id reached another listen, or a stale one"
                        );
                    }
                }
            }
            SubscriptionUpdate::Reconnecting { .. } => l.stale = l.ids.len(),
            SubscriptionUpdate::Unrequested { method, count } => {
                l.unrequested += 1;
                assert_eq!(count, l.unrequested, "each dropped {method} is counted once, per stream");
            }
        }
    }
}
