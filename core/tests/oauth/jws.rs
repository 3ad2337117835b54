//! Test-side JWS checks: decode a compact ES256 JWS and verify its signature (the way the
//! conformance suite's mock servers do).

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use p256::ecdsa::signature::Verifier as _;
use p256::ecdsa::{Signature, VerifyingKey};
use p256::pkcs8::DecodePrivateKey as _;
use serde_json::Value;
use sha2::{Digest, Sha256};

/// A PKCS#8 P-256 test key (made for these tests, as `openssl genpkey` writes it).
pub const PKCS8_PEM: &str = "-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgw32wxvbPiYkuN8LA
OjrM8nPE4PK+1iw5vAFVEpjxBUShRANCAATLbGc8jtpDNnDmrF6OD4wWhm/4UghF
eUzuQVwk10kf4pDqNhXXZK62zjIOMlNDbs+Dz9sgxUN+7k9xRnIAH3cy
-----END PRIVATE KEY-----
";

/// The same key in SEC1 form (`BEGIN EC PRIVATE KEY`).
pub const SEC1_PEM: &str = "-----BEGIN EC PRIVATE KEY-----
MHcCAQEEIMN9sMb2z4mJLjfCwDo6zPJzxODyvtYsObwBVRKY8QVEoAoGCCqGSM49
AwEHoUQDQgAEy2xnPI7aQzZw5qxejg+MFoZv+FIIRXlM7kFcJNdJH+KQ6jYV12Su
ts4yDjJTQ27Pg8/bIMVDfu5PcUZyAB93Mg==
-----END EC PRIVATE KEY-----
";

/// The public key of [`PKCS8_PEM`].
pub fn test_public_key() -> VerifyingKey {
    *p256::ecdsa::SigningKey::from_pkcs8_pem(PKCS8_PEM).unwrap().verifying_key()
}

fn part(s: &str) -> Value {
    serde_json::from_slice(&URL_SAFE_NO_PAD.decode(s).expect("base64url")).expect("JSON")
}

/// Header and claims of `jws` after checking its ES256 signature with `key`.
pub fn verify(jws: &str, key: &VerifyingKey) -> (Value, Value) {
    let (input, sig) = jws.rsplit_once('.').expect("three parts");
    let sig = Signature::from_slice(&URL_SAFE_NO_PAD.decode(sig).unwrap()).expect("64-byte signature");
    key.verify(input.as_bytes(), &sig).expect("signature verifies");
    let (h, c) = input.split_once('.').unwrap();
    let header = part(h);
    assert_eq!(header["alg"], "ES256");
    (header, part(c))
}

/// Header and claims of a DPoP proof, verified with the key in its own `jwk` header, which
/// must be a public P-256 key.
pub fn verify_dpop(jws: &str) -> (Value, Value) {
    let header = part(jws.split('.').next().unwrap());
    assert_eq!(header["typ"], "dpop+jwt");
    let jwk = &header["jwk"];
    assert!(jwk.get("d").is_none(), "no private key in the proof");
    assert_eq!((jwk["kty"].as_str(), jwk["crv"].as_str()), (Some("EC"), Some("P-256")));
    let coord = |n: &str| URL_SAFE_NO_PAD.decode(jwk[n].as_str().unwrap()).unwrap();
    let mut sec1 = vec![4u8];
    sec1.extend(coord("x"));
    sec1.extend(coord("y"));
    let key = VerifyingKey::from_sec1_bytes(&sec1).expect("a P-256 point");
    verify(jws, &key)
}

/// RFC 7638 thumbprint of a P-256 JWK.
pub fn thumbprint(jwk: &Value) -> String {
    let canonical = format!(
        r#"{{"crv":"P-256","kty":"EC","x":"{}","y":"{}"}}"#,
        jwk["x"].as_str().unwrap(),
        jwk["y"].as_str().unwrap()
    );
    URL_SAFE_NO_PAD.encode(Sha256::digest(canonical.as_bytes()))
}

/// `BASE64URL(SHA-256(token))`.
pub fn ath(token: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(token.as_bytes()))
}
