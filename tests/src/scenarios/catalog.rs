//! Client-wide catalog and capability gating against two or three `mcp-test-server`s, written
//! once for every runtime: `set_log_level` skipping a server without `logging`, prompts and
//! resources gathered across servers (each tagged with its server, a failing server reported on
//! its own), prompts, resources and completions routed to their server (ambiguity named), and
//! `CapabilityMissing` from a server lacking a capability. The glue module `rt` is the one
//! described in `scenarios.rs`.

/// Defines `pub mod catalog_scenarios` for the glue `rt`:
/// `define_catalog_scenarios!(async, aw_async)` or `define_catalog_scenarios!(, aw_sync)`.
#[macro_export]
macro_rules! define_catalog_scenarios {
    ($($kw:ident)? , $aw:ident) => {
/// The client-wide catalog scenarios, instantiated for this runtime.
#[allow(unused_imports)]
pub mod catalog_scenarios {
    use super::rt;
    use $crate::mcpwire_core::routing::{RouteError, RouteKind};
    use $crate::mcpwire_core::types::{CompletionReference, LoggingLevel};
    use $crate::mcpwire_core::{ClientError, RequestError};
    use $crate::serde_json::{json, Map, Value};
    use $crate::support;

    macro_rules! aw {
        ($e:expr) => {
            $crate::$aw!($e)
        };
    }

    fn missing(capability: &'static str, method: &'static str) -> ClientError {
        ClientError::Request(RequestError::CapabilityMissing { capability, method })
    }

    fn args(v: Value) -> Map<String, Value> {
        v.as_object().cloned().expect("an object")
    }

    /// Server `a` (2025-11-25) declares everything; `b` (2026-07-28) declares neither
    /// `logging`, `prompts` nor `completions`.
    fn two_servers() -> rt::Client {
        let a = support::spec(support::test_server(), "a", &["--protocol", "2025-11-25"]);
        let b_args = ["--protocol", "modern", "--no-logging", "--no-prompts", "--no-completions"];
        let b = support::spec(support::test_server(), "b", &b_args);
        rt::build(rt::Client::builder().server(a).server(b)).expect("build the client")
    }

    /// `set_log_level` sets `a` and skips `b`; the lists gather both servers' items tagged by
    /// server and skip `b` for prompts; the per-server requests `b` lacks a capability for fail
    /// with `CapabilityMissing` (nothing sent: `b` would answer -32601).
    pub $($kw)? fn catalog_lists_and_log_level_across_servers() {
        let client = two_servers();
        let report = aw!(client.set_log_level(LoggingLevel::Debug));
        assert_eq!((report.set, report.skipped), (vec!["a".to_owned()], vec!["b".to_owned()]));
        assert!(report.failed.is_empty(), "{:?}", report.failed);

        let prompts = aw!(client.list_prompts());
        let tagged: Vec<(&str, &str)> =
            prompts.items.iter().map(|p| (p.server.as_str(), p.prompt.name.as_str())).collect();
        assert_eq!(tagged, [("a", "greet"), ("a", "plain")]);
        assert_eq!(prompts.skipped, ["b"]);
        assert!(prompts.is_complete());

        let resources = aw!(client.list_resources());
        let tagged: Vec<(&str, &str)> =
            resources.items.iter().map(|r| (r.server.as_str(), r.resource.uri.as_str())).collect();
        let expected =
            [("a", "test://text"), ("a", "test://blob"), ("b", "test://text"), ("b", "test://blob")];
        assert_eq!(tagged, expected);
        assert!(resources.skipped.is_empty() && resources.failed.is_empty());
        let templates = aw!(client.list_resource_templates());
        let servers: Vec<&str> = templates.items.iter().map(|t| t.server.as_str()).collect();
        assert_eq!(servers, ["a", "b"]);

        let b = client.server("b").expect("server b");
        let refused = aw!(b.set_log_level(LoggingLevel::Info)).unwrap_err();
        assert_eq!(refused, missing("logging", "logging/setLevel"));
        assert_eq!(aw!(b.list_prompts()).unwrap_err(), missing("prompts", "prompts/list"));
        let reference = CompletionReference::prompt("greet");
        assert_eq!(
            aw!(b.complete(reference, "name", "A")).unwrap_err(),
            missing("completions", "completion/complete")
        );
        aw!(client.close());
    }

    /// Prompts route to the only server offering them, resources by URI (listed, then by
    /// template) with ambiguity named, completions by their reference; `*_on` names the server.
    pub $($kw)? fn catalog_routing_and_ambiguity() {
        let client = two_servers();
        let prompt =
            aw!(client.get_prompt("greet", args(json!({"name": "Ada"})))).expect("greet routes to a");
        assert_eq!(prompt.messages.len(), 1, "{prompt:?}");
        assert!(format!("{:?}", prompt.messages[0]).contains("Hello, Ada!"), "{prompt:?}");
        match aw!(client.get_prompt("nope", Map::new())) {
            Err(ClientError::Route(RouteError::NotOffered { kind: RouteKind::Prompt, name })) => {
                assert_eq!(name, "nope")
            }
            other => panic!("expected NotOffered, got {other:?}"),
        }

        let both = vec!["a".to_owned(), "b".to_owned()];
        match aw!(client.read_resource("test://text")) {
            Err(ClientError::Route(RouteError::AmbiguousOwner { kind, name, servers })) => {
                assert_eq!((kind, name.as_str(), &servers), (RouteKind::Resource, "test://text", &both))
            }
            other => panic!("expected an ambiguous resource, got {other:?}"),
        }
        let read = aw!(client.read_resource("test://text").server("b")).expect("read on b");
        assert_eq!(read.contents.len(), 1);
        match aw!(client.read_resource("test://item/9")) {
            Err(ClientError::Route(RouteError::AmbiguousOwner { servers, .. })) => assert_eq!(servers, both),
            other => panic!("both templates match: {other:?}"),
        }

        let greet = CompletionReference::prompt("greet");
        let done = aw!(client.complete(greet, "name", "A")).expect("complete on a");
        assert_eq!(done.values, ["Ada", "Alan"]);
        let item = CompletionReference::resource("test://item/{id}");
        match aw!(client.complete(item.clone(), "id", "4")) {
            Err(ClientError::Route(RouteError::AmbiguousOwner { servers, .. })) => assert_eq!(servers, both),
            other => panic!("both servers have the template: {other:?}"),
        }
        let done = aw!(client.complete(item, "id", "4").server("a")).expect("complete on a");
        assert_eq!(done.values, ["42"]);
        aw!(client.close());
    }

    /// A server that cannot start is one failure among the per-server outcomes: the lists and
    /// the log level still cover the others, and routing still finds what they offer.
    pub $($kw)? fn catalog_survives_a_failing_server() {
        let a = support::spec(support::test_server(), "a", &["--protocol", "2025-11-25"]);
        let dead = support::spec(support::test_server(), "dead", &["--exit-on-start", "3"]);
        let client = rt::build(rt::Client::builder().server(a).server(dead)).expect("build the client");

        let report = aw!(client.set_log_level(LoggingLevel::Error));
        assert_eq!(report.set, ["a"]);
        assert_eq!(report.failed.iter().map(|f| f.server.as_str()).collect::<Vec<_>>(), ["dead"]);
        assert!(report.failed[0].error.request_error().is_some_and(RequestError::is_transport), "{report:?}");

        let prompts = aw!(client.list_prompts());
        assert_eq!(prompts.items.len(), 2);
        assert!(prompts.items.iter().all(|p| p.server == "a"));
        assert_eq!(prompts.failed.len(), 1);
        assert!(!prompts.is_complete());

        // What `a` offers still routes (a template match here); what nobody answered for is
        // the failing server's error, not a routing verdict.
        let read = aw!(client.read_resource("test://item/5")).expect("the template of a");
        assert_eq!(read.contents.len(), 1);
        let greet = aw!(client.get_prompt("greet", args(json!({"name": "Bo"}))));
        assert!(greet.is_ok(), "{greet:?}");
        match aw!(client.get_prompt("nope", Map::new())) {
            Err(e) => assert!(e.request_error().is_some_and(RequestError::is_transport), "{e:?}"),
            Ok(p) => panic!("no server offers it: {p:?}"),
        }
        aw!(client.close());
    }
}
    };
}

/// Generates the `#[test]`s of [`define_catalog_scenarios!`]: `all_catalog_scenario_tests!(run)`.
#[macro_export]
macro_rules! all_catalog_scenario_tests {
    ($run:path) => {
        $crate::scenario_tests!(catalog_scenarios, $run;
            catalog_lists_and_log_level_across_servers, catalog_routing_and_ambiguity,
            catalog_survives_a_failing_server);
    };
}
