//! [`DpopState`]: what DPoP (RFC 9449) keeps across requests: the key, derived from the flow's
//! entropy on first use (or restored), and the nonces the servers gave.

use serde_json::json;

use crate::oauth::entropy::Entropy;
use crate::oauth::jwt::{access_token_hash, htu, EsKey};

/// The DPoP key and the servers' nonces.
#[derive(Debug, Default)]
pub(crate) struct DpopState {
    /// The key, derived from the entropy on first use (or restored).
    key: Option<EsKey>,
    /// The last `DPoP-Nonce` the MCP server sent (RFC 9449 §9).
    resource_nonce: Option<String>,
    /// The last `DPoP-Nonce` an authorization server sent: its token endpoint and the nonce
    /// (§8).
    as_nonce: Option<(String, String)>,
    /// A `use_dpop_nonce` challenge of the MCP server was answered with a retry and no request
    /// succeeded since.
    rs_nonce_retried: bool,
}

impl DpopState {
    /// The key, once one exists.
    pub(crate) fn key(&self) -> Option<&EsKey> {
        self.key.as_ref()
    }

    /// Puts back a key from a stored record (or none).
    pub(crate) fn restore_key(&mut self, key: Option<EsKey>) {
        self.key = key;
    }

    /// The MCP server's latest nonce (already checked by the caller).
    pub(crate) fn set_resource_nonce(&mut self, nonce: &str) {
        self.resource_nonce = Some(nonce.to_owned());
    }

    /// An authorization server's nonce, for its token endpoint `endpoint`.
    pub(crate) fn set_as_nonce(&mut self, endpoint: String, nonce: String) {
        self.as_nonce = Some((endpoint, nonce));
    }

    /// The nonce to send to the token endpoint `endpoint`, when it gave one last.
    pub(crate) fn as_nonce_for(&self, endpoint: &str) -> Option<String> {
        self.as_nonce.as_ref().filter(|(e, _)| e == endpoint).map(|(_, n)| n.clone())
    }

    /// The MCP server asked for its nonce (`use_dpop_nonce`): whether the request may go again
    /// with it (a nonce is known and this is not already the retry). Records the retry.
    pub(crate) fn retry_with_resource_nonce(&mut self) -> bool {
        if self.rs_nonce_retried || self.resource_nonce.is_none() {
            return false;
        }
        self.rs_nonce_retried = true;
        true
    }

    /// The MCP server accepted a request: a later `use_dpop_nonce` may be retried again.
    pub(crate) fn on_request_succeeded(&mut self) {
        self.rs_nonce_retried = false;
    }

    /// A proof for a request to the MCP server: [`DpopState::proof`] with its latest nonce.
    pub(crate) fn resource_proof(
        &mut self,
        entropy: &mut Entropy,
        unix: u64,
        method: &str,
        url: &str,
        access_token: &str,
    ) -> String {
        let nonce = self.resource_nonce.clone();
        self.proof(entropy, unix, method, url, Some(access_token), nonce.as_deref())
    }

    /// A DPoP proof (RFC 9449 §4.2) for `method` on `url`, issued at `unix`, with `ath` for an
    /// access token and the server's `nonce` when known. The key is derived on first use.
    pub(crate) fn proof(
        &mut self,
        entropy: &mut Entropy,
        unix: u64,
        method: &str,
        url: &str,
        access_token: Option<&str>,
        nonce: Option<&str>,
    ) -> String {
        let jti = entropy.token(16);
        let key = self.key.get_or_insert_with(|| EsKey::derive(entropy));
        let mut claims = json!({"jti": jti, "htm": method, "htu": htu(url), "iat": unix});
        if let Some(t) = access_token {
            claims["ath"] = json!(access_token_hash(t));
        }
        if let Some(n) = nonce {
            claims["nonce"] = json!(n);
        }
        key.sign(json!({"typ": "dpop+jwt", "jwk": key.public_jwk()}), &claims)
    }
}
