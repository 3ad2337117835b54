//! Unit tests of the rendering helpers.

use mcpwire_tokio::types::{
    CallToolResult, CompleteResult, ContentBlock, GetPromptResult, Implementation, Prompt,
    ReadResourceResult, Resource, ResourceTemplate, ServerCapabilities, Tool, ToolAnnotations,
};
use mcpwire_tokio::{Era, Progress, ServerInfo};
use serde_json::{json, Value};

use super::*;

fn caps(v: Value) -> ServerCapabilities {
    ServerCapabilities::from_value(v).unwrap()
}

fn tool(v: Value) -> Tool {
    Tool::from_value(v).unwrap()
}

fn info(era: Era, instructions: Option<&str>) -> ServerInfo {
    ServerInfo {
        era,
        protocol_version: "2025-11-25".into(),
        implementation: Some(
            Implementation::from_value(json!({"name": "srv", "version": "1.2", "title": "Server"})).unwrap(),
        ),
        capabilities: caps(json!({"tools": {}, "resources": {"subscribe": true, "listChanged": true}})),
        instructions: instructions.map(str::to_owned),
        supported_versions: Vec::new(),
        transport: mcpwire_tokio::mcp_servers::TransportKind::Stdio,
    }
}

#[test]
fn one_line_takes_the_first_line_escapes_and_cuts() {
    assert_eq!(one_line("  first\nsecond", 80), "first");
    assert_eq!(one_line("red \u{1b}[31m", 80), "red \\u{1b}[31m");
    assert_eq!(one_line("abcdef", 4), "abc…");
    assert_eq!(one_line("abcd", 4), "abcd");
    assert_eq!(one_line("", 4), "");
}

#[test]
fn clean_block_keeps_lines_and_tabs() {
    assert_eq!(clean_block("a\tb\r\nc\u{7}"), "a\tb\nc\\u{7}");
    assert_eq!(indent("a\nb", 2), "  a\n  b");
}

#[test]
fn capabilities_are_compact() {
    let all = caps(json!({
        "tools": {"listChanged": true},
        "prompts": {},
        "resources": {"subscribe": true, "listChanged": true},
        "logging": {},
        "completions": {},
        "extensions": {"io.example/ui": {}}
    }));
    assert_eq!(
        capability_list(&all),
        [
            "tools(listChanged)",
            "prompts",
            "resources(subscribe, listChanged)",
            "logging",
            "completions",
            "extensions(io.example/ui)"
        ]
    );
    assert!(capability_list(&caps(json!({}))).is_empty());
    assert_eq!(capability_list(&caps(json!({"resources": {"subscribe": true}}))), ["resources(subscribe)"]);
}

#[test]
fn info_text_and_json() {
    let long = "line 1\nline 2\n\nline 3\nline 4\nline 5";
    let text = info_text(&info(Era::Legacy, Some(long)));
    let expected = "\
era:          legacy
protocol:     2025-11-25
server:       srv 1.2 (\"Server\")
capabilities: tools, resources(subscribe, listChanged)
instructions: line 1
              line 2
              line 3
              … (2 more lines)
transport:    stdio";
    assert_eq!(text, expected);
    let bare = ServerInfo { implementation: None, ..info(Era::Modern, None) };
    assert!(info_text(&bare).contains("server:       (not reported)\n"));
    assert!(!info_text(&bare).contains("instructions"));

    let v = info_json(&info(Era::Modern, Some("hi")));
    assert_eq!(v["era"], "modern");
    assert_eq!(v["protocolVersion"], "2025-11-25");
    assert_eq!(v["serverInfo"]["title"], "Server");
    assert_eq!(v["capabilities"]["resources"]["subscribe"], true);
    assert_eq!(v["instructions"], "hi");
    assert_eq!(v["transport"], "stdio");
    assert_eq!(info_json(&bare)["serverInfo"], Value::Null);
}

#[test]
fn connection_line_is_short() {
    assert_eq!(
        connection_line(&info(Era::Legacy, None)),
        "legacy era, protocol 2025-11-25, server srv 1.2 (\"Server\")"
    );
}

#[test]
fn tool_hints_are_the_explicit_ones() {
    let hints = |v: Value| tool_hints(&ToolAnnotations::from_value(v).unwrap());
    assert!(hints(Value::Null).is_empty());
    assert_eq!(hints(json!({"readOnlyHint": true, "destructiveHint": true})), ["read-only"]);
    assert_eq!(
        hints(json!({"destructiveHint": true, "idempotentHint": true, "openWorldHint": false})),
        ["destructive", "idempotent", "closed-world"]
    );
    assert_eq!(
        hints(json!({"destructiveHint": false, "openWorldHint": true})),
        ["non-destructive", "open-world"]
    );
}

#[test]
fn tools_text_aligns_and_truncates() {
    let tools = [
        tool(json!({"name": "echo", "title": "Echo", "description": "Echoes\nmore", "inputSchema": {},
                    "annotations": {"readOnlyHint": true}})),
        tool(json!({"name": "longer_name", "description": "x".repeat(100), "inputSchema": {}})),
        tool(json!({"name": "bare", "inputSchema": {}})),
    ];
    let text = tools_text(&tools);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "echo         Echo — Echoes  [read-only]");
    assert_eq!(lines[1], format!("longer_name  {}…", "x".repeat(79)));
    assert_eq!(lines[2], "bare");
    assert_eq!(tools_text(&[]), "(no tools)");
    assert_eq!(json_array(tools.iter().map(Tool::raw))[0]["name"], "echo");
}

#[test]
fn tools_text_shows_mcp_apps_ui_and_app_only() {
    let tools = [
        tool(json!({"name": "chart", "inputSchema": {}, "annotations": {"readOnlyHint": true},
                    "_meta": {"ui": {"resourceUri": "ui://charts/view.html"}}})),
        tool(json!({"name": "refresh", "inputSchema": {},
                    "_meta": {"ui": {"resourceUri": "ui://charts/view.html", "visibility": ["app"]}}})),
        tool(json!({"name": "old", "inputSchema": {}, "_meta": {"ui/resourceUri": "ui://old/app.html"}})),
        tool(json!({"name": "both", "inputSchema": {}, "_meta": {"ui": {"visibility": ["model", "app"]}}})),
    ];
    let text = tools_text(&tools);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "chart    [read-only; ui: ui://charts/view.html]");
    assert_eq!(lines[1], "refresh  [ui: ui://charts/view.html; app-only]");
    assert_eq!(lines[2], "old      [ui: ui://old/app.html]");
    assert_eq!(lines[3], "both");
}

#[test]
fn prompts_and_resources_text() {
    let prompts = [Prompt::from_value(json!({
        "name": "greet", "description": "Says hi",
        "arguments": [{"name": "name", "required": true}, {"name": "style"}]
    }))
    .unwrap()];
    assert_eq!(prompts_text(&prompts), "greet  Says hi  [args: name*, style]");
    assert_eq!(prompts_text(&[]), "(no prompts)");

    let resources =
        [Resource::from_value(json!({"uri": "test://a", "name": "a", "mimeType": "text/plain", "size": 3}))
            .unwrap()];
    let templates = [ResourceTemplate::from_value(
        json!({"uriTemplate": "test://{id}", "name": "item", "title": "Item"}),
    )
    .unwrap()];
    assert_eq!(
        resources_text(&resources, &templates),
        "resources (1):\n  test://a  a  [text/plain; 3 bytes]\ntemplates (1):\n  test://{id}  Item"
    );
    assert_eq!(resources_text(&[], &[]), "resources (0):\n  (none)\ntemplates (0):\n  (none)");
}

#[test]
fn content_blocks_are_summarised() {
    let block = |v: Value| content_block_text(&ContentBlock::from_value(v).unwrap());
    assert_eq!(block(json!({"type": "text", "text": "a\nb"})), "a\nb");
    assert_eq!(
        block(json!({"type": "image", "data": "AAECAw==", "mimeType": "image/png"})),
        "[image: image/png, 4 bytes]"
    );
    assert_eq!(
        block(json!({"type": "audio", "data": "@@", "mimeType": "audio/wav"})),
        "[audio: audio/wav, invalid base64]"
    );
    assert_eq!(
        block(
            json!({"type": "resource_link", "uri": "file:///a.rs", "name": "a", "mimeType": "text/x-rust"})
        ),
        "[resource link: file:///a.rs (text/x-rust)]"
    );
    assert_eq!(
        block(json!({"type": "resource", "resource": {"uri": "test://t", "text": "héllo"}})),
        "[embedded resource: test://t (5 chars of text)]"
    );
    assert_eq!(
        block(
            json!({"type": "resource", "resource": {"uri": "test://b", "mimeType": "x/y", "blob": "AAECA/8="}})
        ),
        "[embedded resource: test://b (x/y, 5 bytes)]"
    );
    assert_eq!(block(json!({"type": "hologram"})), "[content of type \"hologram\"]");
}

#[test]
fn call_results() {
    let result = |v: Value| call_result_text(&CallToolResult::from_value(v).unwrap());
    assert_eq!(
        result(json!({"content": [{"type": "text", "text": "hi"}], "structuredContent": {"message": "hi"}})),
        "hi\nstructuredContent:\n{\n  \"message\": \"hi\"\n}"
    );
    assert_eq!(result(json!({"content": []})), "(no content)");
    // A text block carrying the structured content's JSON is not printed twice.
    assert_eq!(
        result(
            json!({"content": [{"type": "text", "text": "{\"sum\": 5}"}, {"type": "text", "text": "note"}],
                      "structuredContent": {"sum": 5}})
        ),
        "note\nstructuredContent:\n{\n  \"sum\": 5\n}"
    );
    assert_eq!(
        result(
            json!({"content": [{"type": "text", "text": "{\"sum\": 6}"}], "structuredContent": {"sum": 5}})
        ),
        "{\"sum\": 6}\nstructuredContent:\n{\n  \"sum\": 5\n}"
    );
    assert_eq!(result(json!({"content": [{"type": "text", "text": "bad"}], "isError": true})), "bad");
}

#[test]
fn read_results() {
    let read = |v: Value| read_result_text(&ReadResourceResult::from_value(v).unwrap());
    assert_eq!(read(json!({"contents": [{"uri": "u", "text": "hello"}]})), "hello");
    assert_eq!(
        read(json!({"contents": [{"uri": "u", "mimeType": "application/octet-stream", "blob": "AAECA/8="}]})),
        "[blob: u (application/octet-stream, 5 bytes)]"
    );
    assert_eq!(
        read(json!({"contents": [{"uri": "a", "text": "x"}, {"uri": "b", "blob": "AA=="}]})),
        "--- a (1 chars of text)\nx\n--- b (1 bytes)\n[blob: b (1 bytes)]"
    );
    assert_eq!(read(json!({"contents": []})), "(no contents)");
}

#[test]
fn prompt_and_completion_results() {
    let prompt = GetPromptResult::from_value(json!({
        "messages": [{"role": "user", "content": {"type": "text", "text": "Hello, Ada!"}}]
    }))
    .unwrap();
    assert_eq!(prompt_result_text(&prompt), "user: Hello, Ada!");
    let complete = |v: Value| completion_text(&CompleteResult::from_value(v).unwrap());
    assert_eq!(complete(json!({"completion": {"values": ["Ada", "Alan"]}})), "Ada, Alan");
    assert_eq!(complete(json!({"completion": {"values": ["a"], "total": 9}})), "a (9 in all)");
    assert_eq!(complete(json!({"completion": {"values": ["a"], "hasMore": true}})), "a (more available)");
    assert_eq!(complete(json!({"completion": {"values": []}})), "(no completions)");
}

#[test]
fn progress_lines() {
    let p = |progress, total, message: Option<&str>| {
        progress_line(&Progress { progress, total, message: message.map(str::to_owned) })
    };
    assert_eq!(p(1.0, Some(3.0), Some("step 1")), "progress 1/3: step 1");
    assert_eq!(p(0.5, None, None), "progress 0.5");
    assert_eq!(p(2.0, None, Some("")), "progress 2");
}
