//! What the flow adds to each request to the MCP server (the `Authorization` header, and the
//! DPoP proof for a DPoP-bound token), and the host's wall clock, which the flow needs for Unix
//! times (stored expiry, JWT `iat`/`exp`) without reading a clock itself.

use std::time::Instant;

use crate::oauth::grants::valid_nonce;
use crate::oauth::token::TokenType;
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
        if valid_nonce(nonce) {
            self.resource_nonce = Some(nonce.to_owned());
        }
    }

    /// The headers a request with `method` (`"POST"`, `"GET"`, `"DELETE"`) to `url` carries:
    /// the `Authorization` header while a token is held, and only for the MCP server's own
    /// origin and the resource the token was obtained for (a token is never sent anywhere
    /// else). A DPoP token (`authorization: DPoP …`)
    /// also gets a `dpop` proof, fresh at each call (new `jti`), bound to the method, the URL
    /// without query, the token (`ath`) and the server's latest nonce (no proof can be made
    /// before [`AuthFlow::set_wall_clock`]). Names are lower case.
    pub fn request_headers(&mut self, now: Instant, method: &str, url: &str) -> Vec<(String, String)> {
        self.now = Some(now);
        let Some(tokens) = self.presentable(url) else { return Vec::new() };
        let mut headers = vec![("authorization".to_owned(), tokens.authorization_header())];
        if tokens.token_type == TokenType::Dpop {
            let token = tokens.access_token.expose().to_owned();
            if let Ok(unix) = self.jwt_now() {
                let nonce = self.resource_nonce.clone();
                let method = method.to_ascii_uppercase();
                let proof = self.dpop_proof(unix, &method, url, Some(&token), nonce.as_deref());
                headers.push(("dpop".to_owned(), proof));
            }
        }
        headers
    }
}
