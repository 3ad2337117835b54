//! OAuth for the conformance client: how each `auth/*` scenario's server is reached (the
//! grant and client identity its `MCP_CONFORMANCE_CONTEXT` names), and the suite's browser
//! step. The suite's authorization server approves at once and redirects, so the "browser"
//! here is one plain HTTP GET of the authorization URL whose `Location` is the callback (the
//! test server's scripted browser).

use mcpwire_tokio::auth::OAuthOptions;
use mcpwire_tokio::oauth::{AuthConfig, IdentityProvider, OAuthError, PreRegisteredClient};
use mcpwire_tokio::types::AuthorizationCallback;
use mcpwire_tokio::{AuthorizationPrompt, HandlerError, ServerSpec};
use mcpwire_tokio::{ClientError, RequestError};
use serde_json::Value;

/// The Client ID Metadata Document URL the suite expects a client to present
/// (`auth/basic-cimd`).
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";
/// Where the suite's authorization server sends the (scripted) browser back. Nothing listens
/// there: the redirect is read from the authorization endpoint's answer.
const REDIRECT_URI: &str = "http://127.0.0.1:18765/callback";

/// The issuer a first connection binds the suite's credentials to when the scenario's context
/// names none (every `auth/*` scenario with credentials but `auth/pre-registration`): no
/// authorization server has it, so that connection stops at [`OAuthError::IssuerMismatch`]
/// after discovery, before any token request, naming the issuer the suite's server uses.
pub const PROBE_ISSUER: &str = "urn:mcp-conformance:issuer-to-learn";

/// Whether the scenario's pre-registered credentials come without their issuer, which must
/// then be learnt (see [`PROBE_ISSUER`]).
pub fn needs_issuer(scenario: &str, context: &Value) -> bool {
    scenario.starts_with("auth/") && context.get("client_id").is_some() && context.get("issuer").is_none()
}

/// The issuer discovery found, when `error` is the flow refusing credentials bound to another.
pub fn discovered_issuer(error: &ClientError) -> Option<String> {
    match error.request_error() {
        Some(RequestError::AuthorizationFailed {
            oauth: Some(OAuthError::IssuerMismatch { discovered, .. }),
            ..
        }) => Some(discovered.clone()),
        _ => None,
    }
}

/// Sets up OAuth on `spec` for an `auth/*` scenario, from its context; `issuer` is where the
/// credentials belong when the context does not say.
pub fn configure(spec: ServerSpec, context: &Value, issuer: Option<&str>) -> ServerSpec {
    let text = |key: &str| context.get(key).and_then(Value::as_str);
    let client = |secret: Option<&str>| {
        let issuer = text("issuer").or(issuer).unwrap_or("");
        PreRegisteredClient::for_issuer(issuer, text("client_id").unwrap_or(""), secret)
    };
    let idp = (text("idp_issuer"), text("idp_token_endpoint"), text("idp_client_id"), text("idp_id_token"));
    let options = match (text("client_id"), text("client_secret"), text("issuer")) {
        // auth/pre-registration: credentials for one issuer, with the browser.
        (Some(id), secret, Some(issuer)) => OAuthOptions::authorization_code(REDIRECT_URI)
            .pre_registered(PreRegisteredClient::for_issuer(issuer, id, secret)),
        // auth/enterprise-managed-authorization: the IdP's ID token, exchanged for an ID-JAG.
        (Some(_), secret, None) if idp.0.is_some() => {
            let (Some(issuer), Some(endpoint), Some(idp_client), Some(id_token)) = idp else {
                return spec;
            };
            let provider = IdentityProvider::new(issuer, endpoint, idp_client, id_token);
            OAuthOptions::new(AuthConfig::enterprise_managed(client(secret), provider))
        }
        // auth/client-credentials-basic: no browser.
        (Some(_), Some(secret), None) => {
            OAuthOptions::new(AuthConfig::client_credentials(client(Some(secret))))
        }
        // auth/client-credentials-jwt: private_key_jwt (ES256).
        (Some(_), None, None) if text("private_key_pem").is_some() => {
            let key = text("private_key_pem").unwrap_or("");
            OAuthOptions::new(AuthConfig::client_credentials(client(None).with_private_key(key)))
        }
        // auth/wif-jwt-bearer: the workload's JWT as the assertion.
        (Some(_), None, None) if text("valid_jwt").is_some() => {
            OAuthOptions::new(AuthConfig::jwt_bearer(client(None), text("valid_jwt").unwrap_or("")))
        }
        _ => OAuthOptions::authorization_code(REDIRECT_URI).client_metadata_url(CLIENT_METADATA_URL),
    };
    spec.oauth(options.client_name("mcp-conformance-client"))
}

/// The scripted browser: GETs the authorization URL (no redirect followed) and answers with
/// the `Location` it names.
pub async fn follow_authorization(
    prompt: AuthorizationPrompt,
) -> Result<AuthorizationCallback, HandlerError> {
    let url = prompt.url.clone();
    let location = tokio::task::spawn_blocking(move || {
        mcpwire_test_server::oauth_gateway::browse::redirect_location(&url)
    })
    .await
    .map_err(|e| HandlerError::new(format!("browser step: {e}")))?
    .map_err(|e| HandlerError::new(format!("browser step: {e}")))?;
    Ok(AuthorizationCallback::new(location))
}
