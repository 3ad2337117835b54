//! `mcp-test-server browse URL`: a scripted browser for OAuth sign-ins in tests (set as
//! `$BROWSER` for `mcp login`). It GETs the authorization URL over plain HTTP and, when the
//! gateway answers with a redirect, GETs the redirect (the client's loopback listener), as a
//! browser would after an automatic approval. Exit code 0 when the redirect was delivered.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::ExitCode;
use std::time::Duration;

use crate::oauth_gateway::urls::Url;

/// The subcommand's name.
pub const SUBCOMMAND: &str = "browse";
/// Largest answer read, in bytes.
const MAX_ANSWER: u64 = 256 * 1024;

/// Runs `browse URL`.
pub fn run<I: Iterator<Item = String>>(mut args: I) -> ExitCode {
    let Some(url) = args.next() else {
        eprintln!("usage: mcp-test-server {SUBCOMMAND} URL");
        return ExitCode::from(2);
    };
    match browse(&url) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mcp-test-server {SUBCOMMAND}: {e}");
            ExitCode::FAILURE
        }
    }
}

/// GETs `url`, then the redirect it names (once).
pub fn browse(url: &str) -> Result<(), String> {
    let location = redirect_location(url)?;
    match get(&location)? {
        (200..=299, _) => Ok(()),
        (status, _) => Err(format!("the redirect to {location} answered {status}")),
    }
}

/// GETs `url` (plain HTTP) and returns the redirect it answers with: where an authorization
/// server that approves at once sends the browser.
pub fn redirect_location(url: &str) -> Result<String, String> {
    match get(url)? {
        (300..=399, Some(location)) => Ok(location),
        (status, _) => Err(format!("{url} answered {status} without a redirect")),
    }
}

/// A plain-HTTP GET: the status and the `Location`, if any.
fn get(url: &str) -> Result<(u16, Option<String>), String> {
    let parsed =
        Url::parse(url).filter(|u| u.scheme == "http").ok_or(format!("not an http:// URL: {url}"))?;
    let mut stream = TcpStream::connect(parsed.authority()).map_err(|e| format!("{url}: {e}"))?;
    stream.set_read_timeout(Some(Duration::from_secs(30))).map_err(|e| e.to_string())?;
    let request = format!(
        "GET {} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
        parsed.target,
        parsed.host_header()
    );
    stream.write_all(request.as_bytes()).map_err(|e| format!("{url}: {e}"))?;
    let mut answer = Vec::new();
    stream.take(MAX_ANSWER).read_to_end(&mut answer).map_err(|e| format!("{url}: {e}"))?;
    let text = String::from_utf8_lossy(&answer);
    let head = text.split("\r\n\r\n").next().unwrap_or("");
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or(format!("{url}: not an HTTP answer"))?;
    let location = head
        .lines()
        .skip(1)
        .filter_map(|line| line.split_once(':'))
        .find(|(name, _)| name.trim().eq_ignore_ascii_case("location"))
        .map(|(_, value)| value.trim().to_owned());
    Ok((status, location))
}
