//! [`Entropy`]: the host-seeded generator the PKCE verifier and `state` values are drawn from
//! (the core never asks the OS for randomness), and the PKCE `S256` challenge.

use std::fmt;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use sha2::{Digest, Sha256};

use crate::oauth::secret::Secret;

/// The least entropy [`crate::oauth::AuthFlow::new`] accepts, in bytes (256 bits).
pub const MIN_ENTROPY_BYTES: usize = 32;

/// A deterministic generator seeded once with host-supplied entropy: output block `n` is
/// `SHA-256(seed ‖ n)`. As long as the seed is secret and random (the host reads it from its
/// OS generator) every output is unpredictable; the same seed always gives the same outputs,
/// which makes the flow reproducible in tests.
#[derive(Clone)]
pub(crate) struct Entropy {
    seed: [u8; 32],
    counter: u64,
}

impl fmt::Debug for Entropy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Entropy").field("counter", &self.counter).finish_non_exhaustive()
    }
}

impl Entropy {
    /// Seeds the generator from at least [`MIN_ENTROPY_BYTES`] bytes (longer input is hashed in).
    pub(crate) fn new(bytes: &[u8]) -> Option<Self> {
        if bytes.len() < MIN_ENTROPY_BYTES {
            return None;
        }
        Some(Self { seed: Sha256::digest(bytes).into(), counter: 0 })
    }

    /// `len` fresh bytes.
    pub(crate) fn bytes(&mut self, len: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(len + 32);
        while out.len() < len {
            let mut h = Sha256::new();
            h.update(self.seed);
            h.update(self.counter.to_be_bytes());
            self.counter += 1;
            out.extend_from_slice(&h.finalize());
        }
        out.truncate(len);
        out
    }

    /// A fresh base64url string (no padding) of `len` random bytes.
    pub(crate) fn token(&mut self, len: usize) -> String {
        URL_SAFE_NO_PAD.encode(self.bytes(len))
    }
}

/// The PKCE `S256` challenge of a verifier: `BASE64URL(SHA-256(verifier))` (RFC 7636 §4.2).
pub fn pkce_challenge(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// A PKCE verifier: 48 random bytes, 64 base64url characters (RFC 7636 allows 43 to 128).
pub(crate) fn pkce_verifier(entropy: &mut Entropy) -> Secret {
    Secret::new(entropy.token(48))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entropy_needs_enough_bytes_and_is_deterministic() {
        assert!(Entropy::new(&[1; 31]).is_none());
        let mut a = Entropy::new(&[7; 32]).unwrap();
        let mut b = Entropy::new(&[7; 32]).unwrap();
        let x = a.bytes(40);
        assert_eq!(x, b.bytes(40));
        assert_ne!(a.bytes(40), x, "later outputs differ");
        assert!(!format!("{a:?}").contains("seed"));
    }

    #[test]
    fn verifier_length_and_charset() {
        let mut e = Entropy::new(&[3; 32]).unwrap();
        let v = pkce_verifier(&mut e);
        assert!((43..=128).contains(&v.expose().len()));
        assert!(v.expose().bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'));
    }

    #[test]
    fn challenge_matches_rfc7636_example() {
        // RFC 7636 Appendix B.
        assert_eq!(
            pkce_challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
    }
}
