//! Batches of tool calls: [`ToolCall`] (one call of a batch) and [`BatchRequest`] (the calls,
//! at most a few at once, each routed like `Client::call_tool`).

use std::future::IntoFuture;

use mcpwire_core::calls::CallTool;
use mcpwire_core::types::CallToolResult;
use mcpwire_core::ClientError;
use serde_json::Value;

use crate::client::Client;
use crate::family::Family;
use crate::pending_op::{Pending, PendingFuture};
use crate::request_builder::RequestBuilder;
use crate::style::{Awaiting, Returning};

/// How many calls of a batch run at once unless [`BatchRequest::concurrency`] says otherwise.
pub const DEFAULT_BATCH_CONCURRENCY: usize = 8;

/// One call of a batch ([`Client::call_tools`]).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ToolCall {
    /// The tool.
    pub name: String,
    /// Its arguments (a JSON object, or `null`).
    pub arguments: Value,
    /// The server to call it on; routed by tool name when `None`.
    pub server: Option<String>,
}

impl ToolCall {
    /// A call of `name` with `arguments`, routed by tool name.
    pub fn new(name: impl Into<String>, arguments: Value) -> Self {
        Self { name: name.into(), arguments, server: None }
    }

    /// The same call on the server called `server`.
    pub fn on(mut self, server: impl Into<String>) -> Self {
        self.server = Some(server.into());
        self
    }
}

impl<F: Family> Client<F> {
    /// Calls several tools, at most [`DEFAULT_BATCH_CONCURRENCY`] at once unless
    /// [`BatchRequest::concurrency`] says otherwise; the results come in the order of
    /// `calls`, each call's failure on its own.
    pub fn call_tools(&self, calls: impl IntoIterator<Item = ToolCall>) -> BatchRequest<'_, F> {
        BatchRequest {
            client: self,
            calls: calls.into_iter().collect(),
            concurrency: DEFAULT_BATCH_CONCURRENCY,
        }
    }
}

/// A batch of tool calls ([`Client::call_tools`]); awaited (async client) or sent (blocking
/// client), it gives each call's outcome in order.
#[must_use = "a batch runs only when awaited or sent"]
#[derive(Debug)]
pub struct BatchRequest<'a, F: Family> {
    client: &'a Client<F>,
    calls: Vec<ToolCall>,
    concurrency: usize,
}

impl<'a, F: Family> BatchRequest<'a, F> {
    /// How many calls run at once (at least 1).
    pub fn concurrency(mut self, concurrency: usize) -> Self {
        self.concurrency = concurrency.max(1);
        self
    }

    fn run(self) -> Pending<'a, F, Vec<Result<CallToolResult, ClientError>>> {
        let Self { client, calls, concurrency } = self;
        Pending::new(async move {
            let jobs: Vec<_> = calls
                .into_iter()
                .map(|call| async move {
                    let request =
                        RequestBuilder::to_client(client, Ok(CallTool::new(&call.name, call.arguments)));
                    match &call.server {
                        Some(server) => request.server(server).start().await,
                        None => request.start().await,
                    }
                })
                .collect();
            F::fan_out(jobs, concurrency).await
        })
    }
}

impl<'a, F: Family<Style = Awaiting>> IntoFuture for BatchRequest<'a, F> {
    type Output = Vec<Result<CallToolResult, ClientError>>;
    type IntoFuture = PendingFuture<'a, Self::Output>;

    fn into_future(self) -> Self::IntoFuture {
        self.run().into_future()
    }
}

impl<F: Family<Style = Returning>> BatchRequest<'_, F> {
    /// Runs the batch and blocks until every call ended.
    pub fn send(self) -> Vec<Result<CallToolResult, ClientError>> {
        self.run().send()
    }
}
