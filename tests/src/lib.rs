//! Test support for the mcp client workspace.
//!
//! The deterministic MCP server the scenarios run against is its own crate, `mcp-test-server`
//! (re-exported as [`test_server`]); [`support::test_server`] locates and builds its binary.
//!
//! The modules by kind: [`scenarios`] (against the bundled test server, every runtime),
//! [`peer_checks`] (against real third-party servers), [`sim`] (the deterministic simulation)
//! and [`support`] (helpers and fixtures: scripted HTTP servers, proxies, real peers over HTTP).
//!
//! The scenarios run unchanged on every runtime: [`define_scenarios!`] expands the same bodies
//! either as `async fn` (each `aw!` becomes `.await`, through [`aw_async!`]) or as plain `fn`
//! ([`aw_sync!`]), against a glue module `rt` that each test file writes for its runtime (see
//! `tests/tests/runtime_tokio.rs`). [`scenario_tests!`] then generates one `#[test]` per
//! scenario. The real-peer checks use the same trick ([`define_peer_checks!`]).
//!
//! Features: `http`, `oauth`, `schema` and `tracing` (all default) turn on the same features of
//! the client crates and the tests that need them: the HTTP fixtures ([`support::scripted_http`],
//! [`support::http_peers`]) and the HTTP, OAuth and validation tests exist only with theirs. With
//! `--no-default-features` everything else builds and runs against a stdio-only client: the
//! stdio scenarios on every runtime (which `scripts/test` runs that way too), the stdio
//! simulation and the stdio peer checks.

pub mod peer_checks;
pub mod scenarios;
pub mod sim;
pub mod support;

pub use futures_lite;
pub use mcpwire_core;
pub use mcpwire_host;
pub use mcpwire_test_server as test_server;
pub use serde;
pub use serde_json;

/// `aw_async!(e)` is `e.await`: the async flavour of the scenario bodies.
#[macro_export]
macro_rules! aw_async {
    ($e:expr) => {
        $e.await
    };
}

/// `aw_sync!(e)` is `e.send()` for a request (or any other value the blocking client waits
/// for with `send`), and `e` for anything else: the blocking flavour of the scenario bodies.
#[macro_export]
macro_rules! aw_sync {
    ($e:expr) => {{
        #[allow(unused_imports)]
        use $crate::sync_wait::{SendIt as _, TakeIt as _};
        let wait = $crate::sync_wait::Wait::new($e);
        (&wait).resolve()
    }};
}

/// What [`aw_sync!`] stands on: a request value of the blocking client is sent, any other
/// value is taken as it is (autoref specialisation: the impls for `&Wait<request>` are found
/// before the one for `&&Wait<T>`).
#[doc(hidden)]
pub mod sync_wait {
    use std::cell::Cell;

    use mcpwire_core::calls::Call;
    use mcpwire_core::ClientError;
    use mcpwire_host::{BatchRequest, Family, ListenRequest, Pending, RequestBuilder, Returning};

    /// A value on its way through [`aw_sync!`].
    pub struct Wait<T>(Cell<Option<T>>);

    impl<T> std::fmt::Debug for Wait<T> {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("Wait")
        }
    }

    impl<T> Wait<T> {
        /// Wraps `value`.
        pub fn new(value: T) -> Self {
            Self(Cell::new(Some(value)))
        }

        fn take(&self) -> T {
            self.0.take().expect("resolved once")
        }
    }

    /// Sends a request value.
    pub trait SendIt {
        /// What sending gives.
        type Output;
        /// Sends it and waits.
        fn resolve(self) -> Self::Output;
    }

    impl<'a, F: Family<Style = Returning>, K: Call + Send + 'a> SendIt for &Wait<RequestBuilder<'a, F, K>> {
        type Output = Result<K::Output, ClientError>;
        fn resolve(self) -> Self::Output {
            self.take().send()
        }
    }

    impl<F: Family<Style = Returning>, T> SendIt for &Wait<Pending<'_, F, T>> {
        type Output = T;
        fn resolve(self) -> T {
            self.take().send()
        }
    }

    impl<F: Family<Style = Returning>> SendIt for &Wait<ListenRequest<'_, F>> {
        type Output = Result<F::Subscription, ClientError>;
        fn resolve(self) -> Self::Output {
            self.take().send()
        }
    }

    impl<F: Family<Style = Returning>> SendIt for &Wait<BatchRequest<'_, F>> {
        type Output = Vec<Result<mcpwire_core::types::CallToolResult, ClientError>>;
        fn resolve(self) -> Self::Output {
            self.take().send()
        }
    }

    /// Takes any other value as it is.
    pub trait TakeIt {
        /// The value.
        type Output;
        /// The value.
        fn resolve(self) -> Self::Output;
    }

    impl<T> TakeIt for &&Wait<T> {
        type Output = T;
        fn resolve(self) -> T {
            self.take()
        }
    }
}

/// Generates one `#[test]` per scenario of [`define_scenarios!`]: `all_scenario_tests!(run)`,
/// where `run(f)` runs `f()` to completion on the runtime.
#[macro_export]
macro_rules! all_scenario_tests {
    ($run:path) => {
        $crate::scenario_tests!(scenarios, $run;
            connect_eras, connect_silent_discover_falls_back, connect_rejects_unknown_answered_version,
            connect_protocol_modes, tools_list_typed, tools_call_and_meta, tools_errors, pagination,
            prompts_and_resources, timeout_then_recovers, stderr_flood_holds_up_nothing, progress, crash_restarts, notifications, notification_while_idle, noise,
            legacy_elicitation, legacy_handler_failure, legacy_roots_and_sampling, legacy_without_handlers,
            multi_server, close_stops_everything, os_errors_are_kept);
        #[cfg(feature = "http")]
        $crate::scenario_tests!(scenarios, $run; http_os_errors_are_kept);
    };
}

/// Generates `#[test] fn name() { run(module::name) }` for each name, each under a
/// [`support::Watchdog`] (a hung test ends the run with its name).
#[macro_export]
macro_rules! scenario_tests {
    ($module:ident, $run:path; $($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                let _watchdog = $crate::support::Watchdog::start(stringify!($name));
                $run($module::$name)
            }
        )*
    };
}

/// The README's examples, compiled as doctests (they are `no_run`: they need real servers).
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeExamples;

/// The guide's examples (`docs/*.md`, one item per page), compiled as doctests like the README's.
/// Every page is included, those without Rust examples too, so an example added later is compiled.
#[cfg(doctest)]
pub mod guide {
    /// `docs/connecting.md`.
    #[doc = include_str!("../../docs/connecting.md")]
    pub struct GuideConnecting;
    /// `docs/servers.md`.
    #[doc = include_str!("../../docs/servers.md")]
    pub struct GuideServers;
    /// `docs/requests.md`.
    #[doc = include_str!("../../docs/requests.md")]
    pub struct GuideRequests;
    /// `docs/handlers.md`.
    #[doc = include_str!("../../docs/handlers.md")]
    pub struct GuideHandlers;
    /// `docs/listen.md`.
    #[doc = include_str!("../../docs/listen.md")]
    pub struct GuideListen;
    /// `docs/tasks.md`.
    #[doc = include_str!("../../docs/tasks.md")]
    pub struct GuideTasks;
    /// `docs/oauth.md`.
    #[doc = include_str!("../../docs/oauth.md")]
    pub struct GuideOauth;
    /// `docs/security.md`.
    #[doc = include_str!("../../docs/security.md")]
    pub struct GuideSecurity;
    /// `docs/errors.md`.
    #[doc = include_str!("../../docs/errors.md")]
    pub struct GuideErrors;
    /// `docs/README.md`.
    #[doc = include_str!("../../docs/README.md")]
    pub struct GuideIndex;
    /// `docs/cli.md`.
    #[doc = include_str!("../../docs/cli.md")]
    pub struct GuideCli;
    /// `docs/benchmarks.md`.
    #[doc = include_str!("../../docs/benchmarks.md")]
    pub struct GuideBenchmarks;
    /// `docs/reliability.md`.
    #[doc = include_str!("../../docs/reliability.md")]
    pub struct GuideReliability;
    /// `docs/development.md`.
    #[doc = include_str!("../../docs/development.md")]
    pub struct GuideDevelopment;
}

/// The examples of the published crates' own READMEs (crates.io shows them), compiled as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../runtime-tokio/README.md")]
#[doc = include_str!("../../runtime-smol/README.md")]
#[doc = include_str!("../../runtime-blocking/README.md")]
pub struct CrateReadmeExamples;
