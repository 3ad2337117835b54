#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcpwire_core::gzip::fuzz_bounded(data));
