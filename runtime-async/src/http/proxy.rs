//! `CONNECT` tunnels through an HTTP proxy (over TCP, or TLS for an `https://` proxy), for
//! `https://` servers and checked addresses (which proxy applies is decided by
//! [`mcpwire_host::Proxies`]).

use futures_lite::{AsyncReadExt, AsyncWriteExt};

use super::hyper_io::BoxedStream;
use mcpwire_host::Proxy;

/// Longest proxy answer to `CONNECT` accepted.
const MAX_CONNECT_RESPONSE: usize = 16 * 1024;

/// Opens a `CONNECT` tunnel to `target` (`host:port`, or a checked `address:port`) through a
/// proxy connection.
pub(crate) async fn tunnel(
    mut stream: BoxedStream,
    proxy: &Proxy,
    target: &str,
) -> Result<BoxedStream, String> {
    let mut request = format!("CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n");
    if let Some(auth) = proxy.basic_authorization() {
        request.push_str(&format!("Proxy-Authorization: {auth}\r\n"));
    }
    request.push_str("\r\n");
    stream.write_all(request.as_bytes()).await.map_err(|e| format!("proxy CONNECT failed: {e}"))?;
    stream.flush().await.map_err(|e| format!("proxy CONNECT failed: {e}"))?;
    // Read the answer byte by byte so no tunnelled byte is consumed.
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        let n = stream.read(&mut byte).await.map_err(|e| format!("proxy CONNECT failed: {e}"))?;
        if n == 0 {
            return Err("the proxy closed the connection during CONNECT".into());
        }
        head.push(byte[0]);
        if head.len() > MAX_CONNECT_RESPONSE {
            return Err("the proxy's answer to CONNECT is too long".into());
        }
    }
    let status_line =
        String::from_utf8_lossy(head.split(|b| *b == b'\r').next().unwrap_or_default()).into_owned();
    let status = status_line.split_whitespace().nth(1).unwrap_or("");
    if status.starts_with('2') {
        Ok(stream)
    } else {
        let shown = mcpwire_core::text::sanitize(&status_line, 200);
        Err(format!("the proxy refused the tunnel: {shown}"))
    }
}
