use super::*;
use crate::target::split_command_line;

use TransportKind::{PlainHttp, Sse, StreamableHttp};

fn http(target: &str) -> (String, Vec<TransportKind>) {
    match detect_target(target, None) {
        Ok(DetectedTarget::Http { url, kinds }) => (url, kinds),
        other => panic!("{target}: expected HTTP, got {other:?}"),
    }
}

fn kinds(target: &str) -> Vec<TransportKind> {
    http(target).1
}

fn stdio(target: &str) -> StdioCommand {
    match detect_target(target, None) {
        Ok(DetectedTarget::Stdio(cmd)) => cmd,
        other => panic!("{target}: expected stdio, got {other:?}"),
    }
}

fn url_error(target: &str) -> String {
    match detect_target(target, None) {
        Err(TargetConfigError::InvalidUrl { detail }) => detail,
        other => panic!("{target}: expected InvalidUrl, got {other:?}"),
    }
}

const AUTO: [TransportKind; 3] = [StreamableHttp, Sse, PlainHttp];

#[test]
fn sse_paths_mean_legacy_sse_only() {
    for t in [
        "http://localhost:8000/sse",
        "http://localhost:8000/sse/",
        "http://localhost:8000/sse?x=1",
        "http://localhost:8000/sse/?x=1&y=2",
        "https://api.example.com/v1/sse",
        "http://h/sse#frag",
    ] {
        assert_eq!(kinds(t), [Sse], "{t}");
    }
}

#[test]
fn mcp_paths_mean_streamable_http_only() {
    for t in ["http://localhost:8931/mcp", "http://localhost:8931/mcp/", "https://h/api/mcp?session=1"] {
        assert_eq!(kinds(t), [StreamableHttp], "{t}");
    }
}

#[test]
fn other_paths_try_streamable_then_sse_then_plain() {
    for t in [
        "http://custom.com/api",
        "http://custom.com",
        "http://custom.com/",
        "https://h/mcp-sse",
        "https://h/ssex",
        "https://h/SSE",
        "https://h/mcp/tools",
        "http://h/?path=/sse",
    ] {
        assert_eq!(kinds(t), AUTO, "{t}");
    }
}

#[test]
fn urls_are_normalised() {
    assert_eq!(http("HTTPS://Example.COM:8443/mcp").0, "https://example.com:8443/mcp");
    assert_eq!(http("http://h:80/mcp").0, "http://h/mcp");
    assert_eq!(http("https://h:443").0, "https://h/");
    assert_eq!(http("http://h:/x").0, "http://h/x");
    assert_eq!(http("  http://h/mcp?a=1#frag  ").0, "http://h/mcp?a=1");
    assert_eq!(http("http://127.0.0.1:3000/sse").0, "http://127.0.0.1:3000/sse");
    let u = HttpUrl::parse("https://API.example.com:8443/v1/mcp?x=1").unwrap();
    assert!(u.is_https());
    assert_eq!((u.host(), u.port()), ("api.example.com", 8443));
    assert_eq!(u.authority(), "api.example.com:8443");
    assert_eq!(u.request_target(), "/v1/mcp?x=1");
    assert_eq!(u.as_str(), "https://api.example.com:8443/v1/mcp?x=1");
    let u = HttpUrl::parse("http://h?q").unwrap();
    assert_eq!((u.port(), u.request_target().as_str(), u.authority().as_str()), (80, "/?q", "h"));
}

#[test]
fn ipv6_literals() {
    let (url, k) = http("http://[::1]:8080/mcp");
    assert_eq!((url.as_str(), k), ("http://[::1]:8080/mcp", vec![StreamableHttp]));
    assert_eq!(http("http://[0:0::1]/sse").0, "http://[::1]/sse");
    assert_eq!(http("https://[2001:DB8::1]").0, "https://[2001:db8::1]/");
    let u = HttpUrl::parse("http://[fe80::1]:9000/x").unwrap();
    assert_eq!((u.host(), u.port(), u.authority().as_str()), ("fe80::1", 9000, "[fe80::1]:9000"));
}

#[test]
fn bad_urls_are_rejected() {
    for t in [
        "http://",
        "http:///mcp",
        "http://:8080/mcp",
        "http://host:abc/",
        "http://host:0/",
        "http://host:70000/",
        "http://host:-1/",
        "http://[::1/mcp",
        "http://[zz::1]/",
        "http://[::1]x/",
        "http://::1/mcp",
        "http://ho st/mcp",
        "http://host/a b",
        "http://host/a\tb",
        "http://ho\\st/",
        "http://host/a\\b",
        "http://ho%st/",
        "http:host/mcp",
        "https:/host/mcp",
    ] {
        url_error(t);
    }
    assert!(url_error("ws://host/mcp").contains("\"ws\""));
    // Non-ASCII is normalised as WHATWG does (IDNA host, percent-encoded path), not refused.
    assert_eq!(http("http://hóst/pâth").0, "http://xn--hst-gna/p%C3%A2th");
    assert!(url_error("ftp://files/x").contains("\"ftp\""));
    assert!(matches!(HttpUrl::parse("stdio://x"), Err(TargetConfigError::InvalidUrl { .. })));
    assert!(matches!(HttpUrl::parse(""), Err(TargetConfigError::InvalidUrl { .. })));
}

#[test]
fn credentials_in_urls_are_rejected_without_echoing_them() {
    for t in ["http://user:hunter2pw@host/mcp", "https://tokenonly@host/sse", "http://a@b@host/"] {
        let detail = url_error(t);
        assert!(detail.contains("Authorization"), "{detail}");
        assert!(!detail.contains("hunter2pw") && !detail.contains("tokenonly"), "{detail}");
    }
    // An '@' after the authority is part of the path or query, not userinfo.
    assert_eq!(http("http://host/@scope/pkg?a=b@c").0, "http://host/@scope/pkg?a=b@c");
}

#[test]
fn forced_transports() {
    let forced = |t: &str, k: TransportKind| detect_target(t, Some(k));
    let kinds_of = |r: Result<DetectedTarget, TargetConfigError>| match r.unwrap() {
        DetectedTarget::Http { kinds, .. } => kinds,
        other => panic!("{other:?}"),
    };
    assert_eq!(kinds_of(forced("http://custom.com/api", StreamableHttp)), [StreamableHttp]);
    assert_eq!(kinds_of(forced("http://h/mcp", Sse)), [Sse]);
    assert_eq!(kinds_of(forced("http://h/sse", PlainHttp)), [PlainHttp]);
    let err = forced("http://h/mcp", TransportKind::Stdio).unwrap_err();
    assert_eq!(err, TargetConfigError::ForcedMismatch { forced: TransportKind::Stdio, target_is_url: true });
    assert!(err.to_string().contains("stdio"));
    for t in ["npx server", "stdio://npx server"] {
        let err = forced(t, Sse).unwrap_err();
        assert_eq!(err, TargetConfigError::ForcedMismatch { forced: Sse, target_is_url: false });
        assert!(err.to_string().contains("http://"), "{err}");
        assert!(matches!(forced(t, TransportKind::Stdio), Ok(DetectedTarget::Stdio(_))));
    }
    // The target's shape is checked before the URL itself.
    assert!(matches!(forced("http://", TransportKind::Stdio), Err(TargetConfigError::ForcedMismatch { .. })));
}

#[test]
fn stdio_targets() {
    let c = stdio("stdio://python3 server.py --x");
    assert_eq!(
        (c.program_lossy(), c.args_lossy()),
        ("python3".into(), vec!["server.py".to_owned(), "--x".into()])
    );
    assert_eq!(stdio("STDIO://npx -y pkg").program, "npx");
    let c = stdio(r#"npx -y "@scope/pkg name" 'a b' c\ d"#);
    assert_eq!(c.args, ["-y", "@scope/pkg name", "a b", "c d"]);
    assert_eq!(stdio("  /usr/bin/my-server  ").program, "/usr/bin/my-server");
    // A URL inside a command line is an argument, not the target.
    assert_eq!(stdio("npx mcp-remote https://h/mcp").args, ["mcp-remote", "https://h/mcp"]);
    assert_eq!(stdio(r"C:\tools\server.exe --port 1").args, ["--port", "1"]);
    let err = |t: &str| detect_target(t, None).unwrap_err();
    assert_eq!(err(""), TargetConfigError::Target(TargetError::Empty));
    assert_eq!(err("   "), TargetConfigError::Target(TargetError::Empty));
    assert_eq!(err("stdio://"), TargetConfigError::Target(TargetError::Empty));
    assert_eq!(err("npx 'open"), TargetConfigError::Target(TargetError::UnterminatedQuote));
    assert!(
        matches!(err("stdio://http://h/mcp?token=x"), TargetConfigError::InvalidUrl { detail } if !detail.contains("token"))
    );
}

#[test]
fn argv_targets_are_always_stdio() {
    let argv = |a: &[&str]| detect_argv(&a.iter().map(|s| s.to_string()).collect::<Vec<_>>());
    let Ok(DetectedTarget::Stdio(c)) = argv(&["node", "server.js", "a b"]) else { panic!() };
    assert_eq!(
        (c.program_lossy(), c.args_lossy()),
        ("node".into(), vec!["server.js".to_owned(), "a b".into()])
    );
    assert!(matches!(argv(&["http://h/mcp"]), Ok(DetectedTarget::Stdio(_))));
    assert_eq!(argv(&[]).unwrap_err(), TargetConfigError::Target(TargetError::Empty));
    assert_eq!(argv(&[""]).unwrap_err(), TargetConfigError::Target(TargetError::Empty));
}

#[test]
fn origins() {
    assert_eq!(origin("https://Example.com:443/x?y=1").as_deref(), Some("https://example.com"));
    assert_eq!(origin("http://example.com:80").as_deref(), Some("http://example.com"));
    assert_eq!(origin("http://h:8080/mcp").as_deref(), Some("http://h:8080"));
    assert_eq!(origin("https://h:80/").as_deref(), Some("https://h:80"));
    assert_eq!(origin("http://[::1]:80/sse").as_deref(), Some("http://[::1]"));
    assert_eq!(origin(" http://[0::1]:3000/ ").as_deref(), Some("http://[::1]:3000"));
    assert_eq!(origin("http://h/a"), origin("HTTP://H:80/b?c"));
    assert_ne!(origin("http://h/"), origin("https://h/"));
    assert_ne!(origin("http://h/"), origin("http://h.evil/"));
    for bad in ["", "h/mcp", "ftp://h/", "http://u:p@h/", "http://", "//h/x"] {
        assert_eq!(origin(bad), None, "{bad}");
    }
}

#[test]
fn transport_names() {
    for (name, kind) in [
        ("stdio", TransportKind::Stdio),
        ("http", StreamableHttp),
        ("streamable-http", StreamableHttp),
        ("streamableHttp", StreamableHttp),
        ("streamable_http", StreamableHttp),
        ("SSE", Sse),
        ("plain-http", PlainHttp),
        ("plain_http", PlainHttp),
    ] {
        assert_eq!(TransportKind::from_name(name), Some(kind), "{name}");
    }
    assert_eq!(TransportKind::from_name("websocket"), None);
    for k in [TransportKind::Stdio, StreamableHttp, Sse, PlainHttp] {
        assert_eq!(TransportKind::from_name(&k.to_string()), Some(k));
        assert_eq!(k.is_http(), k != TransportKind::Stdio);
    }
}

#[test]
fn suggested_names() {
    let name = |t: &str| detect_target(t, None).unwrap().suggested_name();
    assert_eq!(name("npx -y @modelcontextprotocol/server-everything"), "server-everything");
    assert_eq!(name("https://API.example.com:8443/mcp"), "api.example.com");
    assert_eq!(name("http://[::1]:3000/sse"), "::1");
}

const CLAUDE_DESKTOP: &str = r#"{
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop", "/Users/me/My Files"]
    },
    "github": {
      "command": "docker",
      "args": ["run", "-i", "--rm", "-e", "GITHUB_PERSONAL_ACCESS_TOKEN", "ghcr.io/github/github-mcp-server"],
      "env": { "GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_EnvSecret0001" }
    },
    "brave-search": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-brave-search"],
      "env": { "BRAVE_API_KEY": "EnvSecret0002", "LOG_LEVEL": "debug" },
      "cwd": "/tmp"
    },
    "remote-bridge": {
      "command": "npx",
      "args": ["mcp-remote", "https://remote.example.com/mcp?token=QuerySecret0003",
               "--header", "Authorization: Bearer ArgSecret0004", "--api-key", "ArgSecret0005"]
    },
    "old": { "command": "python3", "args": ["old.py"], "disabled": true }
  },
  "globalShortcut": "Ctrl+Space"
}"#;

const VS_CODE: &str = r#"{
  // Inputs are prompted for on first start and stored by VS Code.
  "inputs": [
    { "type": "promptString", "id": "api-key", "description": "API key", "password": true }
  ],
  "servers": {
    "Perplexity": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "server-perplexity-ask"],
      "env": { "PERPLEXITY_API_KEY": "${input:api-key}" },
    },
    "my-remote": {
      "type": "http",
      "url": "https://api.example.com/mcp", // streamable HTTP
      "headers": { "Authorization": "Bearer HeaderSecret0006", "X-Trace": "on", "Cookie": "sid=HeaderSecret0007" }
    },
    /* a legacy server, kept for now */
    "legacy": { "type": "sse", "url": "http://localhost:3000/sse", "headers": { "X-Api-Key": "HeaderSecret0008" } },
    "gateway": { "url": "https://gw.example.com/v1?api_key=QuerySecret0009&region=eu" },
  },
}"#;

const SECRETS: [&str; 9] = [
    "ghp_EnvSecret0001",
    "EnvSecret0002",
    "QuerySecret0003",
    "ArgSecret0004",
    "ArgSecret0005",
    "HeaderSecret0006",
    "HeaderSecret0007",
    "HeaderSecret0008",
    "QuerySecret0009",
];

fn assert_no_secrets(text: &str) {
    for s in SECRETS {
        assert!(!text.contains(s), "{s} leaked in: {text}");
    }
}

fn entry<'a>(entries: &'a [ServerEntry], name: &str) -> &'a ServerEntry {
    entries.iter().find(|e| e.name == name).unwrap_or_else(|| panic!("no entry {name}"))
}

fn command(e: &ServerEntry) -> &StdioCommand {
    match &e.transport {
        EntryTransport::Stdio(cmd) => cmd,
        other => panic!("{other:?}"),
    }
}

#[test]
fn claude_desktop_config() {
    let entries = parse_mcp_servers(CLAUDE_DESKTOP).unwrap();
    let names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["brave-search", "filesystem", "github", "remote-bridge"]);
    let fs = command(entry(&entries, "filesystem"));
    assert_eq!(fs.program, "npx");
    assert_eq!(fs.args[3], "/Users/me/My Files");
    let brave = command(entry(&entries, "brave-search"));
    assert_eq!(brave.cwd.as_deref(), Some(std::path::Path::new("/tmp")));
    assert!(brave.env.contains(&("BRAVE_API_KEY".into(), "EnvSecret0002".into())));
    assert_eq!(brave.env.len(), 2);
    assert_eq!(entry(&entries, "github").kinds_for_test(), [TransportKind::Stdio]);
}

impl ServerEntry {
    fn kinds_for_test(&self) -> Vec<TransportKind> {
        self.transport.kinds()
    }
}

#[test]
fn vs_code_config_with_comments_and_trailing_commas() {
    let entries = parse_mcp_servers(VS_CODE).unwrap();
    let names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["Perplexity", "gateway", "legacy", "my-remote"]);
    assert_eq!(command(entry(&entries, "Perplexity")).env[0].1, "${input:api-key}");
    let EntryTransport::Http { url, kind, headers } = &entry(&entries, "my-remote").transport else {
        panic!()
    };
    assert_eq!((url.as_str(), *kind), ("https://api.example.com/mcp", Some(StreamableHttp)));
    assert_eq!(headers.len(), 3);
    assert!(headers.contains(&("X-Trace".into(), "on".into())));
    assert_eq!(entry(&entries, "legacy").kinds_for_test(), [Sse]);
    let gateway = entry(&entries, "gateway");
    assert!(matches!(&gateway.transport, EntryTransport::Http { kind: None, .. }));
    assert_eq!(gateway.kinds_for_test(), AUTO);
    let DetectedTarget::Http { url, kinds } = gateway.detected() else { panic!() };
    assert_eq!(
        (url.as_str(), kinds),
        ("https://gw.example.com/v1?api_key=QuerySecret0009&region=eu", AUTO.to_vec())
    );
    assert!(matches!(entry(&entries, "Perplexity").detected(), DetectedTarget::Stdio(_)));
}

#[test]
fn other_host_layouts() {
    // Cursor: no "type"; the URL decides.
    let e = parse_mcp_servers(r#"{"mcpServers": {"s": {"url": "http://localhost:3000/sse"}}}"#).unwrap();
    assert_eq!(e[0].kinds_for_test(), [Sse]);
    // VS Code settings.json nests the section under "mcp".
    let e =
        parse_mcp_servers(r#"{"editor.fontSize": 12, "mcp": {"servers": {"x": {"command": "x"}}}}"#).unwrap();
    assert_eq!(e[0].name, "x");
    // Both top-level keys are read together.
    let e =
        parse_mcp_servers(r#"{"mcpServers": {"b": {"command": "b"}}, "servers": {"a": {"command": "a"}}}"#);
    assert_eq!(e.unwrap().iter().map(|e| e.name.as_str()).collect::<Vec<_>>(), ["a", "b"]);
    // Every type spelling; unknown keys and nulls are ignored.
    for ty in ["http", "streamable-http", "streamableHttp", "streamable_http"] {
        let json =
            format!(r#"{{"servers": {{"s": {{"type": "{ty}", "url": "https://h/x", "timeout": 5}}}}}}"#);
        assert_eq!(parse_mcp_servers(&json).unwrap()[0].kinds_for_test(), [StreamableHttp], "{ty}");
    }
    let json = r#"{"mcpServers": {"s": {"command": "c", "args": null, "env": null, "autoApprove": ["x"]}}}"#;
    assert_eq!(command(&parse_mcp_servers(json).unwrap()[0]), &StdioCommand::new("c"));
    assert_eq!(parse_mcp_servers(r#"{"mcpServers": {}}"#).unwrap(), []);
    // Comment markers inside strings are content.
    let json = r#"{"mcpServers": {"s": {"command": "c", "args": ["a//b", "/*x*/", "q\"//"]}}}"#;
    assert_eq!(command(&parse_mcp_servers(json).unwrap()[0]).args, ["a//b", "/*x*/", "q\"//"]);
}

#[test]
fn disabled_entries_are_skipped() {
    let json = r#"{"mcpServers": {
        "on": {"command": "a", "disabled": false},
        "off": {"command": "b", "disabled": true},
        "broken-but-off": {"args": 5, "disabled": true}
    }}"#;
    let entries = parse_mcp_servers(json).unwrap();
    assert_eq!(entries.iter().map(|e| e.name.as_str()).collect::<Vec<_>>(), ["on"]);
    let json = r#"{"mcpServers": {"x": {"command": "a", "disabled": "yes"}}}"#;
    assert_eq!(parse_mcp_servers(json).unwrap_err(), invalid("x", "disabled", "must be true or false"));
}

#[test]
fn order_is_deterministic() {
    let json = r#"{"mcpServers": {"zeta": {"command": "z"}, "alpha": {"command": "a"}, "Mid": {"command": "m"},
        "beta": {"url": "http://h/mcp"}}}"#;
    let first = parse_mcp_servers(json).unwrap();
    let names: Vec<&str> = first.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["Mid", "alpha", "beta", "zeta"]);
    assert_eq!(parse_mcp_servers(json).unwrap(), first);
}

fn parse_err(servers: &str) -> TargetConfigError {
    parse_mcp_servers(&format!(r#"{{"mcpServers": {{{servers}}}}}"#)).unwrap_err()
}

#[test]
fn document_errors() {
    for bad in ["{", "not json", "{\"mcpServers\": {}} trailing", "/* open", "{\"a\": 1,, }"] {
        assert!(matches!(parse_mcp_servers(bad), Err(TargetConfigError::InvalidJson { .. })), "{bad}");
    }
    for bad in [
        "[]",
        "{}",
        "{\"other\": {}}",
        "{\"mcpServers\": []}",
        "{\"servers\": \"x\"}",
        "{\"mcp\": {\"servers\": 1}}",
    ] {
        assert!(matches!(parse_mcp_servers(bad), Err(TargetConfigError::InvalidConfig { .. })), "{bad}");
    }
    let json =
        r#"{"mcpServers": {"a": {"command": "x"}}, "servers": {"a": {"command": "y", "disabled": true}}}"#;
    assert_eq!(parse_mcp_servers(json).unwrap_err(), TargetConfigError::DuplicateServer { name: "a".into() });
}

#[test]
fn entry_errors() {
    let entry_err = |e: TargetConfigError, server: &str| {
        assert!(matches!(&e, TargetConfigError::InvalidEntry { server: s, .. } if s == server), "{e:?}");
    };
    entry_err(parse_err(r#""x": "npx server""#), "x");
    entry_err(parse_err(r#""x": {}"#), "x");
    entry_err(parse_err(r#""x": {"command": "c", "url": "http://h/mcp"}"#), "x");
    entry_err(parse_err(r#""": {"command": "c"}"#), "");
    let missing = |server: &str, field| TargetConfigError::MissingField { server: server.into(), field };
    assert_eq!(parse_err(r#""x": {"type": "stdio"}"#), missing("x", "command"));
    assert_eq!(parse_err(r#""x": {"type": "stdio", "url": "http://h/mcp"}"#), missing("x", "command"));
    assert_eq!(parse_err(r#""x": {"type": "sse"}"#), missing("x", "url"));
    assert_eq!(parse_err(r#""x": {"type": "http", "command": "c"}"#), missing("x", "url"));
    assert_eq!(missing("x", "url").to_string(), r#"server "x": missing "url""#);
}

#[test]
fn field_errors() {
    let field_of = |e: TargetConfigError| match e {
        TargetConfigError::InvalidField { server, field, .. } if server == "x" => field,
        other => panic!("{other:?}"),
    };
    for (entry, field) in [
        (r#"{"command": 5}"#, "command"),
        (r#"{"command": ""}"#, "command"),
        (r#"{"command": "  "}"#, "command"),
        (r#"{"command": "c", "args": "-y pkg"}"#, "args"),
        (r#"{"command": "c", "args": ["a", 1]}"#, "args"),
        (r#"{"command": "c", "args": ["a\u0000"]}"#, "args"),
        (r#"{"command": "c", "env": ["A=1"]}"#, "env"),
        (r#"{"command": "c", "env": {"PORT": 8080}}"#, "env"),
        (r#"{"command": "c", "env": {"": "v"}}"#, "env"),
        (r#"{"command": "c", "env": {"A": "v\u0000"}}"#, "env"),
        (r#"{"command": "c", "cwd": 1}"#, "cwd"),
        (r#"{"command": "c", "cwd": ""}"#, "cwd"),
        (r#"{"command": "c", "type": 1}"#, "type"),
        (r#"{"url": "http://h/mcp", "type": "websocket"}"#, "type"),
        (r#"{"url": 5}"#, "url"),
        (r#"{"url": "ftp://h/mcp"}"#, "url"),
        (r#"{"url": "not a url"}"#, "url"),
        (r#"{"url": "http://h/mcp", "headers": ["A: b"]}"#, "headers"),
        (r#"{"url": "http://h/mcp", "headers": {"A": 1}}"#, "headers"),
        (r#"{"url": "http://h/mcp", "headers": {"": "v"}}"#, "headers"),
        (r#"{"url": "http://h/mcp", "headers": {"X-A": "v\r\nX-Injected: 1"}}"#, "headers"),
        (r#"{"url": "http://h/mcp", "headers": {"X-A": "v\u0000"}}"#, "headers"),
        (r#"{"url": "http://h/mcp", "headers": {"X-A": "1", "x-a": "2"}}"#, "headers"),
        (r#"{"url": "http://h/mcp", "headers": {"Content-Length": "0"}}"#, "headers"),
        (r#"{"url": "http://h/mcp", "headers": {"host": "evil"}}"#, "headers"),
    ] {
        assert_eq!(field_of(parse_err(&format!(r#""x": {entry}"#))), field, "{entry}");
    }
    let e = parse_err(r#""x": {"command": "npx", "args": "-y pkg"}"#);
    assert_eq!(e.to_string(), r#"server "x": "args" must be an array of strings"#);
    let e = parse_err(r#""x": {"url": "http://h/mcp", "type": "websocket"}"#);
    assert!(e.to_string().contains("\"websocket\""), "{e}");
    // Tab is allowed inside a header value.
    assert!(
        parse_mcp_servers(r#"{"servers": {"x": {"url": "http://h/", "headers": {"A": "a\tb"}}}}"#).is_ok()
    );
}

#[test]
fn errors_do_not_echo_credentials() {
    let cases = [
        r#""x": {"url": "https://user:PwSecret1@h/mcp"}"#,
        r#""x": {"url": "https://h/mcp?token=PwSecret1 x"}"#,
        r#""x": {"url": "http://h/", "headers": {"Authorization: Bearer PwSecret1": "v"}}"#,
        r#""x": {"url": "http://h/", "headers": {"Authorization": "Bearer PwSecret1\n"}}"#,
        r#""x": {"command": "c", "env": {"API_KEY=PwSecret1": "v"}}"#,
        r#""x": {"command": "c", "env": {"API_KEY": "PwSecret1\u0000"}}"#,
    ];
    for case in cases {
        let e = parse_err(case);
        assert!(!e.to_string().contains("PwSecret1"), "{e}");
        assert!(!format!("{e:?}").contains("PwSecret1"), "{e:?}");
    }
    let e = parse_err(cases[2]);
    assert!(e.to_string().contains("\"Authorization…\""), "{e}");
    assert!(parse_err(cases[4]).to_string().contains("\"API_KEY…\""));
    assert!(parse_err(cases[0]).to_string().starts_with(r#"server "x": "url" is not usable: credentials"#));
}

#[test]
fn configs_are_redacted_in_display_and_debug() {
    for json in [CLAUDE_DESKTOP, VS_CODE] {
        let entries = parse_mcp_servers(json).unwrap();
        assert_no_secrets(&format!("{entries:?}"));
        assert_no_secrets(&format!("{entries:#?}"));
        for e in &entries {
            assert_no_secrets(&e.to_string());
            assert_no_secrets(&e.redacted());
            assert_no_secrets(&format!("{:?} {}", e.transport, e.transport));
            assert_no_secrets(&e.detected().to_string());
            assert_no_secrets(&format!("{:?}", e.detected()));
        }
    }
    let entries = parse_mcp_servers(CLAUDE_DESKTOP).unwrap();
    let brave = entry(&entries, "brave-search").to_string();
    assert_eq!(
        brave,
        "brave-search: stdio: npx -y @modelcontextprotocol/server-brave-search \
         [env: BRAVE_API_KEY=***, LOG_LEVEL=***] [cwd: /tmp]"
    );
    let fs = entry(&entries, "filesystem").to_string();
    assert!(fs.ends_with("/Users/me/Desktop '/Users/me/My Files'"), "{fs}");
    let bridge = entry(&entries, "remote-bridge").to_string();
    assert!(bridge.contains("https://remote.example.com/mcp?token=***"), "{bridge}");
    assert!(bridge.contains("'Authorization: ***' --api-key ***"), "{bridge}");
    let entries = parse_mcp_servers(VS_CODE).unwrap();
    let remote = entry(&entries, "my-remote").to_string();
    assert!(
        remote.starts_with("my-remote: https://api.example.com/mcp (streamable-http) [headers: "),
        "{remote}"
    );
    for shown in ["Authorization: ***", "Cookie: ***", "X-Trace: on"] {
        assert!(remote.contains(shown), "{remote}");
    }
    let gateway = format!("{:?}", entry(&entries, "gateway"));
    assert!(gateway.contains("api_key=***&region=eu") && gateway.contains("kind: None"), "{gateway}");
}

#[test]
fn detected_targets_are_redacted() {
    let t = detect_target("https://h.example/mcp?access_token=TgtSecret1&key=TgtSecret2&v=2", None).unwrap();
    let shown = format!("{t} {t:?} {}", t.redacted());
    assert!(!shown.contains("TgtSecret"), "{shown}");
    assert!(shown.contains("access_token=***&key=***&v=2"), "{shown}");
    assert_eq!(t.to_string(), "https://h.example/mcp?access_token=***&key=***&v=2 (via streamable-http)");
    let t = detect_target("http://h/api", None).unwrap();
    assert_eq!(t.to_string(), "http://h/api (via streamable-http, then sse, then plain-http)");
    let t = detect_target("server --token=TgtSecret3 --password TgtSecret4 'a b'", None).unwrap();
    assert_eq!(t.to_string(), "stdio: server --token=*** --password *** 'a b'");
    let dbg = format!("{t:?}");
    assert!(!dbg.contains("TgtSecret") && dbg.contains("\"--token=***\""), "{dbg}");
    let url = HttpUrl::parse("https://h/mcp?token=TgtSecret5").unwrap();
    assert_eq!(format!("{url:?}"), r#"HttpUrl("https://h/mcp?token=***")"#);
    assert_eq!(url.as_str(), "https://h/mcp?token=TgtSecret5");
}

#[test]
fn stdio_debug_never_shows_env_values() {
    let cmd = StdioCommand::new("srv").arg("--verbose").env("OPENAI_API_KEY", "EnvSecretX").env("HOME", "/h");
    let t = DetectedTarget::Stdio(cmd.clone());
    let e = ServerEntry { name: "s".into(), transport: EntryTransport::Stdio(cmd.clone()) };
    for text in [format!("{t:?}"), t.to_string(), format!("{e:?}"), e.to_string(), redact_command(&cmd)] {
        assert!(!text.contains("EnvSecretX") && !text.contains("/h\""), "{text}");
        assert!(text.contains("OPENAI_API_KEY=***") && text.contains("HOME=***"), "{text}");
    }
    assert_eq!(redact_command(&cmd), "srv --verbose [env: OPENAI_API_KEY=***, HOME=***]");
}

#[test]
fn argument_redaction() {
    let args: Vec<String> = [
        "--token=A1secret",
        "--api-key",
        "A2secret",
        "API_KEY=A3secret",
        "-H",
        "Authorization: Bearer A4secret",
        "https://h/x?token=A5secret&page=1",
        "--url=https://h/y?api_key=A6secret",
        "--header=X-Api-Key: A7secret",
        "Bearer A8secret",
        "sk0123456789abcdefghijklmnopqrstuvwxyzA9",
        "--verbose",
        "plain",
        "--port",
        "8080",
        "-e",
        "GITHUB_TOKEN",
        "https://mcp.zapier.com/api/mcp/s/Zk0123456789abcdefghijklmnopqrstuv/mcp",
    ]
    .map(String::from)
    .to_vec();
    let out = redact_args(&args);
    let joined = out.join(" ");
    assert!(!joined.contains("secret") && !joined.contains("A9") && !joined.contains("Zk01"), "{joined}");
    assert_eq!(out[0], "--token=***");
    assert_eq!((out[1].as_str(), out[2].as_str()), ("--api-key", "***"));
    assert_eq!(out[3], "API_KEY=***");
    assert_eq!(out[5], "Authorization: ***");
    assert_eq!(out[6], "https://h/x?token=***&page=1");
    assert_eq!(out[7], "--url=https://h/y?api_key=***");
    assert_eq!(out[8], "--header=X-Api-Key: ***");
    assert_eq!(&out[11..17], &args[11..17]);
    assert_eq!(out[17], "https://mcp.zapier.com/api/mcp/s/***/mcp");
    // A redacted display still splits back into the same number of words.
    let cmd = StdioCommand::new("prog").args(args.clone());
    let words = split_command_line(&redact_command(&cmd)).unwrap();
    assert_eq!(words.len(), args.len() + 1);
    assert_eq!(words[6], "Authorization: ***");
}

#[test]
fn url_and_name_redaction() {
    assert_eq!(redact_url("http://u:p4ss@h:8080/x?a=1"), "http://***@h:8080/x?a=1");
    assert_eq!(redact_url("https://h/cb#access_token=F1&state=s"), "https://h/cb#access_token=***&state=s");
    assert_eq!(
        redact_url("https://h/?X-Amz-Signature=abc&sig=def&Key=g&q"),
        "https://h/?X-Amz-Signature=***&sig=***&Key=***&q"
    );
    assert_eq!(redact_url("not a url"), "not a url");
    assert_eq!(redact_url("https://h/plain/path?page=2"), "https://h/plain/path?page=2");
    for name in [
        "Authorization",
        "proxy-authorization",
        "Cookie",
        "set-cookie",
        "X-Api-Key",
        "api-key",
        "X-Auth-Token",
        "x-goog-api-key",
        "GITHUB_TOKEN",
        "client_secret",
        "PASSWORD",
        "apikey",
        "access_token",
    ] {
        assert!(is_sensitive_name(name), "{name}");
    }
    for name in ["Accept", "X-Trace", "page", "region", "LOG_LEVEL", "Content-Type", "User-Agent", "verbose"]
    {
        assert!(!is_sensitive_name(name), "{name}");
    }
    assert_eq!(redact_header_value("X-Trace", "on"), "on");
    assert_eq!(redact_header_value("X-Forward", "Bearer abc"), "***");
    assert_eq!(redact_header_value("x-api-key", "k"), "***");
}

#[test]
fn jsonc_is_stripped_without_touching_strings() {
    let src = "{\n  // c1 \"not a string\n  \"a\": [1, 2,], /* c2\n */ \"b\": \"x//y/*z*/\",\n}";
    let out = strip_jsonc(src).unwrap();
    assert_eq!(out.lines().count(), src.lines().count());
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v, serde_json::json!({"a": [1, 2], "b": "x//y/*z*/"}));
    assert_eq!(strip_jsonc("{\"a\": \"\\\\\", }").unwrap().replace(' ', ""), "{\"a\":\"\\\\\"}");
    assert!(strip_jsonc("/* never closed").is_err());
}

proptest::proptest! {
    #[test]
    fn arbitrary_input_never_panics(s in "\\PC{0,80}", t in "[ -~]{0,40}") {
        let _ = detect_target(&s, None);
        let _ = detect_target(&format!("http://{t}"), Some(Sse));
        let _ = origin(&s);
        let _ = parse_mcp_servers(&s);
        let _ = parse_mcp_servers(&format!(r#"{{"mcpServers": {{"x": {{"url": "{t}", "headers": {{"{t}": "{t}"}}}}}}}}"#));
        let _ = redact_url(&s);
        let _ = redact_args(&[s.clone(), t.clone()]);
    }

    #[test]
    fn query_credentials_never_show(secret in "[A-Za-z0-9]{6,20}", name in "(token|api_key|access_token|key|auth|password)") {
        let target = format!("https://h.example/mcp?{name}={secret}&page=1");
        let t = detect_target(&target, None).unwrap();
        for shown in [t.to_string(), format!("{t:?}"), redact_url(&target)] {
            proptest::prop_assert!(!shown.contains(&secret), "{}", shown);
        }
    }
}
