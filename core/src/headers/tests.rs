//! Tests for `headers`: the spec's and SEP-2243's examples verbatim, then edge cases.

use proptest::prelude::*;
use serde_json::json;

use super::*;

fn enc(v: &str) -> String {
    encode_header_value(v)
}

// --- value encoding -------------------------------------------------------------------------

#[test]
fn spec_encoding_examples() {
    // streamable-http.mdx §Value Encoding table.
    assert_eq!(enc("us-west1"), "us-west1");
    assert_eq!(enc("Hello, 世界"), "=?base64?SGVsbG8sIOS4lueVjA==?=");
    assert_eq!(enc(" padded "), "=?base64?IHBhZGRlZCA=?=");
    assert_eq!(enc("line1\nline2"), "=?base64?bGluZTEKbGluZTI=?=");
    assert_eq!(enc("=?base64?literal?="), "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=");
}

#[test]
fn sep_encoding_edge_cases() {
    // SEP-2243 §Value Encoding Edge Cases.
    assert_eq!(enc(" us-west1"), "=?base64?IHVzLXdlc3Qx?=");
    assert_eq!(enc("us-west1 "), "=?base64?dXMtd2VzdDEg?=");
    assert_eq!(enc(" us-west1 "), "=?base64?IHVzLXdlc3QxIA==?=");
    assert_eq!(enc("us west 1"), "us west 1");
    assert_eq!(enc("日本語"), "=?base64?5pel5pys6Kqe?=");
    assert_eq!(enc("line1\r\nline2"), "=?base64?bGluZTENCmxpbmUy?=");
    assert_eq!(enc("\tindented"), "=?base64?CWluZGVudGVk?=");
    assert_eq!(enc(""), "");
    // Special characters sent as-is.
    for v in [
        "my-tool-name",
        "my_tool_name",
        "file:///path/to/file%20name.txt",
        "https://example.com/resource?id=123",
    ] {
        assert_eq!(enc(v), v);
    }
}

#[test]
fn control_and_non_ascii_are_encoded() {
    for v in ["a\0b", "a\tb", "tab\t", "a\x7fb", "a\x1bb", "é", "emoji 🎉", "\u{2028}", "\r", " ", "  "] {
        let e = enc(v);
        assert!(e.starts_with("=?base64?") && e.ends_with("?="), "{v:?} -> {e}");
        assert!(is_header_safe(&e));
        assert_eq!(decode_header_value(&e).unwrap(), v);
    }
    // Every visible ASCII character and inner spaces pass through.
    let visible: String = (0x21u8..=0x7e).map(char::from).collect();
    assert_eq!(enc(&visible), visible);
    assert_eq!(enc("a b  c"), "a b  c");
}

#[test]
fn sentinel_lookalikes() {
    for v in ["=?base64?SGVsbG8=?=", "=?base64??=", "=?base64?=", "=?base64?x?="] {
        let e = enc(v);
        assert_ne!(e, v);
        assert_eq!(decode_header_value(&e).unwrap(), v);
    }
    // Not the pattern: sent as-is (markers are case-sensitive; both ends required).
    for v in ["=?BASE64?SGVsbG8=?=", "=?base64?SGVsbG8=", "SGVsbG8=?=", "x=?base64?a?="] {
        assert_eq!(enc(v), v);
    }
}

#[test]
fn decoding() {
    // SEP-2243 §Base64 Decoding.
    assert_eq!(decode_header_value("=?base64?SGVsbG8=?=").unwrap(), "Hello");
    assert!(matches!(decode_header_value("=?base64?SGVsbG8?="), Err(HeaderError::InvalidBase64(_))));
    assert!(matches!(decode_header_value("=?base64?SGVs!!!bG8=?="), Err(HeaderError::InvalidBase64(_))));
    assert_eq!(decode_header_value("SGVsbG8=").unwrap(), "SGVsbG8=");
    assert_eq!(decode_header_value("=?base64?SGVsbG8=").unwrap(), "=?base64?SGVsbG8=");
    assert_eq!(decode_header_value("=?BASE64?SGVsbG8=?=").unwrap(), "=?BASE64?SGVsbG8=?=");
    // Invalid UTF-8 payload (0xff), invalid literal characters.
    assert_eq!(decode_header_value("=?base64?/w==?="), Err(HeaderError::InvalidUtf8));
    assert_eq!(decode_header_value("a\nb"), Err(HeaderError::UnsafeValue));
    assert_eq!(decode_header_value("é"), Err(HeaderError::UnsafeValue));
    assert_eq!(decode_header_value("a\tb").unwrap(), "a\tb");
    assert_eq!(decode_header_value("=?base64??=").unwrap(), "");
}

// --- Mcp-Name -------------------------------------------------------------------------------

#[test]
fn mcp_name_sources() {
    let p = json!({"name": "get_weather", "uri": "file:///projects/myapp/config.json", "taskId": "t-1"});
    assert_eq!(mcp_name("tools/call", &p).as_deref(), Some("get_weather"));
    assert_eq!(mcp_name("prompts/get", &json!({"name": "code_review"})).as_deref(), Some("code_review"));
    assert_eq!(mcp_name("resources/read", &p).as_deref(), Some("file:///projects/myapp/config.json"));
    for m in ["tasks/get", "tasks/update", "tasks/cancel"] {
        assert_eq!(mcp_name(m, &p).as_deref(), Some("t-1"));
    }
    assert_eq!(mcp_name("tasks/list", &json!({})), None);
    assert_eq!(mcp_name("tools/list", &p), None);
    assert_eq!(mcp_name("server/discover", &p), None);
    assert_eq!(mcp_name("tools/call", &json!({"name": 7})), None);
    assert_eq!(mcp_name("tools/call", &json!(null)), None);
    assert_eq!(mcp_name("tools/call", &json!({"name": "météo"})).as_deref(), Some("=?base64?bcOpdMOpbw==?="));
}

// --- x-mcp-header ---------------------------------------------------------------------------

fn schema(props: Value) -> Value {
    json!({"type": "object", "properties": props})
}

fn ph(header: &str, path: &[&str]) -> ParamHeader {
    ParamHeader { header: header.into(), pointer: path.iter().map(|s| (*s).to_owned()).collect() }
}

#[test]
fn spec_execute_sql_example() {
    let tool = json!({
        "type": "object",
        "properties": {
            "region": {"type": "string", "description": "The region to execute the query in", "x-mcp-header": "Region"},
            "query": {"type": "string", "description": "The SQL query to execute"}
        },
        "required": ["region", "query"]
    });
    let headers = param_headers(&tool).unwrap();
    assert_eq!(headers, vec![ph("Region", &["region"])]);
    let args = json!({"region": "us-west1", "query": "SELECT * FROM users"});
    assert_eq!(
        param_header_values(&headers, &args),
        vec![("Mcp-Param-Region".to_owned(), "us-west1".to_owned())]
    );
}

#[test]
fn no_annotations() {
    assert_eq!(param_headers(&json!({"type": "object"})).unwrap(), vec![]);
    assert_eq!(param_headers(&json!({"type": "object", "additionalProperties": false})).unwrap(), vec![]);
    assert_eq!(param_headers(&json!(true)).unwrap(), vec![]);
    assert_eq!(param_headers(&schema(json!({"a": {"type": "string"}}))).unwrap(), vec![]);
    // A property literally named `x-mcp-header` is not an annotation.
    assert_eq!(param_headers(&schema(json!({"x-mcp-header": {"type": "string"}}))).unwrap(), vec![]);
    // Data keywords are not inspected.
    let s = schema(
        json!({"a": {"type": "object", "default": {"x-mcp-header": "A"}, "examples": [{"x-mcp-header": "B"}]}}),
    );
    assert_eq!(param_headers(&s).unwrap(), vec![]);
}

#[test]
fn nested_properties_are_reachable() {
    let s = schema(json!({
        "target": {"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "shard": {"type": "object", "properties": {"id": {"type": "integer", "x-mcp-header": "Shard"}}}
        }},
        "dry": {"type": "boolean", "x-mcp-header": "Dry-Run"},
        "tenant": {"type": ["string", "null"], "x-mcp-header": "Method"}
    }));
    let mut headers = param_headers(&s).unwrap();
    headers.sort_by(|a, b| a.header.cmp(&b.header));
    assert_eq!(
        headers,
        vec![
            ph("Dry-Run", &["dry"]),
            ph("Method", &["tenant"]),
            ph("Region", &["target", "region"]),
            ph("Shard", &["target", "shard", "id"])
        ]
    );
    let args = json!({"target": {"region": "eu", "shard": {"id": 12}}, "dry": false, "tenant": null});
    let mut values = param_header_values(&headers, &args);
    values.sort();
    assert_eq!(
        values,
        vec![
            ("Mcp-Param-Dry-Run".to_owned(), "false".to_owned()),
            ("Mcp-Param-Region".to_owned(), "eu".to_owned()),
            ("Mcp-Param-Shard".to_owned(), "12".to_owned()),
        ]
    );
}

#[test]
fn invalid_annotation_values() {
    let check = |v: Value| param_headers(&schema(json!({"p": {"type": "string", "x-mcp-header": v}})));
    assert!(matches!(check(json!("")), Err(HeaderError::EmptyAnnotation { .. })));
    assert!(matches!(check(json!(5)), Err(HeaderError::AnnotationNotString { .. })));
    assert!(matches!(check(json!(null)), Err(HeaderError::AnnotationNotString { .. })));
    // SEP-2243 §Invalid x-mcp-header Values, plus other non-token characters.
    for bad in [
        "My Region",
        "Region:Primary",
        "Région",
        "Region\t1",
        "a\r\nX-Evil: 1",
        "a\0",
        "a/b",
        "(x)",
        "a\"b",
        "a@b",
        "a=b",
    ] {
        match check(json!(bad)) {
            Err(HeaderError::AnnotationNotToken { header, location }) => {
                assert_eq!(header, bad);
                assert_eq!(location, "#/properties/p");
            }
            other => panic!("{bad:?}: {other:?}"),
        }
    }
    for good in ["Region", "x", "A1-b_c.d~e!#$%&'*+^`|"] {
        assert_eq!(check(json!(good)).unwrap(), vec![ph(good, &["p"])]);
    }
}

#[test]
fn duplicate_annotations() {
    for (a, b) in [("Region", "Region"), ("Region", "REGION"), ("region", "Region")] {
        let s = schema(
            json!({"a": {"type": "string", "x-mcp-header": a}, "b": {"type": "string", "x-mcp-header": b}}),
        );
        let err = param_headers(&s).unwrap_err();
        assert_eq!(
            err,
            HeaderError::DuplicateAnnotation {
                location: "#/properties/b".into(),
                header: b.into(),
                first: "#/properties/a".into()
            }
        );
    }
    // Across nesting levels too.
    let s = schema(
        json!({"a": {"type": "string", "x-mcp-header": "X"}, "o": {"type": "object", "properties": {"b": {"type": "string", "x-mcp-header": "x"}}}}),
    );
    assert!(matches!(param_headers(&s), Err(HeaderError::DuplicateAnnotation { .. })));
}

#[test]
fn annotation_types() {
    let check = |t: Value| param_headers(&schema(json!({"p": {"type": t, "x-mcp-header": "P"}})));
    for ok in [
        json!("string"),
        json!("integer"),
        json!("boolean"),
        json!(["integer", "null"]),
        json!(["null", "boolean"]),
    ] {
        assert!(check(ok.clone()).is_ok(), "{ok}");
    }
    for bad in [
        json!("number"),
        json!("object"),
        json!("array"),
        json!("null"),
        json!(["string", "integer"]),
        json!(["null"]),
        json!([]),
        json!(3),
    ] {
        assert!(matches!(check(bad.clone()), Err(HeaderError::UnsupportedType { .. })), "{bad}");
    }
    // No `type` at all: not provably primitive.
    let s = schema(json!({"p": {"enum": ["a", "b"], "x-mcp-header": "P"}}));
    assert!(matches!(param_headers(&s), Err(HeaderError::UnsupportedType { .. })));
}

#[test]
fn unreachable_annotations() {
    let a = json!({"type": "string", "x-mcp-header": "A"});
    let cases = [
        (json!({"type": "object", "x-mcp-header": "Root"}), "#"),
        (schema(json!({"l": {"type": "array", "items": a}})), "#/properties/l/items"),
        (schema(json!({"l": {"type": "array", "prefixItems": [a]}})), "#/properties/l/prefixItems/0"),
        (schema(json!({"u": {"oneOf": [a]}})), "#/properties/u/oneOf/0"),
        (json!({"anyOf": [{"properties": {"p": a}}]}), "#/anyOf/0/properties/p"),
        (json!({"allOf": [{"properties": {"p": a}}]}), "#/allOf/0/properties/p"),
        (schema(json!({"n": {"not": a}})), "#/properties/n/not"),
        (json!({"if": {"properties": {"p": a}}}), "#/if/properties/p"),
        (json!({"then": a}), "#/then"),
        (json!({"else": a}), "#/else"),
        (json!({"$defs": {"r": a}, "properties": {"p": {"$ref": "#/$defs/r"}}}), "#/$defs/r"),
        (json!({"definitions": {"r": a}}), "#/definitions/r"),
        (json!({"additionalProperties": a}), "#/additionalProperties"),
        (json!({"patternProperties": {"^x": a}}), "#/patternProperties/^x"),
        (
            schema(json!({"o": {"type": "object", "additionalProperties": {"properties": {"p": a}}}})),
            "#/properties/o/additionalProperties/properties/p",
        ),
        (schema(json!({"a/b": {"items": a}})), "#/properties/a~1b/items"),
    ];
    for (s, location) in cases {
        assert_eq!(
            param_headers(&s),
            Err(HeaderError::NotStaticallyReachable { location: location.into() }),
            "{s}"
        );
    }
}

#[test]
fn deep_schema_is_bounded() {
    let mut s = json!({"type": "string"});
    for _ in 0..200 {
        s = json!({"type": "object", "properties": {"p": s}});
    }
    assert_eq!(param_headers(&s), Err(HeaderError::SchemaTooDeep { max: MAX_SCHEMA_DEPTH }));
}

#[test]
fn value_rendering_per_json_type() {
    let headers = vec![ph("V", &["v"])];
    let render = |v: Value| param_header_values(&headers, &json!({ "v": v })).pop().map(|(_, v)| v);
    assert_eq!(render(json!("us-west1")).as_deref(), Some("us-west1"));
    assert_eq!(render(json!("")).as_deref(), Some(""));
    assert_eq!(render(json!(" x")).as_deref(), Some("=?base64?IHg=?="));
    assert_eq!(render(json!(true)).as_deref(), Some("true"));
    assert_eq!(render(json!(false)).as_deref(), Some("false"));
    assert_eq!(render(json!(42)).as_deref(), Some("42"));
    assert_eq!(render(json!(-7)).as_deref(), Some("-7"));
    assert_eq!(render(json!(0)).as_deref(), Some("0"));
    assert_eq!(render(json!(9_007_199_254_740_991_i64)).as_deref(), Some("9007199254740991"));
    assert_eq!(render(json!(u64::MAX)).as_deref(), Some("18446744073709551615"));
    assert_eq!(render(json!(42.0)).as_deref(), Some("42"));
    assert_eq!(render(json!(-0.0)).as_deref(), Some("0"));
    // SEP-2243 "Floating point" row (parsed from text: clippy flags the literal as ~PI).
    assert_eq!(render(serde_json::from_str("3.14159").unwrap()).as_deref(), Some("3.14159"));
    assert_eq!(render(json!(0.1)).as_deref(), Some("0.1"));
    assert_eq!(render(json!(1e300)).as_deref(), Some("1e+300")); // as serde_json writes it in the body
    assert_eq!(render(json!(null)), None);
    assert_eq!(render(json!([1])), None);
    assert_eq!(render(json!({"a": 1})), None);
    // Absent value, absent parent, non-object parent, non-object arguments.
    assert_eq!(param_header_values(&headers, &json!({})), vec![]);
    assert_eq!(param_header_values(&headers, &json!(null)), vec![]);
    let nested = vec![ph("N", &["a", "b"])];
    assert_eq!(param_header_values(&nested, &json!({"a": "str"})), vec![]);
    assert_eq!(param_header_values(&nested, &json!({"a": [1]})), vec![]);
    assert_eq!(param_header_values(&nested, &json!({"b": 1})), vec![]);
}

// --- configured headers ---------------------------------------------------------------------

#[test]
fn user_header_filtering() {
    let hs: Vec<(String, String)> = [
        ("Authorization", "Bearer x"),
        ("Mcp-Param-Region", "us"),
        ("mcp-param-x", "1"),
        ("MCP-PARAM-Y", "2"),
        ("Mcp-Params", "3"),
        ("X-Mcp-Param-Z", "4"),
    ]
    .iter()
    .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
    .collect();
    let modern = filter_user_headers(&hs, true);
    let names: Vec<&str> = modern.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["Authorization", "Mcp-Params", "X-Mcp-Param-Z"]);
    assert_eq!(filter_user_headers(&hs, false), hs);
    assert!(is_param_header("mCp-PaRaM-"));
    assert!(!is_param_header("Mcp-Param"));
    assert!(!is_param_header("Mcp-Paramé"));
}

#[test]
fn header_validation() {
    assert_eq!(validate_header("X-Api-Key", "abc def\tghi"), Ok(()));
    assert_eq!(validate_header("X-Name", "café"), Ok(()));
    assert_eq!(validate_header("X-Empty", ""), Ok(()));
    for bad in ["", "X Key", "X:Key", "Ключ", "a\n", "(a)"] {
        assert_eq!(validate_header(bad, "v"), Err(HeaderError::InvalidName { name: bad.into() }));
    }
    for bad in ["a\r\nX-Evil: 1", "a\nb", "a\rb", "a\0b", "a\x7f", "\x01"] {
        assert_eq!(validate_header("X-A", bad), Err(HeaderError::ControlCharacter { name: "X-A".into() }));
    }
}

// --- WWW-Authenticate -----------------------------------------------------------------------

fn p(c: &Challenge) -> Vec<(&str, &str)> {
    c.params.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect()
}

#[test]
fn spec_401_with_scope() {
    // authorization/index.mdx, with its folded continuation line.
    let v = "Bearer resource_metadata=\"https://mcp.example.com/.well-known/oauth-protected-resource\",\r\n                         scope=\"files:read\"";
    let c = parse_www_authenticate(v);
    assert_eq!(c.len(), 1);
    assert!(c[0].is_scheme("Bearer") && c[0].is_scheme("BEARER"));
    assert_eq!(
        c[0].resource_metadata(),
        Some("https://mcp.example.com/.well-known/oauth-protected-resource")
    );
    assert_eq!(c[0].scope(), Some("files:read"));
    assert_eq!(c[0].token68, None);
}

#[test]
fn spec_403_insufficient_scope() {
    let v = "Bearer error=\"insufficient_scope\",\n                         scope=\"files:write\",\n                         resource_metadata=\"https://mcp.example.com/.well-known/oauth-protected-resource\",\n                         error_description=\"File write permission required for this operation\"";
    let c = &parse_www_authenticate(v)[0];
    assert_eq!(c.error(), Some("insufficient_scope"));
    assert_eq!(c.scope(), Some("files:write"));
    assert_eq!(c.error_description(), Some("File write permission required for this operation"));
    assert!(c.resource_metadata().is_some());
}

#[test]
fn rfc9110_multiple_challenges() {
    // RFC 9110 §11.6.1 example.
    let v = r#"Newauth realm="apps", type=1, title="Login to \"apps\"", Basic realm="simple""#;
    let c = parse_www_authenticate(v);
    assert_eq!(c.len(), 2);
    assert_eq!(c[0].scheme, "Newauth");
    assert_eq!(p(&c[0]), [("realm", "apps"), ("type", "1"), ("title", "Login to \"apps\"")]);
    assert_eq!(c[1].scheme, "Basic");
    assert_eq!(c[1].realm(), Some("simple"));
}

#[test]
fn token68_and_bare_schemes() {
    let c = parse_www_authenticate("Basic dXNlcjpwYXNz==, Negotiate YII+/w, Bearer");
    assert_eq!(c.len(), 3);
    assert_eq!(c[0].token68.as_deref(), Some("dXNlcjpwYXNz=="));
    assert_eq!(c[1].token68.as_deref(), Some("YII+/w"));
    assert_eq!(c[2].scheme, "Bearer");
    assert!(c[2].params.is_empty() && c[2].token68.is_none());
    let c = parse_www_authenticate("Negotiate abc= , Basic realm=x");
    assert_eq!(c[0].token68.as_deref(), Some("abc="));
    assert_eq!(c[1].realm(), Some("x"));
    let c = parse_www_authenticate("Basic, Bearer realm=\"r\"");
    assert_eq!((c.len(), c[1].realm()), (2, Some("r")));
}

#[test]
fn quoting_and_whitespace() {
    let c = parse_www_authenticate(r#"  bearer   REALM = "a, b" ,, scope="x y\\z"  ,error=invalid_token,"#);
    assert_eq!(c.len(), 1);
    assert_eq!(p(&c[0]), [("realm", "a, b"), ("scope", r"x y\z"), ("error", "invalid_token")]);
    assert_eq!(c[0].scopes().collect::<Vec<_>>(), ["x", r"y\z"]);
    assert_eq!(c[0].param("Realm"), Some("a, b"));
    let c = parse_www_authenticate("Bearer\tscope=\"\"");
    assert_eq!(c[0].scope(), Some(""));
    assert_eq!(c[0].scopes().count(), 0);
    // Unquoted URL and base64-ish values are tolerated.
    let c = parse_www_authenticate("Bearer resource_metadata=https://x.example/a?b=c, nonce=ab==");
    assert_eq!(c[0].resource_metadata(), Some("https://x.example/a?b=c"));
    assert_eq!(c[0].param("nonce"), Some("ab=="));
    // Duplicate names: the first wins.
    assert_eq!(parse_www_authenticate("Bearer scope=a, scope=b")[0].scope(), Some("a"));
    // Non-ASCII inside quotes survives.
    assert_eq!(parse_www_authenticate("Bearer realm=\"café\"")[0].realm(), Some("café"));
}

#[test]
fn malformed_input() {
    assert!(parse_www_authenticate("").is_empty());
    assert!(parse_www_authenticate(" , ,, ").is_empty());
    assert!(parse_www_authenticate("realm=\"x\"").is_empty());
    assert!(parse_www_authenticate("\"quoted, scheme\"").is_empty());
    assert!(parse_www_authenticate("= = =").is_empty());
    // Unterminated quote: the parameter is dropped, earlier ones kept.
    let c = parse_www_authenticate("Bearer scope=\"a\", realm=\"unterminated, Basic x");
    assert_eq!(p(&c[0]), [("scope", "a")]);
    assert_eq!(c.len(), 1);
    // Garbage between parameters is skipped up to the next comma.
    let c = parse_www_authenticate("Bearer a=b junk \"q,\" more, c=d, =e, f=, g=\"h\"");
    assert_eq!(p(&c[0]), [("a", "b"), ("c", "d"), ("g", "h")]);
    let c = parse_www_authenticate("Bearer realm=\"a\" Basic");
    assert_eq!(p(&c[0]), [("realm", "a")]);
    let c = parse_www_authenticate("Bearer@ x, Basic realm=y");
    assert_eq!((c.len(), c[0].scheme.as_str(), c[0].realm()), (1, "Basic", Some("y")));
    // Trailing backslash inside a quote.
    assert!(parse_www_authenticate("Bearer a=\"x\\")[0].params.is_empty());
}

#[test]
fn bounds() {
    let many = vec!["Basic realm=x"; 100].join(", ");
    assert_eq!(parse_www_authenticate(&many).len(), MAX_CHALLENGES);
    let params: Vec<String> = (0..100).map(|i| format!("p{i}=v")).collect();
    let c = parse_www_authenticate(&format!("Bearer {}, Basic realm=z", params.join(", ")));
    assert_eq!(c[0].params.len(), MAX_CHALLENGE_PARAMS);
    assert_eq!(c[1].realm(), Some("z"));
    // Input beyond 8 KiB is ignored.
    let long = format!("Bearer pad=\"{}\", Basic realm=late", "a".repeat(MAX_WWW_AUTHENTICATE_LEN));
    let c = parse_www_authenticate(&long);
    assert_eq!(c.len(), 1);
    assert!(c[0].params.is_empty());
    // A multi-byte character split by the cut does not panic.
    let _ = parse_www_authenticate(&format!("Bearer realm=\"{}\"", "é".repeat(MAX_WWW_AUTHENTICATE_LEN)));
}

// --- fuzz body ------------------------------------------------------------------------------

#[test]
fn fuzz_body_smoke() {
    for case in [
        &b""[..],
        b"=?base64?",
        b"=?base64?=",
        b"\xff\xfe",
        b"Bearer a=\"",
        b"{\"properties\":{\"a\":{\"type\":\"string\",\"x-mcp-header\":\"A\"},\"x-mcp-header\":\"B\"}}",
        b"{\"a\":\" x\"}",
    ] {
        fuzz_headers(case);
    }
}

proptest! {
    #[test]
    fn round_trip(s in any::<String>()) {
        let e = encode_header_value(&s);
        prop_assert!(is_header_safe(&e));
        prop_assert_eq!(decode_header_value(&e), Ok(s));
    }

    #[test]
    fn fuzz_body_never_panics(data in prop::collection::vec(any::<u8>(), 0..512)) {
        fuzz_headers(&data);
    }

    #[test]
    fn www_authenticate_total(s in "[ -~\t\r\n\"\\\\,=]{0,200}") {
        fuzz_headers(s.as_bytes());
    }
}
