//! One HTTP exchange's response: status, bounded decompression, and the body as JSON, as an
//! event stream, or as an error body.

use crate::config::Limits;
use crate::error::Warning;
use crate::gzip::{BodyDecoder, BodyError, ContentEncoding};
use crate::handle::Epoch;
use crate::io::HttpHead;
use crate::jsonrpc::{self, DecodeError, Message, RpcErrorObject, WireId};
use crate::jsonrpc_head::{scan_head, scan_tail, Peek, HEAD_BYTES};
use crate::redirect_error::RedirectError;
use crate::sse::{SseDecoder, SseItem, SseLimits};
use crate::text::sanitize_bytes;

use super::kept_request::KeptRequest;

/// What an exchange is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Role {
    /// A POSTed message; `id` is set for a request (which expects its response here, except
    /// on HTTP+SSE). `modern` when it went out under the 2026-07-28 rules.
    Post { id: Option<WireId>, modern: bool },
    /// The legacy Streamable HTTP GET stream (server requests and notifications).
    Listen,
    /// The HTTP+SSE event stream (the `endpoint` event, then every server message).
    SseStream,
    /// Resuming a broken legacy response stream with `Last-Event-ID` (`last`), for the
    /// `attempts`-th time.
    Resume { id: WireId, last: String, attempts: u32 },
    /// The `DELETE` that ends a legacy session.
    Delete,
}

impl Role {
    /// Whether closing this exchange is the whole cancellation of its request (modern).
    pub(crate) fn is_modern(&self) -> bool {
        matches!(self, Role::Post { modern: true, .. })
    }

    /// The request whose response this exchange carries, if any.
    pub(crate) fn request_id(&self) -> Option<&WireId> {
        match self {
            Role::Post { id: Some(id), .. } | Role::Resume { id, .. } => Some(id),
            _ => None,
        }
    }
}

/// Input for [`Exchange::feed`].
#[derive(Debug)]
pub(crate) enum Feed<'a> {
    /// Nothing new (after the head, or a failure): just report.
    Nothing,
    /// Raw body bytes.
    Bytes(&'a [u8]),
    /// The body ended.
    End,
    /// The transport failed.
    Failed(crate::IoError),
}

/// Something the body carried.
#[derive(Debug)]
pub(crate) enum Item {
    /// A message's text, for the wire trace (before the messages it holds).
    Traced(String),
    /// A JSON-RPC message.
    Message(Message),
    /// An HTTP+SSE `endpoint` event's data.
    Endpoint(String),
    /// An event over `max_message_bytes` is being skipped (`done: false`, announced as soon
    /// as its start is known) or was (`done: true`, with what its end showed too).
    Oversize {
        /// What its kept start (and, when done, end) showed.
        peek: Peek,
        /// Bytes it was known to have.
        seen: usize,
        /// The event ended.
        done: bool,
    },
}

/// A body over a size limit: which limit, how much was seen, in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TooLarge {
    pub(crate) limit: usize,
    pub(crate) seen: usize,
    pub(crate) detail: String,
}

/// What one feed produced.
#[derive(Debug, Default)]
pub(crate) struct Output {
    pub(crate) items: Vec<Item>,
    pub(crate) warnings: Vec<Warning>,
}

/// How an exchange ended.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum End {
    /// The body ended normally.
    Complete,
    /// The transport failed (before the head if [`Exchange::status`] is `None`).
    Failed(crate::IoError),
    /// The body passed a size limit.
    TooLarge(TooLarge),
    /// The body could not be decoded (corrupt gzip, unknown `Content-Encoding`).
    BadBody(String),
    /// The response was a redirect that is not followed.
    Redirect(RedirectError),
}

/// Where an exchange stands: waiting for the response head, reading the body, or ended.
#[derive(Debug)]
enum Phase {
    /// No response head yet.
    AwaitingHead,
    /// The head arrived: the body is being decoded.
    Reading { response: Response, decoder: BodyDecoder },
    /// It ended, keeping the response if its head had arrived.
    Ended { response: Option<Response>, end: End },
}

/// A response whose head arrived.
#[derive(Debug)]
struct Response {
    status: u16,
    www_authenticate: Option<String>,
    body: Body,
}

#[derive(Debug)]
enum Body {
    /// A 2xx JSON body, buffered up to `max_message_bytes`.
    Json(Vec<u8>),
    /// A 2xx event stream.
    Events(Box<SseDecoder>),
    /// An error status: the start of the body, to find a JSON-RPC error in it; `full` once it
    /// reached its cap (the rest is ignored until the end).
    Error { start: Vec<u8>, full: bool },
}

/// One exchange in flight.
#[derive(Debug)]
pub(crate) struct Exchange {
    pub(crate) epoch: Epoch,
    pub(crate) role: Role,
    /// The request, to send again if the server redirects it.
    pub(crate) kept: KeptRequest,
    /// The URLs this request was redirected from, first to last (empty: not redirected).
    pub(crate) visited: Vec<String>,
    phase: Phase,
    /// The response to [`Role::request_id`] arrived.
    pub(crate) answered: bool,
    /// The last event id of the stream (to resume it).
    pub(crate) last_event_id: Option<String>,
    /// The server's `retry`, clamped, in milliseconds.
    pub(crate) retry_ms: Option<u64>,
    /// Any body byte arrived on a 2xx response.
    pub(crate) got_bytes: bool,
    /// The oversize event being skipped already failed the request it answers.
    pub(crate) oversize_answered: bool,
    /// The size of the last oversize event that could be this exchange's response (not known
    /// to be a server request or notification), if one was skipped.
    pub(crate) oversize_event: Option<usize>,
    max_message: usize,
    max_decompressed: usize,
    max_error_body: usize,
    /// Messages are also handed out as text, for the wire trace.
    pub(crate) trace: bool,
}

impl Exchange {
    pub(crate) fn new(epoch: Epoch, role: Role, kept: KeptRequest, limits: &Limits) -> Self {
        Self {
            epoch,
            role,
            kept,
            visited: Vec::new(),
            phase: Phase::AwaitingHead,
            answered: false,
            last_event_id: None,
            retry_ms: None,
            got_bytes: false,
            oversize_answered: false,
            oversize_event: None,
            max_message: limits.max_message_bytes,
            max_decompressed: limits.max_decompressed_body_bytes,
            max_error_body: limits.max_error_body_bytes,
            trace: false,
        }
    }

    /// The response, once its head arrived.
    fn response(&self) -> Option<&Response> {
        match &self.phase {
            Phase::AwaitingHead => None,
            Phase::Reading { response, .. } => Some(response),
            Phase::Ended { response, .. } => response.as_ref(),
        }
    }

    /// The response status, once the head arrived.
    pub(crate) fn status(&self) -> Option<u16> {
        self.response().map(|r| r.status)
    }

    /// The `WWW-Authenticate` header of the response.
    pub(crate) fn www_authenticate(&self) -> Option<&str> {
        self.response().and_then(|r| r.www_authenticate.as_deref())
    }

    /// How it ended, once it did.
    pub(crate) fn finished(&self) -> Option<&End> {
        match &self.phase {
            Phase::Ended { end, .. } => Some(end),
            _ => None,
        }
    }

    /// Ends the exchange with `end`, unless it already ended.
    fn end_with(&mut self, end: End) {
        self.phase = match std::mem::replace(&mut self.phase, Phase::AwaitingHead) {
            Phase::AwaitingHead => Phase::Ended { response: None, end },
            Phase::Reading { response, .. } => Phase::Ended { response: Some(response), end },
            ended @ Phase::Ended { .. } => ended,
        };
    }

    /// The head arrived: pick how to read the body.
    pub(crate) fn on_head(&mut self, head: &HttpHead) {
        if !matches!(self.phase, Phase::AwaitingHead) {
            return;
        }
        let success = (200..300).contains(&head.status);
        let content_type = head.header("content-type").unwrap_or("").to_ascii_lowercase();
        let events = success && content_type.trim_start().starts_with("text/event-stream");
        let body = if !success {
            Body::Error { start: Vec::new(), full: false }
        } else if events {
            Body::Events(Box::new(SseDecoder::new(SseLimits {
                max_event_bytes: self.max_message,
                capture_bytes: HEAD_BYTES,
                ..SseLimits::default()
            })))
        } else {
            Body::Json(Vec::new())
        };
        let response = Response {
            status: head.status,
            www_authenticate: head.header("www-authenticate").map(str::to_owned),
            body,
        };
        let encoding = match ContentEncoding::from_header(head.header("content-encoding")) {
            Ok(encoding) => encoding,
            Err(e) => {
                self.phase = Phase::Ended { response: Some(response), end: End::BadBody(e.to_string()) };
                return;
            }
        };
        // A JSON body announced over the limit is refused before any of it is read.
        let length = head.header("content-length").and_then(|v| v.trim().parse::<usize>().ok());
        let identity = encoding == ContentEncoding::Identity;
        let json = matches!(response.body, Body::Json(_));
        self.phase = Phase::Reading { response, decoder: BodyDecoder::new(encoding, self.max_decompressed) };
        if let (true, true, Some(len)) = (json, identity, length) {
            if len > self.max_message {
                let limit = self.max_message;
                self.end_with(End::TooLarge(TooLarge {
                    limit,
                    seen: len,
                    detail: format!(
                        "the JSON response body is {len} bytes (Content-Length), over the {limit}-byte limit \
                         (max_message_bytes)"
                    ),
                }));
            }
        }
    }

    /// The head was a redirect that is not followed: the exchange ends with `refused`.
    pub(crate) fn refuse_redirect(&mut self, refused: RedirectError) {
        self.end_with(End::Redirect(refused));
    }

    /// The transport failed.
    pub(crate) fn fail(&mut self, error: crate::IoError) {
        self.end_with(End::Failed(error));
    }

    /// Pushes input through the decoders.
    pub(crate) fn feed(&mut self, input: Feed<'_>) -> Output {
        let mut out = Output::default();
        let input = match input {
            Feed::Failed(error) => {
                self.fail(error);
                return out;
            }
            input => input,
        };
        let (response, decoder) = match (&mut self.phase, &input) {
            (Phase::Ended { .. }, _) | (_, Feed::Nothing) => return out,
            (Phase::AwaitingHead, _) => {
                // Body bytes without a head: a runtime bug; end the exchange cleanly.
                self.end_with(End::Failed(crate::IoError::other("body data before the response head")));
                return out;
            }
            (Phase::Reading { response, decoder }, _) => (response, decoder),
        };
        if let Body::Error { full: true, .. } = response.body {
            if matches!(input, Feed::End) {
                self.end_with(End::Complete);
            }
            return out;
        }
        let decoded = match input {
            Feed::Nothing | Feed::Failed(_) => return out,
            Feed::Bytes(bytes) => decoder.push(bytes).map(|b| (b, false)),
            Feed::End => decoder.finish().map(|b| (b, true)),
        };
        match decoded {
            Ok((bytes, at_end)) => {
                self.take(&bytes, &mut out);
                if at_end && matches!(self.phase, Phase::Reading { .. }) {
                    self.finish_body(&mut out);
                }
            }
            // The start of an error body is all that is wanted: the rest is ignored.
            Err(BodyError::TooLarge { .. }) if matches!(response.body, Body::Error { .. }) => {
                if let Body::Error { full, .. } = &mut response.body {
                    *full = true;
                }
            }
            Err(BodyError::TooLarge { limit }) => {
                self.end_with(End::TooLarge(TooLarge {
                    limit,
                    seen: limit.saturating_add(1),
                    detail: format!(
                        "the response body passed {limit} bytes after decompression (max_decompressed_body_bytes)"
                    ),
                }));
            }
            Err(e) => self.end_with(End::BadBody(e.to_string())),
        }
        out
    }

    fn take(&mut self, bytes: &[u8], out: &mut Output) {
        if bytes.is_empty() {
            return;
        }
        let Phase::Reading { response, .. } = &mut self.phase else { return };
        match &mut response.body {
            Body::Error { start, full } => {
                let room = self.max_error_body.saturating_sub(start.len());
                start.extend_from_slice(&bytes[..bytes.len().min(room)]);
                // The start is all that is wanted: stop decoding the rest.
                *full = start.len() >= self.max_error_body;
            }
            Body::Json(buf) => {
                self.got_bytes = true;
                if buf.len() + bytes.len() > self.max_message {
                    let limit = self.max_message;
                    let seen = buf.len() + bytes.len();
                    self.end_with(End::TooLarge(TooLarge {
                        limit,
                        seen,
                        detail: format!(
                            "a JSON response body passed the {limit}-byte limit (max_message_bytes)"
                        ),
                    }));
                    return;
                }
                buf.extend_from_slice(bytes);
            }
            Body::Events(sse) => {
                self.got_bytes = true;
                sse.push(bytes);
                self.drain_events(out);
            }
        }
    }

    fn finish_body(&mut self, out: &mut Output) {
        let Phase::Reading { response, .. } = &mut self.phase else { return };
        match &mut response.body {
            Body::Json(buf) => {
                let buf = std::mem::take(buf);
                if !buf.iter().all(u8::is_ascii_whitespace) {
                    self.decode_into(&buf, out);
                }
            }
            Body::Events(sse) => {
                sse.finish();
                self.drain_events(out);
            }
            Body::Error { .. } => {}
        }
        self.end_with(End::Complete);
    }

    fn drain_events(&mut self, out: &mut Output) {
        loop {
            let Phase::Reading { response, decoder } = &mut self.phase else { return };
            let Body::Events(sse) = &mut response.body else { return };
            let Some(item) = sse.next_event() else { return };
            // An event stream may run as long as the server keeps it open: the decompression
            // cap bounds what comes between two of its lines, so only a line or an oversize
            // event that never ends reaches it (a bomb), never a long stream of events.
            if !matches!(item, SseItem::OverflowStart { .. }) {
                decoder.restart_count();
            }
            match item {
                SseItem::Event(ev) => {
                    if ev.id.is_some() {
                        self.last_event_id = ev.id.clone();
                    }
                    match ev.event.as_str() {
                        "endpoint" => out.items.push(Item::Endpoint(ev.data)),
                        "message" if !ev.data.trim().is_empty() => self.decode_into(ev.data.as_bytes(), out),
                        // Priming events (an id, no data) and other event types carry no message.
                        _ => {}
                    }
                }
                SseItem::Retry(ms) => self.retry_ms = Some(ms),
                SseItem::Comment => {}
                SseItem::OverflowStart { head } => {
                    let seen = self.max_message.saturating_add(1);
                    out.items.push(Item::Oversize { peek: scan_head(&head), seen, done: false });
                }
                SseItem::Overflow { dropped, head, tail } => {
                    out.warnings.push(Warning::OversizeMessage { len: dropped, limit: self.max_message });
                    let peek = scan_head(&head).merge(scan_tail(&tail));
                    if !peek.call {
                        self.oversize_event = Some(dropped);
                    }
                    out.items.push(Item::Oversize { peek, seen: dropped, done: true });
                }
            }
        }
    }

    fn decode_into(&mut self, bytes: &[u8], out: &mut Output) {
        let request_id = self.role.request_id().cloned();
        if self.trace {
            out.items.push(Item::Traced(crate::wire::message_text(bytes)));
        }
        for msg in jsonrpc::decode(bytes) {
            match msg {
                Ok(mut m) => {
                    if let Some(rid) = &request_id {
                        // An error without id in the response to one request is about it.
                        if let Message::Error { id: id @ None, .. } = &mut m {
                            *id = Some(rid.clone());
                        }
                        if matches!(&m, Message::Result { id, .. } | Message::Error { id: Some(id), .. } if id == rid)
                        {
                            self.answered = true;
                        }
                    }
                    out.items.push(Item::Message(m));
                }
                Err(DecodeError::NotJson(_)) => {
                    let excerpt = sanitize_bytes(&bytes[..bytes.len().min(200)], 200);
                    out.warnings.push(Warning::NonJsonLine { excerpt });
                }
                Err(DecodeError::Invalid(reason)) => {
                    out.warnings.push(Warning::InvalidMessage { reason: reason.into() })
                }
            }
        }
    }

    /// An event over the limit is being (`done: false`) or was skipped: whether the request it
    /// answers was already failed for it (then nothing more is to be done).
    pub(crate) fn oversize_already_answered(&mut self, done: bool) -> bool {
        if done {
            std::mem::take(&mut self.oversize_answered)
        } else {
            self.oversize_answered
        }
    }

    /// The request an oversize event answers was failed (`answered`) or not; if it is this
    /// exchange's own request, the stream has nothing more to give.
    pub(crate) fn oversize_answer_failed(&mut self, answered: bool, done: bool, peek: &Peek) {
        self.oversize_answered = answered && !done;
        if answered && peek.answers() == self.role.request_id() {
            self.answered = true;
        }
    }

    /// For an error status: the JSON-RPC error in the body, if there is one.
    pub(crate) fn error_body(&self) -> Option<RpcErrorObject> {
        let Some(Response { body: Body::Error { start: buf, .. }, .. }) = self.response() else {
            return None;
        };
        jsonrpc::decode(buf).into_iter().find_map(|m| match m {
            Ok(Message::Error { error, .. }) => Some(error),
            _ => None,
        })
    }

    /// For an error status: the start of the body as text, sanitised.
    pub(crate) fn error_text(&self) -> String {
        match self.response().map(|r| &r.body) {
            Some(Body::Error { start, .. }) if !start.is_empty() => {
                sanitize_bytes(&start[..start.len().min(500)], 500)
            }
            _ => "(no body)".into(),
        }
    }
}
