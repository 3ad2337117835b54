//! `mcp-test-server`: the deterministic MCP test server (see the `mcp_test_server` crate docs for
//! the flags and tools).

fn main() -> std::process::ExitCode {
    mcp_test_server::run(std::env::args().skip(1))
}
