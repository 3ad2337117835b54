//! A family's `Client` as LLM-provider tools, written once: the conversions of
//! [`mcp_core::tool_formats`] over every server's tools, and the way back from a model's tool
//! call to `tools/call` on the server that offers the tool. Expanded by
//! [`tool_format_methods!`](crate::tool_format_methods) inside each family's `impl Client`
//! (which has `list_tools` and `call_tool_on`).

/// Defines the provider-tool methods of a family's `Client`: `tool_format_methods!(async await)`
/// or `tool_format_methods!()`.
#[macro_export]
macro_rules! tool_format_methods {
    ($($async:ident $await:ident)?) => {
        /// Every server's tools in `provider`'s function-calling format, with names made valid
        /// and unique for the provider (a server prefix where two servers offer the same name).
        /// A server that cannot list its tools is named in
        /// [`ProviderTools::failed`]($crate::mcp_core::tool_formats::ProviderTools::failed) and
        /// the others' tools are still converted. Keep the result to map the model's tool calls
        /// back with [`Self::call_provider_tool`].
        pub $($async)? fn provider_tools(
            &self,
            provider: $crate::mcp_core::tool_formats::Provider,
        ) -> $crate::mcp_core::tool_formats::ProviderTools {
            let tools = self.list_tools()$(.$await)?;
            let mut converted = $crate::mcp_core::tool_formats::convert(provider, &tools.items);
            converted.failed = tools.failed;
            converted
        }

        /// Every server's tools as OpenAI Chat Completions `tools` entries (failing servers
        /// reported apart, as for [`Self::provider_tools`]).
        pub $($async)? fn to_openai_tools(&self) -> $crate::mcp_core::tool_formats::ProviderTools {
            self.provider_tools($crate::mcp_core::tool_formats::Provider::OpenAi)$(.$await)?
        }

        /// Every server's tools as Anthropic Messages `tools` entries (failing servers reported
        /// apart, as for [`Self::provider_tools`]).
        pub $($async)? fn to_anthropic_tools(&self) -> $crate::mcp_core::tool_formats::ProviderTools {
            self.provider_tools($crate::mcp_core::tool_formats::Provider::Anthropic)$(.$await)?
        }

        /// Every server's tools as one Gemini `functionDeclarations` tool (failing servers
        /// reported apart, as for [`Self::provider_tools`]).
        pub $($async)? fn to_google_tools(&self) -> $crate::mcp_core::tool_formats::ProviderTools {
            self.provider_tools($crate::mcp_core::tool_formats::Provider::Google)$(.$await)?
        }

        /// Runs a tool call the model made (in the format `tools` was converted to): reads it,
        /// finds the server and MCP tool behind its name, and calls it with its arguments
        /// (validated like any `call_tool`). Returns the parsed call too, to answer it with
        /// [`tool_result_message`]($crate::mcp_core::tool_formats::tool_result_message).
        pub $($async)? fn call_provider_tool(
            &self,
            tools: &$crate::mcp_core::tool_formats::ProviderTools,
            call: &$crate::serde_json::Value,
        ) -> Result<
            ($crate::mcp_core::tool_formats::ProviderToolCall, $crate::mcp_core::types::CallToolResult),
            $crate::mcp_core::ClientError,
        > {
            use $crate::mcp_core::tool_formats::{ProviderToolCall, ToolCallError};
            let parsed = ProviderToolCall::parse(tools.provider, call)?;
            let target = tools.resolve(&parsed.name).ok_or_else(|| ToolCallError::UnknownName(parsed.name.clone()))?;
            let arguments = $crate::serde_json::Value::Object(parsed.arguments.clone());
            let result = self.call_tool_on(&target.server, &target.tool, arguments)$(.$await)??;
            Ok((parsed, result))
        }
    };
}
