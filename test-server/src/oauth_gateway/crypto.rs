//! SHA-256 and base64 for the OAuth gateway (the `sha2` and `base64` crates), and the PKCE
//! `S256` check (RFC 7636 §4.6).

use base64::alphabet;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig, URL_SAFE_NO_PAD};
use base64::engine::DecodePaddingMode;
use base64::Engine as _;
use sha2::{Digest, Sha256};

/// Standard base64 whose padding may be left out (clients differ on `Basic` credentials).
const STANDARD_LENIENT: GeneralPurpose = GeneralPurpose::new(
    &alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// The SHA-256 digest of `data`.
pub fn sha256(data: &[u8]) -> [u8; 32] {
    Sha256::digest(data).into()
}

/// `bytes` in unpadded base64url.
pub fn base64url(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

/// Decodes standard base64, padded or not (an HTTP `Basic` credential); `None` if malformed.
pub fn base64_decode(text: &str) -> Option<Vec<u8>> {
    STANDARD_LENIENT.decode(text).ok()
}

/// Why a PKCE value is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PkceError {
    /// Not 43–128 characters of `[A-Za-z0-9-._~]`.
    Malformed,
    /// `BASE64URL(SHA256(verifier))` is not the challenge.
    Mismatch,
}

/// Whether `value` has the shape of a PKCE verifier (RFC 7636 §4.1), which is also the shape
/// of an `S256` challenge (43 base64url characters).
pub fn pkce_shape_ok(value: &str) -> bool {
    (43..=128).contains(&value.len())
        && value.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'))
}

/// The `S256` challenge of a verifier.
pub fn s256_challenge(verifier: &str) -> String {
    base64url(&sha256(verifier.as_bytes()))
}

/// Checks `verifier` against the `S256` `challenge` recorded with the code.
pub fn check_pkce(verifier: &str, challenge: &str) -> Result<(), PkceError> {
    if !pkce_shape_ok(verifier) {
        return Err(PkceError::Malformed);
    }
    if constant_time_eq(s256_challenge(verifier).as_bytes(), challenge.as_bytes()) {
        Ok(())
    } else {
        Err(PkceError::Mismatch)
    }
}

/// Byte equality whose time does not depend on where the first difference is.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn sha256_known_answers() {
        assert_eq!(hex(&sha256(b"")), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        assert_eq!(hex(&sha256(b"abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        let two_blocks = b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
        assert_eq!(
            hex(&sha256(two_blocks)),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        );
        assert_eq!(
            hex(&sha256(&[b'a'; 1000])),
            "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3"
        );
    }

    #[test]
    fn base64_round_trips() {
        assert_eq!(base64url(b""), "");
        assert_eq!(base64url(b"f"), "Zg");
        assert_eq!(base64url(b"fo"), "Zm8");
        assert_eq!(base64url(b"foo"), "Zm9v");
        assert_eq!(base64url(&[0xfb, 0xff]), "-_8");
        assert_eq!(base64_decode("Zm9vYmE=").as_deref(), Some(&b"fooba"[..]));
        assert_eq!(base64_decode("aWQlM0ExOnMlMjZjcmV0").as_deref(), Some(&b"id%3A1:s%26cret"[..]));
        assert_eq!(base64_decode("Zm9v!"), None);
        assert_eq!(base64_decode("Z"), None, "a lone sextet is not a byte");
    }

    /// RFC 7636 Appendix B.
    #[test]
    fn pkce_s256_matches_the_rfc_example() {
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
        let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
        assert_eq!(s256_challenge(verifier), challenge);
        assert_eq!(check_pkce(verifier, challenge), Ok(()));
        let other = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXl";
        assert_eq!(check_pkce(other, challenge), Err(PkceError::Mismatch));
        assert_eq!(check_pkce("short", challenge), Err(PkceError::Malformed));
        assert_eq!(check_pkce(&"a".repeat(129), challenge), Err(PkceError::Malformed));
        assert_eq!(check_pkce(&format!("{}+", &verifier[..43]), challenge), Err(PkceError::Malformed));
        // The challenge itself is not a verifier of itself.
        assert_eq!(check_pkce(challenge, challenge), Err(PkceError::Mismatch));
    }
}
