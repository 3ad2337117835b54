//! Bounded, incremental decoding of HTTP response bodies (`Content-Encoding: gzip`).
//!
//! An MCP server reached over HTTP is untrusted, and a compressed body is the classic way to
//! make a small response expand into gigabytes (a "gzip bomb"). The HTTP libraries the runtimes
//! use never decompress on their own, so the core does it here, sans-IO: a runtime reads the
//! `Content-Encoding` header ([`ContentEncoding::from_header`]), feeds each body chunk it
//! receives to a [`BodyDecoder`] and gets back the decoded bytes that chunk produced. Once the
//! decoded body would exceed `max_decompressed` bytes (the `max_decompressed_body_bytes` limit,
//! 64 MiB by default) the decoder fails with [`BodyError::TooLarge`] and the body is abandoned.
//! The Streamable HTTP transport (the only one that sends `Accept-Encoding: gzip`) is built on
//! it, for JSON and SSE responses alike; an identity body goes through the same decoder so the
//! same cap applies to it.
//!
//! # How the bound is enforced
//!
//! Decoding is driven as a push decoder: [`flate2::write::MultiGzDecoder`] (pure Rust
//! `miniz_oxide` backend) writes into a small capped sink, a [`std::io::Write`] that keeps the
//! output of the current push and refuses, with an error, any write that would take the total
//! past the cap. The decoder inflates in steps of at most 32 KiB of output and hands each step
//! to the sink before inflating more, so the sink's refusal stops the work at once: however
//! much compressed input is left in the pushed chunk, or in the rest of the body, it is never
//! inflated. At most about 32 KiB beyond the cap is ever inflated, and it is discarded, never
//! returned. Memory is the inflater's fixed state (a 32 KiB window, a 32 KiB output buffer, gzip
//! header fields of at most 64 KiB each) plus the output of one push, which can never exceed the
//! cap (the sink grows its buffer only up to what the cap still allows).
//!
//! Concatenated gzip members are decoded one after another (RFC 1952 §2.2). A body that ends
//! mid-stream is reported by [`BodyDecoder::finish`] as [`BodyError::Corrupt`]; so is a bad
//! header, a bad checksum, or trailing bytes that are not another gzip member. A completely
//! empty body is accepted as an empty body even when labelled gzip (a `202 Accepted` may carry
//! the header and no body). After any error the decoder is poisoned and repeats that error.

use std::fmt;
use std::io::{self, Write};

use flate2::write::MultiGzDecoder;

use crate::text::sanitize;

/// Longest header value, in characters, echoed back in [`BodyError::UnsupportedEncoding`].
const MAX_ECHO_CHARS: usize = 100;

/// How a response body is encoded, from its `Content-Encoding` header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContentEncoding {
    /// No coding: the body is the bytes on the wire.
    Identity,
    /// `gzip` (or its legacy alias `x-gzip`), possibly several concatenated members.
    Gzip,
}

impl ContentEncoding {
    /// Parses a `Content-Encoding` header value (`None` when the header is absent).
    ///
    /// Case-insensitive and trimmed. `gzip` and `x-gzip` are [`Gzip`](Self::Gzip); an absent or
    /// empty header and `identity` are [`Identity`](Self::Identity). Anything else, including
    /// a list of several codings such as `gzip, br`, is [`BodyError::UnsupportedEncoding`]
    /// carrying the value sanitised and cut to 100 characters.
    pub fn from_header(value: Option<&str>) -> Result<Self, BodyError> {
        let Some(raw) = value else { return Ok(Self::Identity) };
        let v = raw.trim();
        if v.is_empty() || v.eq_ignore_ascii_case("identity") {
            Ok(Self::Identity)
        } else if v.eq_ignore_ascii_case("gzip") || v.eq_ignore_ascii_case("x-gzip") {
            Ok(Self::Gzip)
        } else {
            Err(BodyError::UnsupportedEncoding(sanitize(v, MAX_ECHO_CHARS)))
        }
    }
}

/// Why a response body could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BodyError {
    /// The decoded body would exceed the limit; the rest of it was not decoded.
    #[error("response body exceeds the limit of {limit} bytes (after decompression)")]
    TooLarge {
        /// The limit in bytes (`max_decompressed_body_bytes`).
        limit: usize,
    },
    /// The gzip stream is malformed or truncated.
    #[error("corrupt gzip response body: {0}")]
    Corrupt(String),
    /// The `Content-Encoding` is not one this client decodes (the sanitised header value).
    #[error("unsupported Content-Encoding `{0}`")]
    UnsupportedEncoding(String),
}

/// The `Write` end of the inflater: holds one push's output and refuses to pass the cap.
#[derive(Debug)]
struct CappedSink {
    out: Vec<u8>,
    total: usize,
    limit: usize,
    exceeded: bool,
}

impl Write for CappedSink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let remaining = self.limit - self.total;
        if self.exceeded || buf.len() > remaining {
            self.exceeded = true;
            return Err(io::Error::other("decompressed body exceeds the limit"));
        }
        if self.out.capacity() - self.out.len() < buf.len() {
            // Grow geometrically, but never past what the cap still allows.
            self.out.reserve_exact(self.out.len().max(buf.len()).min(remaining));
        }
        self.out.extend_from_slice(buf);
        self.total += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

enum Inner {
    Identity,
    Gzip(Box<MultiGzDecoder<CappedSink>>),
    Finished,
}

/// An incremental body decoder with a cap on the decoded size. See the [module docs](self).
pub struct BodyDecoder {
    encoding: ContentEncoding,
    limit: usize,
    inner: Inner,
    total_out: usize,
    saw_input: bool,
    error: Option<BodyError>,
}

impl fmt::Debug for BodyDecoder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BodyDecoder")
            .field("encoding", &self.encoding)
            .field("limit", &self.limit)
            .field("total_out", &self.total_out)
            .field("finished", &matches!(self.inner, Inner::Finished))
            .field("error", &self.error)
            .finish()
    }
}

impl BodyDecoder {
    /// A decoder for a body in `encoding` whose decoded size may not exceed `max_decompressed`.
    pub fn new(encoding: ContentEncoding, max_decompressed: usize) -> Self {
        let inner = match encoding {
            ContentEncoding::Identity => Inner::Identity,
            ContentEncoding::Gzip => Inner::Gzip(Box::new(MultiGzDecoder::new(CappedSink {
                out: Vec::new(),
                total: 0,
                limit: max_decompressed,
                exceeded: false,
            }))),
        };
        Self { encoding, limit: max_decompressed, inner, total_out: 0, saw_input: false, error: None }
    }

    /// Feeds the next chunk of the body; returns the decoded bytes it produced (possibly none).
    ///
    /// Fails with [`BodyError::TooLarge`] as soon as the decoded total would pass the cap (an
    /// identity body counts too), or [`BodyError::Corrupt`] on malformed gzip (or a push after
    /// [`finish`](Self::finish)). After an error, every call returns that error again.
    pub fn push(&mut self, chunk: &[u8]) -> Result<Vec<u8>, BodyError> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        if chunk.is_empty() {
            return Ok(Vec::new());
        }
        self.saw_input = true;
        match &mut self.inner {
            Inner::Identity => {
                if chunk.len() > self.limit - self.total_out {
                    return self.fail(BodyError::TooLarge { limit: self.limit });
                }
                self.total_out += chunk.len();
                Ok(chunk.to_vec())
            }
            Inner::Gzip(dec) => {
                // `flush` hands over output still buffered inside the inflater.
                let res = dec.write_all(chunk).and_then(|()| dec.flush());
                self.collect(res, "")
            }
            Inner::Finished => self.fail(BodyError::Corrupt("body data pushed after finish".into())),
        }
    }

    /// Ends the body; returns any last decoded bytes.
    ///
    /// A gzip body that stops before the end of its stream (truncated) is
    /// [`BodyError::Corrupt`]. Calling it again returns nothing more (or the stored error).
    pub fn finish(&mut self) -> Result<Vec<u8>, BodyError> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        let res = match &mut self.inner {
            Inner::Gzip(dec) if self.saw_input => dec.try_finish(),
            _ => {
                self.inner = Inner::Finished;
                return Ok(Vec::new());
            }
        };
        let out = self.collect(res, "gzip stream ended early or is corrupt: ");
        self.inner = Inner::Finished;
        out
    }

    /// Decoded bytes returned by [`push`](Self::push) and [`finish`](Self::finish) since the
    /// start or the last [`restart_count`](Self::restart_count) (never more than the cap; the
    /// partial output of a failing push is discarded).
    pub fn total_out(&self) -> usize {
        self.total_out
    }

    /// Counts the decoded size afresh from here: the cap then bounds what is decoded from now
    /// on (an event stream restarts it at every line it completes).
    pub fn restart_count(&mut self) {
        self.total_out = 0;
        if let Inner::Gzip(dec) = &mut self.inner {
            dec.get_mut().total = 0;
        }
    }

    /// Takes the sink's output after a gzip write and turns an IO error into a [`BodyError`].
    fn collect(&mut self, res: io::Result<()>, context: &str) -> Result<Vec<u8>, BodyError> {
        let Inner::Gzip(dec) = &mut self.inner else { return Ok(Vec::new()) };
        let sink = dec.get_mut();
        let out = std::mem::take(&mut sink.out);
        match res {
            Ok(()) => {
                self.total_out = sink.total;
                Ok(out)
            }
            Err(_) if sink.exceeded => self.fail(BodyError::TooLarge { limit: self.limit }),
            Err(e) => self.fail(BodyError::Corrupt(sanitize(&format!("{context}{e}"), 200))),
        }
    }

    /// Poisons the decoder with `err`, freeing the inflater, and returns it.
    fn fail<T>(&mut self, err: BodyError) -> Result<T, BodyError> {
        self.inner = Inner::Finished;
        self.error = Some(err.clone());
        Err(err)
    }
}

/// Fuzz body: arbitrary bytes as gzip never panic, never decode past a 1 MiB cap, and a body
/// that decodes does so the same whatever the chunking (chunk size from the first byte).
#[cfg(any(test, feature = "_fuzz"))]
#[doc(hidden)]
pub fn fuzz_bounded(data: &[u8]) {
    const CAP: usize = 1 << 20;
    let Some((&first, body)) = data.split_first() else { return };
    let run = |chunk: usize| -> Result<Vec<u8>, BodyError> {
        let mut d = BodyDecoder::new(ContentEncoding::Gzip, CAP);
        let mut all = Vec::new();
        for c in body.chunks(chunk) {
            let pushed = d.push(c);
            assert!(d.total_out() <= CAP, "decoded past the cap");
            all.extend(pushed?);
        }
        all.extend(d.finish()?);
        assert!(d.total_out() <= CAP && all.len() == d.total_out());
        Ok(all)
    };
    let chunked = run(usize::from(first) + 1);
    let whole = run(body.len().max(1));
    match (&chunked, &whole) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "chunking changed the decoded body"),
        (Err(_), Err(_)) => {}
        _ => panic!("chunking changed the outcome: {chunked:?} vs {whole:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::write::GzEncoder;
    use flate2::Compression;
    use proptest::prelude::*;

    fn gz(data: &[u8], level: u32) -> Vec<u8> {
        let mut e = GzEncoder::new(Vec::new(), Compression::new(level));
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    /// Pushes `body` in chunks cycling through `sizes`, then finishes.
    fn decode(enc: ContentEncoding, cap: usize, body: &[u8], sizes: &[usize]) -> Result<Vec<u8>, BodyError> {
        let mut d = BodyDecoder::new(enc, cap);
        let mut out = Vec::new();
        let (mut pos, mut i) = (0, 0);
        while pos < body.len() {
            let n = sizes[i % sizes.len()].clamp(1, body.len() - pos);
            out.extend(d.push(&body[pos..pos + n])?);
            pos += n;
            i += 1;
        }
        out.extend(d.finish()?);
        assert_eq!(out.len(), d.total_out());
        Ok(out)
    }

    fn sample(n: usize) -> Vec<u8> {
        (0..n).map(|i| (i * 7 % 251) as u8 ^ (i / 300) as u8).collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn round_trip_random_chunks(
            runs in prop::collection::vec((any::<u8>(), 1usize..400), 0..120),
            noise in prop::collection::vec(any::<u8>(), 0..4000),
            members in 1usize..4,
            level in 0u32..10,
            sizes in prop::collection::vec(1usize..5000, 1..12),
        ) {
            let mut data = noise;
            for (b, n) in runs {
                data.extend(std::iter::repeat_n(b, n));
            }
            // Split into `members` concatenated gzip members.
            let step = data.len() / members + 1;
            let body: Vec<u8> = data.chunks(step).flat_map(|c| gz(c, level)).collect();
            let out = decode(ContentEncoding::Gzip, data.len(), &body, &sizes).unwrap();
            prop_assert_eq!(&out, &data);
            let out = decode(ContentEncoding::Identity, data.len(), &data, &sizes).unwrap();
            prop_assert_eq!(out, data);
        }

        #[test]
        fn fuzz_body_never_panics(data in prop::collection::vec(any::<u8>(), 0..2000)) {
            fuzz_bounded(&data);
            let mut framed = vec![data.first().copied().unwrap_or(3)];
            framed.extend(gz(&data, 6));
            fuzz_bounded(&framed);
        }
    }

    #[test]
    fn exact_cap_boundary() {
        for n in [0, 1, 1000, 70_000] {
            let data = sample(n);
            let body = gz(&data, 6);
            assert_eq!(decode(ContentEncoding::Gzip, n, &body, &[body.len()]).unwrap(), data);
            assert_eq!(decode(ContentEncoding::Gzip, n, &body, &[1, 7]).unwrap(), data);
            assert_eq!(decode(ContentEncoding::Identity, n, &data, &[3]).unwrap(), data);
            if n > 0 {
                let too = Err(BodyError::TooLarge { limit: n - 1 });
                assert_eq!(decode(ContentEncoding::Gzip, n - 1, &body, &[body.len()]), too);
                assert_eq!(decode(ContentEncoding::Gzip, n - 1, &body, &[5]), too);
                assert_eq!(decode(ContentEncoding::Identity, n - 1, &data, &[n]), too);
                assert_eq!(decode(ContentEncoding::Identity, n - 1, &data, &[1]), too);
            }
        }
    }

    /// A single-member gzip of `mib` MiB of zeros, built streamingly from one raw deflate
    /// segment: 1 MiB of zeros compressed once and full-flushed (byte-aligned, no reference
    /// outside itself), repeated `mib` times, then an empty final block and the real trailer.
    /// Compressing 1 GiB with `GzEncoder` takes 10-25 s in a debug build; this takes ~10 ms.
    fn zeros_gzip(mib: usize) -> Vec<u8> {
        const MIB: usize = 1 << 20;
        let zeros = vec![0u8; MIB];
        let mut c = flate2::Compress::new(Compression::default(), false);
        let mut segment = Vec::with_capacity(MIB);
        c.compress_vec(&zeros, &mut segment, flate2::FlushCompress::Full).unwrap();
        assert_eq!(c.total_in(), MIB as u64);
        let (mut crc, mut one) = (flate2::Crc::new(), flate2::Crc::new());
        one.update(&zeros);
        let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
        for _ in 0..mib {
            out.extend_from_slice(&segment);
            crc.combine(&one);
        }
        out.extend_from_slice(&[0x03, 0x00]); // final, fixed-Huffman, empty block
        out.extend_from_slice(&crc.sum().to_le_bytes());
        out.extend_from_slice(&((mib * MIB) as u32).to_le_bytes());
        out
    }

    #[test]
    fn zeros_gzip_is_valid() {
        let body = zeros_gzip(3);
        assert_eq!(decode(ContentEncoding::Gzip, 3 << 20, &body, &[4096]), Ok(vec![0; 3 << 20]));
    }

    #[test]
    fn bomb_stops_early() {
        const MIB: usize = 1 << 20;
        const CAP: usize = 64 * MIB;
        // 1 GiB of zeros in about 1 MB.
        let bomb = zeros_gzip(1024);
        assert!(bomb.len() < 2 * MIB, "bomb is {} bytes", bomb.len());

        let chunks: Vec<&[u8]> = bomb.chunks(64 * 1024).collect();
        let mut d = BodyDecoder::new(ContentEncoding::Gzip, CAP);
        let (mut produced, mut peak, mut failed_at) = (0, 0, None);
        for (i, c) in chunks.iter().enumerate() {
            match d.push(c) {
                Ok(out) => {
                    produced += out.len();
                    peak = peak.max(out.len());
                }
                Err(e) => {
                    assert_eq!(e, BodyError::TooLarge { limit: CAP });
                    failed_at = Some(i);
                    break;
                }
            }
        }
        let failed_at = failed_at.expect("the bomb must end in TooLarge");
        assert!(d.total_out() == produced && produced <= CAP && peak <= CAP);
        // 64 MiB is 1/16 of the output: the error comes within the first ~1/16 of the input.
        assert!(failed_at <= chunks.len() / 8 + 1, "failed at chunk {failed_at} of {}", chunks.len());
        assert_eq!(d.push(&[0]), Err(BodyError::TooLarge { limit: CAP }));

        // One push holding the whole bomb also stops at the cap.
        let mut d = BodyDecoder::new(ContentEncoding::Gzip, 4 * MIB);
        assert_eq!(d.push(&bomb), Err(BodyError::TooLarge { limit: 4 * MIB }));
        assert!(d.total_out() <= 4 * MIB);
    }

    #[test]
    fn truncated_stream_is_corrupt_at_finish() {
        let data = sample(5000);
        let body = gz(&data, 6);
        for cut in 1..body.len() {
            let mut d = BodyDecoder::new(ContentEncoding::Gzip, 1 << 20);
            let out = d.push(&body[..cut]).unwrap();
            assert_eq!(out[..], data[..out.len()], "prefix output is a prefix of the body");
            assert!(matches!(d.finish(), Err(BodyError::Corrupt(_))), "cut at {cut}");
        }
        // A second member cut inside its header.
        let mut two = body.clone();
        two.extend_from_slice(&body[..4]);
        assert!(matches!(decode(ContentEncoding::Gzip, 1 << 20, &two, &[100]), Err(BodyError::Corrupt(_))));
    }

    #[test]
    fn garbage_is_corrupt() {
        let enc = ContentEncoding::Gzip;
        let corrupt = |r: Result<Vec<u8>, BodyError>| matches!(r, Err(BodyError::Corrupt(_)));
        assert!(corrupt(decode(enc, 1 << 20, b"this is not gzip at all", &[4])));
        assert!(corrupt(decode(enc, 1 << 20, b"hello", &[4])));
        let reserved_block_type = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0xff, 0xff, 0xff];
        assert!(corrupt(decode(enc, 1 << 20, &reserved_block_type, &[13])));
        let mut body = gz(&sample(3000), 6);
        let n = body.len();
        body[n - 6] ^= 1; // checksum
        assert!(corrupt(decode(enc, 1 << 20, &body, &[64])));
        let mut body = gz(&sample(3000), 6);
        body.extend_from_slice(b"trailing junk");
        assert!(corrupt(decode(enc, 1 << 20, &body, &[64])));
        let mut body = gz(&sample(3000), 6);
        body[0] = 0;
        let mut d = BodyDecoder::new(enc, 1 << 20);
        let err = d.push(&body).unwrap_err();
        assert!(err.to_string().starts_with("corrupt gzip response body"), "{err}");
    }

    #[test]
    fn empty_bodies() {
        assert_eq!(decode(ContentEncoding::Gzip, 0, b"", &[1]), Ok(vec![]));
        assert_eq!(decode(ContentEncoding::Gzip, 0, &gz(b"", 6), &[1]), Ok(vec![]));
        assert_eq!(decode(ContentEncoding::Identity, 0, b"", &[1]), Ok(vec![]));
        let mut d = BodyDecoder::new(ContentEncoding::Gzip, 10);
        assert_eq!(d.push(b""), Ok(vec![]));
        assert_eq!(d.finish(), Ok(vec![]));
        assert_eq!(d.finish(), Ok(vec![]));
    }

    #[test]
    fn a_restarted_count_bounds_what_comes_after_it() {
        for enc in [ContentEncoding::Identity, ContentEncoding::Gzip] {
            let body: Vec<u8> = (0..40u8).collect();
            let input = if enc == ContentEncoding::Gzip { gz(&body, 6) } else { body.clone() };
            let mut d = BodyDecoder::new(enc, 16);
            let mut out = Vec::new();
            // Restarted once 8 bytes were decoded since the last restart: 40 in all pass a 16-byte cap.
            for piece in input.chunks(1) {
                out.extend(d.push(piece).expect("under the cap since the last restart"));
                assert!(d.total_out() <= 16, "{enc:?}");
                if d.total_out() >= 8 {
                    d.restart_count();
                    assert_eq!(d.total_out(), 0);
                }
            }
            out.extend(d.finish().expect("the end"));
            assert_eq!(out, body, "{enc:?}");
            // Without restarts the same body passes the cap.
            let mut d = BodyDecoder::new(enc, 16);
            let failed = input.chunks(1).any(|piece| d.push(piece).is_err());
            assert!(failed || d.finish().is_err(), "{enc:?}: 40 bytes under a 16-byte cap");
        }
    }

    #[test]
    fn poisoned_after_error() {
        let mut d = BodyDecoder::new(ContentEncoding::Identity, 4);
        assert_eq!(d.push(b"abc"), Ok(b"abc".to_vec()));
        let too = Err(BodyError::TooLarge { limit: 4 });
        assert_eq!(d.push(b"de"), too);
        assert_eq!(d.push(b""), too);
        assert_eq!(d.finish(), too);
        assert_eq!(d.total_out(), 3);
        let msg = BodyError::TooLarge { limit: 4 }.to_string();
        assert_eq!(msg, "response body exceeds the limit of 4 bytes (after decompression)");

        let mut d = BodyDecoder::new(ContentEncoding::Gzip, 1 << 20);
        let err = d.push(b"not gzip, definitely").unwrap_err();
        assert!(matches!(err, BodyError::Corrupt(_)));
        assert_eq!(d.push(&gz(b"fine", 6)), Err(err.clone()));
        assert_eq!(d.finish(), Err(err));

        let mut d = BodyDecoder::new(ContentEncoding::Gzip, 1 << 20);
        assert_eq!(d.push(&gz(b"done", 6)), Ok(b"done".to_vec()));
        assert_eq!(d.finish(), Ok(vec![]));
        assert!(matches!(d.push(b"x"), Err(BodyError::Corrupt(_))));
        assert!(matches!(d.push(b"y"), Err(BodyError::Corrupt(_))));
    }

    #[test]
    fn header_parsing() {
        use ContentEncoding::{Gzip, Identity};
        assert_eq!(ContentEncoding::from_header(None), Ok(Identity));
        for v in ["identity", "IDENTITY", " identity\t", "", "  "] {
            assert_eq!(ContentEncoding::from_header(Some(v)), Ok(Identity), "{v:?}");
        }
        for v in ["gzip", "GZIP", " Gzip ", "x-gzip", "X-GZip"] {
            assert_eq!(ContentEncoding::from_header(Some(v)), Ok(Gzip), "{v:?}");
        }
        let echo = |v: &str| match ContentEncoding::from_header(Some(v)) {
            Err(e @ BodyError::UnsupportedEncoding(_)) => e,
            other => panic!("expected UnsupportedEncoding, got {other:?}"),
        };
        for v in ["br", "deflate", "gzip, br", "gzip,gzip", "identity, gzip", " gzip;q=1", "zstd"] {
            assert_eq!(echo(v), BodyError::UnsupportedEncoding(v.trim().into()), "{v:?}");
        }
        assert_eq!(echo("br\n\x1b[31m"), BodyError::UnsupportedEncoding("br\\n\\u{1b}[31m".into()));
        let long = echo(&"a".repeat(1000));
        let BodyError::UnsupportedEncoding(text) = &long else { unreachable!() };
        assert!(text.chars().count() <= MAX_ECHO_CHARS + 12 && text.ends_with("…[truncated]"));
        assert!(long.to_string().starts_with("unsupported Content-Encoding `aaa"));
    }

    #[test]
    fn fuzz_body_smoke() {
        fuzz_bounded(b"");
        fuzz_bounded(&[0]);
        fuzz_bounded(&[&[200][..], &zeros_gzip(3)].concat());
    }
}
