//! Bounded newline framing for stdio: splits a byte stream into lines.
//!
//! Tolerates CRLF, a UTF-8 byte-order mark at the start of a line, and a final line without a
//! newline at end of stream. A line longer than the configured limit is never buffered whole:
//! the framer drops what it holds, discards everything up to the next newline, and reports the
//! discarded length once, so a hostile peer costs at most `max_line_bytes` of memory. Each byte
//! is scanned once, however the input is chunked.

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

    /// Bytes currently buffered for an incomplete line.
    pub fn buffered(&self) -> usize {
        self.buf.len()
    }

    /// Feeds bytes; complete frames become available through [`LineFramer::next_frame`].
    pub fn push(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            if let Some(dropped) = self.discarding {
                match bytes.iter().position(|&b| b == b'\n') {
                    Some(i) => {
                        let cr = if i > 0 { bytes[i - 1] == b'\r' } else { self.dropped_cr };
                        let len = dropped + i - usize::from(cr);
                        let head = std::mem::take(&mut self.head);
                        self.ready.push_back(Frame::Oversize { len, head });
                        self.discarding = None;
                        bytes = &bytes[i + 1..];
                    }
                    None => {
                        self.discarding = Some(dropped + bytes.len());
                        self.dropped_cr = bytes.last() == Some(&b'\r');
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

    fn scan(&mut self) {
        loop {
            let found = self.buf[self.scanned..].iter().position(|&b| b == b'\n');
            match found {
                Some(off) => {
                    let end = self.scanned + off;
                    let mut line: Vec<u8> = self.buf.drain(..=end).collect();
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
                        self.buf.clear();
                        self.scanned = 0;
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
            line.truncate(self.keep_head);
            self.ready.push_back(Frame::Oversize { len, head: line });
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
            self.ready.push_back(Frame::Oversize { len: dropped, head });
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
        assert_eq!(frames(&mut f), vec![line("ok"), Frame::Oversize { len: 18, head: vec![] }, line("next")]);
    }

    #[test]
    fn oversize_at_eof_is_reported() {
        let mut f = LineFramer::new(2);
        f.push(b"abcdef");
        f.finish();
        assert_eq!(frames(&mut f), vec![Frame::Oversize { len: 6, head: vec![] }]);
    }

    #[test]
    fn exact_limit_is_accepted() {
        let mut f = LineFramer::new(3);
        f.push(b"abc\r\nabcd\n");
        assert_eq!(frames(&mut f), vec![line("abc"), Frame::Oversize { len: 4, head: vec![] }]);
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
                vec![Frame::Oversize { len: 8, head: b"ab".to_vec() }, line("xy")],
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
}
