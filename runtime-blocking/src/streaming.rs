//! [`ToolCallStream`]: a tool call's progress, then its result, as an iterator.

use std::sync::Arc;
use std::thread::JoinHandle;

use mcp_core::RequestOptions;
use mcp_host::{ToolCallUpdate, UpdateFeed};
use serde_json::Value;

use crate::server::Server;

/// The updates of one tool call (`Server::call_tool_streaming`): each progress notification as
/// it arrives, then [`ToolCallUpdate::Done`] with the result, then `None`. The call runs on a
/// thread of its own from the start.
#[derive(Debug)]
pub struct ToolCallStream {
    feed: Arc<UpdateFeed>,
    thread: Option<JoinHandle<()>>,
}

impl ToolCallStream {
    pub(crate) fn start(server: &Server, name: &str, arguments: Value) -> Self {
        let feed = Arc::new(UpdateFeed::default());
        let (server, name, sink) = (server.clone(), name.to_owned(), feed.clone());
        let thread = std::thread::Builder::new().name("mcp-tool-stream".into()).spawn(move || {
            let progress = sink.clone();
            let report = move |p| progress.push(p);
            sink.finish(server.call_tool_with_progress(&name, arguments, RequestOptions::default(), report));
        });
        match thread {
            Ok(thread) => Self { feed, thread: Some(thread) },
            Err(e) => {
                feed.finish(Err(mcp_core::ClientError::Config(format!(
                    "cannot start a thread for the call: {e}"
                ))));
                Self { feed, thread: None }
            }
        }
    }
}

impl Iterator for ToolCallStream {
    type Item = ToolCallUpdate;

    fn next(&mut self) -> Option<ToolCallUpdate> {
        let next = self.feed.wait_next();
        if matches!(next, Some(ToolCallUpdate::Done(_))) {
            if let Some(thread) = self.thread.take() {
                // The outcome is in: the thread has nothing left to do.
                let _ = thread.join();
            }
        }
        next
    }
}

impl Server {
    /// Calls a tool and streams its progress, then its result (checked like `call_tool`'s).
    pub fn call_tool_streaming(&self, name: &str, arguments: Value) -> ToolCallStream {
        ToolCallStream::start(self, name, arguments)
    }
}
