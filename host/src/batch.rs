//! Batch and streaming tool calls, the parts every family shares: [`ToolCall`] (one call of a
//! batch, run through [`JoinBounded`](crate::JoinBounded) or [`run_bounded`](crate::run_bounded))
//! and [`UpdateFeed`] (what a streaming call has to say: progress, then the one final result).

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex};
use std::task::{Context, Poll, Waker};

use mcp_core::types::CallToolResult;
use mcp_core::{ClientError, Progress};
use serde_json::Value;

/// How many calls of a batch run at once unless the caller says otherwise.
pub const DEFAULT_BATCH_CONCURRENCY: usize = 8;

/// One call of a batch (`Client::call_tools`).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The tool's name.
    pub name: String,
    /// The arguments (a JSON object, or `null`).
    pub arguments: Value,
    /// The server to call it on; `None` routes by tool name like `call_tool`.
    pub server: Option<String>,
}

impl ToolCall {
    /// A call of `name` with `arguments`, routed by name.
    pub fn new(name: impl Into<String>, arguments: Value) -> Self {
        Self { name: name.into(), arguments, server: None }
    }

    /// On this server instead of routing by name.
    pub fn on(mut self, server: impl Into<String>) -> Self {
        self.server = Some(server.into());
        self
    }
}

/// What a streaming tool call yields: progress as it arrives, then the result (checked like
/// `call_tool`'s), then nothing.
#[derive(Debug)]
pub enum ToolCallUpdate {
    /// A progress notification of the call.
    Progress(Progress),
    /// The call's outcome; the last item.
    Done(Result<CallToolResult, ClientError>),
}

#[derive(Debug, Default)]
struct FeedState {
    progress: VecDeque<Progress>,
    outcome: Option<Result<CallToolResult, ClientError>>,
    ended: bool,
    waker: Option<Waker>,
}

/// The updates of one streaming call, fed by its progress callback and its outcome, read by a
/// `Stream` (async) or an iterator (blocking). Progress that arrived before the outcome is
/// always read before it.
#[derive(Debug, Default)]
pub struct UpdateFeed {
    state: Mutex<FeedState>,
    changed: Condvar,
}

impl UpdateFeed {
    fn state(&self) -> std::sync::MutexGuard<'_, FeedState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn notify(&self, mut state: std::sync::MutexGuard<'_, FeedState>) {
        let waker = state.waker.take();
        drop(state);
        self.changed.notify_all();
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    /// A progress notification arrived.
    pub fn push(&self, progress: Progress) {
        let mut state = self.state();
        if state.outcome.is_none() && !state.ended {
            state.progress.push_back(progress);
        }
        self.notify(state);
    }

    /// The call ended.
    pub fn finish(&self, outcome: Result<CallToolResult, ClientError>) {
        let mut state = self.state();
        if !state.ended {
            state.outcome = Some(outcome);
        }
        self.notify(state);
    }

    fn take(state: &mut FeedState) -> Option<Option<ToolCallUpdate>> {
        if let Some(progress) = state.progress.pop_front() {
            return Some(Some(ToolCallUpdate::Progress(progress)));
        }
        if let Some(outcome) = state.outcome.take() {
            state.ended = true;
            return Some(Some(ToolCallUpdate::Done(outcome)));
        }
        state.ended.then_some(None)
    }

    /// The next update if there is one (async readers): `Pending` registers the waker.
    pub fn poll_next(&self, cx: &mut Context<'_>) -> Poll<Option<ToolCallUpdate>> {
        let mut state = self.state();
        match Self::take(&mut state) {
            Some(next) => Poll::Ready(next),
            None => {
                state.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }

    /// Waits for the next update (blocking readers); `None` after the outcome was read.
    pub fn wait_next(&self) -> Option<ToolCallUpdate> {
        let mut state = self.state();
        loop {
            if let Some(next) = Self::take(&mut state) {
                return next;
            }
            state = self.changed.wait(state).unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// Defines the batch and streaming methods of a family's `Client` (which has `call_tool`,
/// `call_tool_on`, a private `route`, and `Server::call_tool_streaming` returning the family's
/// `ToolCallStream`): `batch_methods!(async await)` or `batch_methods!()`.
#[macro_export]
macro_rules! batch_methods {
    (async await) => {
        /// Calls several tools, at most [`DEFAULT_BATCH_CONCURRENCY`]($crate::DEFAULT_BATCH_CONCURRENCY)
        /// at a time; one outcome per call, in the order given (a failure does not stop the
        /// others).
        pub async fn call_tools(
            &self,
            calls: impl IntoIterator<Item = $crate::ToolCall>,
        ) -> Vec<Result<$crate::mcp_core::types::CallToolResult, $crate::mcp_core::ClientError>> {
            self.call_tools_bounded(calls, $crate::DEFAULT_BATCH_CONCURRENCY).await
        }

        /// [`Self::call_tools`] with at most `concurrency` calls in flight.
        pub async fn call_tools_bounded(
            &self,
            calls: impl IntoIterator<Item = $crate::ToolCall>,
            concurrency: usize,
        ) -> Vec<Result<$crate::mcp_core::types::CallToolResult, $crate::mcp_core::ClientError>> {
            let calls: Vec<$crate::ToolCall> = calls.into_iter().collect();
            let futures = calls.iter().map(|c| self.batch_call(c));
            $crate::JoinBounded::new(futures, concurrency).await
        }

        async fn batch_call(
            &self,
            call: &$crate::ToolCall,
        ) -> Result<$crate::mcp_core::types::CallToolResult, $crate::mcp_core::ClientError> {
            match &call.server {
                Some(server) => self.call_tool_on(server, &call.name, call.arguments.clone()).await,
                None => self.call_tool(&call.name, call.arguments.clone()).await,
            }
        }

        /// Calls a tool on the server that offers it and streams its progress, then its result
        /// (checked like [`Self::call_tool`]'s).
        pub async fn call_tool_streaming(
            &self,
            name: &str,
            arguments: $crate::serde_json::Value,
        ) -> Result<ToolCallStream, $crate::mcp_core::ClientError> {
            Ok(self.route(name).await?.call_tool_streaming(name, arguments))
        }
    };
    () => {
        /// Calls several tools, at most [`DEFAULT_BATCH_CONCURRENCY`]($crate::DEFAULT_BATCH_CONCURRENCY)
        /// at a time (on scoped threads); one outcome per call, in the order given (a failure
        /// does not stop the others).
        pub fn call_tools(
            &self,
            calls: impl IntoIterator<Item = $crate::ToolCall>,
        ) -> Vec<Result<$crate::mcp_core::types::CallToolResult, $crate::mcp_core::ClientError>> {
            self.call_tools_bounded(calls, $crate::DEFAULT_BATCH_CONCURRENCY)
        }

        /// [`Self::call_tools`] with at most `concurrency` calls in flight.
        pub fn call_tools_bounded(
            &self,
            calls: impl IntoIterator<Item = $crate::ToolCall>,
            concurrency: usize,
        ) -> Vec<Result<$crate::mcp_core::types::CallToolResult, $crate::mcp_core::ClientError>> {
            let jobs: Vec<_> = calls
                .into_iter()
                .map(|call| {
                    move || match &call.server {
                        Some(server) => self.call_tool_on(server, &call.name, call.arguments.clone()),
                        None => self.call_tool(&call.name, call.arguments.clone()),
                    }
                })
                .collect();
            $crate::run_bounded(jobs, concurrency)
        }

        /// Calls a tool on the server that offers it and iterates over its progress, then its
        /// result (checked like [`Self::call_tool`]'s).
        pub fn call_tool_streaming(
            &self,
            name: &str,
            arguments: $crate::serde_json::Value,
        ) -> Result<ToolCallStream, $crate::mcp_core::ClientError> {
            Ok(self.route(name)?.call_tool_streaming(name, arguments))
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn the_feed_gives_progress_then_the_outcome_once() {
        let feed = Arc::new(UpdateFeed::default());
        let p = |n: f64| Progress { progress: n, total: None, message: None };
        feed.push(p(1.0));
        feed.push(p(2.0));
        feed.finish(Err(ClientError::Closed));
        feed.push(p(3.0));
        assert!(
            matches!(feed.wait_next(), Some(ToolCallUpdate::Progress(Progress { progress, .. })) if progress == 1.0)
        );
        assert!(matches!(feed.wait_next(), Some(ToolCallUpdate::Progress(_))));
        assert!(matches!(feed.wait_next(), Some(ToolCallUpdate::Done(Err(ClientError::Closed)))));
        assert!(feed.wait_next().is_none());
        assert!(feed.wait_next().is_none());

        let feed = Arc::new(UpdateFeed::default());
        let writer = {
            let feed = feed.clone();
            std::thread::spawn(move || {
                std::thread::sleep(std::time::Duration::from_millis(20));
                feed.push(p(1.0));
                feed.finish(Err(ClientError::Closed));
            })
        };
        assert!(matches!(feed.wait_next(), Some(ToolCallUpdate::Progress(_))), "waits for the writer");
        writer.join().unwrap();
        assert!(matches!(feed.wait_next(), Some(ToolCallUpdate::Done(_))));
    }
}
