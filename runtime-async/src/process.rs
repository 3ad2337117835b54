//! The IO of one server process: stdin written inline (a task only finishes what the pipe
//! did not take at once), stdout/stderr reader tasks and an exit waiter, all feeding the
//! server's engine directly.

use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use async_channel::{Receiver, Sender};
use futures_lite::io::{AsyncRead, AsyncReadExt, AsyncWrite};
use futures_lite::{future, FutureExt};
use mcpwire_core::{Epoch, ExitInfo};
use mcpwire_host::{lock, Feed, ProcessControl};

use crate::caller_io::CallerIo;
use crate::runtime::{ChildProcess, ProcessParts, Runtime};
use crate::stdout::SharedStdout;
use mcpwire_core::Input;
use mcpwire_host::{kill_server_group, signal_server};

/// Read buffer size for stdout and stderr.
const READ_CHUNK: usize = 64 * 1024;

type Writer = Box<dyn AsyncWrite + Send + Unpin>;

/// A process's stdin, shared by the engine (which writes inline) and the writer task (which
/// finishes what the pipe did not take at once).
#[derive(Default)]
struct StdinState {
    /// `None` once closed or broken.
    writer: Option<Writer>,
    /// Bytes the pipe has not taken yet, in order.
    queue: Vec<u8>,
    /// Close once the queue is written.
    closing: bool,
    /// The writer task, parked until there is something to write.
    task: Option<Waker>,
}

impl StdinState {
    /// Writes as much of the queue as the pipe takes now; `Pending` leaves the rest queued.
    fn poll_queue(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        while !self.queue.is_empty() {
            let Some(w) = self.writer.as_mut() else {
                self.queue.clear();
                return Poll::Ready(());
            };
            match Pin::new(w).poll_write(cx, &self.queue) {
                Poll::Ready(Ok(n)) if n > 0 => {
                    self.queue.drain(..n);
                }
                // A broken pipe: the process is going; its exit and stdout EOF tell the core.
                Poll::Ready(_) => {
                    self.writer = None;
                    self.queue.clear();
                }
                Poll::Pending => return Poll::Pending,
            }
        }
        if self.closing {
            self.writer = None;
        }
        Poll::Ready(())
    }

    fn wake_task(&mut self) {
        if let Some(task) = self.task.take() {
            task.wake();
        }
    }
}

/// The IO side's part of one running process.
pub(crate) struct ProcessIo {
    stdin: Arc<Mutex<StdinState>>,
    /// Offered to the caller whose request is written (it reads the reply itself).
    stdout: Arc<SharedStdout>,
    /// `false` = terminate, `true` = kill.
    signal: Sender<bool>,
}

impl std::fmt::Debug for ProcessIo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProcessIo").finish_non_exhaustive()
    }
}

impl ProcessIo {
    /// Starts the tasks for a freshly spawned process.
    pub(crate) fn start<R: Runtime>(rt: &R, epoch: Epoch, parts: ProcessParts, feed: Arc<dyn Feed>) -> Self {
        let ProcessParts { stdin, stdout, stderr, child } = parts;
        let stdin = Arc::new(Mutex::new(StdinState { writer: Some(stdin), ..StdinState::default() }));
        let (signal_tx, signal_rx) = async_channel::unbounded::<bool>();
        let pipe = stdin.clone();
        rt.spawn(Box::pin(future::poll_fn(move |cx| {
            let mut st = lock(&pipe);
            if st.poll_queue(cx).is_pending() {
                return Poll::Pending;
            }
            if st.writer.is_none() {
                return Poll::Ready(());
            }
            st.task = Some(cx.waker().clone());
            Poll::Pending
        })));
        let stdout = SharedStdout::new(epoch, stdout, feed.clone());
        let reader = stdout.clone();
        rt.spawn(Box::pin(future::poll_fn(move |cx| reader.poll_task(cx))));
        rt.spawn(Box::pin(read_stderr(epoch, stderr, feed.clone())));
        rt.spawn(Box::pin(wait_for_exit(epoch, child, signal_rx, feed)));
        Self { stdin, stdout, signal: signal_tx }
    }

    fn close(&self) {
        let mut st = lock(&self.stdin);
        st.closing = true;
        if st.queue.is_empty() {
            st.writer = None;
        }
        st.wake_task();
    }
}

/// The stderr reader task: feeds what the server writes until it ends.
async fn read_stderr(epoch: Epoch, mut stderr: Box<dyn AsyncRead + Send + Unpin>, feed: Arc<dyn Feed>) {
    let mut buf = vec![0u8; READ_CHUNK];
    while let Ok(n) = stderr.read(&mut buf).await {
        if n == 0 {
            break;
        }
        if !feed.feed(Input::Stderr(epoch, buf[..n].to_vec())) {
            return;
        }
        // A server writing stderr without pause must not hold the executor: async-io streams
        // have no cooperative budget, and awaiting a read that is ready never yields.
        future::yield_now().await;
    }
    feed.feed(Input::StderrEof(epoch));
}

impl ProcessControl for ProcessIo {
    fn write(&self, bytes: Vec<u8>) {
        let mut st = lock(&self.stdin);
        if st.writer.is_none() || st.closing {
            return;
        }
        // A caller issuing a request on this thread waits for the reply on stdout.
        let _ = mcpwire_host::offer_to_caller(CallerIo::Stdout(self.stdout.clone(), None));
        let was_idle = st.queue.is_empty();
        st.queue.extend_from_slice(&bytes);
        if was_idle {
            // One attempt on the caller's own thread: a pipe with room takes it all at once.
            let mut cx = Context::from_waker(Waker::noop());
            if st.poll_queue(&mut cx).is_ready() {
                return;
            }
        }
        st.wake_task();
    }

    fn close_stdin(&mut self) {
        self.close();
    }

    fn signal(&self, force: bool) {
        let _ = self.signal.try_send(force);
    }
}

impl Drop for ProcessIo {
    fn drop(&mut self) {
        self.close();
    }
}

/// Kills what is left of a server's process group when the exit waiter ends: after the
/// server exited, or when the waiter is dropped (the runtime shutting down) before the child
/// handle kills the server itself.
struct GroupGuard(Option<u32>);

impl Drop for GroupGuard {
    fn drop(&mut self) {
        if let Some(pid) = self.0 {
            kill_server_group(pid);
        }
    }
}

/// Waits for the process to exit, applying terminate/kill requests (to its process group)
/// meanwhile; then kills what is left of the group.
async fn wait_for_exit(
    epoch: Epoch,
    mut child: Box<dyn ChildProcess>,
    signals: Receiver<bool>,
    feed: Arc<dyn Feed>,
) {
    enum Wake {
        Exited(ExitInfo),
        Signal(bool),
    }
    // Declared after `child`, so dropped before it: the group is killed while the server's
    // pid is still reserved.
    let group = GroupGuard(child.id());
    let mut signals_open = true;
    let status = loop {
        let wake = {
            let exit = async { Wake::Exited(child.wait().await.unwrap_or_default()) };
            if signals_open {
                let sig = async {
                    match signals.recv().await {
                        Ok(force) => Wake::Signal(force),
                        Err(_) => future::pending().await,
                    }
                };
                exit.or(sig).await
            } else {
                exit.await
            }
        };
        match wake {
            Wake::Exited(status) => break status,
            Wake::Signal(force) => {
                // The pid is only signalled while the child handle has not reaped it.
                let sent = child.id().map(|pid| signal_server(pid, force));
                if !matches!(sent, Some(Ok(()))) {
                    let _ = child.kill();
                }
            }
        }
        if signals.is_closed() && signals.is_empty() {
            signals_open = false;
        }
    };
    drop(group);
    feed.feed(Input::Exited(epoch, status));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counts the stderr chunks it is fed.
    #[derive(Default)]
    struct Chunks(Mutex<usize>);

    impl Feed for Chunks {
        fn feed(&self, input: Input) -> bool {
            if let Input::Stderr(..) = input {
                *lock(&self.0) += 1;
            }
            true
        }
    }

    #[test]
    fn a_server_writing_stderr_without_pause_lets_the_executor_run_others() {
        let chunks = Arc::new(Chunks::default());
        let mut task = Box::pin(read_stderr(
            mcp_tests::support::an_epoch(),
            Box::new(crate::test_streams::Endless::default()),
            chunks.clone(),
        ));
        let mut cx = Context::from_waker(Waker::noop());
        for poll in 1..=3 {
            assert!(task.as_mut().poll(&mut cx).is_pending(), "the reader yields");
            assert_eq!(*lock(&chunks.0), poll, "one chunk per poll");
        }
    }
}
