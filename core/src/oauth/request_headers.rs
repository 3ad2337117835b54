//! What the flow adds to each request to the MCP server (the `Authorization` header), and the
//! host's wall clock, which the flow needs for Unix times (stored expiry, JWT `iat`/`exp`)
//! without reading a clock itself.

use std::time::Instant;

use crate::http_url::HttpUrl;
use crate::oauth::AuthFlow;

impl AuthFlow {
    /// Anchors the host's wall clock: at `at`, it read `unix_secs` (Unix seconds). Later Unix
    /// times are derived from the monotonic `now` given to each call.
    pub fn set_wall_clock(&mut self, at: Instant, unix_secs: u64) {
        self.wall = Some((at, unix_secs));
    }

    /// The Unix time at `now` (0 when no wall clock was anchored).
    pub fn unix_at(&self, now: Instant) -> u64 {
        match self.wall {
            Some((at, unix)) if now >= at => unix.saturating_add(now.duration_since(at).as_secs()),
            Some((at, unix)) => unix.saturating_sub(at.duration_since(now).as_secs()),
            None => 0,
        }
    }

    /// The redirect URI the browser comes back to (empty for grants without a browser).
    pub fn redirect_uri(&self) -> &str {
        &self.config.redirect_uri
    }

    /// The MCP server sent a `DPoP-Nonce` header (any response): proofs to it carry this
    /// nonce from now on. Values over 512 bytes or not visible ASCII are ignored.
    pub fn set_resource_nonce(&mut self, nonce: &str) {
        if !nonce.is_empty() && nonce.len() <= 512 && nonce.bytes().all(|b| (0x21..=0x7e).contains(&b)) {
            self.resource_nonce = Some(nonce.to_owned());
        }
    }

    /// The headers a request with `method` (`"POST"`, `"GET"`, `"DELETE"`) to `url` carries:
    /// the `Authorization` header while a token is held, and only for the MCP server's own
    /// origin (a token is never sent anywhere else). Names are lower case.
    pub fn request_headers(&mut self, now: Instant, method: &str, url: &str) -> Vec<(String, String)> {
        let _ = (now, method);
        let same_origin = HttpUrl::parse(url).is_ok_and(|u| u.origin() == self.server.origin());
        match (&self.tokens, same_origin) {
            (Some(t), true) => vec![("authorization".to_owned(), t.authorization_header())],
            _ => Vec::new(),
        }
    }
}
