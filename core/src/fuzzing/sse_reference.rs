//! A slow, literal reading of the WHATWG event-stream interpretation (the whole body at once,
//! split into lines, each line processed by the spec's steps), with the decoder's two documented
//! tightenings (id acceptance and `retry` clamping), to check [`crate::sse::SseDecoder`] against.

use crate::sse::{retry_delay, SseDecoder, SseEvent, SseItem, SseLimits};

/// What a whole stream decodes to: the items, the last event id and the rejected ids.
type Decoded = (Vec<SseItem>, Option<String>, usize);

fn reference(body: &[u8], limits: &SseLimits) -> Decoded {
    let body = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
    // Split into lines; the bytes after the last terminator are an incomplete line (dropped).
    let mut lines: Vec<&[u8]> = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < body.len() {
        match body[i] {
            b'\r' => {
                lines.push(&body[start..i]);
                i += if body.get(i + 1) == Some(&b'\n') { 2 } else { 1 };
                start = i;
            }
            b'\n' => {
                lines.push(&body[start..i]);
                i += 1;
                start = i;
            }
            _ => i += 1,
        }
    }
    let mut items = Vec::new();
    let (mut data, mut event_type, mut id_buffer, mut last_id) =
        (Vec::new(), Vec::new(), String::new(), String::new());
    let mut rejected = 0;
    for line in lines {
        if line.is_empty() {
            last_id.clone_from(&id_buffer);
            if data.is_empty() {
                event_type.clear();
                continue;
            }
            data.pop();
            let event = if event_type.is_empty() {
                "message".to_owned()
            } else {
                String::from_utf8_lossy(&event_type).into()
            };
            let id = (!last_id.is_empty()).then(|| last_id.clone());
            items.push(SseItem::Event(SseEvent { event, data: String::from_utf8_lossy(&data).into(), id }));
            data.clear();
            event_type.clear();
            continue;
        }
        if line[0] == b':' {
            items.push(SseItem::Comment);
            continue;
        }
        let (name, value) = match line.iter().position(|&b| b == b':') {
            Some(c) => (&line[..c], line[c + 1..].strip_prefix(b" ").unwrap_or(&line[c + 1..])),
            None => (line, &b""[..]),
        };
        match name {
            b"event" => event_type = value.to_vec(),
            b"data" => {
                data.extend_from_slice(value);
                data.push(b'\n');
            }
            b"id" => {
                if value.len() <= limits.max_event_id_bytes && value.iter().all(|b| (0x20..=0x7E).contains(b))
                {
                    id_buffer = String::from_utf8_lossy(value).into();
                } else {
                    rejected += 1;
                }
            }
            b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                let ms =
                    value.iter().fold(0u64, |n, d| n.saturating_mul(10).saturating_add(u64::from(d - b'0')));
                items.push(SseItem::Retry(retry_delay(ms, limits.min_retry_ms, limits.max_retry_ms)));
            }
            _ => {}
        }
    }
    ((items), (!last_id.is_empty()).then_some(last_id), rejected)
}

/// The decoder, fed `body` in one push, agrees with the reference whenever no event overflowed
/// its limit (the reference has none).
pub(super) fn differential(body: &[u8], limits: &SseLimits) {
    let mut decoder = SseDecoder::new(limits.clone());
    decoder.push(body);
    decoder.finish();
    let items: Vec<SseItem> = std::iter::from_fn(|| decoder.next_event()).collect();
    if items.iter().any(|i| matches!(i, SseItem::Overflow { .. })) {
        return;
    }
    let got = (items, decoder.last_event_id().map(str::to_owned), decoder.rejected_ids());
    assert_eq!(got, reference(body, limits), "the decoder and the literal reference disagree");
}
