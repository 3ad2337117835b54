#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcp_core::sse::fuzz_chunking(data));
