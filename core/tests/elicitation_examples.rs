//! Every form elicitation example of the 2026-07-28 schema passes the form check.
//! This test plays the host: it reads files, which the core never does.
#![allow(clippy::disallowed_methods)]

use mcpwire_core::schema::elicitation::form_of;

#[test]
fn the_spec_elicitation_examples_are_valid_forms() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/spec-examples/2026-07-28");
    let mut seen = 0;
    for example in ["ElicitRequestFormParams", "ElicitRequest", "ElicitRequestURLParams"] {
        let entries =
            std::fs::read_dir(format!("{dir}/{example}")).unwrap_or_else(|e| panic!("{dir}/{example}: {e}"));
        for entry in entries.flatten() {
            let value: serde_json::Value =
                serde_json::from_slice(&std::fs::read(entry.path()).unwrap()).unwrap();
            let params = value.get("params").unwrap_or(&value);
            form_of(params).unwrap_or_else(|e| panic!("{}: {e}", entry.path().display()));
            seen += 1;
        }
    }
    assert!(seen >= 3, "only {seen} elicitation examples found under {dir}");
}
