//! A token per authorization server, end to end with a `FileTokenStore`, written once for
//! every runtime (the glue `rt` of `scenarios.rs`): the MCP server hands over from issuer A to
//! B and back (`two_issuer_server`); A's grant is set aside when B takes over (saved at once,
//! so the store no longer holds it as the server's token, even when B's sign-in fails),
//! survives a restart under its issuer, and is resumed without a sign-in when A is back; no
//! token or refresh token of one issuer reaches the other's endpoints.

/// Defines `pub mod issuer_switch_scenarios` for the glue `rt`:
/// `define_issuer_switch_scenarios!(async, aw_async)` or
/// `define_issuer_switch_scenarios!(, aw_sync)`.
#[macro_export]
macro_rules! define_issuer_switch_scenarios {
    ($($kw:ident)? , $aw:ident) => {
/// The issuer switch scenarios, instantiated for this runtime.
#[allow(unused_imports)]
pub mod issuer_switch_scenarios {
    use super::rt;
    use std::path::{Path, PathBuf};
    use std::sync::{Arc, Mutex};
    use $crate::mcpwire_core::oauth::StoredTokens;
    use $crate::mcpwire_core::types::AuthorizationCallback;
    use $crate::mcpwire_core::{ClientError, HandlerError, HttpConfig, ServerSpec};
    use $crate::mcpwire_host::auth::{FileTokenStore, OAuthOptions, TokenStore};
    use $crate::mcpwire_host::{AuthorizationPrompt, HttpClientConfig, ProxySetting};
    use $crate::serde_json::json;
    use $crate::support::two_issuer_server::{approve, Issuer, TwoIssuerServer};

    macro_rules! aw {
        ($e:expr) => {
            $crate::$aw!($e)
        };
    }

    const REDIRECT: &str = "http://127.0.0.1:8765/callback";

    /// The issuers the client signed in at, in order.
    type SignIns = Arc<Mutex<Vec<String>>>;

    /// A client of `server` keeping its tokens in `dir`; sign-ins at `declined` are refused.
    fn client(
        server: &TwoIssuerServer,
        dir: &Path,
        sign_ins: &SignIns,
        declined: Option<Issuer>,
    ) -> rt::Client {
        let spec = ServerSpec::http("remote", HttpConfig::new(&server.mcp_url()).unwrap())
            .oauth(OAuthOptions::authorization_code(REDIRECT));
        let sign_ins = sign_ins.clone();
        let declined = declined.map(|i| format!("/{}/authorize", i.name()));
        let sign_in = move |req: AuthorizationPrompt| {
            let issuer = if req.url.contains("/a/authorize") { "a" } else { "b" };
            sign_ins.lock().unwrap().push(issuer.to_owned());
            if declined.as_deref().is_some_and(|d| req.url.contains(d)) {
                return Err(HandlerError::new("the user closed the window"));
            }
            Ok(AuthorizationCallback::new(approve(&req.url, &req.redirect_uri)))
        };
        let builder = rt::Client::builder()
            .server(spec)
            .http_client(HttpClientConfig::default().proxy(ProxySetting::None))
            .token_store(Arc::new(FileTokenStore::new(dir)))
            .authorization_handler(rt::sync_handler(sign_in));
        rt::build(builder).expect("a client")
    }

    $($kw)? fn echo(client: &rt::Client) -> Result<String, ClientError> {
        aw!(client.call_tool("echo", json!({}))).map(|r| r.text())
    }

    fn temp_dir(tag: &str) -> PathBuf {
        let module = module_path!().replace("::", "-");
        let name = format!("mcp-issuer-switch-{tag}-{}-{module}", std::process::id());
        let dir = std::env::temp_dir().join(name);
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    /// The server's record in `dir`: its current token and issuer, and the set-aside grants.
    fn stored(server: &TwoIssuerServer, dir: &Path) -> (Option<(String, String)>, Vec<(String, String)>) {
        let record = FileTokenStore::new(dir).load(&server.mcp_url()).unwrap().expect("a record");
        let pair = |t: &StoredTokens| (t.issuer.clone(), t.access_token.expose().to_owned());
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

    pub $($kw)? fn a_to_b_to_a_resumes_the_set_aside_token_across_a_restart() {
        let server = TwoIssuerServer::start(Issuer::A);
        let dir = temp_dir("resume");
        let sign_ins = SignIns::default();
        let (a, b) = (server.issuer_url(Issuer::A), server.issuer_url(Issuer::B));

        let first = client(&server, &dir, &sign_ins, None);
        assert_eq!(aw!(echo(&first)).unwrap(), "ok");
        server.hand_over_to(Issuer::B);
        assert_eq!(aw!(echo(&first)).unwrap(), "ok");
        assert_eq!(*sign_ins.lock().unwrap(), ["a", "b"]);
        let (tok_a, tok_b) = (server.tokens_of(Issuer::A)[0].clone(), server.tokens_of(Issuer::B)[0].clone());
        // Closing waits for the event hook, which saves the records.
        aw!(first.close());
        let expected = (Some((b.clone(), tok_b.clone())), vec![(a.clone(), tok_a.clone())]);
        assert_eq!(stored(&server, &dir), expected);

        // A restart with B in charge: B's token, no sign-in.
        let second = client(&server, &dir, &sign_ins, None);
        let before = server.presented().len();
        assert_eq!(aw!(echo(&second)).unwrap(), "ok");
        assert_eq!(server.presented()[before], Some(format!("Bearer {tok_b}")));
        // A is back: its token is presented again, with no sign-in and no token request.
        server.hand_over_to(Issuer::A);
        assert_eq!(aw!(echo(&second)).unwrap(), "ok");
        assert_eq!(server.presented().last().unwrap(), &Some(format!("Bearer {tok_a}")));
        assert_eq!(*sign_ins.lock().unwrap(), ["a", "b"], "no new sign-in");
        assert_eq!(server.grants_at(Issuer::A), ["authorization_code"]);
        assert_tokens_stay_with_their_issuer(&server);
        aw!(second.close());
        assert_eq!(stored(&server, &dir), (Some((a, tok_a)), vec![(b, tok_b)]));
        let _ = std::fs::remove_dir_all(&dir);
    }

    pub $($kw)? fn a_retired_token_does_not_come_back_after_a_failed_sign_in_and_a_restart() {
        let server = TwoIssuerServer::start(Issuer::A);
        let dir = temp_dir("retired");
        let sign_ins = SignIns::default();

        let first = client(&server, &dir, &sign_ins, Some(Issuer::B));
        assert_eq!(aw!(echo(&first)).unwrap(), "ok");
        server.hand_over_to(Issuer::B);
        assert!(aw!(echo(&first)).is_err(), "B's sign-in was declined");
        aw!(first.close());
        let tok_a = server.tokens_of(Issuer::A)[0].clone();
        let (current, set_aside) = stored(&server, &dir);
        assert_eq!(current, None, "A's token is no longer the server's in the store");
        assert_eq!(set_aside, [(server.issuer_url(Issuer::A), tok_a.clone())]);

        let second = client(&server, &dir, &sign_ins, None);
        let before = server.presented().len();
        assert_eq!(aw!(echo(&second)).unwrap(), "ok");
        assert_eq!(server.presented()[before], None, "the next run starts without A's token");
        assert!(!server.presented()[before..].contains(&Some(format!("Bearer {tok_a}"))));
        assert_eq!(*sign_ins.lock().unwrap(), ["a", "b", "b"]);
        assert_tokens_stay_with_their_issuer(&server);
        aw!(second.close());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
    };
}

/// Generates the `#[test]`s of [`define_issuer_switch_scenarios!`]:
/// `all_issuer_switch_scenario_tests!(run)`.
#[macro_export]
macro_rules! all_issuer_switch_scenario_tests {
    ($run:path) => {
        $crate::scenario_tests!(issuer_switch_scenarios, $run;
            a_to_b_to_a_resumes_the_set_aside_token_across_a_restart,
            a_retired_token_does_not_come_back_after_a_failed_sign_in_and_a_restart);
    };
}
