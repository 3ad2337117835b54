//! The IO tasks of one server process: stdin writer, stdout/stderr readers, exit waiter.

use async_channel::{Receiver, Sender};
use futures_lite::io::{AsyncReadExt, AsyncWriteExt};
use futures_lite::{future, FutureExt};
use mcp_core::{Epoch, ExitInfo};
use mcp_host::ProcessControl;

use crate::driver::IoMsg;
use crate::runtime::{ChildProcess, ProcessParts, Runtime};
use mcp_core::Input;
use mcp_host::terminate;

/// Read buffer size for stdout and stderr.
const READ_CHUNK: usize = 64 * 1024;

/// The driver's side of one running process.
#[derive(Debug)]
pub(crate) struct ProcessIo {
    /// `None` once stdin was closed.
    stdin: Option<Sender<Vec<u8>>>,
    /// `false` = terminate, `true` = kill.
    signal: Sender<bool>,
}

impl ProcessIo {
    /// Starts the tasks for a freshly spawned process.
    pub(crate) fn start<R: Runtime>(rt: &R, epoch: Epoch, parts: ProcessParts, io_tx: Sender<IoMsg>) -> Self {
        let ProcessParts { mut stdin, mut stdout, mut stderr, child } = parts;
        let (stdin_tx, stdin_rx) = async_channel::unbounded::<Vec<u8>>();
        let (signal_tx, signal_rx) = async_channel::unbounded::<bool>();
        rt.spawn(Box::pin(async move {
            while let Ok(bytes) = stdin_rx.recv().await {
                if stdin.write_all(&bytes).await.is_err() || stdin.flush().await.is_err() {
                    break;
                }
            }
            let _ = stdin.close().await;
        }));
        let tx = io_tx.clone();
        rt.spawn(Box::pin(async move {
            let mut buf = vec![0u8; READ_CHUNK];
            loop {
                match stdout.read(&mut buf).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        if tx.send(Input::Stdout(epoch, buf[..n].to_vec())).await.is_err() {
                            return;
                        }
                    }
                }
            }
            let _ = tx.send(Input::StdoutEof(epoch)).await;
        }));
        let tx = io_tx.clone();
        rt.spawn(Box::pin(async move {
            let mut buf = vec![0u8; READ_CHUNK];
            while let Ok(n) = stderr.read(&mut buf).await {
                if n == 0 {
                    break;
                }
                if tx.send(Input::Stderr(epoch, buf[..n].to_vec())).await.is_err() {
                    return;
                }
            }
            let _ = tx.send(Input::StderrEof(epoch)).await;
        }));
        rt.spawn(Box::pin(wait_for_exit(epoch, child, signal_rx, io_tx)));
        Self { stdin: Some(stdin_tx), signal: signal_tx }
    }
}

impl ProcessControl for ProcessIo {
    fn write(&self, bytes: Vec<u8>) {
        if let Some(tx) = &self.stdin {
            let _ = tx.try_send(bytes);
        }
    }

    fn close_stdin(&mut self) {
        self.stdin = None;
    }

    fn signal(&self, force: bool) {
        let _ = self.signal.try_send(force);
    }
}

/// Waits for the process to exit, applying terminate/kill requests meanwhile.
async fn wait_for_exit(
    epoch: Epoch,
    mut child: Box<dyn ChildProcess>,
    signals: Receiver<bool>,
    io_tx: Sender<IoMsg>,
) {
    enum Wake {
        Exited(ExitInfo),
        Signal(bool),
    }
    let mut signals_open = true;
    let status = loop {
        let pid = child.id();
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
            Wake::Signal(true) => {
                let _ = child.kill();
            }
            Wake::Signal(false) => {
                let polite = pid.map(terminate);
                if !matches!(polite, Some(Ok(()))) {
                    let _ = child.kill();
                }
            }
        }
        if signals.is_closed() && signals.is_empty() {
            signals_open = false;
        }
    };
    let _ = io_tx.send(Input::Exited(epoch, status)).await;
}
