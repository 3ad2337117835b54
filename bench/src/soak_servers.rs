//! The soak's cheap loopback MCP servers, so the soak needs no program beyond `mcp-bench`
//! itself. Both behave like the comparison kit's mini servers: `initialize`, `ping`,
//! `tools/list` and an `echo` tool (its `message` or `text` argument back as text); other
//! requests get -32601, notifications and responses no answer.
//!
//! * `mcp-bench soak-stdio-server`: newline-delimited JSON-RPC on stdin/stdout, one answer per
//!   request line, flushed when no further input is buffered; exits at the end of stdin.
//! * `mcp-bench soak-http-server [PORT] [--record FILE]`: Streamable HTTP (JSON responses, no
//!   sessions, keep-alive; notifications get 202). It listens on 127.0.0.1 only, prints
//!   `listening 127.0.0.1:PORT` (PORT 0 or none: a free one), serves each connection on a
//!   thread of its own and exits when its stdin ends (so it never outlives the soak). With
//!   `--record FILE` it appends every request body it reads whole to FILE, one line each, before
//!   answering (the fault soak counts the `tools/call` requests that reached it).
//!
//! Both also serve what the fault soak mixes in: `prompts/list` (the prompt `greet`),
//! `resources/list` (the resource `soak://text`) and `resources/read` of it (the text `soak`).

use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::path::Path;
use std::process::exit;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

/// The largest request head and body the server reads; larger requests close the connection.
const MAX_HEAD: usize = 64 * 1024;
const MAX_BODY: usize = 4 * 1024 * 1024;

/// Serves newline-delimited JSON-RPC on stdin/stdout until stdin ends.
pub fn run_stdio() {
    let mut input = BufReader::with_capacity(64 * 1024, io::stdin().lock());
    let mut output = io::BufWriter::with_capacity(64 * 1024, io::stdout().lock());
    let mut line = Vec::with_capacity(4096);
    loop {
        line.clear();
        match input.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let message = line.trim_ascii();
        if message.is_empty() {
            continue;
        }
        if let Some(reply) = answer(message) {
            let written = output.write_all(reply.as_bytes()).and_then(|()| output.write_all(b"\n"));
            // Flush only when no further request is already buffered.
            if written.is_err() || (input.buffer().is_empty() && output.flush().is_err()) {
                break;
            }
        }
    }
    let _ = output.flush();
}

/// Runs the HTTP server until stdin ends, recording request bodies in `record`; never returns.
pub fn run_http(port: u16, record: Option<&Path>) -> ! {
    let record = match record.map(|path| File::options().create(true).append(true).open(path)) {
        None => None,
        Some(Ok(file)) => Some(Arc::new(Mutex::new(file))),
        Some(Err(err)) => {
            eprintln!("soak-http-server: cannot open the record file: {err}");
            exit(1)
        }
    };
    let listener = match TcpListener::bind((Ipv4Addr::LOCALHOST, port)) {
        Ok(listener) => listener,
        Err(err) => {
            eprintln!("soak-http-server: cannot listen on 127.0.0.1:{port}: {err}");
            exit(1)
        }
    };
    let port = listener.local_addr().map(|a| a.port()).unwrap_or(port);
    println!("listening 127.0.0.1:{port}");
    let _ = io::stdout().flush();
    std::thread::spawn(|| {
        // The soak holds our stdin open; its end (the soak exited or dropped us) ends us.
        let _ = io::copy(&mut io::stdin().lock(), &mut io::sink());
        exit(0)
    });
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        let _ = stream.set_nodelay(true);
        let record = record.clone();
        std::thread::spawn(move || {
            let _ = serve_connection(stream, record.as_deref());
        });
    }
    exit(1)
}

/// One parsed request: its method, path, body and whether the client asked to close.
struct HttpRequest {
    method: String,
    path: String,
    body: Vec<u8>,
    close: bool,
}

/// Why a connection stops being served.
enum Stop {
    /// The peer closed it between requests.
    Eof,
    /// A read or write failed, or the request was malformed or too large (answered first).
    Broken,
}

fn serve_connection(stream: TcpStream, record: Option<&Mutex<File>>) -> Result<(), Stop> {
    let mut writer = stream.try_clone().map_err(|_| Stop::Broken)?;
    let mut reader = BufReader::with_capacity(16 * 1024, stream);
    loop {
        let request = match read_request(&mut reader) {
            Ok(request) => request,
            Err(Stop::Broken) => {
                let _ = respond(&mut writer, 400, "Bad Request", None, true);
                return Err(Stop::Broken);
            }
            Err(Stop::Eof) => return Ok(()),
        };
        let close = request.close;
        if let Some(file) = record {
            let mut file = file.lock().unwrap_or_else(|e| e.into_inner());
            let line: Vec<u8> = request.body.iter().copied().filter(|&b| b != b'\n').chain([b'\n']).collect();
            let _ = file.write_all(&line);
        }
        match (request.method.as_str(), request.path.as_str()) {
            ("POST", "/mcp") => match answer(&request.body) {
                Some(body) => respond(&mut writer, 200, "OK", Some(body.as_bytes()), close)?,
                None => respond(&mut writer, 202, "Accepted", None, close)?,
            },
            (_, "/mcp") => respond(&mut writer, 405, "Method Not Allowed", None, close)?,
            _ => respond(&mut writer, 404, "Not Found", None, close)?,
        }
        if close {
            return Ok(());
        }
    }
}

fn read_request(reader: &mut impl BufRead) -> Result<HttpRequest, Stop> {
    let mut head = Vec::new();
    let mut line = String::new();
    loop {
        line.clear();
        let n = reader.read_line(&mut line).map_err(|_| Stop::Broken)?;
        if n == 0 {
            return if head.is_empty() { Err(Stop::Eof) } else { Err(Stop::Broken) };
        }
        let trimmed = line.trim_end_matches(['\r', '\n']);
        if trimmed.is_empty() {
            if head.is_empty() {
                continue; // stray blank lines between requests
            }
            break;
        }
        if head.iter().map(String::len).sum::<usize>() + trimmed.len() > MAX_HEAD {
            return Err(Stop::Broken);
        }
        head.push(trimmed.to_owned());
    }
    let mut request_line = head[0].split_whitespace();
    let method = request_line.next().ok_or(Stop::Broken)?.to_owned();
    let path = request_line.next().ok_or(Stop::Broken)?.to_owned();
    let mut length = 0usize;
    let mut close = false;
    for header in &head[1..] {
        let Some((name, value)) = header.split_once(':') else { return Err(Stop::Broken) };
        let value = value.trim();
        if name.eq_ignore_ascii_case("content-length") {
            length = value.parse().map_err(|_| Stop::Broken)?;
        } else if name.eq_ignore_ascii_case("connection") {
            close = value.eq_ignore_ascii_case("close");
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            return Err(Stop::Broken); // the client sends lengths; chunked bodies are not served
        }
    }
    if length > MAX_BODY {
        return Err(Stop::Broken);
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).map_err(|_| Stop::Broken)?;
    Ok(HttpRequest { method, path, body, close })
}

fn respond(
    writer: &mut TcpStream,
    status: u16,
    reason: &str,
    body: Option<&[u8]>,
    close: bool,
) -> Result<(), Stop> {
    let body = body.unwrap_or_default();
    let mut out = format!("HTTP/1.1 {status} {reason}\r\ncontent-length: {}\r\n", body.len());
    if !body.is_empty() {
        out.push_str("content-type: application/json\r\n");
    }
    if status == 405 {
        out.push_str("allow: POST\r\n");
    }
    if close {
        out.push_str("connection: close\r\n");
    }
    out.push_str("\r\n");
    let mut bytes = out.into_bytes();
    bytes.extend_from_slice(body);
    writer.write_all(&bytes).map_err(|_| Stop::Broken)
}

/// The JSON-RPC answer to one POSTed message; `None` for notifications and responses.
fn answer(body: &[u8]) -> Option<String> {
    let Ok(msg) = serde_json::from_slice::<Value>(body) else {
        return Some(
            json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "parse error"}})
                .to_string(),
        );
    };
    let id = msg.get("id")?.clone();
    let method = msg.get("method")?.as_str().unwrap_or_default();
    let params = msg.get("params").cloned().unwrap_or(Value::Null);
    let result = match method {
        "initialize" => {
            let asked = params["protocolVersion"].as_str().unwrap_or_default();
            let version = match asked {
                "2024-11-05" | "2025-03-26" | "2025-06-18" | "2025-11-25" => asked,
                _ => "2025-11-25",
            };
            json!({"protocolVersion": version,
                "capabilities": {"tools": {"listChanged": false}, "prompts": {}, "resources": {}},
                "serverInfo": {"name": "mcp-bench-soak-http", "version": env!("CARGO_PKG_VERSION")}})
        }
        "ping" => json!({}),
        "tools/list" => json!({"tools": [{
            "name": "echo",
            "description": "Echoes the message (or text) argument",
            "inputSchema": {"type": "object", "properties": {
                "message": {"type": "string"}, "text": {"type": "string"}}}
        }]}),
        "prompts/list" => json!({"prompts": [{"name": "greet", "description": "A greeting"}]}),
        "resources/list" => json!({"resources": [{"uri": "soak://text", "name": "text"}]}),
        "resources/read" if params["uri"] == "soak://text" => {
            json!({"contents": [{"uri": "soak://text", "mimeType": "text/plain", "text": "soak"}]})
        }
        "resources/read" => return Some(error(&id, -32002, "resource not found")),
        "tools/call" if params["name"] == "echo" => {
            let args = &params["arguments"];
            let text = args["message"].as_str().or_else(|| args["text"].as_str()).unwrap_or_default();
            json!({"content": [{"type": "text", "text": text}], "isError": false})
        }
        "tools/call" => {
            return Some(error(&id, -32602, "unknown tool"));
        }
        _ => return Some(error(&id, -32601, "method not found")),
    };
    Some(json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string())
}

fn error(id: &Value, code: i64, message: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_the_echo_and_refuses_the_rest() {
        let call = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"message":"m"}}}"#;
        let reply: Value = serde_json::from_str(&answer(call).unwrap()).unwrap();
        assert_eq!(reply["id"], 7);
        assert_eq!(reply["result"]["content"][0]["text"], "m");
        let discover = br#"{"jsonrpc":"2.0","id":"d","method":"server/discover"}"#;
        let reply: Value = serde_json::from_str(&answer(discover).unwrap()).unwrap();
        assert_eq!(reply["error"]["code"], -32601);
        assert_eq!(answer(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#), None);
        let read = br#"{"jsonrpc":"2.0","id":8,"method":"resources/read","params":{"uri":"soak://text"}}"#;
        let reply: Value = serde_json::from_str(&answer(read).unwrap()).unwrap();
        assert_eq!(reply["result"]["contents"][0]["text"], "soak");
        let prompts = br#"{"jsonrpc":"2.0","id":9,"method":"prompts/list"}"#;
        let reply: Value = serde_json::from_str(&answer(prompts).unwrap()).unwrap();
        assert_eq!(reply["result"]["prompts"][0]["name"], "greet");
        let garbage: Value = serde_json::from_str(&answer(b"{").unwrap()).unwrap();
        assert_eq!(garbage["error"]["code"], -32700);
    }

    #[test]
    fn reads_keep_alive_requests_and_refuses_oversize_ones() {
        let wire = b"POST /mcp HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}POST /mcp HTTP/1.1\r\nconnection: close\r\ncontent-length: 0\r\n\r\n";
        let mut reader = BufReader::new(&wire[..]);
        let first = read_request(&mut reader).ok().unwrap();
        assert_eq!(
            (first.method.as_str(), first.path.as_str(), &first.body[..], first.close),
            ("POST", "/mcp", &b"{}"[..], false)
        );
        let second = read_request(&mut reader).ok().unwrap();
        assert!(second.close && second.body.is_empty());
        assert!(matches!(read_request(&mut reader), Err(Stop::Eof)));
        let huge = format!("POST /mcp HTTP/1.1\r\ncontent-length: {}\r\n\r\n", MAX_BODY + 1);
        assert!(matches!(read_request(&mut BufReader::new(huge.as_bytes())), Err(Stop::Broken)));
        assert!(matches!(read_request(&mut BufReader::new(&b"POST\r\n\r\n"[..])), Err(Stop::Broken)));
    }
}
