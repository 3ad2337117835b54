//! `mcp-test-server`: the deterministic MCP test server (see the `mcpwire_test_server` crate docs for
//! the flags and tools).

fn main() -> std::process::ExitCode {
    mcpwire_test_server::run(std::env::args().skip(1))
}
