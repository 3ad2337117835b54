#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcp_core::jsonrpc_head::fuzz_head(data));
