//! What the client builder does for OAuth servers: checks that the authorization handler a
//! browser sign-in needs is installed, fills in each [`OAuthSetup`]'s OS entropy, wall clock
//! and stored record, and saves every [`Event::AuthorizationSaved`] into the token store.

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use mcpwire_core::oauth::{AuthFlow, GrantType, HttpAuth, OAuthSetup, MIN_ENTROPY_BYTES};
use mcpwire_core::{ClientError, Event, ServerSpec, TransportConfig, Warning};

use super::TokenStore;
use crate::{EventHook, HandlerSet};

/// Checks and completes the OAuth settings of every HTTP server in `specs` (the client
/// builder checks [`HttpAuth::TokenProvider`] servers itself: they need only `http`):
///
/// - [`HttpAuth::OAuth`] with the authorization code grant needs an authorization handler
///   (else [`ClientError::Config`]);
/// - an OAuth setup with no entropy gets [`MIN_ENTROPY_BYTES`] from the OS generator, one
///   with `unix_now == 0` the system clock, and one with no stored record the store's record
///   for the server's canonical URL;
/// - a configuration the OAuth flow refuses (a bad redirect URI, a client credentials grant
///   without a secret) is a [`ClientError::Config`] now rather than at the first request.
///
/// A store that fails to load is not fatal: the server starts without a record and `hook`
/// gets an [`Event::Warning`] ([`Warning::TokenStore`]).
pub fn prepare_auth<H>(
    specs: &mut [ServerSpec],
    handlers: &HandlerSet<H>,
    store: Option<&dyn TokenStore>,
    hook: Option<&EventHook>,
) -> Result<(), ClientError> {
    for spec in specs {
        let TransportConfig::Http(http) = &mut spec.config.transport else { continue };
        let HttpAuth::OAuth(setup) = &mut http.auth else { continue };
        let name = &spec.name;
        let browser = setup.config.grant == GrantType::AuthorizationCode;
        if browser && handlers.authorization.is_none() {
            return Err(ClientError::Config(format!(
                "server {name:?} uses OAuth with a browser sign-in, but no authorization \
                 handler is installed (ClientBuilder::browser_authorization or \
                 authorization_handler)"
            )));
        }
        complete_setup(name, &http.url, setup, store, hook)?;
    }
    Ok(())
}

fn complete_setup(
    name: &str,
    url: &str,
    setup: &mut OAuthSetup,
    store: Option<&dyn TokenStore>,
    hook: Option<&EventHook>,
) -> Result<(), ClientError> {
    if setup.entropy.is_empty() {
        setup.entropy = os_entropy()?;
    }
    if setup.unix_now == 0 {
        setup.unix_now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    }
    // The flow decides the canonical server URL records are keyed by, and checks the config.
    let flow = AuthFlow::new(url, setup.config.clone(), &setup.entropy)
        .map_err(|e| ClientError::Config(format!("server {name:?}: OAuth: {e}")))?;
    let (Some(store), None) = (store, &setup.stored) else { return Ok(()) };
    match store.load(flow.resource()) {
        Ok(stored) => setup.stored = stored,
        Err(e) => {
            if let Some(hook) = hook {
                let warning = Event::Warning(Warning::TokenStore { detail: e.to_string() });
                let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| hook(name, &warning)));
            }
        }
    }
    Ok(())
}

/// [`MIN_ENTROPY_BYTES`] bytes from the OS random generator.
pub fn os_entropy() -> Result<Vec<u8>, ClientError> {
    let mut bytes = vec![0u8; MIN_ENTROPY_BYTES];
    getrandom::fill(&mut bytes)
        .map_err(|e| ClientError::Config(format!("the OS random generator failed: {e}")))?;
    Ok(bytes)
}

/// The event hook to give the servers: with a store, one that saves every
/// [`Event::AuthorizationSaved`] (a failed save goes to `hook` as a [`Warning::TokenStore`])
/// before passing each event on to `hook`; without one, `hook` itself.
pub fn persisting_hook(store: Option<Arc<dyn TokenStore>>, hook: Option<EventHook>) -> Option<EventHook> {
    let Some(store) = store else { return hook };
    Some(Arc::new(move |server: &str, event: &Event| {
        if let Event::AuthorizationSaved(record) = event {
            if let Err(e) = store.save(record) {
                if let Some(hook) = &hook {
                    hook(server, &Event::Warning(Warning::TokenStore { detail: e.to_string() }));
                }
            }
        }
        if let Some(hook) = &hook {
            hook(server, event);
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::{FileTokenStore, MemoryTokenStore, OAuthOptions};
    use mcpwire_core::oauth::{StoredAuth, STORED_VERSION};
    use mcpwire_core::HttpConfig;
    use std::sync::Mutex;

    fn oauth_spec(name: &str, url: &str, options: OAuthOptions) -> ServerSpec {
        ServerSpec::http(name, HttpConfig::new(url).unwrap()).oauth(options)
    }

    fn setup_of(spec: &ServerSpec) -> &OAuthSetup {
        match &spec.config.transport {
            TransportConfig::Http(h) => match &h.auth {
                HttpAuth::OAuth(s) => s,
                other => panic!("{other:?}"),
            },
            _ => panic!("not http"),
        }
    }

    fn record(server: &str) -> StoredAuth {
        let json = serde_json::json!({
            "version": STORED_VERSION, "server": server, "resource_metadata": null,
            "auth_server": null, "client": null, "registrations": [], "tokens": null,
        });
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn handlers_are_required() {
        let none: HandlerSet<u8> = HandlerSet::default();
        let mut specs = [oauth_spec("a", "https://a.example/mcp", OAuthOptions::browser(8765))];
        let err = prepare_auth(&mut specs, &none, None, None).unwrap_err();
        assert!(matches!(&err, ClientError::Config(m) if m.contains("authorization handler")), "{err}");
        let mut specs =
            [ServerSpec::http("t", HttpConfig::new("https://t.example/mcp").unwrap()).token_provider()];
        prepare_auth(&mut specs, &none, None, None).expect("token providers are the builder's business");
        let mut specs = [oauth_spec(
            "c",
            "https://c.example/mcp",
            OAuthOptions::client_credentials("https://as.example", "id", "s"),
        )];
        prepare_auth(&mut specs, &none, None, None).expect("client credentials need no browser");
        let mut specs = [oauth_spec(
            "d",
            "https://d.example/mcp",
            OAuthOptions::authorization_code("http://example.com/cb"),
        )];
        let with: HandlerSet<u8> = HandlerSet { authorization: Some(1), ..Default::default() };
        let err = prepare_auth(&mut specs, &with, None, None).unwrap_err();
        assert!(matches!(&err, ClientError::Config(m) if m.contains("redirect URI")), "{err}");
    }

    #[test]
    fn setups_are_completed_from_the_os_and_the_store() {
        let store = MemoryTokenStore::new();
        store.save(&record("https://a.example/mcp")).unwrap();
        let handlers: HandlerSet<u8> = HandlerSet { authorization: Some(1), ..Default::default() };
        let mut specs = [
            oauth_spec("a", "https://A.example:443/mcp", OAuthOptions::browser(8765)),
            oauth_spec("b", "https://b.example/mcp", OAuthOptions::browser(8765)),
        ];
        prepare_auth(&mut specs, &handlers, Some(&store), None).unwrap();
        let (a, b) = (setup_of(&specs[0]), setup_of(&specs[1]));
        assert_eq!(a.entropy.len(), MIN_ENTROPY_BYTES);
        assert_ne!(a.entropy, b.entropy, "fresh OS entropy per server");
        assert!(a.unix_now > 1_700_000_000);
        assert_eq!(
            a.stored.as_ref().map(|s| s.server.as_str()),
            Some("https://a.example/mcp"),
            "canonical key"
        );
        assert!(b.stored.is_none());
    }

    #[test]
    fn a_broken_store_is_a_warning() {
        let dir = std::env::temp_dir().join(format!("mcp-prepare-broken-{}", std::process::id()));
        let store = FileTokenStore::new(&dir);
        store.save(&record("https://a.example/mcp")).unwrap();
        std::fs::write(store.path_for("https://a.example/mcp"), b"garbage").unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = seen.clone();
        let hook: EventHook = Arc::new(move |server: &str, e: &Event| {
            crate::lock(&sink).push((server.to_owned(), e.clone()));
        });
        let handlers: HandlerSet<u8> = HandlerSet { authorization: Some(1), ..Default::default() };
        let mut specs = [oauth_spec("a", "https://a.example/mcp", OAuthOptions::browser(8765))];
        prepare_auth(&mut specs, &handlers, Some(&store), Some(&hook)).unwrap();
        assert!(setup_of(&specs[0]).stored.is_none());
        let seen = crate::lock(&seen);
        assert!(
            matches!(&seen[..], [(s, Event::Warning(Warning::TokenStore { .. }))] if s == "a"),
            "{seen:?}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn saved_records_reach_the_store_and_the_hook() {
        let store = Arc::new(MemoryTokenStore::new());
        let seen = Arc::new(Mutex::new(0));
        let count = seen.clone();
        let hook: EventHook = Arc::new(move |_: &str, _: &Event| *crate::lock(&count) += 1);
        let wrapped = persisting_hook(Some(store.clone()), Some(hook)).unwrap();
        wrapped("a", &Event::AuthorizationSaved(Box::new(record("https://a.example/mcp"))));
        wrapped("a", &Event::Closed);
        assert_eq!(store.load("https://a.example/mcp").unwrap(), Some(record("https://a.example/mcp")));
        assert_eq!(*crate::lock(&seen), 2, "the host's hook still sees every event");
        assert!(persisting_hook(None, None).is_none());
    }
}
