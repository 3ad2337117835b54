//! TLS for `https://` servers: rustls (ring provider) trusting the webpki roots plus
//! configured certificates.

use std::sync::{Arc, OnceLock};

use futures_rustls::rustls::pki_types::pem::PemObject;
use futures_rustls::rustls::pki_types::{CertificateDer, ServerName};
use futures_rustls::rustls::{ClientConfig, RootCertStore};

use super::hyper_io::BoxedStream;

/// The TLS configuration, built on the first `https://` connection (a client that never makes
/// one never holds the root store). Configured certificates are checked when it is created.
pub(crate) struct LazyConfig {
    extra: Vec<Vec<u8>>,
    config: OnceLock<Result<Arc<ClientConfig>, String>>,
}

impl LazyConfig {
    pub(crate) fn new(extra: &[Vec<u8>]) -> Result<Self, String> {
        let lazy = Self { extra: extra.to_vec(), config: OnceLock::new() };
        if !extra.is_empty() {
            // Bad certificates are the builder's error, not a later connection's.
            lazy.get()?;
        }
        Ok(lazy)
    }

    pub(crate) fn get(&self) -> Result<&Arc<ClientConfig>, String> {
        self.config.get_or_init(|| client_config(&self.extra)).as_ref().map_err(Clone::clone)
    }
}

/// The TLS configuration: webpki roots plus `extra` (each PEM with one or more certificates,
/// or one DER certificate), HTTP/1.1 by ALPN.
fn client_config(extra: &[Vec<u8>]) -> Result<Arc<ClientConfig>, String> {
    let mut roots = RootCertStore::empty();
    roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
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
            roots.add(der).map_err(|e| format!("root certificate {i} is not usable: {e}"))?;
        }
    }
    let provider = Arc::new(futures_rustls::rustls::crypto::ring::default_provider());
    let mut config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS setup failed: {e}"))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}

/// Runs the TLS handshake over `stream` for `host` (a name or an IP address).
pub(crate) async fn wrap(
    config: &Arc<ClientConfig>,
    stream: BoxedStream,
    host: &str,
) -> Result<BoxedStream, String> {
    let name = ServerName::try_from(host.to_owned())
        .map_err(|_| format!("{host:?} is not a valid TLS server name"))?;
    let connector = futures_rustls::TlsConnector::from(config.clone());
    let tls = connector
        .connect(name, stream)
        .await
        .map_err(|e| format!("TLS handshake with {host} failed: {e}"))?;
    Ok(Box::new(tls))
}
