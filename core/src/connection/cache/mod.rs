//! Cached results: lists, `resources/read` and `server/discover` under the 2026-07-28 caching
//! hints (`ttlMs`, `cacheScope`), and legacy lists kept on a `listChanged` promise.
//!
//! An entry is keyed by what it answers (a list's method, a read's URI), by the effective
//! `_meta` of the request that produced it (the static `request_meta` merged with the
//! request's own, without the protocol envelope or a progress token; canonical JSON, hashed),
//! and by who may read it: a `"public"` result any request, a `"private"` one (and one without a
//! recognised scope) only a request going out with the same `Authorization` (its SHA-256; no
//! header is a credential of its own, and stdio has a single one). A stale entry is kept until
//! a re-fetch replaces it: one that fails transiently over HTTP serves it, with
//! [`Warning::StaleCacheServed`](crate::Warning::StaleCacheServed). Everything is dropped when the process or session ends.

use std::time::{Duration, Instant};

use serde_json::{Map, Value};

use super::handshake;
use super::{Connection, Proc, Session, Transport};
use crate::era::Era;
use crate::error::RequestError;
use crate::event::Event;
use crate::handle::RequestHandle;
use crate::request::{ListKind, Request};
use crate::response::Response;

// What only HTTP has: the host's `Authorization`, stale results served after a transient
// failure, lists cached on a GET stream's promise.
mod credential;
#[cfg(feature = "http")]
mod http;
mod scope;

mod store;

pub(super) use credential::OpCache;
use credential::{Credential, Digest32};
pub use scope::CacheScope;
pub(super) use store::Cache;
use store::{cacheable, meta_digest, Binding, DiscoverRecord, Entry, Key, Slot, EMPTY_META, UNKEYED_META};
pub use store::{CacheInfo, CacheKey};

impl Connection {
    // ----- commands and getters -------------------------------------------------------------

    /// The work of [`Connection::clear_cache`].
    pub(super) fn drop_cache(&mut self) {
        self.cache.clear();
    }

    /// The work of [`Connection::cache_info`].
    pub(super) fn cached_info(&self, now: Instant, key: CacheKey) -> Option<CacheInfo> {
        let now = now.max(self.now);
        let credential = self.credential();
        let meta = self.meta_key(None);
        let Some(slot) = Slot::of_key(key) else {
            let record = self.cache.discover.as_ref().filter(|_| self.era() == Some(Era::Modern))?;
            if !record.binding.admits(credential) {
                return None;
            }
            return Some(CacheInfo {
                ttl_ms: Some(record.ttl_ms),
                scope: record.binding.scope(),
                age: now.saturating_duration_since(record.received),
                fresh: record.fresh(now) && record.meta == meta,
            });
        };
        let (key, entry) = self.cache.find(&slot, meta, credential)?;
        Some(CacheInfo {
            ttl_ms: entry.ttl_ms,
            scope: key.binding.scope(),
            age: now.saturating_duration_since(entry.received),
            fresh: entry.fresh(now),
        })
    }

    // ----- keys -----------------------------------------------------------------------------

    /// The credential the next request goes out with.
    fn credential(&self) -> Credential {
        match &self.transport {
            // Stdio has a single credential.
            Transport::Stdio(_) => Credential::NONE,
            #[cfg(feature = "http")]
            Transport::Http(link) => Credential::of_authorization(&link.authorization_values()),
        }
    }

    /// The digest of the effective `_meta` of a request carrying `extra`.
    fn meta_key(&self, extra: Option<&Map<String, Value>>) -> Digest32 {
        let mut meta = self.cfg.request_meta.clone();
        if let Some(extra) = extra {
            meta.extend(extra.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        for key in UNKEYED_META {
            meta.remove(key);
        }
        meta_digest(meta)
    }

    // ----- requests -------------------------------------------------------------------------

    /// A fresh cached answer for a list or `resources/read` request, if there is one.
    pub(super) fn cached(
        &self,
        now: Instant,
        request: &Request,
        opts: &crate::request::RequestOptions,
    ) -> Option<Response> {
        if opts.refresh || self.cache.entries.is_empty() {
            return None;
        }
        let slot = Slot::of_request(request)?;
        let (_, entry) = self.cache.find(&slot, self.meta_key(opts.meta.as_ref()), self.credential())?;
        entry.fresh(now).then(|| entry.response.clone())
    }

    /// A cacheable request is going out: remember the credential it carries.
    pub(super) fn note_sent(&mut self, handle: RequestHandle) {
        if !self.in_flight.get(handle).is_some_and(|op| cacheable(&op.request)) {
            return;
        }
        let credential = self.credential();
        if let Some(op) = self.in_flight.get_mut(handle) {
            op.cache.note_sent(credential);
        }
    }

    /// A list arrived whole: modern servers' by `ttlMs` (positive only); legacy servers' only
    /// when they promise `listChanged` notifications for it and have a channel to send them on.
    /// `scope`: public only when every page said so.
    pub(super) fn keep_list(
        &mut self,
        now: Instant,
        handle: RequestHandle,
        (kind, method): (ListKind, &'static str),
        ttl_ms: Option<u64>,
        scope: CacheScope,
        response: &Response,
    ) {
        let Some(info) = self.server_info() else { return };
        let lifetime = match info.era {
            Era::Modern => ttl_ms.filter(|t| *t > 0).map(Some),
            Era::Legacy => {
                let caps = &info.capabilities;
                let promised = match kind {
                    ListKind::Tools => caps.tools().is_some_and(|c| c.list_changed),
                    ListKind::Prompts => caps.prompts().is_some_and(|c| c.list_changed),
                    ListKind::Resources => caps.resources().is_some_and(|c| c.list_changed),
                };
                // A promise the server has no way to keep (no notification channel) would keep
                // the list forever.
                (promised && self.transport.can_receive_notifications()).then_some(None)
            }
        };
        self.keep(now, handle, Slot::List(method), lifetime, scope, response);
    }

    /// A `resources/read` result arrived: kept per URI while a positive `ttlMs` (2026-07-28)
    /// keeps it fresh.
    pub(super) fn keep_read(
        &mut self,
        now: Instant,
        handle: RequestHandle,
        uri: String,
        response: &Response,
    ) {
        let Response::Resource(result) = response else { return };
        let modern = self.era() == Some(Era::Modern);
        let lifetime = result.ttl_ms.filter(|t| modern && *t > 0).map(Some);
        let scope = CacheScope::from_hint(result.cache_scope.as_deref());
        self.keep(now, handle, Slot::Read(uri), lifetime, scope, response);
    }

    /// Replaces what the answer to `handle` supersedes, keeping it for `lifetime` (`None`: not
    /// kept; `Some(None)`: until a notification; `Some(Some(ms))`: for `ms`).
    fn keep(
        &mut self,
        now: Instant,
        handle: RequestHandle,
        slot: Slot,
        lifetime: Option<Option<u64>>,
        scope: CacheScope,
        response: &Response,
    ) {
        let Some(op) = self.in_flight.get(handle) else { return };
        let meta = self.meta_key(op.opts.meta.as_ref());
        let credential = op.cache.credential();
        // Results of multi-round-trip retries depend on inputs outside the key: never kept.
        let lifetime = if op.input.is_some() { None } else { lifetime };
        self.cache.supersede(&slot, meta, credential, scope == CacheScope::Public);
        let binding = match (scope, credential) {
            (CacheScope::Public, _) => Binding::Public,
            (CacheScope::Private, Some(c)) => Binding::Private(c),
            (CacheScope::Private, None) => return,
        };
        let Some(ttl_ms) = lifetime else { return };
        // A TTL past what the clock can represent never expires.
        let expires = ttl_ms.and_then(|ms| now.checked_add(Duration::from_millis(ms)));
        let entry = Entry { response: response.clone(), received: now, ttl_ms, expires };
        self.cache.insert(Key { slot, meta, binding }, entry, self.cfg.limits.max_cache_entries);
    }

    // ----- invalidation ---------------------------------------------------------------------

    /// Drops every cached copy of a list.
    pub(super) fn drop_cached_list(&mut self, method: &'static str) {
        self.cache.drop_slots(|s| *s == Slot::List(method));
    }

    /// Drops every cached read of `uri` (`None`: of every URI).
    pub(super) fn drop_cached_reads(&mut self, uri: Option<&str>) {
        self.cache.drop_slots(|s| matches!(s, Slot::Read(u) if uri.is_none_or(|uri| u == uri)));
    }

    // ----- server/discover ------------------------------------------------------------------

    /// The handshake's probe answered: the caching hints of its result (`None`: it was an
    /// error, stale at once) say how long the session's info stays fresh.
    pub(super) fn record_discover(&mut self, now: Instant, hints: Option<(u64, CacheScope)>) {
        let (ttl_ms, scope) = hints.unwrap_or((0, CacheScope::Private));
        let binding = match scope {
            CacheScope::Public => Binding::Public,
            CacheScope::Private => Binding::Private(self.credential()),
        };
        let meta = self.meta_key_of_probe();
        self.cache.discover = Some(DiscoverRecord { received: now, ttl_ms, binding, meta });
    }

    /// The `_meta` key of the probe, which carries the protocol envelope only (no host `_meta`).
    fn meta_key_of_probe(&self) -> Digest32 {
        EMPTY_META
    }

    /// Whether a [`Request::Discover`] with these options is answered from the session's info.
    pub(super) fn discover_fresh(&self, now: Instant, opts: &crate::request::RequestOptions) -> bool {
        let Some(record) = &self.cache.discover else { return false };
        !opts.refresh
            && record.fresh(now)
            && record.binding.admits(self.credential())
            && record.meta == self.meta_key(opts.meta.as_ref())
    }

    /// Whether the session's `server/discover` answer has a positive `ttlMs` that has passed
    /// (whoever may be served it): the next request its capabilities judge refreshes it first
    /// (see [`super::discover_refresh`]). An answer with `ttlMs` 0 or none never expires so.
    pub(super) fn discover_expired(&self, now: Instant) -> bool {
        self.cache.discover.as_ref().is_some_and(|record| record.ttl_ms > 0 && !record.fresh(now))
    }

    /// A refresh of the expired `server/discover` answer failed: the old answer is trusted
    /// for another `ttlMs` from `now` (the next refresh waits that long).
    pub(super) fn postpone_discover_refresh(&mut self, now: Instant) {
        if let Some(record) = self.cache.discover.as_mut() {
            record.received = now;
        }
    }

    /// A later `server/discover` answered: the session's info is replaced (and announced), and
    /// its caching hints recorded.
    pub(super) fn on_rediscover(&mut self, now: Instant, handle: RequestHandle, value: serde_json::Value) {
        let Some(current) = self.server_info() else {
            let detail = "server/discover answered after the session ended".into();
            return self.finish(handle, Err(RequestError::InvalidResponse { detail }));
        };
        let (info, ttl_ms, scope) = match handshake::judge_rediscover(current, value) {
            Ok(judged) => judged,
            Err(e) => return self.finish(handle, Err(e)),
        };
        let Some(op) = self.in_flight.get(handle) else { return };
        let meta = self.meta_key(op.opts.meta.as_ref());
        let (binding, ttl_ms) = match (scope, op.cache.credential()) {
            _ if op.input.is_some() => (Binding::Public, 0),
            (CacheScope::Public, _) => (Binding::Public, ttl_ms),
            (CacheScope::Private, Some(c)) => (Binding::Private(c), ttl_ms),
            (CacheScope::Private, None) => (Binding::Private(Credential::NONE), 0),
        };
        self.cache.discover = Some(DiscoverRecord { received: now, ttl_ms, binding, meta });
        if let Proc::Running { session: Session::Ready(session), .. } = &mut self.proc {
            *session = info.clone();
        }
        self.emit(Event::Connected(Box::new(info.clone())));
        self.finish(handle, Ok(Response::Connected(Box::new(info))));
    }
}
