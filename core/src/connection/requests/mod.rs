//! Requests in flight: one [`Op`] per host request (or internal one) from the moment it is
//! issued until it ends, kept in [`InFlight`] (with the send queue, wire ids, finished ids and
//! progress tokens). What each kind of request is on the wire ([`kinds`]: its method and
//! params, the capability it needs, the input refused up front, how its result decodes);
//! sending them for the server's era (`send.rs`), taking their answers (`answer.rs`) and
//! ending them otherwise: progress, timeout, abandon, failure of their process or session
//! (`end.rs`). Pagination is in [`super::pages`], the cache in [`super::cache`].

mod answer;
mod end;
mod in_flight;
pub(super) mod kinds;
mod recent;
mod send;

pub(super) use in_flight::{Answered, InFlight};
pub(super) use kinds::validate;

use std::time::{Duration, Instant};

use serde_json::Value;

use super::pages::Pages;
use crate::handle::Epoch;
use crate::jsonrpc::WireId;
use crate::request::{Request, RequestOptions};

/// One host request in flight.
#[derive(Debug)]
pub(super) struct Op {
    pub(super) request: Request,
    pub(super) opts: RequestOptions,
    pub(super) timeout: Duration,
    hard_deadline: Option<Instant>,
    /// The process and wire id of the attempt on the wire, if any.
    pub(super) sent: Option<(Epoch, WireId)>,
    pub(super) progress_token: Option<String>,
    pub(super) pages: Pages,
    /// HTTP: transport retries made so far.
    pub(super) retries: u32,
    /// HTTP (modern): the one re-issue after a broken response stream was used.
    #[cfg(feature = "http")]
    pub(super) reissued: bool,
    /// Multi-round-trip input, once the server asked for some.
    pub(super) input: Option<super::input_rounds::InputRound>,
    /// `tools/call`: the tool's schemas when the host issued the call (its result is checked
    /// against them, whatever definition arrives later).
    pub(super) tool: Option<std::sync::Arc<super::validation::ToolSchemas>>,
    /// `subscriptions/listen`: the stream's own state.
    pub(super) listen: Option<super::subscriptions::ListenState>,
    /// Cacheable requests: the credential they went out with, a restarted page sequence.
    pub(super) cache: super::cache::OpCache,
    /// A call the server turned into a task: what polling it needs.
    pub(super) task: Option<super::tasks::TaskState>,
    /// `Mcp-Param-*` upkeep: a call's list-first and header-mismatch retry, or the calls an
    /// internal `tools/list` is for.
    #[cfg(feature = "http")]
    pub(super) headers: super::header_retry::HeaderState,
    /// A request the connection issued on its own (a `server/discover` refresh, a
    /// `resources/subscribe` renewed after a restart): no handle for the host, no
    /// [`crate::Event::Response`].
    pub(super) internal: bool,
    /// It waited for a `server/discover` refresh once already (never twice).
    pub(super) waited_for_discover: bool,
}

impl Op {
    /// A request issued at `now`: its timeout, and the hard bound of a timeout reset on
    /// progress ([`RequestOptions::max_total_timeout`]) running from now.
    pub(super) fn new(request: Request, opts: RequestOptions, now: Instant, timeout: Duration) -> Self {
        let hard_deadline = if opts.reset_timeout_on_progress {
            opts.max_total_timeout.and_then(|d| now.checked_add(d))
        } else {
            None
        };
        Self { hard_deadline, ..Self::unbounded(request, opts, timeout) }
    }

    /// A request with its timeout and no hard bound, nothing sent yet.
    fn unbounded(request: Request, opts: RequestOptions, timeout: Duration) -> Self {
        Self {
            request,
            opts,
            timeout,
            hard_deadline: None,
            sent: None,
            progress_token: None,
            pages: Pages::default(),
            retries: 0,
            #[cfg(feature = "http")]
            reissued: false,
            input: None,
            tool: None,
            listen: None,
            task: None,
            cache: Default::default(),
            #[cfg(feature = "http")]
            headers: Default::default(),
            internal: false,
            waited_for_discover: false,
        }
    }

    /// Whether the host has no handle for it (an internal request or `tools/list`).
    pub(super) fn is_internal(&self) -> bool {
        // An internal `tools/list` for `Mcp-Param-*` headers (HTTP).
        #[cfg(feature = "http")]
        if self.headers.is_internal() {
            return true;
        }
        self.internal
    }

    /// The deadline of a timeout starting at `now`, within the hard bound; `None` when the
    /// timeout is too long to be represented (no deadline).
    pub(super) fn deadline(&self, now: Instant) -> Option<Instant> {
        match (now.checked_add(self.timeout), self.hard_deadline) {
            (Some(at), Some(hard)) => Some(at.min(hard)),
            (at, hard) => at.or(hard),
        }
    }
}

/// Progress tokens are matched by their JSON text, so a number never matches a string.
pub(super) fn progress_key(token: &str) -> String {
    Value::String(token.to_owned()).to_string()
}
