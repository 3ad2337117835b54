//! The scenario suite against `mcp-test-server`, written once for every runtime.
//!
//! A test file defines a glue module `rt` and then instantiates the scenarios:
//!
//! ```text
//! mod rt {
//!     pub use mcpwire_tokio::{Client, ClientBuilder};
//!     pub async fn connect(target: &str) -> Result<Client, ClientError>;   // or a plain fn
//!     pub fn build(builder: ClientBuilder) -> Result<Client, ClientError>;
//!     // A typed handler `Fn(FromServer<Req>) -> Result<T, HandlerError>` in the family's shape:
//!     pub use mcp_tests::support::ready_handler as sync_handler;          // plain_handler (blocking)
//!     pub async fn sleep(d: Duration);                                       // or a plain fn
//! }
//! mcp_tests::define_scenarios!(async, aw_async);   // or: define_scenarios!(, aw_sync);
//! mcp_tests::all_scenario_tests!(run);              // run(f) executes f() on the runtime
//! ```
//!
//! Inside the bodies `aw!(e)` is `e.await` or `e`; closures never contain `aw!`.

/// Defines `pub mod scenarios` (one function per scenario) for the runtime glue module
/// `rt` of the calling module: `define_scenarios!(async, aw_async)` or
/// `define_scenarios!(, aw_sync)`.
#[macro_export]
macro_rules! define_scenarios {
    ($($kw:ident)? , $aw:ident) => {
        $crate::define_scenarios!(@impl [$($kw)?] $aw $);
    };
    (@impl [$($kw:ident)?] $aw:ident $d:tt) => {
/// The scenarios against `mcp-test-server`, instantiated for this runtime.
#[allow(unused_imports, clippy::needless_borrows_for_generic_args)]
pub mod scenarios {
    use super::rt;
    use std::collections::BTreeSet;
    use std::time::{Duration, Instant};
    use $crate::mcpwire_core::routing::RouteError;
    use $crate::mcpwire_core::types::{
        CompletionReference, CreateMessageRequest, CreateMessageResult, ElicitMode, ElicitResult, LoggingLevel, Role,
        Root,
    };
    use $crate::mcpwire_host::{ElicitationRequest, SamplingRequest};
    use $crate::mcpwire_core::{
        ClientError, CommandError, Era, Event, Limits, ListKind, Notification, ProtocolMode, RequestError,
        RequestOptions, RpcError, ServerRequestKind, Warning, LEGACY_VERSIONS, MODERN_VERSION,
    };
    use $crate::serde_json::{json, Map, Value};
    use $crate::support::{self, json_after, Events, ProgressLog};

    macro_rules! aw {
        ($d e:expr) => {
            $crate::$aw!($d e)
        };
    }

    /// The two eras most scenarios run in.
    const PROTOCOLS: [&str; 2] = ["modern", "2025-11-25"];
    /// The test server's tools in the modern era, in order; the legacy era lists them without
    /// `MODERN_ONLY_TOOLS` (the last ones), followed by `LEGACY_ONLY_TOOLS`.
    const MODERN_TOOLS: [&str; 20] = [
        "echo",
        "add",
        "slow",
        "progress",
        "fail",
        "rpc_error",
        "crash",
        "notify",
        "notify_later",
        "noise",
        "touch_resource",
        "change_list",
        "flood",
        "task_echo",
        "task_required",
        "task_input",
        "task_fail",
        "task_slow",
        "task_notify",
        "end_listens",
    ];
    const MODERN_ONLY_TOOLS: [&str; 1] = ["end_listens"];
    const LEGACY_ONLY_TOOLS: [&str; 4] = ["elicit", "sample", "roots", "ping_client"];

    /// The test server's tool names, in order, for a `--protocol` value.
    fn expected_tools(proto: &str) -> Vec<&'static str> {
        if proto == "modern" {
            return MODERN_TOOLS.to_vec();
        }
        let mut tools: Vec<&str> =
            MODERN_TOOLS.iter().copied().filter(|t| !MODERN_ONLY_TOOLS.contains(t)).collect();
        tools.extend(LEGACY_ONLY_TOOLS);
        tools
    }

    fn builder(args: &[&str]) -> rt::ClientBuilder {
        rt::Client::builder().server(support::spec(support::test_server(), "t", args))
    }

    fn new_client(args: &[&str]) -> rt::Client {
        rt::build(builder(args)).expect("build the client")
    }

    fn msg(text: &str) -> Value {
        json!({ "message": text })
    }

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().cloned().expect("a JSON object")
    }

    fn timeout(ms: u64) -> RequestOptions {
        RequestOptions::default().timeout(Duration::from_millis(ms))
    }

    fn rpc<T: std::fmt::Debug>(what: &str, r: Result<T, ClientError>) -> RpcError {
        match r {
            Err(ClientError::Request(RequestError::Rpc(e))) => e,
            other => panic!("{what}: expected a JSON-RPC error, got {other:?}"),
        }
    }

    fn expect_era(proto: &str) -> (Era, &'static str) {
        match proto {
            "modern" | "dual" => (Era::Modern, MODERN_VERSION),
            v => (Era::Legacy, LEGACY_VERSIONS.into_iter().find(|l| *l == v).expect("a legacy revision")),
        }
    }

    /// Polls `cond` every 10 ms for up to 5 s; panics with `what` if it never holds.
    $($kw)? fn wait_until(what: &str, cond: impl Fn() -> bool) {
        let deadline = Instant::now() + Duration::from_secs(5);
        while !cond() {
            assert!(Instant::now() < deadline, "timed out waiting for {what}");
            aw!(rt::sleep(Duration::from_millis(10)));
        }
    }

    /// echo answers on the server of `client` named `server`.
    $($kw)? fn assert_echo(client: &rt::Client, server: &str, text: &str) {
        let r = aw!(client.call_tool("echo", msg(text)).server(&server)).expect("echo after the scenario");
        assert_eq!(r.text(), text);
    }

    pub $($kw)? fn connect_eras() {
        for proto in ["modern", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "dual"] {
            let (era, version) = expect_era(proto);
            let target = support::target(support::test_server(), &["--protocol", proto]);
            let client =
                aw!(rt::connect(&target)).unwrap_or_else(|e| panic!("connect --protocol {proto}: {e}"));
            let info = client.servers()[0].info().expect("server info after connect");
            assert_eq!((info.era, info.protocol_version.as_str()), (era, version), "--protocol {proto}");
            assert_eq!(info.implementation.as_ref().map(|i| i.name.as_str()), Some("mcp-test-server"));
            assert!(info.capabilities.raw().get("tools").is_some(), "{proto}: {:?}", info.capabilities);
            match era {
                Era::Modern => assert_eq!(info.supported_versions, [MODERN_VERSION], "{proto}"),
                Era::Legacy => assert!(info.supported_versions.is_empty(), "{proto}"),
            }
            let instructions = info.instructions.clone().unwrap_or_default();
            assert!(instructions.starts_with("mcp-test-server"), "{proto}: {instructions:?}");
            aw!(client.close());
        }
    }

    pub $($kw)? fn connect_silent_discover_falls_back() {
        let spec = support::spec(support::test_server(), "t", &["--protocol", "2025-06-18", "--silent-discover"])
            .discover_timeout(Duration::from_millis(300));
        let client = rt::build(rt::Client::builder().server(spec)).expect("build");
        let started = Instant::now();
        let infos = aw!(client.connect()).into_result().expect("a silent discover falls back to initialize");
        let took = started.elapsed();
        assert_eq!((infos[0].era, infos[0].protocol_version.as_str()), (Era::Legacy, "2025-06-18"));
        assert!(took >= Duration::from_millis(300), "fell back before the discover timeout: {took:?}");
        assert!(took < Duration::from_secs(4), "fallback took {took:?} with a 300 ms discover timeout");
        aw!(assert_echo(&client, "t", "after fallback"));
        aw!(client.close());
    }

    pub $($kw)? fn connect_rejects_unknown_answered_version() {
        let client = new_client(&["--protocol", "2025-11-25", "--answer-version", "1999-01-01"]);
        match aw!(client.connect()).into_result() {
            Err(ClientError::Request(RequestError::UnsupportedProtocolVersion { offered, answered })) => {
                assert_eq!(answered, "1999-01-01");
                assert_eq!(offered, "2025-11-25");
            }
            other => panic!("expected UnsupportedProtocolVersion, got {other:?}"),
        }
        aw!(client.close());
    }

    pub $($kw)? fn connect_protocol_modes() {
        let spec =
            support::spec(support::test_server(), "t", &["--protocol", "2025-11-25"]).protocol(ProtocolMode::Modern);
        let client = rt::build(rt::Client::builder().server(spec)).expect("build");
        match aw!(client.connect()).into_result() {
            Err(ClientError::Request(RequestError::ModernRequired { detail })) => assert!(!detail.is_empty()),
            other => panic!("expected ModernRequired, got {other:?}"),
        }
        aw!(client.close());
        let spec = support::spec(support::test_server(), "t", &["--protocol", "modern"]).protocol(ProtocolMode::Modern);
        let client = rt::build(rt::Client::builder().server(spec)).expect("build");
        assert_eq!(aw!(client.connect()).into_result().expect("modern mode, modern server")[0].era, Era::Modern);
        aw!(client.close());
        let spec = support::spec(support::test_server(), "t", &["--protocol", "dual"]).protocol(ProtocolMode::Legacy);
        let client = rt::build(rt::Client::builder().server(spec)).expect("build");
        let info = aw!(client.connect()).into_result().expect("legacy mode, dual server").remove(0);
        assert_eq!((info.era, info.protocol_version.as_str()), (Era::Legacy, "2025-11-25"));
        aw!(assert_echo(&client, "t", "legacy mode"));
        aw!(client.close());
    }

    pub $($kw)? fn tools_list_typed() {
        for proto in PROTOCOLS {
            let client = new_client(&["--protocol", proto]);
            let tools = aw!(client.list_tools()).into_result().expect("list_tools");
            let names: Vec<&str> = tools.iter().map(|t| t.tool.name.as_str()).collect();
            assert_eq!(names, expected_tools(proto), "{proto}");
            assert!(tools.iter().all(|t| t.server == "t"));
            let echo = &tools[0].tool;
            assert_eq!(echo.title.as_deref(), Some("Echo"));
            assert_eq!(echo.display_name(), "Echo");
            assert!(echo.description.as_deref().unwrap_or("").starts_with("Echoes"));
            assert!(echo.annotations.read_only(), "{:?}", echo.annotations);
            assert!(!echo.annotations.destructive());
            assert_eq!(echo.icons.len(), 1);
            assert_eq!(echo.icons[0].src, "data:image/png;base64,AA==");
            assert_eq!(echo.icons[0].mime_type.as_deref(), Some("image/png"));
            assert_eq!(echo.input_schema["required"], json!(["message"]));
            let output = echo.output_schema.as_ref().expect("echo has an output schema");
            assert_eq!(output["properties"]["argumentsHadMeta"]["type"], "boolean");
            let add = &tools[1].tool;
            assert_eq!((add.title.as_deref(), add.output_schema.as_ref()), (None, None));
            assert!(add.icons.is_empty());
            let known = client.servers()[0].known_tools().expect("tools are known after listing");
            assert_eq!(known.len(), tools.len());
            aw!(client.close());
        }
    }

    pub $($kw)? fn tools_call_and_meta() {
        for proto in PROTOCOLS {
            let spec = support::spec(support::test_server(), "t", &["--protocol", proto])
                .request_meta(obj(json!({"origin": "spec"})));
            let client = rt::build(rt::Client::builder().server(spec)).expect("build");
            let r = aw!(client.call_tool("echo", msg("hi"))).expect("echo");
            assert_eq!((r.text().as_str(), r.is_error), ("hi", false), "{proto}");
            let sc = r.structured_content.clone().expect("echo has structured content");
            assert_eq!(sc["message"], "hi");
            assert_eq!(sc["receivedMeta"], json!({"origin": "spec"}), "{proto}: static _meta");
            // A `_meta` key in the arguments is hoisted into params._meta.
            let args = json!({"message": "m", "_meta": {"trace": "abc"}});
            let r = aw!(client.call_tool("echo", args)).expect("echo with _meta");
            let sc = r.structured_content.clone().expect("structured content");
            assert_eq!(sc.get("argumentsHadMeta"), None, "{proto}: _meta left in the arguments: {sc}");
            assert_eq!(sc["receivedMeta"], json!({"origin": "spec", "trace": "abc"}), "{proto}");
            // Per-request options' _meta.
            let opts = RequestOptions::default().meta(obj(json!({"k": "v"})));
            let r = aw!(client.servers()[0].call_tool("echo", msg("o")).options(opts)).expect("echo with opts");
            let sc = r.structured_content.clone().expect("structured content");
            assert_eq!(sc["receivedMeta"], json!({"origin": "spec", "k": "v"}), "{proto}");
            let r = aw!(client.call_tool("add", json!({"a": 2, "b": 3}))).expect("add");
            assert_eq!(r.text(), "5");
            assert_eq!(r.structured_content, Some(json!({"sum": 5})));
            // Typed arguments in (any `Serialize`, by reference), typed structured content out.
            #[derive($crate::serde::Serialize)]
            #[serde(crate = "mcp_tests::serde")]
            struct Add {
                a: i64,
                b: i64,
            }
            #[derive(Debug, PartialEq, $crate::serde::Deserialize)]
            #[serde(crate = "mcp_tests::serde")]
            struct Sum {
                sum: i64,
            }
            let r = aw!(client.call_tool("add", &Add { a: 4, b: 5 })).expect("add, typed");
            assert_eq!(r.structured_as::<Sum>(), Ok(Sum { sum: 9 }));
            assert!(r.structured_as::<Vec<String>>().is_err(), "a typed error when it does not fit");
            aw!(client.close());
        }
    }

    pub $($kw)? fn tools_errors() {
        for proto in PROTOCOLS {
            let client = new_client(&["--protocol", proto]);
            let r = aw!(client.call_tool("fail", json!({}))).expect("a tool failure is a result");
            assert!(r.is_error, "{proto}");
            assert_eq!(r.text(), "tool failed");
            let e = rpc("rpc_error", aw!(client.call_tool("rpc_error", json!({}))));
            assert_eq!((e.code, e.message.as_str()), (-32050, "custom failure"), "{proto}");
            assert_eq!(e.data, Some(json!({"why": "asked"})));
            let e = rpc("unknown tool", aw!(client.call_tool("no_such_tool", json!({}))));
            assert_eq!(e.code, -32602, "{proto}: {e:?}");
            assert!(e.message.contains("no_such_tool"), "{e:?}");
            assert_eq!(e.data, Some(json!({"name": "no_such_tool"})));
            aw!(assert_echo(&client, "t", "still fine"));
            aw!(client.close());
        }
    }

    pub $($kw)? fn pagination() {
        for proto in PROTOCOLS {
            let client = new_client(&["--protocol", proto, "--page-size", "3", "--extra-tools", "10"]);
            let tools = aw!(client.list_tools()).into_result().expect("paginated list_tools");
            let names: Vec<String> = tools.iter().map(|t| t.tool.name.clone()).collect();
            let base = expected_tools(proto).len();
            assert_eq!(names.len(), base + 10, "{proto}: {names:?}");
            assert_eq!(names.iter().collect::<BTreeSet<_>>().len(), names.len(), "duplicates: {names:?}");
            assert_eq!(names[0], "echo");
            for i in 0..10 {
                assert_eq!(names[base + i], format!("extra_{i}"), "{proto}: order");
            }
            let r = aw!(client.call_tool("extra_9", msg("x9"))).expect("an extra tool");
            assert_eq!(r.text(), "x9");
            let prompts = aw!(client.servers()[0].list_prompts()).expect("prompts");
            assert_eq!(prompts.len(), 2);
            aw!(client.close());
            let client = new_client(&["--protocol", proto, "--page-size", "3", "--loop-cursor"]);
            match aw!(client.list_tools()).into_result() {
                Err(ClientError::Request(RequestError::Pagination { detail })) => assert!(!detail.is_empty()),
                other => panic!("{proto}: expected a pagination error, got {other:?}"),
            }
            aw!(assert_echo(&client, "t", "after the loop"));
            aw!(client.close());
        }
    }

    pub $($kw)? fn prompts_and_resources() {
        for proto in PROTOCOLS {
            let client = new_client(&["--protocol", proto]);
            let s = &client.servers()[0];
            let prompts = aw!(s.list_prompts()).expect("list_prompts");
            let names: Vec<&str> = prompts.iter().map(|p| p.name.as_str()).collect();
            assert_eq!(names, ["greet", "plain"], "{proto}");
            assert_eq!(prompts[0].title.as_deref(), Some("Greeting"));
            assert_eq!(prompts[0].arguments.len(), 1);
            let arg = &prompts[0].arguments[0];
            assert_eq!((arg.name.as_str(), arg.required), ("name", true));
            let p = aw!(s.get_prompt("greet", obj(json!({"name": "Ada"})))).expect("get_prompt greet");
            assert_eq!(p.description.as_deref(), Some("A greeting"));
            assert_eq!(p.messages.len(), 1);
            assert_eq!(p.messages[0].role, Role::User);
            assert_eq!(p.messages[0].content.as_text(), Some("Hello, Ada!"), "{proto}");
            let e = rpc("greet without name", aw!(s.get_prompt("greet", Map::new())));
            assert_eq!(e.code, -32602);

            let resources = aw!(s.list_resources()).expect("list_resources");
            let uris: Vec<&str> = resources.iter().map(|r| r.uri.as_str()).collect();
            assert_eq!(uris, ["test://text", "test://blob"], "{proto}");
            assert_eq!(resources[0].mime_type.as_deref(), Some("text/plain"));
            assert_eq!(resources[1].title.as_deref(), Some("Binary resource"));
            let text = aw!(s.read_resource("test://text")).expect("read test://text");
            assert_eq!(text.contents.len(), 1);
            assert_eq!(text.contents[0].uri(), "test://text");
            assert_eq!(text.contents[0].as_text(), Some("hello resource"), "{proto}");
            let blob = aw!(s.read_resource("test://blob")).expect("read test://blob");
            assert_eq!(blob.contents[0].as_text(), None);
            assert_eq!(blob.contents[0].decode_blob().expect("valid base64"), Some(vec![0u8, 1, 2, 3, 255]));
            assert_eq!(blob.contents[0].mime_type(), Some("application/octet-stream"));
            let e = rpc("missing resource", aw!(s.read_resource("test://missing")));
            assert_eq!(e.code, if proto == "modern" { -32602 } else { -32002 }, "{proto}");

            let templates = aw!(s.list_resource_templates()).expect("list_resource_templates");
            assert_eq!(templates.len(), 1);
            let t = &templates[0];
            assert_eq!((t.uri_template.as_str(), t.name.as_str()), ("test://item/{id}", "item"));
            let item = aw!(s.read_resource("test://item/7")).expect("read a templated resource");
            assert_eq!(item.contents[0].as_text(), Some("item 7"));

            let c = aw!(s.complete(CompletionReference::prompt("greet"), "name", "A")).expect("complete");
            assert_eq!(c.values, ["Ada", "Alan"], "{proto}");
            assert_eq!((c.total, c.has_more), (Some(2), Some(false)));
            let reference = CompletionReference::resource("test://item/{id}");
            let c = aw!(s.complete(reference, "id", "4")).expect("complete");
            assert_eq!(c.values, ["42"]);
            aw!(client.close());
        }
    }

    /// A server that writes stderr without pause holds up neither calls nor their timeouts (an
    /// async-io stream has no cooperative budget: a reader task that never yields would keep
    /// the timer's executor from running).
    pub $($kw)? fn stderr_flood_holds_up_nothing() {
        let client = new_client(&["--stderr-flood"]);
        aw!(client.connect()).into_result().expect("connect");
        aw!(assert_echo(&client, "t", "through the flood"));
        let started = Instant::now();
        let r = aw!(client.servers()[0].call_tool("slow", json!({"ms": 20000})).options(timeout(300)));
        assert!(matches!(r, Err(ClientError::Request(RequestError::Timeout { .. }))), "{r:?}");
        let took = started.elapsed();
        assert!(took < Duration::from_secs(5), "the timeout fired after {took:?}");
        aw!(assert_echo(&client, "t", "after the timeout"));
        aw!(client.close());
    }

    pub $($kw)? fn timeout_then_recovers() {
        for proto in PROTOCOLS {
            let client = new_client(&["--protocol", proto]);
            aw!(client.connect()).into_result().expect("connect");
            let started = Instant::now();
            let r = aw!(client.servers()[0].call_tool("slow", json!({"ms": 20000})).options(timeout(200)));
            match r {
                Err(ClientError::Request(RequestError::Timeout { after })) => {
                    assert_eq!(after, Duration::from_millis(200))
                }
                other => panic!("{proto}: expected a timeout, got {other:?}"),
            }
            let took = started.elapsed();
            assert!(took >= Duration::from_millis(200) && took < Duration::from_secs(3), "{took:?}");
            aw!(assert_echo(&client, "t", "after the timeout"));
            aw!(client.close());
        }
    }

    pub $($kw)? fn progress() {
        for proto in PROTOCOLS {
            let events = Events::new();
            let client = rt::build(builder(&["--protocol", proto]).on_event(events.hook())).expect("build");
            let log = ProgressLog::new();
            let args = json!({"steps": 3, "delayMs": 10});
            let opts = RequestOptions::default();
            let r = aw!(client.servers()[0].call_tool("progress", args).options(opts).on_progress(log.callback()))
                .expect("progress tool");
            assert_eq!(r.text(), "done 3");
            aw!(wait_until("3 progress callbacks", || log.snapshot().len() >= 3));
            let seen = log.snapshot();
            assert_eq!(seen.len(), 3, "{proto}: {seen:?}");
            for (i, p) in seen.iter().enumerate() {
                assert_eq!(p.progress, (i + 1) as f64, "{proto}: {seen:?}");
                assert_eq!(p.total, Some(3.0));
                assert_eq!(p.message.clone(), Some(format!("step {}", i + 1)));
            }
            let stale = |e: &Event| {
                matches!(e, Event::Warning(Warning::StaleProgress { token }) if token.contains("stale-token"))
            };
            aw!(wait_until("a StaleProgress warning", || events.any(stale)));
            aw!(client.close());
        }
    }

    pub $($kw)? fn crash_restarts() {
        for proto in PROTOCOLS {
            let events = Events::new();
            let client = rt::build(builder(&["--protocol", proto]).on_event(events.hook())).expect("build");
            aw!(assert_echo(&client, "t", "before"));
            for code in [3, 7] {
                let args = if code == 3 { json!({}) } else { json!({"code": code}) };
                match aw!(client.call_tool("crash", args)) {
                    Err(ClientError::Request(RequestError::TransportClosed { detail, .. })) => {
                        assert!(detail.contains(&format!("exit code {code}")), "{proto}: {detail:?}")
                    }
                    other => panic!("{proto}: expected TransportClosed, got {other:?}"),
                }
                aw!(assert_echo(&client, "t", "after the crash"));
                let info = client.servers()[0].info().expect("reconnected");
                assert_eq!(info.era, expect_era(proto).0);
            }
            let disconnects =
                || events.snapshot().iter().filter(|(_, e)| matches!(e, Event::Disconnected { .. })).count();
            aw!(wait_until("two disconnects", || disconnects() >= 2));
            assert_eq!(disconnects(), 2, "{proto}");
            aw!(client.close());
        }
    }

    pub $($kw)? fn notifications() {
        for proto in PROTOCOLS {
            let events = Events::new();
            let client = rt::build(builder(&["--protocol", proto]).on_event(events.hook())).expect("build");
            aw!(client.list_tools()).into_result().expect("list_tools");
            assert!(client.servers()[0].known_tools().is_some());
            let r = aw!(client.call_tool("notify", json!({}))).expect("notify");
            assert_eq!(r.text(), "notified");
            let changed =
                |k: ListKind| move |e: &Event| *e == Event::Notification(Notification::ListChanged(k));
            aw!(wait_until("tools list_changed", || events.any(changed(ListKind::Tools))));
            aw!(wait_until("prompts list_changed", || events.any(changed(ListKind::Prompts))));
            aw!(wait_until("resources list_changed", || events.any(changed(ListKind::Resources))));
            let is_log = |e: &Event| matches!(e, Event::Notification(Notification::Log(_)));
            aw!(wait_until("a log notification", || events.any(is_log)));
            let log = events.snapshot().into_iter().find_map(|(server, e)| match e {
                Event::Notification(Notification::Log(l)) => Some((server, l)),
                _ => None,
            });
            let (server, log) = log.expect("a log message");
            assert_eq!(server, "t");
            assert_eq!(log.level, LoggingLevel::Warning);
            assert_eq!(log.logger.as_deref(), Some("test"));
            assert_eq!(log.text, "line1\\nline2\\u{1b}[31m red", "{proto}: control characters escaped");
            assert_eq!(log.data, json!("line1\nline2\u{1b}[31m red"));
            let known = client.servers()[0].known_tools();
            assert!(known.is_none(), "{proto}: list_changed left a stale tool cache");
            aw!(client.close());
        }
    }

    /// A notification that comes while no call is waiting (so no caller reads the server's
    /// stdout) still reaches the event hook: the reader task or thread reads it.
    pub $($kw)? fn notification_while_idle() {
        for proto in PROTOCOLS {
            let events = Events::new();
            let client = rt::build(builder(&["--protocol", proto]).on_event(events.hook())).expect("build");
            let r = aw!(client.call_tool("notify_later", json!({"ms": 100}))).expect("notify_later");
            assert_eq!(r.text(), "later");
            let later = |e: &Event| matches!(e, Event::Notification(Notification::Log(l)) if l.logger.as_deref() == Some("later"));
            assert!(!events.any(later), "{proto}: the notification came before the reply");
            aw!(wait_until("the later log notification", || events.any(later)));
            aw!(client.close());
        }
    }

    pub $($kw)? fn noise() {
        for proto in PROTOCOLS {
            let events = Events::new();
            let limits = Limits::default().max_message_bytes(1 << 20);
            let spec = support::spec(support::test_server(), "t", &["--protocol", proto]).limits(limits);
            let b = rt::Client::builder().server(spec).on_event(events.hook());
            let client = rt::build(b).expect("build");
            let r = aw!(client.call_tool("noise", json!({}))).expect("noise answers");
            assert_eq!(r.text(), "noisy", "{proto}");
            let non_json = |e: &Event| {
                matches!(e, Event::Warning(Warning::NonJsonLine { excerpt })
                    if excerpt.contains("this is not json"))
            };
            let oversize = |e: &Event| {
                matches!(e, Event::Warning(Warning::OversizeMessage { len, limit })
                    if *limit == 1 << 20 && *len > *limit)
            };
            // The 100 KiB stderr line is over max_stderr_line_bytes: it is shown cut to the
            // limit and marked with its full size, never passed on whole.
            let stderr = |e: &Event| {
                matches!(e, Event::Stderr(line) if line.len() <= 4096 + 64
                    && line.starts_with("eeee") && line.contains("102400"))
            };
            let whole = |e: &Event| matches!(e, Event::Stderr(line) if line.len() > 4096 + 64);
            aw!(wait_until("a NonJsonLine warning", || events.any(non_json)));
            aw!(wait_until("an OversizeMessage warning", || events.any(oversize)));
            aw!(wait_until("the long stderr line reported", || events.any(stderr)));
            assert!(!events.any(whole), "{proto}: a stderr line longer than the limit was passed on");
            aw!(assert_echo(&client, "t", "after the noise"));
            aw!(client.close());
        }
    }

    pub $($kw)? fn legacy_elicitation() {
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let record = seen.clone();
        let h = rt::sync_handler(move |req: ElicitationRequest| {
            record.lock().unwrap().push((req.server.to_string(), req.request));
            Ok(ElicitResult::accept(json!({"name": "Ada"})))
        });
        let client = rt::build(builder(&["--protocol", "2025-11-25"]).elicitation_handler(h)).expect("build");
        let r = aw!(client.call_tool("elicit", json!({}))).expect("elicit");
        assert_eq!(json_after(&r.text(), "elicitation: accept "), json!({"name": "Ada"}));
        let seen = seen.lock().unwrap().clone();
        assert_eq!(seen.len(), 1);
        assert_eq!(seen[0].0, "t");
        assert_eq!(seen[0].1.mode, ElicitMode::Form);
        assert_eq!(seen[0].1.message, "What is your name?");
        assert_eq!(seen[0].1.requested_schema.as_ref().map(|s| s["type"].clone()), Some(json!("object")));
        aw!(client.close());
    }

    pub $($kw)? fn legacy_handler_failure() {
        let events = Events::new();
        let h = rt::sync_handler(|_: ElicitationRequest| Err::<ElicitResult, _>("the user walked away".into()));
        let b = builder(&["--protocol", "2025-11-25"]).elicitation_handler(h).on_event(events.hook());
        let client = rt::build(b).expect("build");
        let r = aw!(client.call_tool("elicit", json!({}))).expect("elicit");
        let text = r.text();
        assert!(text.starts_with("elicitation error: "), "{text:?}");
        assert!(text.contains("Client handler failed"), "{text:?}");
        assert!(!text.contains("walked away"), "the local detail leaked to the server: {text:?}");
        let failed = |e: &Event| {
            matches!(e, Event::Warning(Warning::HandlerFailed { method, detail })
                if method == "elicitation/create" && detail.contains("walked away"))
        };
        aw!(wait_until("a HandlerFailed warning", || events.any(failed)));
        aw!(client.close());
    }

    pub $($kw)? fn legacy_roots_and_sampling() {
        let asked = std::sync::Arc::new(std::sync::Mutex::new(Vec::<CreateMessageRequest>::new()));
        let record = asked.clone();
        let answer = json!({"role": "assistant", "content": {"type": "text", "text": "hi there"},
                            "model": "test-model", "stopReason": "endTurn"});
        let sampling = rt::sync_handler(move |req: SamplingRequest| {
            record.lock().unwrap().push(req.request);
            Ok(CreateMessageResult::text("hi there", "test-model"))
        });
        let roots = [Root::named("file:///tmp/project", "project"), Root::new("file:///tmp/other")];
        let b = builder(&["--protocol", "2025-11-25"]).roots(roots).sampling_handler(sampling);
        let client = rt::build(b).expect("build");
        let r = aw!(client.call_tool("roots", json!({}))).expect("roots");
        let project = json!({"uri": "file:///tmp/project", "name": "project"});
        let expected = json!({"roots": [project, {"uri": "file:///tmp/other"}]});
        assert_eq!(json_after(&r.text(), "roots: "), expected);
        let r = aw!(client.call_tool("sample", json!({}))).expect("sample");
        assert_eq!(json_after(&r.text(), "sampling: "), answer);
        let asked = asked.lock().unwrap().clone();
        assert_eq!(asked.len(), 1);
        assert_eq!(asked[0].messages[0].content[0].as_text(), Some("Say hi"));
        assert_eq!(asked[0].max_tokens, 10);
        assert_eq!(asked[0].raw()["maxTokens"], 10);
        aw!(client.close());
    }

    pub $($kw)? fn legacy_without_handlers() {
        let client = new_client(&["--protocol", "2025-11-25"]);
        let text = aw!(client.call_tool("elicit", json!({}))).expect("elicit").text();
        assert!(text.starts_with("elicitation error: -32601 "), "{text:?}");
        for (tool, label) in [("roots", "roots: "), ("sample", "sampling: ")] {
            let text = aw!(client.call_tool(tool, json!({}))).expect(tool).text();
            assert_eq!(json_after(&text, label)["code"], -32601, "{tool}: {text:?}");
        }
        aw!(client.close());
    }

    pub $($kw)? fn multi_server() {
        let b = rt::Client::builder()
            .server(support::spec(support::test_server(), "a", &["--protocol", "modern"]))
            .server(support::spec(support::test_server(), "b", &["--protocol", "2025-11-25"]));
        let client = rt::build(b).expect("build");
        let infos = aw!(client.connect()).into_result().expect("connect both");
        assert_eq!(infos.iter().map(|i| i.era).collect::<Vec<_>>(), [Era::Modern, Era::Legacy]);
        assert_eq!(client.server("b").and_then(|s| s.info()).map(|i| i.era), Some(Era::Legacy));
        let tools = aw!(client.list_tools()).into_result().expect("list_tools");
        let (modern, legacy) = (expected_tools("modern").len(), expected_tools("2025-11-25").len());
        assert_eq!(tools.len(), modern + legacy);
        assert_eq!(tools.iter().filter(|t| t.server == "a").count(), modern);
        let owners = |name: &str| -> Vec<String> {
            tools.iter().filter(|t| t.tool.name == name).map(|t| t.server.clone()).collect()
        };
        assert_eq!(owners("echo"), ["a", "b"]);
        assert_eq!(owners("elicit"), ["b"]);
        match aw!(client.call_tool("echo", msg("x"))) {
            Err(ClientError::Route(RouteError::Ambiguous { name, servers })) => {
                assert_eq!((name.as_str(), servers), ("echo", vec!["a".to_owned(), "b".to_owned()]))
            }
            other => panic!("expected an ambiguous route, got {other:?}"),
        }
        aw!(assert_echo(&client, "b", "from b"));
        aw!(assert_echo(&client, "a", "from a"));
        let text = aw!(client.call_tool("elicit", json!({}))).expect("elicit routes to b").text();
        assert!(text.starts_with("elicitation error: -32601"), "{text:?}");
        match aw!(client.call_tool("no_such_tool", json!({}))) {
            Err(ClientError::Route(RouteError::UnknownTool(name))) => assert_eq!(name, "no_such_tool"),
            other => panic!("expected UnknownTool, got {other:?}"),
        }
        match aw!(client.call_tool("echo", msg("x")).server("zzz")) {
            Err(ClientError::Route(RouteError::UnknownServer(name))) => assert_eq!(name, "zzz"),
            other => panic!("expected UnknownServer, got {other:?}"),
        }
        let found = aw!(client.find_tool("elicit")).expect("find_tool").expect("elicit exists");
        assert_eq!((found.server.as_str(), found.tool.name.as_str()), ("b", "elicit"));
        assert_eq!(aw!(client.find_tool("no_such_tool")).expect("find_tool"), None);
        let found = aw!(client.find_tool("echo"));
        assert!(matches!(found, Err(ClientError::Route(RouteError::Ambiguous { .. }))), "{found:?}");
        aw!(client.close());
    }

    pub $($kw)? fn close_stops_everything() {
        for proto in PROTOCOLS {
            let marker = support::unique_temp_path("close-record");
            let marker_str = marker.to_str().expect("UTF-8 path").to_owned();
            let client = new_client(&["--protocol", proto, "--record", &marker_str]);
            aw!(assert_echo(&client, "t", "before close"));
            assert_eq!(support::processes_with_marker(&marker_str).len(), 1, "{proto}: the server runs");
            aw!(client.close());
            let left = support::processes_with_marker(&marker_str);
            assert!(left.is_empty(), "{proto}: the server process {left:?} survived close");
            // Every client family reports a closed client as `ClientError::Closed`.
            match aw!(client.list_tools()).into_result() {
                Err(ClientError::Closed) => {}
                other => panic!("{proto}: expected Closed after close, got {other:?}"),
            }
            match aw!(client.call_tool("echo", msg("x"))) {
                Err(ClientError::Closed) => {}
                other => panic!("{proto}: expected Closed after close, got {other:?}"),
            }
            aw!(client.close()); // a second close returns at once
            let _ = std::fs::remove_file(&marker);
        }
    }

    /// A program that does not exist fails with the operating system's error kept:
    /// `io_error()` and the error's `source()` give its kind.
    pub $($kw)? fn os_errors_are_kept() {
        use $crate::mcpwire_core::{ServerSpec, StdioCommand};
        let missing = StdioCommand::new("mcp-test-no-such-program-4c1f");
        let client = rt::build(rt::Client::builder().server(ServerSpec::stdio("gone", missing))).unwrap();
        let e = aw!(client.call_tool("echo", msg("x"))).unwrap_err();
        assert!(matches!(e, ClientError::Request(RequestError::Spawn { .. })), "{e:?}");
        assert_eq!(e.io_error().map(std::io::Error::kind), Some(std::io::ErrorKind::NotFound), "{e:?}");
        // `ClientError::Request` is transparent: its source is the request error's, the OS error.
        let source = std::error::Error::source(&e).expect("a source");
        let io = source.downcast_ref::<$crate::mcpwire_core::IoError>().expect("the OS error is the source");
        assert_eq!(io.kind(), std::io::ErrorKind::NotFound);
        aw!(client.close());
    }

    /// A port nobody listens on fails with the operating system's error kept, as a transport
    /// error without an HTTP status.
    #[cfg(feature = "http")]
    pub $($kw)? fn http_os_errors_are_kept() {
        use $crate::mcpwire_core::{HttpConfig, ServerSpec, TransportKind};
        let url = format!("http://127.0.0.1:{}/mcp", $crate::support::http_peers::free_port());
        let http = HttpConfig::new(&url).unwrap().kinds(vec![TransportKind::StreamableHttp]);
        let client = rt::build(rt::Client::builder().server(ServerSpec::http("nobody", http))).unwrap();
        let e = aw!(client.call_tool("echo", msg("x"))).unwrap_err();
        assert!(e.is_transport(), "{e:?}");
        assert_eq!(e.io_error().map(std::io::Error::kind), Some(std::io::ErrorKind::ConnectionRefused), "{e:?}");
        assert_eq!(e.http_status(), None);
        aw!(client.close());
    }
}
    };
}
