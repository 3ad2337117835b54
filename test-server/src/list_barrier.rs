//! `--list-barrier DIR`: a `tools/list` is answered only once `--list-barrier-count` of them
//! (default 2) have arrived, counted across every server process given the same `DIR`. Each
//! arrival leaves a file in `DIR`; the request then waits until `DIR` holds enough of them.
//! A client that asks its servers one after the other never gets there: after
//! `--list-barrier-timeout-ms` (default 20 000) the request fails with -32603 naming how many
//! arrived, so such a test fails instead of hanging.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use crate::protocol::RpcError;

/// JSON-RPC internal error.
const INTERNAL_ERROR: i64 = -32603;

/// How often a waiting request looks at the directory again.
const POLL: Duration = Duration::from_millis(5);

/// Marks this request's arrival in `dir`, then waits until `dir` holds `count` arrivals or
/// `timeout` passed.
pub fn wait(dir: &Path, count: usize, timeout: Duration) -> Result<(), RpcError> {
    static ARRIVALS: AtomicU64 = AtomicU64::new(0);
    let failed =
        |what: &str, e: std::io::Error| RpcError::new(INTERNAL_ERROR, format!("list barrier: {what}: {e}"));
    std::fs::create_dir_all(dir).map_err(|e| failed("create the directory", e))?;
    let arrival = format!("{}-{}", std::process::id(), ARRIVALS.fetch_add(1, Ordering::Relaxed));
    std::fs::write(dir.join(arrival), b"").map_err(|e| failed("mark the arrival", e))?;
    let deadline = Instant::now() + timeout;
    loop {
        let arrived = std::fs::read_dir(dir).map_err(|e| failed("read the directory", e))?.count();
        if arrived >= count {
            return Ok(());
        }
        if Instant::now() >= deadline {
            let message = format!(
                "list barrier: {arrived} of {count} tools/list requests arrived within {} ms",
                timeout.as_millis()
            );
            return Err(RpcError::new(INTERNAL_ERROR, message));
        }
        thread::sleep(POLL);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fresh_dir(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("mcp-list-barrier-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn opens_once_enough_have_arrived() {
        let dir = fresh_dir("opens");
        let other = {
            let dir = dir.clone();
            thread::spawn(move || wait(&dir, 2, Duration::from_secs(30)))
        };
        assert!(wait(&dir, 2, Duration::from_secs(30)).is_ok());
        assert!(other.join().unwrap().is_ok());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_lone_arrival_fails_after_the_timeout() {
        let dir = fresh_dir("lone");
        let err = wait(&dir, 2, Duration::from_millis(20)).unwrap_err();
        assert_eq!(err.code, INTERNAL_ERROR);
        assert!(err.message.contains("1 of 2"), "{}", err.message);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
