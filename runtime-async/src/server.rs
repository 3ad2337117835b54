//! [`Server`]: the async API of one server of a client.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use async_channel::{Receiver, Sender};
use mcp_core::types::Tool;
use mcp_core::{ClientError, Request, RequestOptions, ServerInfo};
use mcp_host::{lock, Outcome, ProgressFn, SharedView};

use crate::driver::Command;

/// One server of a [`crate::Client`]. Cheap to clone; every clone talks to the same driver.
/// Dropping a request future before it completes cancels the request.
#[derive(Clone)]
pub struct Server {
    name: Arc<str>,
    tx: Sender<Command>,
    shared: SharedView,
    calls: Arc<AtomicU64>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server").field("name", &self.name).finish_non_exhaustive()
    }
}

/// A request on its way: awaiting it yields the outcome; dropping it cancels the request.
struct Call {
    call: u64,
    tx: Sender<Command>,
    rx: Receiver<Outcome>,
    done: bool,
}

impl Call {
    async fn outcome(mut self) -> Outcome {
        let r = self.rx.recv().await;
        self.done = true;
        r.unwrap_or(Err(ClientError::Closed))
    }
}

impl Drop for Call {
    fn drop(&mut self) {
        if !self.done {
            let _ = self.tx.try_send(Command::CancelCall(self.call));
        }
    }
}

impl Server {
    pub(crate) fn new(name: Arc<str>, tx: Sender<Command>, shared: SharedView) -> Self {
        Self { name, tx, shared, calls: Arc::new(AtomicU64::new(1)) }
    }

    /// The server's name in the client.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What is known about the server while it is connected.
    pub fn info(&self) -> Option<ServerInfo> {
        lock(&self.shared).info.clone()
    }

    /// The tools of the last complete listing, unless invalidated since.
    pub fn known_tools(&self) -> Option<Vec<Tool>> {
        lock(&self.shared).tools.clone()
    }

    fn start(&self, request: Request, opts: RequestOptions, progress: Option<ProgressFn>) -> Call {
        let call = self.calls.fetch_add(1, Ordering::Relaxed);
        let (reply, rx) = async_channel::bounded(1);
        // A closed driver leaves `rx` without sender: the outcome is then `Closed`.
        let _ = self.tx.try_send(Command::Request { call, request, opts, progress, reply });
        Call { call, tx: self.tx.clone(), rx, done: false }
    }

    /// Issues a request through the driver and waits for its outcome (the primitive the
    /// methods of [`mcp_host::server_methods!`] stand on).
    async fn issue(&self, request: Request, opts: RequestOptions, progress: Option<ProgressFn>) -> Outcome {
        self.start(request, opts, progress).outcome().await
    }

    mcp_host::server_methods!(async await);

    /// Shuts the server down (stdin closed, then terminate, then kill) and waits until done.
    pub async fn close(&self) {
        let (done, wait) = async_channel::bounded(1);
        if self.tx.try_send(Command::Close(done)).is_ok() {
            let _ = wait.recv().await;
        }
    }
}
