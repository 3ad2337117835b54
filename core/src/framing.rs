//! Bounded newline framing for stdio: splits a byte stream into lines.
//!
//! Tolerates CRLF, a UTF-8 byte-order mark at the start of a line, and a final line without a
//! newline at end of stream. A line longer than the configured limit is never buffered whole:
//! the framer drops what it holds, discards everything up to the next newline, and reports the
//! discarded length once, so a hostile peer costs at most `max_line_bytes` of memory. Each byte
//! is scanned once, however the input is chunked. A framer made by [`LineFramer::capturing`]
//! also keeps a bounded head and tail of an oversize line (to find which request a discarded
//! message answered, see [`crate::jsonrpc_head`]) and announces the line as soon as it passes
//! the limit ([`Frame::OversizeStart`]), before the rest of it arrives.

use std::collections::VecDeque;

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// One item produced by [`LineFramer`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    /// A complete line, without its terminator (`\n` or `\r\n`) and without a leading BOM.
    Line(Vec<u8>),
    /// A line exceeded the limit (counting its raw bytes, a BOM included) and was discarded;
    /// `len` counts the bytes dropped (the exact total when the line ended).
    Oversize {
        /// Bytes discarded, excluding the terminator.
        len: usize,
        /// The line's first bytes, when the framer keeps a head (see
        /// [`LineFramer::keeping_head`]); empty otherwise.
        head: Vec<u8>,
        /// The line's last bytes (terminator excluded), when the framer keeps a tail (see
        /// [`LineFramer::capturing`]); empty otherwise.
        tail: Vec<u8>,
    },
    /// Only from [`LineFramer::capturing`]: a line has just passed the limit and is being
    /// discarded; its [`Frame::Oversize`] follows when it ends. Comes before any later frame.
    OversizeStart {
        /// The line's first bytes (as many as are kept).
        head: Vec<u8>,
    },
}

/// Splits a byte stream into newline-delimited frames, with a per-line size limit.
#[derive(Debug, Clone)]
pub struct LineFramer {
    max_line_bytes: usize,
    buf: Vec<u8>,
    /// How much of `buf` has already been scanned for a newline.
    scanned: usize,
    /// `Some(n)` while discarding an oversize line: n bytes dropped so far.
    discarding: Option<usize>,
    /// While discarding: whether the last byte dropped was `\r` (half of a CRLF).
    dropped_cr: bool,
    /// How many leading bytes of an oversize line to keep in its frame.
    keep_head: usize,
    /// The kept head of the line being discarded.
    head: Vec<u8>,
    /// How many trailing bytes of an oversize line to keep in its frame.
    keep_tail: usize,
    /// While discarding: the line's latest bytes (at most twice `keep_tail + 1`; the last
    /// `keep_tail` of them count).
    tail: Vec<u8>,
    /// Announce an oversize line when it passes the limit ([`Frame::OversizeStart`]).
    announce: bool,
    ready: VecDeque<Frame>,
}

impl LineFramer {
    /// A framer that accepts lines of at most `max_line_bytes` bytes (terminator excluded).
    pub fn new(max_line_bytes: usize) -> Self {
        Self {
            max_line_bytes: max_line_bytes.max(1),
            buf: Vec::new(),
            scanned: 0,
            discarding: None,
            dropped_cr: false,
            keep_head: 0,
            head: Vec::new(),
            keep_tail: 0,
            tail: Vec::new(),
            announce: false,
            ready: VecDeque::new(),
        }
    }

    /// Like [`LineFramer::new`], but an oversize line's frame keeps its first `keep` bytes
    /// (at most the limit), e.g. to show the start of an overlong diagnostic line.
    pub fn keeping_head(max_line_bytes: usize, keep: usize) -> Self {
        let mut f = Self::new(max_line_bytes);
        f.keep_head = keep.min(f.max_line_bytes);
        f
    }

    /// Like [`LineFramer::keeping_head`], and an oversize line's frame also keeps its last
    /// `keep` bytes, and the line is announced by [`Frame::OversizeStart`] as soon as it
    /// passes the limit. Memory stays bounded: at most the limit, plus three times `keep`.
    pub fn capturing(max_line_bytes: usize, keep: usize) -> Self {
        let mut f = Self::keeping_head(max_line_bytes, keep);
        f.keep_tail = keep;
        f.announce = true;
        f
    }

    /// Adds discarded bytes to the kept tail (amortised: trimmed once it holds twice enough).
    fn keep_tail_of(&mut self, bytes: &[u8]) {
        if self.keep_tail == 0 {
            return;
        }
        // One more than kept: the last byte may be the `\r` of a CRLF, dropped at the end.
        let keep = self.keep_tail + 1;
        if bytes.len() >= keep {
            self.tail.clear();
            self.tail.extend_from_slice(&bytes[bytes.len() - keep..]);
        } else {
            self.tail.extend_from_slice(bytes);
            if self.tail.len() > 2 * keep {
                self.tail.drain(..self.tail.len() - keep);
            }
        }
    }

    /// The kept tail of the line that just ended (`cr`: its last kept byte is the `\r` of a
    /// CRLF, not content).
    fn take_tail(&mut self, cr: bool) -> Vec<u8> {
        let mut tail = std::mem::take(&mut self.tail);
        if cr {
            tail.pop();
        }
        let extra = tail.len().saturating_sub(self.keep_tail);
        tail.drain(..extra);
        tail
    }

    /// Bytes currently buffered for an incomplete line.
    pub fn buffered(&self) -> usize {
        self.buf.len()
    }

    /// Feeds bytes; complete frames become available through [`LineFramer::next_frame`].
    pub fn push(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            if let Some(dropped) = self.discarding {
                match memchr::memchr(b'\n', bytes) {
                    Some(i) => {
                        let cr = if i > 0 { bytes[i - 1] == b'\r' } else { self.dropped_cr };
                        let len = dropped + i - usize::from(cr);
                        self.keep_tail_of(&bytes[..i]);
                        let head = std::mem::take(&mut self.head);
                        let tail = self.take_tail(cr && self.keep_tail > 0);
                        self.ready.push_back(Frame::Oversize { len, head, tail });
                        self.discarding = None;
                        bytes = &bytes[i + 1..];
                    }
                    None => {
                        self.discarding = Some(dropped + bytes.len());
                        self.dropped_cr = bytes.last() == Some(&b'\r');
                        self.keep_tail_of(bytes);
                        return;
                    }
                }
                continue;
            }
            // Take at most enough bytes to either find a newline or exceed the limit.
            let room = self.max_line_bytes + 2 - self.buf.len().min(self.max_line_bytes + 2);
            let take = bytes.len().min(room.max(1));
            self.buf.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
            self.scan();
        }
    }

    /// Like [`LineFramer::push`], taking the bytes: when nothing is buffered they become the
    /// buffer, so a chunk that is exactly one line is framed without a copy.
    pub fn push_owned(&mut self, bytes: Vec<u8>) {
        if self.buf.is_empty() && self.discarding.is_none() && bytes.len() <= self.max_line_bytes + 2 {
            self.buf = bytes;
            self.scanned = 0;
            self.scan();
        } else {
            self.push(&bytes);
        }
    }

    fn scan(&mut self) {
        loop {
            let found = memchr::memchr(b'\n', &self.buf[self.scanned..]);
            match found {
                Some(off) => {
                    let end = self.scanned + off;
                    let mut line: Vec<u8> = if end + 1 == self.buf.len() {
                        // The whole buffer is the line: it is taken, not copied.
                        std::mem::take(&mut self.buf)
                    } else {
                        self.buf.drain(..=end).collect()
                    };
                    line.pop(); // '\n'
                    self.scanned = 0;
                    self.emit(line);
                }
                None => {
                    self.scanned = self.buf.len();
                    // A trailing '\r' may still be the first half of a CRLF.
                    let content =
                        if self.buf.last() == Some(&b'\r') { self.buf.len() - 1 } else { self.buf.len() };
                    if content > self.max_line_bytes {
                        self.discarding = Some(self.buf.len());
                        self.dropped_cr = self.buf.last() == Some(&b'\r');
                        self.head = self.buf[..self.keep_head.min(self.buf.len())].to_vec();
                        let buf = std::mem::take(&mut self.buf);
                        self.keep_tail_of(&buf);
                        self.buf = buf;
                        self.buf.clear();
                        self.scanned = 0;
                        if self.announce {
                            self.ready.push_back(Frame::OversizeStart { head: self.head.clone() });
                        }
                    }
                    return;
                }
            }
        }
    }

    fn emit(&mut self, mut line: Vec<u8>) {
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        // The limit counts the raw bytes of the line (a BOM included), as the discard path does,
        // so the verdict never depends on how the input was chunked.
        if line.len() > self.max_line_bytes {
            let len = line.len();
            let tail = line[len - self.keep_tail.min(len)..].to_vec();
            line.truncate(self.keep_head);
            if self.announce {
                self.ready.push_back(Frame::OversizeStart { head: line.clone() });
            }
            self.ready.push_back(Frame::Oversize { len, head: line, tail });
            return;
        }
        if line.starts_with(BOM) {
            line.drain(..BOM.len());
        }
        self.ready.push_back(Frame::Line(line));
    }

    /// Signals end of stream: a final unterminated line is emitted as a frame.
    pub fn finish(&mut self) {
        if let Some(dropped) = self.discarding.take() {
            let head = std::mem::take(&mut self.head);
            let tail = self.take_tail(false);
            self.ready.push_back(Frame::Oversize { len: dropped, head, tail });
        } else if !self.buf.is_empty() {
            let line = std::mem::take(&mut self.buf);
            self.emit(line);
        }
        self.scanned = 0;
    }

    /// The next complete frame, if any.
    pub fn next_frame(&mut self) -> Option<Frame> {
        self.ready.pop_front()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(f: &mut LineFramer) -> Vec<Frame> {
        std::iter::from_fn(|| f.next_frame()).collect()
    }

    fn line(s: &str) -> Frame {
        Frame::Line(s.as_bytes().to_vec())
    }

    /// Handing the chunks over frames them exactly as pushing copies does, whatever the
    /// chunking (whole lines, several, partial, CRLF, oversize).
    #[test]
    fn owned_chunks_frame_like_borrowed_ones() {
        let chunks: &[&[&[u8]]] = &[
            &[b"{\"a\":1}\n"],
            &[b"{\"a\":1}\r\n", b"x\n"],
            &[b"one\ntwo\n", b"thr", b"ee\n"],
            &[b"par", b"tial\n"],
            &[b"0123456789abcdef\n", b"short\n"],
            &[b"0123456789abcdef", b"ghij\nok\n"],
            &[b"\n\n", b"\r\n"],
        ];
        for input in chunks {
            let (mut copied, mut owned) = (LineFramer::capturing(10, 4), LineFramer::capturing(10, 4));
            for chunk in *input {
                copied.push(chunk);
                owned.push_owned(chunk.to_vec());
            }
            assert_eq!(frames(&mut copied), frames(&mut owned), "{input:?}");
            assert_eq!(copied.buffered(), owned.buffered());
        }
    }

    #[test]
    fn splits_lf_and_crlf_and_strips_bom() {
        let mut f = LineFramer::new(100);
        f.push(b"\xEF\xBB\xBFone\r\ntwo\nthr");
        assert_eq!(frames(&mut f), vec![line("one"), line("two")]);
        f.push(b"ee\n");
        assert_eq!(frames(&mut f), vec![line("three")]);
    }

    #[test]
    fn crlf_split_across_chunks() {
        let mut f = LineFramer::new(3);
        f.push(b"abc\r");
        assert_eq!(frames(&mut f), vec![]);
        f.push(b"\nx\n");
        assert_eq!(frames(&mut f), vec![line("abc"), line("x")]);
    }

    #[test]
    fn final_line_without_newline_is_flushed_at_eof() {
        let mut f = LineFramer::new(100);
        f.push(b"a\nlast");
        f.finish();
        assert_eq!(frames(&mut f), vec![line("a"), line("last")]);
    }

    #[test]
    fn oversize_line_is_discarded_up_to_next_newline() {
        let mut f = LineFramer::new(4);
        f.push(b"ok\n0123456789");
        f.push(b"abcdef");
        assert!(f.buffered() <= 6);
        f.push(b"gh\nnext\n");
        let oversize = Frame::Oversize { len: 18, head: vec![], tail: vec![] };
        assert_eq!(frames(&mut f), vec![line("ok"), oversize, line("next")]);
    }

    #[test]
    fn oversize_at_eof_is_reported() {
        let mut f = LineFramer::new(2);
        f.push(b"abcdef");
        f.finish();
        assert_eq!(frames(&mut f), vec![Frame::Oversize { len: 6, head: vec![], tail: vec![] }]);
    }

    #[test]
    fn exact_limit_is_accepted() {
        let mut f = LineFramer::new(3);
        f.push(b"abc\r\nabcd\n");
        assert_eq!(frames(&mut f), vec![line("abc"), Frame::Oversize { len: 4, head: vec![], tail: vec![] }]);
    }

    #[test]
    fn keeping_head_shows_the_start_of_an_oversize_line() {
        for chunk in [1, 3, 100] {
            let mut f = LineFramer::keeping_head(4, 2);
            for c in b"abcdefgh\nxy\n".chunks(chunk) {
                f.push(c);
            }
            assert_eq!(
                frames(&mut f),
                vec![Frame::Oversize { len: 8, head: b"ab".to_vec(), tail: vec![] }, line("xy")],
                "chunk {chunk}"
            );
        }
    }

    #[test]
    fn chunking_does_not_change_output() {
        let input = b"\xEF\xBB\xBFalpha\r\nbeta\n\ngamma-long-line\nz\r\n";
        let mut whole = LineFramer::new(6);
        whole.push(input);
        whole.finish();
        let expected = frames(&mut whole);
        for size in 1..input.len() {
            let mut f = LineFramer::new(6);
            for chunk in input.chunks(size) {
                f.push(chunk);
            }
            f.finish();
            assert_eq!(frames(&mut f), expected, "chunk size {size}");
        }
    }

    #[test]
    fn capturing_keeps_head_and_tail_and_announces_early() {
        for chunk in [1, 2, 3, 5, 100] {
            let mut f = LineFramer::capturing(4, 3);
            let mut early = None;
            for (n, c) in b"abcdefgh\r\nxy\n0123456789".chunks(chunk).enumerate() {
                f.push(c);
                if early.is_none() && frames_peek(&f) {
                    early = Some(n * chunk);
                }
            }
            f.finish();
            assert_eq!(
                frames(&mut f),
                vec![
                    Frame::OversizeStart { head: b"abc".to_vec() },
                    Frame::Oversize { len: 8, head: b"abc".to_vec(), tail: b"fgh".to_vec() },
                    line("xy"),
                    Frame::OversizeStart { head: b"012".to_vec() },
                    Frame::Oversize { len: 10, head: b"012".to_vec(), tail: b"789".to_vec() },
                ],
                "chunk {chunk}"
            );
            // Announced once past the limit, before the line's end arrived.
            assert!(early.is_some_and(|at| at < 8), "chunk {chunk}: announced at {early:?}");
        }
    }

    #[test]
    fn capturing_memory_stays_bounded() {
        let mut f = LineFramer::capturing(64, 16);
        for _ in 0..1000 {
            f.push(&[b'x'; 997]);
            assert!(f.buffered() <= 66 && f.tail.len() <= 2 * 17 && f.head.len() <= 16);
        }
        f.push(b"\n");
        let got = frames(&mut f);
        assert_eq!(got.len(), 2);
        assert_eq!(got[1], Frame::Oversize { len: 997_000, head: vec![b'x'; 16], tail: vec![b'x'; 16] });
    }

    fn frames_peek(f: &LineFramer) -> bool {
        !f.ready.is_empty()
    }
}
