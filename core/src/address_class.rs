//! What kind of network an IP address belongs to, for the rule of which addresses an
//! OAuth-related fetch may connect to ([`crate::Destination`]).

use core::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// The class of an IP address. An IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) has the class
/// of its IPv4 address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub enum AddressClass {
    /// Reachable on the public internet (none of the classes below).
    Public,
    /// The host itself: `127.0.0.0/8`, `::1`.
    Loopback,
    /// A private network: `10/8`, `172.16/12`, `192.168/16`, the shared address space
    /// `100.64/10`, unique local `fc00::/7`.
    Private,
    /// Link-local: `169.254/16` (cloud metadata services live here), `fe80::/10`.
    LinkLocal,
    /// "This host" or "this network": `0.0.0.0/8`, `::`.
    Unspecified,
    /// Multicast: `224/4`, `ff00::/8`.
    Multicast,
    /// The limited broadcast address `255.255.255.255`.
    Broadcast,
}

impl AddressClass {
    /// The class's name as written in messages (`"link-local"`, `"private"`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Public => "public",
            Self::Loopback => "loopback",
            Self::Private => "private",
            Self::LinkLocal => "link-local",
            Self::Unspecified => "unspecified",
            Self::Multicast => "multicast",
            Self::Broadcast => "broadcast",
        }
    }
}

impl core::fmt::Display for AddressClass {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The class of `ip`.
pub fn classify(ip: IpAddr) -> AddressClass {
    match ip {
        IpAddr::V4(v4) => classify_v4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => classify_v4(v4),
            None => classify_v6(v6),
        },
    }
}

fn classify_v4(ip: Ipv4Addr) -> AddressClass {
    let [a, b, ..] = ip.octets();
    if ip.is_loopback() {
        AddressClass::Loopback
    } else if a == 0 {
        AddressClass::Unspecified
    } else if ip.is_private() || (a == 100 && (64..128).contains(&b)) {
        AddressClass::Private
    } else if ip.is_link_local() {
        AddressClass::LinkLocal
    } else if ip.is_broadcast() {
        AddressClass::Broadcast
    } else if ip.is_multicast() {
        AddressClass::Multicast
    } else {
        AddressClass::Public
    }
}

fn classify_v6(ip: Ipv6Addr) -> AddressClass {
    let first = ip.segments()[0];
    if ip.is_loopback() {
        AddressClass::Loopback
    } else if ip.is_unspecified() {
        AddressClass::Unspecified
    } else if ip.is_multicast() {
        AddressClass::Multicast
    } else if (first & 0xfe00) == 0xfc00 {
        AddressClass::Private
    } else if (first & 0xffc0) == 0xfe80 {
        AddressClass::LinkLocal
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
    fn classes() {
        use AddressClass::*;
        for (ip, expected) in [
            ("93.184.216.34", Public),
            ("2606:4700::1111", Public),
            ("127.0.0.1", Loopback),
            ("127.9.9.9", Loopback),
            ("::1", Loopback),
            ("::ffff:127.0.0.1", Loopback),
            ("10.0.0.1", Private),
            ("172.16.0.1", Private),
            ("192.168.1.1", Private),
            ("100.64.0.1", Private),
            ("fc00::1", Private),
            ("fd12::1", Private),
            ("::ffff:10.0.0.1", Private),
            ("169.254.169.254", LinkLocal),
            ("fe80::1", LinkLocal),
            ("0.0.0.0", Unspecified),
            ("0.1.2.3", Unspecified),
            ("::", Unspecified),
            ("224.0.0.1", Multicast),
            ("ff02::1", Multicast),
            ("255.255.255.255", Broadcast),
            ("100.128.0.1", Public),
        ] {
            assert_eq!(class(ip), expected, "{ip}");
        }
    }

    #[test]
    fn display_names_the_class() {
        assert_eq!(AddressClass::LinkLocal.to_string(), "link-local");
        assert_eq!(AddressClass::Private.to_string(), "private");
    }
}
