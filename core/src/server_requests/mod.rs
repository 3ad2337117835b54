//! What the client does with a server's requests to the host (elicitation, sampling, roots)
//! before a handler sees them, and with the handler's answer before the server does. Both
//! eras share it: legacy server-to-client requests (`connection/inbound.rs`) and the
//! `inputRequests` of a 2026-07-28 `input_required` result (`connection/input_rounds.rs`).
//!
//! - Elicitation: the mode picks the handler (form or URL); a mode the client did not declare
//!   is refused. A 2026-07-28 URL request loses its `elicitationId` (a 2025-11-25 field). A URL
//!   answer is consent only (`action`, and `_meta`); a form answer may be the bare content
//!   (accepted), and an action that is not `accept`/`decline`/`cancel` is sent as `cancel`.
//! - Sampling: roles are `user`/`assistant`; a message with `tool_result` blocks holds only
//!   those; every `tool_use` of an assistant message is answered by the next message.
//!   `tools`/`toolChoice` need the `sampling.tools` opt-in; `includeContext` other than
//!   `"none"` is read as `"none"` without the `sampling.context` opt-in.
//!
//! Refusals ([`Refusal`]) reach the server as JSON-RPC `-32602` (legacy) or fail the request
//! that asked for the input (2026-07-28, [`crate::RequestError::InputRefused`]); changes
//! ([`Adjustment`]) are reported as [`crate::Warning::HostRequestAdjusted`].

use std::collections::VecDeque;

use serde_json::{json, Map, Value};

use crate::config::ClientFeatures;
use crate::era::Era;
use crate::schema::elicitation::{form_of, ElicitationError, FormSchema};
use crate::text::sanitize;
use crate::types::ServerRequestKind;

/// The longest `elicitationId` the client accepts (bytes).
pub const MAX_ELICITATION_ID_BYTES: usize = 256;

/// URL elicitations whose completion the client waits for, at most (the oldest is forgotten).
pub const MAX_OPEN_URL_ELICITATIONS: usize = 64;

/// Why a server's request to the host was refused before any handler saw it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Refusal {
    /// An elicitation in a mode the client did not declare (no handler for it).
    #[error("elicitation mode {mode:?} is not supported by this client")]
    UnsupportedMode {
        /// `"form"` or `"url"`.
        mode: &'static str,
    },
    /// The elicitation params are not a valid request (unknown mode, invalid form schema).
    #[error(transparent)]
    Elicitation(#[from] ElicitationError),
    /// A URL elicitation without a `url` string.
    #[error("a URL elicitation needs a url string")]
    MissingUrl,
    /// A 2025-11-25 URL elicitation whose `elicitationId` is not a string of at most
    /// [`MAX_ELICITATION_ID_BYTES`] bytes.
    #[error("elicitationId must be a string of at most {MAX_ELICITATION_ID_BYTES} bytes")]
    InvalidElicitationId,
    /// A sampling request with `tools` or `toolChoice` to a client that did not declare
    /// `sampling.tools`.
    #[error("sampling with tools is not supported by this client (sampling.tools not declared)")]
    ToolsNotDeclared,
    /// The sampling history breaks the message rules.
    #[error("invalid sampling messages: {0}")]
    Sampling(#[from] SamplingViolation),
    /// The params do not decode into the typed request (a required field missing or of the
    /// wrong type; see [`crate::types::HostRequest::decode`]).
    #[error("invalid params: {0}")]
    Malformed(#[from] crate::types::DecodeError),
}

/// A sampling history that breaks the message rules of `client/sampling`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SamplingViolation {
    /// `messages` is missing or not an array.
    #[error("messages must be an array")]
    NotAList,
    /// A message is not an object with content blocks (objects with a `type`), or a block lacks
    /// the id it needs.
    #[error("message {index}: {detail}")]
    Malformed {
        /// The message's position.
        index: usize,
        /// What is wrong.
        detail: &'static str,
    },
    /// A role other than `user` or `assistant`.
    #[error("message {index}: role {role:?} is not user or assistant")]
    Role {
        /// The message's position.
        index: usize,
        /// The role, sanitised.
        role: String,
    },
    /// A user message mixes `tool_result` blocks with other content.
    #[error("message {index}: tool results mixed with other content")]
    MixedToolResults {
        /// The message's position.
        index: usize,
    },
    /// A `tool_use` of an assistant message is not answered by the next message.
    #[error("message {index}: tool result missing in request for tool use {id:?}")]
    ToolResultMissing {
        /// The position of the assistant message.
        index: usize,
        /// The unanswered tool use id, sanitised.
        id: String,
    },
    /// A `tool_result` that answers no `tool_use` of the message before it.
    #[error("message {index}: tool result for {id:?} answers no tool use of the previous message")]
    UnexpectedToolResult {
        /// The message's position.
        index: usize,
        /// The `toolUseId`, sanitised.
        id: String,
    },
}

/// Something the client changed in a server's request before the host saw it, or in the
/// host's answer before the server did.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Adjustment {
    /// A 2026-07-28 URL elicitation carried `elicitationId` (a 2025-11-25 field); removed.
    ElicitationIdRemoved,
    /// `includeContext` asked for context without the host's `sampling.context` opt-in; the
    /// host sees `"none"`.
    IncludeContextIgnored {
        /// The value asked for, sanitised.
        value: String,
    },
    /// A URL elicitation answer carried `content`; dropped (URL answers are consent only).
    UrlContentDropped,
    /// An elicitation answer without a known action (`accept`, `decline`, `cancel`) was sent
    /// as `cancel`.
    AnswerCancelled {
        /// What the answer held instead, sanitised.
        got: String,
    },
}

impl std::fmt::Display for Adjustment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Adjustment::ElicitationIdRemoved => {
                f.write_str("removed elicitationId from a 2026-07-28 URL elicitation")
            }
            Adjustment::IncludeContextIgnored { value } => {
                write!(f, "includeContext {value} read as \"none\" (sampling context not enabled)")
            }
            Adjustment::UrlContentDropped => f.write_str("dropped content from a URL elicitation answer"),
            Adjustment::AnswerCancelled { got } => {
                write!(f, "sent cancel for an elicitation answer without a known action ({got})")
            }
        }
    }
}

/// A server request checked and made ready for the host.
#[derive(Debug)]
pub(crate) struct Prepared {
    /// Which handler answers it.
    pub(crate) kind: ServerRequestKind,
    /// The params the host sees.
    pub(crate) params: Value,
    /// Form mode: the form the answer must match.
    pub(crate) form: Option<FormSchema>,
    /// What was changed on the way.
    pub(crate) adjustments: Vec<Adjustment>,
    /// A 2025-11-25 URL elicitation's id.
    pub(crate) elicitation_id: Option<String>,
}

/// Checks and shapes a server request of `kind` (decided by its method) for the host.
pub(crate) fn prepare(
    kind: ServerRequestKind,
    params: Value,
    era: Era,
    features: &ClientFeatures,
) -> Result<Prepared, Refusal> {
    let mut prepared = Prepared { kind, params, form: None, adjustments: Vec::new(), elicitation_id: None };
    match kind {
        ServerRequestKind::Elicitation | ServerRequestKind::ElicitationUrl => {
            prepare_elicitation(&mut prepared, era, features)?
        }
        ServerRequestKind::Sampling => prepare_sampling(&mut prepared, features)?,
        ServerRequestKind::Roots => {}
        // Not server methods: the connection asks these itself, already well formed.
        #[cfg(feature = "oauth")]
        ServerRequestKind::Authorization => {}
        #[cfg(feature = "http")]
        ServerRequestKind::AccessToken => {}
    }
    Ok(prepared)
}

fn prepare_elicitation(p: &mut Prepared, era: Era, features: &ClientFeatures) -> Result<(), Refusal> {
    match p.params.get("mode").and_then(Value::as_str) {
        Some("url") => {}
        None | Some("form") if !features.elicitation_form => {
            return Err(Refusal::UnsupportedMode { mode: "form" })
        }
        _ => {
            // Form mode, or an unknown mode (refused by `form_of`).
            p.form = form_of(&p.params)?;
            p.kind = ServerRequestKind::Elicitation;
            return Ok(());
        }
    }
    if !features.elicitation_url {
        return Err(Refusal::UnsupportedMode { mode: "url" });
    }
    p.kind = ServerRequestKind::ElicitationUrl;
    if !p.params.get("url").is_some_and(Value::is_string) {
        return Err(Refusal::MissingUrl);
    }
    let Some(params) = p.params.as_object_mut() else { return Err(Refusal::MissingUrl) };
    match (era, params.get("elicitationId")) {
        (_, None) => {}
        (Era::Modern, Some(_)) => {
            params.remove("elicitationId");
            p.adjustments.push(Adjustment::ElicitationIdRemoved);
        }
        (Era::Legacy, Some(Value::String(id))) if id.len() <= MAX_ELICITATION_ID_BYTES => {
            p.elicitation_id = Some(id.clone());
        }
        (Era::Legacy, Some(_)) => return Err(Refusal::InvalidElicitationId),
    }
    Ok(())
}

fn prepare_sampling(p: &mut Prepared, features: &ClientFeatures) -> Result<(), Refusal> {
    let present = |key: &str| p.params.get(key).is_some_and(|v| !v.is_null());
    if !features.sampling_tools && (present("tools") || present("toolChoice")) {
        return Err(Refusal::ToolsNotDeclared);
    }
    check_messages(p.params.get("messages").unwrap_or(&Value::Null))?;
    if !features.sampling_context {
        let asked = p.params.get("includeContext").filter(|v| !v.is_null() && v.as_str() != Some("none"));
        if let Some(asked) = asked {
            let value = sanitize(&asked.to_string(), 50);
            p.params["includeContext"] = json!("none");
            p.adjustments.push(Adjustment::IncludeContextIgnored { value });
        }
    }
    Ok(())
}

/// The content blocks of a message: one object, or an array of objects, each with a `type`.
fn blocks(index: usize, message: &Value) -> Result<Vec<&Map<String, Value>>, SamplingViolation> {
    let malformed = |detail| SamplingViolation::Malformed { index, detail };
    let list: Vec<&Value> = match message.get("content") {
        Some(Value::Array(items)) => items.iter().collect(),
        Some(block @ Value::Object(_)) => vec![block],
        _ => return Err(malformed("content must be a block or an array of blocks")),
    };
    list.into_iter()
        .map(|b| match b {
            Value::Object(o) if o.get("type").is_some_and(Value::is_string) => Ok(o),
            _ => Err(malformed("a content block must be an object with a type")),
        })
        .collect()
}

fn is_type(block: &Map<String, Value>, t: &str) -> bool {
    block.get("type").and_then(Value::as_str) == Some(t)
}

/// The string at `key` of each block, or the malformed error naming it.
fn ids<'a>(
    index: usize,
    blocks: impl Iterator<Item = &'a Map<String, Value>>,
    key: &str,
    detail: &'static str,
) -> Result<Vec<&'a str>, SamplingViolation> {
    blocks
        .map(|b| b.get(key).and_then(Value::as_str).ok_or(SamplingViolation::Malformed { index, detail }))
        .collect()
}

/// Checks a sampling history against the message rules (roles, tool results alone in their
/// message, every tool use answered by the next message and nothing else answered).
pub fn check_messages(messages: &Value) -> Result<(), SamplingViolation> {
    let Value::Array(messages) = messages else { return Err(SamplingViolation::NotAList) };
    // The tool uses of the previous message, waiting for their results.
    let mut open: Option<(usize, Vec<&str>)> = None;
    for (index, message) in messages.iter().enumerate() {
        if !message.is_object() {
            return Err(SamplingViolation::Malformed { index, detail: "a message must be an object" });
        }
        let role = message.get("role").and_then(Value::as_str);
        let blocks = blocks(index, message)?;
        let results = blocks.iter().filter(|b| is_type(b, "tool_result")).count();
        match role {
            Some("user") => {
                if results > 0 && results < blocks.len() {
                    return Err(SamplingViolation::MixedToolResults { index });
                }
            }
            Some("assistant") if results > 0 => {
                return Err(SamplingViolation::Malformed {
                    index,
                    detail: "tool results belong in a user message",
                })
            }
            Some("assistant") => {}
            other => {
                let role = other.map_or_else(|| "(none)".to_owned(), |r| sanitize(r, 50));
                return Err(SamplingViolation::Role { index, role });
            }
        }
        let answered = ids(
            index,
            blocks.iter().copied().filter(|b| is_type(b, "tool_result")),
            "toolUseId",
            "a tool_result needs a toolUseId string",
        )?;
        let waiting = open.take();
        if let Some((at, uses)) = &waiting {
            if let Some(id) = uses.iter().find(|id| !answered.contains(id)) {
                return Err(SamplingViolation::ToolResultMissing { index: *at, id: sanitize(id, 100) });
            }
        }
        let expected = waiting.as_ref().map_or(&[][..], |(_, uses)| &uses[..]);
        if let Some(id) = answered.iter().find(|id| !expected.contains(id)) {
            return Err(SamplingViolation::UnexpectedToolResult { index, id: sanitize(id, 100) });
        }
        let uses = ids(
            index,
            blocks.iter().copied().filter(|b| is_type(b, "tool_use")),
            "id",
            "a tool_use needs an id string",
        )?;
        if !uses.is_empty() {
            open = Some((index, uses));
        }
    }
    match open {
        Some((index, uses)) => {
            Err(SamplingViolation::ToolResultMissing { index, id: sanitize(uses[0], 100) })
        }
        None => Ok(()),
    }
}

/// Shapes a handler's answer to a request of `kind` before it is checked and sent: a URL
/// elicitation answer becomes consent only, a form answer that is the bare content an accept,
/// and an elicitation answer without a known action a cancel. Other kinds pass unchanged.
pub fn shape_answer(kind: ServerRequestKind, answer: Value) -> (Value, Option<Adjustment>) {
    const ACTIONS: [&str; 3] = ["accept", "decline", "cancel"];
    let cancel = |got: &Value| {
        let got = match got.get("action") {
            Some(action) => format!("action {}", sanitize(&action.to_string(), 50)),
            None => format!("{} answer", crate::types::json_kind(got)),
        };
        (json!({"action": "cancel"}), Some(Adjustment::AnswerCancelled { got }))
    };
    match kind {
        ServerRequestKind::Elicitation => match &answer {
            Value::Object(o) => match o.get("action") {
                None => (json!({"action": "accept", "content": answer}), None),
                Some(Value::String(a)) if ACTIONS.contains(&a.as_str()) => (answer, None),
                Some(_) => cancel(&answer),
            },
            _ => cancel(&answer),
        },
        ServerRequestKind::ElicitationUrl => match &answer {
            Value::Bool(true) => (json!({"action": "accept"}), None),
            Value::Object(o) => match o.get("action").and_then(Value::as_str) {
                Some(a) if ACTIONS.contains(&a) => {
                    let mut consent = Map::new();
                    consent.insert("action".into(), json!(a));
                    if let Some(meta) = o.get("_meta") {
                        consent.insert("_meta".into(), meta.clone());
                    }
                    let dropped = o.contains_key("content").then_some(Adjustment::UrlContentDropped);
                    (Value::Object(consent), dropped)
                }
                _ => cancel(&answer),
            },
            _ => cancel(&answer),
        },
        ServerRequestKind::Sampling | ServerRequestKind::Roots => (answer, None),
        #[cfg(feature = "oauth")]
        ServerRequestKind::Authorization => (answer, None),
        #[cfg(feature = "http")]
        ServerRequestKind::AccessToken => (answer, None),
    }
}

/// The 2025-11-25 URL elicitations whose `notifications/elicitation/complete` the client will
/// pass on (the newest [`MAX_OPEN_URL_ELICITATIONS`]); a completion for any other id is ignored.
#[derive(Debug, Default)]
pub(crate) struct UrlElicitations {
    open: VecDeque<String>,
}

impl UrlElicitations {
    /// Remembers an id (from a URL elicitation request or a `-32042` error).
    pub(crate) fn open(&mut self, id: &str) {
        if id.len() > MAX_ELICITATION_ID_BYTES || self.open.iter().any(|o| o == id) {
            return;
        }
        if self.open.len() == MAX_OPEN_URL_ELICITATIONS {
            self.open.pop_front();
        }
        self.open.push_back(id.to_owned());
    }

    /// Remembers the URL elicitations listed in a `-32042` (URL elicitation required) error's
    /// data.
    pub(crate) fn open_from_error(&mut self, data: Option<&Value>) {
        let list = data.and_then(|d| d.get("elicitations")).and_then(Value::as_array);
        for e in list.into_iter().flatten().take(MAX_OPEN_URL_ELICITATIONS) {
            if e.get("mode").and_then(Value::as_str) == Some("url") {
                if let Some(id) = e.get("elicitationId").and_then(Value::as_str) {
                    self.open(id);
                }
            }
        }
    }

    /// Forgets an id; `true` if it was open (a completion to pass on).
    pub(crate) fn complete(&mut self, id: &str) -> bool {
        let Some(at) = self.open.iter().position(|o| o == id) else { return false };
        self.open.remove(at);
        true
    }
}

#[cfg(test)]
mod tests;
