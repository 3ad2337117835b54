//! Making untrusted text safe to show: control characters escaped, length capped.

/// Escapes control characters (C0, DEL, C1, and the Unicode line/paragraph separators) as
/// `\u{..}` (with `\n`, `\r`, `\t` as their usual two-character escapes) and caps the result at
/// `max_chars` characters, marking a cut with `…[truncated]`.
pub fn sanitize(input: &str, max_chars: usize) -> String {
    let mut out = String::with_capacity(input.len().min(max_chars.saturating_mul(4)));
    let mut count = 0usize;
    for ch in input.chars() {
        let escaped: Option<String> = match ch {
            '\n' => Some("\\n".into()),
            '\r' => Some("\\r".into()),
            '\t' => Some("\\t".into()),
            c if c.is_control() || c == '\u{2028}' || c == '\u{2029}' => {
                Some(format!("\\u{{{:x}}}", c as u32))
            }
            _ => None,
        };
        let piece_len = escaped.as_ref().map_or(1, |s| s.chars().count());
        if count + piece_len > max_chars {
            out.push_str("…[truncated]");
            return out;
        }
        count += piece_len;
        match escaped {
            Some(s) => out.push_str(&s),
            None => out.push(ch),
        }
    }
    out
}

/// Decodes bytes as UTF-8, replacing invalid sequences, then [`sanitize`]s them.
pub fn sanitize_bytes(input: &[u8], max_chars: usize) -> String {
    sanitize(&String::from_utf8_lossy(input), max_chars)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_controls() {
        assert_eq!(sanitize("a\nb\u{1b}[31m\u{7f}\u{85}", 100), "a\\nb\\u{1b}[31m\\u{7f}\\u{85}");
    }

    #[test]
    fn caps_length() {
        assert_eq!(sanitize("abcdef", 3), "abc…[truncated]");
        assert_eq!(sanitize("abc", 3), "abc");
        assert_eq!(sanitize("ab\n", 3), "ab…[truncated]");
    }

    #[test]
    fn invalid_utf8_is_replaced() {
        assert_eq!(sanitize_bytes(b"ok\xff", 10), "ok\u{fffd}");
    }
}
