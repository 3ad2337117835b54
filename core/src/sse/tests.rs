//! Tests for `sse`: the WHATWG examples, limits, then chunking and a literal reference decoder.

use proptest::prelude::*;

use super::*;

/// Items, last event id and rejected-id count after decoding `chunks` and finishing.
type Output = (Vec<SseItem>, Option<String>, usize);

fn decode(limits: &SseLimits, chunks: &[&[u8]]) -> Output {
    let mut d = SseDecoder::new(limits.clone());
    let mut items = Vec::new();
    for chunk in chunks {
        d.push(chunk);
        assert!(d.buffered() <= limits.max_event_bytes, "holds {} bytes", d.buffered());
        items.extend(std::iter::from_fn(|| d.next_event()));
    }
    d.finish();
    items.extend(std::iter::from_fn(|| d.next_event()));
    (items, d.last_event_id().map(str::to_owned), d.rejected_ids())
}

fn items(input: &[u8]) -> Vec<SseItem> {
    decode(&SseLimits::default(), &[input]).0
}

fn ev(event: &str, data: &str, id: Option<&str>) -> SseItem {
    SseItem::Event(SseEvent { event: event.into(), data: data.into(), id: id.map(Into::into) })
}

fn msg(data: &str) -> SseItem {
    ev("message", data, None)
}

// --- WHATWG examples and interpretation rules -----------------------------------------------

#[test]
fn multi_line_data() {
    assert_eq!(items(b"data: YHOO\ndata: +2\ndata: 10\n\n"), vec![msg("YHOO\n+2\n10")]);
}

#[test]
fn whatwg_id_example_and_final_incomplete_event() {
    let out = decode(
        &SseLimits::default(),
        &[b": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n"],
    );
    let first = ev("message", "first event", Some("1"));
    assert_eq!(out, (vec![SseItem::Comment, first, msg("second event")], None, 0));
    // One leading space only is removed.
    assert_eq!(items(b"data:  third event\n\n"), vec![msg(" third event")]);
}

#[test]
fn data_with_and_without_colon_and_space() {
    assert_eq!(items(b"data\n\ndata\ndata\n\ndata:"), vec![msg(""), msg("\n")]);
    assert_eq!(items(b"data:test\n\ndata: test\n\ndata: \n\n"), vec![msg("test"), msg("test"), msg("")]);
}

#[test]
fn event_types() {
    let input = b"event: add\ndata: 73857293\n\nevent: remove\ndata: 2153\n\nevent:\ndata: x\n\n";
    assert_eq!(items(input), vec![ev("add", "73857293", None), ev("remove", "2153", None), msg("x")]);
}

#[test]
fn empty_data_is_not_dispatched_but_resets_type_and_commits_id() {
    let mut d = SseDecoder::new(SseLimits::default());
    d.push(b"event: foo\nid: 5\n\n");
    assert_eq!(d.next_event(), None);
    assert_eq!(d.last_event_id(), Some("5"));
    d.push(b"data: x\n\n");
    assert_eq!(d.next_event(), Some(ev("message", "x", Some("5"))));
}

#[test]
fn id_persists_and_empty_id_resets() {
    let out = decode(&SseLimits::default(), &[b"id: 7\ndata: a\n\ndata: b\n\nid:\ndata: c\n\nid: 8\n\n"]);
    let expected = vec![ev("message", "a", Some("7")), ev("message", "b", Some("7")), msg("c")];
    assert_eq!(out, (expected, Some("8".into()), 0));
}

#[test]
fn id_with_nul_is_ignored_and_counted() {
    let out = decode(&SseLimits::default(), &[b"id: 1\n\nid: a\0b\ndata: x\n\n"]);
    assert_eq!(out, (vec![ev("message", "x", Some("1"))], Some("1".into()), 1));
}

#[test]
fn mcp_priming_event_has_an_id_and_empty_data() {
    assert_eq!(items(b"id: p1\ndata:\n\n"), vec![ev("message", "", Some("p1"))]);
}

#[test]
fn retry_digits_only_and_clamped() {
    let input =
        b"retry: 5000\nretry: 5s\nretry: -1\nretry:\nretry:  5\nretry: 0\nretry: 99999999999999999999999\nretry: 500\n";
    let want = [SseItem::Retry(5000), SseItem::Retry(200), SseItem::Retry(60_000), SseItem::Retry(500)];
    assert_eq!(items(input), want.to_vec());
    // A retry inside an event that never completes is still seen (it applies at once).
    assert_eq!(items(b"data: x\nretry: 2000\n"), vec![SseItem::Retry(2000)]);
}

#[test]
fn retry_delay_clamps() {
    assert_eq!(retry_delay(0, 1000, 60_000), 1000);
    assert_eq!(retry_delay(5000, 1000, 60_000), 5000);
    assert_eq!(retry_delay(u64::MAX, 1000, 60_000), 60_000);
    assert_eq!(retry_delay(10, 500, 100), 500, "the floor wins");
}

#[test]
fn comments_and_unknown_fields_are_ignored() {
    let input = b":keep-alive\n: x\ndata: a\n:mid\nfoo: bar\nData: no\n\n";
    assert_eq!(items(input), vec![SseItem::Comment, SseItem::Comment, SseItem::Comment, msg("a")]);
}

#[test]
fn bom_is_skipped_once_even_split() {
    assert_eq!(items(b"\xEF\xBB\xBFdata: x\n\n"), vec![msg("x")]);
    assert_eq!(items(b"\xEF\xBB\xBF\xEF\xBB\xBFdata: x\n\n"), vec![], "second BOM is part of the name");
    let parts: [&[u8]; 4] = [b"\xEF", b"\xBB", b"\xBF", b"data: y\n\n"];
    assert_eq!(decode(&SseLimits::default(), &parts).0, vec![msg("y")]);
    assert_eq!(items(b"\xEF\xBBdata: z\n\n"), vec![], "a partial BOM is content");
    assert_eq!(items(b"\xEF\xBB\n\xEF\xBB\xBFdata: z\n\n"), vec![], "only at the very start");
}

#[test]
fn cr_only_line_endings() {
    assert_eq!(items(b"data: a\rdata: b\r\rdata: c\r\n\r\n"), vec![msg("a\nb"), msg("c")]);
}

#[test]
fn crlf_split_across_chunks_is_one_terminator() {
    let parts: [&[u8]; 3] = [b"data: a\r", b"\ndata: b\r", b"\n\r\n"];
    assert_eq!(decode(&SseLimits::default(), &parts).0, vec![msg("a\nb")]);
}

#[test]
fn incomplete_event_at_eof_is_discarded() {
    assert_eq!(items(b"data: a\n"), vec![]);
    assert_eq!(items(b"data: a\n\ndata: b"), vec![msg("a")]);
    assert_eq!(items(b"data: a\n\ndata: b\n"), vec![msg("a")]);
}

#[test]
fn invalid_utf8_is_decoded_lossily() {
    assert_eq!(
        items(b"event: \xFFe\ndata: \xE2\x82\ndata: ok\xC3\n\n"),
        vec![ev("\u{FFFD}e", "\u{FFFD}\nok\u{FFFD}", None)]
    );
}

#[test]
fn decoder_is_reusable_after_finish_and_keeps_the_id() {
    let mut d = SseDecoder::new(SseLimits::default());
    d.push(b"id: 3\ndata: a\n\nid: 4\ndata: partial");
    d.finish();
    assert_eq!(d.next_event(), Some(ev("message", "a", Some("3"))));
    d.push(b"\xEF\xBB\xBFdata: b\n\n");
    assert_eq!(d.next_event(), Some(ev("message", "b", Some("3"))));
}

// --- limits --------------------------------------------------------------------------------

fn small(max_event_bytes: usize) -> SseLimits {
    SseLimits { max_event_bytes, max_event_id_bytes: 8, ..SseLimits::default() }
}

#[test]
fn oversize_event_is_dropped_and_the_next_decodes() {
    // 11 bytes of data, then a 16-byte line: 27 > 16; then "id: 9" is skipped (5 more).
    let input: &[u8] = b"data: 0123456789\ndata: 0123456789\nid: 9\n:c\n\ndata: ok\n\n";
    let out = decode(&small(16), &[input]);
    assert_eq!(
        out,
        (vec![SseItem::Overflow { dropped: 34, head: vec![], tail: vec![] }, msg("ok")], None, 0)
    );
}

#[test]
fn exact_limit_is_accepted() {
    assert_eq!(decode(&small(10), &[b"data: 1234\n\n"]).0, vec![msg("1234")]);
    // The type counts too: 1 ("a") + 8 (line "data:123") = 9.
    assert_eq!(decode(&small(9), &[b"event:a\ndata:123\n\n"]).0, vec![ev("a", "123", None)]);
    assert_eq!(
        decode(&small(8), &[b"event:a\ndata:123\n\n"]).0,
        vec![SseItem::Overflow { dropped: 9, head: vec![], tail: vec![] }]
    );
}

#[test]
fn comment_lines_are_never_buffered() {
    let mut d = SseDecoder::new(small(4));
    d.push(b":");
    for _ in 0..100 {
        d.push(&[b'x'; 1000]);
        assert_eq!(d.buffered(), 0);
    }
    d.push(b"\ndata\n\n");
    assert_eq!(std::iter::from_fn(|| d.next_event()).collect::<Vec<_>>(), vec![SseItem::Comment, msg("")]);
}

#[test]
fn overflow_at_eof_is_reported() {
    assert_eq!(
        decode(&small(4), &[b"data: abc"]).0,
        vec![SseItem::Overflow { dropped: 9, head: vec![], tail: vec![] }]
    );
}

#[test]
fn an_oversize_event_keeps_the_start_and_end_of_its_data() {
    let limits = SseLimits { max_event_bytes: 12, capture_bytes: 6, ..SseLimits::default() };
    let input: &[u8] = b"event: message\ndata: {\"a\":\ndata:1,\"pad\":\"xxxxxxxx\",\nretry: 5\ndata:  \"id\":7}\n\ndata: ok\n\n";
    // The event overflows on its first line; the head keeps the first 6 bytes of its data, the
    // tail the last 6.
    let head = b"{\"a\":\n".to_vec();
    let expected = vec![
        SseItem::OverflowStart { head: head.clone() },
        SseItem::Overflow { dropped: 71, head, tail: b"d\":7}\n".to_vec() },
        msg("ok"),
    ];
    for size in [1, 2, 5, input.len()] {
        let chunks: Vec<&[u8]> = input.chunks(size).collect();
        assert_eq!(decode(&limits, &chunks).0, expected, "chunks of {size}");
    }
    // Announced as soon as the head is known, before the event ends.
    let mut d = SseDecoder::new(limits);
    d.push(&input[..40]);
    assert_eq!(d.next_event(), Some(SseItem::OverflowStart { head: b"{\"a\":\n".to_vec() }));
    assert_eq!(d.next_event(), None);
}

#[test]
fn never_terminated_line_stays_bounded() {
    let limits = SseLimits::default();
    let mut d = SseDecoder::new(limits.clone());
    let chunk = vec![b'x'; 64 * 1024];
    d.push(b"data: ");
    let mut fed = 6;
    while fed < 100_000_000 {
        d.push(&chunk);
        fed += chunk.len();
        assert!(d.buffered() <= limits.max_event_bytes, "holds {}", d.buffered());
    }
    assert_eq!(d.next_event(), None);
    d.push(b"\n\ndata: ok\n\n");
    assert_eq!(d.next_event(), Some(SseItem::Overflow { dropped: fed, head: vec![], tail: vec![] }));
    assert_eq!(d.next_event(), Some(msg("ok")));
}

#[test]
fn id_validation() {
    let input =
        b"id: 12345678\n\nid: 123456789\n\nid: a\tb\n\nid: \xC3\xA9\n\nid: \x7F\n\nid: a b~\ndata: x\n\n";
    let out = decode(&small(1024), &[input]);
    assert_eq!(out, (vec![ev("message", "x", Some("a b~"))], Some("a b~".into()), 4));
    let out = decode(&small(1024), &[b"id: 12345678\n\nid: 123456789\ndata: y\n\n"]);
    assert_eq!(out, (vec![ev("message", "y", Some("12345678"))], Some("12345678".into()), 1));
}

#[test]
fn fuzz_body_smoke() {
    for seed in [0u8, 1, 7, 8, 64, 255] {
        let mut data = vec![seed];
        data.extend_from_slice(b"\xEF\xBB\xBFid: 1\r\ndata: a\r\rretry: 0\n:c\r\ndata: 0123456789abcdef\n\n");
        fuzz_chunking(&data);
    }
}

// --- chunking and the reference decoder ----------------------------------------------------

/// Splits into lines ending in CR, LF or CRLF; returns the lines and the unterminated tail.
fn split_lines(s: &[u8]) -> (Vec<&[u8]>, &[u8]) {
    let (mut lines, mut start, mut i) = (Vec::new(), 0, 0);
    while i < s.len() {
        if s[i] == b'\r' || s[i] == b'\n' {
            lines.push(&s[start..i]);
            i += if s[i] == b'\r' && s.get(i + 1) == Some(&b'\n') { 2 } else { 1 };
            start = i;
        } else {
            i += 1;
        }
    }
    (lines, &s[start..])
}

/// A slow, literal reading of WHATWG: decode the stream, split it into lines, interpret them in
/// order. Limits are applied per line on raw lengths, as documented for the decoder.
fn reference(limits: &SseLimits, input: &[u8]) -> Output {
    let body = input.strip_prefix(BOM).unwrap_or(input);
    let text = String::from_utf8_lossy(body);
    let (raw_lines, raw_tail) = split_lines(body);
    let (text_lines, _) = split_lines(text.as_bytes());
    assert_eq!(raw_lines.len(), text_lines.len());
    let mut out = Vec::new();
    let (mut data, mut data_raw, mut ty, mut ty_raw) = (String::new(), 0, String::new(), 0);
    let (mut id_buf, mut last_id, mut rejected) = (String::new(), String::new(), 0);
    let mut discard: Option<usize> = None;
    // The raw data values of the event (each followed by `\n`), for an overflow's head and tail.
    let mut cap: Vec<u8> = Vec::new();
    for (raw, line) in raw_lines.into_iter().zip(text_lines) {
        let line = std::str::from_utf8(line).unwrap();
        if let Some(d) = discard.as_mut() {
            if raw.is_empty() {
                overflow(&mut out, limits, *d, &std::mem::take(&mut cap));
                last_id = id_buf.clone();
                discard = None;
            } else {
                *d += raw.len();
                capture_line(&mut cap, raw, true);
            }
        } else if line.is_empty() {
            last_id = id_buf.clone();
            if !data.is_empty() {
                data.pop();
                let event = if ty.is_empty() { "message".to_owned() } else { ty.clone() };
                let id = (!last_id.is_empty()).then(|| last_id.clone());
                out.push(SseItem::Event(SseEvent { event, data: data.clone(), id }));
            }
            (data, data_raw, ty, ty_raw) = (String::new(), 0, String::new(), 0);
            cap.clear();
        } else if line.starts_with(':') {
            out.push(SseItem::Comment);
        } else if data_raw + ty_raw + raw.len() > limits.max_event_bytes {
            discard = Some(data_raw + ty_raw + raw.len());
            (data, data_raw, ty, ty_raw) = (String::new(), 0, String::new(), 0);
            capture_line(&mut cap, raw, true);
        } else {
            capture_line(&mut cap, raw, true);
            let (name, value) = match line.find(':') {
                Some(i) => (&line[..i], line[i + 1..].strip_prefix(' ').unwrap_or(&line[i + 1..])),
                None => (line, ""),
            };
            // The names matched are ASCII, so the value's raw length follows from the prefix's.
            let value_raw = || raw.len() - (line.len() - value.len());
            match name {
                "data" => {
                    data.push_str(value);
                    data.push('\n');
                    data_raw += value_raw() + 1;
                }
                "event" => (ty, ty_raw) = (value.to_owned(), value_raw()),
                "id" if value.len() <= limits.max_event_id_bytes
                    && value.chars().all(|c| (' '..='~').contains(&c)) =>
                {
                    id_buf = value.to_owned();
                }
                "id" => rejected += 1,
                "retry" if !value.is_empty() && value.chars().all(|c| c.is_ascii_digit()) => {
                    let ms = value.parse::<u64>().unwrap_or(u64::MAX);
                    out.push(SseItem::Retry(retry_delay(ms, limits.min_retry_ms, limits.max_retry_ms)));
                }
                _ => {}
            }
        }
    }
    // An unterminated tail is discarded, but counts towards (or triggers) an overflow.
    if let Some(d) = discard {
        capture_line(&mut cap, raw_tail, false);
        overflow(&mut out, limits, d + raw_tail.len(), &cap);
    } else if raw_tail.first().is_some_and(|&b| b != b':')
        && data_raw + ty_raw + raw_tail.len() > limits.max_event_bytes
    {
        capture_line(&mut cap, raw_tail, false);
        overflow(&mut out, limits, data_raw + ty_raw + raw_tail.len(), &cap);
    }
    (out, (!last_id.is_empty()).then_some(last_id), rejected)
}

/// Adds a raw line's `data` value (and the `\n` after it, when the line ended) to `cap`.
fn capture_line(cap: &mut Vec<u8>, raw: &[u8], ended: bool) {
    let (name, value) = match raw.iter().position(|&b| b == b':') {
        Some(i) => (&raw[..i], raw[i + 1..].strip_prefix(b" ").unwrap_or(&raw[i + 1..])),
        None => (raw, &[][..]),
    };
    if name == b"data" {
        cap.extend_from_slice(value);
        if ended {
            cap.push(b'\n');
        }
    }
}

/// What the decoder reports for an oversize event whose data values were `cap`.
fn overflow(out: &mut Vec<SseItem>, limits: &SseLimits, dropped: usize, cap: &[u8]) {
    let keep = limits.capture_bytes;
    let head = cap[..cap.len().min(keep).min(limits.max_event_bytes)].to_vec();
    let tail = cap[cap.len() - cap.len().min(keep)..].to_vec();
    if keep > 0 {
        out.push(SseItem::OverflowStart { head: head.clone() });
    }
    out.push(SseItem::Overflow { dropped, head, tail });
}

/// Decodes one-shot, at `cuts`, and byte by byte; all must match each other and the reference.
fn check(limits: &SseLimits, input: &[u8], cuts: &[prop::sample::Index]) -> Result<(), TestCaseError> {
    let whole = decode(limits, &[input]);
    prop_assert_eq!(&whole, &reference(limits, input));
    let mut at: Vec<usize> = cuts.iter().map(|c| c.index(input.len() + 1)).collect();
    at.sort_unstable();
    let mut chunks = Vec::new();
    let mut prev = 0;
    for &cut in at.iter().chain([&input.len()]) {
        chunks.push(&input[prev..cut]);
        prev = cut;
    }
    prop_assert_eq!(&whole, &decode(limits, &chunks));
    let bytes: Vec<&[u8]> = input.chunks(1).collect();
    prop_assert_eq!(&whole, &decode(limits, &bytes));
    Ok(())
}

fn limits() -> impl Strategy<Value = SseLimits> {
    (
        prop_oneof![0usize..80, Just(1 << 20)],
        0usize..10,
        0u64..3000,
        0u64..3000,
        prop_oneof![Just(0usize), 1usize..12],
    )
        .prop_map(|(ev, id, lo, hi, capture)| SseLimits {
            max_event_bytes: ev,
            max_event_id_bytes: id,
            min_retry_ms: lo,
            max_retry_ms: hi,
            capture_bytes: capture,
        })
}

fn value() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(prop::sample::select(b"a7 :\0\xFF\xC3\xA9~\t".to_vec()), 0..12)
}

/// A stream of field lines, comments and blank lines with mixed terminators.
fn stream() -> impl Strategy<Value = Vec<u8>> {
    let name = prop::sample::select(vec!["data", "event", "id", "retry", "dat", "", "x", "\u{FEFF}data"]);
    let sep = prop::sample::select(vec![":", ": ", "", ":  ", "::"]);
    let field = (name, sep, value()).prop_map(|(n, s, v)| [n.as_bytes(), s.as_bytes(), &v].concat());
    let line =
        prop_oneof![5 => field, 1 => value().prop_map(|v| [b":", &v[..]].concat()), 2 => Just(Vec::new())];
    let term = prop::sample::select(vec!["\n", "\r", "\r\n"]);
    let lines = prop::collection::vec((line, term).prop_map(|(l, t)| [&l[..], t.as_bytes()].concat()), 0..40);
    (any::<bool>(), lines, value()).prop_map(|(bom, lines, tail)| {
        let bom: &[u8] = if bom { BOM } else { b"" };
        [bom, &lines.concat(), &tail].concat()
    })
}

proptest! {
    #[test]
    fn structured_streams_match_reference_however_chunked(
        limits in limits(),
        input in stream(),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..20),
    ) {
        check(&limits, &input, &cuts)?;
    }

    #[test]
    fn arbitrary_bytes_match_reference_however_chunked(
        limits in limits(),
        bom in any::<bool>(),
        input in prop::collection::vec(prop_oneof![any::<u8>(), prop::sample::select(b"\r\n: datevniry".to_vec())], 0..200),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..20),
    ) {
        let input = if bom { [BOM, &input].concat() } else { input };
        check(&limits, &input, &cuts)?;
        fuzz_chunking(&input);
    }
}
