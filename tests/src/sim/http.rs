//! Simulated MCP servers behind HTTP, answering the exchanges the client starts:
//!
//! - [`HttpKind::Modern`]: 2026-07-28 Streamable HTTP, stateless; each POST is answered with
//!   `application/json` or an event stream (chosen per exchange), progress on the stream;
//!   GET and DELETE get 405; an unknown method gets 404 with a JSON-RPC error.
//! - [`HttpKind::LegacyStreamable`]: 2025-11-25 Streamable HTTP with sessions: `initialize`
//!   mints an `Mcp-Session-Id`, later requests must carry it (400 without, 404 for one that
//!   expired), the GET stream is offered or refused with 405, response streams carry event ids
//!   and are resumable with `Last-Event-ID`, DELETE ends the session.
//! - [`HttpKind::LegacySse`]: 2024-11-05 HTTP+SSE: GET opens the event stream whose first
//!   event is `endpoint`; POSTs to it get 202 and their responses travel on the stream.
//!
//! A modern server also holds `subscriptions/listen` streams ([`super::listen`]): each listen
//! POST gets an event stream that stays open; the acknowledgment, notifications and the
//! server's own close are written on it later ([`HttpServer::listen_tick`],
//! `HttpLink::listen_burst`); an aborted exchange is the client's cancellation. Legacy
//! servers declare `resources.subscribe` when the seed says so.
//!
//! The request handling itself (handshake answers, lists, tools, tasks) is [`Peer::answer`],
//! shared with the stdio model. A legacy Streamable HTTP session holds the `tasks/result`
//! requests of tasks waiting for input on their event streams (the input requests go out on
//! them) and answers them there once the client has posted its answers; task status
//! notifications go on the GET stream (legacy) or on a listen stream (modern). Network faults
//! (refusals, cuts, delays, garbage) are the world's business (the `http_link` module); the
//! model only decides what a correct server (with session expiry and error bodies when the seed
//! says so) would send.

use std::collections::BTreeMap;
use std::time::Duration;

use mcpwire_core::{ExchangeId, HttpMethod, HttpRequest};
use serde_json::{json, Value};

use super::listen::{self, Listens, SrvListen, Tick};
use super::rng::Rng;
use super::tasks::{Ctx, Seen, TaskFact, TaskOptions};
use super::tools::{ms, Outcome, Peer, Reply, SimEra};

mod sse;

/// Where the simulated server lives.
pub const ORIGIN: &str = "http://sim.test";

/// Which HTTP server the seed runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HttpKind {
    /// 2026-07-28 Streamable HTTP.
    Modern,
    /// 2025-11-25 Streamable HTTP with sessions.
    LegacyStreamable,
    /// 2024-11-05 HTTP+SSE.
    LegacySse,
}

/// Marks the body or SSE event that completes the answer to a request, so the world knows
/// when the client has had a usable response (within its message limit).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tag {
    /// The request's id, as JSON text.
    pub id: String,
    /// The answer is a modern `server/discover` result.
    pub discover: bool,
    /// What the message tells the client about a task (set by the network side; a tag with an
    /// empty `id` marks a task notification).
    pub seen: Option<Seen>,
}

/// One SSE event (or comment) the server writes, `at` after the request arrived.
#[derive(Debug, Clone)]
pub struct SseOut {
    /// When it is written.
    pub at: Duration,
    /// The event's text, blank line included.
    pub text: String,
    /// Set when it completes an answer.
    pub tag: Option<Tag>,
}

/// How an event stream ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamEnd {
    /// The server ends the body after the last event.
    Close,
    /// The stream stays open (GET streams).
    Open,
    /// The server dies after the last event (the exchange fails).
    Fail,
}

/// A response body.
#[derive(Debug, Clone)]
pub enum Body {
    /// Written at once with the head (JSON, text, nothing).
    Bytes {
        /// The bytes.
        bytes: Vec<u8>,
        /// Set when the body completes an answer.
        tag: Option<Tag>,
    },
    /// An event stream.
    Events {
        /// The events, in order.
        events: Vec<SseOut>,
        /// What happens after the last one.
        end: StreamEnd,
        /// When it happens (after the request arrived; ignored for [`StreamEnd::Open`]).
        end_at: Duration,
    },
}

/// The server's response to the exchange being handled.
#[derive(Debug, Clone)]
pub struct Response {
    /// When the head is written, after the request arrived.
    pub at: Duration,
    /// The status.
    pub status: u16,
    /// The headers.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Body,
    /// The answer dies before its head (the `flaky` tool over a JSON answer).
    pub dies: bool,
}

/// Something the server does.
#[derive(Debug, Clone)]
pub enum Action {
    /// Answers the exchange being handled.
    Respond(Response),
    /// Writes events on another open stream (HTTP+SSE, the legacy GET stream).
    Push {
        /// The stream.
        exchange: ExchangeId,
        /// What to write.
        events: Vec<SseOut>,
    },
    /// Schedules what the server does later on the listen it just opened on this exchange.
    ListenTicks(Vec<(Duration, Tick)>),
    /// Ends another stream (`fail`: breaks it) after `at`.
    End {
        /// The stream.
        exchange: ExchangeId,
        /// When.
        at: Duration,
        /// Breaks it instead of ending it.
        fail: bool,
    },
}

/// Per-seed behaviour of the server (not faults).
#[derive(Debug, Clone, Copy)]
pub struct HttpOptions {
    /// Which server.
    pub kind: HttpKind,
    /// Percent of request POSTs answered with an event stream.
    pub sse_percent: u64,
    /// Legacy Streamable HTTP offers the GET stream (else 405).
    pub get_stream: bool,
    /// Legacy response streams start with a priming event (an id, no data).
    pub priming: bool,
    /// Legacy response streams carry this `retry`.
    pub retry_ms: Option<u64>,
    /// How a legacy server refuses a POST it cannot take (the modern probe): 0 = 400 with a
    /// legacy JSON-RPC error, 1 = 400 plain text, 2 = 404, 3 = 405.
    pub refusal: u64,
    /// DELETE of a session is allowed (else 405).
    pub delete_ok: bool,
    /// Percent of legacy requests that also push something on the GET stream.
    pub notify_percent: u64,
    /// Largest message the client accepts (bigger answers are not tagged as usable).
    pub max_message: usize,
    /// Size of the `huge` tool's text.
    pub huge_bytes: usize,
    /// Legacy servers declare `resources.subscribe`.
    pub subscribe: bool,
    /// How the servers run tasks (2026-07-28 and 2025-11-25 ones).
    pub tasks: TaskOptions,
}

/// Server-side faults in percent (zero when healed).
#[derive(Debug, Clone, Copy, Default)]
pub struct ModelFaults {
    /// A legacy session expires just before a request on it.
    pub expire: u64,
    /// A request is refused with 400 and a JSON-RPC error body (modern or legacy shaped).
    pub err400: u64,
}

#[derive(Debug)]
struct Session {
    peer: Peer,
    listen: Option<ExchangeId>,
    streams: u64,
    listen_events: u64,
    /// Deferred `tasks/result` requests: the task, the request id, the stream they wait on.
    held: Vec<(String, Value, ExchangeId)>,
}

/// One event of a legacy response stream: when, its number in the stream, its text, its tag.
type StoredEvent = (Duration, u64, String, Option<Tag>);

/// A legacy response stream kept for resumption: its events with absolute times.
#[derive(Debug)]
struct Stored {
    events: Vec<StoredEvent>,
}

/// One simulated HTTP server.
#[derive(Debug)]
pub struct HttpServer {
    opts: HttpOptions,
    modern: Peer,
    sessions: BTreeMap<String, Session>,
    stored: BTreeMap<String, Stored>,
    sse_sessions: BTreeMap<u64, sse::SseSession>,
    /// The modern server's open listen streams, by exchange.
    listens: Listens<ExchangeId>,
    next_session: u64,
    server_requests: u64,
    /// Facts about the tasks of sessions that ended.
    task_facts: Vec<TaskFact>,
    /// Faults the server injected (session expiries, 400s), by kind.
    pub faults: BTreeMap<&'static str, u64>,
    /// Paths the server took, by kind.
    pub seen: BTreeMap<&'static str, u64>,
}

fn text_response(at: Duration, status: u16, text: &str) -> Response {
    let headers = vec![("Content-Type".to_owned(), "text/plain".to_owned())];
    let body = Body::Bytes { bytes: text.as_bytes().to_vec(), tag: None };
    Response { at, status, headers, body, dies: false }
}

fn json_response(at: Duration, status: u16, msg: &Value, tag: Option<Tag>) -> Response {
    let headers = vec![("Content-Type".to_owned(), "application/json".to_owned())];
    let body = Body::Bytes { bytes: msg.to_string().into_bytes(), tag };
    Response { at, status, headers, body, dies: false }
}

fn sse_head(at: Duration, events: Vec<SseOut>, end: StreamEnd) -> Response {
    let end_at = events.last().map_or(at, |e| e.at);
    sse_head_until(at, events, end, end_at)
}

fn sse_head_until(at: Duration, events: Vec<SseOut>, end: StreamEnd, end_at: Duration) -> Response {
    let headers = vec![
        ("Content-Type".to_owned(), "text/event-stream".to_owned()),
        ("X-Accel-Buffering".to_owned(), "no".to_owned()),
    ];
    Response { at, status: 200, headers, body: Body::Events { events, end, end_at }, dies: false }
}

fn event(id: Option<&str>, msg: &Value) -> String {
    match id {
        Some(id) => format!("id: {id}\ndata: {msg}\n\n"),
        None => format!("data: {msg}\n\n"),
    }
}

/// The client takes an event stream as the answer to this POST (plain HTTP does not).
fn accepts_sse(req: &HttpRequest) -> bool {
    header(req, "accept").is_some_and(|a| a.contains("text/event-stream"))
}

fn header<'a>(req: &'a HttpRequest, name: &str) -> Option<&'a str> {
    req.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
}

impl HttpServer {
    /// A server with these options.
    pub fn new(opts: HttpOptions) -> Self {
        Self {
            modern: Peer::new(SimEra::Modern, "", opts.huge_bytes).with_tasks(opts.tasks),
            opts,
            sessions: BTreeMap::new(),
            stored: BTreeMap::new(),
            sse_sessions: BTreeMap::new(),
            listens: Listens::default(),
            next_session: 0,
            server_requests: 0,
            task_facts: Vec::new(),
            faults: BTreeMap::new(),
            seen: BTreeMap::new(),
        }
    }

    fn fault(&mut self, kind: &'static str) {
        *self.faults.entry(kind).or_default() += 1;
    }

    fn seen(&mut self, kind: &'static str) {
        *self.seen.entry(kind).or_default() += 1;
    }

    /// Counts a path the world saw, with the server's own.
    pub fn note_seen(&mut self, kind: &'static str) {
        self.seen(kind);
    }

    /// The options.
    pub fn options(&self) -> &HttpOptions {
        &self.opts
    }

    /// An exchange ended (either side): a stream it was is gone.
    pub fn on_closed(&mut self, exchange: ExchangeId) {
        self.listens.remove(&exchange);
        self.sse_sessions.retain(|_, s| s.stream != exchange);
        for s in self.sessions.values_mut() {
            if s.listen == Some(exchange) {
                s.listen = None;
            }
            s.held.retain(|(_, _, x)| *x != exchange);
        }
    }

    /// Ends a legacy session (expired, deleted): its tasks go with it. Returns its GET stream.
    fn end_session(&mut self, sid: &str) -> Option<ExchangeId> {
        let mut session = self.sessions.remove(sid)?;
        let tasks = session.peer.tasks();
        let mut facts = tasks.take_facts();
        facts.extend(tasks.ids().into_iter().map(|id| TaskFact::Gone { id }));
        self.task_facts.extend(facts);
        session.listen
    }

    /// What the servers did with tasks since last asked.
    pub fn take_task_facts(&mut self) -> Vec<TaskFact> {
        let mut facts = std::mem::take(&mut self.task_facts);
        facts.extend(self.modern.tasks().take_facts());
        for s in self.sessions.values_mut() {
            facts.extend(s.peer.tasks().take_facts());
        }
        for s in self.sse_sessions.values_mut() {
            facts.extend(s.peer.tasks().take_facts());
        }
        facts
    }

    /// Status notifications of tasks whose status changed: on the legacy sessions' GET streams,
    /// or on one of the modern server's listen streams (untagged).
    pub fn task_notes(&mut self, now: Duration, rng: &mut Rng) -> Vec<Action> {
        let mut out = Vec::new();
        if self.opts.kind == HttpKind::Modern {
            if let Some(exchange) = self.listens.pick(rng) {
                let notes = self.modern.tasks().notes(now, rng, 100);
                let events: Vec<SseOut> = notes
                    .iter()
                    .map(|n| SseOut { at: Duration::ZERO, text: event(None, n), tag: None })
                    .collect();
                if !events.is_empty() {
                    out.push(Action::Push { exchange, events });
                }
            }
            return out;
        }
        for s in self.sessions.values_mut() {
            let Some(listen) = s.listen else { continue };
            let notes = s.peer.tasks().notes(now, rng, 100);
            let events: Vec<SseOut> = notes
                .iter()
                .map(|n| SseOut { at: Duration::ZERO, text: event(None, n), tag: None })
                .collect();
            if !events.is_empty() {
                out.push(Action::Push { exchange: listen, events });
            }
        }
        out
    }

    /// Answers a session's deferred `tasks/result` requests whose tasks can now say how they
    /// end: the response on the held stream, then its end.
    fn settle(&mut self, sid: &str, now: Duration) -> Vec<Action> {
        let Some(session) = self.sessions.get_mut(sid) else { return Vec::new() };
        let mut out = Vec::new();
        for (task, id, exchange) in std::mem::take(&mut session.held) {
            match session.peer.tasks().settle(&task, now) {
                Some((delay, outcome)) => {
                    let Some(msg) = outcome.response(&id) else { continue };
                    let tag = Some(Tag { id: id.to_string(), discover: false, seen: None });
                    out.push(Action::Push {
                        exchange,
                        events: vec![SseOut { at: delay, text: event(None, &msg), tag }],
                    });
                    out.push(Action::End { exchange, at: delay + ms(1), fail: false });
                }
                None => session.held.push((task, id, exchange)),
            }
        }
        out
    }

    /// The listen streams the modern server holds.
    pub fn listens(&self) -> &Listens<ExchangeId> {
        &self.listens
    }

    /// Acts on the listen of `exchange` as `tick` says, if the server still holds it: the
    /// message to write on its stream, and the listen as it was.
    pub fn listen_tick(&mut self, exchange: ExchangeId, tick: Tick) -> Option<(Value, SrvListen)> {
        self.listens.tick(&exchange, tick)
    }

    /// Handles one exchange the client started. `ctx`: the simulated time, the safety phase
    /// (listens may be granted in part, late or never, and end on their own; tasks misbehave).
    pub fn on_request(
        &mut self,
        exchange: ExchangeId,
        req: &HttpRequest,
        rng: &mut Rng,
        faults: ModelFaults,
        ctx: &Ctx,
    ) -> Vec<Action> {
        let path = req.url.strip_prefix(ORIGIN).unwrap_or(&req.url).to_owned();
        match self.opts.kind {
            HttpKind::Modern => self.modern(exchange, req, rng, faults, ctx),
            HttpKind::LegacyStreamable => self.streamable(exchange, req, rng, faults, ctx),
            HttpKind::LegacySse => self.sse(exchange, &path, req, rng, faults, ctx),
        }
    }

    /// What a legacy server says to a POST it cannot take.
    fn refusal(&self, at: Duration) -> Response {
        match self.opts.refusal {
            0 => {
                let body = json!({"jsonrpc": "2.0", "id": null,
                    "error": {"code": -32000, "message": "Bad Request: No valid session ID provided"}});
                json_response(at, 400, &body, None)
            }
            1 => text_response(at, 400, "Bad Request"),
            2 => text_response(at, 404, "Not Found"),
            _ => text_response(at, 405, "Method Not Allowed"),
        }
    }

    fn modern(
        &mut self,
        exchange: ExchangeId,
        req: &HttpRequest,
        rng: &mut Rng,
        faults: ModelFaults,
        ctx: &Ctx,
    ) -> Vec<Action> {
        let faults_on = ctx.faults_on;
        let quick = ms(1 + rng.below(10));
        if req.method != HttpMethod::Post {
            return vec![Action::Respond(text_response(quick, 405, "Method Not Allowed"))];
        }
        let Ok(msg) = serde_json::from_slice::<Value>(&req.body) else {
            return vec![Action::Respond(text_response(quick, 400, "not JSON"))];
        };
        let method = msg.get("method").and_then(Value::as_str).unwrap_or("").to_owned();
        let Some(id) = msg.get("id").cloned() else {
            return vec![Action::Respond(text_response(
                quick,
                if method.is_empty() { 400 } else { 202 },
                "",
            ))];
        };
        if rng.percent(faults.err400) {
            self.fault("err400_modern");
            let error = if method == "server/discover" {
                json!({"code": -32022, "message": "Unsupported protocol version",
                    "data": {"supported": [mcpwire_core::MODERN_VERSION], "requested": "?"}})
            } else {
                json!({"code": -32602, "message": "Invalid params (simulated)"})
            };
            let body = json!({"jsonrpc": "2.0", "id": id, "error": error});
            return vec![Action::Respond(json_response(quick, 400, &body, None))];
        }
        if method == "subscriptions/listen" {
            if !accepts_sse(req) {
                return vec![Action::Respond(text_response(quick, 406, "a listen needs an event stream"))];
            }
            let (l, ticks) = listen::accept(&msg, rng, faults_on);
            self.listens.insert(exchange, l);
            self.seen("listen_stream");
            let hello = SseOut { at: quick, text: ": listening\n\n".into(), tag: None };
            return vec![
                Action::Respond(sse_head(quick, vec![hello], StreamEnd::Open)),
                Action::ListenTicks(ticks),
            ];
        }
        let Some(reply) = self.modern.answer(&msg, rng, ctx) else {
            return vec![Action::Respond(text_response(quick, 400, "not a request"))];
        };
        let sse = rng.percent(self.opts.sse_percent) || (!reply.notes.is_empty() && rng.percent(70));
        let sse = sse && accepts_sse(req);
        let status = match reply.outcome {
            Outcome::Error(-32601, _) => 404,
            _ => 200,
        };
        vec![Action::Respond(self.answer(quick, &id, &method, reply, sse, status, None).0)]
    }

    /// The response carrying `reply`: JSON, or an event stream (with event ids under `ids`,
    /// a legacy stream). Also returns the stream's events with their offsets, for resumption.
    #[allow(clippy::too_many_arguments)]
    fn answer(
        &self,
        quick: Duration,
        id: &Value,
        method: &str,
        reply: Reply,
        sse: bool,
        status: u16,
        ids: Option<&str>,
    ) -> (Response, Vec<StoredEvent>) {
        let msg = reply.response(id);
        let discover = method == "server/discover" && matches!(reply.outcome, Outcome::Result(_));
        let size = msg.as_ref().map_or(0, |m| m.to_string().len());
        let tag = (msg.is_some() && size <= self.opts.max_message).then(|| Tag {
            id: id.to_string(),
            discover: discover && status == 200,
            seen: None,
        });
        if !sse {
            return match msg {
                Some(m) => (json_response(reply.delay, status, &m, tag), Vec::new()),
                None => {
                    let mut r = text_response(reply.delay, 500, "");
                    r.dies = true;
                    (r, Vec::new())
                }
            };
        }
        let mut events = Vec::new();
        let mut stored = Vec::new();
        let mut k = 0;
        let next_id = |k: &mut u64| {
            *k += 1;
            ids.map(|p| format!("{p}-{k}"))
        };
        if let (Some(p), true) = (ids, self.opts.priming) {
            let retry = self.opts.retry_ms.map(|r| format!("retry: {r}\n")).unwrap_or_default();
            events.push(SseOut { at: quick, text: format!("{retry}id: {p}-0\ndata: \n\n"), tag: None });
        }
        for (at, note) in reply.notes.iter().filter(|(at, _)| *at < reply.delay) {
            let eid = next_id(&mut k);
            let text = event(eid.as_deref(), note);
            stored.push((*at, k, text.clone(), None));
            events.push(SseOut { at: *at, text, tag: None });
        }
        let end = match &msg {
            Some(m) => {
                let eid = next_id(&mut k);
                let text = event(eid.as_deref(), m);
                stored.push((reply.delay, k, text.clone(), tag.clone()));
                events.push(SseOut { at: reply.delay, text, tag });
                StreamEnd::Close
            }
            None => StreamEnd::Fail,
        };
        (sse_head_until(quick, events, end, reply.delay.max(quick)), stored)
    }

    fn streamable(
        &mut self,
        exchange: ExchangeId,
        req: &HttpRequest,
        rng: &mut Rng,
        faults: ModelFaults,
        ctx: &Ctx,
    ) -> Vec<Action> {
        let now = ctx.now;
        let quick = ms(1 + rng.below(10));
        let sid = header(req, "mcp-session-id").map(str::to_owned);
        let msg = serde_json::from_slice::<Value>(&req.body).unwrap_or(Value::Null);
        let method = msg.get("method").and_then(Value::as_str).unwrap_or("").to_owned();
        if req.method == HttpMethod::Post && method == "initialize" {
            return self.initialize(quick, req, &msg, rng, ctx);
        }
        let Some(sid) = sid else {
            return match req.method {
                HttpMethod::Post => vec![Action::Respond(self.refusal(quick))],
                _ => vec![Action::Respond(text_response(quick, 400, "Bad Request: no session"))],
            };
        };
        if !self.sessions.contains_key(&sid) {
            self.seen("404_old_session");
            return vec![Action::Respond(text_response(quick, 404, "Session not found"))];
        }
        if rng.percent(faults.expire) {
            self.fault("session_expired");
            let mut out = vec![Action::Respond(text_response(quick, 404, "Session not found"))];
            if let Some(listen) = self.end_session(&sid) {
                out.push(Action::End { exchange: listen, at: quick, fail: false });
            }
            return out;
        }
        match req.method {
            HttpMethod::Delete if self.opts.delete_ok => {
                self.seen("delete");
                let mut out = vec![Action::Respond(text_response(quick, 200, ""))];
                if let Some(listen) = self.end_session(&sid) {
                    out.push(Action::End { exchange: listen, at: quick, fail: false });
                }
                out
            }
            HttpMethod::Delete => vec![Action::Respond(text_response(quick, 405, "Method Not Allowed"))],
            HttpMethod::Get => self.get_stream(now, quick, &sid, header(req, "last-event-id")),
            HttpMethod::Post => {
                let mut out = self.session_post(exchange, quick, req, &sid, &msg, &method, rng, faults, ctx);
                out.extend(self.settle(&sid, now));
                out
            }
        }
    }

    fn initialize(
        &mut self,
        quick: Duration,
        req: &HttpRequest,
        msg: &Value,
        rng: &mut Rng,
        ctx: &Ctx,
    ) -> Vec<Action> {
        self.next_session += 1;
        self.seen("session");
        let sid = format!("sess-{}", self.next_session);
        let mut peer = Peer::new(SimEra::Legacy, "2025-11-25", self.opts.huge_bytes)
            .with_subscribe(self.opts.subscribe)
            .with_tasks(self.opts.tasks);
        let Some(reply) = peer.answer(msg, rng, ctx) else { return Vec::new() };
        let session = Session { peer, listen: None, streams: 0, listen_events: 0, held: Vec::new() };
        self.sessions.insert(sid.clone(), session);
        let id = msg.get("id").cloned().unwrap_or(Value::Null);
        let sse = rng.percent(self.opts.sse_percent) && accepts_sse(req);
        let (mut resp, _) = self.answer(quick, &id, "initialize", reply, sse, 200, None);
        resp.headers.push(("Mcp-Session-Id".to_owned(), sid));
        vec![Action::Respond(resp)]
    }

    fn get_stream(&mut self, now: Duration, quick: Duration, sid: &str, last: Option<&str>) -> Vec<Action> {
        if let Some(stored) = last.and_then(|l| l.rsplit_once('-')).and_then(|(prefix, k)| {
            let k: u64 = k.parse().ok()?;
            self.stored.get(prefix).map(|s| (s, k))
        }) {
            // A resumption: replay what followed the last event the client saw.
            let (s, k) = stored;
            *self.seen.entry("resumed").or_default() += 1;
            let events = s
                .events
                .iter()
                .filter(|(_, n, _, _)| *n > k)
                .map(|(at, _, text, tag)| SseOut {
                    at: at.saturating_sub(now).max(quick),
                    text: text.clone(),
                    tag: tag.clone(),
                })
                .collect();
            return vec![Action::Respond(sse_head(quick, events, StreamEnd::Close))];
        }
        if !self.opts.get_stream {
            self.seen("get_405");
            return vec![Action::Respond(text_response(quick, 405, "Method Not Allowed"))];
        }
        let Some(session) = self.sessions.get_mut(sid) else { return Vec::new() };
        let mut out = Vec::new();
        if let Some(old) = session.listen.take() {
            out.push(Action::End { exchange: old, at: quick, fail: false });
        }
        self.seen("get_stream");
        let hello = SseOut { at: quick, text: ": listening\n\n".into(), tag: None };
        out.push(Action::Respond(sse_head(quick, vec![hello], StreamEnd::Open)));
        out
    }

    #[allow(clippy::too_many_arguments)]
    fn session_post(
        &mut self,
        exchange: ExchangeId,
        quick: Duration,
        req: &HttpRequest,
        sid: &str,
        msg: &Value,
        method: &str,
        rng: &mut Rng,
        faults: ModelFaults,
        ctx: &Ctx,
    ) -> Vec<Action> {
        let now = ctx.now;
        let Some(id) = msg.get("id").cloned().filter(|_| !method.is_empty()) else {
            // A notification or an answer to a server request (a task's input, maybe).
            if method.is_empty() {
                if let Some(session) = self.sessions.get_mut(sid) {
                    session.peer.tasks().on_client_answer(msg, now);
                }
            }
            return vec![Action::Respond(text_response(quick, 202, ""))];
        };
        if rng.percent(faults.err400) {
            self.fault("err400_legacy");
            let body = json!({"jsonrpc": "2.0", "id": null,
                "error": {"code": -32600, "message": "Bad Request (simulated)"}});
            return vec![Action::Respond(json_response(quick, 400, &body, None))];
        }
        let mut out = Vec::new();
        let session = self.sessions.get_mut(sid).expect("checked");
        if let (Some(listen), true) = (session.listen, rng.percent(self.opts.notify_percent)) {
            session.listen_events += 1;
            let eid = format!("{sid}-L-{}", session.listen_events);
            *self.seen.entry("get_stream_push").or_default() += 1;
            let msg = if rng.percent(50) {
                self.server_requests += 1;
                json!({"jsonrpc": "2.0", "id": format!("srv-{}", self.server_requests), "method": "ping"})
            } else {
                json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
            };
            let text = event(Some(&eid), &msg);
            out.push(Action::Push { exchange: listen, events: vec![SseOut { at: quick, text, tag: None }] });
        }
        let Some(reply) = session.peer.answer(msg, rng, ctx) else { return out };
        if let Outcome::Deferred(task) = &reply.outcome {
            // Blocks until the task ends: its input requests go out on the stream meanwhile.
            if !accepts_sse(req) {
                let body = json!({"jsonrpc": "2.0", "id": id,
                    "error": {"code": -32603, "message": "tasks/result blocks on an event stream"}});
                out.insert(0, Action::Respond(json_response(quick, 200, &body, None)));
                return out;
            }
            session.held.push((task.clone(), id, exchange));
            let events: Vec<SseOut> = reply
                .notes
                .iter()
                .map(|(at, n)| SseOut { at: *at, text: event(None, n), tag: None })
                .collect();
            *self.seen.entry("task_result_held").or_default() += 1;
            out.insert(0, Action::Respond(sse_head(quick, events, StreamEnd::Open)));
            return out;
        }
        session.streams += 1;
        let prefix = format!("{sid}-{}", session.streams);
        let sse = rng.percent(self.opts.sse_percent) || (!reply.notes.is_empty() && rng.percent(70));
        let sse = sse && accepts_sse(req);
        let (resp, stored) = self.answer(quick, &id, method, reply, sse, 200, Some(&prefix));
        if sse {
            let events = stored.into_iter().map(|(at, k, text, tag)| (now + at, k, text, tag)).collect();
            self.stored.insert(prefix, Stored { events });
        }
        out.insert(0, Action::Respond(resp));
        out
    }
}
