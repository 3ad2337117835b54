//! A client's tools as LLM-provider tools: the conversions of [`mcpwire_core::tool_formats`] over
//! every server's tools, and the way back from a model's tool call to `tools/call` on the
//! server that offers the tool.

use mcpwire_core::calls::CallTool;
use mcpwire_core::tool_formats::{convert, Provider, ProviderToolCall, ProviderTools, ToolCallError};
use mcpwire_core::types::CallToolResult;
use mcpwire_core::ClientError;
use serde_json::Value;

use crate::client::Client;
use crate::family::Family;
use crate::pending_op::Pending;
use crate::request_builder::RequestBuilder;

impl<F: Family> Client<F> {
    /// Every server's tools in `provider`'s format (OpenAI, Anthropic, Google), with names
    /// made unique across servers; a server that could not list its tools is in
    /// [`ProviderTools::failed`].
    pub fn provider_tools(&self, provider: Provider) -> Pending<'_, F, ProviderTools> {
        Pending::new(async move {
            let tools = self.list_tools().into_inner().await;
            let mut converted = convert(provider, &tools.items);
            converted.failed = tools.failed;
            converted
        })
    }

    /// Runs a model's tool call (in the format of `tools.provider`) on the server that offers
    /// the tool: the parsed call and the result.
    pub fn call_provider_tool<'a>(
        &'a self,
        tools: &'a ProviderTools,
        call: &'a Value,
    ) -> Pending<'a, F, Result<(ProviderToolCall, CallToolResult), ClientError>> {
        Pending::new(async move {
            let parsed = ProviderToolCall::parse(tools.provider, call)?;
            let target =
                tools.resolve(&parsed.name).ok_or_else(|| ToolCallError::UnknownName(parsed.name.clone()))?;
            let arguments = Value::Object(parsed.arguments.clone());
            let request = RequestBuilder::to_client(self, Ok(CallTool::new(&target.tool, arguments)));
            let result = request.server(&target.server).start().await?;
            Ok((parsed, result))
        })
    }
}
