//! The protected resource's reverse proxy: a request with a valid token goes to the upstream
//! MCP server verbatim (method, body, the end-to-end headers but `Authorization`), and the
//! answer comes back as it arrives: a sized body keeps the client's connection alive; a
//! chunked or close-delimited one (an event stream) is passed on chunk by chunk, unbuffered,
//! and the connection closes after it. When the client goes away mid-stream, the upstream
//! connection is shut down so the upstream server sees the stream end.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpStream, ToSocketAddrs};
use std::time::Duration;

use crate::oauth_gateway::http::{header, read_chunked, read_headers, Request, Response, MAX_HEAD_BYTES};
use crate::oauth_gateway::urls::Url;

/// How long connecting to the upstream server may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long the upstream server may take to start its answer.
const HEAD_TIMEOUT: Duration = Duration::from_secs(300);

/// Headers that describe one connection, not the message (RFC 9110 §7.6.1), plus the ones the
/// proxy sets itself.
fn hop_by_hop(name: &str) -> bool {
    const NAMES: [&str; 11] = [
        "connection",
        "expect",
        "keep-alive",
        "proxy-connection",
        "proxy-authorization",
        "proxy-authenticate",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "content-length",
    ];
    NAMES.iter().any(|n| n.eq_ignore_ascii_case(name))
}

/// How the proxy's answer to the client ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// A sized answer: the client connection may serve another request.
    KeepAlive,
    /// The connection is done (a streamed answer, or a failure after the head went out).
    Close,
}

/// The upstream request target for a client target under `/mcp` (the rest of the path and the
/// query carried over).
fn upstream_target(upstream: &Url, client_target: &str) -> String {
    let rest = client_target.strip_prefix("/mcp").unwrap_or("");
    let (base_path, base_query) = match upstream.target.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (upstream.target.as_str(), None),
    };
    let (rest_path, rest_query) = match rest.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (rest, None),
    };
    let mut target = if rest_path.is_empty() {
        base_path.to_owned()
    } else {
        format!("{}{rest_path}", base_path.trim_end_matches('/'))
    };
    if target.is_empty() {
        target.push('/');
    }
    let query: Vec<&str> = [base_query, rest_query].into_iter().flatten().filter(|q| !q.is_empty()).collect();
    if !query.is_empty() {
        target.push('?');
        target.push_str(&query.join("&"));
    }
    target
}

/// Sends `req` to `upstream` and its answer to `client`.
pub fn forward(upstream: &Url, req: &Request, client: &mut TcpStream) -> io::Result<Outcome> {
    let mut conn = match connect(upstream) {
        Ok(conn) => conn,
        Err(e) => {
            let answer = Response::oauth_error(502, "bad_gateway", &format!("upstream unreachable: {e}"));
            answer.write_to(client, false)?;
            return Ok(Outcome::KeepAlive);
        }
    };
    let mut head = format!(
        "{} {} HTTP/1.1\r\nHost: {}\r\n",
        req.method,
        upstream_target(upstream, &req.target),
        upstream.host_header()
    );
    for (name, value) in &req.headers {
        if !hop_by_hop(name)
            && !name.eq_ignore_ascii_case("host")
            && !name.eq_ignore_ascii_case("authorization")
        {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
    }
    if !req.body.is_empty() || !matches!(req.method.as_str(), "GET" | "HEAD" | "DELETE" | "OPTIONS") {
        head.push_str(&format!("Content-Length: {}\r\n", req.body.len()));
    }
    head.push_str("Connection: close\r\n\r\n");
    // A silent upstream fails the exchange (502) rather than holding the thread for ever; the
    // body of an answer may then idle as long as it likes (an event stream).
    conn.set_read_timeout(Some(HEAD_TIMEOUT))?;
    let sent =
        conn.write_all(head.as_bytes()).and_then(|()| conn.write_all(&req.body)).and_then(|()| conn.flush());
    let mut reader = BufReader::new(conn.try_clone()?);
    let answer = sent.and_then(|()| read_head(&mut reader));
    let (status, reason, headers) = match answer {
        Ok(head) => head,
        Err(e) => {
            let answer = Response::oauth_error(502, "bad_gateway", &format!("upstream failed: {e}"));
            answer.write_to(client, false)?;
            return Ok(Outcome::KeepAlive);
        }
    };
    conn.set_read_timeout(None)?;
    let mut out = format!("HTTP/1.1 {status} {reason}\r\n");
    for (name, value) in headers.iter().filter(|(n, _)| !hop_by_hop(n)) {
        out.push_str(&format!("{name}: {value}\r\n"));
    }
    let bodiless = req.method == "HEAD" || status == 204 || status == 304;
    let chunked =
        header(&headers, "transfer-encoding").is_some_and(|te| te.to_ascii_lowercase().contains("chunked"));
    let length = header(&headers, "content-length").and_then(|l| l.parse::<u64>().ok());
    if bodiless {
        let declared = if req.method == "HEAD" { length.unwrap_or(0) } else { 0 };
        out.push_str(&format!("Content-Length: {declared}\r\n\r\n"));
        client.write_all(out.as_bytes())?;
        return Ok(Outcome::KeepAlive);
    }
    if let (false, Some(length)) = (chunked, length) {
        out.push_str(&format!("Content-Length: {length}\r\n\r\n"));
        client.write_all(out.as_bytes())?;
        let copied = io::copy(&mut (&mut reader).take(length), client)?;
        client.flush()?;
        return Ok(if copied == length { Outcome::KeepAlive } else { Outcome::Close });
    }
    // A stream: re-chunked as it arrives, then the connection closes.
    out.push_str("Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n");
    client.write_all(out.as_bytes())?;
    client.flush()?;
    watch_client(client, &conn);
    let mut to_client = client.try_clone()?;
    let mut sink = |data: &[u8]| -> io::Result<()> {
        to_client.write_all(format!("{:x}\r\n", data.len()).as_bytes())?;
        to_client.write_all(data)?;
        to_client.write_all(b"\r\n")?;
        to_client.flush()
    };
    let streamed =
        if chunked { read_chunked(&mut reader, &mut sink) } else { copy_until_eof(&mut reader, &mut sink) };
    if streamed.is_ok() {
        let _ = to_client.write_all(b"0\r\n\r\n").and_then(|()| to_client.flush());
    }
    let _ = conn.shutdown(Shutdown::Both);
    Ok(Outcome::Close)
}

fn copy_until_eof(reader: &mut impl Read, sink: &mut dyn FnMut(&[u8]) -> io::Result<()>) -> io::Result<()> {
    let mut buf = [0u8; 16 * 1024];
    loop {
        match reader.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => sink(&buf[..n])?,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// While a stream is passed on, a thread waits for the client to hang up (its reads end) and
/// then shuts the upstream connection down, which ends the copy.
fn watch_client(client: &TcpStream, upstream: &TcpStream) {
    let (Ok(mut client), Ok(upstream)) = (client.try_clone(), upstream.try_clone()) else { return };
    std::thread::spawn(move || {
        let mut buf = [0u8; 1024];
        loop {
            match client.read(&mut buf) {
                Ok(0) => break,
                Ok(_) => {}
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut | io::ErrorKind::Interrupted
                    ) => {}
                Err(_) => break,
            }
        }
        let _ = upstream.shutdown(Shutdown::Both);
    });
}

fn connect(upstream: &Url) -> io::Result<TcpStream> {
    let mut last = io::Error::new(io::ErrorKind::NotFound, "no address");
    for addr in upstream.authority().to_socket_addrs()? {
        match TcpStream::connect_timeout(&addr, CONNECT_TIMEOUT) {
            Ok(conn) => {
                let _ = conn.set_nodelay(true);
                return Ok(conn);
            }
            Err(e) => last = e,
        }
    }
    Err(last)
}

/// A response head: status, reason phrase, headers.
type Head = (u16, String, Vec<(String, String)>);

/// Reads a response head, skipping `1xx` interim answers.
fn read_head(reader: &mut impl BufRead) -> io::Result<Head> {
    let bad = |why: &str| io::Error::new(io::ErrorKind::InvalidData, why.to_owned());
    loop {
        let mut line = String::new();
        reader.by_ref().take(MAX_HEAD_BYTES as u64).read_line(&mut line)?;
        let line = line.trim_end();
        let mut parts = line.splitn(3, ' ');
        let (Some(version), Some(status)) = (parts.next(), parts.next()) else {
            return Err(bad("malformed status line"));
        };
        let status: u16 = status.parse().map_err(|_| bad("malformed status code"))?;
        if !version.starts_with("HTTP/1.") {
            return Err(bad("not HTTP/1.x"));
        }
        let reason = parts.next().unwrap_or("").to_owned();
        let mut budget = MAX_HEAD_BYTES;
        let headers = read_headers(reader, &mut budget).map_err(|_| bad("malformed headers"))?;
        if (100..200).contains(&status) {
            continue;
        }
        return Ok((status, reason, headers));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_map_under_the_upstream_path() {
        let up = Url::parse("http://127.0.0.1:9/mcp").unwrap();
        assert_eq!(upstream_target(&up, "/mcp"), "/mcp");
        assert_eq!(upstream_target(&up, "/mcp?session=1"), "/mcp?session=1");
        assert_eq!(upstream_target(&up, "/mcp/messages?x=1"), "/mcp/messages?x=1");
        let root = Url::parse("http://127.0.0.1:9").unwrap();
        assert_eq!(upstream_target(&root, "/mcp"), "/");
        assert_eq!(upstream_target(&root, "/mcp/a"), "/a");
        let with_query = Url::parse("http://127.0.0.1:9/x?k=v").unwrap();
        assert_eq!(upstream_target(&with_query, "/mcp?y=2"), "/x?k=v&y=2");
        assert!(hop_by_hop("Transfer-Encoding") && hop_by_hop("connection") && !hop_by_hop("Mcp-Session-Id"));
    }
}
