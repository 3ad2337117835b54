//! What kind of network an IP address belongs to: the one classification used both to judge
//! the host literal of a URL (`oauth/url.rs`) and to judge the address a name resolved to
//! (the runtimes, before they connect).
//!
//! An IPv4 address carried in IPv6 (`::ffff:a.b.c.d` mapped, `::a.b.c.d` compatible,
//! `64:ff9b::a.b.c.d` NAT64) is classified as the IPv4 address it carries, so
//! `[::ffff:10.0.0.1]` is as private as `10.0.0.1`.

use core::fmt;
use core::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// The kind of network an IP address belongs to. Only [`AddressClass::Public`] is reachable
/// on the public internet; an authorization-related fetch to any other class is refused
/// (loopback only allowed when the MCP server itself is on loopback).
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AddressClass {
    /// A globally routable unicast address.
    Public,
    /// This host: `127.0.0.0/8`, `::1`.
    Loopback,
    /// A private network: `10.0.0.0/8`, `172.16.0.0/12`, `192.168.0.0/16`, IPv6 unique local
    /// `fc00::/7`.
    Private,
    /// Carrier-grade NAT shared space `100.64.0.0/10` (RFC 6598).
    SharedNat,
    /// Link-local: `169.254.0.0/16` (cloud metadata services live here), `fe80::/10`.
    LinkLocal,
    /// The unspecified address `0.0.0.0` or `::` (reaches this host on most systems), and the
    /// rest of "this network" `0.0.0.0/8`.
    Unspecified,
    /// Broadcast `255.255.255.255` or multicast (`224.0.0.0/4`, `ff00::/8`).
    Multicast,
    /// Documentation, benchmarking and other special-purpose or reserved ranges that never
    /// name a public server: `192.0.0.0/24`, `192.0.2.0/24`, `198.18.0.0/15`,
    /// `198.51.100.0/24`, `203.0.113.0/24`, `240.0.0.0/4`, `2001:db8::/32`, discard-only
    /// `100::/64`, and the reserved IPv6 space outside `2000::/3`.
    Reserved,
}

impl AddressClass {
    /// Whether the address is reachable on the public internet.
    pub fn is_public(self) -> bool {
        self == Self::Public
    }

    /// A short English name, as used in error messages ("private", "link-local", ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Public => "public",
            Self::Loopback => "loopback",
            Self::Private => "private",
            Self::SharedNat => "shared (carrier-grade NAT)",
            Self::LinkLocal => "link-local",
            Self::Unspecified => "unspecified",
            Self::Multicast => "broadcast or multicast",
            Self::Reserved => "reserved or documentation",
        }
    }
}

impl fmt::Display for AddressClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Classifies an IP address; IPv4 carried in IPv6 (mapped, compatible, NAT64) is classified
/// as the IPv4 address it carries.
pub fn classify(ip: IpAddr) -> AddressClass {
    match ip {
        IpAddr::V4(v4) => classify_v4(v4),
        IpAddr::V6(v6) => classify_v6(v6),
    }
}

fn classify_v4(ip: Ipv4Addr) -> AddressClass {
    let [a, b, c, _] = ip.octets();
    if ip.is_loopback() {
        AddressClass::Loopback
    } else if ip.is_private() {
        AddressClass::Private
    } else if a == 100 && (64..128).contains(&b) {
        AddressClass::SharedNat
    } else if ip.is_link_local() {
        AddressClass::LinkLocal
    } else if a == 0 {
        AddressClass::Unspecified
    } else if ip.is_broadcast() || ip.is_multicast() {
        AddressClass::Multicast
    } else if (a, b, c) == (192, 0, 0) || ip.is_documentation() || (a == 198 && (b & 0xfe) == 18) || a >= 240
    {
        AddressClass::Reserved
    } else {
        AddressClass::Public
    }
}

/// The IPv4 address an IPv6 address carries: mapped `::ffff:0:0/96`, compatible `::/96`
/// (except `::` and `::1`), NAT64 well-known prefix `64:ff9b::/96`.
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = ip.segments();
    let tail = Ipv4Addr::from(((u32::from(s[6])) << 16) | u32::from(s[7]));
    let compatible = s[..6] == [0; 6] && !ip.is_unspecified() && !ip.is_loopback();
    let nat64 = s[..6] == [0x64, 0xff9b, 0, 0, 0, 0];
    ip.to_ipv4_mapped().or((compatible || nat64).then_some(tail))
}

fn classify_v6(ip: Ipv6Addr) -> AddressClass {
    if let Some(v4) = embedded_v4(ip) {
        return classify_v4(v4);
    }
    let s = ip.segments();
    if ip.is_loopback() {
        AddressClass::Loopback
    } else if ip.is_unspecified() {
        AddressClass::Unspecified
    } else if ip.is_multicast() {
        AddressClass::Multicast
    } else if (s[0] & 0xfe00) == 0xfc00 {
        AddressClass::Private
    } else if (s[0] & 0xffc0) == 0xfe80 {
        AddressClass::LinkLocal
    } else if (s[0] & 0xe000) != 0x2000 || (s[0], s[1]) == (0x2001, 0x0db8) {
        // Outside global unicast 2000::/3 (this covers 100::/64, site-local fec0::/10), or
        // documentation.
        AddressClass::Reserved
    } else {
        AddressClass::Public
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(s: &str) -> AddressClass {
        classify(s.parse().unwrap())
    }

    #[test]
    fn ipv4_classes() {
        use AddressClass::*;
        for (ip, want) in [
            ("8.8.8.8", Public),
            ("1.1.1.1", Public),
            ("127.0.0.1", Loopback),
            ("127.255.0.9", Loopback),
            ("10.0.0.1", Private),
            ("172.16.0.1", Private),
            ("172.31.255.255", Private),
            ("172.32.0.1", Public),
            ("192.168.1.1", Private),
            ("100.64.0.1", SharedNat),
            ("100.127.255.255", SharedNat),
            ("100.128.0.1", Public),
            ("169.254.169.254", LinkLocal),
            ("0.0.0.0", Unspecified),
            ("0.1.2.3", Unspecified),
            ("255.255.255.255", Multicast),
            ("224.0.0.1", Multicast),
            ("192.0.2.1", Reserved),
            ("198.51.100.7", Reserved),
            ("203.0.113.9", Reserved),
            ("198.18.0.1", Reserved),
            ("198.19.255.1", Reserved),
            ("192.0.0.8", Reserved),
            ("240.0.0.1", Reserved),
        ] {
            assert_eq!(class(ip), want, "{ip}");
        }
    }

    #[test]
    fn ipv6_classes() {
        use AddressClass::*;
        for (ip, want) in [
            ("2606:4700::1111", Public),
            ("::1", Loopback),
            ("::", Unspecified),
            ("fc00::1", Private),
            ("fd12:3456::1", Private),
            ("fe80::1", LinkLocal),
            ("febf::1", LinkLocal),
            ("ff02::1", Multicast),
            ("2001:db8::1", Reserved),
            ("100::1", Reserved),
            ("fec0::1", Reserved),
            // IPv4 carried in IPv6 is judged as that IPv4 address.
            ("::ffff:10.0.0.1", Private),
            ("::ffff:a00:1", Private),
            ("::ffff:127.0.0.1", Loopback),
            ("::ffff:169.254.169.254", LinkLocal),
            ("::ffff:8.8.8.8", Public),
            ("::10.0.0.1", Private),
            ("::127.0.0.1", Loopback),
            ("64:ff9b::a9fe:a9fe", LinkLocal),
            ("64:ff9b::8.8.8.8", Public),
        ] {
            assert_eq!(class(ip), want, "{ip}");
        }
    }

    #[test]
    fn display_names_the_class() {
        assert_eq!(AddressClass::LinkLocal.to_string(), "link-local");
        assert!(AddressClass::Public.is_public());
        assert!(!AddressClass::Private.is_public());
    }
}
