//! The HTTP side of the cache: the host's `Authorization` (the credential private results are
//! bound to), a stale result served when its re-fetch failed transiently, and the legacy lists
//! dropped when the GET stream that promised their notifications is given up.

use std::time::Instant;

use super::Slot;
use crate::connection::requests::Op;
use crate::connection::{Connection, Transport};
use crate::era::Era;
use crate::error::{CommandError, RequestError, Warning};
use crate::request::Request;
use crate::response::Response;

impl Slot {
    fn method(&self) -> &'static str {
        match self {
            Slot::List(method) => method,
            Slot::Read(_) => "resources/read",
        }
    }
}

impl Connection {
    /// The work of [`Connection::set_authorization`].
    pub(in crate::connection) fn replace_authorization(
        &mut self,
        now: Instant,
        value: Option<String>,
    ) -> Result<(), CommandError> {
        self.tick(now);
        if let Some(v) = &value {
            crate::headers::validate_header("Authorization", v)
                .map_err(|e| CommandError::InvalidArgument(e.to_string()))?;
        }
        self.http_set_authorization(value);
        Ok(())
    }

    /// The request ended with `err`: a re-fetch that failed transiently over HTTP (5xx, a
    /// transport failure or a broken stream, after retries) is answered from the cache, stale
    /// or not, with a warning. Never after a refusal (401/403, a JSON-RPC error), nor for a
    /// `refresh`.
    pub(in crate::connection) fn stale_fallback(
        &mut self,
        op: &Op,
        err: RequestError,
    ) -> Result<Response, RequestError> {
        let transient = matches!(
            err,
            RequestError::TransientServer { .. }
                | RequestError::TransportClosed { .. }
                | RequestError::StreamClosed { .. }
        );
        if !transient || op.opts.refresh || !matches!(self.transport, Transport::Http(_)) {
            return Err(err);
        }
        let (method, detail, response) = match &op.request {
            Request::Discover => match self.server_info() {
                Some(info) if info.era == Era::Modern => {
                    ("server/discover", err.to_string(), Response::Connected(Box::new(info.clone())))
                }
                _ => return Err(err),
            },
            request => {
                let Some(slot) = Slot::of_request(request) else { return Err(err) };
                let credential = op.cache.sent_with().unwrap_or_else(|| self.credential());
                let meta = self.meta_key(op.opts.meta.as_ref());
                let Some((_, entry)) = self.cache.find(&slot, meta, credential) else { return Err(err) };
                let detail = match &slot {
                    Slot::Read(uri) => format!("{}: {err}", crate::text::sanitize(uri, 200)),
                    Slot::List(_) => err.to_string(),
                };
                (slot.method(), detail, entry.response.clone())
            }
        };
        self.warn(Warning::StaleCacheServed { method, detail });
        Ok(response)
    }

    /// Drops the cached lists that only a `list_changed` notification would invalidate.
    pub(in crate::connection) fn drop_lists_awaiting_notifications(&mut self) {
        self.cache.entries.retain(|_, entry| entry.ttl_ms.is_some());
    }
}
