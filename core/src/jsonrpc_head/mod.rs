//! A bounded look at a JSON-RPC message too large to decode: which request it answers.
//!
//! A message over `max_message_bytes` is discarded unread, but the request it answers should
//! fail at once rather than wait out its timeout. The transports keep the first and the last
//! [`HEAD_BYTES`] of such a message (never more) and ask this module what they show:
//! [`scan_head`] reads the top-level members forward from the start, [`scan_tail`] backward
//! from the end (servers that put `"result"` first and `"id"` last, like the TypeScript SDK,
//! name the id only there). Both are tolerant tokenizers over at most [`HEAD_BYTES`] bytes:
//! strings with escapes, numbers and literals are read; nested values are skipped by depth
//! counting; the scan stops where its budget ends or the text stops making sense. They never
//! panic, allocate only for the id (itself within the budget) and do work linear in the bytes
//! they are given. A batch (a top-level array) names nothing: its answers are many.

use crate::jsonrpc::WireId;

/// How many bytes of an oversize message's start (and end) are kept and scanned.
pub const HEAD_BYTES: usize = 4096;

/// What the start or end of a message showed about it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Peek {
    /// The top-level `"id"` (a string or a number), if one was read whole.
    pub id: Option<WireId>,
    /// A top-level `"result"` or `"error"` member was seen.
    pub response: bool,
    /// A top-level `"method"` member was seen (a request or a notification).
    pub call: bool,
}

impl Peek {
    /// The id this message answers: set only when it is known to be a response (a `"result"`
    /// or `"error"` member and no `"method"`), so a server's own request is never mistaken
    /// for the answer to one of ours.
    pub fn answers(&self) -> Option<&WireId> {
        self.id.as_ref().filter(|_| self.response && !self.call)
    }

    /// What the start and the end showed together (the end's id wins if both read one, as the
    /// last of duplicate members wins in a full decode).
    pub fn merge(self, other: Peek) -> Peek {
        Peek {
            id: other.id.or(self.id),
            response: self.response || other.response,
            call: self.call || other.call,
        }
    }

    fn member(&mut self, key: &[u8], value: &[u8]) {
        match key {
            b"id" => self.id = wire_id(value),
            b"result" | b"error" => self.response = true,
            b"method" => self.call = true,
            _ => {}
        }
    }
}

/// Reads the top-level members of a message from its first bytes (at most [`HEAD_BYTES`]).
pub fn scan_head(bytes: &[u8]) -> Peek {
    let bytes = &bytes[..bytes.len().min(HEAD_BYTES)];
    let mut peek = Peek::default();
    let mut s = Forward { b: bytes, i: 0 };
    if s.b.starts_with(b"\xEF\xBB\xBF") {
        s.i = 3;
    }
    s.ws();
    if s.next() != Some(b'{') {
        return peek;
    }
    loop {
        s.ws();
        match s.peek() {
            Some(b'"') => {}
            // `}` ends the object; anything else is not JSON-RPC or the budget ended.
            _ => return peek,
        }
        let Some(key) = s.string() else { return peek };
        s.ws();
        if s.next() != Some(b':') {
            return peek;
        }
        s.ws();
        let start = s.i;
        // The key is known before its value is read: a huge `"result"` still counts.
        let key = key_name(key);
        if matches!(key.as_deref(), Some(b"result" | b"error" | b"method")) {
            peek.member(key.as_deref().unwrap_or_default(), &[]);
        }
        if !s.value() {
            return peek;
        }
        if let Some(key) = key {
            peek.member(&key, &bytes[start..s.i]);
        }
        s.ws();
        if s.next() != Some(b',') {
            return peek;
        }
    }
}

/// Reads the top-level members of a message backward from its last bytes (at most
/// [`HEAD_BYTES`]: pass the end of the message; earlier bytes are ignored).
pub fn scan_tail(bytes: &[u8]) -> Peek {
    let bytes = &bytes[bytes.len().saturating_sub(HEAD_BYTES)..];
    let mut peek = Peek::default();
    let mut s = Backward { b: bytes, end: bytes.len() };
    s.ws();
    if s.prev() != Some(b'}') {
        return peek;
    }
    s.ws();
    if s.peek() == Some(b'{') {
        return peek; // `{}`
    }
    // Read backward, the first `"id"` met is the last one: the one a full decode keeps.
    let mut id_seen = false;
    loop {
        s.ws();
        let value_end = s.end;
        if !s.value() {
            return peek;
        }
        let value = &bytes[s.end..value_end];
        s.ws();
        if s.prev() != Some(b':') {
            return peek;
        }
        s.ws();
        let Some(key) = s.string() else { return peek };
        match key_name(key) {
            Some(key) if key.as_ref() == b"id" && std::mem::replace(&mut id_seen, true) => {}
            Some(key) => peek.member(&key, value),
            None => {}
        }
        s.ws();
        match s.prev() {
            Some(b',') => {}
            // `{` is the start of the message; anything else: not JSON, or the budget ended.
            _ => return peek,
        }
    }
}

/// A member name as bytes: raw when it has no escapes, decoded when it has a few.
fn key_name(raw: &[u8]) -> Option<std::borrow::Cow<'_, [u8]>> {
    if !raw.contains(&b'\\') {
        return Some(std::borrow::Cow::Borrowed(raw));
    }
    if raw.len() > 64 {
        return None; // not a name that matters
    }
    let mut quoted = Vec::with_capacity(raw.len() + 2);
    quoted.push(b'"');
    quoted.extend_from_slice(raw);
    quoted.push(b'"');
    let name: String = serde_json::from_slice(&quoted).ok()?;
    Some(std::borrow::Cow::Owned(name.into_bytes()))
}

/// The id a value token names: a string or a number (`null` and anything else: none).
fn wire_id(token: &[u8]) -> Option<WireId> {
    match token.first()? {
        b'"' | b'-' | b'0'..=b'9' => {}
        _ => return None,
    }
    let value: serde_json::Value = serde_json::from_slice(token).ok()?;
    (value.is_string() || value.is_number()).then(|| WireId::from_value(&value))
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// Bytes of a number or a literal (`true`, `false`, `null`), read tolerantly.
fn is_scalar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.')
}

struct Forward<'a> {
    b: &'a [u8],
    i: usize,
}

impl<'a> Forward<'a> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn next(&mut self) -> Option<u8> {
        let c = self.peek()?;
        self.i += 1;
        Some(c)
    }

    fn ws(&mut self) {
        while self.peek().is_some_and(is_ws) {
            self.i += 1;
        }
    }

    /// A string starting at `"`: its raw content, if it ends within the bytes.
    fn string(&mut self) -> Option<&'a [u8]> {
        debug_assert_eq!(self.peek(), Some(b'"'));
        let start = self.i + 1;
        let mut j = start;
        while j < self.b.len() {
            match self.b[j] {
                b'\\' => j += 2,
                b'"' => {
                    self.i = j + 1;
                    return Some(&self.b[start..j]);
                }
                _ => j += 1,
            }
        }
        self.i = self.b.len();
        None
    }

    /// Skips one value; false if it does not end within the bytes (or is not a value).
    fn value(&mut self) -> bool {
        match self.peek() {
            Some(b'"') => self.string().is_some(),
            Some(b'{' | b'[') => self.nested(),
            Some(c) if is_scalar(c) => {
                while self.peek().is_some_and(is_scalar) {
                    self.i += 1;
                }
                // A scalar cut by the budget is not known to be whole.
                self.i < self.b.len()
            }
            _ => false,
        }
    }

    /// Skips an object or array by depth counting (strings skipped whole).
    fn nested(&mut self) -> bool {
        let mut depth = 0usize;
        while let Some(c) = self.peek() {
            match c {
                b'"' => {
                    if self.string().is_none() {
                        return false;
                    }
                    continue;
                }
                b'{' | b'[' => depth += 1,
                b'}' | b']' => {
                    depth -= 1;
                    if depth == 0 {
                        self.i += 1;
                        return true;
                    }
                }
                _ => {}
            }
            self.i += 1;
        }
        false
    }
}

/// Reads backward: `end` is one past the next byte to read.
struct Backward<'a> {
    b: &'a [u8],
    end: usize,
}

impl<'a> Backward<'a> {
    fn peek(&self) -> Option<u8> {
        self.end.checked_sub(1).map(|i| self.b[i])
    }

    fn prev(&mut self) -> Option<u8> {
        let c = self.peek()?;
        self.end -= 1;
        Some(c)
    }

    fn ws(&mut self) {
        while self.peek().is_some_and(is_ws) {
            self.end -= 1;
        }
    }

    /// Whether the `"` at `at` closes or opens a string: not escaped, i.e. preceded by an even
    /// number of backslashes.
    fn unescaped(&self, at: usize) -> bool {
        let run = self.b[..at].iter().rev().take_while(|&&c| c == b'\\').count();
        run % 2 == 0
    }

    /// A string ending at `"`: its raw content, if it starts within the bytes.
    fn string(&mut self) -> Option<&'a [u8]> {
        if self.peek() != Some(b'"') {
            return None;
        }
        let close = self.end - 1;
        let mut j = close;
        while j > 0 {
            j -= 1;
            if self.b[j] == b'"' && self.unescaped(j) {
                self.end = j;
                return Some(&self.b[j + 1..close]);
            }
        }
        self.end = 0;
        None
    }

    /// Skips one value backward; false if it does not start within the bytes.
    fn value(&mut self) -> bool {
        match self.peek() {
            Some(b'"') => self.string().is_some(),
            Some(b'}' | b']') => self.nested(),
            Some(c) if is_scalar(c) => {
                while self.peek().is_some_and(is_scalar) {
                    self.end -= 1;
                }
                // A scalar cut by the budget is not known to be whole.
                self.end > 0
            }
            _ => false,
        }
    }

    fn nested(&mut self) -> bool {
        let mut depth = 0usize;
        while let Some(c) = self.peek() {
            match c {
                b'"' => {
                    if self.string().is_none() {
                        return false;
                    }
                    continue;
                }
                b'}' | b']' => depth += 1,
                b'{' | b'[' => {
                    depth -= 1;
                    if depth == 0 {
                        self.end -= 1;
                        return true;
                    }
                }
                _ => {}
            }
            self.end -= 1;
        }
        false
    }
}

/// Fuzz body: neither scan panics on any bytes; on a message that fits the budget whole, both
/// agree with a full decode about the id and the kind; a framer capturing oversize lines
/// reports the same frames however the input is chunked.
#[cfg(any(test, feature = "_fuzz"))]
#[doc(hidden)]
pub fn fuzz_head(data: &[u8]) {
    let head = scan_head(data);
    let tail = scan_tail(data);
    if data.len() <= HEAD_BYTES {
        if let Ok(serde_json::Value::Object(obj)) = serde_json::from_slice::<serde_json::Value>(data) {
            let id = obj.get("id").filter(|v| v.is_string() || v.is_number()).map(WireId::from_value);
            let expected = Peek {
                id,
                response: obj.contains_key("result") || obj.contains_key("error"),
                call: obj.contains_key("method"),
            };
            assert_eq!(head, expected, "the head scan disagrees with a full decode");
            assert_eq!(tail, expected, "the tail scan disagrees with a full decode");
        }
    }
    let Some((&seed, body)) = data.split_first() else { return };
    let limit = usize::from(seed % 32) + 1;
    let keep = usize::from(seed >> 5) * 3;
    let run = |chunk: usize| {
        let mut f = crate::framing::LineFramer::capturing(limit, keep);
        for c in body.chunks(chunk.max(1)) {
            f.push(c);
            assert!(f.buffered() <= limit + 2, "framer holds more than the limit");
        }
        f.finish();
        std::iter::from_fn(|| f.next_frame()).collect::<Vec<_>>()
    };
    let whole = run(body.len());
    for frame in &whole {
        if let crate::framing::Frame::Oversize { head, tail, .. } = frame {
            assert!(head.len() <= keep && tail.len() <= keep, "kept more than asked");
        }
    }
    assert_eq!(whole, run(usize::from(seed % 7) + 1), "chunking changed the frames");
}

#[cfg(test)]
mod tests;
