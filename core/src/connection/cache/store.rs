//! The store of cached results: what an entry answers (`Slot`), who may read it (`Binding`),
//! the key (`Key`: slot, the digest of the request's keyed `_meta`, binding), the entries and the
//! last `server/discover` record, and the keys and info the host can ask about. The connection
//! ([`super`]) decides what to keep and serve; this keeps it.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::credential::{Credential, Digest32};
use super::scope::CacheScope;
use crate::request::Request;
use crate::response::Response;

/// A cached result the host can ask about ([`Connection::cache_info`](crate::Connection::cache_info)).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum CacheKey {
    /// `tools/list`.
    Tools,
    /// `prompts/list`.
    Prompts,
    /// `resources/list`.
    Resources,
    /// `resources/templates/list`.
    ResourceTemplates,
    /// `resources/read` of this URI.
    Read(String),
    /// The last `server/discover` result (2026-07-28 servers only).
    Discover,
}

/// What is cached for a [`CacheKey`] ([`Connection::cache_info`](crate::Connection::cache_info)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheInfo {
    /// The result's `ttlMs`; `None` for a legacy list kept until a `list_changed` notification.
    pub ttl_ms: Option<u64>,
    /// Who may be served it.
    pub scope: CacheScope,
    /// How long ago it was received.
    pub age: Duration,
    /// Whether a request with default options would be answered from it now (else it is
    /// fetched again).
    pub fresh: bool,
}

/// The `_meta` keys left out of the cache key: the protocol envelope (the same for every request
/// of a connection) and progress tokens (unique per request).
pub(super) const UNKEYED_META: [&str; 5] = [
    "progressToken",
    "io.modelcontextprotocol/protocolVersion",
    "io.modelcontextprotocol/clientInfo",
    "io.modelcontextprotocol/clientCapabilities",
    "io.modelcontextprotocol/logLevel",
];

/// What an entry answers.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Slot {
    List(&'static str),
    Read(String),
}

impl Slot {
    pub(super) fn of_request(request: &Request) -> Option<Slot> {
        match request {
            Request::ReadResource { uri } => Some(Slot::Read(uri.clone())),
            r => r.list_kind().map(|(_, method, _)| Slot::List(method)),
        }
    }

    pub(super) fn of_key(key: CacheKey) -> Option<Slot> {
        let request = match key {
            CacheKey::Tools => Request::ListTools,
            CacheKey::Prompts => Request::ListPrompts,
            CacheKey::Resources => Request::ListResources,
            CacheKey::ResourceTemplates => Request::ListResourceTemplates,
            CacheKey::Read(uri) => return Some(Slot::Read(uri)),
            CacheKey::Discover => return None,
        };
        Slot::of_request(&request)
    }
}

/// Who may read an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Binding {
    Public,
    Private(Credential),
}

impl Binding {
    pub(super) fn scope(self) -> CacheScope {
        match self {
            Binding::Public => CacheScope::Public,
            Binding::Private(_) => CacheScope::Private,
        }
    }

    pub(super) fn admits(self, credential: Credential) -> bool {
        match self {
            Binding::Public => true,
            Binding::Private(c) => c == credential,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Key {
    pub(super) slot: Slot,
    pub(super) meta: Digest32,
    pub(super) binding: Binding,
}

#[derive(Debug, Clone)]
pub(super) struct Entry {
    pub(super) response: Response,
    pub(super) received: Instant,
    /// `None`: a legacy list, kept until a `list_changed` notification.
    pub(super) ttl_ms: Option<u64>,
    /// `None`: never expires (a legacy list, or a TTL past what the clock can represent).
    pub(super) expires: Option<Instant>,
}

impl Entry {
    pub(super) fn fresh(&self, now: Instant) -> bool {
        self.expires.is_none_or(|at| now < at)
    }
}

/// The last `server/discover` result of a modern session (the result itself is the session's
/// [`crate::ServerInfo`]).
#[derive(Debug, Clone)]
pub(super) struct DiscoverRecord {
    pub(super) received: Instant,
    pub(super) ttl_ms: u64,
    pub(super) binding: Binding,
    pub(super) meta: Digest32,
}

impl DiscoverRecord {
    pub(super) fn fresh(&self, now: Instant) -> bool {
        self.ttl_ms > 0
            && self.received.checked_add(Duration::from_millis(self.ttl_ms)).is_none_or(|at| now < at)
    }
}

/// The cached results of one connection.
#[derive(Debug, Default)]
pub(in crate::connection) struct Cache {
    pub(super) entries: BTreeMap<Key, Entry>,
    pub(super) discover: Option<DiscoverRecord>,
}

impl Cache {
    /// Forgets everything (the process or session ended).
    pub(in crate::connection) fn clear(&mut self) {
        *self = Cache::default();
    }

    /// The entry a request with this `_meta` and credential may read, fresh or stale.
    pub(super) fn find(&self, slot: &Slot, meta: Digest32, credential: Credential) -> Option<(&Key, &Entry)> {
        [Binding::Private(credential), Binding::Public]
            .into_iter()
            .find_map(|binding| self.entries.get_key_value(&Key { slot: slot.clone(), meta, binding }))
    }

    /// Drops what a new answer for `slot` supersedes for its requester: the public entry and the
    /// requester's private one; every private one when the new answer is public.
    pub(super) fn supersede(
        &mut self,
        slot: &Slot,
        meta: Digest32,
        credential: Option<Credential>,
        public: bool,
    ) {
        self.entries.retain(|k, _| {
            let same = k.slot == *slot && k.meta == meta;
            let superseded = match k.binding {
                Binding::Public => true,
                Binding::Private(c) => public || Some(c) == credential,
            };
            !(same && superseded)
        });
    }

    /// Keeps an entry, dropping the oldest when `max` are kept already.
    pub(super) fn insert(&mut self, key: Key, entry: Entry, max: usize) {
        if max == 0 {
            return;
        }
        while self.entries.len() >= max {
            let oldest = self.entries.iter().min_by_key(|(_, e)| e.received).map(|(k, _)| k.clone());
            match oldest {
                Some(k) => self.entries.remove(&k),
                None => break,
            };
        }
        self.entries.insert(key, entry);
    }

    pub(super) fn drop_slots(&mut self, f: impl Fn(&Slot) -> bool) {
        self.entries.retain(|k, _| !f(&k.slot));
    }
}

/// Whether a request's answer can be cached.
pub(super) fn cacheable(request: &Request) -> bool {
    matches!(request, Request::Discover | Request::ReadResource { .. }) || request.list_kind().is_some()
}

/// The digest of `{}`, the `_meta` key of most requests (none carries keyed `_meta`), known
/// without hashing: the first hash of a process also asks the CPU for its SHA extensions.
pub(super) const EMPTY_META: Digest32 = [
    0x44, 0x13, 0x6f, 0xa3, 0x55, 0xb3, 0x67, 0x8a, 0x11, 0x46, 0xad, 0x16, 0xf7, 0xe8, 0x64, 0x9e, 0x94,
    0xfb, 0x4f, 0xc2, 0x1f, 0xe7, 0x7e, 0x83, 0x10, 0xc0, 0x60, 0xf6, 0x1c, 0xaa, 0xff, 0x8a,
];

/// The digest of a `_meta` object's canonical text.
pub(super) fn meta_digest(meta: Map<String, Value>) -> Digest32 {
    if meta.is_empty() {
        return EMPTY_META;
    }
    let mut text = String::new();
    canonical(&Value::Object(meta), &mut text);
    Sha256::digest(text.as_bytes()).into()
}

/// Writes `v` as JSON with every object's keys in order.
fn canonical(v: &Value, out: &mut String) {
    match v {
        Value::Object(m) => {
            out.push('{');
            let sorted: BTreeMap<&String, &Value> = m.iter().collect();
            for (i, (k, v)) in sorted.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                canonical(v, out);
            }
            out.push('}');
        }
        Value::Array(a) => {
            out.push('[');
            for (i, v) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical(v, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_empty_meta_digest_is_the_hash_of_its_text() {
        let mut text = String::new();
        canonical(&Value::Object(Map::new()), &mut text);
        assert_eq!(text, "{}");
        assert_eq!(EMPTY_META, <Digest32>::from(Sha256::digest(text.as_bytes())));
        let one: Map<String, Value> = [("k".to_owned(), Value::from(1))].into_iter().collect();
        assert_ne!(meta_digest(one), EMPTY_META);
    }
}
