//! `mcp-test-server`: the deterministic MCP test server (see `mcp_tests::test_server` for the
//! flags and tools).

fn main() -> std::process::ExitCode {
    mcp_tests::test_server::run(std::env::args().skip(1))
}
