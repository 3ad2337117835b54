//! A server process's stdout, read by whoever waits on it (Unix).
//!
//! A caller waiting for its reply becomes the *leader*: it reads stdout itself (`poll` on the
//! pipe and on a wake pipe), so the reply is read, fed to the engine and returned on the
//! caller's own thread, with no reader thread woken in between. A delivery from another
//! thread (a timeout, a cancel, the process exiting) nudges the leader through its wake pipe.
//!
//! The reader thread reads when no caller does: notifications, server requests, and replies
//! of callers waiting while another leads. It steps aside while callers lead and for a short
//! [`HANDOVER`] after the last one left (so a caller that follows at once leads without waking
//! it); callers waiting behind a leader bring it back as soon as the leader goes.
//!
//! Every read is one chunk at most, so a reader checks its own slot between chunks of a long
//! output. A leader that finds the reader thread mid-read waits for that one read to end (on
//! the lock) and then reads on, rather than polling a pipe that stays readable until the other
//! read drains it: with 64 callers on one core, polling there cost half the throughput.

use std::io::{self, Read};
use std::os::fd::{AsFd, OwnedFd};
use std::process::ChildStdout;
use std::sync::{Arc, Condvar, Mutex, PoisonError, TryLockError};
use std::time::Duration;

use mcpwire_core::{Epoch, Input};
use mcpwire_host::{lock, Feed, Outcome};
use rustix::event::{poll, PollFd, PollFlags};

use crate::reply::Slot;

/// Read buffer size.
const READ_CHUNK: usize = 64 * 1024;

/// How long the reader thread stays aside after callers stopped leading.
const HANDOVER: Duration = Duration::from_millis(2);

/// One process's stdout, shared by its reader thread and the callers waiting on it.
pub(crate) struct SharedStdout {
    epoch: Epoch,
    feed: Arc<dyn Feed>,
    /// Held only while someone reads (in order, feeding as it goes).
    reading: Mutex<Reading>,
    /// The pipe, for `poll` (a duplicate: the reader keeps its own handle).
    pollable: OwnedFd,
    coord: Mutex<Coord>,
    /// Signals the reader thread: a leader left with callers waiting, or stdout ended.
    changed: Condvar,
    /// Wakes the reader thread out of `poll` when a caller takes over.
    thread_wake: WakePipe,
    /// Wakes the leader out of `poll` when its outcome came from another thread.
    leader_wake: Arc<WakePipe>,
    /// `leader_wake` as a slot's nudge (made once, not per call).
    leader_nudge: crate::reply::Nudge,
}

impl std::fmt::Debug for SharedStdout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedStdout").field("epoch", &self.epoch).finish_non_exhaustive()
    }
}

struct Reading {
    /// Non-blocking; `None` once stdout ended (EOF, an error, or the engine is gone).
    stdout: Option<ChildStdout>,
    buf: Vec<u8>,
}

#[derive(Default)]
struct Coord {
    /// A caller is reading now.
    leading: bool,
    /// Callers waiting on their reply slots (behind a leader, or while the reader thread reads).
    waiting: usize,
    /// How many times a caller took the lead (the reader thread's "anyone since?").
    leads: u64,
    /// The reader thread is in (or about to enter) `poll`.
    thread_polling: bool,
    ended: bool,
}

/// What a read attempt found.
enum Read1 {
    /// One read was made (at most one chunk) or there was nothing to read: `poll` says when
    /// there is more. Bounded, so a caller checks its slot between chunks of a long output.
    Read,
    /// Someone else is reading.
    Busy,
    Ended,
}

/// A non-blocking self-pipe.
struct WakePipe {
    read: OwnedFd,
    write: OwnedFd,
}

impl WakePipe {
    fn new() -> io::Result<Self> {
        let (read, write) = rustix::pipe::pipe()?;
        for fd in [&read, &write] {
            let flags = rustix::fs::fcntl_getfl(fd)?;
            rustix::fs::fcntl_setfl(fd, flags | rustix::fs::OFlags::NONBLOCK)?;
            rustix::io::fcntl_setfd(fd, rustix::io::FdFlags::CLOEXEC)?;
        }
        Ok(Self { read, write })
    }

    fn nudge(&self) {
        // A full pipe already holds a nudge.
        let _ = rustix::io::write(&self.write, &[1]);
    }

    fn drain(&self) {
        let mut buf = [0u8; 64];
        while matches!(rustix::io::read(&self.read, &mut buf), Ok(n) if n > 0) {}
    }
}

impl SharedStdout {
    /// Shares `stdout` (made non-blocking here).
    pub(crate) fn new(epoch: Epoch, stdout: ChildStdout, feed: Arc<dyn Feed>) -> io::Result<Arc<Self>> {
        let flags = rustix::fs::fcntl_getfl(&stdout)?;
        rustix::fs::fcntl_setfl(&stdout, flags | rustix::fs::OFlags::NONBLOCK)?;
        let pollable = stdout.as_fd().try_clone_to_owned()?;
        let leader_wake = Arc::new(WakePipe::new()?);
        let wake = leader_wake.clone();
        Ok(Arc::new(Self {
            epoch,
            feed,
            reading: Mutex::new(Reading { stdout: Some(stdout), buf: Vec::new() }),
            pollable,
            coord: Mutex::new(Coord::default()),
            changed: Condvar::new(),
            thread_wake: WakePipe::new()?,
            leader_wake,
            leader_nudge: Arc::new(move || wake.nudge()),
        }))
    }

    /// Reads once (up to [`READ_CHUNK`]), feeding the engine. With `wait`, a read in progress on
    /// another thread is waited for (one chunk at most), then this one reads; without, it is
    /// `Busy`.
    fn read_available(&self, wait: bool) -> Read1 {
        let mut reading = match self.reading.try_lock() {
            Ok(guard) => guard,
            Err(TryLockError::Poisoned(p)) => p.into_inner(),
            Err(TryLockError::WouldBlock) if wait => lock(&self.reading),
            Err(TryLockError::WouldBlock) => return Read1::Busy,
        };
        let Reading { stdout, buf } = &mut *reading;
        let Some(pipe) = stdout.as_mut() else { return Read1::Ended };
        if buf.is_empty() {
            buf.resize(READ_CHUNK, 0);
        }
        loop {
            match pipe.read(buf) {
                Ok(0) => {
                    self.feed.feed(Input::StdoutEof(self.epoch));
                    break;
                }
                Ok(n) => {
                    if !self.feed.feed(Input::Stdout(self.epoch, buf[..n].to_vec())) {
                        break;
                    }
                    // `poll` tells when there is more, without a read that would only say
                    // "would block" after a short one.
                    return Read1::Read;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Read1::Read,
                Err(_) => {
                    self.feed.feed(Input::StdoutEof(self.epoch));
                    break;
                }
            }
        }
        *stdout = None;
        drop(reading);
        lock(&self.coord).ended = true;
        self.changed.notify_all();
        self.thread_wake.nudge();
        self.leader_wake.nudge();
        Read1::Ended
    }

    /// Blocks until stdout or `wake` is readable (draining `wake`).
    fn wait_readable(&self, wake: &WakePipe) {
        let mut fds = [PollFd::new(&self.pollable, PollFlags::IN), PollFd::new(&wake.read, PollFlags::IN)];
        match poll(&mut fds, None) {
            Ok(_) => {
                if !fds[1].revents().is_empty() {
                    wake.drain();
                }
            }
            // EINTR: the caller looks again. Anything else would repeat: yield a moment.
            Err(rustix::io::Errno::INTR) => {}
            Err(_) => std::thread::sleep(Duration::from_millis(1)),
        }
    }

    /// The reader thread's loop; returns once stdout ended.
    pub(crate) fn run_reader(&self) {
        let mut seen = 0;
        loop {
            {
                let mut coord = lock(&self.coord);
                loop {
                    if coord.ended {
                        return;
                    }
                    let idle = !coord.leading && (coord.waiting > 0 || coord.leads == seen);
                    if idle {
                        break;
                    }
                    seen = coord.leads;
                    coord =
                        self.changed.wait_timeout(coord, HANDOVER).unwrap_or_else(PoisonError::into_inner).0;
                }
                coord.thread_polling = true;
            }
            self.wait_readable(&self.thread_wake);
            lock(&self.coord).thread_polling = false;
            if let Read1::Ended = self.read_available(false) {
                return;
            }
        }
    }

    /// Waits for `slot`'s outcome, reading stdout meanwhile unless another caller does.
    pub(crate) fn wait_for(&self, slot: &Slot) -> Outcome {
        let lead = {
            let mut coord = lock(&self.coord);
            // Behind a leader, or while the reader thread already reads for others: wait (a
            // takeover would only wake the thread to step aside again).
            if coord.ended || coord.leading || (coord.thread_polling && coord.waiting > 0) {
                coord.waiting += 1;
                false
            } else {
                coord.leading = true;
                coord.leads += 1;
                if coord.thread_polling {
                    self.thread_wake.nudge();
                }
                true
            }
        };
        if !lead {
            let outcome = slot.wait();
            lock(&self.coord).waiting -= 1;
            return outcome;
        }
        slot.set_nudge(Some(self.leader_nudge.clone()));
        let outcome = loop {
            if let Some(outcome) = slot.try_take() {
                break outcome;
            }
            if let Read1::Ended = self.read_available(true) {
                break slot.wait();
            }
            if let Some(outcome) = slot.try_take() {
                break outcome;
            }
            self.wait_readable(&self.leader_wake);
        };
        slot.set_nudge(None);
        let followers = {
            let mut coord = lock(&self.coord);
            coord.leading = false;
            coord.waiting > 0
        };
        if followers {
            self.changed.notify_all();
        }
        outcome
    }
}

#[cfg(test)]
mod tests {
    use std::process::{Command, Stdio};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::mpsc;

    use mcpwire_core::ClientError;
    use mcpwire_host::Reply;

    use super::*;
    use crate::reply::{slot, ReplyTo};

    /// Counts stdout bytes and delivers the caller's outcome once `after` of them went by. It
    /// takes a moment per chunk, long enough for the server to fill the pipe again.
    struct DeliverAfter {
        after: usize,
        seen: AtomicUsize,
        reply: Mutex<Option<ReplyTo>>,
    }

    impl Feed for DeliverAfter {
        fn feed(&self, input: Input) -> bool {
            if let Input::Stdout(_, bytes) = input {
                std::thread::sleep(Duration::from_millis(2));
                let seen = self.seen.fetch_add(bytes.len(), Ordering::SeqCst) + bytes.len();
                if seen >= self.after {
                    if let Some(reply) = lock(&self.reply).take() {
                        reply.deliver(Err(ClientError::Closed));
                    }
                }
            }
            true
        }
    }

    /// A server that never stops writing (`yes`): the caller reading its stdout returns as
    /// soon as the chunk carrying its reply is fed, rather than reading on while the pipe
    /// stays full.
    #[test]
    fn a_leader_returns_its_reply_while_the_server_keeps_writing() {
        let mut child = Command::new("yes").stdout(Stdio::piped()).spawn().expect("spawn yes");
        let stdout = child.stdout.take().expect("stdout");
        let (reply, slot) = slot();
        let after = 4 * READ_CHUNK;
        let feed =
            Arc::new(DeliverAfter { after, seen: AtomicUsize::new(0), reply: Mutex::new(Some(reply)) });
        let shared = SharedStdout::new(mcp_tests::support::an_epoch(), stdout, feed.clone()).expect("share");
        let (done, finished) = mpsc::channel();
        std::thread::spawn(move || {
            let outcome = shared.wait_for(&slot);
            let _ = done.send(matches!(outcome, Err(ClientError::Closed)));
        });
        let returned = finished.recv_timeout(Duration::from_secs(30));
        let _ = child.kill();
        let _ = child.wait();
        assert_eq!(returned, Ok(true), "the caller got its outcome");
        let seen = feed.seen.load(Ordering::SeqCst);
        assert!(seen < after + READ_CHUNK, "read {seen} bytes: more than one chunk past the reply");
    }
}
