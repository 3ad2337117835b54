//! Protected Resource Metadata (RFC 9728) and authorization server metadata (RFC 8414 / OpenID
//! Connect Discovery), parsed with bounds and validated as MCP requires.

use serde_json::Value;

use crate::http_url::HttpUrl;
use crate::oauth::error::OAuthError;
use crate::oauth::url::{check_endpoint, clip, issuer_matches, resource_covers, MAX_URL_LEN};
use crate::redact::redact_url;

/// Largest metadata document accepted, in bytes.
pub const MAX_METADATA_BYTES: usize = 256 * 1024;
/// Most entries kept from any array in a metadata document (the rest are ignored).
pub const MAX_LIST_ENTRIES: usize = 64;
/// Longest scope or other short string kept from a metadata document.
pub const MAX_SCOPE_LEN: usize = 256;

/// What the flow uses from a Protected Resource Metadata document.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ResourceMetadata {
    /// `resource`: the protected resource's identifier, exactly as published.
    pub resource: String,
    /// `authorization_servers`: issuer identifiers, in the document's order.
    pub authorization_servers: Vec<String>,
    /// `scopes_supported`, when present.
    pub scopes_supported: Option<Vec<String>>,
}

/// What the flow uses from an authorization server metadata document (validated).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AuthServerMetadata {
    /// `issuer`, as the document states it (the value callback `iss` is compared with).
    pub issuer: String,
    /// `authorization_endpoint` (absent for a client-credentials-only server).
    pub authorization_endpoint: Option<String>,
    /// `token_endpoint`.
    pub token_endpoint: String,
    /// `registration_endpoint` (dynamic client registration).
    pub registration_endpoint: Option<String>,
    /// `scopes_supported`.
    pub scopes_supported: Option<Vec<String>>,
    /// `code_challenge_methods_supported`.
    pub code_challenge_methods_supported: Option<Vec<String>>,
    /// `token_endpoint_auth_methods_supported` (RFC 8414 default: `client_secret_basic`).
    pub token_endpoint_auth_methods_supported: Option<Vec<String>>,
    /// `grant_types_supported`.
    pub grant_types_supported: Option<Vec<String>>,
    /// `authorization_response_iss_parameter_supported` (RFC 9207).
    pub iss_parameter_supported: bool,
    /// `client_id_metadata_document_supported`.
    pub client_id_metadata_document_supported: bool,
    /// `dpop_signing_alg_values_supported` (RFC 9449 §5.1): DPoP is supported with these.
    #[serde(default)]
    pub dpop_signing_alg_values_supported: Option<Vec<String>>,
    /// Whether these are the 2025-03-26 default endpoints rather than a fetched document.
    pub defaulted: bool,
}

impl AuthServerMetadata {
    /// The 2025-03-26 fallback when an authorization server publishes no metadata:
    /// `/authorize`, `/token` and `/register` at its origin.
    pub(crate) fn defaults(origin: &str) -> Self {
        Self {
            issuer: origin.to_owned(),
            authorization_endpoint: Some(format!("{origin}/authorize")),
            token_endpoint: format!("{origin}/token"),
            registration_endpoint: Some(format!("{origin}/register")),
            scopes_supported: None,
            code_challenge_methods_supported: Some(vec!["S256".into()]),
            // Unknown: every method this client implements, a public client preferred.
            token_endpoint_auth_methods_supported: Some(
                ["none", "client_secret_basic", "client_secret_post"].map(String::from).to_vec(),
            ),
            grant_types_supported: None,
            iss_parameter_supported: false,
            client_id_metadata_document_supported: false,
            dpop_signing_alg_values_supported: None,
            defaulted: true,
        }
    }

    /// Whether PKCE `S256` is advertised (absent means not supported: MCP clients must refuse).
    pub fn supports_s256(&self) -> bool {
        self.code_challenge_methods_supported.as_ref().is_some_and(|m| m.iter().any(|m| m == "S256"))
    }

    /// Whether the server advertises DPoP with ES256, the algorithm this client signs with.
    pub fn supports_dpop_es256(&self) -> bool {
        self.dpop_signing_alg_values_supported.as_ref().is_some_and(|a| a.iter().any(|a| a == "ES256"))
    }

    /// Whether the server lists `scope` in `scopes_supported`.
    pub fn lists_scope(&self, scope: &str) -> bool {
        self.scopes_supported.as_ref().is_some_and(|s| s.iter().any(|s| s == scope))
    }

    /// The token endpoint authentication methods, RFC 8414's default applied.
    pub fn auth_methods(&self) -> Vec<String> {
        self.token_endpoint_auth_methods_supported
            .clone()
            .unwrap_or_else(|| vec!["client_secret_basic".into()])
    }
}

fn invalid(url: &str, detail: impl Into<String>) -> OAuthError {
    OAuthError::InvalidDocument { url: clip(&redact_url(url), 200), detail: detail.into() }
}

fn parse_object(url: &str, body: &[u8]) -> Result<serde_json::Map<String, Value>, OAuthError> {
    if body.len() > MAX_METADATA_BYTES {
        return Err(invalid(url, format!("larger than {MAX_METADATA_BYTES} bytes")));
    }
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(invalid(url, "not a JSON object")),
        Err(e) => Err(invalid(url, format!("not JSON: {}", clip(&e.to_string(), 100)))),
    }
}

fn string_field(
    url: &str,
    map: &serde_json::Map<String, Value>,
    name: &str,
) -> Result<Option<String>, OAuthError> {
    match map.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.len() <= MAX_URL_LEN => Ok(Some(s.clone())),
        Some(Value::String(_)) => Err(invalid(url, format!("{name} too long"))),
        Some(_) => Err(invalid(url, format!("{name} is not a string"))),
    }
}

/// A bounded list of strings; non-string entries are an error, extra entries are ignored.
fn string_list(
    url: &str,
    map: &serde_json::Map<String, Value>,
    name: &str,
    max_len: usize,
) -> Result<Option<Vec<String>>, OAuthError> {
    match map.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(items)) => items
            .iter()
            .take(MAX_LIST_ENTRIES)
            .map(|v| match v {
                Value::String(s) if s.len() <= max_len => Ok(s.clone()),
                _ => Err(invalid(url, format!("{name} has an invalid entry"))),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
        Some(_) => Err(invalid(url, format!("{name} is not an array"))),
    }
}

fn bool_field(map: &serde_json::Map<String, Value>, name: &str) -> bool {
    matches!(map.get(name), Some(Value::Bool(true)))
}

/// Parses a Protected Resource Metadata document fetched from `url` and checks that it names
/// `server` and at least one authorization server.
pub(crate) fn parse_resource_metadata(
    url: &str,
    body: &[u8],
    server: &HttpUrl,
) -> Result<ResourceMetadata, OAuthError> {
    let map = parse_object(url, body)?;
    let resource = string_field(url, &map, "resource")?.ok_or_else(|| invalid(url, "no resource"))?;
    if !resource_covers(&resource, server) {
        return Err(OAuthError::ResourceMismatch {
            expected: server.redacted(),
            found: clip(&redact_url(&resource), 200),
        });
    }
    let authorization_servers = string_list(url, &map, "authorization_servers", MAX_URL_LEN)?
        .filter(|s| !s.is_empty())
        .ok_or_else(|| invalid(url, "no authorization_servers"))?;
    let scopes_supported = string_list(url, &map, "scopes_supported", MAX_SCOPE_LEN)?;
    Ok(ResourceMetadata { resource, authorization_servers, scopes_supported })
}

/// Parses authorization server metadata fetched for `expected_issuer` from `url`: the `issuer`
/// must match (RFC 8414 §3.3; with `legacy`, the 2025-03-26 discovery at the MCP server's
/// origin, an issuer on that same origin is accepted too: that revision named no issuer), the
/// endpoints must be allowed URLs, and, for the authorization code grant, PKCE `S256` must be
/// advertised.
pub(crate) fn parse_auth_server_metadata(
    url: &str,
    body: &[u8],
    expected_issuer: &str,
    destination: crate::Destination,
    needs_pkce: bool,
    legacy: bool,
) -> Result<AuthServerMetadata, OAuthError> {
    let map = parse_object(url, body)?;
    let issuer = string_field(url, &map, "issuer")?.ok_or_else(|| invalid(url, "no issuer"))?;
    let same_origin = || {
        let origin = |u: &str| crate::http_url::HttpUrl::parse(u).ok().map(|u| u.origin());
        origin(&issuer).is_some_and(|o| Some(o) == origin(expected_issuer))
    };
    let accepted = issuer_matches(expected_issuer, &issuer) || (legacy && same_origin());
    if !accepted {
        return Err(OAuthError::MetadataIssuerMismatch {
            expected: clip(expected_issuer, 200),
            found: clip(&issuer, 200),
        });
    }
    let endpoint = |name: &str| -> Result<Option<String>, OAuthError> {
        match string_field(url, &map, name)? {
            Some(e) => check_endpoint(&e, destination).map(|u| Some(u.as_str().to_owned())),
            None => Ok(None),
        }
    };
    let authorization_endpoint = endpoint("authorization_endpoint")?;
    let token_endpoint = endpoint("token_endpoint")?.ok_or_else(|| OAuthError::MissingEndpoint {
        issuer: clip(&issuer, 200),
        endpoint: "token_endpoint",
    })?;
    let meta = AuthServerMetadata {
        authorization_endpoint,
        token_endpoint,
        registration_endpoint: endpoint("registration_endpoint")?,
        scopes_supported: string_list(url, &map, "scopes_supported", MAX_SCOPE_LEN)?,
        code_challenge_methods_supported: string_list(url, &map, "code_challenge_methods_supported", 64)?,
        token_endpoint_auth_methods_supported: string_list(
            url,
            &map,
            "token_endpoint_auth_methods_supported",
            64,
        )?,
        grant_types_supported: string_list(url, &map, "grant_types_supported", 128)?,
        iss_parameter_supported: bool_field(&map, "authorization_response_iss_parameter_supported"),
        client_id_metadata_document_supported: bool_field(&map, "client_id_metadata_document_supported"),
        dpop_signing_alg_values_supported: string_list(url, &map, "dpop_signing_alg_values_supported", 64)?,
        defaulted: false,
        issuer,
    };
    if needs_pkce {
        if meta.authorization_endpoint.is_none() {
            return Err(OAuthError::MissingEndpoint {
                issuer: clip(&meta.issuer, 200),
                endpoint: "authorization_endpoint",
            });
        }
        if !meta.supports_s256() {
            return Err(OAuthError::PkceNotSupported { issuer: clip(&meta.issuer, 200) });
        }
    }
    Ok(meta)
}

#[cfg(test)]
mod tests {
    use super::*;

    const REMOTE: crate::Destination = crate::Destination::Public { loopback: false };

    const AS: &str = "https://as.example";

    fn as_doc(extra: &str) -> Vec<u8> {
        format!(
            r#"{{"issuer":"{AS}","authorization_endpoint":"{AS}/authorize","token_endpoint":"{AS}/token",
            "code_challenge_methods_supported":["S256"]{extra}}}"#
        )
        .into_bytes()
    }

    #[test]
    fn resource_metadata_is_validated() {
        let server = HttpUrl::parse("https://mcp.example/mcp").unwrap();
        let ok = br#"{"resource":"https://mcp.example/mcp","authorization_servers":["https://as.example"],"scopes_supported":["a","b"]}"#;
        let m = parse_resource_metadata("u", ok, &server).unwrap();
        assert_eq!(m.authorization_servers, ["https://as.example"]);
        assert_eq!(m.scopes_supported.as_deref(), Some(&["a".to_owned(), "b".to_owned()][..]));
        let evil =
            br#"{"resource":"https://evil.example.com/mcp","authorization_servers":["https://as.example"]}"#;
        assert!(matches!(
            parse_resource_metadata("u", evil, &server),
            Err(OAuthError::ResourceMismatch { .. })
        ));
        for bad in [
            &br#"{"resource":"https://mcp.example/mcp","authorization_servers":[]}"#[..],
            br#"{"resource":"https://mcp.example/mcp"}"#,
            br#"{"authorization_servers":["x"]}"#,
            br#"{"resource":"https://mcp.example/mcp","authorization_servers":[1]}"#,
            br#"[]"#,
            b"not json",
        ] {
            assert!(parse_resource_metadata("u", bad, &server).is_err());
        }
        let huge = vec![b' '; MAX_METADATA_BYTES + 1];
        assert!(parse_resource_metadata("u", &huge, &server).is_err());
    }

    #[test]
    fn auth_server_metadata_rules() {
        let m = parse_auth_server_metadata("u", &as_doc(""), AS, REMOTE, true, false).unwrap();
        assert_eq!(m.token_endpoint, "https://as.example/token");
        assert_eq!(m.auth_methods(), ["client_secret_basic"]);
        assert!(!m.iss_parameter_supported);
        // Trailing slash on the issuer is the same issuer.
        assert!(
            parse_auth_server_metadata("u", &as_doc(""), "https://as.example/", REMOTE, true, false).is_ok()
        );
        let e = parse_auth_server_metadata("u", &as_doc(""), "https://other.example", REMOTE, true, false);
        assert!(matches!(e, Err(OAuthError::MetadataIssuerMismatch { .. })));
    }

    #[test]
    fn pkce_is_required_for_the_code_grant() {
        let no_pkce = br#"{"issuer":"https://as.example","authorization_endpoint":"https://as.example/a","token_endpoint":"https://as.example/t"}"#;
        let e = parse_auth_server_metadata("u", no_pkce, AS, REMOTE, true, false);
        assert!(matches!(e, Err(OAuthError::PkceNotSupported { .. })));
        assert!(
            parse_auth_server_metadata("u", no_pkce, AS, REMOTE, false, false).is_ok(),
            "client credentials"
        );
        let plain = String::from_utf8(as_doc("")).unwrap().replace("\"S256\"", "\"plain\"");
        assert!(parse_auth_server_metadata("u", plain.as_bytes(), AS, REMOTE, true, false).is_err());
    }

    #[test]
    fn endpoints_must_be_safe() {
        let doc = br#"{"issuer":"https://as.example","authorization_endpoint":"https://as.example/a","token_endpoint":"http://as.example/t","code_challenge_methods_supported":["S256"]}"#;
        assert!(matches!(
            parse_auth_server_metadata("u", doc, AS, REMOTE, true, false),
            Err(OAuthError::UnsafeUrl { .. })
        ));
        let doc = br#"{"issuer":"https://as.example","authorization_endpoint":"https://as.example/a","token_endpoint":"https://169.254.169.254/t","code_challenge_methods_supported":["S256"]}"#;
        assert!(parse_auth_server_metadata("u", doc, AS, REMOTE, true, false).is_err());
    }

    #[test]
    fn legacy_discovery_accepts_an_issuer_on_the_same_origin_only() {
        let doc = format!(
            r#"{{"issuer":"{AS}/oauth","authorization_endpoint":"{AS}/authorize","token_endpoint":"{AS}/token",
            "code_challenge_methods_supported":["S256"]}}"#
        );
        let strict = parse_auth_server_metadata("u", doc.as_bytes(), AS, REMOTE, true, false);
        assert!(matches!(strict, Err(OAuthError::MetadataIssuerMismatch { .. })));
        let m = parse_auth_server_metadata("u", doc.as_bytes(), AS, REMOTE, true, true).unwrap();
        assert_eq!(m.issuer, format!("{AS}/oauth"));
        let elsewhere = r#"{"issuer":"https://evil.example","token_endpoint":"https://evil.example/token",
            "code_challenge_methods_supported":["S256"]}"#;
        let e = parse_auth_server_metadata("u", elsewhere.as_bytes(), AS, REMOTE, true, true);
        assert!(matches!(e, Err(OAuthError::MetadataIssuerMismatch { .. })));
    }

    #[test]
    fn flags_and_lists() {
        let m = parse_auth_server_metadata(
            "u",
            &as_doc(r#","authorization_response_iss_parameter_supported":true,"client_id_metadata_document_supported":true,"scopes_supported":["offline_access"]"#),
            AS,
            REMOTE,
            true,
            false,
        )
        .unwrap();
        assert!(m.iss_parameter_supported && m.client_id_metadata_document_supported);
        assert!(m.lists_scope("offline_access"));
        let many: Vec<String> = (0..500).map(|i| format!("\"s{i}\"")).collect();
        let m = parse_auth_server_metadata(
            "u",
            &as_doc(&format!(r#","scopes_supported":[{}]"#, many.join(","))),
            AS,
            REMOTE,
            true,
            false,
        )
        .unwrap();
        assert_eq!(m.scopes_supported.unwrap().len(), MAX_LIST_ENTRIES);
    }
}
