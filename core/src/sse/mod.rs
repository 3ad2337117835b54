//! Bounded Server-Sent Events decoding: turns a `text/event-stream` body into events.
//!
//! This is the pure half of the HTTP transports (Streamable HTTP, whose POST responses may be
//! SSE streams, and the legacy HTTP+SSE transport of 2024-11-05); the runtimes feed it the
//! response body and act on what comes out. It follows the WHATWG HTML "event stream
//! interpretation": lines end with CR, LF or CRLF (also when split across chunks); one UTF-8
//! BOM at the start of the stream is skipped; a line starting with `:` is a comment; `field:value`
//! drops one leading space from the value and a line without a colon is a field with an empty
//! value; `data` lines accumulate (joined by `\n`), `event` sets the type (default `message`),
//! `id` sets the last event id, which persists across events, `retry` (ASCII digits only) sets
//! the reconnection delay; a blank line dispatches the event unless its data is empty. An
//! incomplete event (or line) at end of stream is discarded. Invalid UTF-8 is decoded lossily.
//!
//! Two deliberate tightenings, because untrusted servers feed this and ids are echoed back in a
//! `Last-Event-ID` header: an id longer than [`SseLimits::max_event_id_bytes`] or with any byte
//! outside printable ASCII (0x20..=0x7E, so also one with NUL) does not set the id and is
//! counted in [`SseDecoder::rejected_ids`]; `retry` values are clamped into
//! [`SseLimits::min_retry_ms`]..=[`SseLimits::max_retry_ms`] so `retry: 0` cannot cause a
//! reconnect loop.
//!
//! Memory and CPU are bounded: the decoder holds at most [`SseLimits::max_event_bytes`] for the
//! event being built (data, type and the current line; comment lines are never buffered). An
//! event that would exceed it is dropped whole and its remaining lines are skipped unbuffered up
//! to its blank line. Each input byte is examined a bounded number of times, and the output does
//! not depend on how the input is chunked.
//!
//! With [`SseLimits::capture_bytes`] set, the decoder keeps the first and the last that many
//! bytes of an oversize event's data (never more), so the transport can tell which request the
//! dropped message answered ([`crate::jsonrpc_head`]): [`SseItem::OverflowStart`] announces
//! the event once its head is known (while the rest is still being skipped), and
//! [`SseItem::Overflow`] carries head and tail when it ends.

use std::collections::VecDeque;

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Bounds on what one SSE stream can make the decoder hold.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SseLimits {
    /// Largest event: its data, its type and the current line together. Default 16 MiB.
    pub max_event_bytes: usize,
    /// Longest event id accepted (it is echoed in `Last-Event-ID`). Default 256.
    pub max_event_id_bytes: usize,
    /// Floor applied to `retry` values, in milliseconds. Default 200 (a server asking for
    /// 500 ms gets 500 ms; `retry: 0` cannot reconnect more than five times a second).
    pub min_retry_ms: u64,
    /// Cap applied to `retry` values, in milliseconds. Default 60 000.
    pub max_retry_ms: u64,
    /// How many bytes of an oversize event's data to keep from its end, and from its start (at
    /// most `max_event_bytes` there), reported by [`SseItem::OverflowStart`] and
    /// [`SseItem::Overflow`]. Default 0: none, and no `OverflowStart`.
    pub capture_bytes: usize,
}

impl Default for SseLimits {
    fn default() -> Self {
        Self {
            max_event_bytes: 16 * 1024 * 1024,
            max_event_id_bytes: 256,
            min_retry_ms: 200,
            max_retry_ms: 60_000,
            capture_bytes: 0,
        }
    }
}

impl SseLimits {
    /// Largest event: its data, its type and the current line together.
    pub fn max_event_bytes(mut self, max_event_bytes: usize) -> Self {
        self.max_event_bytes = max_event_bytes;
        self
    }

    /// Longest event id accepted (it is echoed in `Last-Event-ID`).
    pub fn max_event_id_bytes(mut self, max_event_id_bytes: usize) -> Self {
        self.max_event_id_bytes = max_event_id_bytes;
        self
    }

    /// Floor applied to `retry` values, in milliseconds.
    pub fn min_retry_ms(mut self, min_retry_ms: u64) -> Self {
        self.min_retry_ms = min_retry_ms;
        self
    }

    /// Cap applied to `retry` values, in milliseconds.
    pub fn max_retry_ms(mut self, max_retry_ms: u64) -> Self {
        self.max_retry_ms = max_retry_ms;
        self
    }

    /// How many bytes of an oversize event's data to keep from its end, and from its start (at most `max_event_bytes` there), reported by [`SseItem::OverflowStart`] and [`SseItem::Overflow`].
    pub fn capture_bytes(mut self, capture_bytes: usize) -> Self {
        self.capture_bytes = capture_bytes;
        self
    }
}

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The event type; `message` when the event set none (or an empty one).
    pub event: String,
    /// The data lines joined by `\n` (without a trailing `\n`).
    pub data: String,
    /// The last event id at dispatch (it persists across events); `None` if none or empty.
    pub id: Option<String>,
}

/// One item produced by [`SseDecoder`], in stream order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SseItem {
    /// A complete event.
    Event(SseEvent),
    /// A valid `retry` field: the reconnection delay in milliseconds, already clamped by
    /// [`retry_delay`] into the limits.
    Retry(u64),
    /// A comment line (e.g. a keep-alive); its text is not kept.
    Comment,
    /// An event exceeded [`SseLimits::max_event_bytes`] and was dropped, reported once when it
    /// ended (at its blank line, or at end of stream). `dropped` counts its buffered data and
    /// type plus the raw bytes of its lines from the one that overflowed on (terminators
    /// excluded).
    Overflow {
        /// Bytes discarded.
        dropped: usize,
        /// The first [`SseLimits::capture_bytes`] of its data, at most `max_event_bytes` (data
        /// lines' values, each followed by `\n`).
        head: Vec<u8>,
        /// The last [`SseLimits::capture_bytes`] of its data, in the same form.
        tail: Vec<u8>,
    },
    /// With [`SseLimits::capture_bytes`] set: the event being built passed the limit and is
    /// being skipped; `head` is the start of its data, as in [`SseItem::Overflow`] (which
    /// follows when the event ends). Announced once the head is complete (right away when
    /// the event already held that much data), or at the event's end.
    OverflowStart {
        /// The first bytes of the event's data.
        head: Vec<u8>,
    },
}

/// Clamps a server's `retry` value: at least `floor_ms`, at most `cap_ms` (the floor wins if
/// they cross).
pub fn retry_delay(ms: u64, floor_ms: u64, cap_ms: u64) -> u64 {
    ms.min(cap_ms).max(floor_ms)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Buffering a field line in `line` (empty: at the start of a line).
    Field,
    /// Skipping the rest of a comment line.
    Comment,
    /// Skipping an oversize event up to its blank line; `in_line` when the current line has
    /// content (so its terminator does not end the event).
    Discard { dropped: usize, in_line: bool },
}

/// Where the capture is within a line of an oversize event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DataLine {
    /// Reading the field name: this many bytes of `data` matched so far.
    Name(usize),
    /// The name is `data`: a `:` (or the line's end) follows.
    AfterName,
    /// In a `data` value; `space`: its one optional leading space may come next.
    Value { space: bool },
    /// Another field or a comment: nothing to keep.
    Other,
}

/// The kept start and end of an oversize event's data: the data lines' values, each followed
/// by `\n`, as the decoder would have buffered them, bounded to `keep_head` and `keep` bytes.
#[derive(Debug, Clone)]
struct Capture {
    /// Bytes kept from the end (0: nothing is captured).
    keep: usize,
    /// Bytes kept from the start: `keep`, but no more than the event limit, so the head is
    /// complete about when the event overflows.
    keep_head: usize,
    head: Vec<u8>,
    /// The latest bytes (at most twice `keep`; the last `keep` count).
    tail: Vec<u8>,
    line: DataLine,
    /// `OverflowStart` was reported for this event.
    announced: bool,
}

impl Capture {
    fn new(keep: usize, max_event_bytes: usize) -> Self {
        Self {
            keep,
            keep_head: keep.min(max_event_bytes),
            head: Vec::new(),
            tail: Vec::new(),
            line: DataLine::Name(0),
            announced: false,
        }
    }

    /// An event overflowed: what it had buffered (`data`, the current `line`) and the bytes
    /// that made it overflow (`content`, the same line's continuation). Returns the head to
    /// announce, if it is complete.
    fn start(&mut self, data: &[u8], line: &[u8], content: &[u8]) -> Option<Vec<u8>> {
        if self.keep == 0 {
            return None;
        }
        self.head.clear();
        self.tail.clear();
        self.line = DataLine::Name(0);
        self.announced = false;
        self.value(data);
        self.scan(line);
        self.line(content)
    }

    /// More of the current line of the skipped event (no terminator).
    fn line(&mut self, bytes: &[u8]) -> Option<Vec<u8>> {
        if self.keep == 0 {
            return None;
        }
        self.scan(bytes);
        self.announce(false)
    }

    /// The current line ended (the event goes on).
    fn end_line(&mut self) -> Option<Vec<u8>> {
        if self.keep == 0 {
            return None;
        }
        if matches!(self.line, DataLine::AfterName | DataLine::Value { .. }) {
            self.value(b"\n");
        }
        self.line = DataLine::Name(0);
        self.announce(false)
    }

    /// The event ended: the head to announce if not yet done, then head and tail.
    fn finish(&mut self) -> (Option<Vec<u8>>, Vec<u8>, Vec<u8>) {
        if self.keep == 0 {
            return (None, Vec::new(), Vec::new());
        }
        let start = self.announce(true);
        let mut tail = std::mem::take(&mut self.tail);
        tail.drain(..tail.len().saturating_sub(self.keep));
        self.line = DataLine::Name(0);
        (start, std::mem::take(&mut self.head), tail)
    }

    fn announce(&mut self, at_end: bool) -> Option<Vec<u8>> {
        if self.announced || (!at_end && self.head.len() < self.keep_head) {
            return None;
        }
        self.announced = true;
        Some(self.head.clone())
    }

    /// Runs line bytes through the field-name reader, keeping a `data` value's bytes.
    fn scan(&mut self, mut bytes: &[u8]) {
        while let Some(&b) = bytes.first() {
            match self.line {
                DataLine::Name(n) if b == b"data"[n] => {
                    self.line = if n == 3 { DataLine::AfterName } else { DataLine::Name(n + 1) };
                }
                DataLine::AfterName if b == b':' => self.line = DataLine::Value { space: true },
                DataLine::Name(_) | DataLine::AfterName => self.line = DataLine::Other,
                DataLine::Value { space: true } => {
                    self.line = DataLine::Value { space: false };
                    if b != b' ' {
                        continue;
                    }
                }
                DataLine::Value { space: false } => return self.value(bytes),
                DataLine::Other => return,
            }
            bytes = &bytes[1..];
        }
    }

    fn value(&mut self, bytes: &[u8]) {
        let room = self.keep_head.saturating_sub(self.head.len());
        self.head.extend_from_slice(&bytes[..bytes.len().min(room)]);
        if bytes.len() >= self.keep {
            self.tail.clear();
            self.tail.extend_from_slice(&bytes[bytes.len() - self.keep..]);
        } else {
            self.tail.extend_from_slice(bytes);
            if self.tail.len() > 2 * self.keep {
                self.tail.drain(..self.tail.len() - self.keep);
            }
        }
    }
}

/// Push decoder for one `text/event-stream` body (and, after [`SseDecoder::finish`], the next
/// one on reconnection: the last event id carries over).
///
/// Feed bytes with [`SseDecoder::push`] and drain [`SseDecoder::next_event`] after each push;
/// call [`SseDecoder::finish`] at end of stream.
#[derive(Debug, Clone)]
pub struct SseDecoder {
    limits: SseLimits,
    /// `Some(n)` at the start of a stream: `n` bytes of a BOM seen so far.
    bom: Option<usize>,
    mode: Mode,
    /// The current field line (raw bytes, no terminator).
    line: Vec<u8>,
    /// The last byte was a CR terminator: a following LF belongs to it.
    after_cr: bool,
    /// Raw data buffer: each `data` value followed by `\n`.
    data: Vec<u8>,
    /// Raw event type buffer.
    event_type: Vec<u8>,
    /// The last event id buffer (set by `id` lines) and string (committed at dispatch).
    id_buffer: String,
    last_id: String,
    rejected_ids: usize,
    /// The kept start and end of an oversize event's data.
    capture: Capture,
    ready: VecDeque<SseItem>,
}

impl SseDecoder {
    /// A decoder at the start of a stream, with no last event id.
    pub fn new(limits: SseLimits) -> Self {
        Self {
            bom: Some(0),
            mode: Mode::Field,
            line: Vec::new(),
            after_cr: false,
            data: Vec::new(),
            event_type: Vec::new(),
            id_buffer: String::new(),
            last_id: String::new(),
            rejected_ids: 0,
            capture: Capture::new(limits.capture_bytes, limits.max_event_bytes),
            limits,
            ready: VecDeque::new(),
        }
    }

    /// Bytes held for the event being built (data, type and current line); never more than
    /// [`SseLimits::max_event_bytes`]. Ids (bounded separately) and undrained items are extra.
    pub fn buffered(&self) -> usize {
        self.data.len() + self.event_type.len() + self.line.len()
    }

    /// The last event id of a dispatched (or, with empty data, blank-line-ended) event: the
    /// value to send as `Last-Event-ID` when reconnecting. `None` if none or empty.
    pub fn last_event_id(&self) -> Option<&str> {
        Some(self.last_id.as_str()).filter(|id| !id.is_empty())
    }

    /// How many `id` fields were rejected (too long, or not printable ASCII) and ignored.
    pub fn rejected_ids(&self) -> usize {
        self.rejected_ids
    }

    /// Feeds bytes; items become available through [`SseDecoder::next_event`].
    pub fn push(&mut self, mut bytes: &[u8]) {
        while let (Some(seen), Some(&b)) = (self.bom, bytes.first()) {
            if b == BOM[seen] {
                bytes = &bytes[1..];
                self.bom = (seen + 1 < BOM.len()).then_some(seen + 1);
            } else {
                self.bom = None;
                self.feed(&BOM[..seen]);
            }
        }
        self.feed(bytes);
    }

    fn feed(&mut self, mut bytes: &[u8]) {
        while let Some(&first) = bytes.first() {
            if std::mem::take(&mut self.after_cr) && first == b'\n' {
                bytes = &bytes[1..];
                continue;
            }
            match memchr::memchr2(b'\r', b'\n', bytes) {
                Some(i) => {
                    self.append(&bytes[..i]);
                    self.after_cr = bytes[i] == b'\r';
                    bytes = &bytes[i + 1..];
                    self.end_line();
                }
                None => return self.append(bytes),
            }
        }
    }

    /// Adds terminator-free bytes to the current line.
    fn append(&mut self, content: &[u8]) {
        if content.is_empty() {
            return;
        }
        match &mut self.mode {
            Mode::Field if self.line.is_empty() && content[0] == b':' => self.mode = Mode::Comment,
            Mode::Field => {
                let held = self.buffered().saturating_add(content.len());
                if held > self.limits.max_event_bytes {
                    if let Some(head) = self.capture.start(&self.data, &self.line, content) {
                        self.ready.push_back(SseItem::OverflowStart { head });
                    }
                    self.line.clear();
                    self.data.clear();
                    self.event_type.clear();
                    self.mode = Mode::Discard { dropped: held, in_line: true };
                } else {
                    self.line.extend_from_slice(content);
                }
            }
            Mode::Comment => {}
            Mode::Discard { dropped, in_line } => {
                *dropped = dropped.saturating_add(content.len());
                *in_line = true;
                if let Some(head) = self.capture.line(content) {
                    self.ready.push_back(SseItem::OverflowStart { head });
                }
            }
        }
    }

    /// The oversize event ended: report it with what was kept of it.
    fn overflowed(&mut self, dropped: usize) {
        let (start, head, tail) = self.capture.finish();
        if let Some(head) = start {
            self.ready.push_back(SseItem::OverflowStart { head });
        }
        self.ready.push_back(SseItem::Overflow { dropped, head, tail });
    }

    fn end_line(&mut self) {
        match self.mode {
            Mode::Field if self.line.is_empty() => self.dispatch(),
            Mode::Field => {
                let line = std::mem::take(&mut self.line);
                self.field(&line);
                self.line = line;
                self.line.clear();
            }
            Mode::Comment => {
                self.ready.push_back(SseItem::Comment);
                self.mode = Mode::Field;
            }
            Mode::Discard { dropped, in_line: false } => {
                self.overflowed(dropped);
                self.last_id.clone_from(&self.id_buffer);
                self.mode = Mode::Field;
            }
            Mode::Discard { dropped, in_line: true } => {
                if let Some(head) = self.capture.end_line() {
                    self.ready.push_back(SseItem::OverflowStart { head });
                }
                self.mode = Mode::Discard { dropped, in_line: false }
            }
        }
    }

    fn field(&mut self, line: &[u8]) {
        let (name, value) = match line.iter().position(|&b| b == b':') {
            Some(i) => (&line[..i], line[i + 1..].strip_prefix(b" ").unwrap_or(&line[i + 1..])),
            None => (line, &[][..]),
        };
        match name {
            b"data" => {
                self.data.extend_from_slice(value);
                self.data.push(b'\n');
            }
            b"event" => {
                self.event_type.clear();
                self.event_type.extend_from_slice(value);
            }
            b"id" => match std::str::from_utf8(value) {
                Ok(id)
                    if id.len() <= self.limits.max_event_id_bytes
                        && id.bytes().all(|b| (0x20..=0x7E).contains(&b)) =>
                {
                    self.id_buffer.clear();
                    self.id_buffer.push_str(id);
                }
                _ => self.rejected_ids += 1,
            },
            b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                let ms =
                    value.iter().fold(0u64, |n, &d| n.saturating_mul(10).saturating_add(u64::from(d - b'0')));
                let ms = retry_delay(ms, self.limits.min_retry_ms, self.limits.max_retry_ms);
                self.ready.push_back(SseItem::Retry(ms));
            }
            _ => {}
        }
    }

    fn dispatch(&mut self) {
        self.last_id.clone_from(&self.id_buffer);
        if self.data.is_empty() {
            self.event_type.clear();
            return;
        }
        let event_type = std::mem::take(&mut self.event_type);
        let mut data = std::mem::take(&mut self.data);
        data.pop(); // the final '\n'
        let event = if event_type.is_empty() { "message".to_owned() } else { lossy(event_type) };
        let id = self.last_event_id().map(str::to_owned);
        self.ready.push_back(SseItem::Event(SseEvent { event, data: lossy(data), id }));
    }

    /// Signals end of stream: an incomplete event or line is discarded (an overflowed one is
    /// still reported). The decoder is then ready for the next stream, keeping the last event id.
    pub fn finish(&mut self) {
        if let Some(seen) = self.bom.take() {
            self.feed(&BOM[..seen]);
        }
        if let Mode::Discard { dropped, .. } = self.mode {
            self.overflowed(dropped);
        }
        self.mode = Mode::Field;
        self.bom = Some(0);
        self.after_cr = false;
        self.line.clear();
        self.data.clear();
        self.event_type.clear();
        self.id_buffer.clone_from(&self.last_id);
    }

    /// The next item, if any.
    pub fn next_event(&mut self) -> Option<SseItem> {
        self.ready.pop_front()
    }
}

fn lossy(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Fuzz body: decoding in chunks (sizes derived from the first byte) gives exactly the one-shot
/// decode, and the decoder never holds more than its limit.
#[cfg(any(test, feature = "_fuzz"))]
#[doc(hidden)]
pub fn fuzz_chunking(data: &[u8]) {
    let Some((&seed, body)) = data.split_first() else { return };
    let limits = SseLimits {
        max_event_bytes: usize::from(seed >> 3) * 4,
        max_event_id_bytes: 8,
        capture_bytes: usize::from(seed & 3) * 3,
        ..SseLimits::default()
    };
    let run = |sizes: &mut dyn FnMut() -> usize| {
        let mut d = SseDecoder::new(limits.clone());
        let mut rest = body;
        let mut items = Vec::new();
        while !rest.is_empty() {
            let (chunk, tail) = rest.split_at(sizes().clamp(1, rest.len()));
            d.push(chunk);
            assert!(d.buffered() <= limits.max_event_bytes, "decoder holds more than the limit");
            items.extend(std::iter::from_fn(|| d.next_event()));
            rest = tail;
        }
        d.finish();
        items.extend(std::iter::from_fn(|| d.next_event()));
        (items, d.last_event_id().map(str::to_owned), d.rejected_ids())
    };
    let whole = run(&mut || usize::MAX);
    let head_cap = limits.capture_bytes.min(limits.max_event_bytes);
    for item in &whole.0 {
        let (head, tail) = match item {
            SseItem::Overflow { head, tail, .. } => (head, tail.len()),
            SseItem::OverflowStart { head } => (head, 0),
            _ => continue,
        };
        assert!(head.len() <= head_cap && tail <= limits.capture_bytes, "kept more than asked");
    }
    let mut state = u32::from(seed) | 1;
    let chunked = run(&mut || {
        state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        (state >> 16) as usize % (usize::from(seed & 7) + 1) + 1
    });
    assert_eq!(whole, chunked, "chunking changed the output");
}

#[cfg(test)]
mod tests;
