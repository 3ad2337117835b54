//! Shared helpers for the integration tests: the test server's binary, server specs, event
//! collection, temporary files, process lookup, and locating the real peers.

pub mod faults;
#[cfg(feature = "http")]
pub mod http_peers;
#[cfg(feature = "http")]
pub mod scripted_http;
#[cfg(feature = "http")]
pub mod tunnel_proxy;
#[cfg(feature = "oauth")]
pub mod two_issuer_server;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use mcpwire_core::{Event, Progress, ServerSpec, StdioCommand};
use serde_json::Value;

/// The path of the `mcp-test-server` binary (crate `mcp-test-server`), built first.
///
/// Tests outside that crate get no `CARGO_BIN_EXE_mcp-test-server`, so the binary is found in
/// the running test's profile directory (`<target>/<profile>/`, the parent of `deps/`) after
/// `cargo build -p mcpwire-test-server` with that target directory and profile, once per process (a
/// no-op when it is fresh, so an edited server is never run stale). Panics when the build fails.
pub fn test_server() -> &'static str {
    static PATH: OnceLock<String> = OnceLock::new();
    PATH.get_or_init(|| {
        let exe = std::env::current_exe().expect("the running test's path");
        let mut dir = exe.parent().expect("its directory").to_path_buf();
        if dir.ends_with("deps") {
            dir.pop();
        }
        let (Some(profile), Some(target_dir)) = (dir.file_name().and_then(|n| n.to_str()), dir.parent())
        else {
            panic!("{} is not in a cargo target directory", exe.display())
        };
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| env!("CARGO").into());
        let mut build = Command::new(cargo);
        build.args(["build", "--quiet", "-p", "mcpwire-test-server", "--bin", "mcp-test-server"]);
        build.args(["--manifest-path", concat!(env!("CARGO_MANIFEST_DIR"), "/../Cargo.toml")]);
        build.arg("--target-dir").arg(target_dir);
        match profile {
            "debug" => {}
            "release" => {
                build.arg("--release");
            }
            profile => {
                build.args(["--profile", profile]);
            }
        }
        let status = build.status().expect("run cargo build");
        assert!(status.success(), "cargo build -p mcpwire-test-server failed");
        let path = dir.join(format!("mcp-test-server{}", std::env::consts::EXE_SUFFIX));
        assert!(path.is_file(), "{} is missing after the build", path.display());
        let path = path.to_str().expect("a UTF-8 path").to_owned();
        assert!(!path.contains([' ', '\'', '"', '\\']), "the test server's path needs quoting: {path}");
        path
    })
}

/// A stdio server spec named `name` running `exe args...`.
pub fn spec(exe: &str, name: &str, args: &[&str]) -> ServerSpec {
    ServerSpec::stdio(name, StdioCommand::new(exe).args(args.iter().copied()))
}

/// The command line `exe args...` as a target string (no word contains a space here).
pub fn target(exe: &str, args: &[&str]) -> String {
    std::iter::once(exe).chain(args.iter().copied()).collect::<Vec<_>>().join(" ")
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Collects the events an `on_event` hook sees.
#[derive(Debug, Clone, Default)]
pub struct Events(Arc<Mutex<Vec<(String, Event)>>>);

impl Events {
    /// A new, empty collector.
    pub fn new() -> Self {
        Self::default()
    }

    /// The hook to install with `ClientBuilder::on_event`.
    pub fn hook(&self) -> impl Fn(&str, &Event) + Send + Sync + 'static {
        let events = self.0.clone();
        move |server: &str, event: &Event| lock(&events).push((server.to_owned(), event.clone()))
    }

    /// Everything seen so far.
    pub fn snapshot(&self) -> Vec<(String, Event)> {
        lock(&self.0).clone()
    }

    /// Whether some event seen so far satisfies `f`.
    pub fn any(&self, f: impl Fn(&Event) -> bool) -> bool {
        lock(&self.0).iter().any(|(_, e)| f(e))
    }
}

/// Collects progress callbacks.
#[derive(Debug, Clone, Default)]
pub struct ProgressLog(Arc<Mutex<Vec<Progress>>>);

impl ProgressLog {
    /// A new, empty log.
    pub fn new() -> Self {
        Self::default()
    }

    /// The callback to pass to `call_tool_with_progress`.
    pub fn callback(&self) -> impl Fn(Progress) + Send + Sync + 'static {
        let log = self.0.clone();
        move |p| lock(&log).push(p)
    }

    /// Everything reported so far.
    pub fn snapshot(&self) -> Vec<Progress> {
        lock(&self.0).clone()
    }
}

/// A fresh path under the system temporary directory (nothing is created).
pub fn unique_temp_path(tag: &str) -> PathBuf {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    std::env::temp_dir().join(format!("mcp-tests-{tag}-{}-{n}-{nanos}", std::process::id()))
}

/// A temporary directory, removed on drop.
#[derive(Debug)]
pub struct TempDir(PathBuf);

impl TempDir {
    /// Creates a new empty directory.
    pub fn new(tag: &str) -> Self {
        let path = unique_temp_path(tag);
        std::fs::create_dir_all(&path).expect("create a temporary directory");
        Self(path)
    }

    /// Its path.
    pub fn path(&self) -> &Path {
        &self.0
    }

    /// Its path as a string.
    pub fn path_str(&self) -> String {
        self.0.to_str().expect("temporary paths are UTF-8").to_owned()
    }

    /// Writes a file inside it and returns its path.
    pub fn write(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let path = self.0.join(name);
        std::fs::write(&path, bytes).expect("write a temporary file");
        path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Pids of live (non-zombie) processes whose command line contains `marker` (Linux `/proc`).
pub fn processes_with_marker(marker: &str) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    let mut pids = Vec::new();
    for entry in entries.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else { continue };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else { continue };
        if !String::from_utf8_lossy(&cmdline).contains(marker) {
            continue;
        }
        if !is_zombie(&entry.path()) {
            pids.push(pid);
        }
    }
    pids
}

/// Whether process `pid` exists and is not a zombie (Linux `/proc`): a killed orphan stays a
/// zombie until whoever adopted it reaps it, which in a container may be never.
pub fn process_is_running(pid: u32) -> bool {
    let dir = Path::new("/proc").join(pid.to_string());
    dir.exists() && !is_zombie(&dir)
}

/// Whether the `/proc/<pid>` directory `dir` is a zombie's (false when unreadable).
fn is_zombie(dir: &Path) -> bool {
    std::fs::read_to_string(dir.join("stat"))
        .ok()
        .and_then(|stat| stat.rsplit_once(')').map(|(_, rest)| rest.trim_start().starts_with('Z')))
        .unwrap_or(false)
}

/// The JSON lines of a file (a `--record` log); missing file or bad lines are skipped.
pub fn json_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// Parses the JSON that follows `prefix` in `text` (the test server's `label: {json}` answers).
pub fn json_after(text: &str, prefix: &str) -> Value {
    let rest = text.strip_prefix(prefix).unwrap_or_else(|| panic!("{text:?} does not start with {prefix:?}"));
    serde_json::from_str(rest).unwrap_or_else(|e| panic!("{rest:?} is not JSON: {e}"))
}

// ---- real peers -------------------------------------------------------------------------

/// Where the real peers are installed: `$MCP_PEERS`, else `<workspace root>/.peers`.
pub fn peers_dir() -> PathBuf {
    match std::env::var_os("MCP_PEERS") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.peers")),
    }
}

/// The path of the peer command `bin/<name>`. Panics (failing the test, never skipping it)
/// when the peer is not installed.
pub fn peer_command(name: &str) -> String {
    let path = peers_dir().join("bin").join(name);
    assert!(
        path.is_file(),
        "MCP peer {name:?} is missing at {}: install the peers with `bash peers/setup.sh` \
         from the repository root (`scripts/test` does it first), or point MCP_PEERS at an installed peers directory",
        path.display()
    );
    path.to_str().expect("peer paths are UTF-8").to_owned()
}

/// A stdio spec for the peer `name` with `args`.
pub fn peer_spec(name: &str, args: &[&str]) -> ServerSpec {
    spec(&peer_command(name), name, args)
}

/// A tiny valid WAV file: 8 kHz, mono, 16-bit, 64 samples of a square wave.
pub fn wav_bytes() -> Vec<u8> {
    let samples: Vec<i16> = (0..64).map(|i| if i % 16 < 8 { 8000 } else { -8000 }).collect();
    let data_len = (samples.len() * 2) as u32;
    let mut out = Vec::with_capacity(44 + data_len as usize);
    out.extend_from_slice(b"RIFF");
    out.extend_from_slice(&(36 + data_len).to_le_bytes());
    out.extend_from_slice(b"WAVEfmt ");
    out.extend_from_slice(&16u32.to_le_bytes()); // fmt chunk size
    out.extend_from_slice(&1u16.to_le_bytes()); // PCM
    out.extend_from_slice(&1u16.to_le_bytes()); // mono
    out.extend_from_slice(&8000u32.to_le_bytes()); // sample rate
    out.extend_from_slice(&16000u32.to_le_bytes()); // byte rate
    out.extend_from_slice(&2u16.to_le_bytes()); // block align
    out.extend_from_slice(&16u16.to_le_bytes()); // bits per sample
    out.extend_from_slice(b"data");
    out.extend_from_slice(&data_len.to_le_bytes());
    for s in samples {
        out.extend_from_slice(&s.to_le_bytes());
    }
    out
}

/// Reads a streaming tool call (async) to its end: its progress, then its one outcome; the
/// stream must end right after it.
pub async fn collect_stream<S>(
    mut stream: S,
) -> (Vec<mcpwire_core::Progress>, Result<mcpwire_core::types::CallToolResult, mcpwire_core::ClientError>)
where
    S: futures_lite::Stream<Item = mcpwire_host::RequestUpdate<mcpwire_core::types::CallToolResult>> + Unpin,
{
    use futures_lite::StreamExt;
    let mut progress = Vec::new();
    while let Some(update) = stream.next().await {
        match update {
            mcpwire_host::RequestUpdate::Progress(p) => progress.push(p),
            mcpwire_host::RequestUpdate::Done(outcome) => {
                assert!(stream.next().await.is_none(), "the stream goes on after its result");
                return (progress, outcome);
            }
        }
    }
    panic!("the stream ended without a result");
}

/// What is left of a listen stream, read as a `Stream` (the async families) to its end.
pub async fn rest_of_stream<S>(stream: S) -> Vec<mcpwire_core::Notification>
where
    S: futures_lite::Stream<Item = mcpwire_core::Notification> + Unpin,
{
    futures_lite::StreamExt::collect(stream).await
}

/// What is left of a listen stream, read as an `Iterator` (the blocking family) to its end.
pub fn rest_of_iter<I: Iterator<Item = mcpwire_core::Notification>>(
    stream: I,
) -> Vec<mcpwire_core::Notification> {
    stream.collect()
}

/// [`collect_stream`] for the blocking family's iterator.
pub fn collect_iter<I>(
    mut updates: I,
) -> (Vec<mcpwire_core::Progress>, Result<mcpwire_core::types::CallToolResult, mcpwire_core::ClientError>)
where
    I: Iterator<Item = mcpwire_host::RequestUpdate<mcpwire_core::types::CallToolResult>>,
{
    let mut progress = Vec::new();
    for update in updates.by_ref() {
        match update {
            mcpwire_host::RequestUpdate::Progress(p) => progress.push(p),
            mcpwire_host::RequestUpdate::Done(outcome) => {
                assert!(updates.next().is_none(), "the iterator goes on after its result");
                return (progress, outcome);
            }
        }
    }
    panic!("the iterator ended without a result");
}

/// What typed handlers were asked: the raw params of each request, in order.
pub type Asked = Arc<Mutex<Vec<Value>>>;

/// A typed handler (`Fn(FromServer<Req>) -> Result<answer, HandlerError>`, wrapped per family
/// by `rt::sync_handler`) that records the raw params it was asked and answers `answer`, a
/// result JSON decoded into the handler's answer type (one that does not decode fails the
/// handler with the decode error).
pub fn recording<Req: mcpwire_host::TypedRequest>(
    asked: &Asked,
    answer: Value,
) -> impl Fn(mcpwire_host::FromServer<Req>) -> Result<Req::Answer, mcpwire_core::HandlerError>
       + Send
       + Sync
       + 'static {
    let asked = asked.clone();
    move |req| {
        asked.lock().unwrap().push(mcpwire_host::TypedRequest::raw(&req.request).clone());
        <Req::Answer as mcpwire_host::HandlerAnswer>::from_result(answer.clone())
            .map_err(|e| mcpwire_core::HandlerError::new(e.to_string()))
    }
}

/// A synchronous typed handler as an async family takes it (its answer ready at once): the
/// async runtimes' `rt::sync_handler`.
pub fn ready_handler<Req, T, F>(
    f: F,
) -> impl Fn(mcpwire_host::FromServer<Req>) -> std::future::Ready<Result<T, mcpwire_core::HandlerError>>
       + Send
       + Sync
       + 'static
where
    Req: 'static,
    T: 'static,
    F: Fn(mcpwire_host::FromServer<Req>) -> Result<T, mcpwire_core::HandlerError> + Send + Sync + 'static,
{
    move |req| std::future::ready(f(req))
}

/// A synchronous typed handler as the blocking family takes it (unchanged): the blocking
/// runtime's `rt::sync_handler`.
pub fn plain_handler<Req, T, F>(f: F) -> F
where
    F: Fn(mcpwire_host::FromServer<Req>) -> Result<T, mcpwire_core::HandlerError> + Send + Sync + 'static,
{
    f
}

/// Fails the whole test run when one test hangs: a test that has not finished `limit` after it
/// started prints its name and ends the process with status 101 (a hang or a livelock would
/// otherwise hold the run until CI's own limit, with no name). The limit is
/// `MCP_TEST_WATCHDOG_SECS` (default 300 s; a scenario takes seconds).
#[derive(Debug)]
pub struct Watchdog(Arc<(Mutex<bool>, std::sync::Condvar)>);

impl Watchdog {
    /// Starts watching the test `name`; dropping the guard (the test ended, or panicked) stops it.
    pub fn start(name: &'static str) -> Self {
        let secs = std::env::var("MCP_TEST_WATCHDOG_SECS").ok().and_then(|s| s.parse().ok()).unwrap_or(300);
        let limit = std::time::Duration::from_secs(secs);
        let state = Arc::new((Mutex::new(false), std::sync::Condvar::new()));
        let watched = state.clone();
        std::thread::spawn(move || {
            let (done, ended) = &*watched;
            let guard = done.lock().unwrap_or_else(|p| p.into_inner());
            let (guard, _) =
                ended.wait_timeout_while(guard, limit, |done| !*done).unwrap_or_else(|p| p.into_inner());
            if !*guard {
                // Straight to the stream: the test harness captures `eprintln!` of test threads.
                let line = format!(
                    "watchdog: test `{name}` did not finish within {secs} s (hung?); ending the run\n"
                );
                let _ = std::io::Write::write_all(&mut std::io::stderr(), line.as_bytes());
                std::process::exit(101);
            }
        });
        Self(state)
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        let (done, ended) = &*self.0;
        *done.lock().unwrap_or_else(|p| p.into_inner()) = true;
        ended.notify_all();
    }
}

/// A process epoch, as the core hands one out with its first spawn (an `Epoch` has no public
/// constructor): for unit tests of the runtimes' stdout readers.
pub fn an_epoch() -> mcpwire_core::Epoch {
    use mcpwire_core::{Connection, ConnectionConfig, Io, Request, RequestOptions};
    let now = std::time::Instant::now();
    let mut conn = Connection::new(ConnectionConfig::stdio(StdioCommand::new("server")), now);
    conn.request(now, Request::Ping, RequestOptions::default()).expect("a request");
    std::iter::from_fn(|| conn.poll_io())
        .find_map(|io| match io {
            Io::Spawn { epoch, .. } => Some(epoch),
            _ => None,
        })
        .expect("a spawn")
}
