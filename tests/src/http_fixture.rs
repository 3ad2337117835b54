//! A scripted HTTP/1.1 server for client tests that no real peer can stage (hostile bodies,
//! exact status codes): every request is parsed (method, path, headers, JSON body) and answered
//! by a closure. One thread per connection; `Connection: close` after every answer.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use serde_json::Value;

/// One request the fixture received.
#[derive(Debug, Clone)]
pub struct FixtureRequest {
    /// `GET`, `POST`, ...
    pub method: String,
    /// The request target.
    pub path: String,
    /// Header names (lowercased) and values.
    pub headers: Vec<(String, String)>,
    /// The body parsed as JSON (`Null` if empty or not JSON).
    pub json: Value,
}

impl FixtureRequest {
    /// A header value by (case-insensitive) name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// An answer: status, headers, and a body written in chunks (so it can be huge without being
/// held in memory at once).
pub struct FixtureResponse {
    /// The status code.
    pub status: u16,
    /// Extra headers.
    pub headers: Vec<(String, String)>,
    /// The body, as successive chunks.
    pub body: Box<dyn Iterator<Item = Vec<u8>> + Send>,
}

impl std::fmt::Debug for FixtureResponse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FixtureResponse")
            .field("status", &self.status)
            .field("headers", &self.headers)
            .finish()
    }
}

/// A minimal modern (2026-07-28) server: answers `server/discover`, and every other request
/// with a tool result whose text is `text`.
pub fn modern_tool_server(text: &'static str) -> impl Fn(&FixtureRequest) -> FixtureResponse + Send + Sync {
    move |req: &FixtureRequest| {
        let id = req.json["id"].clone();
        let result = match req.json["method"].as_str() {
            Some("server/discover") => serde_json::json!({"resultType": "complete",
                "supportedVersions": [mcp_core::MODERN_VERSION], "capabilities": {"tools": {}},
                "ttlMs": 0, "cacheScope": "private"}),
            _ => serde_json::json!({"resultType": "complete", "content": [{"type": "text", "text": text}]}),
        };
        FixtureResponse::json(200, &serde_json::json!({"jsonrpc": "2.0", "id": id, "result": result}))
    }
}

impl FixtureResponse {
    /// A JSON answer.
    pub fn json(status: u16, value: &Value) -> Self {
        Self {
            status,
            headers: vec![("Content-Type".into(), "application/json".into())],
            body: Box::new(std::iter::once(value.to_string().into_bytes())),
        }
    }
}

/// The running fixture; stops accepting when dropped.
#[derive(Debug)]
pub struct HttpFixture {
    port: u16,
    stop: Arc<AtomicBool>,
    tls: bool,
}

type Handler = dyn Fn(FixtureRequest) -> FixtureResponse + Send + Sync;

impl HttpFixture {
    /// Starts serving on a free loopback port.
    pub fn start(handler: impl Fn(FixtureRequest) -> FixtureResponse + Send + Sync + 'static) -> Self {
        Self::spawn(Arc::new(handler), None)
    }

    fn spawn(handler: Arc<Handler>, tls: Option<Arc<rustls::ServerConfig>>) -> Self {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("bind the fixture");
        let port = listener.local_addr().expect("address").port();
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let is_tls = tls.is_some();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if flag.load(Ordering::Relaxed) {
                    return;
                }
                let Ok(stream) = stream else { continue };
                let (handler, tls) = (handler.clone(), tls.clone());
                std::thread::spawn(move || {
                    let _ = match tls {
                        None => serve(stream, &*handler),
                        Some(config) => match rustls::ServerConnection::new(config) {
                            Ok(conn) => serve(rustls::StreamOwned::new(conn, stream), &*handler),
                            Err(_) => Ok(()),
                        },
                    };
                });
            }
        });
        Self { port, stop, tls: is_tls }
    }

    /// Starts serving HTTPS with this certificate chain and PKCS#8 key (PEM).
    pub fn start_tls(
        cert_pem: &[u8],
        key_pem: &[u8],
        handler: impl Fn(FixtureRequest) -> FixtureResponse + Send + Sync + 'static,
    ) -> Self {
        use rustls::pki_types::pem::PemObject;
        use rustls::pki_types::{CertificateDer, PrivateKeyDer};
        let certs: Vec<CertificateDer<'static>> =
            CertificateDer::pem_slice_iter(cert_pem).collect::<Result<_, _>>().expect("certificate PEM");
        let key = PrivateKeyDer::from_pem_slice(key_pem).expect("key PEM");
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .expect("TLS versions")
            .with_no_client_auth()
            .with_single_cert(certs, key)
            .expect("server certificate");
        let config = Arc::new(config);
        Self::spawn(Arc::new(handler), Some(config))
    }

    /// `http://127.0.0.1:<port><path>` (or `https://localhost:<port><path>` for TLS).
    pub fn url(&self, path: &str) -> String {
        if self.tls {
            format!("https://localhost:{}{path}", self.port)
        } else {
            format!("http://127.0.0.1:{}{path}", self.port)
        }
    }
}

impl Drop for HttpFixture {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        // Wake the accept loop so it sees the flag.
        let _ = TcpStream::connect((Ipv4Addr::LOCALHOST, self.port));
    }
}

fn serve(stream: impl Read + Write, handler: &Handler) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let (method, path) = (parts.next().unwrap_or("").to_owned(), parts.next().unwrap_or("").to_owned());
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h)? == 0 || h == "\r\n" {
            break;
        }
        if let Some((n, v)) = h.trim_end().split_once(':') {
            headers.push((n.trim().to_ascii_lowercase(), v.trim().to_owned()));
        }
    }
    let len =
        headers.iter().find(|(n, _)| n == "content-length").and_then(|(_, v)| v.parse().ok()).unwrap_or(0);
    let mut body = vec![0; len];
    reader.read_exact(&mut body)?;
    let json = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let response = handler(FixtureRequest { method, path, headers, json });
    let out = reader.get_mut();
    let mut head =
        format!("HTTP/1.1 {} X\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n", response.status);
    for (n, v) in &response.headers {
        head.push_str(&format!("{n}: {v}\r\n"));
    }
    head.push_str("\r\n");
    out.write_all(head.as_bytes())?;
    for chunk in response.body {
        if chunk.is_empty() {
            continue;
        }
        out.write_all(format!("{:x}\r\n", chunk.len()).as_bytes())?;
        out.write_all(&chunk)?;
        out.write_all(b"\r\n")?;
    }
    out.write_all(b"0\r\n\r\n")?;
    out.flush()
}
