#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcpwire_core::fuzzing::client_ops_http(std::time::Instant::now(), data));
