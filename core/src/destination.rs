//! Which addresses an HTTP request may connect to ([`Destination`]), judged on the addresses a
//! runtime resolved, and the refusal when none may ([`UnsafeAddress`]).

use core::net::{IpAddr, SocketAddr};

use crate::address_class::{classify, AddressClass};

/// The address rule a runtime applies to an [`crate::HttpRequest`] before connecting.
///
/// For [`Destination::Public`], the runtime resolves the URL's host itself (or takes the
/// configured override, or the IP literal), keeps only the addresses [`Destination::check`]
/// allows, refuses the exchange with [`crate::Input::HttpRefused`] when none remain, and connects
/// only to a kept address: no second lookup, also through a proxy (a `CONNECT` to the checked
/// address). A case where the address cannot be checked is refused, never let through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Destination {
    /// Any address (MCP traffic: the server the user configured).
    #[default]
    Any,
    /// Only public addresses, plus loopback when `loopback` (OAuth-related fetches: loopback
    /// only when the MCP server itself is on loopback).
    Public {
        /// Whether loopback addresses are allowed.
        loopback: bool,
    },
}

impl Destination {
    /// Whether an address of `class` may be connected to.
    pub fn permits(self, class: AddressClass) -> bool {
        match self {
            Self::Any => true,
            Self::Public { loopback } => {
                class == AddressClass::Public || (loopback && class == AddressClass::Loopback)
            }
        }
    }

    /// The addresses of `resolved` this rule allows, in order; a refusal naming `url`
    /// (redacted) and the first refused address when none is allowed. An empty `resolved` is
    /// returned as is (a failed lookup is the runtime's to report).
    pub fn check(self, url: &str, resolved: &[SocketAddr]) -> Result<Vec<SocketAddr>, UnsafeAddress> {
        let allowed: Vec<SocketAddr> =
            resolved.iter().copied().filter(|a| self.permits(classify(a.ip()))).collect();
        match resolved.first() {
            Some(first) if allowed.is_empty() => Err(UnsafeAddress::new(url, first.ip())),
            _ => Ok(allowed),
        }
    }
}

/// An HTTP request refused because every address its host resolved to is outside the
/// request's [`Destination`] (a private, link-local, unspecified or, for a remote MCP server,
/// loopback address).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("refusing to connect to {url}: it resolves to {address}, a {class} address")]
pub struct UnsafeAddress {
    /// The URL, redacted and clipped.
    pub url: String,
    /// The (first) refused address.
    pub address: IpAddr,
    /// Its class.
    pub class: AddressClass,
}

impl UnsafeAddress {
    /// The refusal of `address` for `url` (redacted here).
    pub fn new(url: &str, address: IpAddr) -> Self {
        let url = crate::redact::redact_url(url).chars().take(200).collect();
        Self { url, address, class: classify(address) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addrs(list: &[&str]) -> Vec<SocketAddr> {
        list.iter().map(|ip| SocketAddr::new(ip.parse().unwrap(), 443)).collect()
    }

    #[test]
    fn a_mix_keeps_only_the_allowed_addresses_in_order() {
        let rule = Destination::Public { loopback: false };
        let resolved = addrs(&["10.0.0.1", "93.184.216.34", "127.0.0.1", "2606:4700::1111", "fe80::1"]);
        assert_eq!(
            rule.check("https://as.example/x", &resolved).unwrap(),
            addrs(&["93.184.216.34", "2606:4700::1111"])
        );
    }

    #[test]
    fn none_allowed_names_the_url_address_and_class() {
        let rule = Destination::Public { loopback: false };
        let err = rule
            .check("https://user:pw@auth.internal.test/t?code=1", &addrs(&["10.0.0.1", "169.254.169.254"]));
        let err = err.unwrap_err();
        assert_eq!(err.address, "10.0.0.1".parse::<IpAddr>().unwrap());
        assert_eq!(err.class, AddressClass::Private);
        let shown = err.to_string();
        assert!(
            shown.contains("auth.internal.test") && shown.contains("10.0.0.1") && shown.contains("private"),
            "{shown}"
        );
        assert!(!shown.contains("pw"), "redacted: {shown}");
    }

    #[test]
    fn loopback_only_for_a_loopback_server() {
        let local = addrs(&["127.0.0.1", "::1"]);
        assert_eq!(Destination::Public { loopback: true }.check("http://localhost/", &local).unwrap(), local);
        let err = Destination::Public { loopback: false }.check("http://localhost/", &local).unwrap_err();
        assert_eq!(err.class, AddressClass::Loopback);
        for private in ["10.0.0.1", "fc00::1", "0.0.0.0", "::ffff:192.168.0.1"] {
            assert!(
                Destination::Public { loopback: true }.check("https://x.test/", &addrs(&[private])).is_err(),
                "{private}"
            );
        }
    }

    #[test]
    fn any_allows_everything_and_empty_stays_empty() {
        let all = addrs(&["10.0.0.1", "127.0.0.1", "169.254.169.254"]);
        assert_eq!(Destination::Any.check("https://x.test/", &all).unwrap(), all);
        assert!(Destination::Public { loopback: false }.check("https://x.test/", &[]).unwrap().is_empty());
    }
}
