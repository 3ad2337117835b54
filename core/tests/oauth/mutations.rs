//! A small deterministic mutation run of the `oauth_flow` fuzz body over its seed corpus (byte
//! flips, truncations, splices), so `cargo test` exercises hostile variants even where
//! cargo-fuzz is not installed.
#![allow(clippy::disallowed_methods)]

use std::path::Path;

fn seeds() -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/oauth_flow");
    let mut files: Vec<_> =
        std::fs::read_dir(&dir).expect("corpus").map(|e| e.expect("entry").path()).collect();
    files.sort();
    files.into_iter().map(|p| std::fs::read(p).expect("seed")).collect()
}

#[test]
fn mutated_seeds_never_break_invariants() {
    let seeds = seeds();
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let t0 = crate::harness::t0();
    for _ in 0..5000 {
        let mut data = seeds[(next() % seeds.len() as u64) as usize].clone();
        for _ in 0..(next() % 4 + 1) {
            let len = data.len().max(1) as u64;
            match next() % 5 {
                0 => {
                    let i = (next() % len) as usize;
                    if let Some(b) = data.get_mut(i) {
                        *b ^= 1 << (next() % 8);
                    }
                }
                1 => data.truncate((next() % len) as usize),
                2 => {
                    let other = &seeds[(next() % seeds.len() as u64) as usize];
                    let at = (next() % len) as usize;
                    let from = (next() % other.len().max(1) as u64) as usize;
                    data.splice(at.min(data.len()).., other[from.min(other.len())..].iter().copied());
                }
                3 => {
                    let i = (next() % len) as usize;
                    let byte = [b'"', b'{', b'}', b'&', b'=', b'%', 0xFF, b'/', b'\\'][(next() % 9) as usize];
                    data.insert(i.min(data.len()), byte);
                }
                _ => {
                    let i = (next() % len) as usize;
                    if i < data.len() {
                        data.remove(i);
                    }
                }
            }
        }
        mcpwire_core::fuzzing::oauth_flow(t0, &data);
    }
}
