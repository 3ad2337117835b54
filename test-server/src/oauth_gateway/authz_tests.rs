//! The gateway's checks, unit by unit (PKCE, codes, tokens, client authentication, the bearer
//! check), then once over real sockets with a scripted upstream.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::authz::AuthServer;
use super::crypto::s256_challenge;
use super::http::{parse_form, percent_encode, Request, Response};
use super::{Gateway, GatewayConfig};

const BASE: &str = "http://127.0.0.1:9";
const REDIRECT: &str = "http://127.0.0.1:5555/callback";
const VERIFIER: &str = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";

fn body(r: &Response) -> Value {
    serde_json::from_slice(&r.body).expect("a JSON body")
}

fn location(r: &Response) -> Vec<(String, String)> {
    assert_eq!(r.status, 302, "{:?}", String::from_utf8_lossy(&r.body));
    let loc = &r.headers.iter().find(|(n, _)| n == "Location").expect("a Location").1;
    parse_form(loc.split_once('?').expect("a query").1).expect("a valid query")
}

fn get<'a>(pairs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    pairs.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
}

fn form(pairs: &[(&str, &str)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| format!("{}={}", percent_encode(k), percent_encode(v)))
        .collect::<Vec<_>>()
        .join("&")
}

fn token_request(pairs: &[(&str, &str)], basic: Option<&str>) -> Request {
    let mut headers = vec![("Content-Type".to_owned(), "application/x-www-form-urlencoded".to_owned())];
    if let Some(b) = basic {
        headers.push(("Authorization".to_owned(), format!("Basic {b}")));
    }
    Request {
        method: "POST".into(),
        target: "/token".into(),
        headers,
        body: form(pairs).into_bytes(),
        close: false,
    }
}

fn register(auth: &AuthServer, method: &str) -> (String, Option<String>) {
    let r = auth.register(
        json!({"redirect_uris": [REDIRECT], "token_endpoint_auth_method": method,
        "grant_types": ["authorization_code", "refresh_token"], "client_name": "t"})
        .to_string()
        .as_bytes(),
    );
    assert_eq!(r.status, 201, "{:?}", body(&r));
    let b = body(&r);
    (b["client_id"].as_str().unwrap().to_owned(), b["client_secret"].as_str().map(str::to_owned))
}

fn authorize_query(client_id: &str, extra: &[(&str, &str)]) -> String {
    let challenge = s256_challenge(VERIFIER);
    let resource = format!("{BASE}/mcp");
    let mut pairs = vec![
        ("response_type", "code"),
        ("client_id", client_id),
        ("redirect_uri", REDIRECT),
        ("code_challenge", challenge.as_str()),
        ("code_challenge_method", "S256"),
        ("state", "st-1"),
        ("resource", resource.as_str()),
    ];
    for (k, v) in extra {
        pairs.retain(|(n, _)| n != k);
        if !v.is_empty() {
            pairs.push((k, v));
        }
    }
    form(&pairs)
}

fn code_for(auth: &AuthServer, now: Instant, client_id: &str) -> String {
    let r = auth.authorize(now, Some(&authorize_query(client_id, &[])));
    let q = location(&r);
    assert_eq!((get(&q, "state"), get(&q, "iss")), (Some("st-1"), Some(BASE)));
    get(&q, "code").expect("a code").to_owned()
}

fn exchange(auth: &AuthServer, now: Instant, client_id: &str, code: &str, verifier: &str) -> Response {
    let resource = format!("{BASE}/mcp");
    auth.token(
        now,
        &token_request(
            &[
                ("grant_type", "authorization_code"),
                ("code", code),
                ("redirect_uri", REDIRECT),
                ("code_verifier", verifier),
                ("resource", &resource),
                ("client_id", client_id),
            ],
            None,
        ),
    )
}

#[test]
fn code_grant_checks_pkce_once_per_code() {
    let auth = AuthServer::new(BASE, Duration::from_secs(60), None, &[]);
    let now = Instant::now();
    let (client, _) = register(&auth, "none");
    // A wrong verifier fails, and burns the code.
    let code = code_for(&auth, now, &client);
    let wrong = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXl";
    let r = exchange(&auth, now, &client, &code, wrong);
    assert_eq!((r.status, body(&r)["error"].as_str()), (400, Some("invalid_grant")));
    let r = exchange(&auth, now, &client, &code, VERIFIER);
    assert_eq!(body(&r)["error"], "invalid_grant", "a code works once");
    // A malformed verifier, an expired code.
    let code = code_for(&auth, now, &client);
    assert_eq!(body(&exchange(&auth, now, &client, &code, "short"))["error"], "invalid_grant");
    let code = code_for(&auth, now, &client);
    assert_eq!(
        body(&exchange(&auth, now + Duration::from_secs(61), &client, &code, VERIFIER))["error"],
        "invalid_grant"
    );
    // The right verifier.
    let code = code_for(&auth, now, &client);
    let r = exchange(&auth, now, &client, &code, VERIFIER);
    assert_eq!(r.status, 200, "{:?}", body(&r));
    let tokens = body(&r);
    assert_eq!((tokens["token_type"].as_str(), tokens["expires_in"].as_u64()), (Some("Bearer"), Some(60)));
    assert_eq!(tokens["scope"], "mcp");
    assert!(r.headers.iter().any(|(n, v)| n == "Cache-Control" && v == "no-store"));
    let access = tokens["access_token"].as_str().unwrap();
    assert!(auth.check_bearer(now, Some(&format!("Bearer {access}"))).is_ok());
    let stats = auth.stats();
    assert_eq!((stats.authorizations, stats.token_grants, stats.token_errors), (4, 1, 4));
}

#[test]
fn code_grant_binds_client_redirect_and_resource() {
    let auth = AuthServer::new(BASE, Duration::from_secs(60), None, &[]);
    let now = Instant::now();
    let (client, _) = register(&auth, "none");
    let (other, _) = register(&auth, "none");
    let code = code_for(&auth, now, &client);
    assert_eq!(body(&exchange(&auth, now, &other, &code, VERIFIER))["error"], "invalid_grant");
    let code = code_for(&auth, now, &client);
    let resource = format!("{BASE}/mcp");
    let base = [
        ("grant_type", "authorization_code"),
        ("code", code.as_str()),
        ("code_verifier", VERIFIER),
        ("client_id", client.as_str()),
    ];
    let with = |extra: &[(&'static str, &str)]| {
        let mut pairs = base.to_vec();
        pairs.extend_from_slice(extra);
        auth.token(now, &token_request(&pairs, None))
    };
    let r = with(&[("redirect_uri", REDIRECT), ("resource", "http://127.0.0.1:9/other")]);
    assert_eq!(body(&r)["error"], "invalid_target");
    let r = with(&[("redirect_uri", REDIRECT)]);
    assert_eq!(body(&r)["error"], "invalid_request", "resource is required");
    let r = with(&[("redirect_uri", "http://127.0.0.1:5555/elsewhere"), ("resource", &resource)]);
    assert_eq!(body(&r)["error"], "invalid_grant");
    let r = with(&[("redirect_uri", REDIRECT), ("resource", &resource), ("resource", &resource)]);
    assert_eq!(body(&r)["error"], "invalid_request", "repeated parameters");
    let mut not_form = token_request(&base, None);
    not_form.headers[0].1 = "application/json".into();
    assert_eq!(body(&auth.token(now, &not_form))["error"], "invalid_request");
}

#[test]
fn refresh_rotates_and_access_tokens_expire() {
    let auth = AuthServer::new(BASE, Duration::from_secs(1), None, &[]);
    let now = Instant::now();
    let (client, _) = register(&auth, "none");
    let code = code_for(&auth, now, &client);
    let tokens = body(&exchange(&auth, now, &client, &code, VERIFIER));
    let access = format!("Bearer {}", tokens["access_token"].as_str().unwrap());
    let rt = tokens["refresh_token"].as_str().unwrap().to_owned();
    let later = now + Duration::from_secs(2);
    let refused = auth.check_bearer(later, Some(&access)).unwrap_err();
    assert_eq!(refused.status, 401);
    let challenge = &refused.headers.iter().find(|(n, _)| n == "WWW-Authenticate").unwrap().1;
    assert!(challenge.contains("error=\"invalid_token\""), "{challenge}");
    assert!(
        challenge.contains(&format!("resource_metadata=\"{BASE}/.well-known/oauth-protected-resource/mcp\""))
    );
    let resource = format!("{BASE}/mcp");
    let refresh = |token: &str, scope: Option<&str>| {
        let mut pairs = vec![
            ("grant_type", "refresh_token"),
            ("refresh_token", token),
            ("resource", &resource),
            ("client_id", &client),
        ];
        if let Some(s) = scope {
            pairs.push(("scope", s));
        }
        auth.token(later, &token_request(&pairs, None))
    };
    assert_eq!(body(&refresh(&rt, Some("mcp offline_access")))["error"], "invalid_scope", "no widening");
    let r = refresh(&rt, None);
    assert_eq!(r.status, 200, "{:?}", body(&r));
    let fresh = body(&r);
    let new_rt = fresh["refresh_token"].as_str().unwrap();
    assert_ne!(new_rt, rt, "rotated");
    assert!(auth
        .check_bearer(later, Some(&format!("Bearer {}", fresh["access_token"].as_str().unwrap())))
        .is_ok());
    assert_eq!(body(&refresh(&rt, None))["error"], "invalid_grant", "the old refresh token is gone");
    assert_eq!(refresh(new_rt, None).status, 200);
    let stats = auth.stats();
    assert_eq!((stats.refreshes, stats.unauthorized), (2, 1));
}

#[test]
fn bearer_challenges_and_required_scope() {
    let auth = AuthServer::new(BASE, Duration::from_secs(60), Some("tools:call".into()), &[]);
    let now = Instant::now();
    let missing = auth.check_bearer(now, None).unwrap_err();
    let challenge = &missing.headers.iter().find(|(n, _)| n == "WWW-Authenticate").unwrap().1;
    assert_eq!(
        challenge,
        &format!("Bearer resource_metadata=\"{BASE}/.well-known/oauth-protected-resource/mcp\", scope=\"tools:call\"")
    );
    assert_eq!(auth.check_bearer(now, Some("Basic abc")).unwrap_err().status, 401);
    assert_eq!(auth.check_bearer(now, Some("Bearer nope")).unwrap_err().status, 401);
    assert_eq!(auth.resource_metadata()["scopes_supported"], json!(["mcp", "tools:call"]));
    let (client, _) = register(&auth, "none");
    // Without the scope: 403 insufficient_scope; with it: accepted.
    let code = code_for(&auth, now, &client);
    let plain = body(&exchange(&auth, now, &client, &code, VERIFIER));
    let refused = auth
        .check_bearer(now, Some(&format!("Bearer {}", plain["access_token"].as_str().unwrap())))
        .unwrap_err();
    assert_eq!(refused.status, 403);
    assert!(refused.headers.iter().any(|(_, v)| v.contains("error=\"insufficient_scope\"")));
    let r =
        auth.authorize(now, Some(&authorize_query(&client, &[("scope", "mcp tools:call offline_access")])));
    let code = get(&location(&r), "code").unwrap().to_owned();
    let scoped = body(&exchange(&auth, now, &client, &code, VERIFIER));
    assert_eq!(scoped["scope"], "mcp tools:call offline_access");
    assert!(auth
        .check_bearer(now, Some(&format!("Bearer {}", scoped["access_token"].as_str().unwrap())))
        .is_ok());
    let stats = auth.stats();
    assert_eq!((stats.unauthorized, stats.forbidden), (3, 1));
}

#[test]
fn authorize_refusals() {
    let auth = AuthServer::new(BASE, Duration::from_secs(60), None, &[]);
    let now = Instant::now();
    let (client, _) = register(&auth, "none");
    // Unknown client or redirect URI: answered here, never redirected.
    assert_eq!(auth.authorize(now, Some(&authorize_query("nobody", &[]))).status, 400);
    let r = auth
        .authorize(now, Some(&authorize_query(&client, &[("redirect_uri", "http://127.0.0.1:5555/evil")])));
    assert_eq!(r.status, 400);
    assert_eq!(auth.authorize(now, None).status, 400);
    // Another loopback port is the same redirect URI (RFC 8252 §7.3).
    let r = auth.authorize(
        now,
        Some(&authorize_query(&client, &[("redirect_uri", "http://127.0.0.1:6000/callback")])),
    );
    assert!(get(&location(&r), "code").is_some());
    for (extra, error) in [
        (("code_challenge_method", "plain"), "invalid_request"),
        (("code_challenge", ""), "invalid_request"),
        (("code_challenge", "too-short"), "invalid_request"),
        (("response_type", "token"), "unsupported_response_type"),
        (("resource", "http://127.0.0.1:9/"), "invalid_target"),
        (("resource", ""), "invalid_target"),
        (("scope", "admin"), "invalid_scope"),
        (("state", ""), "invalid_request"),
    ] {
        let q = location(&auth.authorize(now, Some(&authorize_query(&client, &[extra]))));
        assert_eq!(get(&q, "error"), Some(error), "{extra:?}");
        assert_eq!(get(&q, "iss"), Some(BASE));
        assert!(get(&q, "code").is_none());
    }
    assert_eq!(auth.stats().authorize_errors, 11);
}

#[test]
fn client_authentication_and_client_credentials() {
    let auth = AuthServer::new(BASE, Duration::from_secs(60), None, &[("svc".into(), "s3cret".into())]);
    let now = Instant::now();
    let resource = format!("{BASE}/mcp");
    let cc = |extra: &[(&str, &str)], basic: Option<&str>| {
        let mut pairs = vec![("grant_type", "client_credentials"), ("resource", resource.as_str())];
        pairs.extend_from_slice(extra);
        auth.token(now, &token_request(&pairs, basic))
    };
    // svc:s3cret in Basic, and in the body.
    let r = cc(&[], Some("c3ZjOnMzY3JldA=="));
    assert_eq!(r.status, 200, "{:?}", body(&r));
    assert!(body(&r).get("refresh_token").is_none());
    assert_eq!(cc(&[("client_id", "svc"), ("client_secret", "s3cret")], None).status, 200);
    let r = cc(&[("client_id", "svc"), ("client_secret", "wrong")], None);
    assert_eq!((r.status, body(&r)["error"].as_str()), (401, Some("invalid_client")));
    assert_eq!(cc(&[("client_id", "svc")], None).status, 401, "a confidential client needs its secret");
    assert_eq!(cc(&[], None).status, 401);
    assert_eq!(cc(&[("client_secret", "s3cret")], Some("c3ZjOnMzY3JldA==")).status, 401, "two methods");
    assert_eq!(body(&cc(&[("scope", "nope")], Some("c3ZjOnMzY3JldA==")))["error"], "invalid_scope");
    // A dynamically registered basic client may not switch to post, nor a public one use
    // client credentials.
    let (basic_id, secret) = register(&auth, "client_secret_basic");
    let secret = secret.expect("a secret for a confidential client");
    let r = cc(&[("client_id", &basic_id), ("client_secret", &secret)], None);
    assert_eq!(body(&r)["error"], "invalid_client");
    let r = cc(&[], Some(&super::crypto::base64url(format!("{basic_id}:{secret}").as_bytes())));
    assert_eq!(body(&r)["error"], "unauthorized_client", "registered without client_credentials");
    let (public, none) = register(&auth, "none");
    assert!(none.is_none());
    assert_eq!(body(&cc(&[("client_id", &public)], None))["error"], "unauthorized_client");
    let r = cc(&[("client_id", "svc"), ("client_secret", "s3cret"), ("grant_type", "password")], None);
    assert_eq!(body(&r)["error"], "invalid_request", "grant_type repeated");
    assert_eq!(auth.stats().client_credentials, 2);
}

#[test]
fn registration_validation() {
    let auth = AuthServer::new(BASE, Duration::from_secs(60), None, &[]);
    for (bad, error) in [
        (json!([]), "invalid_client_metadata"),
        (json!({"redirect_uris": "http://127.0.0.1/cb"}), "invalid_client_metadata"),
        (json!({"redirect_uris": ["http://example.com/cb"]}), "invalid_redirect_uri"),
        (json!({"redirect_uris": []}), "invalid_redirect_uri"),
        (
            json!({"redirect_uris": [REDIRECT], "token_endpoint_auth_method": "private_key_jwt"}),
            "invalid_client_metadata",
        ),
        (json!({"redirect_uris": [REDIRECT], "grant_types": ["implicit"]}), "invalid_client_metadata"),
        (
            json!({"grant_types": ["client_credentials"], "token_endpoint_auth_method": "none"}),
            "invalid_client_metadata",
        ),
        (json!({"redirect_uris": [REDIRECT], "response_types": ["token"]}), "invalid_client_metadata"),
    ] {
        let r = auth.register(bad.to_string().as_bytes());
        assert_eq!((r.status, body(&r)["error"].as_str()), (400, Some(error)), "{bad}");
    }
    assert_eq!(auth.register(b"not json").status, 400);
    // The default method is client_secret_basic, which gets a secret.
    let r = auth.register(json!({"redirect_uris": [REDIRECT]}).to_string().as_bytes());
    assert_eq!(body(&r)["token_endpoint_auth_method"], "client_secret_basic");
    assert!(body(&r)["client_secret"].is_string());
    assert_eq!(auth.stats().registrations, 1);
    let meta = auth.server_metadata();
    assert_eq!(meta["code_challenge_methods_supported"], json!(["S256"]));
    assert_eq!(meta["authorization_response_iss_parameter_supported"], true);
    assert_eq!(auth.resource_metadata()["authorization_servers"], json!([BASE]));
}

/// An upstream that answers one request per connection: a sized JSON answer to a POST, an
/// event stream (chunked, two events written apart) to a GET. Returns the requests' heads.
fn scripted_upstream() -> (String, std::sync::mpsc::Receiver<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(mut conn) = conn else { return };
            let mut reader = BufReader::new(conn.try_clone().unwrap());
            let mut head = String::new();
            while !head.ends_with("\r\n\r\n") {
                if reader.read_line(&mut head).unwrap_or(0) == 0 {
                    break;
                }
            }
            let length = head
                .lines()
                .find_map(|l| l.strip_prefix("Content-Length: "))
                .map_or(0, |l| l.parse().unwrap());
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            let _ = tx.send(format!("{head}{}", String::from_utf8_lossy(&body)));
            if head.starts_with("GET") {
                let _ = conn.write_all(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n9\r\ndata: 1\n\n\r\n");
                std::thread::sleep(Duration::from_millis(100));
                let _ = conn.write_all(b"9\r\ndata: 2\n\n\r\n0\r\n\r\n");
            } else {
                let _ = conn.write_all(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nMcp-Session-Id: s-1\r\nContent-Length: 2\r\n\r\n{}");
            }
        }
    });
    (url, rx)
}

fn raw_exchange(conn: &mut TcpStream, request: &str) -> String {
    conn.write_all(request.as_bytes()).unwrap();
    let mut reader = BufReader::new(conn.try_clone().unwrap());
    let mut head = String::new();
    while !head.ends_with("\r\n\r\n") {
        assert_ne!(reader.read_line(&mut head).unwrap(), 0, "closed inside the head: {head}");
    }
    let length = head.lines().find_map(|l| l.strip_prefix("Content-Length: ")).map(|l| l.parse().unwrap());
    let mut body = Vec::new();
    match length {
        Some(n) => {
            body.resize(n, 0);
            reader.read_exact(&mut body).unwrap();
        }
        None => {
            reader.read_to_end(&mut body).unwrap();
        }
    }
    format!("{head}{}", String::from_utf8_lossy(&body))
}

#[test]
fn proxies_over_sockets_with_a_valid_token() {
    let (upstream, heads) = scripted_upstream();
    let gateway = Gateway::start(&GatewayConfig::new(&upstream)).unwrap();
    let addr = gateway.base_url().strip_prefix("http://").unwrap().to_owned();
    let mut conn = TcpStream::connect(&addr).unwrap();
    let refused = raw_exchange(&mut conn, "POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}");
    assert!(refused.starts_with("HTTP/1.1 401"), "{refused}");
    assert!(refused.contains("/.well-known/oauth-protected-resource/mcp"), "{refused}");
    // Same connection: the metadata, a registration, a code, tokens.
    let meta =
        raw_exchange(&mut conn, "GET /.well-known/oauth-authorization-server HTTP/1.1\r\nHost: x\r\n\r\n");
    assert!(meta.contains(&format!("\"issuer\":\"{}\"", gateway.base_url())), "{meta}");
    let reg = json!({"redirect_uris": [REDIRECT], "token_endpoint_auth_method": "none"}).to_string();
    let reg = raw_exchange(
        &mut conn,
        &format!("POST /register HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\n\r\n{reg}", reg.len()),
    );
    let client: Value = serde_json::from_str(reg.split("\r\n\r\n").nth(1).unwrap()).unwrap();
    let client_id = client["client_id"].as_str().unwrap();
    let mut query = authorize_query(client_id, &[]);
    query = query.replace(
        &percent_encode(&format!("{BASE}/mcp")),
        &percent_encode(&format!("{}/mcp", gateway.base_url())),
    );
    let redirect = raw_exchange(&mut conn, &format!("GET /authorize?{query} HTTP/1.1\r\nHost: x\r\n\r\n"));
    let location = redirect.lines().find_map(|l| l.strip_prefix("Location: ")).expect(&redirect);
    let pairs = parse_form(location.split_once('?').unwrap().1).unwrap();
    let body = form(&[
        ("grant_type", "authorization_code"),
        ("code", get(&pairs, "code").unwrap()),
        ("redirect_uri", REDIRECT),
        ("code_verifier", VERIFIER),
        ("resource", &format!("{}/mcp", gateway.base_url())),
        ("client_id", client_id),
    ]);
    let tokens = raw_exchange(&mut conn, &format!(
        "POST /token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n{body}", body.len()));
    let tokens: Value = serde_json::from_str(tokens.split("\r\n\r\n").nth(1).unwrap()).unwrap();
    let bearer = format!("Bearer {}", tokens["access_token"].as_str().unwrap());
    // A sized answer keeps the connection; the upstream sees no Authorization.
    let call = raw_exchange(&mut conn, &format!(
        "POST /mcp HTTP/1.1\r\nHost: x\r\nAuthorization: {bearer}\r\nMcp-Protocol-Version: 2025-11-25\r\nContent-Length: 7\r\n\r\n{{\"a\":1}}"));
    assert!(
        call.starts_with("HTTP/1.1 200") && call.contains("Mcp-Session-Id: s-1") && call.ends_with("{}"),
        "{call}"
    );
    let seen = heads.recv_timeout(Duration::from_secs(5)).unwrap();
    assert!(seen.contains("Mcp-Protocol-Version: 2025-11-25") && seen.ends_with("{\"a\":1}"), "{seen}");
    assert!(!seen.to_ascii_lowercase().contains("authorization"), "{seen}");
    // An event stream comes back chunked, then the connection closes.
    let stream = raw_exchange(&mut conn, &format!(
        "GET /mcp HTTP/1.1\r\nHost: x\r\nAuthorization: {bearer}\r\nAccept: text/event-stream\r\nLast-Event-ID: 7\r\n\r\n"));
    assert!(
        stream.contains("Transfer-Encoding: chunked")
            && stream.contains("data: 1\n\n")
            && stream.contains("data: 2\n\n"),
        "{stream}"
    );
    assert!(heads.recv_timeout(Duration::from_secs(5)).unwrap().contains("Last-Event-ID: 7"));
    let stats = gateway.stats();
    assert_eq!(
        (stats.registrations, stats.authorizations, stats.token_grants, stats.proxied, stats.unauthorized),
        (1, 1, 1, 2, 1)
    );
}

#[test]
fn flags() {
    let args = |s: &str| s.split(' ').map(str::to_owned).collect::<Vec<_>>().into_iter();
    let cfg = GatewayConfig::parse(args(
        "--upstream http://127.0.0.1:1/mcp --token-ttl=1 --require-scope s --client a:b --static-token t1",
    ))
    .unwrap();
    assert_eq!(
        (cfg.token_ttl, cfg.require_scope.as_deref(), cfg.clients.len(), cfg.static_tokens.len()),
        (Duration::from_secs(1), Some("s"), 1, 1)
    );
    for bad in [
        "",
        "--upstream https://x/mcp",
        "--upstream http://127.0.0.1:1 --token-ttl x",
        "--upstream http://h/ --bogus",
        "--upstream http://h/ --client nocolon",
        "--upstream http://h/ --require-scope a\"b",
        "--upstream http://h/ --static-token",
        "--upstream",
    ] {
        assert!(GatewayConfig::parse(args(bad).filter(|a| !a.is_empty())).is_err(), "{bad}");
    }
}
