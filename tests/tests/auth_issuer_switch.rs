//! A token per authorization server, end to end on the blocking client with a
//! `FileTokenStore`: the MCP server hands over from issuer A to B and back
//! (`two_issuer_server`); A's grant is set aside when B takes over (saved at once, so the store
//! no longer holds it as the server's token, even when B's sign-in fails), survives a restart
//! under its issuer, and is resumed without a sign-in when A is back; no token or refresh
//! token of one issuer reaches the other's endpoints.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use mcp_blocking::http::{HttpClientConfig, ProxySetting};
use mcp_core::types::AuthorizationCallback;
use mcp_core::{HandlerError, HttpConfig, ServerSpec};
use mcp_host::auth::{FileTokenStore, OAuthOptions, TokenStore};
use mcp_tests::two_issuer_server::{approve, Issuer, TwoIssuerServer};

const REDIRECT: &str = "http://127.0.0.1:8765/callback";

/// The issuers the client signed in at, in order.
type SignIns = Arc<Mutex<Vec<String>>>;

/// A client of `server` keeping its tokens in `dir`; sign-ins at `declined` are refused.
fn client(
    server: &TwoIssuerServer,
    dir: &Path,
    sign_ins: &SignIns,
    declined: Option<Issuer>,
) -> mcp_blocking::Client {
    let spec = ServerSpec::http("remote", HttpConfig::new(&server.mcp_url()).unwrap())
        .oauth(OAuthOptions::authorization_code(REDIRECT));
    let sign_ins = sign_ins.clone();
    let declined = declined.map(|i| format!("/{}/authorize", i.name()));
    mcp_blocking::Client::builder()
        .server(spec)
        .http_client(HttpClientConfig::default().proxy(ProxySetting::None))
        .token_store(Arc::new(FileTokenStore::new(dir)))
        .authorization_handler(move |req: mcp_blocking::AuthorizationPrompt| {
            let issuer = if req.url.contains("/a/authorize") { "a" } else { "b" };
            sign_ins.lock().unwrap().push(issuer.to_owned());
            if declined.as_deref().is_some_and(|d| req.url.contains(d)) {
                return Err(HandlerError::new("the user closed the window"));
            }
            Ok(AuthorizationCallback::new(approve(&req.url, &req.redirect_uri)))
        })
        .build()
        .expect("a client")
}

fn echo(client: &mcp_blocking::Client) -> Result<String, mcp_core::ClientError> {
    client.call_tool("echo", serde_json::json!({})).map(|r| r.text())
}

fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mcp-issuer-switch-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// The server's record in `dir`: its current token and issuer, and the set-aside grants.
fn stored(server: &TwoIssuerServer, dir: &Path) -> (Option<(String, String)>, Vec<(String, String)>) {
    let record = FileTokenStore::new(dir).load(&server.mcp_url()).unwrap().expect("a record");
    let pair = |t: &mcp_core::oauth::StoredTokens| (t.issuer.clone(), t.access_token.expose().to_owned());
    (record.tokens.as_ref().map(pair), record.set_aside.iter().map(|g| pair(&g.tokens)).collect())
}

/// No request to one issuer's endpoints carries a token or refresh token of the other.
fn assert_tokens_stay_with_their_issuer(server: &TwoIssuerServer) {
    for (issuer, foreign) in [(Issuer::A, "-b-"), (Issuer::B, "-a-")] {
        for r in server.requests_to(issuer) {
            let text = format!("{} {:?} {}", r.target, r.headers, String::from_utf8_lossy(&r.body));
            assert!(!text.contains(&format!("tok{foreign}")), "{text}");
            assert!(!text.contains(&format!("rt{foreign}")), "{text}");
        }
    }
}

#[test]
fn a_to_b_to_a_resumes_the_set_aside_token_across_a_restart() {
    let server = TwoIssuerServer::start(Issuer::A);
    let dir = temp_dir("resume");
    let sign_ins = SignIns::default();
    let (a, b) = (server.issuer_url(Issuer::A), server.issuer_url(Issuer::B));

    let first = client(&server, &dir, &sign_ins, None);
    assert_eq!(echo(&first).unwrap(), "ok");
    server.hand_over_to(Issuer::B);
    assert_eq!(echo(&first).unwrap(), "ok");
    assert_eq!(*sign_ins.lock().unwrap(), ["a", "b"]);
    let (tok_a, tok_b) = (server.tokens_of(Issuer::A)[0].clone(), server.tokens_of(Issuer::B)[0].clone());
    assert_eq!(stored(&server, &dir), (Some((b.clone(), tok_b.clone())), vec![(a.clone(), tok_a.clone())]));
    first.close();

    // A restart with B in charge: B's token, no sign-in.
    let second = client(&server, &dir, &sign_ins, None);
    let before = server.presented().len();
    assert_eq!(echo(&second).unwrap(), "ok");
    assert_eq!(server.presented()[before], Some(format!("Bearer {tok_b}")));
    // A is back: its token is presented again, with no sign-in and no token request.
    server.hand_over_to(Issuer::A);
    assert_eq!(echo(&second).unwrap(), "ok");
    assert_eq!(server.presented().last().unwrap(), &Some(format!("Bearer {tok_a}")));
    assert_eq!(*sign_ins.lock().unwrap(), ["a", "b"], "no new sign-in");
    assert_eq!(server.grants_at(Issuer::A), ["authorization_code"]);
    assert_eq!(stored(&server, &dir), (Some((a, tok_a)), vec![(b, tok_b)]));
    assert_tokens_stay_with_their_issuer(&server);
    second.close();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_retired_token_does_not_come_back_after_a_failed_sign_in_and_a_restart() {
    let server = TwoIssuerServer::start(Issuer::A);
    let dir = temp_dir("retired");
    let sign_ins = SignIns::default();

    let first = client(&server, &dir, &sign_ins, Some(Issuer::B));
    assert_eq!(echo(&first).unwrap(), "ok");
    server.hand_over_to(Issuer::B);
    assert!(echo(&first).is_err(), "B's sign-in was declined");
    first.close();
    let tok_a = server.tokens_of(Issuer::A)[0].clone();
    let (current, set_aside) = stored(&server, &dir);
    assert_eq!(current, None, "A's token is no longer the server's in the store");
    assert_eq!(set_aside, [(server.issuer_url(Issuer::A), tok_a.clone())]);

    let second = client(&server, &dir, &sign_ins, None);
    let before = server.presented().len();
    assert_eq!(echo(&second).unwrap(), "ok");
    assert_eq!(server.presented()[before], None, "the next run starts without A's token");
    assert!(!server.presented()[before..].contains(&Some(format!("Bearer {tok_a}"))));
    assert_eq!(*sign_ins.lock().unwrap(), ["a", "b", "b"]);
    assert_tokens_stay_with_their_issuer(&server);
    second.close();
    let _ = std::fs::remove_dir_all(&dir);
}
