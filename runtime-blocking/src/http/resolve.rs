//! Name resolution for ureq without a thread per request.
//!
//! ureq resolves the host of every request, even one a pooled keep-alive connection then
//! serves, and its default resolver bounds a lookup by starting a fresh thread for it. This
//! resolver answers IP-literal hosts (`127.0.0.1`, `[::1]`) and the names given to
//! `HttpClientConfig::resolve` directly, and runs name lookups on the crate's worker pool,
//! bounded by the same timeout.
//!
//! It is also where the addresses of an OAuth-related fetch are checked: an agent for
//! [`Destination::Public`] requests hands ureq only the addresses the rule allows (ureq
//! connects to what its resolver returned, with no second lookup), and refuses with an
//! [`UnsafeAddress`](mcpwire_core::UnsafeAddress) inside `ureq::Error::Io` when none is allowed.

use std::io;
use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::{mpsc, Arc};

use mcpwire_core::Destination;
use mcpwire_host::HttpClientConfig;

use ureq::config::Config;
use ureq::http::Uri;
use ureq::unversioned::resolver::{DefaultResolver, ResolvedSocketAddrs, Resolver};
use ureq::unversioned::transport::NextTimeout;
use ureq::Error;

/// How many addresses ureq keeps from a lookup (the capacity of its address list).
const MAX_ADDRS: usize = 16;

/// The resolver the adapter's agents use; see the module documentation.
#[derive(Debug)]
pub(crate) struct PooledResolver {
    /// Reports malformed URLs exactly as ureq does.
    fallback: DefaultResolver,
    /// The names answered without DNS.
    hosts: Arc<HttpClientConfig>,
    /// The rule the addresses must pass.
    destination: Destination,
}

impl PooledResolver {
    /// A resolver answering from `hosts` first, keeping only addresses `destination` allows.
    pub(crate) fn new(hosts: Arc<HttpClientConfig>, destination: Destination) -> Self {
        Self { fallback: DefaultResolver::default(), hosts, destination }
    }
}

impl Resolver for PooledResolver {
    fn resolve(
        &self,
        uri: &Uri,
        config: &Config,
        timeout: NextTimeout,
    ) -> Result<ResolvedSocketAddrs, Error> {
        let host_and_port = uri.scheme().zip(uri.authority()).and_then(|(scheme, authority)| {
            Some((authority.host(), DefaultResolver::host_and_port(scheme, authority)?))
        });
        let Some((host, host_and_port)) = host_and_port else {
            return self.fallback.resolve(uri, config, timeout);
        };
        let port = host_and_port.rsplit_once(':').and_then(|(_, port)| port.parse::<u16>().ok());
        let known = port.and_then(|port| self.hosts.known_addresses(host, port));
        let found: Vec<SocketAddr> = match known {
            Some(known) => known,
            None if timeout.after.is_not_happening() => host_and_port.to_socket_addrs()?.collect(),
            None => lookup_on_pool(host_and_port, timeout)?,
        };
        let found =
            self.destination.check(&uri.to_string(), &found).map_err(|e| Error::Io(io::Error::other(e)))?;
        let family = config.ip_family();
        let mut addrs = self.empty();
        for addr in family.keep_wanted(found.into_iter()).take(MAX_ADDRS) {
            addrs.push(addr);
        }
        if addrs.is_empty() {
            return Err(Error::HostNotFound);
        }
        Ok(addrs)
    }
}

/// Looks `host_and_port` up on a pooled thread, waiting at most the timeout (a lookup that
/// outlives it finishes on its thread and is discarded).
fn lookup_on_pool(host_and_port: String, timeout: NextTimeout) -> Result<Vec<SocketAddr>, Error> {
    let (tx, rx) = mpsc::sync_channel(1);
    crate::pool::run(move |_| drop(tx.send(host_and_port.to_socket_addrs().map(Iterator::collect))))?;
    match rx.recv_timeout(*timeout.after) {
        Ok(found) => Ok(found?),
        Err(mpsc::RecvTimeoutError::Timeout) => Err(Error::Timeout(timeout.reason)),
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            Err(Error::Io(io::Error::other("the name lookup thread died")))
        }
    }
}
