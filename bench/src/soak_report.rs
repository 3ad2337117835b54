//! The soak's report: one table per part, printed a row at a time as runs finish, each row
//! with its verdict; the failed checks listed at the end, then `soak: ok` or
//! `soak: FAILED (...)`. With `--out FILE`, every row is also appended to FILE as one JSON line
//! (the figures by name, `ok`, and the failed checks).

use std::fs::File;
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use serde_json::{Map, Value};

use crate::soak::Rt;

/// The keys every JSON record has besides the figures.
const RESERVED: [&str; 5] = ["part", "runtime", "transport", "ok", "failures"];

/// One run's figures and the checks it failed.
#[derive(Debug, Clone)]
pub struct Row {
    /// `load`, `long`, `many` or `restart`.
    pub part: &'static str,
    /// The runtime family.
    pub rt: Rt,
    /// `stdio` or `http`.
    pub transport: &'static str,
    /// The figures, by column name, in column order.
    pub figures: Vec<(&'static str, Value)>,
    /// Each failed check, said in a sentence.
    pub failures: Vec<String>,
}

impl Row {
    /// A row without figures yet.
    pub fn new(part: &'static str, rt: Rt, transport: &'static str) -> Row {
        Row { part, rt, transport, figures: Vec::new(), failures: Vec::new() }
    }

    /// Adds a figure (a column). The record's own keys are not column names.
    pub fn set(&mut self, column: &'static str, value: impl Into<Value>) {
        debug_assert!(!RESERVED.contains(&column), "{column} is a record key of its own");
        self.figures.push((column, value.into()));
    }

    /// Records a failed check.
    pub fn fail(&mut self, why: impl Into<String>) {
        self.failures.push(why.into());
    }

    /// Records a failed check unless `holds`.
    pub fn check(&mut self, holds: bool, why: impl FnOnce() -> String) {
        if !holds {
            self.fail(why());
        }
    }

    fn label(&self) -> String {
        format!("{} {} {}", self.part, self.rt.name(), self.transport)
    }
}

/// Collects and prints the rows.
#[derive(Debug)]
pub struct Report {
    out: Option<File>,
    header_pending: bool,
    rows: Vec<Row>,
}

fn cell(value: &Value) -> String {
    match value {
        Value::Number(n) if n.is_f64() => {
            let x = n.as_f64().unwrap_or(f64::NAN);
            if x.abs() >= 100.0 {
                format!("{x:.0}")
            } else {
                format!("{x:.2}")
            }
        }
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.clone(),
        Value::Null => "-".into(),
        other => other.to_string(),
    }
}

fn width(column: &str) -> usize {
    column.chars().count().max(9)
}

impl Report {
    /// A report; `out` (created or appended to) gets one JSON line per row.
    pub fn new(out: Option<PathBuf>) -> Result<Report, String> {
        let out = match out {
            Some(path) => Some(
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(&path)
                    .map_err(|e| format!("{}: {e}", path.display()))?,
            ),
            None => None,
        };
        Ok(Report { out, header_pending: false, rows: Vec::new() })
    }

    /// Starts a part's table with its title (the column header follows with its first row).
    pub fn section(&mut self, title: String) {
        println!("\n{title}");
        self.header_pending = true;
    }

    /// Prints a row (and the header first, for a section's first row) and keeps it.
    pub fn add(&mut self, row: Row) {
        if self.header_pending {
            let mut header = format!("{:<9} {:<9}", "runtime", "transport");
            for (column, _) in &row.figures {
                header.push_str(&format!(" {:>w$}", column, w = width(column)));
            }
            println!("{header}  verdict");
            self.header_pending = false;
        }
        let mut line = format!("{:<9} {:<9}", row.rt.name(), row.transport);
        for (column, value) in &row.figures {
            line.push_str(&format!(" {:>w$}", cell(value), w = width(column)));
        }
        let verdict = if row.failures.is_empty() {
            "ok".to_owned()
        } else {
            format!("FAILED ({})", row.failures.len())
        };
        println!("{line}  {verdict}");
        let _ = std::io::stdout().flush();
        if let Some(out) = self.out.as_mut() {
            let mut record = Map::new();
            record.insert("part".into(), row.part.into());
            record.insert("runtime".into(), row.rt.name().into());
            record.insert("transport".into(), row.transport.into());
            for (column, value) in &row.figures {
                record.insert((*column).into(), value.clone());
            }
            record.insert("ok".into(), row.failures.is_empty().into());
            record.insert("failures".into(), row.failures.clone().into());
            let _ = writeln!(out, "{}", Value::Object(record));
        }
        self.rows.push(row);
    }

    /// Lists the failed checks, prints the final line; true when every check held.
    pub fn finish(self, elapsed: Duration) -> bool {
        let failed: Vec<&Row> = self.rows.iter().filter(|r| !r.failures.is_empty()).collect();
        println!();
        for row in &failed {
            for why in &row.failures {
                println!("  {}: {why}", row.label());
            }
        }
        let checks: usize = failed.iter().map(|r| r.failures.len()).sum();
        println!("{} runs in {:.1} s", self.rows.len(), elapsed.as_secs_f64());
        if checks == 0 {
            println!("soak: ok");
        } else {
            println!("soak: FAILED ({checks} failed checks in {} of {} runs)", failed.len(), self.rows.len());
        }
        checks == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_carry_their_checks_and_records() {
        let path = std::env::temp_dir().join(format!("mcp-bench-report-{}.jsonl", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let mut report = Report::new(Some(path.clone())).unwrap();
        report.section("t".into());
        let mut good = Row::new("load", Rt::Tokio, "stdio");
        good.set("calls", 10u64);
        good.set("p50 µs", 12.345);
        good.check(true, || unreachable!("a check that holds says nothing"));
        report.add(good);
        let mut bad = Row::new("load", Rt::Smol, "http");
        bad.check(false, || "2 calls lost".into());
        report.add(bad);
        assert!(!report.finish(Duration::from_secs(1)));
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(lines.len(), 2);
        assert_eq!((lines[0]["calls"].as_u64(), lines[0]["ok"].as_bool()), (Some(10), Some(true)));
        assert_eq!(lines[1]["failures"][0], "2 calls lost");
        assert_eq!(cell(&Value::from(12.345)), "12.35");
        assert_eq!(cell(&Value::from(1234.4)), "1234");
        let _ = std::fs::remove_file(&path);
    }
}
