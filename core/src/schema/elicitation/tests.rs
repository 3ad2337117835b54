use serde_json::{json, Value};

use super::formats::{is_date, is_date_time, is_email, is_uri};
use super::{form_of, ElicitationError, FormSchema};

#[test]
fn form_shapes_are_checked() {
    let ok = json!({"type": "object", "properties": {
        "name": {"type": "string", "minLength": 1},
        "age": {"type": "integer", "minimum": 0},
        "color": {"type": "string", "enum": ["red", "green"]},
        "hero": {"type": "string", "oneOf": [{"const": "h1", "title": "Superman"}]},
        "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}, "maxItems": 1},
        "fish": {"type": "array", "items": {"anyOf": [{"const": "f1", "title": "Tuna"}]}},
        "legacy": {"type": "string", "enum": ["p1"], "enumNames": ["Cats"]},
        "agree": {"type": "boolean"}}, "required": ["name"]});
    FormSchema::parse(&ok).unwrap();
    for bad in [
        json!({"type": "object", "properties": {"nested": {"type": "object", "properties": {}}}}),
        json!({"type": "object", "properties": {"when": {"type": "string", "format": "uuid"}}}),
        json!({"type": "object", "properties": {"list": {"type": "array", "items": {"type": "number"}}}}),
        json!({"type": "object", "properties": {"x": {"type": "string"}}, "required": ["y"]}),
        json!({"type": "array"}),
        json!({"type": "object", "properties": {"x": {}}}),
    ] {
        assert!(matches!(FormSchema::parse(&bad), Err(ElicitationError::InvalidSchema { .. })), "{bad}");
    }
}

#[test]
fn answers_are_checked_against_the_form() {
    let form = FormSchema::parse(&json!({"type": "object", "properties": {
        "email": {"type": "string", "format": "email"},
        "born": {"type": "string", "format": "date"},
        "n": {"type": "integer", "minimum": 1, "maximum": 10},
        "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}, "maxItems": 1}},
        "required": ["email"]}))
    .unwrap();
    assert!(form.check_content(&json!({"email": "ada@example.com", "born": "1815-12-10", "n": 3})).is_ok());
    for bad in [
        json!({}),
        json!({"email": "nope"}),
        json!({"email": "ada@example.com", "born": "10/12/1815"}),
        json!({"email": "ada@example.com", "n": 11}),
        json!({"email": "ada@example.com", "tags": ["a", "b"]}),
        json!({"email": "ada@example.com", "tags": ["c"]}),
        json!({"email": "ada@example.com", "extra": 1}),
    ] {
        assert!(matches!(form.check_content(&bad), Err(ElicitationError::InvalidAnswer { .. })), "{bad}");
    }
    assert!(form.check_result(&json!({"action": "decline"})).is_ok());
    assert!(form.check_result(&json!({"action": "accept", "content": {"email": 1}})).is_err());
    assert!(form.check_result(&json!({"action": "maybe"})).is_err());
    assert!(form_of(&json!({"mode": "url", "url": "https://example.com", "message": "go"}))
        .unwrap()
        .is_none());
    assert!(matches!(form_of(&json!({"mode": "telepathy"})), Err(ElicitationError::InvalidSchema { .. })));
    assert!(matches!(form_of(&json!({"message": "no schema"})), Err(ElicitationError::InvalidSchema { .. })));
}

/// The form the keyword tests share: one field of each kind, every constraint set.
fn every_kind() -> FormSchema {
    FormSchema::parse(&json!({"type": "object", "properties": {
        "name": {"type": "string", "title": "Name", "minLength": 2, "maxLength": 4, "default": "Ada"},
        "color": {"type": "string", "enum": ["red", "green"], "enumNames": ["Red", "Green"]},
        "hero": {"type": "string", "oneOf": [{"const": "h1", "title": "Superman"}, {"const": "h2"}]},
        "ratio": {"type": "number", "minimum": -0.5, "maximum": 2.5},
        "count": {"type": "integer", "minimum": 1, "maximum": 3},
        "agree": {"type": "boolean"},
        "tags": {"type": "array", "minItems": 1, "maxItems": 2, "items": {"anyOf": [
            {"const": "a", "title": "A"}, {"const": "b"}, {"const": "c"}]}},
        "site": {"type": "string", "format": "uri"},
        "at": {"type": "string", "format": "date-time"}}}))
    .unwrap()
}

fn accepts(form: &FormSchema, content: Value) -> bool {
    form.check_content(&content).is_ok()
}

#[test]
fn every_form_keyword_is_asserted() {
    let form = every_kind();
    let good = [
        json!({}),
        json!({"name": "Al", "color": "red", "hero": "h2", "ratio": -0.5, "count": 3, "agree": false,
               "tags": ["a", "c"], "site": "https://example.com/x?y#z", "at": "2024-02-29T23:59:60Z"}),
        // Characters, not bytes; 2.0 is an integer.
        json!({"name": "Ωμέγ", "count": 2.0, "ratio": 2.5}),
    ];
    for content in good {
        assert!(accepts(&form, content.clone()), "{content} should pass");
    }
    let bad = [
        json!({"name": "A"}),
        json!({"name": "Adele"}),
        json!({"name": 12}),
        json!({"color": "blue"}),
        json!({"hero": "h3"}),
        json!({"ratio": 2.6}),
        json!({"ratio": "1"}),
        json!({"count": 0}),
        json!({"count": 1.5}),
        json!({"agree": "yes"}),
        json!({"tags": []}),
        json!({"tags": ["a", "b", "c"]}),
        json!({"tags": ["d"]}),
        json!({"tags": "a"}),
        json!({"site": "example.com"}),
        json!({"at": "2024-02-29"}),
        json!(["not", "an", "object"]),
    ];
    for content in bad {
        assert!(
            matches!(form.check_content(&content), Err(ElicitationError::InvalidAnswer { .. })),
            "{content} should fail"
        );
    }
}

#[test]
fn an_answer_lists_what_is_wrong_where() {
    let form = every_kind();
    let err = form.check_content(&json!({"count": 9, "a/b~c": 1})).unwrap_err().to_string();
    assert!(err.contains("/count: 9 is more than the maximum 3"), "{err}");
    assert!(err.contains("/a~1b~0c: the form has no such field"), "{err}");
    let many: serde_json::Map<String, Value> = (0..20).map(|i| (format!("x{i:02}"), json!(i))).collect();
    let err = form.check_content(&Value::Object(many)).unwrap_err().to_string();
    assert!(err.ends_with("; and 12 more"), "{err}");
    let shown = form.check_content(&json!({"name": format!("\u{1b}[31m{}", "x".repeat(500))})).unwrap_err();
    let shown = shown.to_string();
    assert!(!shown.contains('\u{1b}') && shown.len() < 300, "{shown}");
}

#[test]
fn large_numbers_compare_exactly() {
    let form = FormSchema::parse(&json!({"type": "object", "properties": {
        "id": {"type": "integer", "minimum": 9_007_199_254_740_993_u64}}}))
    .unwrap();
    assert!(accepts(&form, json!({"id": 9_007_199_254_740_993_u64})));
    assert!(!accepts(&form, json!({"id": 9_007_199_254_740_992_u64})));
    assert!(!accepts(&form, json!({"id": -1})));
}

#[test]
fn dates_and_date_times_follow_rfc_3339() {
    for ok in ["2024-02-29", "2023-12-31", "0000-01-01", "2000-02-29"] {
        assert!(is_date(ok), "{ok}");
    }
    for bad in [
        "2023-02-29",
        "1900-02-29",
        "2024-13-01",
        "2024-00-10",
        "2024-04-31",
        "2024-1-01",
        "24-01-01",
        "2024/01/01",
        "2024-01-01 ",
        "２０２４-01-01",
    ] {
        assert!(!is_date(bad), "{bad}");
    }
    for ok in [
        "1985-04-12T23:20:50.52Z",
        "1996-12-19T16:39:57-08:00",
        "1990-12-31t23:59:60z",
        "1990-12-31T15:59:60-08:00",
        "2024-01-01T00:00:00+23:59",
    ] {
        assert!(is_date_time(ok), "{ok}");
    }
    for bad in [
        "1985-04-12T23:20:50",
        "1985-04-12 23:20:50Z",
        "1985-04-12T24:00:00Z",
        "1985-04-12T23:60:00Z",
        "1985-04-12T23:20:50.Z",
        "1985-04-12T23:20:50+0100",
        "1985-04-12T23:20:50+24:00",
        "1990-12-31T23:58:60Z",
        "1990-12-31T23:59:60+01:00",
        "1985-04-12T23:20:50Z ",
    ] {
        assert!(!is_date_time(bad), "{bad}");
    }
}

#[test]
fn emails_are_rfc_5321_mailboxes() {
    for ok in [
        "ada@example.com",
        "first.last+tag@sub.example.co",
        "!#$%&'*+-/=?^_`{|}~@example.com",
        "\"quoted @ and space\"@example.com",
        "\"\"@example.com",
        "\"a\\\"b\"@example.com",
        "x@localhost",
        "x@[192.0.2.1]",
        "x@[IPv6:2001:db8::1]",
        "x@[ipv6:::1]",
    ] {
        assert!(is_email(ok), "{ok}");
    }
    let long_local = format!("{}@example.com", "a".repeat(65));
    let long_label = format!("a@{}.com", "b".repeat(64));
    for bad in [
        "nope",
        "@example.com",
        "ada@",
        ".ada@example.com",
        "ada.@example.com",
        "a..da@example.com",
        "ada@example..com",
        "ada@-example.com",
        "ada@example-.com",
        "ada@example.com.",
        "ada@exa_mple.com",
        "ada@@example.com",
        "a da@example.com",
        "\"unclosed@example.com",
        "\"x\"y@example.com",
        "δοκιμή@example.com",
        "ada@例子.com",
        "x@[300.0.0.1]",
        "x@[2001:db8::1]",
        "x@[IPv6:not-an-address]",
        "Ada <ada@example.com>",
        &long_local,
        &long_label,
    ] {
        assert!(!is_email(bad), "{bad}");
    }
}

#[test]
fn uris_are_absolute_rfc_3986_uris() {
    for ok in [
        "https://example.com",
        "https://user:pw@example.com:8443/a/b;c=d?q=1&r=%20#frag/?",
        "http://[2001:db8::1]:80/",
        "http://[v7.fe80::1]/",
        "mailto:ada@example.com",
        "urn:isbn:0451450523",
        "file:///etc/hosts",
        "a+b-c.d:",
        "http://example.com:/",
    ] {
        assert!(is_uri(ok), "{ok}");
    }
    for bad in [
        "",
        "example.com",
        "//example.com/path",
        "/relative/path",
        "1http://example.com",
        "ht tp://example.com",
        "http://exa mple.com",
        "http://example.com/a b",
        "http://example.com/%zz",
        "http://example.com/%4",
        "http://example.com:80a/",
        "http://[2001:db8::1/",
        "http://[not-v6]/",
        "http://ex[ample.com/",
        "http://example.com/#a#b",
        "http://example.com/é",
        "http://user@host@example.com",
    ] {
        assert!(!is_uri(bad), "{bad}");
    }
}

/// The hand-written checks agree with the JSON Schema engine (asserting formats) on the forms
/// they both understand.
#[cfg(feature = "schema-formats")]
#[test]
fn the_checks_agree_with_the_json_schema_engine() {
    use crate::schema::{CompiledSchema, SchemaOptions};

    let schema = json!({"type": "object", "properties": {
        "name": {"type": "string", "minLength": 2, "maxLength": 4},
        "color": {"type": "string", "enum": ["red", "green"]},
        "hero": {"type": "string", "oneOf": [{"const": "h1"}, {"const": "h2"}, {"const": "h2"}]},
        "ratio": {"type": "number", "minimum": -0.5, "maximum": 2.5},
        "count": {"type": "integer", "minimum": 1, "maximum": 3},
        "agree": {"type": "boolean"},
        "tags": {"type": "array", "minItems": 1, "maxItems": 2, "items": {"type": "string", "enum": ["a", "b"]}},
        "fish": {"type": "array", "items": {"anyOf": [{"const": "f1"}, {"const": "f2"}]}},
        "mail": {"type": "string", "format": "email"},
        "site": {"type": "string", "format": "uri"},
        "day": {"type": "string", "format": "date"},
        "at": {"type": "string", "format": "date-time"}},
        "required": ["agree"]});
    let form = FormSchema::parse(&schema).unwrap();
    let mut strict = schema.clone();
    strict["additionalProperties"] = json!(false);
    let engine = CompiledSchema::compile(&strict, &SchemaOptions::asserting_format()).unwrap();
    let values: Vec<(&str, Vec<Value>)> = vec![
        ("name", vec![json!("A"), json!("Al"), json!("Ωμέγ"), json!("Adele"), json!(1)]),
        ("color", vec![json!("red"), json!("blue"), json!(null)]),
        ("hero", vec![json!("h1"), json!("h2"), json!("h3")]),
        ("ratio", vec![json!(-0.5), json!(-0.6), json!(2), json!(2.5), json!(2.51), json!("1")]),
        ("count", vec![json!(0), json!(1), json!(3.0), json!(1.5), json!(4), json!(true)]),
        ("agree", vec![json!(true), json!(0)]),
        (
            "tags",
            vec![
                json!([]),
                json!(["a"]),
                json!(["a", "b"]),
                json!(["a", "b", "a"]),
                json!(["c"]),
                json!([1]),
            ],
        ),
        ("fish", vec![json!([]), json!(["f2", "f1"]), json!(["f3"]), json!("f1")]),
        (
            "mail",
            vec![
                json!("ada@example.com"),
                json!("a.b+c@x.co"),
                json!("\"q @\"@example.com"),
                json!("x@[192.0.2.1]"),
                json!("x@[IPv6:2001:db8::1]"),
                json!("nope"),
                json!(".a@example.com"),
                json!("a@example..com"),
                json!("a@-x.com"),
                json!("a@x_y.com"),
                json!("x@[300.0.0.1]"),
                json!("δ@example.com"),
            ],
        ),
        (
            "site",
            vec![
                json!("https://example.com"),
                json!("https://u:p@example.com:8443/a;b?q=1#f"),
                json!("urn:x:y"),
                json!("http://[2001:db8::1]/"),
                json!("example.com"),
                json!("/path"),
                json!("http://a b"),
                json!("http://x/%zz"),
                json!("http://x:8a/"),
                json!("http://x/#a#b"),
                json!("http://x/é"),
            ],
        ),
        ("day", vec![json!("2024-02-29"), json!("2023-02-29"), json!("2024-13-01"), json!("24-01-01")]),
        (
            "at",
            vec![
                json!("1985-04-12T23:20:50.52Z"),
                json!("1996-12-19T16:39:57-08:00"),
                json!("1990-12-31T23:59:60Z"),
                json!("1990-12-31T15:59:60-08:00"),
                json!("1990-12-31T23:58:60Z"),
                json!("1985-04-12T23:20:50"),
                json!("1985-04-12T24:00:00Z"),
                json!("1985-04-12 23:20:50Z"),
            ],
        ),
        ("extra", vec![json!(1)]),
    ];
    let mut compared = 0;
    for (field, candidates) in values {
        for value in candidates {
            let content = json!({"agree": true, field: value});
            assert_eq!(
                form.check_content(&content).is_ok(),
                engine.validate(&content).is_ok(),
                "{content}: the form check and the engine disagree"
            );
            compared += 1;
        }
    }
    for content in [json!({}), json!([]), json!({"agree": false, "extra": 1})] {
        assert_eq!(form.check_content(&content).is_ok(), engine.validate(&content).is_ok(), "{content}");
    }
    assert!(compared > 60, "only {compared} answers compared");
}
