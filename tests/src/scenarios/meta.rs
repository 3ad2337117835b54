//! Per-request `_meta` from the host's provider and completion with context, against
//! `mcp-test-server`, written once for every runtime. The glue module `rt` is the one described
//! in `scenarios.rs`.

/// Defines `pub mod meta_scenarios` for the glue `rt`: `define_meta_scenarios!(async, aw_async)`
/// or `define_meta_scenarios!(, aw_sync)`.
#[macro_export]
macro_rules! define_meta_scenarios {
    ($($kw:ident)? , $aw:ident) => {
/// The `_meta` provider and completion-context scenarios, instantiated for this runtime.
#[allow(unused_imports)]
pub mod meta_scenarios {
    use super::rt;
    use std::collections::BTreeMap;
    use $crate::mcpwire_core::types::CompletionReference;
    use $crate::mcpwire_core::{RequestMetaContext, RequestOptions};
    use $crate::serde_json::{json, Map, Value};
    use $crate::support;

    macro_rules! aw {
        ($e:expr) => {
            $crate::$aw!($e)
        };
    }

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().cloned().expect("an object")
    }

    /// What the provider adds: who asked what, plus keys it must not be able to set.
    fn provided(ctx: &RequestMetaContext<'_>) -> Map<String, Value> {
        let trace = format!("{}:{}:{}", ctx.server, ctx.method, ctx.name.unwrap_or("-"));
        obj(json!({
            "com.example/trace": trace,
            "origin": "provider",
            "progressToken": "forged",
            "io.modelcontextprotocol/protocolVersion": "1999-01-01",
        }))
    }

    /// The provider's `_meta` reaches each request (over the static map, under the request's
    /// own, never a reserved key); `complete_with` sends the resolved arguments to servers on
    /// 2025-06-18 and later only.
    pub $($kw)? fn meta_provider_and_completion_context() {
        for proto in ["modern", "2025-06-18", "2025-03-26"] {
            let spec = support::spec(support::test_server(), "t", &["--protocol", proto, "--trip-prompt"])
                .request_meta(obj(json!({"origin": "spec", "static": 1})));
            let client = rt::build(rt::Client::builder().server(spec).request_meta_provider(provided))
                .expect("build the client");
            let s = &client.servers()[0];

            let r = aw!(s.call_tool("echo", json!({"message": "hi"}))).expect("echo");
            let sc = r.structured_content.clone().expect("echo has structured content");
            let meta = &sc["receivedMeta"];
            assert_eq!(meta["com.example/trace"], json!("t:tools/call:echo"), "{proto}: {meta}");
            assert_eq!(meta["origin"], json!("provider"), "{proto}: over the static map");
            assert_eq!(meta["static"], json!(1), "{proto}");
            assert!(meta.get("progressToken").is_none(), "{proto}: a reserved key got through: {meta}");

            let opts = RequestOptions::default().meta(obj(json!({"origin": "request"})));
            let r = aw!(s.call_tool("echo", json!({"message": "o"})).options(opts)).expect("echo with opts");
            let sc = r.structured_content.clone().expect("structured content");
            assert_eq!(sc["receivedMeta"]["origin"], json!("request"), "{proto}: the request's own wins");
            assert_eq!(sc["receivedMeta"]["com.example/trace"], json!("t:tools/call:echo"));

            let mut context = BTreeMap::new();
            context.insert("country".to_owned(), "France".to_owned());
            let reference = CompletionReference::prompt("trip");
            let c = aw!(s.complete(reference.clone(), "city", "L").context(context)).expect("complete_with");
            let expected: &[&str] = if proto == "2025-03-26" { &["Lyon", "Lille", "Lima"] } else { &["Lyon", "Lille"] };
            assert_eq!(c.values, expected, "{proto}: context sent only from 2025-06-18");
            let c = aw!(s.complete(reference, "city", "L")).expect("complete without context");
            assert_eq!(c.values, ["Lyon", "Lille", "Lima"], "{proto}");
            aw!(client.close());
        }

        // A provider that panics fails that request with a typed error; the server stays usable.
        let spec = support::spec(support::test_server(), "t", &["--protocol", "modern"]);
        let provider = |ctx: &RequestMetaContext<'_>| {
            assert_ne!(ctx.method, "prompts/list", "the provider refuses prompts/list");
            Map::new()
        };
        let client = rt::build(rt::Client::builder().server(spec).request_meta_provider(provider))
            .expect("build the client");
        let s = &client.servers()[0];
        match aw!(s.list_prompts()) {
            Err(rt::ClientError::Config(detail)) => assert!(detail.contains("provider"), "{detail}"),
            other => panic!("expected a configuration error, got {other:?}"),
        }
        let r = aw!(s.call_tool("echo", json!({"message": "still here"}))).expect("echo after the panic");
        assert_eq!(r.text(), "still here");
        aw!(client.close());
    }
}
    };
}

/// Generates the `#[test]`s of [`define_meta_scenarios!`]: `all_meta_scenario_tests!(run)`.
#[macro_export]
macro_rules! all_meta_scenario_tests {
    ($run:path) => {
        $crate::scenario_tests!(meta_scenarios, $run; meta_provider_and_completion_context);
    };
}
