//! Client-wide requests over several `mcp-test-server`s, written once for every runtime: the
//! servers are asked at once, at most `max_concurrent_servers` at a time (proved without
//! timing: servers that answer `tools/list` only once all of them were asked, through the test
//! server's `--list-barrier`), answers keep configuration order, and one server that cannot
//! start does not blind the client (`connect`, `list_tools`, routing by tool name, `find_tool`
//! and the provider conversions keep the healthy servers' answers and name the failed one). The
//! glue module `rt` is the one described in `scenarios.rs`.

/// Defines `pub mod fan_out_scenarios` for the glue `rt`:
/// `define_fan_out_scenarios!(async, aw_async)` or `define_fan_out_scenarios!(, aw_sync)`.
#[macro_export]
macro_rules! define_fan_out_scenarios {
    ($($kw:ident)? , $aw:ident) => {
/// The fan-out scenarios, instantiated for this runtime.
#[allow(unused_imports)]
pub mod fan_out_scenarios {
    use super::rt;
    use $crate::mcpwire_core::catalog::{ClientList, ServerFailure};
    use $crate::mcpwire_core::routing::RouteError;
    use $crate::mcpwire_core::tool_formats::Provider;
    use $crate::mcpwire_core::types::LoggingLevel;
    use $crate::mcpwire_core::{ClientError, RequestError, ServerSpec, ServerTool};
    use $crate::serde_json::{json, Value};
    use $crate::support;

    macro_rules! aw {
        ($e:expr) => {
            $crate::$aw!($e)
        };
    }

    fn server(name: &str, args: &[&str]) -> ServerSpec {
        support::spec(support::test_server(), name, args)
    }

    /// A server whose process exits as soon as it starts.
    fn dead(name: &str) -> ServerSpec {
        server(name, &["--exit-on-start", "3"])
    }

    fn names(failed: &[ServerFailure]) -> Vec<&str> {
        failed.iter().map(|f| f.server.as_str()).collect()
    }

    fn is_transport(e: &ClientError) -> bool {
        e.request_error().is_some_and(RequestError::is_transport)
    }

    /// The servers of the tools, one entry per run of the same server (in list order).
    fn server_runs(list: &ClientList<ServerTool>) -> Vec<&str> {
        let mut runs: Vec<&str> = Vec::new();
        for tool in &list.items {
            if runs.last() != Some(&tool.server.as_str()) {
                runs.push(&tool.server);
            }
        }
        runs
    }

    /// `a` (with the extra tool `extra_0`), a server that cannot start, and `b`: the client
    /// keeps going with `a` and `b` and names `dead` wherever it could not ask it.
    pub $($kw)? fn fan_out_keeps_healthy_servers_beside_a_dead_one() {
        let builder = rt::Client::builder()
            .server(server("a", &["--extra-tools", "1"]))
            .server(dead("dead"))
            .server(server("b", &[]));
        let client = rt::build(builder).expect("build the client");

        let report = aw!(client.connect());
        let connected: Vec<&str> = report.connected.iter().map(|c| c.server.as_str()).collect();
        assert_eq!(connected, ["a", "b"]);
        assert_eq!(names(&report.failed), ["dead"]);
        assert!(is_transport(&report.failed[0].error), "{report:?}");
        assert!(!report.is_complete());
        assert!(report.clone().into_result().is_err_and(|e| is_transport(&e)));

        let tools = aw!(client.list_tools());
        assert_eq!(server_runs(&tools), ["a", "b"], "the healthy servers' tools, in order");
        assert!(tools.items.iter().any(|t| t.server == "a" && t.tool.name == "extra_0"));
        assert_eq!(names(&tools.failed), ["dead"]);
        assert!(is_transport(&tools.failed[0].error), "{:?}", tools.failed);
        assert!(tools.skipped.is_empty());

        // Routing by name looks only at the servers that answered; ambiguity stays.
        let r = aw!(client.call_tool("extra_0", json!({"message": "routed"}))).expect("extra_0 on a");
        assert_eq!(r.text(), "routed");
        match aw!(client.call_tool("echo", json!({"message": "x"}))) {
            Err(ClientError::Route(RouteError::Ambiguous { servers, .. })) => assert_eq!(servers, ["a", "b"]),
            other => panic!("echo is on a and b: {other:?}"),
        }
        let r = aw!(client.call_tool("echo", json!({"message": "on b"})).server("b")).expect("echo on b");
        assert_eq!(r.text(), "on b");
        let found = aw!(client.find_tool("extra_0")).expect("find extra_0").expect("a offers it");
        assert_eq!((found.server.as_str(), found.tool.name.as_str()), ("a", "extra_0"));
        // What no healthy server offers may be on the dead one: its failure is the answer.
        let missing = aw!(client.find_tool("nope")).expect_err("dead could not be asked");
        assert!(is_transport(&missing), "{missing:?}");
        let missing = aw!(client.call_tool("nope", json!({}))).expect_err("dead could not be asked");
        assert!(is_transport(&missing), "{missing:?}");

        // The provider conversions carry the healthy tools and name the failed server.
        for provider in [Provider::OpenAi, Provider::Anthropic, Provider::Google] {
            let converted = aw!(client.provider_tools(provider));
            assert!(converted.resolve("extra_0").is_some(), "{provider:?}: {:?}", converted.tools);
            assert_eq!(names(&converted.failed), ["dead"], "{provider:?}");
        }
        let openai = aw!(client.provider_tools($crate::mcpwire_core::tool_formats::Provider::OpenAi));
        assert_eq!(names(&openai.failed), ["dead"]);
        let call = json!({"id": "call_1", "type": "function",
            "function": {"name": "extra_0", "arguments": "{\"message\":\"from openai\"}"}});
        let (_, result) = aw!(client.call_provider_tool(&openai, &call)).expect("the provider call");
        assert_eq!(result.text(), "from openai");
        assert_eq!(names(&aw!(client.provider_tools($crate::mcpwire_core::tool_formats::Provider::Anthropic)).failed), ["dead"]);
        assert_eq!(names(&aw!(client.provider_tools($crate::mcpwire_core::tool_formats::Provider::Google)).failed), ["dead"]);
        aw!(client.close());
    }

    /// Two servers that answer `tools/list` only once both were asked: a client asking them
    /// one after the other would get the barrier's error from the first. A slow server first
    /// in the list still comes first in the answer.
    pub $($kw)? fn fan_out_asks_the_servers_at_once() {
        let barrier = support::unique_temp_path("list-barrier");
        let dir = barrier.to_str().expect("a UTF-8 path");
        let builder = rt::Client::builder()
            .server(server("slow", &["--answer-delay-ms", "100"]))
            .server(server("a", &["--list-barrier", dir]))
            .server(server("b", &["--list-barrier", dir]));
        let client = rt::build(builder).expect("build the client");
        let tools = aw!(client.list_tools());
        assert!(tools.failed.is_empty(), "{:?}", tools.failed);
        assert_eq!(server_runs(&tools), ["slow", "a", "b"]);
        aw!(client.close());
        let _ = std::fs::remove_dir_all(&barrier);
    }

    /// `max_concurrent_servers(2)` with three servers whose barrier opens at three arrivals: the
    /// third is not asked until one of the first two gave up waiting, so at least one of them
    /// fails (unbounded, all three would meet), and the third gets through at once. Whether the
    /// other of the first two is still waiting when the third arrives depends on how fast the
    /// processes started, so the test does not say which of them fail. The limit is a limit.
    pub $($kw)? fn fan_out_asks_at_most_the_limit_at_once() {
        let barrier = support::unique_temp_path("list-barrier");
        let dir = barrier.to_str().expect("a UTF-8 path");
        let args = ["--list-barrier", dir, "--list-barrier-count", "3", "--list-barrier-timeout-ms", "300"];
        let builder = rt::Client::builder()
            .max_concurrent_servers(2)
            .server(server("a", &args))
            .server(server("b", &args))
            .server(server("c", &args));
        let client = rt::build(builder).expect("build the client");
        let tools = aw!(client.list_tools());
        let failed = names(&tools.failed);
        assert!(!failed.is_empty(), "one of the first two must have waited in vain: {tools:?}");
        assert!(failed.iter().all(|s| ["a", "b"].contains(s)), "{:?}", tools.failed);
        for failure in &tools.failed {
            assert!(failure.error.to_string().contains("2 of 3"), "{failure:?}");
        }
        let runs = server_runs(&tools);
        assert_eq!(runs.last(), Some(&"c"), "the third server gets through: {runs:?}");
        assert_eq!(failed.len() + runs.len(), 3, "each server answered or failed once: {failed:?} {runs:?}");
        aw!(client.close());
        let _ = std::fs::remove_dir_all(&barrier);
    }

    /// `max_concurrent_servers(1)` asks one server after the other (two barrier servers: the
    /// first is alone at the barrier and fails, the second finds it open) and keeps
    /// configuration order everywhere; 0 is refused by `build`.
    pub $($kw)? fn fan_out_one_at_a_time_keeps_configuration_order() {
        let refused = rt::build(rt::Client::builder().max_concurrent_servers(0).server(server("a", &[])));
        assert!(matches!(refused, Err(ClientError::Config(_))), "{refused:?}");

        let builder = rt::Client::builder()
            .max_concurrent_servers(1)
            .server(server("a", &["--answer-delay-ms", "50", "--extra-tools", "1"]))
            .server(server("b", &[]))
            .server(dead("dead"))
            .server(server("c", &["--extra-tools", "2"]));
        let client = rt::build(builder).expect("build the client");
        let report = aw!(client.connect());
        let connected: Vec<&str> = report.connected.iter().map(|c| c.server.as_str()).collect();
        assert_eq!(connected, ["a", "b", "c"]);
        assert_eq!(names(&report.failed), ["dead"]);
        let tools = aw!(client.list_tools());
        assert_eq!(server_runs(&tools), ["a", "b", "c"]);
        assert_eq!(names(&tools.failed), ["dead"]);
        let levels = aw!(client.set_log_level(LoggingLevel::Info));
        assert_eq!(levels.set, ["a", "b", "c"]);
        assert_eq!(names(&levels.failed), ["dead"]);
        let prompts = aw!(client.list_prompts());
        let servers: Vec<&str> = prompts.items.iter().map(|p| p.server.as_str()).collect();
        assert_eq!(servers, ["a", "a", "b", "b", "c", "c"]);
        aw!(client.close());

        let barrier = support::unique_temp_path("list-barrier");
        let dir = barrier.to_str().expect("a UTF-8 path");
        let args = ["--list-barrier", dir, "--list-barrier-timeout-ms", "300"];
        let builder =
            rt::Client::builder().max_concurrent_servers(1).server(server("a", &args)).server(server("b", &args));
        let client = rt::build(builder).expect("build the client");
        let tools = aw!(client.list_tools());
        assert_eq!(names(&tools.failed), ["a"], "a was asked alone: {:?}", tools.failed);
        assert!(tools.failed[0].error.to_string().contains("1 of 2"), "{:?}", tools.failed);
        assert_eq!(server_runs(&tools), ["b"]);
        aw!(client.close());
        let _ = std::fs::remove_dir_all(&barrier);
    }
}
    };
}

/// Generates the `#[test]`s of [`define_fan_out_scenarios!`]: `all_fan_out_scenario_tests!(run)`.
#[macro_export]
macro_rules! all_fan_out_scenario_tests {
    ($run:path) => {
        $crate::scenario_tests!(fan_out_scenarios, $run;
            fan_out_keeps_healthy_servers_beside_a_dead_one, fan_out_asks_the_servers_at_once,
            fan_out_asks_at_most_the_limit_at_once, fan_out_one_at_a_time_keeps_configuration_order);
    };
}
