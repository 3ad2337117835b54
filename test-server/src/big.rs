//! `--big-tool`: the tool `big {bytes?=1048576}`, which answers with one text block of `bytes`
//! bytes (`x` repeated, at most [`MAX_BYTES`]), for the client's message-size limit: with a
//! `max_message_bytes` below it, the call must fail at once with a too-large error rather
//! than wait out its timeout. Served in both eras.

use serde_json::{json, Map, Value};

use crate::protocol::{error_result, text_result, Reply};
use crate::tools::{object_schema, tool, uint_arg};

/// The tools of this block.
pub const NAMES: [&str; 1] = ["big"];

/// The largest text `big` writes (256 MiB).
pub const MAX_BYTES: u64 = 256 * 1024 * 1024;

/// Its definition.
pub fn definitions() -> Vec<Value> {
    vec![tool(
        "big",
        "Answers with a text result of `bytes` bytes",
        object_schema(
            json!({"bytes": {"type": "integer", "minimum": 0, "maximum": MAX_BYTES, "default": 1_048_576}}),
            &[],
        ),
    )]
}

/// Runs `big`.
pub fn call(args: &Map<String, Value>) -> Reply {
    let bytes = match uint_arg(args, "bytes", Some(1_048_576)) {
        Ok(n) if n <= MAX_BYTES => n,
        Ok(_) => return Ok(error_result(format!("argument bytes must be at most {MAX_BYTES}"))),
        Err(result) => return Ok(result),
    };
    Ok(text_result("x".repeat(bytes as usize)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_the_size_asked() {
        let args = |v: Value| v.as_object().cloned().unwrap();
        let r = call(&args(json!({"bytes": 10}))).unwrap();
        assert_eq!(r["content"][0]["text"], json!("xxxxxxxxxx"));
        let r = call(&args(json!({}))).unwrap();
        assert_eq!(r["content"][0]["text"].as_str().unwrap().len(), 1_048_576);
        let r = call(&args(json!({"bytes": MAX_BYTES + 1}))).unwrap();
        assert_eq!(r["isError"], json!(true));
        let r = call(&args(json!({"bytes": -1}))).unwrap();
        assert_eq!(r["isError"], json!(true));
    }
}
