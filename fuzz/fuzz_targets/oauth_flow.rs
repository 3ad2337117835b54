#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcpwire_core::fuzzing::oauth_flow(std::time::Instant::now(), data));
