//! The TLS choices both HTTP clients (hyper + rustls in mcpwire-async, ureq in
//! mcpwire-blocking) take from here: the rustls crypto provider (features `ring`, the default,
//! and `aws-lc-rs`), and the root certificates trusted besides the bundled Mozilla (webpki)
//! roots: the operating system's store (feature `native-roots`) and the configured ones.

use std::sync::Arc;

use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::CertificateDer;

use crate::HttpClientConfig;

/// The rustls crypto provider: aws-lc-rs when the `aws-lc-rs` feature is on (post-quantum key
/// exchange, FIPS builds), else *ring* when `ring` is (the default: no C toolchain beyond a C
/// compiler, a smaller build), else the process default a program installed with
/// [`CryptoProvider::install_default`] before its first `https://` connection.
pub fn tls_provider() -> Result<Arc<CryptoProvider>, String> {
    #[cfg(feature = "aws-lc-rs")]
    let provider = Some(Arc::new(rustls::crypto::aws_lc_rs::default_provider()));
    // rustls 0.23.48 deprecates ring's provider for its lack of post-quantum key exchange;
    // ring stays the default on purpose (see above), and `aws-lc-rs` is the feature for that.
    #[cfg(all(feature = "ring", not(feature = "aws-lc-rs")))]
    #[allow(deprecated)]
    let provider = Some(Arc::new(rustls::crypto::ring::default_provider()));
    #[cfg(not(any(feature = "ring", feature = "aws-lc-rs")))]
    let provider = CryptoProvider::get_default().cloned();
    provider.ok_or_else(|| {
        "no TLS crypto provider: build with the `ring` or `aws-lc-rs` feature, or install a process \
         default with rustls::crypto::CryptoProvider::install_default"
            .to_owned()
    })
}

/// The certificates a client trusts besides the webpki roots, as DER.
#[derive(Debug, Default)]
pub struct ExtraRoots {
    /// The operating system's (feature `native-roots`, when `HttpClientConfig::native_roots`
    /// is on). A client adds those it can parse and skips the others.
    pub native: Vec<CertificateDer<'static>>,
    /// [`HttpClientConfig::extra_root_certificates`], parsed: one that is not usable is an error.
    pub configured: Vec<CertificateDer<'static>>,
}

/// The certificates `config` trusts besides the webpki roots. Fails for a configured
/// certificate that does not parse, and when nothing at all would be trusted.
pub fn extra_trusted_roots(config: &HttpClientConfig) -> Result<ExtraRoots, String> {
    #[cfg(feature = "native-roots")]
    let native = if config.native_roots { native_roots()? } else { Vec::new() };
    #[cfg(not(feature = "native-roots"))]
    let native = Vec::new();
    let roots = ExtraRoots { native, configured: configured_roots(&config.extra_root_certificates)? };
    if roots.native.is_empty() && roots.configured.is_empty() && !config.webpki_roots {
        return Err("no trusted root certificates: the webpki roots are off and no other root is \
                    configured or found in the operating system's store"
            .to_owned());
    }
    Ok(roots)
}

/// The configured certificates: each entry PEM (one or more certificates) or one DER
/// certificate, each usable as a trust anchor.
fn configured_roots(extra: &[Vec<u8>]) -> Result<Vec<CertificateDer<'static>>, String> {
    let mut roots = Vec::new();
    for (i, cert) in extra.iter().enumerate() {
        let is_pem = cert.windows(11).any(|w| w == b"-----BEGIN ");
        let ders: Vec<CertificateDer<'static>> = if is_pem {
            CertificateDer::pem_slice_iter(cert)
                .collect::<Result<_, _>>()
                .map_err(|e| format!("root certificate {i} is not valid PEM: {e}"))?
        } else {
            vec![CertificateDer::from(cert.clone())]
        };
        if ders.is_empty() {
            return Err(format!("root certificate {i} holds no certificate"));
        }
        for der in ders {
            // The check both clients' root stores make (the blocking one would skip it).
            rustls::RootCertStore::empty()
                .add(der.clone())
                .map_err(|e| format!("root certificate {i} is not usable: {e}"))?;
            roots.push(der);
        }
    }
    Ok(roots)
}

/// The operating system's trusted roots (rustls-native-certs: the system bundle on Linux and
/// the BSDs, or `SSL_CERT_FILE` / `SSL_CERT_DIR` when set; the keychain on macOS; the system
/// store on Windows). Certificates that do not load are skipped; a store that cannot be read
/// at all is an error only when it gave nothing.
#[cfg(feature = "native-roots")]
fn native_roots() -> Result<Vec<CertificateDer<'static>>, String> {
    let loaded = rustls_native_certs::load_native_certs();
    match loaded.errors.first() {
        Some(error) if loaded.certs.is_empty() => {
            Err(format!("the operating system's root certificates could not be read: {error}"))
        }
        _ => Ok(loaded.certs),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CA: &[u8] = include_bytes!("../../tests/fixtures/tls/ca.pem");

    #[test]
    fn configured_roots_are_pem_or_der_and_bad_ones_are_named() {
        let pem = configured_roots(&[CA.to_vec()]).expect("the test CA");
        assert_eq!(pem.len(), 1);
        let der = configured_roots(&[pem[0].to_vec()]).expect("the same certificate as DER");
        assert_eq!(der, pem);
        let two = [CA, CA].concat();
        assert_eq!(configured_roots(&[pem[0].to_vec(), two]).expect("two entries").len(), 3);
        let garbage = configured_roots(&[b"not a certificate".to_vec()]).unwrap_err();
        assert!(garbage.contains("root certificate 0 is not usable"), "{garbage}");
        let empty = configured_roots(&[CA.to_vec(), b"-----BEGIN PRIVATE KEY-----\n".to_vec()]);
        assert!(empty.unwrap_err().contains("root certificate 1"));
    }

    /// The provider is the one the features choose: aws-lc-rs offers the post-quantum hybrid
    /// key exchange, ring does not.
    #[cfg(any(feature = "ring", feature = "aws-lc-rs"))]
    #[test]
    fn the_provider_follows_the_features() {
        let provider = tls_provider().expect("a provider is compiled in");
        let groups: Vec<String> = provider.kx_groups.iter().map(|g| format!("{:?}", g.name())).collect();
        let post_quantum = groups.iter().any(|g| g.contains("MLKEM"));
        assert_eq!(post_quantum, cfg!(feature = "aws-lc-rs"), "{groups:?}");
    }

    #[test]
    fn a_client_trusting_nothing_is_refused() {
        let mut config = HttpClientConfig::default().webpki_roots(false);
        #[cfg(feature = "native-roots")]
        {
            config = config.native_roots(false);
        }
        assert!(extra_trusted_roots(&config).unwrap_err().contains("no trusted root"));
        config = config.root_certificate(CA);
        assert_eq!(extra_trusted_roots(&config).expect("the configured root").configured.len(), 1);
        assert!(extra_trusted_roots(&HttpClientConfig::default()).is_ok(), "the webpki roots alone");
    }
}
