//! Deprecation notices against real servers, written once for every runtime: server-everything
//! (2025-11-25, stdio) asks a client with roots and sampling handlers for its roots and for
//! samples and logs to it, and the host sets a log level: each deprecated feature is reported
//! once on the connection. Over HTTP+SSE (server-everything's `sse` mode) the transport is
//! reported once, and not at all with notices off. The checks set the mode per connection: the
//! process-wide registry is shared by every check of the test binary. The glue module `rt`
//! needs `Client`, `build`, `sleep` and `sync_handler`; `tests/tests/real_peers.rs` runs them.

/// Defines `pub mod deprecation_peer_checks` for the glue `rt`:
/// `define_deprecation_peer_checks!(async, aw_async)` or `define_deprecation_peer_checks!(,
/// aw_sync)`.
#[macro_export]
macro_rules! define_deprecation_peer_checks {
    ($($kw:ident)? , $aw:ident) => {
/// The deprecation checks against real peers, instantiated for this runtime.
#[allow(unused_imports)]
pub mod deprecation_peer_checks {
    use super::rt;
    use std::time::{Duration, Instant};
    #[cfg(feature = "http")]
    use $crate::support::http_peers::HttpPeer;
    use $crate::mcpwire_core::types::LoggingLevel;
    use $crate::mcpwire_core::{
        Deprecation, DeprecationNotices, Event, Notification, ServerSpec, UsedBy, Warning,
    };
    use $crate::serde_json::json;
    use $crate::support::{self, Events};

    macro_rules! aw {
        ($e:expr) => {
            $crate::$aw!($e)
        };
    }

    /// The deprecation warnings seen so far, in order.
    fn deprecations(events: &Events) -> Vec<(Deprecation, UsedBy)> {
        events
            .snapshot()
            .into_iter()
            .filter_map(|(_, e)| match e {
                Event::Warning(Warning::Deprecated { what, by }) => Some((what, by)),
                _ => None,
            })
            .collect()
    }

    /// Roots asked for (on connect, and by `get-roots-list`), two samples, server logs and
    /// the host's log level: one notice per feature, the server's log before the host's level.
    pub $($kw)? fn everything_roots_sampling_and_logging_once_each() {
        let events = Events::new();
        let roots = rt::sync_handler(|_: $crate::mcpwire_host::RootsListRequest| {
            Ok(vec![$crate::mcpwire_core::Root::named("file:///srv/data", "data")])
        });
        let sample = rt::sync_handler(|_: $crate::mcpwire_host::SamplingRequest| {
            Ok($crate::mcpwire_core::types::CreateMessageResult::text("sampled", "test-model"))
        });
        let spec = support::peer_spec("server-everything", &[])
            .request_timeout(Duration::from_secs(30))
            .deprecation_notices(DeprecationNotices::PerConnection);
        let builder = rt::Client::builder().server(spec).roots_handler(roots).sampling_handler(sample)
            .on_event(events.hook());
        let client = rt::build(builder).expect("build");
        let r = aw!(client.call_tool("get-roots-list", json!({}))).expect("get-roots-list");
        assert!(r.text().contains("file:///srv/data"), "{}", r.text());
        for _ in 0..2 {
            let r = aw!(client.call_tool("trigger-sampling-request", json!({"prompt": "hi", "maxTokens": 5})))
                .expect("trigger-sampling-request");
            assert!(r.text().contains("sampled"), "{}", r.text());
        }
        // After the roots arrive the server logs "Roots updated"; wait for it.
        let deadline = Instant::now() + Duration::from_secs(10);
        while !events.any(|e| matches!(e, Event::Notification(Notification::Log(_)))) {
            assert!(Instant::now() < deadline, "no log message from server-everything");
            aw!(rt::sleep(Duration::from_millis(20)));
        }
        aw!(client.servers()[0].set_log_level(LoggingLevel::Debug)).expect("set_log_level");
        let r = aw!(client.call_tool("trigger-sampling-request", json!({"prompt": "again", "maxTokens": 5})))
            .expect("a third sample");
        assert!(r.text().contains("sampled"), "{}", r.text());
        // Once closed, the event hook has seen everything routed before.
        aw!(client.close());
        let mut seen = deprecations(&events);
        seen.sort_by_key(|(what, _)| *what);
        assert_eq!(
            seen,
            [
                (Deprecation::Roots, UsedBy::Server),
                (Deprecation::Sampling, UsedBy::Server),
                (Deprecation::Logging, UsedBy::Server),
            ],
            "{:?}",
            events.snapshot()
        );
    }

    /// server-everything's HTTP+SSE transport: one notice per connection across calls, none
    /// with notices off; the calls work either way.
    #[cfg(feature = "http")]
    pub $($kw)? fn everything_sse_transport_once() {
        let peer = HttpPeer::start("server-everything", &["sse"], &[("PORT", "{port}")]);
        for (mode, expected) in [
            (DeprecationNotices::PerConnection, vec![(Deprecation::HttpSseTransport, UsedBy::Server)]),
            (DeprecationNotices::Off, vec![]),
        ] {
            let events = Events::new();
            let spec = ServerSpec::from_target("everything-sse", &peer.url("/sse"))
                .expect("a valid URL")
                .request_timeout(Duration::from_secs(30))
                .deprecation_notices(mode);
            let client = rt::build(rt::Client::builder().server(spec).on_event(events.hook())).expect("build");
            for message in ["one", "two"] {
                let r = aw!(client.call_tool("echo", json!({"message": message}))).expect("echo");
                assert_eq!(r.text(), format!("Echo: {message}"));
            }
            aw!(client.close());
            assert_eq!(deprecations(&events), expected, "{mode:?}; peer stderr: {}", peer.stderr());
        }
    }
}
    };
}

/// Generates one `#[test]` per deprecation peer check: `all_deprecation_peer_checks!(run)`.
#[macro_export]
macro_rules! all_deprecation_peer_checks {
    ($run:path) => {
        $crate::scenario_tests!(deprecation_peer_checks, $run; everything_roots_sampling_and_logging_once_each);
        #[cfg(feature = "http")]
        $crate::scenario_tests!(deprecation_peer_checks, $run; everything_sse_transport_once);
    };
}
