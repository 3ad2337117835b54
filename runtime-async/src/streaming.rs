//! [`ToolCallStream`]: a tool call's progress, then its result, as a `Stream`.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use mcp_core::types::CallToolResult;
use mcp_core::{ClientError, RequestOptions};
use mcp_host::{ToolCallUpdate, UpdateFeed};
use serde_json::Value;

use crate::server::Server;

type CallFuture = Pin<Box<dyn Future<Output = Result<CallToolResult, ClientError>> + Send>>;

/// The updates of one tool call (`Server::call_tool_streaming`): each progress notification as
/// it arrives, then [`ToolCallUpdate::Done`] with the result, then the end of the stream. The
/// call runs while the stream is polled; dropping the stream cancels it.
pub struct ToolCallStream {
    call: Option<CallFuture>,
    feed: Arc<UpdateFeed>,
}

impl std::fmt::Debug for ToolCallStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolCallStream").field("running", &self.call.is_some()).finish_non_exhaustive()
    }
}

impl ToolCallStream {
    pub(crate) fn start(server: &Server, name: &str, arguments: Value) -> Self {
        let feed = Arc::new(UpdateFeed::default());
        let (server, name, progress) = (server.clone(), name.to_owned(), feed.clone());
        let call: CallFuture = Box::pin(async move {
            let report = move |p| progress.push(p);
            server.call_tool_with_progress(&name, arguments, RequestOptions::default(), report).await
        });
        Self { call: Some(call), feed }
    }

    /// The next update; `None` after the result.
    pub async fn next(&mut self) -> Option<ToolCallUpdate> {
        futures_lite::StreamExt::next(self).await
    }
}

impl futures_lite::Stream for ToolCallStream {
    type Item = ToolCallUpdate;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<ToolCallUpdate>> {
        if let Some(call) = self.call.as_mut() {
            if let Poll::Ready(outcome) = call.as_mut().poll(cx) {
                self.call = None;
                self.feed.finish(outcome);
            }
        }
        self.feed.poll_next(cx)
    }
}

impl Server {
    /// Calls a tool and streams its progress, then its result (checked like `call_tool`'s).
    pub fn call_tool_streaming(&self, name: &str, arguments: Value) -> ToolCallStream {
        ToolCallStream::start(self, name, arguments)
    }
}
