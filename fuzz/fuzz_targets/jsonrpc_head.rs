#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcpwire_core::jsonrpc_head::fuzz_head(data));
