//! The host side of OAuth in every family (no network: servers start lazily, and the browser
//! is scripted): builder checks, the token store warning at build time, and the ready-made
//! browser sign-in run as each family's authorization handler.

#![cfg(feature = "oauth")]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::{Arc, Mutex};

use mcpwire_core::types::{AuthorizationRequest, HostRequest};
use mcpwire_core::{ClientError, Event, HttpConfig, ServerRequest, ServerRequestKind, ServerSpec, Warning};
use mcpwire_host::auth::{
    BrowserAuthorization, BrowserOpener, FileTokenStore, LoopbackCallback, OAuthOptions, TokenStore,
};

fn oauth_spec(options: OAuthOptions) -> ServerSpec {
    ServerSpec::http("remote", HttpConfig::new("https://mcp.example.com/mcp").unwrap()).oauth(options)
}

fn provider_spec() -> ServerSpec {
    ServerSpec::http("remote", HttpConfig::new("https://mcp.example.com/mcp").unwrap()).token_provider()
}

fn is_config(e: &ClientError, needle: &str) -> bool {
    matches!(e, ClientError::Config(m) if m.contains(needle))
}

/// A browser that comes back to the redirect URI at once, as an authorization server would.
fn scripted_browser() -> BrowserOpener {
    BrowserOpener::custom(|url| {
        let redirect = url.split("redirect=").nth(1).expect("redirect in the test URL").to_owned();
        let port: u16 = redirect.rsplit(':').next().and_then(|p| p.split('/').next()?.parse().ok()).unwrap();
        std::thread::spawn(move || {
            let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
            write!(s, "GET /callback?code=c&state=s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").unwrap();
            let _ = s.read_to_string(&mut String::new());
        });
        Ok(())
    })
}

fn authorization_request() -> (ServerRequest, String) {
    let port = LoopbackCallback::bind(0).unwrap().port();
    let redirect = format!("http://127.0.0.1:{port}/callback");
    let request = AuthorizationRequest::new(
        &format!("https://auth.example.com/authorize?redirect={redirect}"),
        &redirect,
    );
    let request = ServerRequest {
        kind: ServerRequestKind::Authorization,
        request: HostRequest::Authorization(Box::new(request)),
    };
    (request, format!("{redirect}?code=c&state=s"))
}

#[test]
fn blocking_builder_checks_and_browser_handler() {
    let err = mcpwire_blocking::Client::builder()
        .server(oauth_spec(OAuthOptions::browser(8765)))
        .build()
        .unwrap_err();
    assert!(is_config(&err, "authorization handler"), "{err}");
    let err = mcpwire_blocking::Client::builder().server(provider_spec()).build().unwrap_err();
    assert!(is_config(&err, "token provider"), "{err}");
    mcpwire_blocking::Client::builder()
        .server(oauth_spec(OAuthOptions::browser(8765)))
        .browser_authorization(BrowserOpener::System)
        .build()
        .expect("the browser sign-in is an authorization handler");
    mcpwire_blocking::Client::builder()
        .server(provider_spec())
        .token_provider(|_req: mcpwire_blocking::TokenRequest| {
            Ok(mcpwire_core::types::AccessTokenAnswer::new("t"))
        })
        .build()
        .unwrap();

    let browser = BrowserAuthorization::new(scripted_browser());
    let handler = mcpwire_host::typed_handler::<mcpwire_host::Returning, _, _, _>(
        move |req: mcpwire_blocking::AuthorizationPrompt| browser.start(&req),
    );
    let (request, expected) = authorization_request();
    let answer = handler("remote", request).unwrap();
    assert_eq!(answer, serde_json::json!({"callback": expected}));
}

#[test]
fn async_builder_checks_and_browser_handler() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let build = |b: mcpwire_tokio::ClientBuilder| b.build();
        let err = build(mcpwire_tokio::Client::builder().server(oauth_spec(OAuthOptions::browser(8765))))
            .unwrap_err();
        assert!(is_config(&err, "authorization handler"), "{err}");
        let err = build(mcpwire_tokio::Client::builder().server(provider_spec())).unwrap_err();
        assert!(is_config(&err, "token provider"), "{err}");
        build(
            mcpwire_tokio::Client::builder()
                .server(provider_spec())
                .token_provider(|_req| async { Ok(mcpwire_core::types::AccessTokenAnswer::new("t")) }),
        )
        .unwrap();
        build(
            mcpwire_tokio::Client::builder()
                .server(oauth_spec(OAuthOptions::client_credentials("https://as.example", "id", "secret")))
                .authorization_handler(|_req| async { Err(mcpwire_core::HandlerError::new("unused")) }),
        )
        .unwrap();

        let browser = BrowserAuthorization::new(scripted_browser());
        let handler = mcpwire_host::typed_handler::<mcpwire_host::Awaiting, _, _, _>(
            move |req: mcpwire_tokio::AuthorizationPrompt| browser.start(&req),
        );
        let (request, expected) = authorization_request();
        let answer = handler("remote", request).await.unwrap();
        assert_eq!(answer, serde_json::json!({"callback": expected}));
    });
    smol::block_on(async {
        let browser = BrowserAuthorization::new(scripted_browser());
        let handler = mcpwire_host::typed_handler::<mcpwire_host::Awaiting, _, _, _>(
            move |req: mcpwire_smol::AuthorizationPrompt| browser.start(&req),
        );
        let (request, expected) = authorization_request();
        let answer = handler("remote", request).await.unwrap();
        assert_eq!(answer, serde_json::json!({"callback": expected}));
    });
}

#[test]
fn an_unreadable_stored_record_is_a_warning_at_build() {
    let dir = std::env::temp_dir().join(format!("mcp-auth-host-{}", std::process::id()));
    let store = FileTokenStore::new(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(store.path_for("https://mcp.example.com/mcp"), b"{\"version\": 7}").unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    let store: Arc<dyn TokenStore> = Arc::new(store);
    mcpwire_blocking::Client::builder()
        .server(oauth_spec(OAuthOptions::browser(8765)))
        .browser_authorization(BrowserOpener::System)
        .token_store(store)
        .on_event(move |server, e| sink.lock().unwrap().push((server.to_owned(), e.clone())))
        .build()
        .expect("a broken record does not stop the client");
    let seen = seen.lock().unwrap();
    let warned = |(s, e): &(String, Event)| {
        s == "remote"
            && matches!(e, Event::Warning(Warning::TokenStore { detail }) if detail.contains("version 7"))
    };
    assert!(seen.first().is_some_and(warned), "reported while building: {seen:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
