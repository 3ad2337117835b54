//! The HTTP side of the world: exchanges between the client and [`HttpServer`], the network
//! between them (delays, chunking, reordering, refusals, cuts, garbage), and the invariants on
//! what the client sends and how it treats exchanges:
//!
//! - exchange ids are unique; after `HttpAbort(x)`, or after the world reported the end or
//!   failure of `x`, the client never names `x` again;
//! - no `initialize` once the server answered `server/discover`; no modern `_meta` or headers
//!   once a legacy session exists; modern POSTs mirror the body into their headers, never carry
//!   a session, never post `notifications/cancelled` or a JSON-RPC response;
//! - a legacy session's POSTs carry its `Mcp-Session-Id`;
//! - a `tools/call` goes out once per host request, except the one re-issue (modern, new id)
//!   after its response stream broke (a 2xx whose body ended or failed without the answer);
//! - after `Closed`, no exchange is left open;
//! - `subscriptions/listen` goes only to a modern server, `resources/subscribe` only to a
//!   legacy one that declared it.
//!
//! It also plays the modern server's side of listen streams on the network: the ticks the
//! server scheduled, bursts of notifications, the server's own closes, and streams that drop
//! or whose re-open meets a 5xx; and tasks: status notifications pushed on open streams, a 5xx
//! for the next task message. Each delivered task message (a JSON body at its end, an SSE event
//! at its last chunk) tells the world what the client consumed ([`super::tasks::Seen`]).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use mcpwire_core::mcp_servers::TransportKind;
use mcpwire_core::{
    Connection, ExchangeId, HttpConfig, HttpHead, HttpMethod, HttpRequest, Io, MODERN_VERSION,
};
use serde_json::Value;

use super::http::{
    Action, Body, HttpKind, HttpOptions, HttpServer, ModelFaults, Response, SseOut, StreamEnd, Tag, ORIGIN,
};
use super::listen::{self, CloseKind, Tick};
use super::tasks::{self, TaskOptions};
use super::{Ev, ListenKey, Rng, Sim, MAX_MESSAGE};

mod checks;

/// A part of an HTTP response, as the runtime reports it.
#[derive(Debug)]
pub(super) enum Part {
    Head(HttpHead),
    /// Body bytes; the tags of the answers they complete.
    Body(Vec<u8>, Vec<Tag>),
    /// The end of the body; the tags of the answers that completes (JSON bodies).
    End(Vec<Tag>),
    Fail(String),
}

/// Network faults in percent (zero when healed).
#[derive(Debug, Clone, Copy, Default)]
struct NetFaults {
    refused: u64,
    connect_timeout: u64,
    proxy_5xx: u64,
    cut: u64,
    slow_head: u64,
    slow_body: u64,
    reorder: u64,
    garbage: u64,
    oversize: u64,
    split: u64,
    /// A response to an id nobody asked for is slipped into an event stream; on the HTTP+SSE
    /// stream an answer is also sent twice.
    stray: u64,
}

/// What the world knows about one exchange.
#[derive(Debug, Default)]
struct Xs {
    open: bool,
    aborted: bool,
    /// The world reported its end or failure.
    ended: bool,
    head_2xx: bool,
    /// A usable answer was delivered on it.
    answered: bool,
    /// The last part scheduled (parts of one exchange are delivered in order).
    cursor: Duration,
    /// The end of a long-lived stream's first response (pushes come after it).
    floor: Duration,
    /// `tools/call` nonce of the POST.
    nonce: Option<u64>,
    /// Its end or failure is scheduled: the server writes nothing more on it.
    ending: bool,
    /// It carries a listen.
    listen: bool,
    /// It carries a `tasks/update` kept from network faults (a known core bug).
    protected: bool,
}

/// One `tools/call` POST.
#[derive(Debug, Clone)]
struct ToolPost {
    exchange: ExchangeId,
    id: String,
    modern: bool,
}

/// The HTTP link and its server.
#[derive(Debug)]
pub(super) struct HttpLink {
    server: HttpServer,
    url: String,
    /// Retries and their first delay (client configuration).
    retries: (u32, Duration),
    net: NetFaults,
    model: ModelFaults,
    xs: BTreeMap<ExchangeId, Xs>,
    /// A modern `server/discover` result reached the client.
    discover_answered: bool,
    /// The client sent `notifications/initialized`: the connection is legacy from then on.
    legacy_session: bool,
    tool_posts: BTreeMap<u64, Vec<ToolPost>>,
    /// The server ends its SSE lines with CRLF.
    crlf: bool,
    /// The next listen POST meets a 5xx (after a dropped listen stream).
    fail_next_listen: bool,
    /// The next task message (`tasks/*`) meets a 5xx.
    fail_next_task: bool,
    /// The last `tasks/update` of each task: its exchange and its answers.
    task_updates: BTreeMap<String, (ExchangeId, Value)>,
    pub(super) exchanges: u64,
}

fn header<'a>(req: &'a HttpRequest, name: &str) -> Option<&'a str> {
    req.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
}

fn micros(n: u64) -> Duration {
    Duration::from_micros(n)
}

impl HttpLink {
    pub(super) fn new(seed: u64, rng: &mut Rng, faulty: bool, base: Instant) -> (Self, Connection) {
        let kind = match rng.below(100) {
            0..=39 => HttpKind::Modern,
            40..=74 => HttpKind::LegacyStreamable,
            _ => HttpKind::LegacySse,
        };
        let path = match (kind, rng.percent(35)) {
            (_, true) => "/api",
            (HttpKind::LegacySse, false) => "/sse",
            (_, false) => "/mcp",
        };
        let opts = HttpOptions {
            kind,
            sse_percent: rng.below(101),
            get_stream: rng.percent(70),
            priming: rng.percent(50),
            retry_ms: rng.percent(50).then(|| 100 + rng.below(3000)),
            refusal: rng.below(4),
            delete_ok: rng.percent(80),
            notify_percent: rng.below(21),
            max_message: MAX_MESSAGE,
            huge_bytes: MAX_MESSAGE + 1024,
            subscribe: rng.percent(50),
            tasks: TaskOptions::random(rng, faulty),
        };
        let net = NetFaults {
            refused: rng.fault(faulty, 8),
            connect_timeout: rng.fault(faulty, 2),
            proxy_5xx: rng.fault(faulty, 8),
            cut: rng.fault(faulty, 10),
            slow_head: rng.fault(faulty, 8),
            slow_body: rng.fault(faulty, 10),
            reorder: rng.fault(faulty, 30),
            garbage: rng.fault(faulty, 6),
            oversize: rng.fault(faulty, 3),
            split: if faulty { 20 + rng.below(81) } else { 0 },
            stray: rng.fault(faulty, 8),
        };
        let crlf = rng.percent(25);
        let model = ModelFaults { expire: rng.fault(faulty, 6), err400: rng.fault(faulty, 6) };
        let url = format!("{ORIGIN}{path}");
        let mut http = HttpConfig::new(&url).expect("a valid URL");
        http.retries = rng.below(3) as u32;
        http.retry_delay = Duration::from_millis(100 + rng.below(900));
        let retries = (http.retries, http.retry_delay);
        let cfg = super::client_config(mcpwire_core::TransportConfig::Http(http), seed);
        let link = Self {
            server: HttpServer::new(opts),
            url,
            retries,
            net,
            model,
            xs: BTreeMap::new(),
            discover_answered: false,
            legacy_session: false,
            tool_posts: BTreeMap::new(),
            crlf,
            fail_next_listen: false,
            fail_next_task: false,
            task_updates: BTreeMap::new(),
            exchanges: 0,
        };
        (link, Connection::new(cfg, base))
    }

    pub(super) fn options(&self) -> String {
        let (retries, delay) = self.retries;
        format!(
            "url {}, {retries} retries after {delay:?}, crlf {}, {:?}, {:?}, {:?}",
            self.url,
            self.crlf,
            self.server.options(),
            self.net,
            self.model
        )
    }

    /// The server's own fault and coverage counts.
    pub(super) fn server_stats(&self) -> (BTreeMap<&'static str, u64>, BTreeMap<&'static str, u64>) {
        (self.server.faults.clone(), self.server.seen.clone())
    }

    /// The server speaks 2026-07-28; a legacy one declares `resources.subscribe`.
    pub(super) fn era(&self) -> (bool, bool) {
        let opts = self.server.options();
        (opts.kind == HttpKind::Modern, opts.subscribe)
    }

    /// The server declares tasks (the extension, or the 2025-11-25 capability).
    pub(super) fn tasks_declared(&self) -> bool {
        let opts = self.server.options();
        match opts.kind {
            HttpKind::Modern => opts.tasks.declare,
            HttpKind::LegacyStreamable => opts.tasks.on && opts.tasks.declare,
            HttpKind::LegacySse => false,
        }
    }

    pub(super) fn heal(&mut self) {
        self.net = NetFaults::default();
        self.model = ModelFaults::default();
        self.fail_next_listen = false;
        self.fail_next_task = false;
    }

    /// The server pushes status notifications of its tasks on the streams it holds open.
    pub(super) fn task_notes(&mut self, sim: &mut Sim) {
        let actions = self.server.task_notes(sim.now, &mut sim.rng);
        sim.on_task_facts(self.server.take_task_facts());
        if !actions.is_empty() {
            sim.seen("task_notification_pushed");
        }
        self.act(sim, None, actions);
    }

    /// The next task message meets a 5xx.
    pub(super) fn task_fault(&mut self, _sim: &mut Sim) {
        self.fail_next_task = true;
    }

    /// The server sends notifications on the listens it acknowledged (up to `n` each; `big`:
    /// large payloads).
    pub(super) fn listen_burst(&mut self, sim: &mut Sim, n: u64, big: bool) {
        let burst = self.server.listens().burst(&mut sim.rng, n, big);
        for (exchange, nonce, notes) in burst {
            if self.writable(exchange) {
                sim.server_listen_notes(nonce, notes.len() as u64);
                self.push_listen(sim, exchange, notes, None);
            }
        }
    }

    /// Notifications that are not for any listen of this client (untagged, unknown ids), on
    /// one of the listen streams.
    pub(super) fn listen_strays(&mut self, sim: &mut Sim) {
        if let Some(exchange) = self.server.listens().pick(&mut sim.rng) {
            let notes = listen::strays(&mut sim.rng);
            self.push_listen(sim, exchange, notes, None);
        }
    }

    /// The server ends one of its listens on its own (the message, then the end of the stream).
    pub(super) fn listen_close(&mut self, sim: &mut Sim, kind: CloseKind) {
        if let Some(exchange) = self.server.listens().pick(&mut sim.rng) {
            self.listen_tick(sim, exchange, Tick::Close(kind));
        }
    }

    /// A listen stream drops (cut or broken); sometimes its re-open meets a 5xx too.
    pub(super) fn listen_fault(&mut self, sim: &mut Sim) {
        let Some(exchange) = self.server.listens().pick(&mut sim.rng) else { return };
        if !self.writable(exchange) {
            return;
        }
        sim.fault("listen_drop");
        let fail = sim.rng.percent(50);
        sim.schedule(Duration::ZERO, Ev::HttpCut(exchange, fail));
        if sim.rng.percent(40) {
            self.fail_next_listen = true;
        }
    }

    /// The server may still write on `exchange`.
    fn writable(&self, exchange: ExchangeId) -> bool {
        self.xs.get(&exchange).is_some_and(|x| x.open && !x.ending)
    }

    fn listen_tick(&mut self, sim: &mut Sim, exchange: ExchangeId, tick: Tick) {
        if !self.writable(exchange) {
            return;
        }
        let Some((msg, l)) = self.server.listen_tick(exchange, tick) else { return };
        sim.server_listen_tick(&l, tick);
        let end = matches!(tick, Tick::Close(_)).then_some(false);
        self.push_listen(sim, exchange, vec![msg], end);
    }

    /// Writes messages on a listen stream, after everything written on it so far; `end`: then
    /// ends it (`Some(true)`: breaks it).
    fn push_listen(&mut self, sim: &mut Sim, exchange: ExchangeId, msgs: Vec<Value>, end: Option<bool>) {
        if !self.writable(exchange) {
            return;
        }
        let events = msgs
            .iter()
            .map(|m| SseOut { at: Duration::ZERO, text: format!("data: {m}\n\n"), tag: None })
            .collect();
        self.push_events(sim, exchange, events);
        if let Some(fail) = end {
            let part = if fail { Part::Fail("server died".into()) } else { Part::End(Vec::new()) };
            self.push(sim, exchange, Duration::ZERO, part);
        }
    }

    /// Exchanges neither ended nor aborted.
    pub(super) fn open_exchanges(&self) -> Vec<ExchangeId> {
        self.xs.iter().filter(|(_, x)| x.open).map(|(id, _)| *id).collect()
    }

    pub(super) fn perform(&mut self, sim: &mut Sim, io: Io) {
        match io {
            Io::HttpStart { exchange, request } => self.start(sim, exchange, request),
            Io::HttpAbort { exchange } => {
                let Some(x) = self.xs.get_mut(&exchange) else {
                    sim.fail(format!("abort of {exchange}, which was never started"))
                };
                if x.aborted {
                    sim.fail(format!("{exchange} aborted twice"));
                }
                if x.ended {
                    sim.fail(format!("{exchange} aborted after the runtime reported its end"));
                }
                x.open = false;
                x.aborted = true;
                self.server.on_closed(exchange);
            }
            other => sim.fail(format!("unexpected IO on HTTP: {other:?}")),
        }
    }

    pub(super) fn on_event(&mut self, sim: &mut Sim, ev: Ev) {
        let now = sim.at();
        match ev {
            Ev::Http(exchange, part) => {
                if let (Some(x), Part::Body(bytes, _)) = (self.xs.get(&exchange), &part) {
                    // The runtime's reader raced the abort of a listen's stream: the core
                    // must drop what it reads.
                    if x.aborted && x.listen && sim.faults_on && sim.rng.percent(50) {
                        sim.seen("listen_body_after_abort");
                        sim.note(format!("{:?} world: {exchange} late {}", sim.now, describe(&part)));
                        sim.conn.handle_http_body(now, exchange, bytes);
                        return;
                    }
                }
                let Some(x) = self.xs.get_mut(&exchange).filter(|x| x.open) else { return };
                sim.note(format!("{:?} world: {exchange} {}", sim.now, describe(&part)));
                match part {
                    Part::Head(head) => {
                        x.head_2xx = (200..300).contains(&head.status);
                        sim.conn.handle_http_head(now, exchange, head);
                    }
                    Part::Body(bytes, tags) => {
                        sim.conn.handle_http_body(now, exchange, &bytes);
                        self.answered(sim, exchange, tags);
                    }
                    Part::End(tags) => {
                        x.open = false;
                        x.ended = true;
                        sim.conn.handle_http_end(now, exchange);
                        self.answered(sim, exchange, tags);
                        self.server.on_closed(exchange);
                    }
                    Part::Fail(detail) => {
                        x.open = false;
                        x.ended = true;
                        sim.conn.handle_http_failed(now, exchange, std::io::Error::other(detail));
                        self.server.on_closed(exchange);
                    }
                }
            }
            Ev::HttpCut(exchange, fail) => {
                if !sim.faults_on || !self.xs.get(&exchange).is_some_and(|x| x.open) {
                    return;
                }
                sim.fault("stream_cut");
                let part = if fail { Part::Fail("connection reset".into()) } else { Part::End(Vec::new()) };
                sim.schedule(Duration::ZERO, Ev::Http(exchange, part));
            }
            Ev::ListenTick(ListenKey::Http(exchange), tick) => self.listen_tick(sim, exchange, tick),
            other => sim.fail(format!("a stdio event on HTTP: {other:?}")),
        }
    }

    fn answered(&mut self, sim: &mut Sim, exchange: ExchangeId, tags: Vec<Tag>) {
        if tags.iter().any(|t| t.discover) {
            self.server.note_seen("discover_answered");
        }
        for tag in tags {
            if let (Some(x), false) = (self.xs.get_mut(&exchange), tag.id.is_empty()) {
                x.answered = true;
            }
            self.discover_answered |= tag.discover;
            if let Some(seen) = tag.seen {
                sim.on_seen(seen);
            }
        }
    }

    fn start(&mut self, sim: &mut Sim, exchange: ExchangeId, req: HttpRequest) {
        self.exchanges += 1;
        if self.xs.contains_key(&exchange) {
            sim.fail(format!("exchange id {exchange} started twice"));
        }
        let nonce = self.check_request(sim, exchange, &req);
        let msg = serde_json::from_slice::<Value>(&req.body).unwrap_or(Value::Null);
        let nonce = nonce.or_else(|| sim.answer_nonce(&msg));
        let task_message = msg.get("method").and_then(Value::as_str).is_some_and(|m| m.starts_with("tasks/"));
        let listen = is_listen(&req);
        let method = msg.get("method").and_then(Value::as_str).unwrap_or("");
        let protected = method == "tasks/update" && tasks::AVOID_UPDATE_REISSUE_BUG;
        let x = Xs { open: true, cursor: sim.now, nonce, listen, protected, ..Default::default() };
        self.xs.insert(exchange, x);
        if sim.faults_on && !protected {
            let net = self.net;
            if sim.rng.percent(net.refused) {
                sim.fault("refused");
                let at = Duration::from_millis(1 + sim.rng.below(20));
                return self.push(sim, exchange, at, Part::Fail("connection refused".into()));
            }
            if sim.rng.percent(net.connect_timeout) {
                sim.fault("connect_timeout");
                return self.push(sim, exchange, req.connect_timeout, Part::Fail("connect timed out".into()));
            }
            let forced = self.fail_next_listen && is_listen(&req);
            if forced {
                self.fail_next_listen = false;
                sim.fault("listen_5xx");
            }
            let forced_task = self.fail_next_task && task_message;
            if forced_task {
                self.fail_next_task = false;
                sim.fault("task_5xx");
            }
            let forced = forced || forced_task;
            if forced || sim.rng.percent(net.proxy_5xx) {
                sim.fault("5xx");
                let status = [500, 502, 503][sim.rng.below(3) as usize];
                let at = Duration::from_millis(5 + sim.rng.below(50));
                let head = HttpHead { status, headers: vec![("Content-Type".into(), "text/html".into())] };
                self.push(sim, exchange, at, Part::Head(head));
                self.push(sim, exchange, at, Part::Body(b"<html>bad gateway</html>".to_vec(), Vec::new()));
                return self.push(sim, exchange, at, Part::End(Vec::new()));
            }
        }
        let faults = if sim.faults_on { self.model } else { ModelFaults::default() };
        let ctx = sim.task_ctx();
        let actions = self.server.on_request(exchange, &req, &mut sim.rng, faults, &ctx);
        sim.on_task_facts(self.server.take_task_facts());
        self.act(sim, Some(exchange), actions);
    }

    /// Does what the server decided (`exchange`: the one it handles, if any).
    fn act(&mut self, sim: &mut Sim, handled: Option<ExchangeId>, actions: Vec<Action>) {
        for action in actions {
            match action {
                Action::ListenTicks(ticks) => {
                    let Some(exchange) = handled else { continue };
                    for (at, tick) in ticks {
                        sim.schedule(at, Ev::ListenTick(ListenKey::Http(exchange), tick));
                    }
                }
                Action::Respond(resp) => {
                    let Some(exchange) = handled else { continue };
                    self.respond(sim, exchange, resp);
                }
                Action::Push { exchange: to, events } => self.push_events(sim, to, events),
                Action::End { exchange: to, at, fail } => {
                    if self.xs.get(&to).is_some_and(|x| x.open) {
                        let part =
                            if fail { Part::Fail("server died".into()) } else { Part::End(Vec::new()) };
                        self.push(sim, to, at, part);
                    }
                }
            }
        }
    }

    /// Schedules a part of `exchange` `after` from now, after every earlier part of it.
    fn push(&mut self, sim: &mut Sim, exchange: ExchangeId, after: Duration, part: Part) {
        let Some(x) = self.xs.get_mut(&exchange) else { return };
        let at = (sim.now + after).max(x.cursor + micros(1));
        x.cursor = at;
        x.ending |= matches!(part, Part::End(_) | Part::Fail(_));
        if let (Part::Body(_, tags) | Part::End(tags), Some(nonce)) = (&part, x.nonce) {
            if !tags.is_empty() {
                sim.maybe_cancel_before(Some(nonce), at);
            }
        }
        sim.schedule_at(at, Ev::Http(exchange, part));
    }

    /// Splits `bytes` into chunks (when faults are on), the tags going with the last one.
    fn chunks(&self, sim: &mut Sim, bytes: &[u8]) -> Vec<Vec<u8>> {
        let pieces = if sim.faults_on && bytes.len() > 1 && sim.rng.percent(self.net.split) {
            1 + sim.rng.below(4)
        } else {
            1
        };
        let mut out = Vec::new();
        let mut rest = bytes;
        for k in 0..pieces {
            let take =
                if k + 1 == pieces { rest.len() } else { sim.rng.below(rest.len() as u64 + 1) as usize };
            let (piece, tail) = rest.split_at(take);
            rest = tail;
            if !piece.is_empty() {
                out.push(piece.to_vec());
            }
        }
        out
    }

    /// An event's bytes as the server writes them (CRLF line ends in some seeds).
    fn event_bytes(&self, text: String) -> Vec<u8> {
        if self.crlf {
            text.replace('\n', "\r\n").into_bytes()
        } else {
            text.into_bytes()
        }
    }

    /// Sometimes (faults on) slips a response to an unknown id in before `events[i]`.
    fn maybe_stray(&self, sim: &mut Sim, events: &mut Vec<SseOut>) {
        if sim.faults_on && !events.is_empty() && sim.rng.percent(self.net.stray) {
            sim.fault("stray");
            let i = sim.rng.below(events.len() as u64) as usize;
            let id = 9_000_000 + sim.rng.below(1000);
            let text = format!("data: {{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{}}}}\n\n");
            events.insert(i, SseOut { at: events[i].at, text, tag: None });
        }
    }

    /// Schedules the server's response to `exchange` through the (faulty) network.
    fn respond(&mut self, sim: &mut Sim, exchange: ExchangeId, resp: Response) {
        let faults = sim.faults_on && !self.xs.get(&exchange).is_some_and(|x| x.protected);
        let net = self.net;
        let mut extra = Duration::ZERO;
        if faults && sim.rng.percent(net.reorder) {
            sim.fault("reorder");
            extra += Duration::from_millis(sim.rng.below(3000));
        }
        let mut head_at = resp.at + extra;
        if faults && sim.rng.percent(net.slow_head) {
            sim.fault("slow_head");
            head_at += Duration::from_millis(500 + sim.rng.below(12_000));
        }
        if resp.dies {
            return self.push(sim, exchange, head_at, Part::Fail("connection reset by peer".into()));
        }
        let success = (200..300).contains(&resp.status);
        self.push(
            sim,
            exchange,
            head_at,
            Part::Head(HttpHead { status: resp.status, headers: resp.headers }),
        );
        let gap = if faults && sim.rng.percent(net.slow_body) {
            sim.fault("slow_body");
            Some(200 + sim.rng.below(5000))
        } else {
            None
        };
        let gap = |sim: &mut Sim| Duration::from_millis(sim.rng.below(gap.unwrap_or(5)));
        match resp.body {
            Body::Bytes { mut bytes, mut tag } => {
                if faults && success && !bytes.is_empty() && sim.rng.percent(net.garbage) {
                    sim.fault("garbage");
                    bytes = b"<html><body>502 upstream hiccup</body></html>".to_vec();
                    tag = None;
                } else if faults && success && sim.rng.percent(net.oversize) {
                    sim.fault("oversize");
                    bytes = vec![b' '; MAX_MESSAGE + 1];
                    tag = None;
                }
                let mut cut = None;
                if faults && success && bytes.len() > 1 && sim.rng.percent(net.cut) {
                    sim.fault("cut");
                    cut = Some(1 + sim.rng.below(bytes.len() as u64 - 1) as usize);
                }
                if let Some(t) = tag.as_mut() {
                    t.seen = tasks::seen_in(&bytes);
                }
                let body = &bytes[..cut.unwrap_or(bytes.len())];
                for chunk in self.chunks(sim, body) {
                    let at = head_at + gap(sim);
                    self.push(sim, exchange, at, Part::Body(chunk, Vec::new()));
                }
                let end = match (cut, sim.rng.percent(70)) {
                    (Some(_), true) => Part::Fail("connection reset mid-body".into()),
                    (Some(_), false) => Part::End(Vec::new()),
                    (None, _) => Part::End(tag.into_iter().collect()),
                };
                self.push(sim, exchange, head_at, end);
            }
            Body::Events { mut events, end, end_at } => {
                if faults && !events.is_empty() && sim.rng.percent(net.garbage) {
                    sim.fault("garbage");
                    let i = sim.rng.below(events.len() as u64) as usize;
                    let at = events[i].at;
                    events.insert(i, SseOut { at, text: "data: {this is not json\n\n".into(), tag: None });
                }
                self.maybe_stray(sim, &mut events);
                let mut cut = None;
                if faults && !events.is_empty() && sim.rng.percent(net.cut) {
                    sim.fault("cut");
                    let i = sim.rng.below(events.len() as u64) as usize;
                    let len = events[i].text.len().max(1) as u64;
                    cut = Some((i, sim.rng.below(len) as usize));
                }
                for (i, ev) in events.into_iter().enumerate() {
                    let at = (ev.at + extra).max(head_at);
                    let mut tags: Vec<Tag> = seen_tag(ev.tag, &ev.text).into_iter().collect();
                    let mut text = self.event_bytes(ev.text);
                    if let Some((ci, offset)) = cut {
                        if i > ci {
                            break;
                        }
                        if i == ci {
                            text.truncate(offset);
                            tags.clear();
                        }
                    }
                    let chunks = self.chunks(sim, &text);
                    let last = completing_chunk(&chunks, &text);
                    for (k, chunk) in chunks.into_iter().enumerate() {
                        let tags = if k == last { std::mem::take(&mut tags) } else { Vec::new() };
                        let at = if k == 0 { at } else { at + gap(sim) };
                        self.push(sim, exchange, at, Part::Body(chunk, tags));
                    }
                }
                let end_at = (end_at + extra).max(head_at);
                match (cut, end) {
                    (Some(_), _) => {
                        let part = if sim.rng.percent(70) {
                            Part::Fail("connection reset mid-event".into())
                        } else {
                            Part::End(Vec::new())
                        };
                        self.push(sim, exchange, end_at, part);
                    }
                    (None, StreamEnd::Close) => self.push(sim, exchange, end_at, Part::End(Vec::new())),
                    (None, StreamEnd::Fail) => {
                        self.push(sim, exchange, end_at, Part::Fail("server died".into()))
                    }
                    (None, StreamEnd::Open) => {
                        if let Some(x) = self.xs.get_mut(&exchange) {
                            x.floor = x.cursor;
                        }
                        if faults && sim.rng.percent(net.cut * 8) {
                            let at = sim.now + Duration::from_millis(1000 + sim.rng.below(60_000));
                            let fail = sim.rng.percent(60);
                            sim.schedule_at(at, Ev::HttpCut(exchange, fail));
                        }
                    }
                }
            }
        }
    }

    /// Writes events on an open long-lived stream: each event whole at its time (its chunks
    /// in one instant, so events never interleave), after the stream's first response.
    fn push_events(&mut self, sim: &mut Sim, exchange: ExchangeId, mut events: Vec<SseOut>) {
        self.maybe_stray(sim, &mut events);
        if sim.faults_on && events.last().is_some_and(|e| e.tag.is_some()) && sim.rng.percent(self.net.stray)
        {
            sim.fault("duplicate");
            let mut again = events[events.len() - 1].clone();
            again.tag = None;
            again.at += Duration::from_millis(sim.rng.below(50));
            events.push(again);
        }
        for ev in events {
            let Some(x) = self.xs.get(&exchange).filter(|x| x.open) else { return };
            let at = (sim.now + ev.at).max(x.floor + micros(1));
            let mut tags: Vec<Tag> = seen_tag(ev.tag, &ev.text).into_iter().collect();
            let bytes = self.event_bytes(ev.text);
            let chunks = self.chunks(sim, &bytes);
            let last = completing_chunk(&chunks, &bytes);
            for (k, chunk) in chunks.into_iter().enumerate() {
                let tags = if k == last { std::mem::take(&mut tags) } else { Vec::new() };
                if let Some(x) = self.xs.get_mut(&exchange) {
                    x.cursor = x.cursor.max(at);
                }
                sim.schedule_at(at, Ev::Http(exchange, Part::Body(chunk, tags)));
            }
        }
    }
}

/// The chunk with which the client has a whole event (`text`, split into `chunks`): the last
/// one, or with CRLF line ends the one carrying the final CR (a lone CR already ends the blank
/// line that dispatches the event).
fn completing_chunk(chunks: &[Vec<u8>], text: &[u8]) -> usize {
    let need = if text.ends_with(b"\r\n") { text.len() - 1 } else { text.len() };
    let mut sum = 0;
    for (k, c) in chunks.iter().enumerate() {
        sum += c.len();
        if sum >= need {
            return k;
        }
    }
    chunks.len().saturating_sub(1)
}

/// An event's tag with what it tells the client about a task: the answer's own tag, or (for a
/// task notification) a tag of its own. A response without a tag (a duplicate, a stray) tells
/// nothing.
fn seen_tag(tag: Option<Tag>, text: &str) -> Option<Tag> {
    let seen = tasks::seen_in(text.as_bytes());
    match tag {
        Some(mut t) => {
            t.seen = seen;
            Some(t)
        }
        None => {
            seen.filter(|s| s.id.is_none()).map(|s| Tag { id: String::new(), discover: false, seen: Some(s) })
        }
    }
}

/// The request is a `subscriptions/listen` POST.
fn is_listen(req: &HttpRequest) -> bool {
    req.method == HttpMethod::Post
        && serde_json::from_slice::<Value>(&req.body)
            .is_ok_and(|m| m.get("method").and_then(Value::as_str) == Some("subscriptions/listen"))
}

fn describe(part: &Part) -> String {
    match part {
        Part::Head(h) => format!("head {} {:?}", h.status, h.headers),
        Part::Body(b, tags) => {
            let text = String::from_utf8_lossy(&b[..b.len().min(120)]).into_owned();
            format!("body {} bytes {text:?} tags {tags:?}", b.len())
        }
        Part::End(tags) => format!("end tags {tags:?}"),
        Part::Fail(d) => format!("failed: {d}"),
    }
}
