//! The four string formats a form field may declare, checked by hand: `date` and `date-time`
//! (RFC 3339), `email` (an RFC 5321 mailbox, ASCII) and `uri` (an absolute RFC 3986 URI).

// Address literals only (`core::net`: value types and their parsers, no sockets).
use core::net::{Ipv4Addr, Ipv6Addr};

/// RFC 3339 `full-date`: `YYYY-MM-DD`, a day that exists.
pub(super) fn is_date(text: &str) -> bool {
    date(text.as_bytes())
}

/// RFC 3339 `date-time`: a `full-date`, `T` (or `t`), a `full-time` with its offset.
pub(super) fn is_date_time(text: &str) -> bool {
    let b = text.as_bytes();
    b.len() > 11 && matches!(b[10], b'T' | b't') && date(&b[..10]) && time(&b[11..])
}

/// An RFC 5321 `Mailbox`: a dot-string or quoted local part of at most 64 octets, `@`, then a
/// host name or an address literal (`[192.0.2.1]`, `[IPv6:2001:db8::1]`).
pub(super) fn is_email(text: &str) -> bool {
    let b = text.as_bytes();
    let local_end = if b.first() == Some(&b'"') {
        match quoted_end(b) {
            Some(end) => end,
            None => return false,
        }
    } else {
        match b.iter().position(|&c| c == b'@') {
            Some(at) if dot_string(&b[..at]) => at,
            _ => return false,
        }
    };
    if local_end > 64 || b.get(local_end) != Some(&b'@') {
        return false;
    }
    let domain = &text[local_end + 1..];
    match domain.strip_prefix('[').and_then(|d| d.strip_suffix(']')) {
        Some(literal) => match literal.get(..5) {
            Some(tag) if tag.eq_ignore_ascii_case("IPv6:") => literal[5..].parse::<Ipv6Addr>().is_ok(),
            _ => literal.parse::<Ipv4Addr>().is_ok(),
        },
        None => host_name(domain.as_bytes()),
    }
}

/// An RFC 3986 `URI`: `scheme ":" hier-part [ "?" query ] [ "#" fragment ]`, ASCII only, with
/// sound percent-encodings, and a well-formed authority when there is one.
pub(super) fn is_uri(text: &str) -> bool {
    let b = text.as_bytes();
    let Some(colon) = b.iter().position(|&c| c == b':') else { return false };
    let scheme = &b[..colon];
    let scheme_ok = scheme.first().is_some_and(u8::is_ascii_alphabetic)
        && scheme.iter().all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.'));
    if !scheme_ok {
        return false;
    }
    let mut rest = &b[colon + 1..];
    if let Some(after) = rest.strip_prefix(b"//") {
        let end = after.iter().position(|&c| matches!(c, b'/' | b'?' | b'#')).unwrap_or(after.len());
        if !authority(&after[..end]) {
            return false;
        }
        rest = &after[end..];
    }
    let (before_fragment, fragment) = match rest.iter().position(|&c| c == b'#') {
        Some(at) => (&rest[..at], Some(&rest[at + 1..])),
        None => (rest, None),
    };
    let (path, query) = match before_fragment.iter().position(|&c| c == b'?') {
        Some(at) => (&before_fragment[..at], Some(&before_fragment[at + 1..])),
        None => (before_fragment, None),
    };
    let pchars = |s: &[u8], extra: &[u8]| all_of(s, |c| is_pchar(c) || extra.contains(&c));
    pchars(path, b"/") && query.is_none_or(|q| pchars(q, b"/?")) && fragment.is_none_or(|f| pchars(f, b"/?"))
}

fn two_digits(b: &[u8]) -> Option<u32> {
    match b {
        [d1 @ b'0'..=b'9', d2 @ b'0'..=b'9'] => Some(u32::from(d1 - b'0') * 10 + u32::from(d2 - b'0')),
        _ => None,
    }
}

fn date(b: &[u8]) -> bool {
    let &[y1, y2, y3, y4, b'-', m1, m2, b'-', d1, d2] = b else { return false };
    let (Some(century), Some(year), Some(month), Some(day)) =
        (two_digits(&[y1, y2]), two_digits(&[y3, y4]), two_digits(&[m1, m2]), two_digits(&[d1, d2]))
    else {
        return false;
    };
    let year = century * 100 + year;
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
}

/// `HH:MM:SS[.fraction]` then `Z` or `±HH:MM`; second 60 only at 23:59 UTC (a leap second).
fn time(b: &[u8]) -> bool {
    if b.len() < 9 || b[2] != b':' || b[5] != b':' {
        return false;
    }
    let (Some(hour), Some(minute), Some(second)) =
        (two_digits(&b[..2]), two_digits(&b[3..5]), two_digits(&b[6..8]))
    else {
        return false;
    };
    if hour > 23 || minute > 59 || second > 60 {
        return false;
    }
    let mut rest = &b[8..];
    if let Some(fraction) = rest.strip_prefix(b".") {
        let digits = fraction.iter().take_while(|c| c.is_ascii_digit()).count();
        if digits == 0 {
            return false;
        }
        rest = &fraction[digits..];
    }
    // Minutes east of UTC.
    let offset = match rest {
        [b'Z' | b'z'] => 0,
        [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] => {
            let (Some(h), Some(m)) = (two_digits(&[*h1, *h2]), two_digits(&[*m1, *m2])) else { return false };
            if h > 23 || m > 59 {
                return false;
            }
            let minutes = i64::from(h * 60 + m);
            if *sign == b'+' {
                minutes
            } else {
                -minutes
            }
        }
        _ => return false,
    };
    let utc = (i64::from(hour * 60 + minute) - offset).rem_euclid(24 * 60);
    second < 60 || utc == 23 * 60 + 59
}

fn is_atext(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"!#$%&'*+-/=?^_`{|}~".contains(&c)
}

/// `Atom *("." Atom)`.
fn dot_string(b: &[u8]) -> bool {
    b.split(|&c| c == b'.').all(|atom| !atom.is_empty() && atom.iter().all(|&c| is_atext(c)))
}

/// The index just past the closing quote of a `Quoted-string` at the start of `b`.
fn quoted_end(b: &[u8]) -> Option<usize> {
    let mut i = 1;
    while let Some(&c) = b.get(i) {
        match c {
            b'"' => return Some(i + 1),
            b'\\' => match b.get(i + 1) {
                Some(32..=126) => i += 2,
                _ => return None,
            },
            32 | 33 | 35..=91 | 93..=126 => i += 1,
            _ => return None,
        }
    }
    None
}

/// Labels of 1 to 63 letters, digits and inner hyphens; 253 octets at most.
fn host_name(b: &[u8]) -> bool {
    b.len() <= 253
        && b.split(|&c| c == b'.').all(|label| {
            (1..=63).contains(&label.len())
                && label.iter().all(|&c| c.is_ascii_alphanumeric() || c == b'-')
                && label[0] != b'-'
                && label[label.len() - 1] != b'-'
        })
}

fn is_unreserved_or_sub_delim(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=".contains(&c)
}

fn is_pchar(c: u8) -> bool {
    is_unreserved_or_sub_delim(c) || c == b':' || c == b'@'
}

/// Every byte satisfies `allowed`, `%` aside, which must start a `%XX` escape.
fn all_of(b: &[u8], allowed: impl Fn(u8) -> bool) -> bool {
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        if c == b'%' {
            if !b.get(i + 1..i + 3).is_some_and(|hex| hex.iter().all(u8::is_ascii_hexdigit)) {
                return false;
            }
            i += 3;
        } else if allowed(c) {
            i += 1;
        } else {
            return false;
        }
    }
    true
}

/// `[ userinfo "@" ] host [ ":" port ]`.
fn authority(b: &[u8]) -> bool {
    let (userinfo, host_port) = match b.iter().position(|&c| c == b'@') {
        Some(at) => (&b[..at], &b[at + 1..]),
        None => (&b[..0], b),
    };
    if !all_of(userinfo, |c| is_unreserved_or_sub_delim(c) || c == b':') {
        return false;
    }
    let (host_ok, port) = if let Some(literal) = host_port.strip_prefix(b"[") {
        let Some(close) = literal.iter().position(|&c| c == b']') else { return false };
        (ip_literal(&literal[..close]), &literal[close + 1..])
    } else {
        let end = host_port.iter().position(|&c| c == b':').unwrap_or(host_port.len());
        (all_of(&host_port[..end], is_unreserved_or_sub_delim), &host_port[end..])
    };
    host_ok
        && match port {
            [] => true,
            [b':', digits @ ..] => digits.iter().all(u8::is_ascii_digit),
            _ => false,
        }
}

/// `IPv6address / IPvFuture` (the inside of `[...]`).
fn ip_literal(b: &[u8]) -> bool {
    if let Some(future) = b.strip_prefix(b"v").or_else(|| b.strip_prefix(b"V")) {
        let Some(dot) = future.iter().position(|&c| c == b'.') else { return false };
        let (version, address) = (&future[..dot], &future[dot + 1..]);
        return !version.is_empty()
            && version.iter().all(u8::is_ascii_hexdigit)
            && !address.is_empty()
            && address.iter().all(|&c| is_unreserved_or_sub_delim(c) || c == b':');
    }
    std::str::from_utf8(b).is_ok_and(|s| s.parse::<Ipv6Addr>().is_ok())
}
