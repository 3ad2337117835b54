//! The legacy HTTP+SSE server (2024-11-05): GET opens the event stream whose first event is
//! `endpoint`; POSTs to that endpoint get 202 and their responses travel on the stream.

use mcpwire_core::{ExchangeId, HttpMethod, HttpRequest};
use serde_json::Value;

use super::{event, sse_head, text_response, Action, HttpServer, ModelFaults, SseOut, StreamEnd, Tag};
use crate::sim::rng::Rng;
use crate::sim::tasks::Ctx;
use crate::sim::tools::{ms, Peer, SimEra};

/// One HTTP+SSE session: its peer and the event stream its responses go on.
#[derive(Debug)]
pub(super) struct SseSession {
    pub(super) peer: Peer,
    pub(super) stream: ExchangeId,
}

impl HttpServer {
    pub(super) fn sse(
        &mut self,
        exchange: ExchangeId,
        path: &str,
        req: &HttpRequest,
        rng: &mut Rng,
        faults: ModelFaults,
        ctx: &Ctx,
    ) -> Vec<Action> {
        let quick = ms(1 + rng.below(10));
        if let Some(n) = path.strip_prefix("/messages?session=") {
            let Some(session) = n.parse().ok().and_then(|n: u64| self.sse_sessions.get_mut(&n)) else {
                return vec![Action::Respond(text_response(quick, 404, "Could not find session"))];
            };
            if req.method != HttpMethod::Post {
                return vec![Action::Respond(text_response(quick, 405, "Method Not Allowed"))];
            }
            let msg = serde_json::from_slice::<Value>(&req.body).unwrap_or(Value::Null);
            let accepted = Action::Respond(text_response(quick, 202, "Accepted"));
            if rng.percent(faults.err400) {
                self.fault("err400_sse");
                return vec![Action::Respond(text_response(quick, 400, "Bad Request (simulated)"))];
            }
            let stream = session.stream;
            let Some(reply) = session.peer.answer(&msg, rng, ctx) else { return vec![accepted] };
            let id = msg.get("id").cloned().unwrap_or(Value::Null);
            let mut events: Vec<SseOut> = reply
                .notes
                .iter()
                .filter(|(at, _)| *at < reply.delay)
                .map(|(at, note)| SseOut {
                    at: quick + *at,
                    text: format!("event: message\n{}", event(None, note)),
                    tag: None,
                })
                .collect();
            let at = quick + reply.delay;
            let response = reply.response(&id);
            if let Some(m) = &response {
                let fits = m.to_string().len() <= self.opts.max_message;
                let tag = fits.then(|| Tag { id: id.to_string(), discover: false, seen: None });
                events.push(SseOut { at, text: format!("event: message\n{}", event(None, m)), tag });
            }
            let mut out = vec![accepted, Action::Push { exchange: stream, events }];
            if response.is_none() {
                // The flaky tool: the server dies, and the event stream with it.
                out.push(Action::End { exchange: stream, at, fail: true });
            }
            return out;
        }
        match req.method {
            HttpMethod::Get => {
                self.next_session += 1;
                self.seen("sse_stream");
                let n = self.next_session;
                let peer = Peer::new(SimEra::Legacy, "2024-11-05", self.opts.huge_bytes)
                    .with_subscribe(self.opts.subscribe)
                    .with_tasks(self.opts.tasks);
                self.sse_sessions.insert(n, SseSession { peer, stream: exchange });
                let endpoint = SseOut {
                    at: quick,
                    text: format!("event: endpoint\ndata: /messages?session={n}\n\n"),
                    tag: None,
                };
                vec![Action::Respond(sse_head(quick, vec![endpoint], StreamEnd::Open))]
            }
            HttpMethod::Post => vec![Action::Respond(self.refusal(quick))],
            HttpMethod::Delete => vec![Action::Respond(text_response(quick, 405, "Method Not Allowed"))],
        }
    }
}
