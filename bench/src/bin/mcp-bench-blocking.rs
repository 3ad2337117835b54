//! One client run on blocking (see `mcp_bench::clients`); this binary links no other runtime.

fn main() {
    mcp_bench::clients::client_main(mcp_bench::clients::run_blocking);
}
