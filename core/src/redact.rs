//! Redaction of credentials for display: header values, URLs, command arguments. Pure string
//! functions; the types that print redacted ([`crate::StdioCommand`], [`crate::HttpConfig`],
//! [`crate::mcp_servers::ServerEntry`], ...) call them.

pub(crate) const MASK: &str = "***";
const SENSITIVE_NAMES: [&str; 8] =
    ["authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "api-key", "sig", "pwd"];
const SENSITIVE_PARTS: [&str; 8] =
    ["token", "secret", "key", "auth", "pass", "credential", "signature", "session"];

/// Whether a header, query parameter, environment variable or flag name suggests a credential
/// (case-insensitive): `authorization`, `cookie`, `x-api-key`, … or any name containing
/// `token`, `secret`, `key`, `auth`, `pass` (`password`), `credential`, `signature`, `session`.
pub fn is_sensitive_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    SENSITIVE_NAMES.contains(&lower.as_str()) || SENSITIVE_PARTS.iter().any(|p| lower.contains(p))
}

/// `Bearer …`, `Basic …`, `Token …`, or a long opaque word (32+ letters, digits, `-`, `_`,
/// mixing letters and digits: an API key, a secret path segment).
fn looks_like_secret(s: &str) -> bool {
    let head = s.trim_start().get(..7).unwrap_or("").to_ascii_lowercase();
    ["bearer ", "basic ", "token "].iter().any(|p| head.starts_with(p))
        || (s.len() >= 32
            && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
            && s.chars().any(|c| c.is_ascii_digit())
            && s.chars().any(|c| c.is_ascii_alphabetic()))
}

/// A header value for display: `***` when the name or the value suggests a credential.
pub fn redact_header_value<'a>(name: &str, value: &'a str) -> &'a str {
    if is_sensitive_name(name) || looks_like_secret(value) {
        MASK
    } else {
        value
    }
}

/// A URL (valid or not) for display: `user:password@`, credential query and fragment parameters
/// (`?token=`, `?api_key=`, `?key=`, …) and secret-looking path segments become `***`.
pub fn redact_url(url: &str) -> String {
    let (main, fragment) = url.split_once('#').map_or((url, None), |(m, f)| (m, Some(f)));
    let (main, query) = main.split_once('?').map_or((main, None), |(m, q)| (m, Some(q)));
    let mut out = String::with_capacity(url.len());
    let mut path = main;
    if let Some(i) = main.find("://") {
        let after = &main[i + 3..];
        let (authority, rest) = after.split_at(after.find('/').unwrap_or(after.len()));
        out.push_str(&main[..i + 3]);
        out.push_str(
            &authority.rfind('@').map_or(authority.to_owned(), |at| format!("***@{}", &authority[at + 1..])),
        );
        path = rest;
    }
    let segments: Vec<&str> = path.split('/').map(|s| if looks_like_secret(s) { MASK } else { s }).collect();
    out.push_str(&segments.join("/"));
    for (sep, part) in [('?', query), ('#', fragment)] {
        if let Some(part) = part {
            let params: Vec<String> = part
                .split('&')
                .map(|p| match p.split_once('=') {
                    Some((n, v)) if is_sensitive_name(n) || looks_like_secret(v) => format!("{n}={MASK}"),
                    None if looks_like_secret(p) => MASK.to_owned(),
                    _ => p.to_owned(),
                })
                .collect();
            out.push(sep);
            out.push_str(&params.join("&"));
        }
    }
    out
}

/// Command arguments for display: the values of `--token=…`, `--api-key …` (the next
/// argument), `API_KEY=…`, `Authorization: …` and `Bearer …` become `***`, and URLs are
/// redacted as by [`redact_url`].
pub fn redact_args(args: &[String]) -> Vec<String> {
    let mut redact_next = false;
    args.iter()
        .map(|arg| {
            if std::mem::take(&mut redact_next) {
                MASK.to_owned()
            } else {
                redact_arg(arg, &mut redact_next)
            }
        })
        .collect()
}

fn is_word(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

fn redact_arg(arg: &str, redact_next: &mut bool) -> String {
    if let Some((name, value)) = arg.split_once('=') {
        let bare = name.trim_start_matches('-');
        if is_word(bare) {
            let value = if is_sensitive_name(bare) { MASK.to_owned() } else { redact_value(value) };
            return format!("{name}={value}");
        }
    }
    let flag = arg.trim_start_matches('-');
    if flag.len() < arg.len() && is_word(flag) {
        *redact_next = is_sensitive_name(flag);
        return arg.to_owned();
    }
    redact_value(arg)
}

/// A free-standing value: a URL, a `Name: value` header, or an opaque secret.
fn redact_value(value: &str) -> String {
    if value.contains("://") {
        return redact_url(value);
    }
    match value.split_once(':') {
        Some((name, _)) if is_word(name) && is_sensitive_name(name) => format!("{name}: {MASK}"),
        _ if looks_like_secret(value) => MASK.to_owned(),
        _ => value.to_owned(),
    }
}
