#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcp_core::gzip::fuzz_bounded(data));
