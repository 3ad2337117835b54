//! Where the first HTTP/1.1 response on a connection ends, for
//! [`Fault::ResetAfterFirstResponse`](super::Fault::ResetAfterFirstResponse): the head up to
//! its blank line, then `Content-Length` bytes of body (none for 1xx, 204 and 304). A response
//! framed otherwise (chunked, or ended by the close) is never found to end.

/// The largest response head looked at; a longer one is never found to end.
const MAX_HEAD: usize = 64 * 1024;

/// Reads a response stream's bytes until the first response ends.
#[derive(Debug, Default)]
pub struct FirstResponse {
    head: Vec<u8>,
    /// Body bytes still to come once the head is read; `None` while it is not.
    body_left: Option<u64>,
    /// The framing is not understood: never ends.
    unknown: bool,
}

impl FirstResponse {
    /// Takes the next bytes of the stream; `Some(n)` when the first response ends after the
    /// first `n` of them.
    pub fn feed(&mut self, bytes: &[u8]) -> Option<usize> {
        if self.unknown {
            return None;
        }
        let mut used = 0;
        if self.body_left.is_none() {
            for &b in bytes {
                used += 1;
                self.head.push(b);
                if self.head.ends_with(b"\r\n\r\n") {
                    match body_length(&self.head) {
                        Some(length) => self.body_left = Some(length),
                        None => {
                            self.unknown = true;
                            return None;
                        }
                    }
                    break;
                }
                if self.head.len() > MAX_HEAD {
                    self.unknown = true;
                    return None;
                }
            }
        }
        let left = self.body_left.as_mut()?;
        let rest = (bytes.len() - used) as u64;
        if rest >= *left {
            let end = used + *left as usize;
            *left = 0;
            self.unknown = true; // ended: nothing more to find
            Some(end)
        } else {
            *left -= rest;
            None
        }
    }
}

/// The body length a response head announces; `None` when it is not framed by length.
fn body_length(head: &[u8]) -> Option<u64> {
    let text = std::str::from_utf8(head).ok()?;
    let mut lines = text.split("\r\n");
    let status: u16 = lines.next()?.split_whitespace().nth(1)?.parse().ok()?;
    if (100..200).contains(&status) || status == 204 || status == 304 {
        // A 1xx is followed by the real response: not handled (never sent to this client).
        return (status >= 200).then_some(0);
    }
    lines.find_map(|line| {
        let (name, value) = line.split_once(':')?;
        name.trim().eq_ignore_ascii_case("content-length").then(|| value.trim().parse().ok())?
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_end_across_reads() {
        let wire = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhelloHTTP/1.1 200 OK\r\n";
        let mut whole = FirstResponse::default();
        assert_eq!(whole.feed(wire), Some(43));
        assert_eq!(whole.feed(b"more"), None, "only the first response is found");
        let mut bytewise = FirstResponse::default();
        let ends: Vec<usize> = (0..wire.len()).filter(|&i| bytewise.feed(&wire[i..=i]).is_some()).collect();
        assert_eq!(ends, vec![42]);
    }

    #[test]
    fn bodiless_and_unframed_responses() {
        assert_eq!(FirstResponse::default().feed(b"HTTP/1.1 204 No Content\r\n\r\nx"), Some(27));
        assert_eq!(
            FirstResponse::default().feed(b"HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n\r\n"),
            Some(44)
        );
        let chunked = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n";
        assert_eq!(FirstResponse::default().feed(chunked), None);
        assert_eq!(FirstResponse::default().feed(b"garbage\r\n\r\n"), None);
    }
}
