//! Test support for the mcp client workspace.
//!
//! The deterministic MCP server the scenarios run against is its own crate, `mcp-test-server`
//! (re-exported as [`test_server`]); [`support::test_server`] locates and builds its binary.
//!
//! The scenarios run unchanged on every runtime: [`define_scenarios!`] expands the same bodies
//! either as `async fn` (each `aw!` becomes `.await`, through [`aw_async!`]) or as plain `fn`
//! ([`aw_sync!`]), against a glue module `rt` that each test file writes for its runtime (see
//! `tests/tests/runtime_tokio.rs`). [`scenario_tests!`] then generates one `#[test]` per
//! scenario. The real-peer checks use the same trick ([`define_peer_checks!`]).
//!
//! Features: `http`, `oauth`, `schema` and `tracing` (all default) turn on the same features of
//! the client crates and the tests that need them: the HTTP fixtures ([`scripted_http`],
//! [`http_peers`]) and the HTTP, OAuth and validation tests exist only with theirs. With
//! `--no-default-features` everything else builds and runs against a stdio-only client: the
//! stdio scenarios on every runtime (which `scripts/test` runs that way too), the stdio
//! simulation and the stdio peer checks.

#[cfg(feature = "oauth")]
pub mod address_check_scenarios;
mod async_scenarios;
mod batch_peer_checks;
mod cache_scenarios;
pub mod callback_scenarios;
mod catalog_peer_checks;
mod catalog_scenarios;
mod deprecation_peer_checks;
mod fan_out_scenarios;
pub mod faults;
mod handler_peer_checks;
mod header_peer_checks;
mod host_request_peer_checks;
mod host_request_scenarios;
#[cfg(feature = "http")]
mod http_peer_checks;
#[cfg(feature = "http")]
pub mod http_peers;
mod input_wait_peer_checks;
mod input_wait_scenarios;
#[cfg(feature = "oauth")]
mod issuer_switch_scenarios;
mod meta_scenarios;
#[cfg(feature = "oauth")]
pub mod oauth_peer_checks;
mod oversize_peer_checks;
mod oversize_scenarios;
mod peer_checks;
mod process_group_scenarios;
mod push_peer_checks;
mod push_scenarios;
mod roots_scenarios;
mod scenarios;
#[cfg(feature = "http")]
pub mod scripted_http;
pub mod sim;
pub mod support;
mod task_peer_checks;
mod task_scenarios;
mod tool_format_peer_checks;
#[cfg(feature = "http")]
pub mod tunnel_proxy;
#[cfg(feature = "oauth")]
pub mod two_issuer_server;

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

/// The examples of the published crates' own READMEs (crates.io shows them), compiled as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../runtime-tokio/README.md")]
#[doc = include_str!("../../runtime-smol/README.md")]
#[doc = include_str!("../../runtime-blocking/README.md")]
pub struct CrateReadmeExamples;
