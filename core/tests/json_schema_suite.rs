//! The official JSON Schema test suite (`tests/data/jsonschema-test-suite`) through
//! `mcpwire_core::schema`, with `remotes/` served from memory as `http://localhost:1234/...`.
//!
//! Required tests of draft-07, 2019-09 and 2020-12 must all pass. Optional tests (non-format, and
//! `optional/format` with format assertion on) are run and their counts printed; they do not fail
//! the test, except that a panic anywhere does.
//! This test plays the host: it reads files, which the core never does. It needs the
//! `schema-formats` feature (the format tests assert `format`), which the crate's own
//! dev-dependency enables, so every `cargo test` runs it.
#![cfg(feature = "schema-formats")]
#![allow(clippy::disallowed_methods)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use mcpwire_core::schema::{CompiledSchema, Dialect, SchemaOptions};
use serde_json::Value;

fn suite_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/jsonschema-test-suite")
}

fn json_files(dir: &Path, recursive: bool) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if recursive {
                out.extend(json_files(&path, true));
            }
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
    out.sort();
    out
}

fn read(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every file under `remotes/`, by the URL the suite expects it at.
fn remotes() -> BTreeMap<String, Value> {
    let root = suite_dir().join("remotes");
    json_files(&root, true)
        .into_iter()
        .map(|path| {
            let rel = path.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/");
            (format!("http://localhost:1234/{rel}"), read(&path))
        })
        .collect()
}

#[derive(Default, Debug, Clone, Copy)]
struct Tally {
    passed: usize,
    failed: usize,
}

struct Run {
    tally: Tally,
    failures: Vec<String>,
}

fn run(files: &[PathBuf], options: &SchemaOptions) -> Run {
    let mut run = Run { tally: Tally::default(), failures: Vec::new() };
    for file in files {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let Value::Array(groups) = read(file) else { panic!("{name}: not an array") };
        for group in groups {
            let description = group["description"].as_str().unwrap_or_default().to_owned();
            let compiled = CompiledSchema::compile(&group["schema"], options);
            for test in group["tests"].as_array().unwrap() {
                let expected = test["valid"].as_bool().unwrap();
                let got = match &compiled {
                    Ok(c) => Ok(c.validate(&test["data"]).is_ok()),
                    Err(problem) => Err(problem.to_string()),
                };
                if got.as_ref().ok() == Some(&expected) {
                    run.tally.passed += 1;
                } else {
                    run.tally.failed += 1;
                    run.failures.push(format!(
                        "{name} / {description} / {}: expected valid={expected}, got {got:?}",
                        test["description"].as_str().unwrap_or_default()
                    ));
                }
            }
        }
    }
    run
}

#[test]
fn official_suite() {
    let remotes = remotes();
    assert!(remotes.len() > 20, "remotes/ looks empty");
    let mut required_failures = Vec::new();
    for (dir, dialect) in [
        ("draft7", Dialect::Draft7),
        ("draft2019-09", Dialect::Draft201909),
        ("draft2020-12", Dialect::Draft202012),
    ] {
        let tests = suite_dir().join("tests").join(dir);
        let mut base = SchemaOptions::default();
        base.default_dialect = dialect;
        base.resources = remotes.clone();
        let required = run(&json_files(&tests, false), &base);
        let optional = run(&json_files(&tests.join("optional"), false), &base);
        let mut format_options = base.clone();
        format_options.assert_format = true;
        let format = run(&json_files(&tests.join("optional/format"), false), &format_options);
        let line = |t: Tally| format!("{}/{}", t.passed, t.passed + t.failed);
        println!(
            "{dir}: required {}, optional {}, optional/format {}",
            line(required.tally),
            line(optional.tally),
            line(format.tally)
        );
        for f in optional.failures.iter().chain(&format.failures).take(20) {
            println!("  optional failure: {f}");
        }
        assert!(required.tally.passed > 500, "{dir}: only {} required tests ran", required.tally.passed);
        required_failures.extend(required.failures);
    }
    assert!(required_failures.is_empty(), "required tests failed:\n{}", required_failures.join("\n"));
}
