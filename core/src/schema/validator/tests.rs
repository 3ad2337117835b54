use serde_json::{json, Value};

use super::*;

fn compile(schema: Value) -> Result<CompiledSchema, SchemaProblem> {
    CompiledSchema::compile(&schema, &SchemaOptions::default())
}

fn valid(schema: Value, instance: Value) -> bool {
    compile(schema).expect("schema compiles").validate(&instance).is_ok()
}

#[test]
fn dialects_come_from_schema_and_default_to_2020_12() {
    assert_eq!(compile(json!({})).unwrap().dialect(), Dialect::Draft202012);
    assert_eq!(compile(json!(true)).unwrap().dialect(), Dialect::Draft202012);
    let d7 = compile(json!({"$schema": "http://json-schema.org/draft-07/schema#"})).unwrap();
    assert_eq!(d7.dialect(), Dialect::Draft7);
    let d19 = compile(json!({"$schema": "https://json-schema.org/draft/2019-09/schema"})).unwrap();
    assert_eq!(d19.dialect(), Dialect::Draft201909);
}

#[test]
fn an_unknown_dialect_is_named_with_the_supported_ones() {
    let err = compile(json!({"$schema": "https://example.com/my-dialect", "type": "string"})).unwrap_err();
    assert_eq!(err, SchemaProblem::UnsupportedDialect { dialect: "https://example.com/my-dialect".into() });
    let text = err.to_string();
    assert!(text.contains("my-dialect") && text.contains("2020-12") && text.contains("draft-07"), "{text}");
}

#[test]
fn a_custom_meta_schema_given_in_memory_is_usable() {
    let meta = json!({"$schema": "https://json-schema.org/draft/2020-12/schema",
                      "$id": "https://example.com/meta", "$dynamicAnchor": "meta"});
    let opts = SchemaOptions::default().with_resource("https://example.com/meta", meta);
    let schema = json!({"$schema": "https://example.com/meta", "type": "string"});
    let compiled = CompiledSchema::compile(&schema, &opts).unwrap();
    assert_eq!(compiled.dialect(), Dialect::Draft202012);
}

#[test]
fn external_references_are_reported_never_fetched() {
    for reference in ["https://example.com/schema.json", "file:///etc/passwd", "other.json#/x"] {
        let err = compile(json!({"$ref": reference})).unwrap_err();
        assert!(matches!(err, SchemaProblem::ExternalReference { .. }), "{reference}: {err:?}");
    }
    // Served from memory when the host provides it.
    let opts =
        SchemaOptions::default().with_resource("https://example.com/int.json", json!({"type": "integer"}));
    let compiled = CompiledSchema::compile(&json!({"$ref": "https://example.com/int.json"}), &opts).unwrap();
    assert!(compiled.validate(&json!(3)).is_ok() && compiled.validate(&json!("3")).is_err());
}

#[test]
fn colliding_identifiers_make_the_schema_unusable() {
    let ids = compile(
        json!({"$defs": {"a": {"$id": "https://example.com/x"}, "b": {"$id": "https://example.com/x"}}}),
    );
    assert_eq!(
        ids.unwrap_err(),
        SchemaProblem::DuplicateIdentifier { identifier: "https://example.com/x".into() }
    );
    let anchors = compile(json!({"$defs": {"a": {"$anchor": "here"}, "b": {"$anchor": "here"}}}));
    assert!(matches!(anchors.unwrap_err(), SchemaProblem::DuplicateIdentifier { .. }));
    let relative = compile(json!({"$id": "https://example.com/root.json",
        "$defs": {"a": {"$id": "item.json"}, "b": {"$id": "https://example.com/item.json"}}}));
    assert!(matches!(relative.unwrap_err(), SchemaProblem::DuplicateIdentifier { .. }));
    // The same anchor name in two different resources is fine.
    assert!(compile(json!({"$defs": {"a": {"$id": "https://example.com/a", "$anchor": "n"},
                                     "b": {"$id": "https://example.com/b", "$anchor": "n"}}}))
    .is_ok());
    // Draft-07 plain-name anchors are `$id: "#name"`.
    let d7 = compile(json!({"$schema": "http://json-schema.org/draft-07/schema#",
        "definitions": {"a": {"$id": "#n"}, "b": {"$id": "#n"}}}));
    assert!(matches!(d7.unwrap_err(), SchemaProblem::DuplicateIdentifier { .. }));
}

#[test]
fn internal_references_anchors_and_the_empty_reference_resolve() {
    let schema = json!({
        "$id": "https://example.com/tree",
        "type": "object",
        "properties": {"value": {"$ref": "#num"}, "children": {"type": "array", "items": {"$ref": "#"}}},
        "$defs": {"n": {"$anchor": "num", "type": "number"}}
    });
    assert!(valid(schema.clone(), json!({"value": 1, "children": [{"value": 2, "children": []}]})));
    assert!(!valid(schema, json!({"value": 1, "children": [{"value": "x"}]})));
    let d7 = json!({"$schema": "http://json-schema.org/draft-07/schema#",
                    "definitions": {"s": {"type": "string"}}, "items": {"$ref": "#/definitions/s"}});
    assert!(valid(d7.clone(), json!(["a"])) && !valid(d7, json!([1])));
}

#[test]
fn the_2020_12_vocabulary_is_whole() {
    let unevaluated = json!({"properties": {"a": {}}, "unevaluatedProperties": false,
                             "allOf": [{"properties": {"b": {}}}]});
    assert!(valid(unevaluated.clone(), json!({"a": 1, "b": 2})));
    assert!(!valid(unevaluated, json!({"a": 1, "c": 3})));
    let tuple = json!({"prefixItems": [{"type": "string"}], "items": false});
    assert!(valid(tuple.clone(), json!(["x"])) && !valid(tuple, json!(["x", 1])));
    let contains = json!({"contains": {"type": "integer"}, "minContains": 2, "maxContains": 3});
    assert!(valid(contains.clone(), json!([1, 2, "x"])) && !valid(contains.clone(), json!([1, "x"])));
    assert!(!valid(contains, json!([1, 2, 3, 4])));
    let dependent = json!({"dependentSchemas": {"card": {"required": ["billing"]}}});
    assert!(
        valid(dependent.clone(), json!({"card": 1, "billing": 2})) && !valid(dependent, json!({"card": 1}))
    );
    let dynamic = json!({
        "$id": "https://example.com/list", "$dynamicAnchor": "item",
        "$defs": {"strings": {"$id": "https://example.com/strings", "$dynamicAnchor": "item", "type": "string"}},
        "type": ["array", "string"], "items": {"$dynamicRef": "#item"}
    });
    assert!(valid(dynamic, json!(["a", ["b"]])));
}

#[test]
fn ecma_classes_are_ascii() {
    assert!(!valid(json!({"pattern": "^\\d$"}), json!("\u{0660}")), "Arabic-Indic digit is not \\d");
    assert!(valid(json!({"pattern": "^\\d$"}), json!("7")));
    assert!(!valid(json!({"pattern": "^\\w$"}), json!("é")), "é is not \\w");
    assert!(valid(json!({"pattern": "^\\s$"}), json!("\u{feff}")), "U+FEFF is \\s");
    assert!(!valid(json!({"pattern": "^a$"}), json!("a\n")), "$ does not match before a final newline");
}

#[test]
fn patterns_the_engine_cannot_express_make_the_schema_unusable() {
    for pattern in ["[\\p{L}--[a-z]]", "(unclosed"] {
        let err = compile(json!({"pattern": pattern})).unwrap_err();
        assert!(matches!(err, SchemaProblem::Invalid { .. }), "{pattern}: {err:?}");
    }
    let long = "a".repeat(5000);
    assert_eq!(
        compile(json!({"pattern": long})).unwrap_err(),
        SchemaProblem::PatternTooLong { len: 5000, limit: 4096 }
    );
    let long_key = json!({"patternProperties": {"b".repeat(5000): {}}});
    assert!(matches!(compile(long_key).unwrap_err(), SchemaProblem::PatternTooLong { .. }));
}

#[test]
fn catastrophic_patterns_fail_closed_within_their_budget() {
    let hostile = "a".repeat(10_000) + "!";
    // Linear engine: answers at once, and the answer is "no match".
    assert!(!valid(json!({"pattern": "^(a+)+$"}), json!(hostile)));
    // Backtracking engine (a backreference forces it): the step budget runs out -> invalid.
    let failure = compile(json!({"pattern": "^(a|aa)+\\1$"})).unwrap().validate(&json!(hostile)).unwrap_err();
    assert_eq!(failure.violations().len(), 1);
    // A lookahead pattern that does match is still found valid.
    assert!(valid(json!({"pattern": "^(a+)+(?=!)"}), json!(hostile)));
}

#[test]
fn oversize_and_deep_instances_are_refused_unvalidated() {
    let compiled = compile(json!({})).unwrap();
    let mut deep = json!(1);
    for _ in 0..200 {
        deep = json!([deep]);
    }
    assert!(matches!(compiled.validate(&deep), Err(ValidationFailure::TooLarge { .. })));
    let opts = SchemaOptions {
        limits: SchemaLimits { max_instance_nodes: 10, ..SchemaLimits::default() },
        ..SchemaOptions::default()
    };
    let small = CompiledSchema::compile(&json!({}), &opts).unwrap();
    assert!(matches!(
        small.validate(&json!([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])),
        Err(ValidationFailure::TooLarge { .. })
    ));
    assert!(small.validate(&json!([1, 2, 3])).is_ok());
    let big_schema = json!({"enum": (0..200_000).collect::<Vec<_>>()});
    assert_eq!(compile(big_schema).unwrap_err(), SchemaProblem::TooLarge { limit: 100_000 });
}

#[test]
fn annotations_are_not_asserted_but_listed() {
    let schema = json!({"type": "object", "properties": {
        "mail": {"type": "string", "format": "email"},
        "blob": {"type": "string", "contentEncoding": "base64", "contentMediaType": "application/json"}}});
    let compiled = compile(schema.clone()).unwrap();
    assert_eq!(compiled.unasserted_keywords(), ["format", "contentMediaType", "contentEncoding"]);
    assert!(compiled.validate(&json!({"mail": "nope", "blob": "%%%"})).is_ok());
    // Draft-07 treats content keywords as annotations too, and `format` (which the engine
    // asserts by default in draft-07) as well.
    let d7 = compile(json!({"$schema": "http://json-schema.org/draft-07/schema#",
                            "contentMediaType": "application/json", "format": "email"}))
    .unwrap();
    assert!(d7.validate(&json!("{not json")).is_ok());
}

#[cfg(feature = "schema-formats")]
#[test]
fn format_is_asserted_on_request() {
    let schema = json!({"type": "object", "properties": {
        "mail": {"type": "string", "format": "email"},
        "blob": {"type": "string", "contentEncoding": "base64", "contentMediaType": "application/json"}}});
    let asserting = CompiledSchema::compile(&schema, &SchemaOptions::asserting_format()).unwrap();
    assert_eq!(asserting.unasserted_keywords(), ["contentMediaType", "contentEncoding"]);
    assert!(asserting.validate(&json!({"mail": "nope"})).is_err());
    assert!(asserting.validate(&json!({"mail": "ada@example.com", "blob": "%%%"})).is_ok());
    // `idn-email` is known (not ignored as an unknown format): `schema-formats` brings IDNA.
    let idn =
        CompiledSchema::compile(&json!({"format": "idn-email"}), &SchemaOptions::asserting_format()).unwrap();
    assert!(idn.validate(&json!("실례@실례.테스트")).is_ok());
    assert!(idn.validate(&json!("2962")).is_err());
}

#[test]
fn violations_are_ordered_capped_and_short() {
    let schema = json!({"type": "object", "properties": {
        "a": {"type": "integer"}, "b": {"type": "integer"}, "c": {"maxLength": 1}}});
    let failure =
        compile(schema).unwrap().validate(&json!({"c": "x".repeat(2000), "b": "no", "a": "no"})).unwrap_err();
    let paths: Vec<&str> = failure.violations().iter().map(|v| v.instance_path.as_str()).collect();
    assert_eq!(paths, ["/a", "/b", "/c"]);
    assert_eq!(failure.violations()[2].message, "the value is longer than 1 character");
    let many = compile(json!({"items": {"type": "string"}})).unwrap();
    let ValidationFailure::Invalid { violations, total } =
        many.validate(&json!((0..50).collect::<Vec<_>>())).unwrap_err()
    else {
        panic!("expected violations");
    };
    assert_eq!((violations.len(), total), (8, 50));
    assert!(ValidationFailure::Invalid { violations, total }.to_string().ends_with("and 42 more"));
}

#[test]
fn reference_loops_terminate() {
    for schema in [
        json!({"$defs": {"a": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}),
        json!({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}),
        json!({"$ref": "#"}),
        json!({"$dynamicAnchor": "x", "$dynamicRef": "#x"}),
    ] {
        // Whatever the verdict, it comes back.
        if let Ok(compiled) = compile(schema) {
            let _ = compiled.validate(&json!({"deep": [1, 2, 3]}));
        }
    }
}

#[test]
fn backtracking_patterns_share_one_budget_per_validation() {
    // Each string matches just inside the per-match budget; many of them must not add up to
    // minutes of work: the instance is refused before any pattern runs.
    let schema = json!({"type": "array", "items": {"type": "string", "pattern": "^(?:(a|aa)+\\1c|.*)$"}});
    let compiled = compile(schema).unwrap();
    let few: Vec<String> = (0..10).map(|_| "a".repeat(12)).collect();
    assert!(compiled.validate(&json!(few)).is_ok());
    let many: Vec<String> = (0..5_000).map(|_| "a".repeat(21)).collect();
    match compiled.validate(&json!(many)) {
        Err(ValidationFailure::TooLarge { detail }) => assert!(detail.contains("backtrack"), "{detail}"),
        other => panic!("{other:?}"),
    }
    // Linear-time patterns have no such cap.
    let linear = compile(json!({"type": "array", "items": {"pattern": "^(a+)+$"}})).unwrap();
    let strings: Vec<String> = (0..5_000).map(|_| "a".repeat(21)).collect();
    assert!(linear.validate(&json!(strings)).is_ok());
}

#[test]
fn the_reported_external_reference_is_always_the_same() {
    let schema = json!({"properties": {
        "a": {"$ref": "https://a.example/x.json"}, "b": {"$ref": "https://b.example/y.json"}}});
    let first = compile(schema.clone()).unwrap_err();
    assert!(matches!(first, SchemaProblem::ExternalReference { .. }), "{first:?}");
    for _ in 0..50 {
        assert_eq!(compile(schema.clone()).unwrap_err(), first);
    }
    // References to the engine's meta-schemas and to ids inside the document are not external.
    assert!(compile(json!({"$ref": "https://json-schema.org/draft/2020-12/schema"})).is_ok());
    assert!(compile(json!({"$defs": {"n": {"$id": "https://example.com/n", "type": "number"}},
                           "$ref": "https://example.com/n"}))
    .is_ok());
}

#[test]
fn malformed_schemas_are_invalid_not_panics() {
    for (schema, expect) in [
        (json!(42), "object or a boolean"),
        (json!("string"), "object or a boolean"),
        (json!({"$schema": 7}), "$schema must be a string"),
        (json!({"$id": "http://[bad"}), "invalid $id"),
    ] {
        match compile(schema.clone()) {
            Err(SchemaProblem::Invalid { detail }) => assert!(detail.contains(expect), "{schema}: {detail}"),
            other => panic!("{schema}: {other:?}"),
        }
    }
    // A chain of custom meta-schemas that never reaches a known dialect is refused.
    let mut opts = SchemaOptions::default();
    for i in 0..10 {
        opts = opts.with_resource(
            format!("https://example.com/m{i}"),
            json!({"$schema": format!("https://example.com/m{}", i + 1)}),
        );
    }
    let err = CompiledSchema::compile(&json!({"$schema": "https://example.com/m0"}), &opts).unwrap_err();
    assert!(matches!(&err, SchemaProblem::Invalid { detail } if detail.contains("too long")), "{err:?}");
}
