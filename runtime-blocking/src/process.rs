//! The threads of one server process: stdin writer, stdout/stderr readers, exit waiter.
//!
//! The waiter thread owns the [`Child`] (it blocks in `wait`), so the driver signals the
//! process by pid. A pid is only safe to signal until the process is reaped, so the waiter
//! first waits *without reaping* (`waitid(WNOWAIT)`, where the platform has it), then marks
//! the process exited under the same lock the driver signals under, and only then reaps it.
//! Where `waitid` is missing the mark follows the reap (a tiny window remains); on non-Unix
//! platforms the waiter polls instead and kills through the `Child` itself.

use std::io::{self, Read, Write};
use std::process::{Child, ChildStderr, ChildStdout};
use std::sync::mpsc::{self, Sender, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread;

use mcp_core::Epoch;
use mcp_core::Input;
use mcp_host::ProcessControl;

use crate::driver::{thread_name, Msg};
use mcp_host::lock;

/// Read buffer size for stdout and stderr.
const READ_CHUNK: usize = 64 * 1024;

/// State shared by the driver (which signals) and the waiter (which reaps).
#[derive(Debug)]
struct ExitState {
    /// True once the process may have been reaped: from then on its pid is never signalled.
    exited: Mutex<bool>,
    /// The process itself (non-Unix: killed through its handle, polled for its exit).
    #[cfg(not(unix))]
    child: Mutex<Child>,
}

/// The driver's side of one running process.
#[derive(Debug)]
pub(crate) struct ProcessIo {
    /// `None` once stdin was closed (dropping the sender ends the writer thread).
    stdin: Option<Sender<Vec<u8>>>,
    #[cfg_attr(not(unix), allow(dead_code))]
    pid: u32,
    state: Arc<ExitState>,
}

impl ProcessIo {
    /// Starts the threads for a freshly spawned process (spawned with all three pipes).
    /// On failure the process is killed before the error is returned.
    pub(crate) fn start(name: &str, epoch: Epoch, mut child: Child, tx: SyncSender<Msg>) -> io::Result<Self> {
        let pid = child.id();
        let missing = || io::Error::other("a pipe of the child process is missing");
        let pipes = (child.stdin.take(), child.stdout.take(), child.stderr.take());
        let (Some(stdin), Some(stdout), Some(stderr)) = pipes else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(missing());
        };
        let state = Arc::new(ExitState {
            exited: Mutex::new(false),
            #[cfg(not(unix))]
            child: Mutex::new(child),
        });
        let (stdin_tx, stdin_rx) = mpsc::channel::<Vec<u8>>();
        let io = Self { stdin: Some(stdin_tx), pid, state };
        #[cfg(unix)]
        let waiter = {
            let (state, tx) = (io.state.clone(), tx.clone());
            move || wait_for_exit(epoch, child, pid, &state, &tx)
        };
        #[cfg(not(unix))]
        let waiter = {
            let (state, tx) = (io.state.clone(), tx.clone());
            move || poll_for_exit(epoch, &state, &tx)
        };
        // If a thread cannot be started, dropping `io` kills the process.
        spawn_thread(name, "wait", waiter)?;
        spawn_thread(name, "stdin", move || write_stdin(stdin, &stdin_rx))?;
        let out_tx = tx.clone();
        spawn_thread(name, "stdout", move || read_stdout(epoch, stdout, &out_tx))?;
        spawn_thread(name, "stderr", move || read_stderr(epoch, stderr, &tx))?;
        Ok(io)
    }
}

impl ProcessControl for ProcessIo {
    /// Queues bytes for stdin (dropped silently once stdin is closed or broken).
    fn write(&self, bytes: Vec<u8>) {
        if let Some(tx) = &self.stdin {
            let _ = tx.send(bytes);
        }
    }

    /// Closes stdin once everything queued so far is written.
    fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// Terminates (`force == false`: SIGTERM, falling back to a kill) or kills the process,
    /// unless its exit was already seen.
    fn signal(&self, force: bool) {
        let exited = lock(&self.state.exited);
        if *exited {
            return;
        }
        #[cfg(unix)]
        {
            if force || mcp_host::terminate(self.pid).is_err() {
                if let Some(pid) = rustix::process::Pid::from_raw(self.pid as i32) {
                    let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
                }
            }
        }
        #[cfg(not(unix))]
        {
            let _ = force;
            let _ = lock(&self.state.child).kill();
        }
        drop(exited);
    }
}

impl Drop for ProcessIo {
    /// A process must not outlive its driver: kill it if its exit was not seen.
    fn drop(&mut self) {
        self.signal(true);
    }
}

fn spawn_thread<F: FnOnce() + Send + 'static>(server: &str, what: &str, f: F) -> io::Result<()> {
    thread::Builder::new().name(thread_name(server, what)).spawn(f).map(drop)
}

fn write_stdin(mut stdin: std::process::ChildStdin, rx: &mpsc::Receiver<Vec<u8>>) {
    for bytes in rx {
        if stdin.write_all(&bytes).is_err() || stdin.flush().is_err() {
            break;
        }
    }
}

fn read_stdout(epoch: Epoch, mut stdout: ChildStdout, tx: &SyncSender<Msg>) {
    let mut buf = vec![0u8; READ_CHUNK];
    loop {
        match stdout.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                if tx.send(Msg::Input(Input::Stdout(epoch, buf[..n].to_vec()))).is_err() {
                    return;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    let _ = tx.send(Msg::Input(Input::StdoutEof(epoch)));
}

fn read_stderr(epoch: Epoch, mut stderr: ChildStderr, tx: &SyncSender<Msg>) {
    let mut buf = vec![0u8; READ_CHUNK];
    loop {
        match stderr.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                if tx.send(Msg::Input(Input::Stderr(epoch, buf[..n].to_vec()))).is_err() {
                    return;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    let _ = tx.send(Msg::Input(Input::StderrEof(epoch)));
}

/// Blocks until the process exits, marks it exited, reaps it and reports the exit.
#[cfg(unix)]
fn wait_for_exit(epoch: Epoch, mut child: Child, pid: u32, state: &ExitState, tx: &SyncSender<Msg>) {
    let status = if wait_unreaped(pid) {
        // A zombie keeps its pid: mark it exited, then reap it, under the driver's lock.
        let mut exited = lock(&state.exited);
        *exited = true;
        child.wait()
    } else {
        let status = child.wait();
        *lock(&state.exited) = true;
        status
    };
    let info = status.map(mcp_host::exit_info).unwrap_or_default();
    let _ = tx.send(Msg::Input(Input::Exited(epoch, info)));
}

/// Waits until the child has exited without reaping it, so its pid stays reserved. False if
/// that is not possible here (the caller then reaps first and marks the exit after).
#[cfg(all(unix, not(any(target_os = "openbsd", target_os = "redox", target_os = "cygwin"))))]
fn wait_unreaped(pid: u32) -> bool {
    use rustix::process::{waitid, Pid, WaitId, WaitIdOptions};
    let Some(pid) = Pid::from_raw(pid as i32) else { return false };
    loop {
        match waitid(WaitId::Pid(pid), WaitIdOptions::EXITED | WaitIdOptions::NOWAIT) {
            Err(rustix::io::Errno::INTR) => continue,
            Ok(_) => return true,
            Err(_) => return false,
        }
    }
}

/// No `waitid(WNOWAIT)` on this platform.
#[cfg(all(unix, any(target_os = "openbsd", target_os = "redox", target_os = "cygwin")))]
fn wait_unreaped(_pid: u32) -> bool {
    false
}

/// Polls the process for its exit (non-Unix: the driver kills through the same `Child`).
#[cfg(not(unix))]
fn poll_for_exit(epoch: Epoch, state: &ExitState, tx: &SyncSender<Msg>) {
    let info = loop {
        {
            let mut exited = lock(&state.exited);
            match lock(&state.child).try_wait() {
                Ok(None) => {}
                Ok(Some(status)) => {
                    *exited = true;
                    break mcp_host::exit_info(status);
                }
                Err(_) => {
                    *exited = true;
                    break mcp_core::ExitInfo::default();
                }
            }
        }
        thread::sleep(std::time::Duration::from_millis(20));
    };
    let _ = tx.send(Msg::Input(Input::Exited(epoch, info)));
}
