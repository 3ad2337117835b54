//! Era detection: the `server/discover` probe and the legacy `initialize` handshake judged.
//!
//! The rules follow `basic/versioning.mdx` and `basic/transports/stdio.mdx` of 2026-07-28: a
//! `DiscoverResult` or a recognised modern error means modern; any other error, or silence until
//! the discover timeout, means legacy (never keyed to one error code).

use serde_json::{json, Map, Value};

use crate::config::{ClientFeatures, ProtocolMode, LEGACY_VERSIONS, MODERN_VERSION};
use crate::connection::cache::CacheScope;
use crate::era::{Era, ServerInfo};
use crate::error::{RequestError, RpcError, RpcErrorKind};
use crate::text::sanitize;
use crate::types::{DiscoverResult, Implementation, InitializeResult, ServerCapabilities};

/// How the probe ended.
#[derive(Debug)]
pub(crate) enum ProbeOutcome {
    Result(Value),
    Error(RpcError),
    Timeout,
}

/// What to do after the probe.
// Short-lived (one per probe answer): its size does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub(crate) enum ProbeVerdict {
    Modern(ServerInfo),
    /// Fall back to `initialize`.
    Legacy,
    /// The server rejected the version it says it supports (`-32022` listing 2026-07-28):
    /// send the probe again, once.
    Retry,
    Fail(RequestError),
}

pub(crate) fn judge_probe(mode: ProtocolMode, outcome: ProbeOutcome) -> ProbeVerdict {
    let legacy_or_fail = |why: String| match mode {
        ProtocolMode::Modern => ProbeVerdict::Fail(RequestError::ModernRequired { detail: why }),
        _ => ProbeVerdict::Legacy,
    };
    match outcome {
        ProbeOutcome::Result(value) => match DiscoverResult::from_value(value) {
            Ok(d) if d.supported_versions.iter().any(|v| v == MODERN_VERSION) => {
                ProbeVerdict::Modern(ServerInfo {
                    era: Era::Modern,
                    protocol_version: MODERN_VERSION.into(),
                    implementation: d.server_info.clone(),
                    capabilities: d.capabilities.clone(),
                    instructions: d.instructions.clone(),
                    supported_versions: d.supported_versions.clone(),
                    transport: crate::transport::TransportKind::Stdio,
                })
            }
            Ok(d) => no_common_version(mode, d.supported_versions),
            Err(e) => legacy_or_fail(format!("server/discover returned an unusable result ({e})")),
        },
        ProbeOutcome::Error(e) if e.kind() == RpcErrorKind::UnsupportedProtocolVersion => {
            let supported = e.supported_versions();
            if supported.iter().any(|v| v == MODERN_VERSION) {
                ProbeVerdict::Retry
            } else {
                no_common_version(mode, supported)
            }
        }
        ProbeOutcome::Error(e) if e.is_modern_error() => ProbeVerdict::Modern(ServerInfo {
            era: Era::Modern,
            protocol_version: MODERN_VERSION.into(),
            implementation: None,
            capabilities: ServerCapabilities::unknown(),
            instructions: None,
            supported_versions: vec![MODERN_VERSION.into()],
            transport: crate::transport::TransportKind::Stdio,
        }),
        ProbeOutcome::Error(e) => {
            legacy_or_fail(format!("server/discover failed with {} {}", e.code, sanitize(&e.message, 500)))
        }
        ProbeOutcome::Timeout => legacy_or_fail("server/discover got no answer in time".into()),
    }
}

/// A modern server that does not list 2026-07-28: if it lists a legacy revision we speak, the
/// handshake is the way in (unless the host demanded modern); otherwise there is nothing to speak.
fn no_common_version(mode: ProtocolMode, server: Vec<String>) -> ProbeVerdict {
    let legacy_ok = server.iter().any(|v| LEGACY_VERSIONS.contains(&v.as_str()));
    if legacy_ok && mode == ProtocolMode::Auto {
        return ProbeVerdict::Legacy;
    }
    let mut client = vec![MODERN_VERSION.to_string()];
    if mode != ProtocolMode::Modern {
        client.extend(LEGACY_VERSIONS.iter().map(|v| v.to_string()));
    }
    ProbeVerdict::Fail(RequestError::NoCommonVersion { server, client })
}

/// The params of the legacy `initialize` request.
pub(crate) fn initialize_params(client_info: &Implementation, features: &ClientFeatures) -> Value {
    json!({
        "protocolVersion": LEGACY_VERSIONS[0],
        "capabilities": features.legacy_capabilities(),
        "clientInfo": client_info.to_value(),
    })
}

/// Checks the `initialize` result.
pub(crate) fn judge_initialize(result: Value) -> Result<ServerInfo, RequestError> {
    let init = InitializeResult::from_value(result)
        .map_err(|e| RequestError::Handshake { detail: e.to_string() })?;
    if !LEGACY_VERSIONS.contains(&init.protocol_version.as_str()) {
        return Err(RequestError::UnsupportedProtocolVersion {
            offered: LEGACY_VERSIONS[0].into(),
            answered: sanitize(&init.protocol_version, 100),
        });
    }
    Ok(ServerInfo {
        era: Era::Legacy,
        protocol_version: init.protocol_version,
        implementation: init.server_info,
        capabilities: init.capabilities,
        instructions: init.instructions,
        supported_versions: Vec::new(),
        transport: crate::transport::TransportKind::Stdio,
    })
}

/// The caching hints of a `server/discover` result: its `ttlMs` (absent, negative or malformed:
/// `0`, stale at once) and its `cacheScope`.
pub(crate) fn discover_hints(result: &Value) -> (u64, CacheScope) {
    let ttl = crate::types::ttl_hint(result.get("ttlMs")).unwrap_or(0);
    (ttl, CacheScope::from_hint(result.get("cacheScope").and_then(Value::as_str)))
}

/// A later `server/discover` answer of a modern server: the info it now gives (era, revision and
/// transport unchanged) with its caching hints. A server that no longer lists 2026-07-28 is
/// [`RequestError::NoCommonVersion`].
pub(crate) fn judge_rediscover(
    current: &ServerInfo,
    result: Value,
) -> Result<(ServerInfo, u64, CacheScope), RequestError> {
    let (ttl, scope) = discover_hints(&result);
    let d = DiscoverResult::from_value(result)
        .map_err(|e| RequestError::InvalidResponse { detail: e.to_string() })?;
    if !d.supported_versions.iter().any(|v| v == MODERN_VERSION) {
        let client = vec![MODERN_VERSION.to_owned()];
        return Err(RequestError::NoCommonVersion { server: d.supported_versions, client });
    }
    let info = ServerInfo {
        era: current.era,
        protocol_version: current.protocol_version.clone(),
        implementation: d.server_info,
        capabilities: d.capabilities,
        instructions: d.instructions,
        supported_versions: d.supported_versions,
        transport: current.transport,
    };
    Ok((info, ttl, scope))
}

/// The `_meta` envelope every modern request carries.
pub(crate) fn modern_meta(client_info: &Implementation, features: &ClientFeatures) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("io.modelcontextprotocol/protocolVersion".into(), Value::String(MODERN_VERSION.into()));
    m.insert("io.modelcontextprotocol/clientInfo".into(), client_info.to_value());
    m.insert("io.modelcontextprotocol/clientCapabilities".into(), features.modern_capabilities());
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    fn discover(versions: &[&str]) -> Value {
        json!({"resultType":"complete","supportedVersions":versions,"capabilities":{"tools":{}},
               "ttlMs":0,"cacheScope":"private",
               "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}})
    }

    fn err(code: i64, data: Option<Value>) -> ProbeOutcome {
        ProbeOutcome::Error(RpcError { code, message: "m".into(), data })
    }

    #[test]
    fn discover_result_means_modern() {
        let ProbeVerdict::Modern(info) =
            judge_probe(ProtocolMode::Auto, ProbeOutcome::Result(discover(&["2026-07-28"])))
        else {
            panic!()
        };
        assert_eq!(info.era, Era::Modern);
        assert_eq!(info.implementation.unwrap().name, "s");
    }

    #[test]
    fn any_other_error_or_silence_means_legacy() {
        for outcome in [err(-32601, None), err(-32602, None), err(-32000, None), ProbeOutcome::Timeout] {
            assert!(matches!(judge_probe(ProtocolMode::Auto, outcome), ProbeVerdict::Legacy));
        }
    }

    #[test]
    fn modern_mode_refuses_legacy_servers() {
        assert!(matches!(
            judge_probe(ProtocolMode::Modern, err(-32601, None)),
            ProbeVerdict::Fail(RequestError::ModernRequired { .. })
        ));
    }

    #[test]
    fn unsupported_version_error_is_modern_not_fallback() {
        let v = judge_probe(ProtocolMode::Modern, err(-32022, Some(json!({"supported":["2099-01-01"]}))));
        assert!(matches!(v, ProbeVerdict::Fail(RequestError::NoCommonVersion { .. })));
        let v = judge_probe(ProtocolMode::Auto, err(-32022, Some(json!({"supported":["2025-11-25"]}))));
        assert!(matches!(v, ProbeVerdict::Legacy));
        let v = judge_probe(ProtocolMode::Auto, ProbeOutcome::Result(discover(&["2099-01-01"])));
        assert!(matches!(v, ProbeVerdict::Fail(RequestError::NoCommonVersion { .. })));
    }

    #[test]
    fn other_modern_errors_mean_modern() {
        assert!(matches!(judge_probe(ProtocolMode::Auto, err(-32020, None)), ProbeVerdict::Modern(_)));
        assert!(matches!(judge_probe(ProtocolMode::Auto, err(-32021, None)), ProbeVerdict::Modern(_)));
    }

    #[test]
    fn discover_hints_default_to_stale_and_private() {
        assert_eq!(discover_hints(&discover(&["2026-07-28"])), (0, CacheScope::Private));
        let v = json!({"ttlMs": 5000, "cacheScope": "public"});
        assert_eq!(discover_hints(&v), (5000, CacheScope::Public));
        for v in [json!({}), json!({"ttlMs": -3, "cacheScope": "shared"}), json!({"ttlMs": "9"})] {
            assert_eq!(discover_hints(&v), (0, CacheScope::Private), "{v}");
        }
    }

    #[test]
    fn a_rediscover_replaces_what_the_server_says_and_keeps_the_session() {
        let ProbeVerdict::Modern(first) =
            judge_probe(ProtocolMode::Auto, ProbeOutcome::Result(discover(&["2026-07-28"])))
        else {
            panic!()
        };
        let mut later = discover(&["2026-07-28"]);
        later["capabilities"] = json!({"prompts": {}});
        later["ttlMs"] = json!(60_000);
        let (info, ttl, scope) = judge_rediscover(&first, later).unwrap();
        assert_eq!((ttl, scope), (60_000, CacheScope::Private));
        assert!(info.capabilities.prompts().is_some() && info.capabilities.tools().is_none());
        assert_eq!((info.era, info.transport), (first.era, first.transport));
        let e = judge_rediscover(&first, discover(&["2099-01-01"])).unwrap_err();
        assert!(matches!(e, RequestError::NoCommonVersion { .. }), "{e:?}");
        let e = judge_rediscover(&first, json!({"nope": 1})).unwrap_err();
        assert!(matches!(e, RequestError::InvalidResponse { .. }), "{e:?}");
    }

    #[test]
    fn initialize_accepts_every_legacy_revision_only() {
        for v in LEGACY_VERSIONS {
            let r =
                json!({"protocolVersion": v, "capabilities": {}, "serverInfo": {"name":"x","version":"1"}});
            assert_eq!(judge_initialize(r).unwrap().protocol_version, v);
        }
        let r = json!({"protocolVersion": "1999-01-01", "capabilities": {}, "serverInfo": {"name":"x","version":"1"}});
        assert_eq!(
            judge_initialize(r),
            Err(RequestError::UnsupportedProtocolVersion {
                offered: "2025-11-25".into(),
                answered: "1999-01-01".into()
            })
        );
    }
}
