//! The HTTP transports: Streamable HTTP (both eras), HTTP+SSE and plain HTTP.

use std::time::Instant;

use super::Connection;
use crate::handle::{Epoch, ExchangeId};
use crate::io::HttpHead;

impl Connection {
    pub(super) fn open_http(&mut self, _now: Instant, _epoch: Epoch) {}

    /// The response head of an exchange arrived.
    pub fn handle_http_head(&mut self, now: Instant, exchange: ExchangeId, head: HttpHead) {
        let _ = (self.tick(now), exchange, head);
    }

    /// A chunk of an exchange's response body arrived (raw, not decompressed).
    pub fn handle_http_body(&mut self, now: Instant, exchange: ExchangeId, bytes: &[u8]) {
        let _ = (self.tick(now), exchange, bytes);
    }

    /// An exchange's response body ended normally.
    pub fn handle_http_end(&mut self, now: Instant, exchange: ExchangeId) {
        let _ = (self.tick(now), exchange);
    }

    /// An exchange failed in transport (connect, TLS, reset, ...).
    pub fn handle_http_failed(&mut self, now: Instant, exchange: ExchangeId, detail: String) {
        let _ = (self.tick(now), exchange, detail);
    }
}
