//! What the flow adds to each request to the MCP server: the `Authorization` header, and the
//! DPoP proof for a DPoP-bound token (with the MCP server's nonce).

use std::time::Instant;

use crate::oauth::flow::AuthFlow;
use crate::oauth::grants::valid_nonce;
use crate::oauth::token::TokenType;

impl AuthFlow {
    /// The redirect URI the browser comes back to (empty for grants without a browser).
    pub fn redirect_uri(&self) -> &str {
        &self.config().redirect_uri
    }

    /// The MCP server sent a `DPoP-Nonce` header (any response): proofs to it carry this
    /// nonce from now on. Values over 512 bytes or not visible ASCII are ignored.
    pub fn set_resource_nonce(&mut self, nonce: &str) {
        if valid_nonce(nonce) {
            self.dpop_mut().set_resource_nonce(nonce);
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
        let Some(tokens) = self.presentable(url) else { return Vec::new() };
        let mut headers = vec![("authorization".to_owned(), tokens.authorization_header())];
        if tokens.token_type == TokenType::Dpop {
            let token = tokens.access_token.expose().to_owned();
            if let Ok(unix) = self.jwt_now(now) {
                let method = method.to_ascii_uppercase();
                let (dpop, entropy) = self.dpop_with_entropy();
                let proof = dpop.resource_proof(entropy, unix, &method, url, &token);
                headers.push(("dpop".to_owned(), proof));
            }
        }
        headers
    }
}
