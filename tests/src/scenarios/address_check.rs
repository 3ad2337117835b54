//! Address-check scenarios, written once for every runtime: an OAuth-related fetch whose host
//! resolves (through `HttpClientConfig::resolve`, the resolver hook every runtime honours) to
//! an address outside the flow's rule is refused before connecting, with a typed error naming
//! the URL, the address and its class; `OAuthOptions::allow_private_addresses` lifts the rule.
//! The glue module `rt` is the one described in `scenarios.rs`.
//!
//! The servers are scripted (`scripted_http.rs`) and answer from the `Host` they were asked
//! for: `401` with a `resource_metadata` hint on `/mcp` until a bearer token comes, the
//! Protected Resource Metadata, authorization server metadata (client credentials) and a
//! token endpoint. `tests/fixtures/tls/names`: a test CA (`ca.pem`, its key discarded) and a
//! certificate for `mcp.example.test` valid until 2126, made with `openssl` from `ca.cnf` and
//! `server.cnf` (EC P-256), as in `tests/fixtures/tls`.

use serde_json::{json, Value};

use crate::support::scripted_http::{modern_tool_server, Reply, SeenRequest};

/// The test CA that signed the `mcp.example.test` certificate.
pub const NAMES_CA: &[u8] = include_bytes!("../../fixtures/tls/names/ca.pem");
/// The `mcp.example.test` certificate.
pub const NAMES_CERT: &[u8] = include_bytes!("../../fixtures/tls/names/server.pem");
/// Its key.
pub const NAMES_KEY: &[u8] = include_bytes!("../../fixtures/tls/names/server.key");
/// The access token the scripted authorization server issues.
pub const TOKEN: &str = "address-check-token";

/// A protected MCP server (at `/mcp`) and its own authorization server when `issuer` is
/// `None`, else Protected Resource Metadata naming `issuer`. `scheme` is the server's own.
pub fn protected_server(
    scheme: &'static str,
    issuer: Option<&str>,
) -> impl Fn(&SeenRequest) -> Reply + Send + Sync {
    let issuer = issuer.map(str::to_owned);
    let tools = modern_tool_server("signed in");
    move |req: &SeenRequest| {
        let origin = format!("{scheme}://{}", req.header("host").unwrap_or_default());
        let path = req.target.split('?').next().unwrap_or_default();
        if path.starts_with("/.well-known/oauth-protected-resource") {
            let issuer = issuer.clone().unwrap_or_else(|| origin.clone());
            return Reply::json(
                &json!({"resource": format!("{origin}/mcp"), "authorization_servers": [issuer]}),
            );
        }
        match path {
            "/.well-known/oauth-authorization-server" => Reply::json(&as_metadata(&origin)),
            "/token" => {
                Reply::json(&json!({"access_token": TOKEN, "token_type": "Bearer", "expires_in": 3600}))
            }
            _ if req.header("authorization") == Some(&format!("Bearer {TOKEN}")) => tools(req),
            _ => {
                let challenge =
                    format!("Bearer resource_metadata=\"{origin}/.well-known/oauth-protected-resource/mcp\"");
                Reply::fixed(401, &[("www-authenticate", &challenge)], b"")
            }
        }
    }
}

fn as_metadata(issuer: &str) -> Value {
    json!({
        "issuer": issuer,
        "token_endpoint": format!("{issuer}/token"),
        "grant_types_supported": ["client_credentials"],
        "token_endpoint_auth_methods_supported": ["client_secret_basic"],
        "response_types_supported": ["code"],
        "code_challenge_methods_supported": ["S256"],
    })
}

/// Defines `pub mod address_check_scenarios` for the glue `rt`:
/// `define_address_check_scenarios!(async, aw_async)` or
/// `define_address_check_scenarios!(, aw_sync)`.
#[macro_export]
macro_rules! define_address_check_scenarios {
    ($($kw:ident)? , $aw:ident) => {
/// The address-check scenarios, instantiated for this runtime.
#[allow(unused_imports)]
pub mod address_check_scenarios {
    use super::rt;
    use std::net::{IpAddr, Ipv4Addr};
    use std::time::Duration;
    use $crate::scenarios::address_check::{protected_server, NAMES_CA, NAMES_CERT, NAMES_KEY};
    use $crate::mcpwire_core::address_class::AddressClass;
    use $crate::mcpwire_core::oauth::OAuthError;
    use $crate::mcpwire_core::{ClientError, RequestError, ServerSpec};
    use $crate::mcpwire_host::auth::OAuthOptions;
    use $crate::mcpwire_host::{HttpClientConfig, ProxySetting};
    use $crate::support::scripted_http::ScriptedHttpServer;
    use $crate::serde_json::json;

    macro_rules! aw {
        ($e:expr) => {
            $crate::$aw!($e)
        };
    }

    const PRIVATE: IpAddr = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1));
    const LOOPBACK: IpAddr = IpAddr::V4(Ipv4Addr::LOCALHOST);

    fn client(url: &str, options: OAuthOptions, http: HttpClientConfig) -> rt::Client {
        let spec = ServerSpec::from_target("guarded", url)
            .expect("a valid URL")
            .request_timeout(Duration::from_secs(20))
            .oauth(options);
        rt::build(rt::Client::builder().server(spec).http_client(http.proxy(ProxySetting::None)))
            .expect("build the client")
    }

    /// The flow's refusal of `err`, as (URL, address, class); panics on anything else.
    fn unsafe_address(err: &ClientError) -> (String, IpAddr, AddressClass) {
        match err.request_error() {
            Some(RequestError::AuthorizationFailed {
                oauth: Some(OAuthError::UnsafeAddress { url, address, class }),
                ..
            }) => (url.clone(), *address, *class),
            _ => panic!("not an unsafe-address refusal: {err:?}"),
        }
    }

    /// An MCP server on 127.0.0.1 whose metadata names `https://auth.internal.test`, which
    /// resolves to 10.0.0.1: the authorization server metadata fetch is refused as private,
    /// before any connection (a connection to 10.0.0.1 would fail differently, or hang).
    pub $($kw)? fn a_private_authorization_server_is_refused() {
        let server = ScriptedHttpServer::start(protected_server("http", Some("https://auth.internal.test")));
        let http = HttpClientConfig::default().resolve("auth.internal.test", [PRIVATE]);
        let options = OAuthOptions::client_credentials("https://auth.internal.test", "svc", "s3cret");
        let client = client(&server.url("/mcp"), options, http);
        let err = aw!(client.call_tool("echo", json!({}))).expect_err("refused");
        let (url, address, class) = unsafe_address(&err);
        assert!(url.starts_with("https://auth.internal.test/"), "{url}");
        assert_eq!((address, class), (PRIVATE, AddressClass::Private));
        let shown = err.to_string();
        assert!(shown.contains("auth.internal.test") && shown.contains("private"), "{shown}");
        aw!(client.close());
        let seen: Vec<String> = server.requests().into_iter().map(|r| r.target).collect();
        assert!(seen.iter().any(|t| t.starts_with("/.well-known/oauth-protected-resource")), "{seen:?}");
        assert!(!seen.iter().any(|t| t.contains("authorization-server") || t == "/token"), "{seen:?}");
    }

    /// The MCP server reached by a name (`mcp.example.test`, not loopback) that resolves to
    /// 127.0.0.1: MCP traffic goes there, but its OAuth discovery fetch is refused as loopback
    /// for a remote server, and never reaches it.
    pub $($kw)? fn loopback_discovery_for_a_remote_server_is_refused() {
        let server = ScriptedHttpServer::start_tls(NAMES_CERT, NAMES_KEY, protected_server("https", None));
        let base = format!("https://mcp.example.test:{}", server.addr().port());
        let http = HttpClientConfig::default().root_certificate(NAMES_CA).resolve("mcp.example.test", [LOOPBACK]);
        let options = OAuthOptions::client_credentials(&base, "svc", "s3cret");
        let client = client(&format!("{base}/mcp"), options, http);
        let err = aw!(client.call_tool("echo", json!({}))).expect_err("refused");
        let (url, address, class) = unsafe_address(&err);
        assert!(url.starts_with(&format!("{base}/.well-known/oauth-protected-resource")), "{url}");
        assert_eq!((address, class), (LOOPBACK, AddressClass::Loopback));
        aw!(client.close());
        let seen: Vec<String> = server.requests().into_iter().map(|r| r.target).collect();
        assert!(seen.iter().any(|t| t == "/mcp"), "MCP traffic reached the server: {seen:?}");
        assert!(!seen.iter().any(|t| t.starts_with("/.well-known") || t == "/token"), "{seen:?}");
    }

    /// The same with `allow_private_addresses`: discovery, metadata and the token request go
    /// to the loopback address, and the call completes with the token.
    pub $($kw)? fn the_opt_out_lets_the_flow_reach_a_private_address() {
        let server = ScriptedHttpServer::start_tls(NAMES_CERT, NAMES_KEY, protected_server("https", None));
        let base = format!("https://mcp.example.test:{}", server.addr().port());
        let http = HttpClientConfig::default().root_certificate(NAMES_CA).resolve("mcp.example.test", [LOOPBACK]);
        let options = OAuthOptions::client_credentials(&base, "svc", "s3cret").allow_private_addresses(true);
        let client = client(&format!("{base}/mcp"), options, http);
        let result = aw!(client.call_tool("echo", json!({}))).expect("the call, signed in");
        assert_eq!(result.text(), "signed in");
        aw!(client.close());
        let seen: Vec<String> = server.requests().into_iter().map(|r| r.target).collect();
        assert!(seen.iter().any(|t| t == "/token"), "the token request went out: {seen:?}");
    }
}
    };
}

/// Generates one `#[test]` per address-check scenario:
/// `all_address_check_scenario_tests!(run)`.
#[macro_export]
macro_rules! all_address_check_scenario_tests {
    ($run:path) => {
        $crate::scenario_tests!(address_check_scenarios, $run;
            a_private_authorization_server_is_refused,
            loopback_discovery_for_a_remote_server_is_refused,
            the_opt_out_lets_the_flow_reach_a_private_address);
    };
}
