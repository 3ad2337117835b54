//! Cache scenarios against `mcp-test-server`, written once for every runtime: `Server::discover`,
//! `Server::cache_info` and `Server::clear_cache` through the public API. The glue module `rt` is
//! the one described in `scenarios.rs`.
//!
//! The test server marks every cacheable 2026-07-28 result `ttlMs: 0`, `cacheScope: "private"`
//! (stale at once), so a modern server's lists and reads are never kept and each `discover()`
//! asks again; its legacy revisions promise `listChanged`, so their lists are kept until a
//! notification.

/// Defines `pub mod cache_scenarios` for the glue `rt`: `define_cache_scenarios!(async, aw_async)`
/// or `define_cache_scenarios!(, aw_sync)`.
#[macro_export]
macro_rules! define_cache_scenarios {
    ($($kw:ident)? , $aw:ident) => {
/// The cache scenarios, instantiated for this runtime.
#[allow(unused_imports)]
pub mod cache_scenarios {
    use super::rt;
    use $crate::mcpwire_core::{CacheKey, CacheScope, Era};
    use $crate::support;

    macro_rules! aw {
        ($e:expr) => {
            $crate::$aw!($e)
        };
    }

    /// The `server/discover` requests the server received so far.
    fn discovers(record: &std::path::Path) -> usize {
        support::json_lines(record).iter().filter(|l| l["method"] == "server/discover").count()
    }

    /// Modern: the probe's hints are recorded; a stale `discover()` asks the server again and
    /// keeps `info()` current; `ttlMs: 0` lists are not kept; `clear_cache()` forgets the record.
    pub $($kw)? fn modern_discover_and_cache_info() {
        let record = support::unique_temp_path("cache-discover");
        let record_str = record.to_str().expect("UTF-8 path").to_owned();
        let spec =
            support::spec(support::test_server(), "t", &["--protocol", "modern", "--record", &record_str]);
        let client = rt::build(rt::Client::builder().server(spec)).expect("build the client");
        let server = client.server("t").expect("server t");
        let info = aw!(server.connect()).expect("connect");
        assert_eq!(info.era, Era::Modern);
        assert_eq!(discovers(&record), 1, "the probe");
        let hints = server.cache_info(CacheKey::Discover).expect("the probe's hints are recorded");
        assert_eq!((hints.ttl_ms, hints.scope, hints.fresh), (Some(0), CacheScope::Private, false));

        let again = aw!(server.discover()).expect("discover");
        assert_eq!(discovers(&record), 2, "stale at once: asked again");
        assert_eq!(again, info);
        assert_eq!(server.info(), Some(again));

        aw!(server.list_tools()).expect("tools/list");
        assert_eq!(server.cache_info(CacheKey::Tools), None, "ttlMs 0: not kept");
        aw!(server.read_resource("test://text")).expect("resources/read");
        assert_eq!(server.cache_info(CacheKey::Read("test://text".into())), None, "ttlMs 0: not kept");

        server.clear_cache();
        assert_eq!(server.cache_info(CacheKey::Discover), None);
        aw!(server.discover()).expect("discover after clear_cache");
        assert_eq!(discovers(&record), 3);
        assert!(server.cache_info(CacheKey::Discover).is_some());
        aw!(client.close());
        let _ = std::fs::remove_file(&record);
    }

    /// Modern, `server/discover` answered with `ttlMs: 50`: once that passed, the next tool
    /// call is preceded by exactly one `server/discover` on the wire (the refresh).
    pub $($kw)? fn an_expired_discover_is_refreshed_before_the_next_call() {
        let record = support::unique_temp_path("cache-refresh");
        let record_str = record.to_str().expect("UTF-8 path").to_owned();
        let args = ["--protocol", "modern", "--discover-ttl-ms", "50", "--record", &record_str];
        let client = rt::build(rt::Client::builder().server(support::spec(support::test_server(), "t", &args)))
            .expect("build the client");
        let server = client.server("t").expect("server t");
        aw!(server.connect()).expect("connect");
        let hints = server.cache_info(CacheKey::Discover).expect("the probe's hints are recorded");
        assert_eq!(hints.ttl_ms, Some(50));
        // Let the answer expire (a wait, not a measurement: 50 ms have passed after it).
        aw!(rt::sleep(std::time::Duration::from_millis(100)));
        let r = aw!(client.call_tool("echo", $crate::serde_json::json!({"message": "after"}))).expect("echo");
        assert_eq!(r.text(), "after");
        let methods: Vec<String> = support::json_lines(&record)
            .iter()
            .filter_map(|l| l["method"].as_str().map(str::to_owned))
            .collect();
        assert_eq!(methods, ["server/discover", "server/discover", "tools/call"]);
        aw!(client.close());
        let _ = std::fs::remove_file(&record);
    }

    /// Legacy: a list kept on the `listChanged` promise shows in `cache_info` until
    /// `clear_cache()`; `discover()` is the `initialize` answer.
    pub $($kw)? fn legacy_cache_info_and_clear_cache() {
        let spec = support::spec(support::test_server(), "t", &["--protocol", "2025-11-25"]);
        let client = rt::build(rt::Client::builder().server(spec)).expect("build the client");
        let server = client.server("t").expect("server t");
        let info = aw!(server.connect()).expect("connect");
        assert_eq!(aw!(server.discover()).expect("discover"), info);
        assert_eq!(server.cache_info(CacheKey::Discover), None);

        assert_eq!(server.cache_info(CacheKey::Tools), None);
        let tools = aw!(server.list_tools()).expect("tools/list");
        let kept = server.cache_info(CacheKey::Tools).expect("kept on the listChanged promise");
        assert_eq!((kept.ttl_ms, kept.scope, kept.fresh), (None, CacheScope::Private, true));
        assert_eq!(aw!(server.list_tools()).expect("from the cache"), tools);

        server.clear_cache();
        assert_eq!(server.cache_info(CacheKey::Tools), None);
        assert_eq!(aw!(server.list_tools()).expect("fetched again"), tools);
        assert!(server.cache_info(CacheKey::Tools).is_some());
        aw!(client.close());
    }
}
    };
}

/// Generates one `#[test]` per cache scenario: `all_cache_scenario_tests!(run)`.
#[macro_export]
macro_rules! all_cache_scenario_tests {
    ($run:path) => {
        $crate::scenario_tests!(cache_scenarios, $run;
            modern_discover_and_cache_info, legacy_cache_info_and_clear_cache,
            an_expired_discover_is_refreshed_before_the_next_call);
    };
}
