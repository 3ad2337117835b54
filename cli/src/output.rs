//! Rendering: text for people, JSON for programs.
//!
//! Everything here is a pure function of the typed MCP data, except [`emit`] and [`note`], which
//! write a line to stdout or stderr. Text from the server is untrusted: it is shown with control
//! characters escaped ([`one_line`], [`clean_block`]) so it cannot drive the terminal.

use std::io::Write;

use mcpwire_core::text::sanitize;
use mcpwire_tokio::types::{
    CallToolResult, CompleteResult, ContentBlock, DecodeError, GetPromptResult, Implementation, Prompt,
    ReadResourceResult, Resource, ResourceContents, ResourceTemplate, ServerCapabilities, Tool,
    ToolAnnotations,
};
use mcpwire_tokio::{Progress, ServerInfo};
use serde_json::{json, Value};

/// Characters kept of a one-line description.
const DESCRIPTION_CHARS: usize = 80;
/// Characters kept of a name, URI or other short field.
const FIELD_CHARS: usize = 120;
/// Lines of the server's instructions shown by `info`.
const INSTRUCTION_LINES: usize = 3;

/// Writes `text` and a newline to stdout. A closed pipe (`mcp tools | head`) is not worth a panic.
pub fn emit(text: &str) {
    let _ = writeln!(std::io::stdout().lock(), "{text}");
}

/// Writes `text` and a newline to stderr.
pub fn note(text: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{text}");
}

/// Pretty-printed JSON.
pub fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string())
}

/// The first line of untrusted text, trimmed, control characters escaped, cut at `max`
/// characters (marked with `…`).
pub fn one_line(text: &str, max: usize) -> String {
    let first = text.lines().next().unwrap_or("").trim();
    let clean = sanitize(first, usize::MAX);
    if clean.chars().count() <= max {
        return clean;
    }
    let mut cut: String = clean.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// Untrusted multi-line text: line breaks and tabs kept, other control characters escaped.
pub fn clean_block(text: &str) -> String {
    let line = |l: &str| {
        let l = l.strip_suffix('\r').unwrap_or(l);
        l.split('\t').map(|part| sanitize(part, usize::MAX)).collect::<Vec<_>>().join("\t")
    };
    text.split('\n').map(line).collect::<Vec<_>>().join("\n")
}

/// Indents every line of `text` by `by` spaces.
pub fn indent(text: &str, by: usize) -> String {
    let pad = " ".repeat(by);
    text.lines().map(|l| format!("{pad}{l}")).collect::<Vec<_>>().join("\n")
}

/// `name`, or `name(flag, flag)` for the flags that are set.
fn with_flags(name: &str, flags: &[(&str, bool)]) -> String {
    let on: Vec<&str> = flags.iter().filter(|(_, set)| *set).map(|(flag, _)| *flag).collect();
    if on.is_empty() {
        name.to_owned()
    } else {
        format!("{name}({})", on.join(", "))
    }
}

/// The capabilities as a compact list, e.g. `["tools(listChanged)", "logging"]`.
pub fn capability_list(caps: &ServerCapabilities) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(t) = caps.tools() {
        out.push(with_flags("tools", &[("listChanged", t.list_changed)]));
    }
    if let Some(p) = caps.prompts() {
        out.push(with_flags("prompts", &[("listChanged", p.list_changed)]));
    }
    if let Some(r) = caps.resources() {
        out.push(with_flags("resources", &[("subscribe", r.subscribe), ("listChanged", r.list_changed)]));
    }
    if caps.logging() {
        out.push("logging".into());
    }
    if caps.completions() {
        out.push("completions".into());
    }
    if let Some(ext) = caps.extensions() {
        let ids: Vec<String> = ext.keys().map(|k| one_line(k, FIELD_CHARS)).collect();
        let ids: Vec<(&str, bool)> = ids.iter().map(|id| (id.as_str(), true)).collect();
        out.push(with_flags("extensions", &ids));
    }
    out
}

/// `name version ("title")`, or a note that the server did not say.
pub fn server_identity(implementation: Option<&Implementation>) -> String {
    let Some(i) = implementation else { return "(not reported)".into() };
    let mut s = format!("{} {}", one_line(&i.name, FIELD_CHARS), one_line(&i.version, FIELD_CHARS));
    if let Some(title) = &i.title {
        s.push_str(&format!(" (\"{}\")", one_line(title, FIELD_CHARS)));
    }
    s
}

/// One line about a connection: `modern era, protocol 2026-07-28, server NAME VERSION`.
pub fn connection_line(info: &ServerInfo) -> String {
    format!(
        "{} era, protocol {}, server {}",
        info.era.as_str(),
        one_line(&info.protocol_version, FIELD_CHARS),
        server_identity(info.implementation.as_ref())
    )
}

/// Labelled rows with aligned values; continuation lines of a value are indented to match.
fn fields(rows: &[(&str, String)]) -> String {
    let width = rows.iter().map(|(label, _)| label.len()).max().unwrap_or(0) + 2;
    let mut out = Vec::new();
    for (label, value) in rows {
        let mut lines = value.lines();
        out.push(format!("{:width$}{}", format!("{label}:"), lines.next().unwrap_or("")));
        out.extend(lines.map(|l| format!("{:width$}{l}", "")));
    }
    out.join("\n")
}

/// The first [`INSTRUCTION_LINES`] lines of the instructions, with a count of the rest.
fn instructions_excerpt(text: &str) -> String {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let mut shown: Vec<String> =
        lines.iter().take(INSTRUCTION_LINES).map(|l| one_line(l, DESCRIPTION_CHARS)).collect();
    if lines.len() > INSTRUCTION_LINES {
        shown.push(format!("… ({} more lines)", lines.len() - INSTRUCTION_LINES));
    }
    shown.join("\n")
}

/// `mcp info` as text.
pub fn info_text(info: &ServerInfo) -> String {
    let caps = capability_list(&info.capabilities);
    let mut rows = vec![
        ("era", info.era.as_str().to_owned()),
        ("protocol", one_line(&info.protocol_version, FIELD_CHARS)),
        ("server", server_identity(info.implementation.as_ref())),
        ("capabilities", if caps.is_empty() { "(none)".into() } else { caps.join(", ") }),
    ];
    if !info.supported_versions.is_empty() {
        let versions: Vec<String> =
            info.supported_versions.iter().map(|v| one_line(v, FIELD_CHARS)).collect();
        rows.push(("supported", versions.join(", ")));
    }
    if let Some(text) = info.instructions.as_deref().map(instructions_excerpt).filter(|t| !t.is_empty()) {
        rows.push(("instructions", text));
    }
    rows.push(("transport", info.transport.as_str().into()));
    fields(&rows)
}

/// `mcp info --json`.
pub fn info_json(info: &ServerInfo) -> Value {
    json!({
        "era": info.era.as_str(),
        "protocolVersion": info.protocol_version,
        "supportedVersions": info.supported_versions,
        "serverInfo": info.implementation.as_ref().map(Implementation::raw),
        "capabilities": info.capabilities.raw(),
        "instructions": info.instructions,
        "transport": info.transport.as_str(),
    })
}

/// A JSON array of raw values.
pub fn json_array<'a>(items: impl IntoIterator<Item = &'a Value>) -> Value {
    Value::Array(items.into_iter().cloned().collect())
}

/// The hints a tool's annotations state explicitly (`read-only` makes the
/// destructive and idempotent hints meaningless, so they are left out then).
pub fn tool_hints(a: &ToolAnnotations) -> Vec<&'static str> {
    let mut hints = Vec::new();
    if a.read_only_hint == Some(true) {
        hints.push("read-only");
    } else {
        match a.destructive_hint {
            Some(true) => hints.push("destructive"),
            Some(false) => hints.push("non-destructive"),
            None => {}
        }
        if a.idempotent_hint == Some(true) {
            hints.push("idempotent");
        }
    }
    match a.open_world_hint {
        Some(true) => hints.push("open-world"),
        Some(false) => hints.push("closed-world"),
        None => {}
    }
    hints
}

/// `TITLE — DESCRIPTION  [EXTRA; EXTRA]`, each part only when present.
fn summary(title: Option<&str>, description: Option<&str>, extras: &[String]) -> String {
    let mut parts = Vec::new();
    if let Some(t) = title {
        parts.push(one_line(t, FIELD_CHARS));
    }
    if let Some(d) = description.map(|d| one_line(d, DESCRIPTION_CHARS)).filter(|d| !d.is_empty()) {
        parts.push(d);
    }
    let mut s = parts.join(" — ");
    if !extras.is_empty() {
        if !s.is_empty() {
            s.push_str("  ");
        }
        s.push_str(&format!("[{}]", extras.join("; ")));
    }
    s
}

/// Rows of `key  summary`, keys padded to one width, or `empty` when there are none.
pub fn rows(items: Vec<(String, String)>, empty: &str) -> String {
    if items.is_empty() {
        return empty.to_owned();
    }
    let width = items.iter().map(|(k, _)| k.chars().count()).max().unwrap_or(0).min(40);
    let line = |(k, v): (String, String)| {
        if v.is_empty() {
            k
        } else {
            format!("{k:width$}  {v}")
        }
    };
    items.into_iter().map(line).collect::<Vec<_>>().join("\n")
}

/// A tool's MCP Apps UI resource: `_meta.ui.resourceUri`, or the older flat
/// `_meta["ui/resourceUri"]` key.
pub fn tool_ui_resource(tool: &Tool) -> Option<&str> {
    let meta = tool.meta.as_ref()?;
    meta.get("ui")
        .and_then(|ui| ui.get("resourceUri"))
        .or_else(|| meta.get("ui/resourceUri"))
        .and_then(Value::as_str)
}

/// Whether an MCP Apps tool is for its app only (`_meta.ui.visibility` is `["app"]`): the
/// host does not show it to the model.
pub fn tool_is_app_only(tool: &Tool) -> bool {
    let visibility = tool.meta.as_ref().and_then(|m| m.get("ui")).and_then(|ui| ui.get("visibility"));
    visibility.and_then(Value::as_array).is_some_and(|v| v.len() == 1 && v[0] == "app")
}

/// One tool's row: its name, and its summary with hints, MCP Apps UI resource and app-only
/// visibility.
pub fn tool_row(t: &Tool) -> (String, String) {
    let mut hints: Vec<String> = tool_hints(&t.annotations).into_iter().map(String::from).collect();
    if let Some(uri) = tool_ui_resource(t) {
        hints.push(format!("ui: {}", one_line(uri, FIELD_CHARS)));
    }
    if tool_is_app_only(t) {
        hints.push("app-only".into());
    }
    (one_line(&t.name, FIELD_CHARS), summary(t.title.as_deref(), t.description.as_deref(), &hints))
}

/// `mcp tools` as text: one line per tool, with its hints, its MCP Apps UI resource and
/// app-only visibility.
pub fn tools_text(tools: &[Tool]) -> String {
    rows(tools.iter().map(tool_row).collect(), "(no tools)")
}

/// One prompt's row: its name, and its summary with its arguments (`*` marks required ones).
pub fn prompt_row(p: &Prompt) -> (String, String) {
    let args: Vec<String> = p
        .arguments
        .iter()
        .map(|a| format!("{}{}", one_line(&a.name, FIELD_CHARS), if a.required { "*" } else { "" }))
        .collect();
    let extras = if args.is_empty() { Vec::new() } else { vec![format!("args: {}", args.join(", "))] };
    (one_line(&p.name, FIELD_CHARS), summary(p.title.as_deref(), p.description.as_deref(), &extras))
}

/// `mcp prompts` as text: one line per prompt, with its arguments (`*` marks required ones).
pub fn prompts_text(prompts: &[Prompt]) -> String {
    rows(prompts.iter().map(prompt_row).collect(), "(no prompts)")
}

/// The MIME type (and size) of a resource, as summary extras.
fn resource_extras(mime_type: Option<&str>, size: Option<u64>) -> Vec<String> {
    let mut extras: Vec<String> = mime_type.map(|m| one_line(m, FIELD_CHARS)).into_iter().collect();
    extras.extend(size.map(|n| format!("{n} bytes")));
    extras
}

/// One resource's row: its URI, and its name, description, MIME type and size.
pub fn resource_row(r: &Resource) -> (String, String) {
    let extras = resource_extras(r.mime_type.as_deref(), r.size);
    (one_line(&r.uri, FIELD_CHARS), summary(Some(r.display_name()), r.description.as_deref(), &extras))
}

/// One resource template's row: its URI template, and its name, description and MIME type.
pub fn template_row(t: &ResourceTemplate) -> (String, String) {
    let extras = resource_extras(t.mime_type.as_deref(), None);
    let summary = summary(Some(t.display_name()), t.description.as_deref(), &extras);
    (one_line(&t.uri_template, FIELD_CHARS), summary)
}

/// The resources and templates sections of `mcp resources`, from their rows.
pub fn resource_sections(resources: Vec<(String, String)>, templates: Vec<(String, String)>) -> String {
    let section = |name: &str, items: Vec<(String, String)>| {
        format!("{name} ({}):\n{}", items.len(), indent(&rows(items, "(none)"), 2))
    };
    format!("{}\n{}", section("resources", resources), section("templates", templates))
}

/// `mcp resources` as text: the resources, then the templates.
pub fn resources_text(resources: &[Resource], templates: &[ResourceTemplate]) -> String {
    resource_sections(
        resources.iter().map(resource_row).collect(),
        templates.iter().map(template_row).collect(),
    )
}

/// `N bytes` for decoded base64, or why it could not be decoded.
fn byte_count(decoded: Result<Vec<u8>, DecodeError>) -> String {
    match decoded {
        Ok(bytes) => format!("{} bytes", bytes.len()),
        Err(_) => "invalid base64".into(),
    }
}

/// `URI (MIME, SIZE)` of resource contents: characters of text, decoded bytes of a blob.
pub fn contents_summary(c: &ResourceContents) -> String {
    let size = match c {
        ResourceContents::Text { text, .. } => format!("{} chars of text", text.chars().count()),
        ResourceContents::Blob { .. } => byte_count(c.decode_blob().map(Option::unwrap_or_default)),
    };
    let mime = c.mime_type().map(|m| format!("{}, ", one_line(m, FIELD_CHARS))).unwrap_or_default();
    format!("{} ({mime}{size})", one_line(c.uri(), FIELD_CHARS))
}

/// A content block: text as is, anything else as a one-line summary in brackets.
pub fn content_block_text(block: &ContentBlock) -> String {
    match block {
        ContentBlock::Text(t) => clean_block(&t.text),
        ContentBlock::Image(i) => {
            format!("[image: {}, {}]", one_line(&i.mime_type, FIELD_CHARS), byte_count(i.decode_data()))
        }
        ContentBlock::Audio(a) => {
            format!("[audio: {}, {}]", one_line(&a.mime_type, FIELD_CHARS), byte_count(a.decode_data()))
        }
        ContentBlock::ResourceLink(l) => {
            let mime = l.mime_type.as_deref().map(|m| format!(" ({})", one_line(m, FIELD_CHARS)));
            format!("[resource link: {}{}]", one_line(&l.uri, FIELD_CHARS), mime.unwrap_or_default())
        }
        ContentBlock::EmbeddedResource(e) => {
            format!("[embedded resource: {}]", contents_summary(&e.resource))
        }
        ContentBlock::Unknown(_) => {
            format!("[content of type {:?}]", one_line(block.content_type(), FIELD_CHARS))
        }
    }
}

/// `mcp call` as text: the content blocks, then `structuredContent` when present. A text block
/// that is the same JSON as `structuredContent` (servers send both for older clients) is left
/// out, so the data is printed once.
pub fn call_result_text(result: &CallToolResult) -> String {
    let duplicate = |block: &&ContentBlock| match (block, &result.structured_content) {
        (ContentBlock::Text(t), Some(structured)) => {
            serde_json::from_str::<Value>(&t.text).is_ok_and(|v| &v == structured)
        }
        _ => false,
    };
    let mut parts: Vec<String> =
        result.content.iter().filter(|b| !duplicate(b)).map(content_block_text).collect();
    if let Some(structured) = &result.structured_content {
        parts.push(format!("structuredContent:\n{}", pretty(structured)));
    }
    if parts.is_empty() {
        parts.push("(no content)".into());
    }
    parts.join("\n")
}

/// `mcp read` as text: text contents printed, blobs summarised; a header per item when there
/// are several.
pub fn read_result_text(result: &ReadResourceResult) -> String {
    let several = result.contents.len() > 1;
    let item = |c: &ResourceContents| {
        let body = match c.as_text() {
            Some(text) => clean_block(text),
            None => format!("[blob: {}]", contents_summary(c)),
        };
        if several {
            format!("--- {}\n{body}", contents_summary(c))
        } else {
            body
        }
    };
    if result.contents.is_empty() {
        return "(no contents)".into();
    }
    result.contents.iter().map(item).collect::<Vec<_>>().join("\n")
}

/// The messages of a prompt, `ROLE: CONTENT` each.
pub fn prompt_result_text(result: &GetPromptResult) -> String {
    let message = |m: &mcpwire_tokio::types::PromptMessage| {
        format!("{}: {}", one_line(m.role.as_str(), FIELD_CHARS), content_block_text(&m.content))
    };
    result.messages.iter().map(message).collect::<Vec<_>>().join("\n")
}

/// Completion values, comma-separated, with the total when the server gave more than shown.
pub fn completion_text(result: &CompleteResult) -> String {
    let values: Vec<String> = result.values.iter().map(|v| one_line(v, FIELD_CHARS)).collect();
    let mut s = if values.is_empty() { "(no completions)".into() } else { values.join(", ") };
    if let Some(total) = result.total.filter(|t| *t > values.len() as u64) {
        s.push_str(&format!(" ({total} in all)"));
    } else if result.has_more == Some(true) {
        s.push_str(" (more available)");
    }
    s
}

/// `progress 2/3: message`.
pub fn progress_line(p: &Progress) -> String {
    let mut s = format!("progress {}", p.progress);
    if let Some(total) = p.total {
        s.push_str(&format!("/{total}"));
    }
    if let Some(message) = p.message.as_deref().filter(|m| !m.is_empty()) {
        s.push_str(&format!(": {}", one_line(message, DESCRIPTION_CHARS)));
    }
    s
}

#[cfg(test)]
#[path = "output_tests.rs"]
mod tests;
