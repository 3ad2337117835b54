//! The registry of deprecated MCP features a client can observe, and how often their notices
//! are given.
//!
//! [`Deprecation`] is one table: per feature, the revision that deprecated it, the change
//! that did, when it may be removed, what replaces it and a short notice. A
//! [`crate::Connection`] reports a feature the first time it sees it in use as
//! [`crate::Warning::Deprecated`] — never blocking anything:
//!
//! | feature | observed when |
//! | --- | --- |
//! | [`Deprecation::Roots`] | the server asks for `roots/list` (a legacy request or a 2026-07-28 input request), handled or refused for lack of a handler |
//! | [`Deprecation::Sampling`] | the server asks for `sampling/createMessage`, handled or refused for lack of a handler |
//! | [`Deprecation::SamplingIncludeContext`] | such a request carries `includeContext` `"thisServer"` or `"allServers"` |
//! | [`Deprecation::Logging`] | the server sends `notifications/message`, or the host sets a log level |
//! | [`Deprecation::HttpSseTransport`] | the server serves the HTTP+SSE transport (its `endpoint` event arrived; trying the transport during detection is not using it) |
//! | [`Deprecation::DynamicClientRegistration`] | an OAuth flow registers dynamically ([`crate::oauth::AuthNotice::deprecation`]) |
//!
//! How often ([`DeprecationNotices`]): once per process by default — a process-wide registry
//! of atomics, so a host with many clients hears of each feature once —, once per connection,
//! or never. [`set_deprecation_notices`] sets the process-wide mode;
//! [`crate::ConnectionConfig::deprecation_notices`] overrides it for one connection.

use std::fmt;
use std::sync::atomic::{AtomicU32, AtomicU8, Ordering};

/// A deprecated protocol feature a client can observe (the specification's registry of
/// deprecated features, 2026-07-28).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Deprecation {
    /// Roots: the server asks the client for its filesystem roots (`roots/list`).
    Roots,
    /// Sampling: the server asks the client for an LLM completion (`sampling/createMessage`).
    Sampling,
    /// Logging: server log messages (`notifications/message`) and the log level the client
    /// sets (`logging/setLevel`, or the per-request `logLevel` `_meta` of 2026-07-28).
    Logging,
    /// OAuth 2.0 Dynamic Client Registration (RFC 7591) as a way to obtain a client id.
    DynamicClientRegistration,
    /// The sampling `includeContext` values `"thisServer"` and `"allServers"`.
    SamplingIncludeContext,
    /// The HTTP+SSE transport of 2024-11-05 (a GET event stream announcing a POST endpoint).
    HttpSseTransport,
}

/// When a deprecated feature may be removed from the specification, as the registry says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Removal {
    /// In the first revision released on or after this date (`YYYY-MM-DD`).
    OnOrAfter(&'static str),
    /// Together with another deprecated feature (at the latest when it goes).
    WithFeature(Deprecation),
    /// A number of months after a specification change reaches Final status (no date yet).
    MonthsAfterFinal {
        /// The change (`SEP-…`).
        change: &'static str,
        /// The months.
        months: u8,
    },
}

impl fmt::Display for Removal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Removal::OnOrAfter(date) => write!(f, "the first revision released on or after {date}"),
            Removal::WithFeature(other) => write!(f, "no later than {}", other.feature()),
            Removal::MonthsAfterFinal { change, months } => {
                write!(f, "{months} months after {change} reaches Final")
            }
        }
    }
}

/// Who relies on a deprecated feature.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum UsedBy {
    /// The server (it asked for it, sent it, or only serves it).
    Server,
    /// The host's own calls or configuration (e.g. setting a log level).
    Host,
}

impl fmt::Display for UsedBy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            UsedBy::Server => "the server",
            UsedBy::Host => "this client",
        })
    }
}

/// The date of the SEP-2577 and PR #2858 removals: twelve months after 2026-07-28.
const A_YEAR_AFTER_2026_07_28: &str = "2027-07-28";

impl Deprecation {
    /// Every entry of the table, in the registry's order.
    pub const ALL: [Deprecation; 6] = [
        Deprecation::Roots,
        Deprecation::Sampling,
        Deprecation::Logging,
        Deprecation::DynamicClientRegistration,
        Deprecation::SamplingIncludeContext,
        Deprecation::HttpSseTransport,
    ];

    /// The feature's name, as the registry lists it.
    pub fn feature(self) -> &'static str {
        match self {
            Deprecation::Roots => "Roots",
            Deprecation::Sampling => "Sampling",
            Deprecation::Logging => "Logging",
            Deprecation::DynamicClientRegistration => "Dynamic Client Registration",
            Deprecation::SamplingIncludeContext => "includeContext \"thisServer\" / \"allServers\"",
            Deprecation::HttpSseTransport => "HTTP+SSE transport",
        }
    }

    /// What a client sees on the wire when the feature is used.
    pub fn surface(self) -> &'static str {
        match self {
            Deprecation::Roots => "roots/list",
            Deprecation::Sampling => "sampling/createMessage",
            Deprecation::Logging => "notifications/message, logging/setLevel, the logLevel _meta",
            Deprecation::DynamicClientRegistration => "the authorization server's registration_endpoint",
            Deprecation::SamplingIncludeContext => "sampling/createMessage with includeContext",
            Deprecation::HttpSseTransport => "GET event stream with an endpoint event",
        }
    }

    /// The protocol revision that deprecated it.
    pub fn deprecated_in(self) -> &'static str {
        match self {
            Deprecation::Roots
            | Deprecation::Sampling
            | Deprecation::Logging
            | Deprecation::DynamicClientRegistration => "2026-07-28",
            Deprecation::SamplingIncludeContext => "2025-11-25",
            Deprecation::HttpSseTransport => "2025-03-26",
        }
    }

    /// The specification change that put it in the Deprecated state.
    pub fn change(self) -> &'static str {
        match self {
            Deprecation::Roots | Deprecation::Sampling | Deprecation::Logging => "SEP-2577",
            Deprecation::DynamicClientRegistration => "PR #2858",
            Deprecation::SamplingIncludeContext | Deprecation::HttpSseTransport => "SEP-2596",
        }
    }

    /// When it may be removed.
    pub fn removal(self) -> Removal {
        match self {
            Deprecation::Roots
            | Deprecation::Sampling
            | Deprecation::Logging
            | Deprecation::DynamicClientRegistration => Removal::OnOrAfter(A_YEAR_AFTER_2026_07_28),
            Deprecation::SamplingIncludeContext => Removal::WithFeature(Deprecation::Sampling),
            Deprecation::HttpSseTransport => Removal::MonthsAfterFinal { change: "SEP-2596", months: 3 },
        }
    }

    /// The earliest removal date where the specification gives one (`YYYY-MM-DD`: removal
    /// in the first revision released on or after it); a feature that follows another has
    /// that feature's date; `None` when removal waits on an event without a date.
    pub fn earliest_removal(self) -> Option<&'static str> {
        match self.removal() {
            Removal::OnOrAfter(date) => Some(date),
            Removal::WithFeature(other) => other.earliest_removal(),
            Removal::MonthsAfterFinal { .. } => None,
        }
    }

    /// What to use instead.
    pub fn replacement(self) -> &'static str {
        match self {
            Deprecation::Roots => {
                "pass directories or files as tool arguments, resource URIs or server configuration"
            }
            Deprecation::Sampling => "call the LLM provider's API directly",
            Deprecation::Logging => "log to stderr (stdio servers) or use OpenTelemetry",
            Deprecation::DynamicClientRegistration => "Client ID Metadata Documents",
            Deprecation::SamplingIncludeContext => "omit includeContext or send \"none\"",
            Deprecation::HttpSseTransport => "Streamable HTTP",
        }
    }

    /// A one-line notice for people: the feature, since when, and what replaces it.
    pub fn notice(self) -> &'static str {
        match self {
            Deprecation::Roots => {
                "Roots (roots/list) is deprecated since MCP 2026-07-28: pass directories or files \
                 as tool arguments, resource URIs or server configuration instead"
            }
            Deprecation::Sampling => {
                "Sampling (sampling/createMessage) is deprecated since MCP 2026-07-28: call the \
                 LLM provider's API directly instead"
            }
            Deprecation::Logging => {
                "Logging (notifications/message, logging/setLevel) is deprecated since MCP \
                 2026-07-28: log to stderr (stdio) or use OpenTelemetry instead"
            }
            Deprecation::DynamicClientRegistration => {
                "Dynamic Client Registration is deprecated since MCP 2026-07-28: use Client ID \
                 Metadata Documents instead"
            }
            Deprecation::SamplingIncludeContext => {
                "sampling includeContext \"thisServer\"/\"allServers\" is deprecated since MCP \
                 2025-11-25: omit it or send \"none\" instead"
            }
            Deprecation::HttpSseTransport => {
                "the HTTP+SSE transport is deprecated since MCP 2025-03-26: the server should \
                 move to Streamable HTTP"
            }
        }
    }

    /// Its bit in the registries (one per entry).
    fn bit(self) -> u32 {
        let index = Deprecation::ALL.iter().position(|d| *d == self).unwrap_or(0);
        1 << index
    }
}

impl fmt::Display for Deprecation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.feature())
    }
}

/// How often a deprecated feature in use is reported.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DeprecationNotices {
    /// Each feature once per process, across every connection and client (default).
    #[default]
    PerProcess,
    /// Each feature once per connection.
    PerConnection,
    /// Never.
    Off,
}

impl DeprecationNotices {
    fn to_u8(self) -> u8 {
        match self {
            DeprecationNotices::PerProcess => 0,
            DeprecationNotices::PerConnection => 1,
            DeprecationNotices::Off => 2,
        }
    }

    fn from_u8(v: u8) -> Self {
        match v {
            1 => DeprecationNotices::PerConnection,
            2 => DeprecationNotices::Off,
            _ => DeprecationNotices::PerProcess,
        }
    }
}

/// The process-wide mode ([`DeprecationNotices::PerProcess`] until set).
static MODE: AtomicU8 = AtomicU8::new(0);
/// The features already reported in this process (one bit each).
static REPORTED: AtomicU32 = AtomicU32::new(0);

/// Sets how often deprecation notices are given, for every connection of this process that
/// does not override it ([`crate::ConnectionConfig::deprecation_notices`]). Takes effect for
/// the next notice due; features already reported stay reported.
pub fn set_deprecation_notices(mode: DeprecationNotices) {
    MODE.store(mode.to_u8(), Ordering::Relaxed);
}

/// The process-wide mode set by [`set_deprecation_notices`].
pub fn deprecation_notices() -> DeprecationNotices {
    DeprecationNotices::from_u8(MODE.load(Ordering::Relaxed))
}

/// For hosts that observe a deprecated feature outside a connection (an OAuth flow's
/// [`crate::oauth::AuthNotice`]): true when a notice for `what` is due under the process-wide
/// mode. Once per process, the first caller gets `true` and every later one `false`; with
/// [`DeprecationNotices::PerConnection`] the caller keeps its own count, so it is always true;
/// with [`DeprecationNotices::Off`] never.
pub fn notice_due(what: Deprecation) -> bool {
    match deprecation_notices() {
        DeprecationNotices::Off => false,
        DeprecationNotices::PerConnection => true,
        DeprecationNotices::PerProcess => claim_process(what),
    }
}

/// Marks `what` reported in this process; true the first time.
fn claim_process(what: Deprecation) -> bool {
    let bit = what.bit();
    REPORTED.fetch_or(bit, Ordering::Relaxed) & bit == 0
}

/// The features one connection has reported.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Reported(u32);

impl Reported {
    /// Whether a notice for `what` is due under `mode`, marking it reported if so.
    pub(crate) fn due(&mut self, mode: DeprecationNotices, what: Deprecation) -> bool {
        if mode == DeprecationNotices::Off {
            return false;
        }
        let bit = what.bit();
        if self.0 & bit != 0 {
            return false;
        }
        self.0 |= bit;
        mode == DeprecationNotices::PerConnection || claim_process(what)
    }
}

#[cfg(feature = "oauth")]
impl crate::oauth::AuthNotice {
    /// The deprecated feature this notice reports, if any (dynamic client registration).
    pub fn deprecation(&self) -> Option<Deprecation> {
        match self {
            crate::oauth::AuthNotice::DynamicClientRegistration { .. } => {
                Some(Deprecation::DynamicClientRegistration)
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests;
