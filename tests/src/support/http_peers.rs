//! Real peers served over HTTP: each test starts its own server process on a free loopback
//! port, waits until it accepts connections, and stops it when dropped.

use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::{peer_command, TempDir};

/// How long a peer may take to start listening on a loaded 2-core machine.
const START_TIMEOUT: Duration = Duration::from_secs(60);

/// One peer process serving HTTP on `127.0.0.1:port`.
#[derive(Debug)]
pub struct HttpPeer {
    name: String,
    child: Child,
    port: u16,
    logs: TempDir,
}

/// A port that was free a moment ago (the OS picks it; the listener is closed at once).
pub fn free_port() -> u16 {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("bind a loopback port");
    listener.local_addr().expect("local address").port()
}

impl HttpPeer {
    /// Starts peer `name` with `args`, where `{port}` is replaced by the chosen port, and the
    /// environment `env` (values may use `{port}` too). Panics if it does not listen in time.
    pub fn start(name: &str, args: &[&str], env: &[(&str, &str)]) -> Self {
        // The port was free a moment ago; a peer that lost it to another process exits (its
        // bind fails) while that process answers the connection check: start again elsewhere.
        for _ in 0..3 {
            let Some(mut peer) = Self::start_once(name, args, env) else { continue };
            std::thread::sleep(Duration::from_millis(300));
            if matches!(peer.child.try_wait(), Ok(None)) {
                return peer;
            }
        }
        panic!("peer {name} kept exiting after it started listening (its port taken by another process?)");
    }

    /// One start on a fresh port; `None` when the peer exited before listening (reported on
    /// stderr, so the last attempt's reason is not lost).
    fn start_once(name: &str, args: &[&str], env: &[(&str, &str)]) -> Option<Self> {
        let port = free_port();
        let fill = |s: &str| s.replace("{port}", &port.to_string());
        let logs = TempDir::new(&format!("peer-{name}"));
        let stderr = std::fs::File::create(logs.path().join("stderr.txt")).expect("peer log file");
        let stdout = std::fs::File::create(logs.path().join("stdout.txt")).expect("peer log file");
        let mut command = Command::new(peer_command(name));
        command.args(args.iter().map(|a| fill(a))).stdin(Stdio::null()).stdout(stdout).stderr(stderr);
        for (k, v) in env {
            command.env(k, fill(v));
        }
        let child = command.spawn().unwrap_or_else(|e| panic!("start peer {name}: {e}"));
        let mut peer = Self { name: name.to_owned(), child, port, logs };
        peer.wait_listening().then_some(peer)
    }

    /// Waits until the port accepts connections (true), or the peer exited (false).
    fn wait_listening(&mut self) -> bool {
        let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, self.port));
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            if TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok() {
                return true;
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                eprintln!("peer {} exited before listening ({status}); stderr: {}", self.name, self.stderr());
                return false;
            }
            assert!(
                Instant::now() < deadline,
                "peer {} did not listen on port {} within {START_TIMEOUT:?}; stderr: {}",
                self.name,
                self.port,
                self.stderr()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `http://127.0.0.1:<port><path>`.
    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    /// What the peer wrote to stderr so far (for failure messages).
    pub fn stderr(&self) -> String {
        std::fs::read_to_string(self.logs.path().join("stderr.txt")).unwrap_or_default()
    }

    /// What the peer wrote to stdout so far (uvicorn's access log, for the Python peers).
    pub fn stdout(&self) -> String {
        std::fs::read_to_string(self.logs.path().join("stdout.txt")).unwrap_or_default()
    }
}

impl Drop for HttpPeer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
