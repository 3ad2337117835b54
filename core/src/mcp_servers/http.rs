//! HTTP targets and `mcpServers` entries with a `"url"`.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::{invalid, safe_prefix, string_map, DetectedTarget, EntryTransport};
use crate::http_url::HttpUrl;
use crate::target::TargetConfigError;
use crate::transport::{TransportKind, AUTO_KINDS};

/// An `http(s)://` target: its normalised URL and the transports to try (`forced`, else what
/// its shape suggests).
pub(super) fn detect_url(
    target: &str,
    forced: Option<TransportKind>,
) -> Result<DetectedTarget, TargetConfigError> {
    let url = HttpUrl::parse(target)?;
    let kinds = forced.map_or_else(|| url.default_kinds(), |k| vec![k]);
    Ok(DetectedTarget::Http { url: url.as_str().to_owned(), kinds })
}

/// The transports to try for an entry's URL when its `"type"` names none.
pub(super) fn url_kinds(url: &str) -> Vec<TransportKind> {
    HttpUrl::parse(url).map_or(AUTO_KINDS.to_vec(), |u| u.default_kinds())
}

/// An entry with a `"url"` (and maybe `"type"` and `"headers"`).
pub(super) fn entry(
    name: &str,
    obj: &Map<String, Value>,
    kind: Option<TransportKind>,
    url: &Value,
) -> Result<EntryTransport, TargetConfigError> {
    let url = url.as_str().ok_or_else(|| invalid(name, "url", "must be a string"))?;
    let url = HttpUrl::parse(url.trim()).map_err(|e| match e {
        TargetConfigError::InvalidUrl { detail } => invalid(name, "url", format!("is not usable: {detail}")),
        other => other,
    })?;
    let headers = parse_headers(name, obj)?;
    Ok(EntryTransport::Http { url: url.as_str().to_owned(), kind, headers })
}

fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

/// Connection and framing headers a configuration must not set.
const MANAGED_HEADERS: [&str; 8] =
    ["host", "content-length", "transfer-encoding", "connection", "upgrade", "te", "trailer", "keep-alive"];

fn parse_headers(name: &str, obj: &Map<String, Value>) -> Result<Vec<(String, String)>, TargetConfigError> {
    let headers = string_map(name, "headers", obj)?;
    let mut seen = BTreeSet::new();
    for (header, value) in &headers {
        if header.is_empty() || !header.chars().all(is_tchar) {
            let shown = safe_prefix(header, |c| !is_tchar(c));
            return Err(invalid(
                name,
                "headers",
                format!("has an invalid name {shown:?} (must be an HTTP token)"),
            ));
        }
        if value.chars().any(|c| c.is_control() && c != '\t') {
            return Err(invalid(
                name,
                "headers",
                format!("value of {header:?} contains CR, LF, NUL or a control"),
            ));
        }
        let lower = header.to_ascii_lowercase();
        if MANAGED_HEADERS.contains(&lower.as_str()) {
            return Err(invalid(name, "headers", format!("sets {header:?}, which the HTTP client manages")));
        }
        if !seen.insert(lower) {
            return Err(invalid(name, "headers", format!("repeat {header:?} (header names ignore case)")));
        }
    }
    Ok(headers)
}
