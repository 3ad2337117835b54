//! The IO of one server process: stdin written inline by whoever holds the engine (a
//! non-blocking pipe on Unix; a writer thread finishes what the pipe did not take at once),
//! stdout/stderr reader threads and an exit waiter, all feeding the server's engine directly.
//!
//! The waiter thread owns the [`Child`] (it blocks in `wait`), so the IO side signals the
//! process by pid. A pid is only safe to signal until the process is reaped, so the waiter
//! first waits *without reaping* (`waitid(WNOWAIT)`, where the platform has it), then marks
//! the process exited under the same lock the IO side signals under, and only then reaps it.
//! Where `waitid` is missing the mark follows the reap (a tiny window remains); on non-Unix
//! platforms the waiter polls instead and kills through the `Child` itself.

use std::io::{self, Read, Write};
#[cfg(not(unix))]
use std::process::ChildStdout;
use std::process::{Child, ChildStderr, ChildStdin};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;

use mcpwire_core::Epoch;
use mcpwire_core::Input;
use mcpwire_host::{Feed, ProcessControl};

use crate::io_side::thread_name;
use mcpwire_host::lock;

/// Read buffer size for stdout and stderr.
const READ_CHUNK: usize = 64 * 1024;

/// State shared by the IO side (which signals) and the waiter (which reaps).
#[derive(Debug)]
struct ExitState {
    /// True once the process may have been reaped: from then on its pid is never signalled.
    exited: Mutex<bool>,
    /// The process itself (non-Unix: killed through its handle, polled for its exit).
    #[cfg(not(unix))]
    child: Mutex<Child>,
}

/// A process's stdin, shared by the engine (which writes inline) and the writer thread.
#[derive(Debug, Default)]
struct StdinState {
    /// False once closed or broken.
    open: bool,
    /// Bytes not written yet, in order.
    queue: Vec<u8>,
    /// The writer thread is writing bytes it took from the queue.
    busy: bool,
    /// Close once everything queued is written.
    closing: bool,
    /// The pipe, non-blocking, for inline writes (Unix; elsewhere every write is queued).
    /// Dropped when stdin closes, with the writer thread's own handle.
    #[cfg(unix)]
    inline: Option<ChildStdin>,
}

impl StdinState {
    /// Stdin is done: no more writes, and this side's handle to the pipe is closed.
    fn shut(&mut self) {
        self.open = false;
        self.queue.clear();
        #[cfg(unix)]
        {
            self.inline = None;
        }
    }
}

#[derive(Debug)]
struct Stdin {
    state: Mutex<StdinState>,
    /// Signals the writer thread.
    work: Condvar,
}

impl Stdin {
    fn close(&self) {
        let mut st = lock(&self.state);
        st.closing = true;
        #[cfg(unix)]
        if st.queue.is_empty() && !st.busy {
            st.inline = None;
        }
        drop(st);
        self.work.notify_one();
    }
}

/// The IO side's part of one running process.
#[derive(Debug)]
pub(crate) struct ProcessIo {
    stdin: Arc<Stdin>,
    /// Offered to the caller whose request is written: it reads the reply itself.
    #[cfg(unix)]
    stdout: Arc<crate::stdout::SharedStdout>,
    #[cfg_attr(not(unix), allow(dead_code))]
    pid: u32,
    state: Arc<ExitState>,
}

impl ProcessIo {
    /// Starts the threads for a freshly spawned process (spawned with all three pipes).
    /// On failure the process is killed before the error is returned.
    pub(crate) fn start(name: &str, epoch: Epoch, mut child: Child, feed: Arc<dyn Feed>) -> io::Result<Self> {
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
        let (shared, writer) = stdin_pair(stdin);
        #[cfg(unix)]
        let stdout = match crate::stdout::SharedStdout::new(epoch, stdout, feed.clone()) {
            Ok(stdout) => stdout,
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(e);
            }
        };
        #[cfg(unix)]
        let io = Self { stdin: shared.clone(), stdout: stdout.clone(), pid, state };
        #[cfg(not(unix))]
        let io = Self { stdin: shared.clone(), pid, state };
        #[cfg(unix)]
        let waiter = {
            let (state, feed) = (io.state.clone(), feed.clone());
            move || wait_for_exit(epoch, child, pid, &state, &*feed)
        };
        #[cfg(not(unix))]
        let waiter = {
            let (state, feed) = (io.state.clone(), feed.clone());
            move || poll_for_exit(epoch, &state, &*feed)
        };
        // If a thread cannot be started, dropping `io` kills the process.
        spawn_thread(name, "wait", waiter)?;
        let writer = writer?;
        spawn_thread(name, "stdin", move || write_stdin(&shared, writer))?;
        #[cfg(unix)]
        spawn_thread(name, "stdout", move || stdout.run_reader())?;
        #[cfg(not(unix))]
        {
            let out = feed.clone();
            spawn_thread(name, "stdout", move || read_stdout(epoch, stdout, &*out))?;
        }
        spawn_thread(name, "stderr", move || read_stderr(epoch, stderr, &*feed))?;
        Ok(io)
    }
}

impl ProcessControl for ProcessIo {
    /// Writes to stdin now as far as the pipe takes it, queueing the rest for the writer
    /// thread (dropped silently once stdin is closed or broken). Never blocks.
    fn write(&self, bytes: Vec<u8>) {
        let mut st = lock(&self.stdin.state);
        if !st.open || st.closing {
            return;
        }
        // A caller issuing a request on this thread waits for the reply on stdout.
        #[cfg(unix)]
        let _ = mcpwire_host::offer_to_caller(crate::caller_io::CallerIo::Stdout(self.stdout.clone()));
        let mut rest = &bytes[..];
        #[cfg(unix)]
        if let (true, Some(pipe)) = (st.queue.is_empty() && !st.busy, st.inline.as_ref()) {
            let mut pipe = pipe;
            while !rest.is_empty() {
                match pipe.write(rest) {
                    Ok(0) => break,
                    Ok(n) => rest = &rest[n..],
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                    // A broken pipe: the process is going; its exit and stdout EOF tell the core.
                    Err(_) => {
                        st.shut();
                        return;
                    }
                }
            }
        }
        if !rest.is_empty() {
            st.queue.extend_from_slice(rest);
            self.stdin.work.notify_one();
        }
    }

    /// Closes stdin once everything queued so far is written.
    fn close_stdin(&mut self) {
        self.stdin.close();
    }

    /// Terminates (`force == false`: SIGTERM, falling back to a kill) or kills the process
    /// and its process group, unless its exit was already seen (the waiter then killed what
    /// was left of the group).
    fn signal(&self, force: bool) {
        let exited = lock(&self.state.exited);
        if *exited {
            return;
        }
        #[cfg(unix)]
        {
            if force || mcpwire_host::signal_server(self.pid, false).is_err() {
                let _ = mcpwire_host::signal_server(self.pid, true);
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
    /// A process must not outlive its engine: kill it if its exit was not seen.
    fn drop(&mut self) {
        self.stdin.close();
        self.signal(true);
    }
}

fn spawn_thread<F: FnOnce() + Send + 'static>(server: &str, what: &str, f: F) -> io::Result<()> {
    thread::Builder::new().name(thread_name(server, what)).spawn(f).map(drop)
}

/// The shared stdin and the writer thread's own handle to the pipe (blocking elsewhere than
/// on Unix, where the pipe is made non-blocking for inline writes and the writer polls).
fn stdin_pair(stdin: ChildStdin) -> (Arc<Stdin>, io::Result<std::fs::File>) {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        let writer = stdin.as_fd().try_clone_to_owned().map(std::fs::File::from).and_then(|f| {
            let flags = rustix::fs::fcntl_getfl(&f)?;
            rustix::fs::fcntl_setfl(&f, flags | rustix::fs::OFlags::NONBLOCK)?;
            Ok(f)
        });
        let state = StdinState { open: true, inline: Some(stdin), ..StdinState::default() };
        (Arc::new(Stdin { state: Mutex::new(state), work: Condvar::new() }), writer)
    }
    #[cfg(not(unix))]
    {
        use std::os::windows::io::OwnedHandle;
        let writer = Ok(std::fs::File::from(OwnedHandle::from(stdin)));
        let state = StdinState { open: true, ..StdinState::default() };
        (Arc::new(Stdin { state: Mutex::new(state), work: Condvar::new() }), writer)
    }
}

/// Writes what the inline writes left queued; closes the pipe once asked to and done.
fn write_stdin(stdin: &Stdin, mut pipe: std::fs::File) {
    loop {
        let chunk = {
            let mut st = lock(&stdin.state);
            st.busy = false;
            loop {
                if !st.open {
                    return;
                }
                if !st.queue.is_empty() {
                    break;
                }
                if st.closing {
                    st.shut();
                    return;
                }
                st = stdin.work.wait(st).unwrap_or_else(|p| p.into_inner());
            }
            st.busy = true;
            std::mem::take(&mut st.queue)
        };
        if write_all(&mut pipe, &chunk).is_err() {
            lock(&stdin.state).shut();
            return;
        }
    }
}

/// Writes all of `bytes`, waiting for room when the (non-blocking) pipe is full.
fn write_all(pipe: &mut std::fs::File, mut bytes: &[u8]) -> io::Result<()> {
    while !bytes.is_empty() {
        match pipe.write(bytes) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => bytes = &bytes[n..],
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            #[cfg(unix)]
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                use rustix::event::{poll, PollFd, PollFlags};
                let mut fds = [PollFd::new(&*pipe, PollFlags::OUT)];
                match poll(&mut fds, None) {
                    Ok(_) | Err(rustix::io::Errno::INTR) => {}
                    Err(e) => return Err(e.into()),
                }
            }
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

#[cfg(not(unix))]
fn read_stdout(epoch: Epoch, mut stdout: ChildStdout, feed: &dyn Feed) {
    let mut buf = vec![0u8; READ_CHUNK];
    loop {
        match stdout.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                if !feed.feed(Input::Stdout(epoch, buf[..n].to_vec())) {
                    return;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    feed.feed(Input::StdoutEof(epoch));
}

fn read_stderr(epoch: Epoch, mut stderr: ChildStderr, feed: &dyn Feed) {
    let mut buf = vec![0u8; READ_CHUNK];
    loop {
        match stderr.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                if !feed.feed(Input::Stderr(epoch, buf[..n].to_vec())) {
                    return;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    feed.feed(Input::StderrEof(epoch));
}

/// Blocks until the process exits, marks it exited, kills what is left of its process group,
/// reaps it and reports the exit.
#[cfg(unix)]
fn wait_for_exit(epoch: Epoch, mut child: Child, pid: u32, state: &ExitState, feed: &dyn Feed) {
    let status = if wait_unreaped(pid) {
        // A zombie keeps its pid (and group id): mark it exited, kill the rest of its group,
        // then reap it, under the IO side's lock.
        let mut exited = lock(&state.exited);
        *exited = true;
        mcpwire_host::kill_server_group(pid);
        child.wait()
    } else {
        let status = child.wait();
        *lock(&state.exited) = true;
        mcpwire_host::kill_server_group(pid);
        status
    };
    let info = status.map(mcpwire_host::exit_info).unwrap_or_default();
    feed.feed(Input::Exited(epoch, info));
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

/// Polls the process for its exit (non-Unix: the IO side kills through the same `Child`).
#[cfg(not(unix))]
fn poll_for_exit(epoch: Epoch, state: &ExitState, feed: &dyn Feed) {
    let info = loop {
        {
            let mut exited = lock(&state.exited);
            match lock(&state.child).try_wait() {
                Ok(None) => {}
                Ok(Some(status)) => {
                    *exited = true;
                    break mcpwire_host::exit_info(status);
                }
                Err(_) => {
                    *exited = true;
                    break mcpwire_core::ExitInfo::default();
                }
            }
        }
        thread::sleep(std::time::Duration::from_millis(20));
    };
    feed.feed(Input::Exited(epoch, info));
}
