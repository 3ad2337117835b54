//! ES256 signing (JWS compact form) for the JWTs the flow makes: `private_key_jwt` client
//! assertions (RFC 7523 §2.2) and DPoP proofs (RFC 9449). Signatures are deterministic
//! (RFC 6979), so no random generator is involved; keys come from the host's PEM or from the
//! flow's entropy.

use std::fmt;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use p256::ecdsa::signature::Signer as _;
use p256::ecdsa::{Signature, SigningKey};
use p256::pkcs8::DecodePrivateKey as _;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::oauth::entropy::Entropy;
use crate::oauth::error::OAuthError;
use crate::oauth::secret::Secret;

/// Longest PEM accepted for a private key, in bytes.
const MAX_PEM_LEN: usize = 16 * 1024;

/// A P-256 private key the flow signs with. `Debug` never shows it.
#[derive(Clone)]
pub(crate) struct EsKey(SigningKey);

impl fmt::Debug for EsKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("EsKey").field(&self.thumbprint()).finish()
    }
}

impl EsKey {
    /// Reads a PEM private key: PKCS#8 (`BEGIN PRIVATE KEY`) or SEC1 (`BEGIN EC PRIVATE KEY`),
    /// on the P-256 curve.
    pub(crate) fn from_pem(pem: &str) -> Result<Self, OAuthError> {
        let bad = |why: &str| OAuthError::InvalidConfig(format!("private key: {why}"));
        if pem.len() > MAX_PEM_LEN {
            return Err(bad("PEM too long"));
        }
        let pem = pem.trim();
        let secret = if pem.starts_with("-----BEGIN EC PRIVATE KEY-----") {
            p256::SecretKey::from_sec1_pem(pem).map_err(|_| bad("not a P-256 SEC1 PEM key"))?
        } else {
            p256::SecretKey::from_pkcs8_pem(pem)
                .map_err(|_| bad("not a PKCS#8 PEM key on the P-256 curve (ES256)"))?
        };
        Ok(Self(SigningKey::from(&secret)))
    }

    /// A key drawn from the flow's entropy: 32 bytes at a time until they form a valid scalar
    /// (non-zero, below the group order; a miss has probability about 2^-32).
    pub(crate) fn derive(entropy: &mut Entropy) -> Self {
        loop {
            if let Ok(k) = SigningKey::from_slice(&entropy.bytes(32)) {
                return Self(k);
            }
        }
    }

    /// Restores a key from [`EsKey::to_secret`].
    pub(crate) fn from_secret(secret: &Secret) -> Option<Self> {
        let bytes = URL_SAFE_NO_PAD.decode(secret.expose()).ok()?;
        (bytes.len() == 32).then(|| SigningKey::from_slice(&bytes).ok().map(Self)).flatten()
    }

    /// The private scalar, base64url, for storage.
    pub(crate) fn to_secret(&self) -> Secret {
        Secret::new(URL_SAFE_NO_PAD.encode(self.0.to_bytes()))
    }

    /// The public key as a JWK (RFC 7518 §6.2), members in lexicographic order.
    pub(crate) fn public_jwk(&self) -> Value {
        let point = self.0.verifying_key().to_encoded_point(false);
        let coord = |c: Option<&p256::FieldBytes>| URL_SAFE_NO_PAD.encode(c.map(|b| &b[..]).unwrap_or(&[]));
        json!({"crv": "P-256", "kty": "EC", "x": coord(point.x()), "y": coord(point.y())})
    }

    /// The RFC 7638 JWK SHA-256 thumbprint of the public key (what a DPoP-bound token's
    /// `cnf.jkt` names).
    pub(crate) fn thumbprint(&self) -> String {
        // `public_jwk` lists exactly the required members in lexicographic order (RFC 7638 §3.2),
        // whether serde_json sorts object members or keeps their insertion order.
        let canonical = self.public_jwk().to_string();
        URL_SAFE_NO_PAD.encode(Sha256::digest(canonical.as_bytes()))
    }

    /// Signs `header` and `claims` (JSON objects) into a compact JWS with `alg: ES256`.
    pub(crate) fn sign(&self, mut header: Value, claims: &Value) -> String {
        header["alg"] = json!("ES256");
        let input = format!("{}.{}", b64_json(&header), b64_json(claims));
        let signature: Signature = self.0.sign(input.as_bytes());
        format!("{input}.{}", URL_SAFE_NO_PAD.encode(signature.to_bytes()))
    }
}

fn b64_json(v: &Value) -> String {
    URL_SAFE_NO_PAD.encode(v.to_string().as_bytes())
}

/// The `ath` claim of a DPoP proof: base64url SHA-256 of the access token (RFC 9449 §4.2).
pub(crate) fn access_token_hash(token: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(token.as_bytes()))
}

/// The `htu` of a DPoP proof: the URL without query and fragment (RFC 9449 §4.2).
pub(crate) fn htu(url: &str) -> &str {
    url.split(['?', '#']).next().unwrap_or(url)
}

#[cfg(test)]
mod tests {
    use super::*;
    use p256::ecdsa::signature::Verifier as _;

    #[test]
    fn derived_keys_sign_verifiably_and_deterministically() {
        let mut e = Entropy::new(&[5; 32]).unwrap();
        let key = EsKey::derive(&mut e);
        let jws = key.sign(json!({"typ": "JWT"}), &json!({"iss": "a"}));
        assert_eq!(jws, key.sign(json!({"typ": "JWT"}), &json!({"iss": "a"})), "RFC 6979");
        let (input, sig) = jws.rsplit_once('.').unwrap();
        let sig = Signature::from_slice(&URL_SAFE_NO_PAD.decode(sig).unwrap()).unwrap();
        key.0.verifying_key().verify(input.as_bytes(), &sig).unwrap();
        let header: Value =
            serde_json::from_slice(&URL_SAFE_NO_PAD.decode(input.split('.').next().unwrap()).unwrap())
                .unwrap();
        assert_eq!(header, json!({"alg": "ES256", "typ": "JWT"}));
        let restored = EsKey::from_secret(&key.to_secret()).unwrap();
        assert_eq!(restored.thumbprint(), key.thumbprint());
        assert!(!format!("{key:?}").contains(key.to_secret().expose()));
        assert!(EsKey::from_secret(&Secret::new("AAAA")).is_none());
    }

    #[test]
    fn rfc7638_thumbprint_form_and_htu() {
        let mut e = Entropy::new(&[6; 32]).unwrap();
        let jwk = EsKey::derive(&mut e).public_jwk();
        let s = jwk.to_string();
        assert!(s.starts_with(r#"{"crv":"P-256","kty":"EC","x":""#), "{s}");
        assert_eq!(jwk["x"].as_str().unwrap().len(), 43);
        assert_eq!(htu("https://a.example/mcp?x=1#f"), "https://a.example/mcp");
        assert_eq!(access_token_hash("x").len(), 43);
    }

    #[test]
    fn bad_pem_is_a_config_error() {
        for pem in [
            "",
            "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----",
            "-----BEGIN EC PRIVATE KEY-----\n",
        ] {
            assert!(matches!(EsKey::from_pem(pem), Err(OAuthError::InvalidConfig(_))));
        }
        assert!(EsKey::from_pem(&"x".repeat(MAX_PEM_LEN + 1)).is_err());
    }
}
