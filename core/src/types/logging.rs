//! Log message severities.

use std::fmt;
use std::str::FromStr;

use super::DecodeError;

/// Severity of a log message (RFC 5424 syslog levels), ordered from least
/// (`Debug`) to most (`Emergency`) severe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LoggingLevel {
    /// `"debug"`.
    Debug,
    /// `"info"`.
    Info,
    /// `"notice"`.
    Notice,
    /// `"warning"`.
    Warning,
    /// `"error"`.
    Error,
    /// `"critical"`.
    Critical,
    /// `"alert"`.
    Alert,
    /// `"emergency"`.
    Emergency,
}

impl LoggingLevel {
    /// All levels, least severe first.
    pub const ALL: [LoggingLevel; 8] = [
        LoggingLevel::Debug,
        LoggingLevel::Info,
        LoggingLevel::Notice,
        LoggingLevel::Warning,
        LoggingLevel::Error,
        LoggingLevel::Critical,
        LoggingLevel::Alert,
        LoggingLevel::Emergency,
    ];

    /// The wire string, e.g. `"warning"`.
    pub fn as_str(self) -> &'static str {
        match self {
            LoggingLevel::Debug => "debug",
            LoggingLevel::Info => "info",
            LoggingLevel::Notice => "notice",
            LoggingLevel::Warning => "warning",
            LoggingLevel::Error => "error",
            LoggingLevel::Critical => "critical",
            LoggingLevel::Alert => "alert",
            LoggingLevel::Emergency => "emergency",
        }
    }
}

impl FromStr for LoggingLevel {
    type Err = DecodeError;

    /// Parses a wire level string (exact, lowercase).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        LoggingLevel::ALL
            .into_iter()
            .find(|l| l.as_str() == s)
            .ok_or_else(|| DecodeError::new("LoggingLevel", format!("unknown level `{s}`")))
    }
}

impl fmt::Display for LoggingLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for LoggingLevel {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for LoggingLevel {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = <String as serde::Deserialize>::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_print_every_level() {
        for level in LoggingLevel::ALL {
            assert_eq!(level.as_str().parse::<LoggingLevel>().unwrap(), level);
            assert_eq!(level.to_string(), level.as_str());
        }
        assert_eq!("warning".parse::<LoggingLevel>().unwrap(), LoggingLevel::Warning);
    }

    #[test]
    fn unknown_level_is_error() {
        let err = "verbose".parse::<LoggingLevel>().unwrap_err();
        assert_eq!(err.to_string(), "invalid LoggingLevel: unknown level `verbose`");
        assert!("WARNING".parse::<LoggingLevel>().is_err());
    }

    #[test]
    fn ordered_by_severity() {
        assert!(LoggingLevel::Debug < LoggingLevel::Info);
        assert!(LoggingLevel::Warning < LoggingLevel::Error);
        assert!(LoggingLevel::Alert < LoggingLevel::Emergency);
        let mut sorted = LoggingLevel::ALL;
        sorted.sort();
        assert_eq!(sorted, LoggingLevel::ALL);
        assert_eq!(LoggingLevel::ALL.iter().max(), Some(&LoggingLevel::Emergency));
    }

    #[test]
    fn serde_round_trip() {
        let v = serde_json::to_value(LoggingLevel::Critical).unwrap();
        assert_eq!(v, serde_json::json!("critical"));
        let l: LoggingLevel = serde_json::from_value(v).unwrap();
        assert_eq!(l, LoggingLevel::Critical);
        assert!(serde_json::from_value::<LoggingLevel>(serde_json::json!("x")).is_err());
    }
}
