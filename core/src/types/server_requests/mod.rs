//! The requests a server makes of the host (`roots/list`, `sampling/createMessage`,
//! `elicitation/create`), typed, with the answers a host handler gives and the error it fails
//! with.
//!
//! Requests decode leniently like every type here (unknown fields are ignored and kept in
//! `raw()`), but a request missing what its handler needs (a sampling request without
//! `messages` or `maxTokens`, an elicitation without a `message`, ...) is a [`DecodeError`]:
//! the client answers such a request with `-32602` before any handler runs.
//!
//! Answers serialise with `to_value()`. A [`CreateMessageResult`] with one content block sends
//! it as a single object (what servers before 2025-11-25 expect), several as an array.

use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::sampling::{content_value, IncludeContext, ModelPreferences, ModelPreferencesWire};
use super::{
    decode_wire, expect_object, json_kind, raw_json_impls, DecodeError, Meta, Role, SamplingContent,
    SamplingMessage, Tool,
};

/// The kind of a server-to-client request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ServerRequestKind {
    /// `roots/list`.
    Roots,
    /// `sampling/createMessage`.
    Sampling,
    /// `elicitation/create` (form mode).
    Elicitation,
    /// `elicitation/create` in URL mode (answered by the URL handler).
    ElicitationUrl,
    /// Not from the server: the connection's OAuth flow needs the user to sign in through a
    /// browser ([`crate::types::AuthorizationRequest`]).
    #[cfg(feature = "oauth")]
    Authorization,
    /// Not from the server: the connection needs an access token from the host's token
    /// provider ([`crate::types::AccessTokenRequest`]).
    #[cfg(feature = "http")]
    AccessToken,
}

impl ServerRequestKind {
    /// The JSON-RPC method.
    pub fn method(self) -> &'static str {
        match self {
            ServerRequestKind::Roots => "roots/list",
            ServerRequestKind::Sampling => "sampling/createMessage",
            ServerRequestKind::Elicitation | ServerRequestKind::ElicitationUrl => "elicitation/create",
            #[cfg(feature = "oauth")]
            ServerRequestKind::Authorization => "oauth/authorize",
            #[cfg(feature = "http")]
            ServerRequestKind::AccessToken => "oauth/access-token",
        }
    }
}

/// A root: a directory or file the server may work within.
#[derive(Debug, Clone, PartialEq)]
pub struct Root {
    /// The root's URI (`file://...`).
    pub uri: String,
    /// A human-readable name.
    pub name: Option<String>,
    /// The `_meta` object.
    pub meta: Option<Meta>,
}

#[derive(Deserialize)]
struct RootWire {
    uri: String,
    #[serde(default)]
    name: Option<String>,
    #[serde(default, rename = "_meta")]
    meta: Option<Meta>,
}

impl Root {
    /// A root without a name.
    pub fn new(uri: impl Into<String>) -> Self {
        Self { uri: uri.into(), name: None, meta: None }
    }

    /// A named root.
    pub fn named(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Self { uri: uri.into(), name: Some(name.into()), meta: None }
    }

    /// Decodes a root object.
    pub fn from_value(value: Value) -> Result<Self, DecodeError> {
        let w: RootWire = decode_wire("Root", &value)?;
        Ok(Self { uri: w.uri, name: w.name, meta: w.meta })
    }

    /// The root as JSON.
    pub fn to_value(&self) -> Value {
        let mut o = Map::new();
        o.insert("uri".into(), json!(self.uri));
        if let Some(name) = &self.name {
            o.insert("name".into(), json!(name));
        }
        if let Some(meta) = &self.meta {
            o.insert("_meta".into(), Value::Object(meta.clone()));
        }
        Value::Object(o)
    }
}

/// The `roots/list` result for `roots`: `{"roots": [...]}`.
pub fn roots_result(roots: &[Root]) -> Value {
    json!({ "roots": roots.iter().map(Root::to_value).collect::<Vec<_>>() })
}

/// Decodes a `roots/list` result (`{"roots": [...]}`).
pub fn decode_roots_result(value: &Value) -> Result<Vec<Root>, DecodeError> {
    let obj = expect_object("ListRootsResult", value)?;
    match obj.get("roots") {
        Some(Value::Array(items)) => items.iter().cloned().map(Root::from_value).collect(),
        Some(other) => Err(DecodeError::new(
            "ListRootsResult",
            format!("roots must be an array, got {}", json_kind(other)),
        )),
        None => Err(DecodeError::new("ListRootsResult", "missing field `roots`")),
    }
}

/// A `roots/list` request (its params carry nothing but `_meta`).
#[derive(Debug, Clone, PartialEq)]
pub struct RootsRequest {
    /// The `_meta` object.
    pub meta: Option<Meta>,
    raw: Value,
}

impl RootsRequest {
    /// Decodes `roots/list` params (absent params are `null`).
    pub fn from_value(value: Value) -> Result<Self, DecodeError> {
        let meta = match &value {
            Value::Null => None,
            Value::Object(o) => match o.get("_meta") {
                None | Some(Value::Null) => None,
                Some(Value::Object(m)) => Some(m.clone()),
                Some(other) => {
                    return Err(DecodeError::new(
                        "RootsRequest",
                        format!("_meta must be an object, got {}", json_kind(other)),
                    ))
                }
            },
            other => {
                return Err(DecodeError::new(
                    "RootsRequest",
                    format!("expected a JSON object, got {}", json_kind(other)),
                ))
            }
        };
        Ok(Self { meta, raw: value })
    }
}

/// A `sampling/createMessage` request: the server asks the host's LLM for a message.
#[derive(Debug, Clone, PartialEq)]
pub struct CreateMessageRequest {
    /// The conversation so far.
    pub messages: Vec<SamplingMessage>,
    /// The system prompt the server suggests (`systemPrompt`).
    pub system_prompt: Option<String>,
    /// The most tokens to sample (`maxTokens`).
    pub max_tokens: u64,
    /// The sampling temperature.
    pub temperature: Option<f64>,
    /// Sequences that stop sampling (`stopSequences`).
    pub stop_sequences: Vec<String>,
    /// The server's model preferences (`modelPreferences`).
    pub model_preferences: Option<ModelPreferences>,
    /// Tools the model may use (only with the `sampling_tools` opt-in).
    pub tools: Vec<Tool>,
    /// The `toolChoice` mode (`auto`, `required`, `none`); `auto` when `toolChoice` names none.
    pub tool_choice: Option<String>,
    /// What context to include (`"none"` unless the host opted in to `sampling.context`).
    pub include_context: Option<IncludeContext>,
    /// Provider-specific metadata to pass through.
    pub metadata: Option<Map<String, Value>>,
    /// The `_meta` object.
    pub meta: Option<Meta>,
    raw: Value,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CreateMessageWire {
    messages: Vec<Value>,
    #[serde(default)]
    system_prompt: Option<String>,
    #[serde(default)]
    max_tokens: Option<Value>,
    #[serde(default)]
    temperature: Option<f64>,
    #[serde(default)]
    stop_sequences: Option<Vec<String>>,
    #[serde(default)]
    model_preferences: Option<ModelPreferencesWire>,
    #[serde(default)]
    tools: Option<Vec<Tool>>,
    #[serde(default)]
    tool_choice: Option<Map<String, Value>>,
    #[serde(default)]
    include_context: Option<String>,
    #[serde(default)]
    metadata: Option<Map<String, Value>>,
    #[serde(default, rename = "_meta")]
    meta: Option<Meta>,
}

impl CreateMessageRequest {
    /// Decodes `sampling/createMessage` params.
    pub fn from_value(value: Value) -> Result<Self, DecodeError> {
        const WHAT: &str = "CreateMessageRequest";
        let w: CreateMessageWire = decode_wire(WHAT, &value)?;
        let max_tokens = match w.max_tokens {
            None | Some(Value::Null) => return Err(DecodeError::new(WHAT, "missing field `maxTokens`")),
            Some(v) => v
                .as_u64()
                .or_else(|| {
                    v.as_f64()
                        .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f < u64::MAX as f64)
                        .map(|f| f as u64)
                })
                .ok_or_else(|| {
                    DecodeError::new(
                        WHAT,
                        format!(
                            "maxTokens must be a non-negative integer, got {}",
                            if v.is_number() { v.to_string() } else { json_kind(&v).to_owned() }
                        ),
                    )
                })?,
        };
        let messages = w.messages.into_iter().map(SamplingMessage::from_value).collect::<Result<_, _>>()?;
        let model_preferences = w.model_preferences.map(ModelPreferences::from);
        let tool_choice = w.tool_choice.map(|c| match c.get("mode").and_then(Value::as_str) {
            Some(mode) => mode.to_owned(),
            None => "auto".to_owned(),
        });
        Ok(Self {
            messages,
            system_prompt: w.system_prompt,
            max_tokens,
            temperature: w.temperature,
            stop_sequences: w.stop_sequences.unwrap_or_default(),
            model_preferences,
            tools: w.tools.unwrap_or_default(),
            tool_choice,
            include_context: w.include_context.as_deref().map(IncludeContext::parse),
            metadata: w.metadata,
            meta: w.meta,
            raw: value,
        })
    }

    /// The text of the last message (handy for echo-style handlers and tests).
    pub fn last_text(&self) -> String {
        self.messages.last().map(SamplingMessage::text).unwrap_or_default()
    }
}

/// The host's answer to a sampling request.
#[derive(Debug, Clone, PartialEq)]
pub struct CreateMessageResult {
    /// Who speaks (normally the assistant).
    pub role: Role,
    /// The sampled content (one block, or several, e.g. tool uses).
    pub content: Vec<SamplingContent>,
    /// The model that produced it.
    pub model: String,
    /// Why sampling stopped (`endTurn`, `stopSequence`, `maxTokens`, `toolUse`, or another).
    pub stop_reason: Option<String>,
    /// The `_meta` object.
    pub meta: Option<Meta>,
}

impl CreateMessageResult {
    /// An assistant text answer from `model` that ended its turn.
    pub fn text(text: impl Into<String>, model: impl Into<String>) -> Self {
        Self {
            role: Role::Assistant,
            content: vec![SamplingContent::text(text)],
            model: model.into(),
            stop_reason: Some("endTurn".into()),
            meta: None,
        }
    }

    /// An assistant answer of `content` blocks from `model`; a tool use among them makes the
    /// stop reason `toolUse`, else `endTurn`.
    pub fn blocks(content: Vec<SamplingContent>, model: impl Into<String>) -> Self {
        let tool_use = content.iter().any(|c| matches!(c, SamplingContent::ToolUse(_)));
        let stop_reason = if tool_use { "toolUse" } else { "endTurn" };
        Self {
            role: Role::Assistant,
            content,
            model: model.into(),
            stop_reason: Some(stop_reason.into()),
            meta: None,
        }
    }

    /// Sets the stop reason.
    pub fn with_stop_reason(mut self, reason: impl Into<String>) -> Self {
        self.stop_reason = Some(reason.into());
        self
    }

    /// Decodes a result (e.g. one stored earlier).
    pub fn from_value(value: Value) -> Result<Self, DecodeError> {
        const WHAT: &str = "CreateMessageResult";
        let message = SamplingMessage::from_value(value.clone())?;
        let model = match value.get("model") {
            Some(Value::String(m)) => m.clone(),
            _ => return Err(DecodeError::new(WHAT, "model must be a string")),
        };
        let stop_reason = value.get("stopReason").and_then(Value::as_str).map(str::to_owned);
        Ok(Self { role: message.role, content: message.content, model, stop_reason, meta: message.meta })
    }

    /// The result as JSON.
    pub fn to_value(&self) -> Value {
        let mut o = Map::new();
        o.insert("role".into(), json!(self.role.as_str()));
        o.insert("content".into(), content_value(&self.content));
        o.insert("model".into(), json!(self.model));
        if let Some(reason) = &self.stop_reason {
            o.insert("stopReason".into(), json!(reason));
        }
        if let Some(meta) = &self.meta {
            o.insert("_meta".into(), Value::Object(meta.clone()));
        }
        Value::Object(o)
    }
}

/// How an elicitation asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ElicitMode {
    /// A form the host shows (`requestedSchema`).
    Form,
    /// A URL the user visits; the answer is consent only.
    Url,
}

/// An `elicitation/create` request: the server asks the user, through the host.
#[derive(Debug, Clone, PartialEq)]
pub struct ElicitRequest {
    /// Form or URL.
    pub mode: ElicitMode,
    /// What to tell the user.
    pub message: String,
    /// Form mode: the flat JSON Schema of the form (`requestedSchema`).
    pub requested_schema: Option<Value>,
    /// URL mode: where to send the user.
    pub url: Option<String>,
    /// URL mode on 2025-11-25: the id its completion notification names (`elicitationId`).
    pub elicitation_id: Option<String>,
    /// The `_meta` object.
    pub meta: Option<Meta>,
    raw: Value,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ElicitWire {
    #[serde(default)]
    mode: Option<String>,
    message: String,
    #[serde(default)]
    requested_schema: Option<Value>,
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    elicitation_id: Option<String>,
    #[serde(default, rename = "_meta")]
    meta: Option<Meta>,
}

impl ElicitRequest {
    /// Decodes `elicitation/create` params: form mode (the default) needs a `requestedSchema`
    /// object, URL mode a `url`.
    pub fn from_value(value: Value) -> Result<Self, DecodeError> {
        const WHAT: &str = "ElicitRequest";
        let w: ElicitWire = decode_wire(WHAT, &value)?;
        let mode = match w.mode.as_deref() {
            None | Some("form") => ElicitMode::Form,
            Some("url") => ElicitMode::Url,
            Some(other) => {
                let mode = crate::text::sanitize(other, 50);
                return Err(DecodeError::new(WHAT, format!("unknown mode {mode:?}")));
            }
        };
        match mode {
            ElicitMode::Form if !w.requested_schema.as_ref().is_some_and(Value::is_object) => {
                return Err(DecodeError::new(WHAT, "a form elicitation needs a requestedSchema object"))
            }
            ElicitMode::Url if w.url.is_none() => {
                return Err(DecodeError::new(WHAT, "a URL elicitation needs a url"))
            }
            _ => {}
        }
        Ok(Self {
            mode,
            message: w.message,
            requested_schema: w.requested_schema,
            url: w.url,
            elicitation_id: w.elicitation_id,
            meta: w.meta,
            raw: value,
        })
    }
}

/// What the user did with an elicitation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ElicitAction {
    /// Submitted the form, or agreed to visit the URL.
    Accept,
    /// Said no.
    Decline,
    /// Dismissed it without choosing.
    Cancel,
}

impl ElicitAction {
    /// The wire string.
    pub fn as_str(self) -> &'static str {
        match self {
            ElicitAction::Accept => "accept",
            ElicitAction::Decline => "decline",
            ElicitAction::Cancel => "cancel",
        }
    }
}

/// The host's answer to an elicitation.
#[derive(Debug, Clone, PartialEq)]
pub struct ElicitResult {
    /// What the user did.
    pub action: ElicitAction,
    /// Form mode, accepted: the values, matching the requested form (checked before sending).
    pub content: Option<Map<String, Value>>,
    /// The `_meta` object.
    pub meta: Option<Meta>,
}

impl ElicitResult {
    /// The user submitted a form with these values (a JSON object; anything else is sent as an
    /// accept without content, which a form check refuses).
    pub fn accept(content: Value) -> Self {
        let content = match content {
            Value::Object(o) => Some(o),
            _ => None,
        };
        Self { action: ElicitAction::Accept, content, meta: None }
    }

    /// The user agreed (URL mode: consent, no content).
    pub fn accepted() -> Self {
        Self { action: ElicitAction::Accept, content: None, meta: None }
    }

    /// The user said no.
    pub fn decline() -> Self {
        Self { action: ElicitAction::Decline, content: None, meta: None }
    }

    /// The user dismissed the request.
    pub fn cancel() -> Self {
        Self { action: ElicitAction::Cancel, content: None, meta: None }
    }

    /// Decodes a result.
    pub fn from_value(value: Value) -> Result<Self, DecodeError> {
        const WHAT: &str = "ElicitResult";
        let obj = expect_object(WHAT, &value)?;
        let action = match obj.get("action").and_then(Value::as_str) {
            Some("accept") => ElicitAction::Accept,
            Some("decline") => ElicitAction::Decline,
            Some("cancel") => ElicitAction::Cancel,
            _ => return Err(DecodeError::new(WHAT, "action must be accept, decline or cancel")),
        };
        let content = match obj.get("content") {
            None | Some(Value::Null) => None,
            Some(Value::Object(c)) => Some(c.clone()),
            Some(other) => {
                return Err(DecodeError::new(
                    WHAT,
                    format!("content must be an object, got {}", json_kind(other)),
                ))
            }
        };
        let meta = obj.get("_meta").and_then(Value::as_object).cloned();
        Ok(Self { action, content, meta })
    }

    /// The result as JSON.
    pub fn to_value(&self) -> Value {
        let mut o = Map::new();
        o.insert("action".into(), json!(self.action.as_str()));
        if let Some(content) = &self.content {
            o.insert("content".into(), Value::Object(content.clone()));
        }
        if let Some(meta) = &self.meta {
            o.insert("_meta".into(), Value::Object(meta.clone()));
        }
        Value::Object(o)
    }
}

raw_json_impls!(RootsRequest, CreateMessageRequest, ElicitRequest);

/// A server's request to the host, typed (the larger requests boxed, so events stay small).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum HostRequest {
    /// `roots/list`.
    Roots(RootsRequest),
    /// `sampling/createMessage`.
    Sampling(Box<CreateMessageRequest>),
    /// `elicitation/create` (form or URL).
    Elicitation(Box<ElicitRequest>),
    /// The connection's OAuth flow asks the user to sign in through a browser.
    #[cfg(feature = "oauth")]
    Authorization(Box<super::AuthorizationRequest>),
    /// The connection asks the host's token provider for an access token.
    #[cfg(feature = "http")]
    AccessToken(Box<super::AccessTokenRequest>),
}

impl HostRequest {
    /// Decodes the params of a request of `kind`.
    pub fn decode(kind: ServerRequestKind, params: Value) -> Result<Self, DecodeError> {
        Ok(match kind {
            ServerRequestKind::Roots => HostRequest::Roots(RootsRequest::from_value(params)?),
            ServerRequestKind::Sampling => {
                HostRequest::Sampling(Box::new(CreateMessageRequest::from_value(params)?))
            }
            ServerRequestKind::Elicitation | ServerRequestKind::ElicitationUrl => {
                HostRequest::Elicitation(Box::new(ElicitRequest::from_value(params)?))
            }
            #[cfg(feature = "oauth")]
            ServerRequestKind::Authorization => {
                HostRequest::Authorization(Box::new(super::AuthorizationRequest::from_value(params)?))
            }
            #[cfg(feature = "http")]
            ServerRequestKind::AccessToken => {
                HostRequest::AccessToken(Box::new(super::AccessTokenRequest::from_value(params)?))
            }
        })
    }

    /// The params as received (after the client's adjustments).
    pub fn raw(&self) -> &Value {
        match self {
            HostRequest::Roots(r) => r.raw(),
            HostRequest::Sampling(r) => r.raw(),
            HostRequest::Elicitation(r) => r.raw(),
            #[cfg(feature = "oauth")]
            HostRequest::Authorization(r) => r.raw(),
            #[cfg(feature = "http")]
            HostRequest::AccessToken(r) => r.raw(),
        }
    }
}

/// Why a host handler did not answer. By default the server gets a constant JSON-RPC error
/// (`-32603`, "Client handler failed") and the message stays local
/// ([`crate::Warning::HandlerFailed`]); with an explicit [`code`](Self::code) the server gets
/// that code and the message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HandlerError {
    /// What went wrong.
    pub message: String,
    /// The JSON-RPC error code to send (the message is then sent too).
    pub code: Option<i64>,
}

impl HandlerError {
    /// An error whose message stays local.
    pub fn new(message: impl Into<String>) -> Self {
        Self { message: message.into(), code: None }
    }

    /// An error sent to the server as it is: JSON-RPC `code` and `message`.
    pub fn with_code(code: i64, message: impl Into<String>) -> Self {
        Self { message: message.into(), code: Some(code) }
    }
}

impl std::fmt::Display for HandlerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.code {
            Some(code) => write!(f, "{} (code {code})", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for HandlerError {}

impl From<String> for HandlerError {
    fn from(message: String) -> Self {
        Self::new(message)
    }
}

impl From<&str> for HandlerError {
    fn from(message: &str) -> Self {
        Self::new(message)
    }
}

#[cfg(test)]
mod tests;
