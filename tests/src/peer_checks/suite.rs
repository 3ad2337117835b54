//! The checks against real third-party MCP servers (the peers installed by
//! `peers/setup.sh`), written once for every runtime like the scenarios: a test file
//! defines the glue module `rt` (see `scenarios.rs`) and writes
//! `define_peer_checks!(async, aw_async)` or `define_peer_checks!(, aw_sync)`, which defines
//! `pub mod peer_checks` with one function per peer.

/// Defines `pub mod peer_checks` for the runtime glue module `rt` of the calling module.
#[macro_export]
macro_rules! define_peer_checks {
    ($($kw:ident)? , $aw:ident) => {
        $crate::define_peer_checks!(@impl [$($kw)?] $aw $);
    };
    (@impl [$($kw:ident)?] $aw:ident $d:tt) => {
/// The real-peer checks, instantiated for this runtime.
#[allow(unused_imports, clippy::needless_borrows_for_generic_args)]
pub mod peer_checks {
    use super::rt;
    use std::time::Duration;
    use $crate::mcpwire_core::types::{CompletionReference, ContentBlock};
    use $crate::mcpwire_core::{Era, ServerInfo, ServerSpec, ServerTool, LEGACY_VERSIONS, MODERN_VERSION};
    use $crate::serde_json::{json, Map, Value};
    use $crate::support::{self, ProgressLog, TempDir};

    macro_rules! aw {
        ($d e:expr) => {
            $crate::$aw!($d e)
        };
    }

    /// Python and node peers can take a few seconds to start on a loaded 2-core machine.
    fn peer(name: &str, args: &[&str]) -> ServerSpec {
        support::peer_spec(name, args).request_timeout(Duration::from_secs(30))
    }

    type Tools = Vec<ServerTool>;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().cloned().expect("a JSON object")
    }

    /// Connects, checks the era and revision, lists the tools and checks `expected` are there.
    pub $($kw)? fn start(spec: ServerSpec, era: Era, expected: &[&str]) -> (rt::Client, ServerInfo, Tools) {
        let name = spec.name.clone();
        let client = rt::build(rt::Client::builder().server(spec)).expect("build the client");
        let info = aw!(client.connect()).into_result().unwrap_or_else(|e| panic!("{name}: connect: {e}")).remove(0);
        let version = match era {
            Era::Modern => MODERN_VERSION,
            Era::Legacy => LEGACY_VERSIONS[0],
        };
        assert_eq!((info.era, info.protocol_version.as_str()), (era, version), "{name}: {info:?}");
        let tools = aw!(client.list_tools()).into_result().unwrap_or_else(|e| panic!("{name}: list_tools: {e}"));
        let names: Vec<&str> = tools.iter().map(|t| t.tool.name.as_str()).collect();
        for want in expected {
            assert!(names.contains(want), "{name}: tool {want} missing from {names:?}");
        }
        for t in &tools {
            assert_eq!(t.server, name);
            assert_eq!(t.tool.input_schema["type"], "object", "{name}: {}", t.tool.name);
        }
        (client, info, tools)
    }

    fn text_of(r: &$crate::mcpwire_core::types::CallToolResult, what: &str) -> String {
        assert!(!r.is_error, "{what} failed: {:?}", r.raw());
        r.text()
    }

    /// echo returns its text, add returns the sum (as text and, where `structured`, as
    /// `structuredContent.sum`).
    pub $($kw)? fn echo_and_add(client: &rt::Client, name: &str, echo_prefix: &str) {
        let r = aw!(client.call_tool("echo", json!({"message": "hello peers"}))).expect("echo");
        assert_eq!(text_of(&r, "echo"), format!("{echo_prefix}hello peers"), "{name}");
        let r = aw!(client.call_tool("add", json!({"a": 2, "b": 3}))).expect("add");
        let text = text_of(&r, "add");
        let sum = r.structured_content.as_ref().and_then(|sc| sc.get("sum").or_else(|| sc.get("result")));
        match sum {
            Some(sum) => assert_eq!(sum.as_f64(), Some(5.0), "{name}: {:?}", r.raw()),
            None => assert_eq!(text, "5", "{name}: {:?}", r.raw()),
        }
        assert!(text.contains('5'), "{name}: {text:?}");
    }

    /// Reads `uri` (which the resource list must contain) and expects `text`.
    pub $($kw)? fn read_text(client: &rt::Client, uri: &str, text: &str) {
        let s = &client.servers()[0];
        let resources = aw!(s.list_resources()).expect("list_resources");
        assert!(resources.iter().any(|r| r.uri == uri), "{uri} missing from {resources:?}");
        let r = aw!(s.read_resource(uri)).expect("read_resource");
        assert_eq!(r.contents.len(), 1, "{:?}", r.raw());
        assert_eq!(r.contents[0].uri(), uri);
        assert_eq!(r.contents[0].as_text(), Some(text), "{uri}: {:?}", r.raw());
    }

    /// Gets `prompt` with `args` and expects one user message containing `contains`.
    pub $($kw)? fn prompt_text(client: &rt::Client, prompt: &str, args: Value, contains: &str) {
        let s = &client.servers()[0];
        let prompts = aw!(s.list_prompts()).expect("list_prompts");
        assert!(prompts.iter().any(|p| p.name == prompt), "{prompt} missing from {prompts:?}");
        let p = aw!(s.get_prompt(prompt, obj(args))).unwrap_or_else(|e| panic!("get_prompt {prompt}: {e}"));
        let texts: Vec<&str> = p.messages.iter().filter_map(|m| m.content.as_text()).collect();
        assert!(texts.iter().any(|t| t.contains(contains)), "{prompt}: {texts:?} lacks {contains:?}");
    }

    pub $($kw)? fn server_everything() {
        let tools = ["echo", "get-sum", "get-tiny-image", "get-structured-content", "get-annotated-message"];
        let (client, info, listed) = aw!(start(peer("server-everything", &[]), Era::Legacy, &tools));
        let implementation = info.implementation.clone().expect("serverInfo");
        assert!(implementation.name.contains("everything"), "{implementation:?}");
        assert!(listed.iter().all(|t| t.tool.execution.is_some()), "every tool has execution");
        let r = aw!(client.call_tool("echo", json!({"message": "hello peers"}))).expect("echo");
        assert_eq!(text_of(&r, "echo"), "Echo: hello peers");
        let r = aw!(client.call_tool("get-sum", json!({"a": 2, "b": 3}))).expect("get-sum");
        let text = text_of(&r, "get-sum");
        assert!(text.ends_with(" is 5."), "{text:?}");
        let r = aw!(client.call_tool("get-tiny-image", json!({}))).expect("get-tiny-image");
        let image = r.content.iter().find_map(|c| match c {
            ContentBlock::Image(i) => Some(i.clone()),
            _ => None,
        });
        let image = image.unwrap_or_else(|| panic!("no image block in {:?}", r.raw()));
        assert_eq!(image.mime_type, "image/png");
        assert!(image.decode_data().expect("base64").starts_with(b"\x89PNG"), "not a PNG");

        let s = &client.servers()[0];
        let resources = aw!(s.list_resources()).expect("list_resources");
        let doc = resources
            .iter()
            .find(|r| r.uri.starts_with("demo://resource/static/document/") && r.uri.ends_with(".md"))
            .unwrap_or_else(|| panic!("no static document in {resources:?}"));
        let read = aw!(s.read_resource(&doc.uri)).expect("read a static document");
        assert_eq!(read.contents[0].uri(), doc.uri);
        let text = read.contents[0].as_text().unwrap_or_else(|| panic!("not text: {:?}", read.raw()));
        assert!(!text.trim().is_empty(), "empty document {}", doc.uri);
        let templates = aw!(s.list_resource_templates()).expect("templates");
        let text_template = "demo://resource/dynamic/text/{resourceId}";
        assert!(templates.iter().any(|t| t.uri_template == text_template), "{templates:?}");

        aw!(prompt_text(&client, "simple-prompt", json!({}), ""));
        aw!(prompt_text(&client, "args-prompt", json!({"city": "Paris"}), "Paris"));
        let c = aw!(s.complete(CompletionReference::prompt("completable-prompt"), "department", "E"))
            .expect("complete");
        assert_eq!(c.values, ["Engineering"]);
        aw!(client.close());
    }

    pub $($kw)? fn server_filesystem() {
        let dir = TempDir::new("fs-peer");
        let content = "hello from the filesystem\nsecond line\n";
        let file = dir.write("hello.txt", content.as_bytes());
        let wav = support::wav_bytes();
        let sound = dir.write("sound.wav", &wav);
        let root = dir.path_str();
        let tools = ["read_text_file", "read_media_file", "list_directory", "list_allowed_directories"];
        let (client, _, listed) = aw!(start(peer("server-filesystem", &[&root]), Era::Legacy, &tools));
        assert!(listed.iter().all(|t| t.tool.output_schema.is_some()), "every tool has an outputSchema");
        let path = file.to_str().expect("UTF-8").to_owned();
        let r = aw!(client.call_tool("read_text_file", json!({"path": path}))).expect("read_text_file");
        assert_eq!(text_of(&r, "read_text_file"), content);
        let r = aw!(client.call_tool("list_directory", json!({"path": root}))).expect("list_directory");
        let listing = text_of(&r, "list_directory");
        assert!(listing.contains("[FILE] hello.txt") && listing.contains("[FILE] sound.wav"), "{listing:?}");
        let path = sound.to_str().expect("UTF-8").to_owned();
        let r = aw!(client.call_tool("read_media_file", json!({"path": path}))).expect("read_media_file");
        assert!(!r.is_error, "{:?}", r.raw());
        let audio = r.content.iter().find_map(|c| match c {
            ContentBlock::Audio(a) => Some(a.clone()),
            _ => None,
        });
        let audio = audio.unwrap_or_else(|| panic!("no audio block in {:?}", r.raw()));
        assert_eq!(audio.mime_type, "audio/wav");
        assert_eq!(audio.decode_data().expect("base64"), wav);
        let r = aw!(client.call_tool("read_text_file", json!({"path": "/etc/hostname"}))).expect("outside");
        assert!(r.is_error, "reading outside the allowed directory succeeded: {:?}", r.raw());
        aw!(client.close());
    }

    pub $($kw)? fn py_mcp_peer() {
        let tools = ["echo", "add", "fail", "slow", "ask_name"];
        let (client, info, _) = aw!(start(peer("py-mcp-peer", &[]), Era::Modern, &tools));
        assert_eq!(info.implementation.as_ref().map(|i| i.name.as_str()), Some("py-mcp-peer"));
        assert_eq!(info.instructions.as_deref(), Some("Tiny python-mcp 2.x test peer."));
        aw!(echo_and_add(&client, "py-mcp-peer", ""));
        let r = aw!(client.call_tool("fail", json!({}))).expect("fail is a result");
        assert!(r.is_error && r.text().starts_with("Error executing tool fail"), "{:?}", r.raw());
        let log = ProgressLog::new();
        let s = &client.servers()[0];
        let args = json!({"steps": 3});
        let r = aw!(s.call_tool("slow", args).on_progress(log.callback()))
            .expect("slow with progress");
        assert_eq!(text_of(&r, "slow"), "done after 3 steps");
        let seen: Vec<f64> = log.snapshot().iter().map(|p| p.progress).collect();
        assert_eq!(seen, [1.0, 2.0, 3.0]);
        aw!(read_text(&client, "peer://hello", "hello resource"));
        let item = aw!(s.read_resource("peer://item/42")).expect("a templated resource");
        assert_eq!(item.contents[0].as_text(), Some("item 42"));
        aw!(prompt_text(&client, "greet", json!({"name": "Ada"}), "Please greet Ada."));
        aw!(client.close());
    }

    pub $($kw)? fn fastmcp_echo_peer() {
        let spec = peer("fastmcp-echo-peer", &["--transport", "stdio"]);
        let (client, info, _) = aw!(start(spec, Era::Modern, &["echo", "add", "ask_name"]));
        assert_eq!(info.implementation.as_ref().map(|i| i.name.as_str()), Some("fastmcp-echo-peer"));
        aw!(echo_and_add(&client, "fastmcp-echo-peer", ""));
        aw!(read_text(&client, "echo://static", "Echo!"));
        aw!(prompt_text(&client, "echo_prompt", json!({"text": "hi"}), "Please echo: hi"));
        aw!(client.close());
    }

    pub $($kw)? fn ts_v2_peer() {
        let spec = peer("ts-v2-peer", &["stdio"]);
        let (client, info, _) = aw!(start(spec, Era::Modern, &["echo", "add", "bump"]));
        assert_eq!(info.implementation.as_ref().map(|i| i.name.as_str()), Some("ts-v2-peer"));
        aw!(echo_and_add(&client, "ts-v2-peer", ""));
        aw!(read_text(&client, "peer://hello", "hello resource"));
        aw!(prompt_text(&client, "greet", json!({"name": "Ada"}), "Please greet Ada."));
        aw!(client.close());
    }
}
    };
}
