//! Replays the committed fuzz corpora (`fuzz/corpus/<target>/`, regression seeds included)
//! through the fuzz target bodies, so every `cargo test` re-checks what fuzzing once found.
//! This test plays the runtime: it reads the files and the clock the core never touches.
#![allow(clippy::disallowed_methods)]

use std::path::Path;
use std::time::Instant;

use mcpwire_core::fuzzing;

fn corpus(target: &str) -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus").join(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("corpus {} missing: {e}", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "empty corpus {}", dir.display());
    files.into_iter().map(|p| std::fs::read(p).expect("corpus file")).collect()
}

#[test]
fn framing_corpus() {
    corpus("framing").iter().for_each(|d| fuzzing::framing(d));
}

#[test]
fn jsonrpc_corpus() {
    corpus("jsonrpc").iter().for_each(|d| fuzzing::jsonrpc(d));
}

#[test]
fn jsonrpc_head_corpus() {
    corpus("jsonrpc_head").iter().for_each(|d| mcpwire_core::jsonrpc_head::fuzz_head(d));
}

#[test]
fn stdio_connection_corpus() {
    let t0 = Instant::now();
    corpus("stdio_connection").iter().for_each(|d| fuzzing::stdio_connection(t0, d));
}

#[test]
fn sse_corpus() {
    corpus("sse").iter().for_each(|d| fuzzing::sse(d));
}

#[test]
fn headers_corpus() {
    corpus("headers").iter().for_each(|d| mcpwire_core::headers::fuzz_headers(d));
}

#[test]
fn gzip_corpus() {
    corpus("gzip").iter().for_each(|d| mcpwire_core::gzip::fuzz_bounded(d));
}

#[test]
fn schema_validate_corpus() {
    corpus("schema_validate").iter().for_each(|d| fuzzing::schema_validate(d));
}

#[test]
fn client_ops_stdio_corpus() {
    let t0 = Instant::now();
    corpus("client_ops_stdio").iter().for_each(|d| fuzzing::client_ops_stdio(t0, d));
}

#[test]
fn client_ops_http_corpus() {
    let t0 = Instant::now();
    corpus("client_ops_http").iter().for_each(|d| fuzzing::client_ops_http(t0, d));
}

#[test]
fn client_ops_http_auth_corpus() {
    let t0 = Instant::now();
    corpus("client_ops_http_auth").iter().for_each(|d| fuzzing::client_ops_http_auth(t0, d));
}

#[test]
fn oauth_flow_corpus() {
    let t0 = Instant::now();
    corpus("oauth_flow").iter().for_each(|d| fuzzing::oauth_flow(t0, d));
}

#[test]
fn http_url_corpus() {
    corpus("http_url").iter().for_each(|d| fuzzing::http_url(d));
}
