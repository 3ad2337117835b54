//! The benchmark's client side, shared by `mcp-bench` (the comparison driver, the soak and the
//! schema benchmark) and the per-runtime client binaries `mcp-bench-tokio`, `mcp-bench-smol` and
//! `mcp-bench-blocking` (each links only its own runtime, as a user's program would).
//!
//! ```text
//! mcp-bench-tokio tokio|tokio-task|tokio-ct stdio N SERVER [ARGS...]   # one run, one RESULT line
//! mcp-bench-smol smol http N URL
//! CALLERS=64 mcp-bench-blocking blocking stdio 1000 SERVER             # 64 concurrent callers
//! ```

pub mod clients;
pub mod usage;
