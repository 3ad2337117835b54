//! Typed MCP data model.
//!
//! Every type here is decoded from a [`serde_json::Value`] with a
//! `from_value` constructor and keeps the JSON it was decoded from reachable
//! through `raw()` / `into_raw()`, so fields this crate does not model (newer
//! spec revisions, vendor extensions) are never lost. Unknown fields are
//! ignored; a missing required field or a field of the wrong JSON type is a
//! [`DecodeError`].
//!
//! The shapes follow the MCP schema revision 2026-07-28, with the older
//! fields (for example the legacy `tasks` capability or `initialize`) that a
//! client still meets when talking to servers on earlier revisions.

#[cfg(feature = "http")]
mod auth_requests;
#[cfg(feature = "oauth")]
mod authorization;
mod call_result;
mod common;
mod completion;
mod content;
mod contents;
mod decode;
mod list;
mod logging;
mod prompt;
mod raw_json;
mod resource;
mod sampling;
mod server;
mod server_requests;
mod task;
mod tool;

#[cfg(feature = "http")]
pub use auth_requests::{AccessTokenAnswer, AccessTokenRequest};
#[cfg(feature = "oauth")]
pub use authorization::{AuthorizationCallback, AuthorizationRequest};
pub use call_result::CallToolResult;
pub use common::{Annotations, Icon, Implementation, Role};
pub use completion::{CompleteParams, CompleteResult, CompletionReference};
pub use content::{AudioContent, ContentBlock, EmbeddedResource, ImageContent, TextContent};
pub use contents::{ReadResourceResult, ResourceContents};
pub(crate) use decode::{
    cache_scope_hint, de_opt_u64, de_present, decode_base64, decode_wire, expect_object, raw_json_impls,
    ttl_hint,
};
pub use decode::{json_kind, DecodeError, FromValue, Meta, SERVER_INFO_META_KEY};
pub use list::ListPage;
pub use logging::LoggingLevel;
pub use prompt::{GetPromptResult, Prompt, PromptArgument, PromptMessage};
pub(crate) use raw_json::{RawField, RawJson};
pub use resource::{Resource, ResourceLink, ResourceTemplate};
pub use sampling::{IncludeContext, ModelPreferences, SamplingContent, SamplingMessage, ToolResult, ToolUse};
pub use server::{DiscoverResult, InitializeResult, ListCapability, ResourcesCapability, ServerCapabilities};
pub use server_requests::{
    decode_roots_result, roots_result, CreateMessageRequest, CreateMessageResult, ElicitAction, ElicitMode,
    ElicitRequest, ElicitResult, HandlerError, HostRequest, Root, RootsRequest, ServerRequestKind,
};
pub use task::{StartedTask, Task, TaskHandle, TaskStatus};
pub use tool::{Tool, ToolAnnotations};
