use super::*;
use crate::config::{LEGACY_VERSIONS, MODERN_VERSION};

/// The registry of deprecated features of MCP 2026-07-28, row by row: feature, change,
/// deprecated in, earliest removal (as the registry words it).
const REGISTRY: [(&str, &str, &str, &str); 6] = [
    ("Roots", "SEP-2577", "2026-07-28", "First revision released on or after 2027-07-28"),
    ("Sampling", "SEP-2577", "2026-07-28", "First revision released on or after 2027-07-28"),
    ("Logging", "SEP-2577", "2026-07-28", "First revision released on or after 2027-07-28"),
    (
        "Dynamic Client Registration",
        "PR #2858",
        "2026-07-28",
        "First revision released on or after 2027-07-28",
    ),
    ("includeContext \"thisServer\" / \"allServers\"", "SEP-2596", "2025-11-25", "Follows Sampling"),
    ("HTTP+SSE transport", "SEP-2596", "2025-03-26", "Three months after SEP-2596 reaches Final"),
];

/// Every variant, by an exhaustive match: a new variant fails to compile here until it is
/// given a place in the table.
fn position(d: Deprecation) -> usize {
    match d {
        Deprecation::Roots => 0,
        Deprecation::Sampling => 1,
        Deprecation::Logging => 2,
        Deprecation::DynamicClientRegistration => 3,
        Deprecation::SamplingIncludeContext => 4,
        Deprecation::HttpSseTransport => 5,
    }
}

/// The registry's wording of a removal rule.
fn registry_wording(removal: Removal) -> String {
    match removal {
        Removal::OnOrAfter(date) => format!("First revision released on or after {date}"),
        Removal::WithFeature(other) => format!("Follows {}", other.feature()),
        Removal::MonthsAfterFinal { change, months: 3 } => {
            format!("Three months after {change} reaches Final")
        }
        Removal::MonthsAfterFinal { change, months } => {
            format!("{months} months after {change} reaches Final")
        }
    }
}

/// `YYYY-MM-DD` as (year, month, day).
fn date(s: &str) -> (u32, u32, u32) {
    let parts: Vec<u32> = s.split('-').map(|p| p.parse().expect("numeric date part")).collect();
    assert_eq!(parts.len(), 3, "{s}");
    (parts[0], parts[1], parts[2])
}

#[test]
fn the_table_lists_every_registry_row_in_order() {
    assert_eq!(Deprecation::ALL.len(), REGISTRY.len());
    for (i, d) in Deprecation::ALL.iter().enumerate() {
        assert_eq!(position(*d), i, "{d:?} out of place in ALL");
        let (feature, change, since, removal) = REGISTRY[i];
        assert_eq!(d.feature(), feature);
        assert_eq!(d.change(), change, "{d:?}");
        assert_eq!(d.deprecated_in(), since, "{d:?}");
        assert_eq!(registry_wording(d.removal()), removal, "{d:?}");
    }
}

#[test]
fn the_table_is_consistent() {
    let revisions: Vec<&str> = std::iter::once(MODERN_VERSION).chain(LEGACY_VERSIONS).collect();
    let mut bits = 0u32;
    for d in Deprecation::ALL {
        assert!(revisions.contains(&d.deprecated_in()), "{d:?}: unknown revision");
        assert!(d.deprecated_in() <= MODERN_VERSION, "{d:?}");
        assert_eq!(bits & d.bit(), 0, "{d:?} shares a bit");
        bits |= d.bit();
        // The notice names when, and says what to do instead.
        let notice = d.notice();
        assert!(notice.contains(d.deprecated_in()), "{d:?}: {notice}");
        assert!(notice.contains("instead") || notice.contains("should move"), "{d:?}: {notice}");
        assert!(!d.replacement().is_empty() && !d.surface().is_empty());
        assert_eq!(d.to_string(), d.feature());
        match d.removal() {
            // The policy's window: at least twelve months after the deprecating revision.
            Removal::OnOrAfter(at) => {
                let (y, m, day) = date(at);
                let (sy, sm, sd) = date(d.deprecated_in());
                assert!((y, m, day) >= (sy + 1, sm, sd), "{d:?}: removal before the 12-month window");
                assert_eq!(d.earliest_removal(), Some(at));
            }
            // A feature that follows another follows one with a date of its own.
            Removal::WithFeature(other) => {
                assert!(matches!(other.removal(), Removal::OnOrAfter(_)), "{d:?}");
                assert_eq!(d.earliest_removal(), other.earliest_removal());
            }
            Removal::MonthsAfterFinal { .. } => assert_eq!(d.earliest_removal(), None),
        }
    }
    assert_eq!(bits.count_ones() as usize, Deprecation::ALL.len());
}

#[test]
fn removal_rules_read_as_sentences() {
    assert_eq!(
        Deprecation::Roots.removal().to_string(),
        "the first revision released on or after 2027-07-28"
    );
    assert_eq!(Deprecation::SamplingIncludeContext.removal().to_string(), "no later than Sampling");
    assert_eq!(Deprecation::HttpSseTransport.removal().to_string(), "3 months after SEP-2596 reaches Final");
}

#[test]
fn per_connection_reports_each_feature_once() {
    let mut seen = Reported::default();
    for d in Deprecation::ALL {
        assert!(seen.due(DeprecationNotices::PerConnection, d), "{d:?} first time");
    }
    for d in Deprecation::ALL {
        assert!(!seen.due(DeprecationNotices::PerConnection, d), "{d:?} again");
    }
    // Another connection has its own count.
    assert!(Reported::default().due(DeprecationNotices::PerConnection, Deprecation::Logging));
}

#[test]
fn off_reports_nothing_and_remembers_nothing() {
    let mut seen = Reported::default();
    for d in Deprecation::ALL {
        assert!(!seen.due(DeprecationNotices::Off, d));
    }
    assert_eq!(seen, Reported::default());
    // Turned on later, the feature is still due once.
    assert!(seen.due(DeprecationNotices::PerConnection, Deprecation::Roots));
}

#[test]
fn modes_survive_the_atomic_encoding() {
    for mode in [DeprecationNotices::PerProcess, DeprecationNotices::PerConnection, DeprecationNotices::Off] {
        assert_eq!(DeprecationNotices::from_u8(mode.to_u8()), mode);
    }
    assert_eq!(DeprecationNotices::from_u8(200), DeprecationNotices::PerProcess);
    assert_eq!(DeprecationNotices::default(), DeprecationNotices::PerProcess);
}

#[cfg(feature = "oauth")]
#[test]
fn only_dynamic_registration_is_a_deprecated_auth_notice() {
    use crate::oauth::AuthNotice;
    let issuer = "https://as.example".to_owned();
    assert_eq!(
        AuthNotice::DynamicClientRegistration { issuer: issuer.clone() }.deprecation(),
        Some(Deprecation::DynamicClientRegistration)
    );
    assert_eq!(AuthNotice::LegacyDiscovery { issuer: issuer.clone() }.deprecation(), None);
    assert_eq!(AuthNotice::DefaultEndpoints { issuer }.deprecation(), None);
}
