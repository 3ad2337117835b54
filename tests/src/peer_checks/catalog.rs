//! Client-wide catalog and capability gating against real servers, written once for every
//! runtime: one client holding server-everything (declares everything), server-filesystem
//! (declares only `tools`) and py-mcp-peer (no `logging`). `set_log_level` sets only
//! server-everything; the prompt and resource lists are gathered from the servers declaring
//! them, each item tagged with its server; prompts, resources (listed or by template) and
//! completions route to their server; and server-filesystem's missing capabilities are typed
//! `CapabilityMissing` errors, not the server's `-32601`. The glue module `rt` needs `Client`
//! and `build`; `tests/tests/real_peers.rs` runs them on every runtime.

/// Defines `pub mod catalog_peer_checks` for the glue `rt`: `define_catalog_peer_checks!(async,
/// aw_async)` or `define_catalog_peer_checks!(, aw_sync)`.
#[macro_export]
macro_rules! define_catalog_peer_checks {
    ($($kw:ident)? , $aw:ident) => {
/// The catalog checks against real peers, instantiated for this runtime.
#[allow(unused_imports)]
pub mod catalog_peer_checks {
    use super::rt;
    use std::time::Duration;
    use $crate::mcpwire_core::routing::{RouteError, RouteKind};
    use $crate::mcpwire_core::types::{CompletionReference, LoggingLevel};
    use $crate::mcpwire_core::{ClientError, RequestError, ServerSpec};
    use $crate::serde_json::{json, Map, Value};
    use $crate::support::{self, TempDir};

    macro_rules! aw {
        ($e:expr) => {
            $crate::$aw!($e)
        };
    }

    fn peer(name: &str, args: &[&str]) -> ServerSpec {
        support::peer_spec(name, args).request_timeout(Duration::from_secs(30))
    }

    fn missing(capability: &'static str, method: &'static str) -> ClientError {
        ClientError::Request(RequestError::CapabilityMissing { capability, method })
    }

    fn args(v: Value) -> Map<String, Value> {
        v.as_object().cloned().expect("a JSON object")
    }

    pub $($kw)? fn catalog_across_real_servers() {
        let dir = TempDir::new("catalog-peer");
        dir.write("note.txt", b"a note\n");
        let root = dir.path_str();
        let (everything, fs, py) = ("server-everything", "server-filesystem", "py-mcp-peer");
        let builder = rt::Client::builder()
            .server(peer(everything, &[]))
            .server(peer(fs, &[&root]))
            .server(peer(py, &[]));
        let client = rt::build(builder).expect("build the client");
        let infos = aw!(client.connect()).into_result().expect("connect all three");
        let logging: Vec<bool> = infos.iter().map(|i| i.capabilities.logging()).collect();
        assert_eq!(logging, [true, false, false], "which peers declare logging");
        assert!(infos[1].capabilities.prompts().is_none() && infos[1].capabilities.resources().is_none());

        // The level goes to the one server declaring logging; the others are skipped unsent.
        let report = aw!(client.set_log_level(LoggingLevel::Info));
        assert_eq!(report.set, [everything]);
        assert_eq!(report.skipped, [fs, py]);
        assert!(report.failed.is_empty(), "{:?}", report.failed);

        let prompts = aw!(client.list_prompts());
        assert!(prompts.is_complete(), "{:?}", prompts.failed);
        assert_eq!(prompts.skipped, [fs]);
        let owner = |name: &str| -> Vec<&str> {
            prompts.items.iter().filter(|p| p.prompt.name == name).map(|p| p.server.as_str()).collect()
        };
        assert_eq!(owner("args-prompt"), [everything]);
        assert_eq!(owner("greet"), [py]);
        assert!(prompts.items.iter().all(|p| p.server != fs));

        let resources = aw!(client.list_resources());
        assert!(resources.is_complete(), "{:?}", resources.failed);
        assert_eq!(resources.skipped, [fs]);
        let hello: Vec<&str> = resources
            .items
            .iter()
            .filter(|r| r.resource.uri == "peer://hello")
            .map(|r| r.server.as_str())
            .collect();
        assert_eq!(hello, [py]);
        let demo = |r: &&$crate::mcpwire_core::catalog::ServerResource| r.resource.uri.starts_with("demo://");
        assert!(resources.items.iter().filter(demo).all(|r| r.server == everything));
        assert!(resources.items.iter().any(|r| demo(&r)), "no demo:// resource");
        let templates = aw!(client.list_resource_templates());
        assert_eq!(templates.skipped, [fs]);
        let tagged = |uri: &str| {
            templates.items.iter().find(|t| t.template.uri_template == uri).map(|t| t.server.clone())
        };
        assert_eq!(tagged("demo://resource/dynamic/text/{resourceId}").as_deref(), Some(everything));
        assert_eq!(tagged("peer://item/{item_id}").as_deref(), Some(py));

        // Routing: by prompt name, by resource URI (listed, then by template), by reference.
        let greet = aw!(client.get_prompt("greet", args(json!({"name": "Ada"})))).expect("greet on py");
        assert!(format!("{:?}", greet.messages).contains("Ada"), "{greet:?}");
        let city =
            aw!(client.get_prompt("args-prompt", args(json!({"city": "Paris"})))).expect("on everything");
        assert!(format!("{:?}", city.messages).contains("Paris"), "{city:?}");
        let hello = aw!(client.read_resource("peer://hello")).expect("peer://hello on py");
        assert_eq!(hello.contents[0].as_text(), Some("hello resource"));
        let item = aw!(client.read_resource("peer://item/7")).expect("py's template");
        assert_eq!(item.contents.len(), 1, "{item:?}");
        let dynamic =
            aw!(client.read_resource("demo://resource/dynamic/text/3")).expect("everything's template");
        assert_eq!(dynamic.contents.len(), 1, "{dynamic:?}");
        match aw!(client.read_resource("nowhere://x")) {
            Err(ClientError::Route(RouteError::NotOffered { kind: RouteKind::Resource, name })) => {
                assert_eq!(name, "nowhere://x")
            }
            other => panic!("expected NotOffered, got {other:?}"),
        }
        let c = aw!(client.complete(CompletionReference::prompt("completable-prompt"), "department", "E"))
            .expect("complete routes to everything");
        assert_eq!(c.values, ["Engineering"]);

        // server-filesystem lacks these: typed refusals, nothing sent.
        let s = client.server(fs).expect("the filesystem server");
        let refused = aw!(s.set_log_level(LoggingLevel::Info)).unwrap_err();
        assert_eq!(refused, missing("logging", "logging/setLevel"));
        assert_eq!(aw!(s.list_prompts()).unwrap_err(), missing("prompts", "prompts/list"));
        assert_eq!(aw!(s.read_resource("file:///x")).unwrap_err(), missing("resources", "resources/read"));
        let reference = CompletionReference::prompt("p");
        let refused = aw!(s.complete(reference, "a", "")).unwrap_err();
        assert_eq!(refused, missing("completions", "completion/complete"));
        // py-mcp-peer lacks logging only.
        let p = client.server(py).expect("py-mcp-peer");
        let refused = aw!(p.set_log_level(LoggingLevel::Debug)).unwrap_err();
        assert_eq!(refused, missing("logging", "logging/setLevel"));
        aw!(client.close());
    }

    /// server-everything beside a server whose command does not exist: the client lists
    /// server-everything's tools and names the dead server, and a call routed by name reaches
    /// server-everything.
    pub $($kw)? fn real_server_beside_a_dead_one() {
        let missing = $crate::mcpwire_core::StdioCommand::new("/nonexistent/mcp-server-that-is-not-there");
        let builder = rt::Client::builder()
            .server(ServerSpec::stdio("dead", missing))
            .server(peer("server-everything", &[]));
        let client = rt::build(builder).expect("build the client");
        let tools = aw!(client.list_tools());
        let failed: Vec<&str> = tools.failed.iter().map(|f| f.server.as_str()).collect();
        assert_eq!(failed, ["dead"], "{:?}", tools.failed);
        assert!(!tools.items.is_empty() && tools.items.iter().all(|t| t.server == "server-everything"));
        assert!(tools.items.iter().any(|t| t.tool.name == "echo"), "{:?}", tools.items);
        let echoed = aw!(client.call_tool("echo", json!({"message": "beside a dead server"})))
            .expect("echo routed to server-everything");
        assert!(echoed.text().contains("beside a dead server"), "{:?}", echoed.raw());
        let report = aw!(client.connect());
        assert_eq!(report.connected.len(), 1);
        assert_eq!(report.failed.len(), 1);
        aw!(client.close());
    }
}
    };
}

/// Generates the `#[test]`s of [`define_catalog_peer_checks!`].
#[macro_export]
macro_rules! all_catalog_peer_checks {
    ($run:path) => {
        $crate::scenario_tests!(catalog_peer_checks, $run;
            catalog_across_real_servers, real_server_beside_a_dead_one);
    };
}
