//! TLS for `https://` servers and proxies: rustls with the crypto provider and trusted roots
//! mcpwire-host chooses (features `ring` / `aws-lc-rs` / `native-roots`, and
//! `HttpClientConfig`'s root settings).

use std::sync::{Arc, OnceLock};

use futures_rustls::rustls::pki_types::ServerName;
use futures_rustls::rustls::{ClientConfig, RootCertStore};
use mcpwire_host::HttpClientConfig;

use super::hyper_io::BoxedStream;

/// The TLS configuration, built on the first `https://` connection (a client that never makes
/// one never holds the root store nor reads the operating system's). Configured certificates
/// are checked when it is created.
pub(crate) struct LazyConfig {
    settings: HttpClientConfig,
    config: OnceLock<Result<Arc<ClientConfig>, String>>,
}

impl LazyConfig {
    pub(crate) fn new(settings: &HttpClientConfig) -> Result<Self, String> {
        let mut kept = HttpClientConfig::default();
        kept.extra_root_certificates = settings.extra_root_certificates.clone();
        kept.webpki_roots = settings.webpki_roots;
        #[cfg(feature = "native-roots")]
        {
            kept.native_roots = settings.native_roots;
        }
        let lazy = Self { settings: kept, config: OnceLock::new() };
        if !settings.extra_root_certificates.is_empty() || !settings.webpki_roots {
            // Bad certificates, or nothing to trust, are the builder's error, not a later
            // connection's.
            lazy.get()?;
        }
        Ok(lazy)
    }

    pub(crate) fn get(&self) -> Result<&Arc<ClientConfig>, String> {
        self.config.get_or_init(|| client_config(&self.settings)).as_ref().map_err(Clone::clone)
    }
}

/// The TLS configuration: the webpki roots (unless turned off), the operating system's and the
/// configured ones; HTTP/1.1 by ALPN.
fn client_config(settings: &HttpClientConfig) -> Result<Arc<ClientConfig>, String> {
    let mut roots = RootCertStore::empty();
    if settings.webpki_roots {
        roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    }
    let extra = mcpwire_host::extra_trusted_roots(settings)?;
    roots.add_parsable_certificates(extra.native);
    // Checked usable by `extra_trusted_roots`.
    roots.add_parsable_certificates(extra.configured);
    if roots.is_empty() {
        return Err("no trusted root certificates: none of the operating system's could be used".into());
    }
    let mut config = ClientConfig::builder_with_provider(mcpwire_host::tls_provider()?)
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
