//! The user-facing names every runtime crate re-exports at its root, listed once.
//!
//! `mcpwire-tokio`, `mcpwire-smol`, `mcpwire-blocking` (and `mcpwire-async`, for a custom runtime) each do
//! `pub use ...::facade::*` and add only their family's own names: `Client`, `ClientBuilder`,
//! `Server`, `Handler`, `Handlers`, `Subscription`, the runtime and its options, `connect`.
//! A user therefore writes `mcpwire_tokio::CreateMessageResult` or `mcpwire_blocking::RequestError`
//! and never names `mcpwire-core` or this crate.
//!
//! What is here: the protocol types a client meets (at the root, and every one of them in
//! [`types`]), the request descriptors ([`calls`]), errors and events, server specs and
//! their settings, the multi-server answers, the LLM-provider conversions, deprecation
//! notices, OAuth ([`auth`] for the host side, [`oauth`] for the flow's configuration and
//! errors; feature `oauth`), [`schema`] (elicitation forms, and the standalone JSON Schema
//! validator with the `schema` feature), and the family-neutral request values, handler
//! requests and hooks of this crate. What exists only for HTTP servers (HTTP settings,
//! redirects, transport attempts, token providers) is here with the `http` feature.

// Modules a user reaches as modules.
#[cfg(feature = "oauth")]
pub use crate::auth;
#[cfg(feature = "oauth")]
pub use mcpwire_core::oauth;
pub use mcpwire_core::{calls, mcp_servers, schema, tool_formats, types};

// Errors.
#[cfg(feature = "http")]
pub use mcpwire_core::headers::Challenge;
pub use mcpwire_core::routing::{RouteError, RouteKind};
pub use mcpwire_core::tool_formats::ToolCallError;
pub use mcpwire_core::types::DecodeError;
pub use mcpwire_core::{
    AnswerError, ClientError, CommandError, IoError, RequestError, RpcError, RpcErrorKind, Warning,
};
#[cfg(feature = "http")]
pub use mcpwire_core::{AttemptOutcome, RedirectError, RedirectRefusal, TransportAttempt, UnsafeAddress};

// Events, notifications, listen streams, input waits.
pub use mcpwire_core::{
    Event, InputResume, InputWait, InputWaitDecision, ListKind, LogMessage, Notification, OutstandingInput,
    Progress, QueueLimits, ServerRequest, ServerRequestKind, SubscriptionFilter, SubscriptionUpdate,
};

// The wire trace (`ClientBuilder::wire_trace`).
pub use mcpwire_core::{Epoch, ExitInfo, WireRecord};
#[cfg(feature = "http")]
pub use mcpwire_core::{ExchangeId, HttpMethod};

// Servers: how they are given, set up and described.
pub use mcpwire_core::mcp_servers::{TargetConfigError, TransportKind};
#[cfg(feature = "http")]
pub use mcpwire_core::HttpConfig;
pub use mcpwire_core::{
    CacheInfo, CacheKey, CacheScope, ConnectionConfig, Era, Limits, ProtocolMode, Request,
    RequestMetaContext, RequestOptions, Response, ServerInfo, ServerSpec, ServerTool, StdioCommand, Timeouts,
    TransportConfig,
};
// Structured output validation settings (feature `schema`).
#[cfg(feature = "schema")]
pub use mcpwire_core::{SchemaValidation, ValidationMode};

// Deprecation notices.
pub use mcpwire_core::{
    deprecation_notices, set_deprecation_notices, Deprecation, DeprecationNotices, Removal, UsedBy,
};

// What a client asks of several servers at once.
pub use mcpwire_core::catalog::{
    ClientList, ConnectReport, ConnectedServer, LogLevelReport, ServerFailure, ServerPrompt, ServerResource,
    ServerResourceTemplate,
};

// Tools for an LLM provider.
pub use mcpwire_core::tool_formats::{
    tool_result_message, Provider, ProviderToolCall, ProviderTools, ToolTarget,
};

// Protocol types (all of them are in `types`).
#[cfg(feature = "http")]
pub use mcpwire_core::types::{AccessTokenAnswer, AccessTokenRequest};
pub use mcpwire_core::types::{
    Annotations, AudioContent, CallToolResult, CompleteResult, CompletionReference, ContentBlock,
    CreateMessageRequest, CreateMessageResult, ElicitAction, ElicitMode, ElicitRequest, ElicitResult,
    EmbeddedResource, GetPromptResult, HandlerError, Icon, ImageContent, Implementation, LoggingLevel,
    ModelPreferences, Prompt, PromptArgument, PromptMessage, ReadResourceResult, Resource, ResourceContents,
    ResourceLink, ResourceTemplate, Role, Root, RootsRequest, SamplingContent, SamplingMessage,
    ServerCapabilities, StartedTask, Task, TaskHandle, TaskStatus, TextContent, Tool, ToolAnnotations,
};
#[cfg(feature = "oauth")]
pub use mcpwire_core::types::{AuthorizationCallback, AuthorizationRequest};

// The family-neutral part of the client API: request values, handler requests, hooks, HTTP
// client settings.
#[cfg(feature = "oauth")]
pub use crate::AuthorizationPrompt;
pub use crate::{
    Arguments, BatchRequest, CancelToken, ElicitationRequest, EventHook, FromServer, HandlerOutput,
    InputWaitHook, ListenOptions, ListenRequest, MetaProvider, Pending, ProgressFn, ProgressStream,
    RequestBuilder, RequestUpdate, RootsListRequest, SamplingRequest, ToolCall, WireTrace,
    DEFAULT_BATCH_CONCURRENCY, DEFAULT_MAX_CONCURRENT_SERVERS,
};
#[cfg(feature = "http")]
pub use crate::{HttpClientConfig, ProxySetting, TokenRequest};
