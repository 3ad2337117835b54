#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcpwire_core::fuzzing::client_ops_stdio(std::time::Instant::now(), data));
