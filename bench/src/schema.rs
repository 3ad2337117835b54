//! `mcp-bench schema`: validating a ~3 KB tool result against a realistic `outputSchema`
//! compiled once, against the floor of cloning the same `serde_json::Value`, and the one-time
//! compile cost.

use std::hint::black_box;
use std::time::{Duration, Instant};

use cpu_time::ProcessTime;
use mcpwire_core::schema::{CompiledSchema, SchemaOptions};
use serde_json::{json, Value};

#[derive(Clone, Copy, Default)]
struct Sample {
    cpu: Duration,
    wall: Duration,
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// One row per runner: median CPU and wall time per call, and their ratios to the first row
/// (the floor). `column` is the first column's title and width; `unit` the time unit's name,
/// scale from seconds, and decimals.
fn print_ratios(
    column: (&str, usize),
    unit: (&str, f64, usize),
    names: &[&str],
    samples: &[Vec<Sample>],
    n: usize,
) {
    let ((title, width), (unit, scale, decimals)) = (column, unit);
    let per_call = |d: Duration| d.as_secs_f64() * scale / n as f64;
    let medians = |i: usize| {
        let cpu = per_call(median(samples[i].iter().map(|s| s.cpu).collect()));
        (cpu, per_call(median(samples[i].iter().map(|s| s.wall).collect())))
    };
    let (floor_cpu, floor_wall) = medians(0);
    let (cpu_title, wall_title) = (format!("cpu {unit}/call"), format!("wall {unit}/call"));
    println!("{title:<width$} {cpu_title:>12} {wall_title:>12} {:>10} {:>10}", "cpu ratio", "wall ratio");
    for (i, name) in names.iter().enumerate() {
        let (cpu, wall) = medians(i);
        println!(
            "{name:<width$} {cpu:>12.decimals$} {wall:>12.decimals$} {:>10.2} {:>10.2}",
            cpu / floor_cpu,
            wall / floor_wall
        );
    }
}

/// A search tool's `outputSchema`: ten properties, nested arrays of objects, enums, patterns,
/// number ranges, `required` lists, `additionalProperties`, a `$ref` to `$defs`.
fn tool_output_schema() -> Value {
    json!({
        "type": "object",
        "required": ["request_id", "status", "query", "total", "took_ms", "results"],
        "additionalProperties": false,
        "properties": {
            "request_id": {"type": "string", "pattern": "^req_[0-9a-f]{16}$"},
            "status": {"enum": ["ok", "partial", "degraded"]},
            "query": {"type": "string", "minLength": 1, "maxLength": 512},
            "total": {"type": "integer", "minimum": 0},
            "took_ms": {"type": "number", "minimum": 0, "maximum": 60000},
            "page": {
                "type": "object",
                "required": ["index", "size"],
                "properties": {
                    "index": {"type": "integer", "minimum": 0},
                    "size": {"type": "integer", "minimum": 1, "maximum": 100},
                    "next_cursor": {"type": ["string", "null"], "pattern": "^[A-Za-z0-9_-]+$"}
                }
            },
            "results": {"type": "array", "maxItems": 100, "items": {"$ref": "#/$defs/result"}},
            "facets": {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}},
            "warnings": {"type": "array", "items": {"type": "string", "maxLength": 200}},
            "source": {"enum": ["index", "cache", "live"]}
        },
        "$defs": {
            "result": {
                "type": "object",
                "required": ["id", "title", "score", "kind", "author"],
                "additionalProperties": false,
                "properties": {
                    "id": {"type": "string", "pattern": "^doc-[0-9]{6}$"},
                    "title": {"type": "string", "minLength": 1, "maxLength": 200},
                    "url": {"type": "string", "pattern": "^https://"},
                    "score": {"type": "number", "minimum": 0, "maximum": 1},
                    "kind": {"enum": ["article", "issue", "commit", "page"]},
                    "tags": {
                        "type": "array",
                        "maxItems": 8,
                        "uniqueItems": true,
                        "items": {"type": "string", "pattern": "^[a-z][a-z0-9-]*$"}
                    },
                    "author": {
                        "type": "object",
                        "required": ["name"],
                        "properties": {
                            "name": {"type": "string", "minLength": 1},
                            "handle": {"type": "string", "pattern": "^@[A-Za-z0-9_]{1,30}$"}
                        }
                    },
                    "updated": {"type": "string", "format": "date-time"}
                }
            }
        }
    })
}

/// A matching result of about 3 KB.
fn tool_output_instance() -> Value {
    let kinds = ["article", "issue", "commit", "page"];
    let results: Vec<Value> = (0..12)
        .map(|i| {
            json!({
                "id": format!("doc-{:06}", 1000 + i),
                "title": format!("Handling structured tool output, part {i}"),
                "url": format!("https://example.com/docs/{i}"),
                "score": 1.0 - f64::from(i) / 20.0,
                "kind": kinds[i as usize % kinds.len()],
                "tags": ["json-schema", "mcp", format!("t{i}")],
                "author": {"name": "Ada Lovelace", "handle": "@ada"},
                "updated": "2025-06-18T12:00:00Z"
            })
        })
        .collect();
    json!({
        "request_id": "req_0123456789abcdef",
        "status": "ok",
        "query": "structured output validation",
        "total": 1234,
        "took_ms": 12.5,
        "page": {"index": 0, "size": 12, "next_cursor": "c_12"},
        "results": results,
        "facets": {"article": 700, "issue": 300, "commit": 200, "page": 34},
        "warnings": ["index is 2 minutes stale"],
        "source": "index"
    })
}

/// Per-call validation cost of a compiled tool `outputSchema`, against cloning the instance.
pub fn run(n: usize, rounds: usize) {
    let schema = tool_output_schema();
    let instance = tool_output_instance();
    let mut invalid = instance.clone();
    invalid["results"][7]["score"] = json!(1.5);
    let options = SchemaOptions::default();

    let t0 = Instant::now();
    let compiled = CompiledSchema::compile(&schema, &options).expect("schema compiles");
    let first_compile = t0.elapsed();
    let compiles: Vec<Duration> = (0..50)
        .map(|_| {
            let t = Instant::now();
            black_box(CompiledSchema::compile(black_box(&schema), &options).expect("compiles"));
            t.elapsed()
        })
        .collect();
    assert!(compiled.validate(&instance).is_ok(), "the instance matches");
    assert_eq!(compiled.validate(&invalid).map_err(|e| e.violations().len()), Err(1), "one violation");

    type Runner<'a> = (&'a str, Box<dyn Fn() + 'a>);
    let runners: [Runner<'_>; 3] = [
        ("Value::clone floor", Box::new(|| drop(black_box(black_box(&instance).clone())))),
        ("validate (valid)", Box::new(|| drop(black_box(compiled.validate(black_box(&instance)))))),
        ("validate (1 error)", Box::new(|| drop(black_box(compiled.validate(black_box(&invalid)))))),
    ];
    for (_, run) in &runners {
        (0..n / 10 + 1).for_each(|_| run()); // warm-up
    }
    let mut samples: Vec<Vec<Sample>> = vec![Vec::new(); runners.len()];
    for round in 0..rounds {
        for k in 0..runners.len() {
            let i = (k + round) % runners.len();
            let (cpu0, wall0) = (ProcessTime::now(), Instant::now());
            (0..n).for_each(|_| (runners[i].1)());
            samples[i].push(Sample { cpu: cpu0.elapsed(), wall: wall0.elapsed() });
        }
    }
    let bytes = serde_json::to_vec(&instance).expect("json").len();
    println!("schema validation: {bytes}-byte tool result, {n} calls x {rounds} rounds (medians)");
    println!(
        "compile once: {:.1} µs (first), {:.1} µs (median of {})",
        first_compile.as_secs_f64() * 1e6,
        median(compiles.clone()).as_secs_f64() * 1e6,
        compiles.len()
    );
    let names: Vec<&str> = runners.iter().map(|(name, _)| *name).collect();
    print_ratios(("operation", 20), ("ns", 1e9, 0), &names, &samples, n);
}
