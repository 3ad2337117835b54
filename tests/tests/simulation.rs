//! The deterministic simulation (see `mcp_tests::sim`): a fixed sweep of seeds, a determinism
//! check (each seed of a sample run twice, trace hashes compared), the regression seeds, and a
//! replay of one seed from `MCP_SIM_SEED`. Longer sweeps: `MCP_SIM_SEEDS=100000 cargo test
//! --release -p mcp-tests --test simulation seed_sweep -- --nocapture`.

use std::time::Duration;

use mcp_tests::sim::World;

/// Seeds that once failed; replayed on every run.
const REGRESSION_SEEDS: &[u64] = &[];

#[allow(clippy::disallowed_methods)] // the one real clock reading: the simulation's base instant
fn base() -> std::time::Instant {
    std::time::Instant::now()
}

#[test]
fn seed_sweep() {
    let count: u64 = std::env::var("MCP_SIM_SEEDS").ok().and_then(|s| s.parse().ok()).unwrap_or(300);
    let base = base();
    let (mut simulated, mut requests, mut steps, mut spawns, mut crashes) = (Duration::ZERO, 0, 0, 0, 0);
    for seed in 0..count {
        let report = World::new(seed, base).run();
        simulated += report.simulated;
        requests += report.requests;
        steps += report.steps;
        spawns += report.spawns;
        crashes += report.crashes;
    }
    println!(
        "simulation: {count} seeds, {:.1} simulated hours, {requests} requests, {steps} steps, \
         {spawns} processes started, {crashes} crashes",
        simulated.as_secs_f64() / 3600.0
    );
    // The sweep exercises the faults it claims to (crashes force restarts).
    assert!(crashes > count / 4 && spawns > count + crashes / 2, "{spawns} spawns, {crashes} crashes");
}

#[test]
fn runs_are_deterministic() {
    let base = base();
    for seed in (0..40).map(|i| i * 7919) {
        let a = World::new(seed, base).run();
        let b = World::new(seed, base).run();
        assert_eq!(a, b, "seed {seed} ran differently twice");
    }
}

#[test]
fn regression_seeds() {
    let base = base();
    for &seed in REGRESSION_SEEDS {
        World::new(seed, base).run();
    }
}

/// Replays `MCP_SIM_SEED` (seed 1 when unset), printing its report.
#[test]
fn replay_one_seed() {
    let seed = std::env::var("MCP_SIM_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(1);
    let report = World::new(seed, base()).run();
    assert_eq!(report.seed, seed);
    println!("{report:?}");
}
