//! Roots and typed-handler scenarios against `mcp-test-server --client-roots`, written once for
//! every runtime: roots held by the client and changed while connected (`set_roots`; legacy:
//! `notifications/roots/list_changed`, 2026-07-28: the next input request gets the new list), and
//! a handler error with an explicit code reaching the server. The glue module `rt` is the one
//! described in `scenarios.rs`.

/// Defines `pub mod roots_scenarios` for the glue `rt`: `define_roots_scenarios!(async,
/// aw_async)` or `define_roots_scenarios!(, aw_sync)`.
#[macro_export]
macro_rules! define_roots_scenarios {
    ($($kw:ident)? , $aw:ident) => {
/// The roots and typed-handler scenarios, instantiated for this runtime.
#[allow(unused_imports)]
pub mod roots_scenarios {
    use super::rt;
    use $crate::mcpwire_core::types::ElicitResult;
    use $crate::mcpwire_core::{ClientError, CommandError, HandlerError, Root};
    use $crate::mcpwire_host::{ElicitationRequest, RootsListRequest};
    use $crate::serde_json::{json, Value};
    use $crate::support;

    macro_rules! aw {
        ($e:expr) => {
            $crate::$aw!($e)
        };
    }

    fn roots_json(roots: &[(&str, &str)]) -> Value {
        let list: Vec<Value> = roots.iter().map(|(uri, name)| json!({"uri": uri, "name": name})).collect();
        json!({ "roots": list })
    }

    /// The roots the server was last told, through `list_roots`.
    $($kw)? fn listed(client: &rt::Client) -> Value {
        let r = aw!(client.call_tool("list_roots", json!({}))).expect("list_roots");
        support::json_after(&r.text(), "roots: ")
    }

    /// Both eras: the held roots are served without a handler; `Client::set_roots` changes
    /// them; a legacy server (told `roots.listChanged`) is notified, a 2026-07-28 one is not
    /// and gets the new list when it asks again.
    pub $($kw)? fn held_roots_change_while_connected() {
        for proto in ["2025-11-25", "modern"] {
            let record = support::unique_temp_path("roots-record");
            let record_str = record.to_str().expect("UTF-8 path").to_owned();
            let args = ["--protocol", proto, "--client-roots", "--record", &record_str];
            let builder = rt::Client::builder()
                .server(support::spec(support::test_server(), "t", &args))
                .roots([Root::named("file:///work/a", "a")]);
            let client = rt::build(builder).expect("build");
            assert_eq!(aw!(listed(&client)), roots_json(&[("file:///work/a", "a")]), "{proto}");
            client
                .set_roots([Root::named("file:///work/b", "b"), Root::named("file:///work/c", "c")])
                .expect("held roots change");
            let both = roots_json(&[("file:///work/b", "b"), ("file:///work/c", "c")]);
            assert_eq!(aw!(listed(&client)), both, "{proto}");
            let lines = support::json_lines(&record);
            let notified = lines.iter().filter(|l| l["method"] == "notifications/roots/list_changed").count();
            if proto == "modern" {
                assert_eq!(notified, 0, "no roots notification on 2026-07-28");
            } else {
                assert_eq!(notified, 1, "one list_changed for one change");
                let init = lines.iter().find(|l| l["method"] == "initialize").expect("initialize");
                assert_eq!(init["params"]["capabilities"]["roots"], json!({"listChanged": true}));
            }
            aw!(client.close());
            let _ = std::fs::remove_file(&record);
        }
    }

    /// Roots answered by a handler cannot be set (the client never declared listChanged), and
    /// the handler keeps answering, with the asking server's name.
    pub $($kw)? fn set_roots_needs_held_roots() {
        let handler = rt::sync_handler(|req: RootsListRequest| {
            Ok(vec![Root::named(format!("file:///srv/{}", req.server), "mine")])
        });
        let spec = support::spec(support::test_server(), "t", &["--protocol", "2025-11-25", "--client-roots"]);
        let client = rt::build(rt::Client::builder().server(spec).roots_handler(handler)).expect("build");
        match client.set_roots([Root::new("file:///x")]) {
            Err(ClientError::Command(CommandError::RootsNotManaged)) => {}
            other => panic!("{other:?}"),
        }
        assert_eq!(aw!(listed(&client)), roots_json(&[("file:///srv/t", "mine")]));
        aw!(client.close());
    }

    /// A handler error with a code reaches the server with that code and message; without
    /// one, the server gets the constant error (see `legacy_handler_failure`).
    pub $($kw)? fn handler_error_code_reaches_the_server() {
        let handler = rt::sync_handler(|_: ElicitationRequest| {
            Err::<ElicitResult, _>(HandlerError::with_code(-32001, "denied by policy"))
        });
        let spec = support::spec(support::test_server(), "t", &["--protocol", "2025-11-25"]);
        let client = rt::build(rt::Client::builder().server(spec).elicitation_handler(handler)).expect("build");
        let text = aw!(client.call_tool("elicit", json!({}))).expect("elicit").text();
        assert_eq!(text, "elicitation error: -32001 denied by policy");
        aw!(client.close());
    }
}
    };
}

/// Generates one `#[test]` per roots scenario: `all_roots_scenario_tests!(run)`.
#[macro_export]
macro_rules! all_roots_scenario_tests {
    ($run:path) => {
        $crate::scenario_tests!(roots_scenarios, $run;
            held_roots_change_while_connected, set_roots_needs_held_roots,
            handler_error_code_reaches_the_server);
    };
}
