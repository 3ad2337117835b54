//! Fuzz target bodies (feature `_fuzz`). `cargo fuzz` runs them from `fuzz/`, and
//! `core/tests/fuzz_corpus.rs` replays the committed corpora in `fuzz/corpus/<target>/` on every
//! `cargo test`. Each body panics only when an invariant breaks.
//! The bodies of the `headers` and `gzip` targets live next to their code
//! (`headers::fuzz_headers`, `gzip::fuzz_bounded`); the `sse` body combines
//! `sse::fuzz_chunking` with a differential check against a literal reference decoder.

mod client_ops;
mod http_url;
mod oauth;
mod sse_reference;

use std::time::{Duration, Instant};

pub use client_ops::{
    client_ops_http, client_ops_http_auth, client_ops_http_auth_log, client_ops_log, client_ops_stdio,
};
pub use http_url::http_url;
pub use oauth::oauth_flow;

use crate::framing::{Frame, LineFramer};
use crate::jsonrpc::{self, Message};
use crate::schema::elicitation::{self, FormSchema};
use crate::schema::{CompiledSchema, SchemaOptions, ValidationFailure};

/// Newline framing: output does not depend on chunking; no frame exceeds the limit.
pub fn framing(data: &[u8]) {
    let (limit, split, body) = match data {
        [a, b, rest @ ..] => (usize::from(*a % 64) + 1, usize::from(*b), rest),
        _ => return,
    };
    let run = |chunk: usize| {
        let mut f = LineFramer::new(limit);
        for c in body.chunks(chunk.max(1)) {
            f.push(c);
            assert!(f.buffered() <= limit + 2, "framer holds more than the limit");
        }
        f.finish();
        std::iter::from_fn(|| f.next_frame()).collect::<Vec<_>>()
    };
    let whole = run(body.len().max(1));
    for frame in &whole {
        if let Frame::Line(l) = frame {
            assert!(l.len() <= limit && !l.contains(&b'\n'));
        }
    }
    assert_eq!(whole, run(split % 7 + 1), "chunking changed the frames");
}

/// JSON-RPC decoding is total, and a decoded message re-encodes to one line that decodes to
/// the same message.
pub fn jsonrpc(data: &[u8]) {
    for msg in jsonrpc::decode(data).into_iter().flatten() {
        let line = match &msg {
            Message::Request { id, method, params } => jsonrpc::encode_request(id, method, Some(params)),
            Message::Notification { method, params } => jsonrpc::encode_notification(method, Some(params)),
            Message::Result { id, result } => jsonrpc::encode_result(id, &result.to_value()),
            Message::Error { id: Some(id), error } => {
                jsonrpc::encode_error(id, error.code, &error.message, error.data.as_ref())
            }
            Message::Error { id: None, .. } => continue,
        };
        assert_eq!(line.iter().filter(|&&b| b == b'\n').count(), 1, "encoded message spans lines");
        let again = jsonrpc::decode(&line[..line.len() - 1]);
        assert_eq!(again.len(), 1);
        let again = again.into_iter().next().and_then(Result::ok).expect("re-decodes");
        let normalize = |m: Message| match m {
            Message::Request { id, method, params } if params.is_null() => {
                Message::Request { id, method, params: serde_json::Value::Null }
            }
            other => other,
        };
        assert_eq!(normalize(again), normalize(msg));
    }
}

/// A whole connection fed arbitrary server output never panics, and every request still ends.
/// `t0` is the base of the fake clock (the caller reads a real clock once; the core never does).
pub fn stdio_connection(t0: Instant, data: &[u8]) {
    use crate::{Connection, ConnectionConfig, Event, Io, Request, RequestOptions, StdioCommand};
    let mut cfg = ConnectionConfig::stdio(StdioCommand::new("fuzz"));
    cfg.limits.max_message_bytes = 4096;
    let mut conn = Connection::new(cfg, t0);
    let handle = conn.request(t0, Request::ListTools, RequestOptions::default()).expect("request");
    let mut epoch = None;
    while let Some(io) = conn.poll_io() {
        if let Io::Spawn { epoch: e, .. } = io {
            epoch = Some(e);
        }
    }
    let epoch = epoch.expect("spawn requested");
    conn.handle_process_started(t0, epoch);
    let mut outcomes = 0;
    let mut now = t0;
    for chunk in data.chunks(97) {
        conn.handle_stdout(now, epoch, chunk);
        now += Duration::from_millis(10);
        conn.handle_timeout(now);
        while conn.poll_io().is_some() {}
        while let Some(ev) = conn.poll_event() {
            if matches!(ev, Event::Response { handle: h, .. } if h == handle) {
                outcomes += 1;
            }
        }
    }
    // Time heals everything: the request times out if nothing answered it.
    for _ in 0..4 {
        now += Duration::from_secs(120);
        conn.handle_timeout(now);
        if let Some(next) = conn.poll_timeout() {
            assert!(next > now, "a due timer survived handle_timeout");
        }
        while conn.poll_io().is_some() {}
        while let Some(ev) = conn.poll_event() {
            if matches!(ev, Event::Response { handle: h, .. } if h == handle) {
                outcomes += 1;
            }
        }
    }
    assert_eq!(outcomes, 1, "a request must end exactly once");
}

/// JSON Schema validation: the input is a schema and an instance, split at the first NUL byte
/// (or newline). Compiling under either option set never panics and succeeds or fails the same
/// way twice (the same problem); compiled schemas judge the instance the same way every time, and a failure keeps
/// 1..=`max_violations` violations of its `total`. The schema, read as elicitation params and as
/// a `requestedSchema`, and the instance as an answer, go through the form checks too.
pub fn schema_validate(data: &[u8]) {
    let Some(at) = data.iter().position(|&b| b == 0).or_else(|| data.iter().position(|&b| b == b'\n')) else {
        return;
    };
    let (Ok(schema), Ok(instance)) = (
        serde_json::from_slice::<serde_json::Value>(&data[..at]),
        serde_json::from_slice::<serde_json::Value>(&data[at + 1..]),
    ) else {
        return;
    };
    for options in [SchemaOptions::default(), SchemaOptions::asserting_format()] {
        let (compiled, again) =
            (CompiledSchema::compile(&schema, &options), CompiledSchema::compile(&schema, &options));
        assert_eq!(compiled.as_ref().err(), again.as_ref().err(), "compiling is not deterministic");
        let (Ok(compiled), Ok(again)) = (compiled, again) else { continue };
        let first = compiled.validate(&instance);
        assert_eq!(first, compiled.validate(&instance), "validation is not deterministic");
        assert_eq!(first, again.validate(&instance), "two compilations judge the instance differently");
        if let Err(ValidationFailure::Invalid { violations, total }) = &first {
            assert!(
                (1..=options.limits.max_violations).contains(&violations.len()),
                "{} violations kept (limit {})",
                violations.len(),
                options.limits.max_violations
            );
            assert!(*total >= violations.len(), "total {total} < {} kept", violations.len());
        }
    }
    let wrapped = serde_json::json!({"mode": "form", "requestedSchema": schema});
    for params in [&schema, &wrapped] {
        if let Ok(Some(form)) = elicitation::form_of(params) {
            check_form(&form, &instance);
        }
    }
}

fn check_form(form: &FormSchema, instance: &serde_json::Value) {
    let first = form.check_content(instance);
    assert_eq!(first, form.check_content(instance), "form check is not deterministic");
    let _ = form.check_result(instance);
}

/// SSE decoding: the output does not depend on chunking (`sse::fuzz_chunking`), and a
/// one-push decode agrees with a slow literal reading of the WHATWG algorithm whenever no event
/// overflowed (checked with tight and with default limits).
pub fn sse(data: &[u8]) {
    crate::sse::fuzz_chunking(data);
    let Some((&seed, body)) = data.split_first() else { return };
    let tight = crate::sse::SseLimits {
        max_event_bytes: usize::from(seed >> 3) * 4,
        max_event_id_bytes: 8,
        ..crate::sse::SseLimits::default()
    };
    sse_reference::differential(body, &tight);
    sse_reference::differential(body, &crate::sse::SseLimits::default());
}
