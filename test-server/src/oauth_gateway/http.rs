//! A small HTTP/1.1 codec over std sockets: requests in (head, `Content-Length` or chunked
//! body, bounded), responses out, chunked decoding for the proxy, and
//! `application/x-www-form-urlencoded` / query decoding.

use std::io::{self, BufRead, Read, Write};

/// Largest request or response head accepted, in bytes.
pub const MAX_HEAD_BYTES: usize = 64 * 1024;
/// Largest request body accepted, in bytes.
pub const MAX_BODY_BYTES: usize = 16 * 1024 * 1024;
/// Most header lines accepted in one head.
const MAX_HEADERS: usize = 128;

/// A request received.
#[derive(Debug, Clone)]
pub struct Request {
    /// `GET`, `POST`, ...
    pub method: String,
    /// The request target as sent (path and query).
    pub target: String,
    /// The headers in order, names as sent.
    pub headers: Vec<(String, String)>,
    /// The body (de-chunked).
    pub body: Vec<u8>,
    /// Whether the client asked to close the connection after the answer.
    pub close: bool,
}

impl Request {
    /// The first value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        header(&self.headers, name)
    }

    /// The path part of the target.
    pub fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or("")
    }

    /// The query part of the target (without `?`), if any.
    pub fn query(&self) -> Option<&str> {
        self.target.split_once('?').map(|(_, q)| q)
    }
}

/// The first value of header `name` in `headers` (case-insensitive).
pub fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
}

/// Why a request could not be read.
#[derive(Debug)]
pub enum ReadError {
    /// The connection ended (or failed) before a request started: nothing to answer.
    Closed,
    /// A malformed or oversized request: answer this status, then close.
    Bad(u16, &'static str),
}

impl From<io::Error> for ReadError {
    fn from(_: io::Error) -> Self {
        ReadError::Closed
    }
}

/// Reads one CRLF (or LF) terminated line of at most `budget` bytes, without the terminator.
/// `Ok(None)` at end of input before any byte.
fn read_line(reader: &mut impl BufRead, budget: &mut usize) -> Result<Option<String>, ReadError> {
    let mut line = Vec::new();
    let read = reader.take(*budget as u64 + 1).read_until(b'\n', &mut line)?;
    if read == 0 {
        return Ok(None);
    }
    if read > *budget || line.last() != Some(&b'\n') {
        return Err(ReadError::Bad(431, "request head too large or truncated"));
    }
    *budget -= read;
    line.pop();
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    String::from_utf8(line).map(Some).map_err(|_| ReadError::Bad(400, "head is not UTF-8"))
}

/// Reads a header block (after the start line) up to the empty line.
pub fn read_headers(
    reader: &mut impl BufRead,
    budget: &mut usize,
) -> Result<Vec<(String, String)>, ReadError> {
    let mut headers = Vec::new();
    loop {
        let line = read_line(reader, budget)?.ok_or(ReadError::Bad(400, "head ended early"))?;
        if line.is_empty() {
            return Ok(headers);
        }
        if headers.len() >= MAX_HEADERS {
            return Err(ReadError::Bad(431, "too many headers"));
        }
        let (name, value) = line.split_once(':').ok_or(ReadError::Bad(400, "malformed header line"))?;
        if name.is_empty() || name.bytes().any(|b| b.is_ascii_whitespace()) {
            return Err(ReadError::Bad(400, "malformed header name"));
        }
        headers.push((name.to_owned(), value.trim().to_owned()));
    }
}

/// Reads one request. Blank lines before the request line are skipped (RFC 9112 §2.2). A
/// request with `Expect: 100-continue` gets `100 Continue` on `interim` before its body is read.
pub fn read_request(reader: &mut impl BufRead, interim: &mut dyn Write) -> Result<Request, ReadError> {
    let mut budget = MAX_HEAD_BYTES;
    let start = loop {
        match read_line(reader, &mut budget)? {
            None => return Err(ReadError::Closed),
            Some(line) if line.is_empty() => continue,
            Some(line) => break line,
        }
    };
    let mut parts = start.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(ReadError::Bad(400, "malformed request line"));
    };
    if !matches!(version, "HTTP/1.1" | "HTTP/1.0") || method.is_empty() || !target.starts_with('/') {
        return Err(ReadError::Bad(400, "unsupported request line"));
    }
    let headers = read_headers(reader, &mut budget)?;
    let connection = header(&headers, "connection").unwrap_or("").to_ascii_lowercase();
    let close = connection.contains("close") || (version == "HTTP/1.0" && !connection.contains("keep-alive"));
    if header(&headers, "expect").is_some_and(|e| e.eq_ignore_ascii_case("100-continue")) {
        interim.write_all(b"HTTP/1.1 100 Continue\r\n\r\n").and_then(|()| interim.flush())?;
    }
    let chunked =
        header(&headers, "transfer-encoding").is_some_and(|te| te.to_ascii_lowercase().contains("chunked"));
    let body = if chunked {
        let mut body = Vec::new();
        let mut sink = |data: &[u8]| {
            if body.len() + data.len() > MAX_BODY_BYTES {
                return Err(io::Error::other("body too large"));
            }
            body.extend_from_slice(data);
            Ok(())
        };
        read_chunked(reader, &mut sink)
            .map_err(|_| ReadError::Bad(400, "malformed or oversized chunked body"))?;
        body
    } else {
        match header(&headers, "content-length") {
            None => Vec::new(),
            Some(len) => {
                let len: usize = len.parse().map_err(|_| ReadError::Bad(400, "invalid Content-Length"))?;
                if len > MAX_BODY_BYTES {
                    return Err(ReadError::Bad(413, "body too large"));
                }
                let mut body = vec![0; len];
                reader.read_exact(&mut body)?;
                body
            }
        }
    };
    Ok(Request { method: method.to_owned(), target: target.to_owned(), headers, body, close })
}

/// Decodes a chunked body from `reader`, handing each piece of data to `sink` as it arrives
/// (a chunk is passed on in the pieces `read` returns, so an event stream is not held back).
/// Trailers are read and dropped.
pub fn read_chunked(
    reader: &mut impl BufRead,
    sink: &mut dyn FnMut(&[u8]) -> io::Result<()>,
) -> io::Result<()> {
    let bad = |why: &str| io::Error::new(io::ErrorKind::InvalidData, why.to_owned());
    let mut buf = [0u8; 16 * 1024];
    loop {
        let mut budget = 4096;
        let line = read_line(reader, &mut budget).map_err(|_| bad("bad chunk size line"))?;
        let line = line.ok_or_else(|| bad("body ended early"))?;
        let size = line.split(';').next().unwrap_or("").trim();
        let mut left = u64::from_str_radix(size, 16).map_err(|_| bad("bad chunk size"))?;
        if left == 0 {
            let mut budget = MAX_HEAD_BYTES;
            read_headers(reader, &mut budget).map_err(|_| bad("bad trailers"))?;
            return Ok(());
        }
        while left > 0 {
            let want = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
            let n = reader.read(&mut buf[..want])?;
            if n == 0 {
                return Err(bad("body ended inside a chunk"));
            }
            sink(&buf[..n])?;
            left -= n as u64;
        }
        let mut crlf = [0u8; 2];
        reader.read_exact(&mut crlf)?;
        if &crlf != b"\r\n" {
            return Err(bad("chunk not followed by CRLF"));
        }
    }
}

/// The reason phrase of the statuses this server writes itself.
pub fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        201 => "Created",
        302 => "Found",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        413 => "Content Too Large",
        431 => "Request Header Fields Too Large",
        502 => "Bad Gateway",
        _ => "Status",
    }
}

/// A complete response this server writes itself.
#[derive(Debug, Clone)]
pub struct Response {
    /// The status code.
    pub status: u16,
    /// Headers other than `Content-Length` and `Connection`.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
}

impl Response {
    /// A JSON response (`Cache-Control: no-store`, as token answers need).
    pub fn json(status: u16, value: &serde_json::Value) -> Self {
        Self {
            status,
            headers: vec![
                ("Content-Type".into(), "application/json".into()),
                ("Cache-Control".into(), "no-store".into()),
            ],
            body: value.to_string().into_bytes(),
        }
    }

    /// An OAuth error body (RFC 6749 §5.2).
    pub fn oauth_error(status: u16, error: &str, description: &str) -> Self {
        Self::json(status, &serde_json::json!({"error": error, "error_description": description}))
    }

    /// Adds a header.
    pub fn with_header(mut self, name: &str, value: impl Into<String>) -> Self {
        self.headers.push((name.to_owned(), value.into()));
        self
    }

    /// Writes the response; `close` adds `Connection: close`.
    pub fn write_to(&self, out: &mut impl Write, close: bool) -> io::Result<()> {
        let mut head = format!("HTTP/1.1 {} {}\r\n", self.status, reason(self.status));
        for (name, value) in &self.headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str(&format!("Content-Length: {}\r\n", self.body.len()));
        if close {
            head.push_str("Connection: close\r\n");
        }
        head.push_str("\r\n");
        out.write_all(head.as_bytes())?;
        out.write_all(&self.body)?;
        out.flush()
    }
}

/// Decodes `%XX` escapes and (for form bodies and queries) `+` as a space. `None` on a bad
/// escape or invalid UTF-8.
pub fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let hex = bytes.get(i + 1..i + 3)?;
                let hex = std::str::from_utf8(hex).ok()?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 2;
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8(out).ok()
}

/// Encodes a form value or query value (everything but unreserved characters escaped).
pub fn percent_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Parses `a=1&b=2` into pairs (empty segments skipped). `None` on a bad escape.
pub fn parse_form(s: &str) -> Option<Vec<(String, String)>> {
    s.split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            Some((percent_decode(k)?, percent_decode(v)?))
        })
        .collect()
}

/// Form or query parameters with each name at most once (RFC 6749 §3.1: repeated parameters
/// are an error): `Err(name)` names the first repeated one.
#[derive(Debug, Clone, Default)]
pub struct Params(Vec<(String, String)>);

impl Params {
    /// Checks that no name repeats.
    pub fn new(pairs: Vec<(String, String)>) -> Result<Self, String> {
        for (i, (name, _)) in pairs.iter().enumerate() {
            if pairs[..i].iter().any(|(n, _)| n == name) {
                return Err(name.clone());
            }
        }
        Ok(Self(pairs))
    }

    /// The value of `name`, if present and not empty.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str()).filter(|v| !v.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(raw: &str) -> Result<Request, ReadError> {
        read_request(&mut io::BufReader::new(raw.as_bytes()), &mut io::sink())
    }

    #[test]
    fn requests_with_both_body_framings() {
        let r = read("POST /token?x=1 HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabc").unwrap();
        assert_eq!(
            (r.method.as_str(), r.path(), r.query(), r.body.as_slice()),
            ("POST", "/token", Some("x=1"), &b"abc"[..])
        );
        assert!(!r.close);
        let r = read("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n3\r\nabc\r\n2;x=y\r\nde\r\n0\r\nT: 1\r\n\r\n").unwrap();
        assert_eq!(r.body, b"abcde");
        assert!(r.close);
        assert!(matches!(read(""), Err(ReadError::Closed)));
        let mut interim = Vec::new();
        let raw = "PUT / HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\nx";
        let r = read_request(&mut io::BufReader::new(raw.as_bytes()), &mut interim).unwrap();
        assert_eq!(
            (r.body.as_slice(), interim.as_slice()),
            (&b"x"[..], &b"HTTP/1.1 100 Continue\r\n\r\n"[..])
        );
        assert!(matches!(read("GET http://x/ HTTP/1.1\r\n\r\n"), Err(ReadError::Bad(400, _))));
        assert!(matches!(read("GET / HTTP/1.1\r\nContent-Length: x\r\n\r\n"), Err(ReadError::Bad(400, _))));
        let huge = format!("GET / HTTP/1.1\r\nX: {}\r\n\r\n", "a".repeat(MAX_HEAD_BYTES));
        assert!(matches!(read(&huge), Err(ReadError::Bad(431, _))));
        let too_big = format!("POST / HTTP/1.1\r\nContent-Length: {}\r\n\r\n", MAX_BODY_BYTES + 1);
        assert!(matches!(read(&too_big), Err(ReadError::Bad(413, _))));
        assert!(matches!(
            read("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"),
            Err(ReadError::Bad(400, _))
        ));
    }

    #[test]
    fn form_decoding_and_repeats() {
        let pairs = parse_form("a=1+2&b=%2Fx%3D&&c").unwrap();
        assert_eq!(
            pairs,
            [("a".into(), "1 2".into()), ("b".into(), "/x=".into()), ("c".into(), String::new())]
        );
        assert!(parse_form("a=%zz").is_none());
        assert!(parse_form("a=%e2%82").is_none(), "invalid UTF-8");
        let params = Params::new(pairs).unwrap();
        assert_eq!((params.get("a"), params.get("c"), params.get("d")), (Some("1 2"), None, None));
        assert_eq!(Params::new(parse_form("a=1&a=2").unwrap()).unwrap_err(), "a");
        assert_eq!(
            percent_decode(&percent_encode("http://127.0.0.1:5/cb?x=y z")).unwrap(),
            "http://127.0.0.1:5/cb?x=y z"
        );
    }
}
