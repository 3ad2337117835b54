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
//! errors), [`schema`] (elicitation forms, and the standalone JSON Schema validator with the
//! `schema` feature), and the family-neutral request values, handler requests and hooks of this
//! crate.

// Modules a user reaches as modules.
pub use crate::auth;
pub use mcpwire_core::{calls, mcp_servers, oauth, schema, tool_formats, types};

// Errors.
pub use mcpwire_core::headers::Challenge;
pub use mcpwire_core::routing::{RouteError, RouteKind};
pub use mcpwire_core::tool_formats::ToolCallError;
pub use mcpwire_core::types::DecodeError;
pub use mcpwire_core::{
    AnswerError, AttemptOutcome, ClientError, CommandError, IoError, RedirectError, RedirectRefusal,
    RequestError, RpcError, RpcErrorKind, TransportAttempt, UnsafeAddress, Warning,
};

// Events, notifications, listen streams, input waits.
pub use mcpwire_core::{
    Event, InputResume, InputWait, InputWaitDecision, ListKind, LogMessage, Notification, OutstandingInput,
    Progress, QueueLimits, ServerRequest, ServerRequestKind, SubscriptionFilter, SubscriptionUpdate,
};

// Servers: how they are given, set up and described.
pub use mcpwire_core::mcp_servers::{TargetConfigError, TransportKind};
pub use mcpwire_core::{
    CacheInfo, CacheKey, CacheScope, ConnectionConfig, Era, HttpConfig, Limits, ProtocolMode, Request,
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
pub use mcpwire_core::routing::{
    ClientList, ConnectReport, ConnectedServer, LogLevelReport, ServerFailure, ServerPrompt, ServerResource,
    ServerResourceTemplate,
};

// Tools for an LLM provider.
pub use mcpwire_core::tool_formats::{
    tool_result_message, Provider, ProviderToolCall, ProviderTools, ToolTarget,
};

// Protocol types (all of them are in `types`).
pub use mcpwire_core::types::{
    AccessTokenAnswer, AccessTokenRequest, Annotations, AudioContent, AuthorizationCallback,
    AuthorizationRequest, CallToolResult, CompleteResult, CompletionReference, ContentBlock,
    CreateMessageRequest, CreateMessageResult, ElicitAction, ElicitMode, ElicitRequest, ElicitResult,
    EmbeddedResource, GetPromptResult, HandlerError, Icon, ImageContent, Implementation, LoggingLevel,
    ModelPreferences, Prompt, PromptArgument, PromptMessage, ReadResourceResult, Resource, ResourceContents,
    ResourceLink, ResourceTemplate, Role, Root, RootsRequest, SamplingContent, SamplingMessage,
    ServerCapabilities, StartedTask, Task, TaskHandle, TaskStatus, TextContent, Tool, ToolAnnotations,
};

// The family-neutral part of the client API: request values, handler requests, hooks, HTTP
// client settings.
pub use crate::{
    Arguments, AuthorizationPrompt, BatchRequest, CancelToken, ElicitationRequest, EventHook, FromServer,
    HandlerOutput, HttpClientConfig, InputWaitHook, ListenOptions, ListenRequest, MetaProvider, Pending,
    ProgressFn, ProgressStream, ProxySetting, RequestBuilder, RequestUpdate, RootsListRequest,
    SamplingRequest, TokenRequest, ToolCall, DEFAULT_BATCH_CONCURRENCY, DEFAULT_MAX_CONCURRENT_SERVERS,
};
